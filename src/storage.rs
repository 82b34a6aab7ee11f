//! What the traffic and optics history will take on disk (`ponkeeper storage estimate`,
//! and `historyEstimate` in `GET /readyz`; docs/operations.md, "History"): from the
//! ONUs polled, the config's schedule ([`Schedule`]) and its `[history]` retentions, per
//! series and tier — the points of the day not sealed yet, the raw points, the hourly
//! and daily rollup rows — the bytes a day of history adds and the bytes kept at steady
//! state, each tier full to its retention ([`estimate`]). The bytes a point or row takes
//! are those `ponkeeper bench history` measured on disk ([`MEASURED`]).

use crate::config::{Config, History};
use ponkeeper_actors::profile::polling::COMMON_POLLING;
use serde::Serialize;

/// Bytes on disk one item of each tier of a series takes (`du` of a compacted copy of
/// the tier's records alone, divided by the points or rows they hold).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TierBytes {
    /// An open point (written by a poll, sealed at the next midnight).
    pub open_point: f64,
    /// A raw point in its day's block.
    pub raw_point: f64,
    /// An hourly rollup row.
    pub hourly_row: f64,
    /// A daily rollup row.
    pub daily_row: f64,
}

/// [`TierBytes`] of the traffic series (in and out rates) and of the optics one.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ItemBytes {
    pub traffic: TierBytes,
    pub optics: TierBytes,
}

/// Measured by `ponkeeper bench history --onus 100 --days 140` (release build, this
/// repository's 2-core VM, 2026-12-02 16:05 UTC; docs/benchmarks.md, "History, H1–H4"):
/// realistic rates and optics, the default schedule and retentions, each tier's records
/// copied alone into a fresh database. sled's log in that copy makes the figures of
/// small records (open points, hourly rows) upper bounds.
pub const MEASURED: ItemBytes = ItemBytes {
    traffic: TierBytes {
        open_point: 400.2,
        raw_point: 25.05,
        hourly_row: 60.66,
        daily_row: 68.17,
    },
    optics: TierBytes {
        open_point: 359.3,
        raw_point: 24.69,
        hourly_row: 46.10,
        daily_row: 16.09,
    },
};

/// How often each ONU's traffic and optics are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    /// Seconds between traffic reads (`polling.traffic_interval`).
    pub traffic: u64,
    /// Seconds between optics points: the longer of `polling.optics_interval` (unset, the
    /// common vendor default — Huawei's and BDCOM's 15 minutes; ZTE's and the careful
    /// families' are an hour, so this errs high for them) and `optics.history_step` (a
    /// point is kept at most that often, and at each level change, left out here).
    pub optics: u64,
}

impl Schedule {
    pub fn of(config: &Config) -> Schedule {
        let read = config
            .polling
            .optics_interval
            .unwrap_or(COMMON_POLLING.optics_interval);
        Schedule {
            traffic: config.polling.traffic_interval.as_secs().max(1),
            optics: read.max(config.optics.history_step).as_secs().max(1),
        }
    }
}

/// One tier of one series, for every ONU.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TierEstimate {
    /// `traffic` or `optics`.
    pub series: &'static str,
    /// `open`, `raw`, `hourly` or `daily`.
    pub tier: &'static str,
    /// Points or rows one ONU adds a day.
    pub items_per_onu_per_day: f64,
    /// Days the tier keeps (open points: the day until it is sealed).
    pub kept_days: f64,
    /// Bytes a day of history adds to the tier (open points: none, they become the raw
    /// block at midnight).
    pub bytes_per_day: f64,
    /// Bytes the tier holds once full to its retention.
    pub steady_state_bytes: f64,
}

/// The history of `onus` ONUs on disk.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Estimate {
    pub onus: u64,
    pub tiers: Vec<TierEstimate>,
    pub bytes_per_day: f64,
    pub steady_state_bytes: f64,
}

/// The estimate for `onus` ONUs read on `schedule`, each series kept as `traffic` and
/// `optics` say, of items of `bytes`.
pub fn estimate(
    onus: u64,
    schedule: Schedule,
    (traffic, optics): (&History, &History),
    bytes: &ItemBytes,
) -> Estimate {
    let mut tiers = series("traffic", schedule.traffic, traffic, &bytes.traffic, onus);
    tiers.extend(series(
        "optics",
        schedule.optics,
        optics,
        &bytes.optics,
        onus,
    ));
    Estimate {
        onus,
        bytes_per_day: tiers.iter().map(|t| t.bytes_per_day).sum(),
        steady_state_bytes: tiers.iter().map(|t| t.steady_state_bytes).sum(),
        tiers,
    }
}

fn days(retention: std::time::Duration) -> f64 {
    retention.as_secs_f64() / 86_400.0
}

/// The tiers of one series read every `interval` seconds.
fn series(
    name: &'static str,
    interval: u64,
    history: &History,
    bytes: &TierBytes,
    onus: u64,
) -> Vec<TierEstimate> {
    let points = 86_400.0 / interval.max(1) as f64;
    let tiers = [
        ("open", points, bytes.open_point, 1.0),
        ("raw", points, bytes.raw_point, days(history.raw_retention)),
        (
            "hourly",
            24.0,
            bytes.hourly_row,
            days(history.hourly_retention),
        ),
        ("daily", 1.0, bytes.daily_row, days(history.daily_retention)),
    ];
    tiers
        .into_iter()
        .map(|(tier, items, item_bytes, kept_days)| {
            let day = items * item_bytes * onus as f64;
            TierEstimate {
                series: name,
                tier,
                items_per_onu_per_day: items,
                kept_days,
                bytes_per_day: if tier == "open" { 0.0 } else { day },
                steady_state_bytes: day * kept_days,
            }
        })
        .collect()
}

/// ONUs the estimate is for: `onus` if given, else `onus_per_olt` for each enabled OLT
/// of `inventory` (an inventory lists OLTs, not their ONUs).
pub fn onus_of(
    inventory: &ponkeeper_actors::inventory::Inventory,
    onus: Option<u64>,
    onus_per_olt: u64,
) -> u64 {
    onus.unwrap_or_else(|| {
        let olts = inventory.olts.iter().filter(|olt| olt.enabled).count() as u64;
        olts * onus_per_olt
    })
}

/// Bytes for a person: B, KB, MB, GB, TB (powers of 1000).
pub fn human(bytes: f64) -> String {
    let units = ["B", "KB", "MB", "GB", "TB", "PB"];
    let mut value = bytes;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < units.len() {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{value:.0} {}", units[unit])
    } else {
        format!("{value:.1} {}", units[unit])
    }
}

/// The estimate as `ponkeeper storage estimate` prints it.
pub fn render(estimate: &Estimate, schedule: Schedule, how: &str) -> String {
    let mut out = format!(
        "History of {} ONUs ({how}); traffic every {} s, optics every {} s; bytes on disk from `bench history` (docs/benchmarks.md):\n",
        estimate.onus, schedule.traffic, schedule.optics
    );
    out.push_str(&format!(
        "{:<8} {:<7} {:>12} {:>9} {:>12} {:>14}\n",
        "series", "tier", "items/ONU/d", "kept d", "a day", "steady state"
    ));
    for tier in &estimate.tiers {
        out.push_str(&format!(
            "{:<8} {:<7} {:>12.0} {:>9.0} {:>12} {:>14}\n",
            tier.series,
            tier.tier,
            tier.items_per_onu_per_day,
            tier.kept_days,
            human(tier.bytes_per_day),
            human(tier.steady_state_bytes)
        ));
    }
    out.push_str(&format!(
        "{:<8} {:<7} {:>12} {:>9} {:>12} {:>14}\n",
        "total",
        "",
        "",
        "",
        human(estimate.bytes_per_day),
        human(estimate.steady_state_bytes)
    ));
    out
}

#[cfg(test)]
mod tests;
