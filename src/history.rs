//! History reads: every read of stored history a REST handler makes (and with it every MCP
//! tool, which reaches the same handlers), by name: config backups ([`configs`],
//! [`config`], [`config_before`]), ONU state changes and OLT coverage for the СЗО
//! ([`state_before`], [`onu_period`]), optics history ([`optics`]), traffic history
//! ([`traffic`]), both read tier by tier ([`series`]) or from VictoriaMetrics
//! ([`victoria`], as [`HistoryBackend`] says), the MACs seen behind ONUs ([`macs_of_onu`], [`find_macs`]) and the audit
//! log ([`audit_entries`]).
//!
//! A store read blocks its thread (a page may come from disk), so each function runs it on
//! tokio's blocking pool and never on an async worker, where it would hold up every other
//! request scheduled there. And a read costs by the period it covers, so every period a
//! client names is first cut to what retention can hold and to now ([`kept_period`]): a
//! range to the year 9999 reads the same days as one to now. A failed read answers 500 `INTERNAL` with the store's message,
//! as handlers answered before these reads moved here.

pub mod backend;
mod configs;
mod onu_states;
pub mod series;
pub mod victoria;

pub use backend::HistoryBackend;
pub use configs::{
    adopt_latest, config, config_before, configs, local_config, local_configs, VersionKey,
};
pub use onu_states::{
    local_onu_period, local_states_before, onu_period, state_before, states_before, OnuPeriod,
};
pub use series::{Plan, Resolution, Summary};

use crate::cluster::history::{merge_by_time, PointKind, PointsAsked};
use crate::error::ApiError;
use crate::records::{AuditEntry, AuditFilter};
use crate::state::AppState;
use chrono::{DateTime, Utc};
use ponkeeper_actors::domain::{OnuId, OpticsPoint};
use ponkeeper_actors::store::series::Sample;
use ponkeeper_actors::store::StoreError;
use ponkeeper_actors::traffic::TrafficPoint;

/// Runs `read` on tokio's blocking pool.
async fn blocking<T: Send + 'static>(
    read: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(read)
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?
        .map_err(|e| ApiError::Internal(e.to_string()))
}

/// `[from, to]` cut to what is kept: no earlier than `retention` before now, no later than
/// now. `None` when nothing of it is left. A store read costs per day of its period, so
/// no period a client names may reach past what retention can hold.
pub fn kept_period(
    from: DateTime<Utc>,
    to: DateTime<Utc>,
    retention: std::time::Duration,
    now: DateTime<Utc>,
) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
    let oldest = chrono::Duration::from_std(retention)
        .ok()
        .and_then(|kept| now.checked_sub_signed(kept))
        .unwrap_or(DateTime::<Utc>::MIN_UTC);
    let (from, to) = (from.max(oldest), to.min(now));
    (from <= to).then_some((from, to))
}

/// ONU `onu`'s optics history in `[from, to]`, oldest first, at most `limit` points: as
/// stored, or (with `step` seconds, or past `history.raw_retention`) summaries of
/// buckets of rollups ([`series`]); with the [`Plan`] it was read by. The period is cut
/// to its tier's retention and now first. In a cluster, every member's stored points of
/// the ONU, merged by time ([`crate::cluster::history`]).
pub async fn optics(
    app: &AppState,
    onu: OnuId,
    period: (DateTime<Utc>, DateTime<Utc>),
    step: Option<i64>,
    limit: usize,
) -> Result<(Plan, Vec<Summary<OpticsPoint>>), ApiError> {
    across_members(app, PointKind::Optics, onu, period, step, limit).await
}

/// [`optics`] for the traffic history: the buckets start at the client's `from` (at a
/// rollup resolution, at the start of its row), so the members' buckets line up; a bucket
/// two members both hold (an OLT handed over within it) is this member's.
pub async fn traffic(
    app: &AppState,
    onu: OnuId,
    period: (DateTime<Utc>, DateTime<Utc>),
    step: Option<i64>,
    limit: usize,
) -> Result<(Plan, Vec<Summary<TrafficPoint>>), ApiError> {
    across_members(app, PointKind::Traffic, onu, period, step, limit).await
}

/// How long each tier of `kind`'s history is kept.
fn tiers_of(app: &AppState, kind: PointKind) -> crate::config::History {
    match kind {
        PointKind::Optics => app.config.optics_history(),
        PointKind::Traffic => app.config.traffic_history(),
    }
}

/// `kind`'s points (`P`) of ONU `onu`, here and on every other member, read by the plan
/// this member makes, which it hands them.
async fn across_members<P>(
    app: &AppState,
    kind: PointKind,
    onu: OnuId,
    (from, to): (DateTime<Utc>, DateTime<Utc>),
    step: Option<i64>,
    limit: usize,
) -> Result<(Plan, Vec<Summary<P>>), ApiError>
where
    P: Sample + serde::Serialize + serde::de::DeserializeOwned + Send + 'static,
{
    let plan = Plan::new(&tiers_of(app, kind), Utc::now(), from, step);
    let here = local_series(app, kind, onu, (from, to), plan, limit).await?;
    let asked = PointsAsked {
        kind,
        onu,
        from,
        to,
        step_seconds: plan.step,
        resolution: Some(plan.resolution),
        limit,
    };
    let at = |p: &Summary<P>| {
        DateTime::from_timestamp(i64::from(p.point.seconds()), 0).unwrap_or_default()
    };
    if !app.history.is_local() {
        // VictoriaMetrics holds every member's points.
        return Ok((plan, here));
    }
    let points = with_other_members(app, here, asked, at).await;
    Ok((plan, points))
}

/// `here` merged by time with every other member's points for `asked`; `here` as it is
/// when the process runs alone.
async fn with_other_members<T: serde::de::DeserializeOwned>(
    app: &AppState,
    here: Vec<T>,
    asked: PointsAsked,
    at: impl Fn(&T) -> DateTime<Utc>,
) -> Vec<T> {
    if !app.cluster.is_running() {
        return here;
    }
    let there = crate::cluster::history::remote_points(asked).await;
    merge_by_time(here, there, at, asked.limit)
}

/// [`optics`] or [`traffic`] (`kind`, of points `P`) from this process's store alone, as
/// `plan` says.
pub async fn local_series<P>(
    app: &AppState,
    kind: PointKind,
    onu: OnuId,
    (from, to): (DateTime<Utc>, DateTime<Utc>),
    plan: Plan,
    limit: usize,
) -> Result<Vec<Summary<P>>, ApiError>
where
    P: Sample + Send + 'static,
{
    let retention = plan.resolution.retention(&tiers_of(app, kind));
    let Some(kept) = kept_period(from, to, retention, Utc::now()) else {
        return Ok(Vec::new());
    };
    let origin = plan.origin(from);
    if let HistoryBackend::Victoria(victoria) = &app.history {
        return victoria::read::read::<P>(&victoria.client, kind, onu, kept, (plan, origin), limit)
            .await;
    }
    let store = app.store.clone();
    blocking(move || series::read::<P>(&store, onu, kept, (plan, origin), limit)).await
}

/// Every MAC seen behind ONU `onu` within the retention, active ones first.
pub async fn macs_of_onu(
    app: &AppState,
    onu: OnuId,
) -> Result<Vec<ponkeeper_actors::store::macs::MacEntry>, ApiError> {
    let store = app.store.clone();
    blocking(move || store.macs_of_onu(onu)).await
}

/// At most `limit` sightings of the MACs `query` spells, newest first.
pub async fn find_macs(
    app: &AppState,
    query: ponkeeper_actors::macs::MacQuery,
    limit: usize,
) -> Result<Vec<ponkeeper_actors::store::macs::MacEntry>, ApiError> {
    let store = app.store.clone();
    blocking(move || store.find_macs(&query, limit)).await
}

/// A page of the audit entries `filter` admits, newest first, and how many it admits. A
/// period that starts in the future admits nothing and reads nothing.
pub async fn audit_entries(
    app: &AppState,
    mut filter: AuditFilter,
    offset: usize,
    limit: usize,
) -> Result<(usize, Vec<AuditEntry>), ApiError> {
    let now = Utc::now();
    if filter.from.is_some_and(|from| from > now) {
        return Ok((0, Vec::new()));
    }
    filter.to = filter.to.map(|to| to.min(now));
    let records = app.records.clone();
    blocking(move || records.audit_entries(&filter, offset, limit)).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn a_period_is_cut_to_retention_and_now() {
        let now = Utc
            .with_ymd_and_hms(2026, 11, 23, 12, 0, 0)
            .single()
            .expect("time");
        let day = std::time::Duration::from_secs(86_400);
        let far_past = Utc
            .with_ymd_and_hms(0, 1, 1, 0, 0, 0)
            .single()
            .expect("time");
        let far_future = Utc
            .with_ymd_and_hms(9999, 12, 31, 23, 59, 59)
            .single()
            .expect("time");
        assert_eq!(
            kept_period(far_past, far_future, 30 * day, now),
            Some((now - chrono::Duration::days(30), now))
        );
        let hour_ago = now - chrono::Duration::hours(1);
        assert_eq!(
            kept_period(hour_ago, now, 30 * day, now),
            Some((hour_ago, now))
        );
        assert_eq!(kept_period(far_future, far_future, 30 * day, now), None);
        assert_eq!(kept_period(far_past, far_past, 30 * day, now), None);
        // A retention too long to subtract keeps everything up to now.
        assert_eq!(
            kept_period(far_past, far_future, std::time::Duration::MAX, now),
            Some((far_past, now))
        );
    }
}
