//! History across members. Optics and traffic history are kept by the member that read
//! them, so an OLT that changed hands (a takeover, a hand-back) has its history in pieces
//! on several members. The member that answers a history request (the ONU's runner) asks
//! every other member for its stored points of that ONU in the period ([`remote_points`],
//! a [`Question`]; each answers from its store, [`crate::member`]) and merges them with
//! its own by time ([`merge_by_time`]), so the pieces read as one. The asker chooses the
//! resolution and the step ([`crate::history::Plan`]) and every member reads by them, so
//! their buckets and rows line up.

use super::questions::{ask_each, Question};
use chrono::{DateTime, Utc};
use ponkeeper_actors::domain::OnuId;
use serde::{Deserialize, Serialize};

/// Points one member asks another for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PointsAsked {
    pub kind: PointKind,
    pub onu: OnuId,
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    /// The step of the buckets, in seconds; none: points as stored.
    pub step_seconds: Option<i64>,
    /// The tier the asker reads, so every member's points are of the same kind; none (a
    /// member of before the tiers asks): raw points.
    #[serde(default)]
    pub resolution: Option<crate::history::Resolution>,
    pub limit: usize,
}

/// Which history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PointKind {
    Optics,
    Traffic,
}

/// The most points one answer carries (a day of optics at a minute's step is 1,440).
pub const MAX_POINTS: usize = 10_000;

/// Every other member's points for `asked`, each member's as it answered (a member that
/// does not answer in time is left out and logged).
pub async fn remote_points<T: serde::de::DeserializeOwned>(asked: PointsAsked) -> Vec<T> {
    let answers: Vec<Vec<T>> = ask_each(&Question::Points(asked)).await;
    answers.into_iter().flatten().collect()
}

/// `points` and `more` in one series, oldest first, one point per instant, at most
/// `limit` (the oldest), as each member's piece is.
pub fn merge_by_time<T>(
    mut points: Vec<T>,
    more: Vec<T>,
    at: impl Fn(&T) -> DateTime<Utc>,
    limit: usize,
) -> Vec<T> {
    points.extend(more);
    points.sort_by_key(|p| at(p));
    points.dedup_by_key(|p| at(p));
    points.truncate(limit);
    points
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn pieces_of_history_merge_oldest_first_once_each() {
        let t = |s: i64| {
            Utc.timestamp_opt(1_700_000_000 + s, 0)
                .single()
                .expect("time")
        };
        let here = vec![(t(0), 'a'), (t(60), 'a'), (t(240), 'a')];
        let there = vec![(t(120), 'b'), (t(180), 'b'), (t(240), 'b')];
        let merged = merge_by_time(here, there, |p| p.0, 10);
        let times: Vec<_> = merged.iter().map(|p| p.0).collect();
        assert_eq!(times, vec![t(0), t(60), t(120), t(180), t(240)]);
        let first = merge_by_time(vec![(t(60), 'a')], vec![(t(0), 'b')], |p| p.0, 1);
        assert_eq!(first, vec![(t(0), 'b')]);
    }
}
