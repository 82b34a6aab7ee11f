//! Traffic and optics history reads, tier by tier: every answer is read at one
//! [`Resolution`] — the raw points, their hourly rollups or their daily ones — chosen by
//! [`Plan::new`] from the period and the step asked and from how long each tier is kept
//! (`[history]`), and says which it was. Points are answered as stored (raw, no step) or
//! as [`Summary`]s of what they cover: the mean of each value (weighted by how many points
//! gave it), the least and the greatest ([`ponkeeper_actors::store::series::rollup`]).

use crate::config::History;
use chrono::{DateTime, Utc};
use ponkeeper_actors::domain::OnuId;
use ponkeeper_actors::store::series::rollup::{Buckets, Pick, Rollup};
use ponkeeper_actors::store::series::tiers::Tier;
use ponkeeper_actors::store::series::Sample;
use ponkeeper_actors::store::{Store, StoreError};
use serde::{Deserialize, Serialize};

/// What the points of a history answer are made of.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Resolution {
    /// The points as stored, one a read.
    Raw,
    /// Hourly rollups.
    Hourly,
    /// Daily rollups.
    Daily,
}

impl Resolution {
    /// Seconds a stored row of this resolution covers (none for raw points).
    fn period(self) -> Option<i64> {
        self.tier().map(|tier| i64::from(tier.period()))
    }

    fn tier(self) -> Option<Tier> {
        match self {
            Resolution::Raw => None,
            Resolution::Hourly => Some(Tier::Hourly),
            Resolution::Daily => Some(Tier::Daily),
        }
    }

    /// How long the tier is kept.
    pub fn retention(self, history: &History) -> std::time::Duration {
        match self {
            Resolution::Raw => history.raw_retention,
            Resolution::Hourly => history.hourly_retention,
            Resolution::Daily => history.daily_retention,
        }
    }
}

/// How an answer is read: at which resolution, and how long each of its points is
/// (seconds; `None`: raw points as stored).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    pub resolution: Resolution,
    pub step: Option<i64>,
}

impl Plan {
    /// The finest resolution that still holds `from` at `now` (raw within
    /// `raw_retention`, else hourly within `hourly_retention`, else daily), or a coarser
    /// one a step asks for: a step of whole hours reads hourly rows, and of whole days
    /// starting at a UTC midnight daily ones. At a rollup resolution the step is at least
    /// a row and a whole number of rows (rounded up); without one, it is a row.
    pub fn new(
        history: &History,
        now: DateTime<Utc>,
        from: DateTime<Utc>,
        step: Option<i64>,
    ) -> Plan {
        let within = |retention: std::time::Duration| {
            chrono::Duration::from_std(retention)
                .ok()
                .and_then(|kept| now.checked_sub_signed(kept))
                .is_none_or(|oldest| from >= oldest)
        };
        let by_period = if within(history.raw_retention) {
            Resolution::Raw
        } else if within(history.hourly_retention) {
            Resolution::Hourly
        } else {
            Resolution::Daily
        };
        let by_step = match step {
            Some(s) if s % 86_400 == 0 && from.timestamp() % 86_400 == 0 => Resolution::Daily,
            Some(s) if s > 0 && s % 3_600 == 0 => Resolution::Hourly,
            _ => Resolution::Raw,
        };
        let resolution = by_period.max(by_step);
        let step = match resolution.period() {
            None => step.filter(|s| *s > 0),
            Some(period) => {
                Some(step.map_or(period, |s| (s.max(1) + period - 1) / period * period))
            }
        };
        Plan { resolution, step }
    }

    /// Where the first bucket starts: `from`, or at a rollup resolution the start of the
    /// row holding `from` (a bucket holds whole rows).
    pub fn origin(&self, from: DateTime<Utc>) -> i64 {
        let from = from.timestamp();
        self.resolution
            .period()
            .map_or(from, |period| from - from.rem_euclid(period))
    }
}

/// A point of a history answer: one point as stored, or the summary of those a bucket
/// covers. The wire form between cluster members too: a member of before the tiers
/// answers bare points, read as points as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(deserialize = "P: Deserialize<'de>"))]
pub struct Summary<P> {
    /// The point; of a summary, the means of its values (an optics level: the worst).
    #[serde(flatten)]
    pub point: P,
    /// Of a summary, the least of each value; `None` for a point as stored.
    #[serde(default)]
    pub min: Option<P>,
    /// Of a summary, the greatest of each value.
    #[serde(default)]
    pub max: Option<P>,
    /// How many stored points it stands for.
    #[serde(default = "one")]
    pub count: u32,
}

fn one() -> u32 {
    1
}

impl<P: Sample> Summary<P> {
    pub(crate) fn stored(point: P) -> Summary<P> {
        Summary {
            point,
            min: None,
            max: None,
            count: 1,
        }
    }

    pub(crate) fn of(row: &Rollup) -> Summary<P> {
        let at = DateTime::from_timestamp(i64::from(row.start), 0).unwrap_or_default();
        Summary {
            point: P::from_stats(at, &row.stats, Pick::Avg),
            min: Some(P::from_stats(at, &row.stats, Pick::Min)),
            max: Some(P::from_stats(at, &row.stats, Pick::Max)),
            count: row.count,
        }
    }
}

/// ONU `onu`'s points of kind `P` in `[from, to]` as `plan` says, the buckets starting at
/// `origin`, at most `limit`, oldest first (a blocking read).
pub fn read<P: Sample>(
    store: &Store,
    onu: OnuId,
    (from, to): (DateTime<Utc>, DateTime<Utc>),
    (plan, origin): (Plan, i64),
    limit: usize,
) -> Result<Vec<Summary<P>>, StoreError> {
    let Some(step) = plan.step else {
        let mut points = Vec::new();
        if limit > 0 {
            store.read_points::<P>(onu, (from, to), |point| {
                points.push(Summary::stored(point));
                points.len() < limit
            })?;
        }
        return Ok(points);
    };
    let mut buckets = Buckets::new(origin, step, limit, P::VALUES);
    match plan.resolution.tier() {
        None => store.read_points::<P>(onu, (from, to), |point| {
            buckets.push(&Rollup::of_point(&point))
        })?,
        Some(tier) => store.read_rollups::<P>(onu, (from, to), tier, |row| buckets.push(row))?,
    }
    Ok(buckets.finish().iter().map(Summary::of).collect())
}

#[cfg(test)]
mod tests;
