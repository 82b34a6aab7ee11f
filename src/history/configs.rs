//! Config versions across members. Each member keeps the versions it took, so an OLT
//! that changed hands has versions on several members; in a cluster every read here asks
//! the others too and merges by when each version was taken (then by id, which the
//! members' id blocks keep unique), newest first. Alone, each read is one store read.
//! A member that takes an OLT keeps the newest version of it ([`adopt_latest`]).

use super::blocking;
use crate::cluster::questions::{ask_each, Question};
use crate::error::ApiError;
use crate::state::AppState;
use chrono::{DateTime, Utc};
use ponkeeper_actors::domain::OltId;
use ponkeeper_actors::store::ConfigBackup;
use std::cmp::Reverse;

/// Where a version stands in an OLT's history: when it was taken, then its id.
pub type VersionKey = (DateTime<Utc>, u64);

fn key(version: &ConfigBackup) -> VersionKey {
    (version.taken_at, version.id)
}

/// A page of OLT `olt`'s config versions, newest first, and how many there are.
pub async fn configs(
    app: &AppState,
    olt: OltId,
    offset: usize,
    limit: usize,
) -> Result<(usize, Vec<ConfigBackup>), ApiError> {
    if !app.cluster.is_running() {
        let store = app.store.clone();
        return blocking(move || store.configs(olt, offset, limit)).await;
    }
    let need = offset.saturating_add(limit);
    let here = local_configs(app, olt, None, need).await?;
    let there: Vec<(usize, Vec<ConfigBackup>)> = ask_each(&Question::Configs {
        olt,
        before: None,
        limit: need,
    })
    .await;
    let (total, merged) = merge_newest_first(std::iter::once(here).chain(there));
    Ok((total, merged.into_iter().skip(offset).take(limit).collect()))
}

/// Config version `id` of OLT `olt` with its text, from whichever member took it.
pub async fn config(
    app: &AppState,
    olt: OltId,
    id: u64,
) -> Result<Option<(ConfigBackup, String)>, ApiError> {
    let here = local_config(app, olt, id).await?;
    if here.is_some() || !app.cluster.is_running() {
        return Ok(here);
    }
    let there: Vec<Option<(ConfigBackup, String)>> = ask_each(&Question::Config { olt, id }).await;
    Ok(there.into_iter().flatten().next())
}

/// The config version of its OLT taken just before `version`.
pub async fn config_before(
    app: &AppState,
    version: &ConfigBackup,
) -> Result<Option<u64>, ApiError> {
    let (olt, id) = (version.olt_id, version.id);
    if !app.cluster.is_running() {
        let store = app.store.clone();
        return blocking(move || store.config_before(olt, id)).await;
    }
    let before = Some(key(version));
    let here = local_configs(app, olt, before, 1).await?;
    let there: Vec<(usize, Vec<ConfigBackup>)> = ask_each(&Question::Configs {
        olt,
        before,
        limit: 1,
    })
    .await;
    let (_, merged) = merge_newest_first(std::iter::once(here).chain(there));
    Ok(merged.first().map(|v| v.id))
}

/// Keeps, for each OLT of `olts` (taken over or given back to this member), the newest
/// version any other member holds when it is newer than this member's own: the OLT's
/// next backup then stores a version only when the text changed since, as it would had
/// one member held the OLT all along. Returns how many versions were adopted.
pub async fn adopt_latest(app: &AppState, olts: &[OltId]) -> usize {
    use futures::StreamExt;
    futures::stream::iter(olts.iter().copied())
        .map(|olt| adopt_one(app, olt))
        .buffer_unordered(ADOPTING_AT_ONCE)
        .filter(|adopted| std::future::ready(*adopted))
        .count()
        .await
}

/// OLTs whose versions [`adopt_latest`] asks about at once.
const ADOPTING_AT_ONCE: usize = 16;

async fn adopt_one(app: &AppState, olt: OltId) -> bool {
    let there: Vec<(usize, Vec<ConfigBackup>)> = ask_each(&Question::Configs {
        olt,
        before: None,
        limit: 1,
    })
    .await;
    let Some(newest) = there.into_iter().flat_map(|(_, v)| v).max_by_key(key) else {
        return false;
    };
    let store = app.store.clone();
    let mine = blocking(move || store.latest_config(olt)).await;
    if mine.is_ok_and(|m| m.is_some_and(|m| key(&m) >= key(&newest))) {
        return false;
    }
    let texts: Vec<Option<(ConfigBackup, String)>> =
        ask_each(&Question::Config { olt, id: newest.id }).await;
    let Some((version, text)) = texts.into_iter().flatten().next() else {
        return false;
    };
    app.store
        .adopt_config(&version, &text)
        .await
        .inspect_err(
            |error| tracing::warn!(%error, olt, "a taken OLT's latest config version is not kept"),
        )
        .unwrap_or(false)
}

/// This member's versions of OLT `olt` (older than `before`, when given), newest first,
/// at most `limit`, and how many it holds of that OLT in all.
pub async fn local_configs(
    app: &AppState,
    olt: OltId,
    before: Option<VersionKey>,
    limit: usize,
) -> Result<(usize, Vec<ConfigBackup>), ApiError> {
    let store = app.store.clone();
    blocking(move || {
        // Newest first already (Store::configs).
        let (total, mut versions) = store.configs(olt, 0, usize::MAX)?;
        versions.retain(|v| before.is_none_or(|b| key(v) < b));
        versions.truncate(limit);
        Ok((total, versions))
    })
    .await
}

/// Config version `id` of OLT `olt` as this member's store holds it.
pub async fn local_config(
    app: &AppState,
    olt: OltId,
    id: u64,
) -> Result<Option<(ConfigBackup, String)>, ApiError> {
    let store = app.store.clone();
    blocking(move || store.config(olt, id)).await
}

/// Every member's versions in one list, newest first, each once; and the sum of the
/// members' totals less the versions two members both returned.
fn merge_newest_first(
    shares: impl Iterator<Item = (usize, Vec<ConfigBackup>)>,
) -> (usize, Vec<ConfigBackup>) {
    let mut total = 0;
    let mut all = Vec::new();
    for (count, versions) in shares {
        total += count;
        all.extend(versions);
    }
    all.sort_by_key(|v| Reverse(key(v)));
    let before = all.len();
    all.dedup_by_key(|v| v.id);
    (total.saturating_sub(before - all.len()), all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn version(id: u64, minute: u32) -> ConfigBackup {
        ConfigBackup {
            id,
            olt_id: 1,
            taken_at: Utc
                .with_ymd_and_hms(2026, 11, 27, 10, minute, 0)
                .single()
                .expect("time"),
            size_bytes: 1,
            sha256: String::new(),
            changed: true,
        }
    }

    #[test]
    fn versions_of_two_members_read_newest_first_once_each() {
        // Member 1's ids are larger (its block) though its versions are older.
        let alpha = (2, vec![version(9, 30), version(8, 10)]);
        let bravo = (2, vec![version(1 << 48, 20), version(9, 30)]);
        let (total, merged) = merge_newest_first([alpha, bravo].into_iter());
        let ids: Vec<u64> = merged.iter().map(|v| v.id).collect();
        assert_eq!(ids, vec![9, 1 << 48, 8]);
        assert_eq!(total, 3);
    }
}
