//! H1–H4 of `ponkeeper bench history` worked out from what the run measured
//! ([`super::figures::Measured`]) and printed as a table ([`HistoryBenchResult::table`]);
//! every figure at the national workload is the run's scaled by ONUs (1.28 M over
//! `--onus`), which holds while each ONU's history is written, sealed and read alone.

use super::figures::{ChartFigure, Measured, PartFigure, Snapshot, TopFigure};
use super::{HistoryBenchOptions, GROWTH_FROM_DAY, GROWTH_TO_DAY, NATIONAL_ONUS};
use crate::config::Config;
use crate::storage::{self, human, Estimate, ItemBytes, Schedule, TierBytes};
use serde::Serialize;

const H1_TARGET: f64 = 4.0;
const H2_TARGET: f64 = 50.0;
const H3_TARGET_PERCENT: f64 = 1.0;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryBenchResult {
    pub onus: u64,
    pub days: u32,
    pub traffic_interval_seconds: u64,
    pub optics_interval_seconds: u64,
    pub traffic_points: u64,
    pub optics_points: u64,
    /// Wall seconds of the simulated run (writes, housekeeping, snapshots).
    pub run_seconds: f64,
    pub h1: Vec<H1>,
    pub h2: H2,
    pub h3: H3,
    pub h4: H4,
}

/// Bytes a raw point takes, of one series.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct H1 {
    pub series: &'static str,
    /// Sealed raw points in the store at the end.
    pub points: u64,
    pub disk_bytes_per_point: f64,
    /// Of the block's value alone.
    pub block_bytes_per_point: f64,
    pub target: f64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct H2 {
    /// Each part of the `series` tree at the end.
    pub parts: Vec<PartFigure>,
    /// `du` of a compacted copy of the whole store at the end, less an empty one's, per ONU.
    pub end_disk_bytes_per_onu: f64,
    /// The bytes on disk per item measured, as `storage estimate` takes them.
    pub item_bytes: ItemBytes,
    /// Steady state per ONU: every tier full to its retention.
    pub steady_state: Estimate,
    /// From simulated day 100 to 130, per ONU and day, on disk (compacted).
    pub growth_disk_bytes_per_onu_day: Option<f64>,
    /// The same in keys and values.
    pub growth_logical_bytes_per_onu_day: Option<f64>,
    pub target: f64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct H3 {
    /// Which simulated days the figures are of.
    pub window: String,
    pub simulated_hours: f64,
    pub cpu_writes_seconds: f64,
    pub cpu_housekeeping_seconds: f64,
    /// CPU seconds a simulated hour, for the run's ONUs.
    pub cpu_seconds_per_hour: f64,
    /// The same for 1.28 M ONUs.
    pub national_cpu_seconds_per_hour: f64,
    pub national_share_of_a_core_percent: f64,
    pub target_percent: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct H4 {
    pub charts: Vec<ChartFigure>,
    pub top: TopFigure,
}

/// The bytes on disk of an item of each tier of `series`, from the parts measured (0 for
/// a tier the run did not reach).
fn tier_bytes(parts: &[PartFigure], series: &str) -> TierBytes {
    let of = |tier: &str| {
        parts
            .iter()
            .find(|p| p.kind == series && p.tier == tier)
            .map_or(0.0, PartFigure::disk_per_item)
    };
    TierBytes {
        open_point: of("open"),
        raw_point: of("raw"),
        hourly_row: of("hourly"),
        daily_row: of("daily"),
    }
}

fn h1(parts: &[PartFigure]) -> Vec<H1> {
    parts
        .iter()
        .filter(|p| p.tier == "raw")
        .map(|p| H1 {
            series: p.kind,
            points: p.items,
            disk_bytes_per_point: p.disk_per_item(),
            block_bytes_per_point: p.value_bytes as f64 / p.items.max(1) as f64,
            target: H1_TARGET,
        })
        .collect()
}

fn h3(measured: &Measured, days: u32) -> H3 {
    let (window, hours, cpu) = match &measured.growth {
        (Some(from), Some(to)) => (
            format!("days {GROWTH_FROM_DAY}–{GROWTH_TO_DAY}"),
            f64::from(to.day - from.day) * 24.0,
            (
                to.cpu.writes - from.cpu.writes,
                to.cpu.housekeeping - from.cpu.housekeeping,
            ),
        ),
        _ => (
            format!("the whole run, {days} d and 12 h"),
            f64::from(days) * 24.0 + 12.0,
            (measured.end.cpu.writes, measured.end.cpu.housekeeping),
        ),
    };
    H3 {
        window,
        simulated_hours: hours,
        cpu_writes_seconds: cpu.0,
        cpu_housekeeping_seconds: cpu.1,
        cpu_seconds_per_hour: 0.0,
        national_cpu_seconds_per_hour: 0.0,
        national_share_of_a_core_percent: 0.0,
        target_percent: H3_TARGET_PERCENT,
    }
}

fn growth(pair: &(Option<Snapshot>, Option<Snapshot>), onus: u64) -> (Option<f64>, Option<f64>) {
    let (Some(from), Some(to)) = pair else {
        return (None, None);
    };
    let per = |a: u64, b: u64| (b as f64 - a as f64) / f64::from(to.day - from.day) / onus as f64;
    (
        Some(per(from.compacted_bytes, to.compacted_bytes)),
        Some(per(from.logical_bytes, to.logical_bytes)),
    )
}

impl HistoryBenchResult {
    pub fn new(
        options: &HistoryBenchOptions,
        schedule: Schedule,
        config: &Config,
        measured: Measured,
    ) -> HistoryBenchResult {
        let onus = options.onus;
        let parts = &measured.on_disk;
        let item_bytes = ItemBytes {
            traffic: tier_bytes(parts, "traffic"),
            optics: tier_bytes(parts, "optics"),
        };
        let histories = (&config.traffic_history(), &config.optics_history());
        let steady_state = storage::estimate(1, schedule, histories, &item_bytes);
        let (disk_growth, logical_growth) = growth(&measured.growth, onus);
        let mut h3 = h3(&measured, options.days);
        h3.cpu_seconds_per_hour =
            (h3.cpu_writes_seconds + h3.cpu_housekeeping_seconds) / h3.simulated_hours;
        h3.national_cpu_seconds_per_hour =
            h3.cpu_seconds_per_hour * NATIONAL_ONUS as f64 / onus as f64;
        h3.national_share_of_a_core_percent = h3.national_cpu_seconds_per_hour / 3_600.0 * 100.0;
        HistoryBenchResult {
            onus,
            days: options.days,
            traffic_interval_seconds: schedule.traffic,
            optics_interval_seconds: schedule.optics,
            traffic_points: measured.points.0,
            optics_points: measured.points.1,
            run_seconds: measured.written_seconds,
            h1: h1(parts),
            h2: H2 {
                parts: parts.clone(),
                end_disk_bytes_per_onu: measured.end.compacted_bytes.saturating_sub(measured.empty)
                    as f64
                    / onus as f64,
                item_bytes,
                steady_state,
                growth_disk_bytes_per_onu_day: disk_growth,
                growth_logical_bytes_per_onu_day: logical_growth,
                target: H2_TARGET,
            },
            h3,
            h4: H4 {
                charts: measured.reads.charts,
                top: measured.reads.top,
            },
        }
    }

    /// The figures as a table, for a person.
    pub fn table(&self) -> String {
        let mut out = format!(
            "History bench: {} ONUs × {} d and 12 h of the default schedule (traffic every {} s, optics every {} s), {} traffic and {} optics points, {:.0} s\n",
            self.onus,
            self.days,
            self.traffic_interval_seconds,
            self.optics_interval_seconds,
            self.traffic_points,
            self.optics_points,
            self.run_seconds
        );
        for h1 in &self.h1 {
            out.push_str(&format!(
                "H1 {:<7} raw point: {:.2} B on disk (compacted), {:.2} B in its block, over {} points; target ≤ {} B{}\n",
                h1.series,
                h1.disk_bytes_per_point,
                h1.block_bytes_per_point,
                h1.points,
                h1.target,
                verdict(h1.disk_bytes_per_point <= h1.target)
            ));
        }
        out.push_str(&self.h2_table());
        let h3 = &self.h3;
        out.push_str(&format!(
            "H3 {}: {:.2} s CPU in writes + {:.2} s in housekeeping over {:.0} simulated hours = {:.4} s an hour for {} ONUs; ×{:.0} for 1.28 M ONUs: {:.1} s an hour, {:.2}% of one core; target ≤ {}%{}\n",
            h3.window,
            h3.cpu_writes_seconds,
            h3.cpu_housekeeping_seconds,
            h3.simulated_hours,
            h3.cpu_seconds_per_hour,
            self.onus,
            NATIONAL_ONUS as f64 / self.onus as f64,
            h3.national_cpu_seconds_per_hour,
            h3.national_share_of_a_core_percent,
            h3.target_percent,
            verdict(h3.national_share_of_a_core_percent <= h3.target_percent)
        ));
        out.push_str(&self.h4_table());
        out
    }

    fn h2_table(&self) -> String {
        let h2 = &self.h2;
        let mut out = format!(
            "H2 {:<8} {:<7} {:>9} {:>11} {:>13} {:>11} {:>11}\n",
            "series", "tier", "records", "items", "keys+values", "on disk", "B/item"
        );
        for p in &h2.parts {
            out.push_str(&format!(
                "   {:<8} {:<7} {:>9} {:>11} {:>13} {:>11} {:>11.2}\n",
                p.kind,
                p.tier,
                p.records,
                p.items,
                human(p.bytes as f64),
                human(p.disk_bytes as f64),
                p.disk_per_item()
            ));
        }
        out.push_str(&format!(
            "H2 at the end: {} an ONU on disk (whole store, compacted). Steady state, every tier full (storage estimate's arithmetic on the B/item above):\n",
            human(h2.end_disk_bytes_per_onu)
        ));
        for tier in &h2.steady_state.tiers {
            out.push_str(&format!(
                "   {:<8} {:<7} {:>6.0} items a day × {:>5.0} d = {:>9} an ONU\n",
                tier.series,
                tier.tier,
                tier.items_per_onu_per_day,
                tier.kept_days,
                human(tier.steady_state_bytes)
            ));
        }
        let total = h2.steady_state.steady_state_bytes;
        out.push_str(&format!(
            "   total {} an ONU; for 1.28 M ONUs {}\n",
            human(total),
            human(total * NATIONAL_ONUS as f64)
        ));
        match (
            h2.growth_disk_bytes_per_onu_day,
            h2.growth_logical_bytes_per_onu_day,
        ) {
            (Some(disk), Some(logical)) => out.push_str(&format!(
                "H2 growth, days {GROWTH_FROM_DAY}–{GROWTH_TO_DAY}: {disk:.1} B an ONU a day on disk ({logical:.1} B of keys and values); 1.28 M ONUs: {} a day; target ≤ {} B{}\n",
                human(disk * NATIONAL_ONUS as f64),
                h2.target,
                verdict(disk <= h2.target)
            )),
            _ => out.push_str(&format!(
                "H2 growth: not measured, the run is shorter than {GROWTH_TO_DAY} days\n"
            )),
        }
        out
    }

    fn h4_table(&self) -> String {
        let mut out = String::from("H4 chart of one ONU (the service's tier planner and reads):\n");
        for c in &self.h4.charts {
            out.push_str(&format!(
                "   {:<8} {:<5} {:<7} {:>4} points: median {:>7.3} ms, p99 {:>7.3} ms over {} reads; target p99 ≤ {} ms{}\n",
                c.kind,
                c.range,
                resolution_name(c.resolution),
                c.points,
                c.median_ms,
                c.p99_ms,
                c.reads,
                c.target_ms,
                verdict(c.p99_ms <= c.target_ms)
            ));
        }
        let top = &self.h4.top;
        out.push_str(&format!(
            "H4 traffic/top reads no history: each OLT actor ranks its in-memory book of latest rates. A book of {} ONUs: median {:.1} µs, p99 {:.1} µs; merging 10 of each of 10,000 OLTs {:.0} µs; fleet-wide CPU {:.1} ms\n",
            top.onus, top.median_us, top.p99_us, top.merge_national_us, top.national_cpu_ms
        ));
        out
    }
}

fn resolution_name(resolution: crate::history::Resolution) -> &'static str {
    match resolution {
        crate::history::Resolution::Raw => "raw",
        crate::history::Resolution::Hourly => "hourly",
        crate::history::Resolution::Daily => "daily",
    }
}

fn verdict(met: bool) -> &'static str {
    if met {
        ": met"
    } else {
        ": MISSED"
    }
}
