//! ONU state changes and OLT coverage, the СЗО's history. Each member records the state
//! changes of the ONUs it polls and the coverage of the OLTs it polls, so an OLT that
//! changed hands has its history in pieces; in a cluster these reads ask every other
//! member too and join the pieces: the latest change before an instant, changes merged by
//! time, and coverage stretches united.

use super::{blocking, kept_period};
use crate::cluster::questions::{ask_each, Question};
use crate::error::ApiError;
use crate::state::AppState;
use chrono::{DateTime, Utc};
use ponkeeper_actors::domain::{OltId, OnuId, OnuStateChange};
use ponkeeper_actors::store::Coverage;
use serde::{Deserialize, Serialize};

/// What an ONU's availability over a period is made of.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct OnuPeriod {
    /// The stretches in which its OLT was polled, clipped to the period.
    pub coverage: Vec<Coverage>,
    /// Its last state change before the period.
    pub baseline: Option<OnuStateChange>,
    /// Its state changes within the period, oldest first.
    pub changes: Vec<OnuStateChange>,
}

/// The last state change of ONU `onu` before `at`, if any.
pub async fn state_before(
    app: &AppState,
    onu: OnuId,
    at: DateTime<Utc>,
) -> Result<Option<OnuStateChange>, ApiError> {
    Ok(states_before(app, vec![onu], at).await?.pop().flatten())
}

/// The last state change before `at` of each ONU in `onus`, in that order.
pub async fn states_before(
    app: &AppState,
    onus: Vec<OnuId>,
    at: DateTime<Utc>,
) -> Result<Vec<Option<OnuStateChange>>, ApiError> {
    let mut latest = local_states_before(app, onus.clone(), at).await?;
    if app.cluster.is_running() && !onus.is_empty() {
        let there: Vec<Vec<Option<OnuStateChange>>> =
            ask_each(&Question::StatesBefore { onus, at }).await;
        let asked = latest.len();
        for answer in there.into_iter().filter(|a| a.len() == asked) {
            for (mine, theirs) in latest.iter_mut().zip(answer) {
                if theirs.as_ref().map(|c| c.at) > mine.as_ref().map(|c| c.at) {
                    *mine = theirs;
                }
            }
        }
    }
    Ok(latest)
}

/// [`states_before`] from this member's store alone.
pub async fn local_states_before(
    app: &AppState,
    onus: Vec<OnuId>,
    at: DateTime<Utc>,
) -> Result<Vec<Option<OnuStateChange>>, ApiError> {
    let store = app.store.clone();
    blocking(move || {
        onus.iter()
            .map(|onu| store.state_before(*onu, at))
            .collect()
    })
    .await
}

/// The coverage of OLT `olt` over `[from, to]` and the state changes of its ONU `onu`
/// around `[from, to)`. The period is cut to the longest history kept
/// (`szo.history_retention`, `onu.state_history_retention`) and now.
pub async fn onu_period(
    app: &AppState,
    olt: OltId,
    onu: OnuId,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Result<OnuPeriod, ApiError> {
    let here = local_onu_period(app, olt, onu, from, to).await?;
    if !app.cluster.is_running() {
        return Ok(here);
    }
    let there: Vec<OnuPeriod> = ask_each(&Question::OnuPeriod { olt, onu, from, to }).await;
    Ok(join_periods(std::iter::once(here).chain(there)))
}

/// [`onu_period`] from this member's store alone, read in one trip to the blocking pool.
pub async fn local_onu_period(
    app: &AppState,
    olt: OltId,
    onu: OnuId,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Result<OnuPeriod, ApiError> {
    let config = &app.config;
    let retention = config
        .szo
        .history_retention
        .max(config.onu.state_history_retention);
    let Some((from, to)) = kept_period(from, to, retention, Utc::now()) else {
        return Ok(OnuPeriod::default());
    };
    let store = app.store.clone();
    blocking(move || {
        Ok(OnuPeriod {
            coverage: store.coverage(olt, from, to)?,
            baseline: store.state_before(onu, from)?,
            changes: store.state_changes(onu, from, to)?,
        })
    })
    .await
}

/// The members' pieces of one period as one: the latest baseline, the changes oldest
/// first once each, and the coverage united (where two members' stretches overlap, the
/// one that began first holds the overlap).
fn join_periods(pieces: impl Iterator<Item = OnuPeriod>) -> OnuPeriod {
    let mut joined = OnuPeriod::default();
    let mut stretches = Vec::new();
    for piece in pieces {
        if piece.baseline.as_ref().map(|c| c.at) > joined.baseline.as_ref().map(|c| c.at) {
            joined.baseline = piece.baseline;
        }
        joined.changes.extend(piece.changes);
        stretches.extend(piece.coverage);
    }
    joined.changes.sort_by_key(|c| c.at);
    joined.changes.dedup_by_key(|c| c.at);
    stretches.sort_by_key(|s: &Coverage| s.start);
    for mut stretch in stretches {
        if let Some(last) = joined.coverage.last_mut() {
            if stretch.end <= last.end {
                continue;
            }
            if stretch.start <= last.end {
                if stretch.reachable == last.reachable {
                    last.end = stretch.end;
                    continue;
                }
                stretch.start = last.end;
            }
        }
        joined.coverage.push(stretch);
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use ponkeeper_actors::domain::OnuStatus;

    fn t(minute: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 27, 10, minute, 0)
            .single()
            .expect("time")
    }

    fn stretch(start: u32, end: u32, reachable: bool) -> Coverage {
        Coverage {
            start: t(start),
            end: t(end),
            reachable,
        }
    }

    fn change(minute: u32, status: OnuStatus) -> OnuStateChange {
        OnuStateChange {
            at: t(minute),
            status,
            cause: None,
        }
    }

    #[test]
    fn a_period_in_pieces_reads_as_one() {
        // Alpha polled until 10:20, bravo took over at 10:21 and overlapped alpha's
        // last stretch during the hand-back at 10:40.
        let alpha = OnuPeriod {
            coverage: vec![stretch(0, 20, true), stretch(40, 50, true)],
            baseline: Some(change(0, OnuStatus::Online)),
            changes: vec![
                change(10, OnuStatus::Offline),
                change(45, OnuStatus::Online),
            ],
        };
        let bravo = OnuPeriod {
            coverage: vec![stretch(21, 42, true), stretch(42, 44, false)],
            baseline: Some(change(10, OnuStatus::Offline)),
            changes: vec![change(30, OnuStatus::Online), change(45, OnuStatus::Online)],
        };
        let joined = join_periods([alpha, bravo].into_iter());
        assert_eq!(
            joined.coverage,
            vec![stretch(0, 20, true), stretch(21, 50, true)]
        );
        assert_eq!(joined.baseline, Some(change(10, OnuStatus::Offline)));
        let times: Vec<_> = joined.changes.iter().map(|c| c.at).collect();
        assert_eq!(times, vec![t(10), t(30), t(45)]);
    }
}
