//! The figures of `ponkeeper bench history` ([`super`]): what the store holds at a
//! moment of the simulated clock ([`Snapshot`]), each part of the `series` tree on disk
//! ([`parts_on_disk`]), the chart reads and `GET /traffic/top`'s ranking timed
//! ([`chart_reads`]); [`super::report`] works H1–H4 out of them.

use super::Cpu;
use crate::config::{Config, History};
use crate::history::{kept_period, series, Plan, Resolution};
use chrono::{DateTime, Duration, Utc};
use ponkeeper_actors::domain::{OnuId, OpticsPoint};
use ponkeeper_actors::store::series::measure::{kind_name, part_of, Parts, Tier};
use ponkeeper_actors::store::series::{Sample, SERIES};
use ponkeeper_actors::store::Store;
use ponkeeper_actors::traffic::{Counters, Direction, TrafficBook, TrafficPoint, TrafficRead};
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

/// The points a chart asks for at most: the handlers' default `limit`.
const CHART_LIMIT: usize = 1_000;
/// ONUs of one OLT of the national workload: the book `traffic/top` ranks.
const ONUS_PER_OLT: usize = 128;

/// `du` of a compacted copy of a store with nothing written.
pub fn empty_store_bytes(scratch: &Path) -> anyhow::Result<u64> {
    let dir = tempfile::tempdir_in(scratch)?;
    let store = Store::open(&dir.path().join("data"))?;
    let copy = tempfile::tempdir_in(scratch)?;
    Ok(store.compacted(copy.path(), |_, _| true)?)
}

/// What the store holds at the start of a simulated day, and the CPU spent so far.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    pub day: u32,
    /// `du` of a compacted copy of every tree.
    pub compacted_bytes: u64,
    /// Keys and values of every tree.
    pub logical_bytes: u64,
    #[serde(skip)]
    pub parts: Parts,
    #[serde(skip)]
    pub cpu: Cpu,
}

impl Snapshot {
    pub fn take(store: &Store, scratch: &Path, day: u32, cpu: Cpu) -> anyhow::Result<Snapshot> {
        let copy = tempfile::tempdir_in(scratch)?;
        Ok(Snapshot {
            day,
            compacted_bytes: store.compacted(copy.path(), |_, _| true)?,
            logical_bytes: store.logical()?,
            parts: store.series_parts()?,
            cpu,
        })
    }
}

/// One part of the `series` tree at the end: a kind's records of one tier.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PartFigure {
    pub kind: &'static str,
    pub tier: &'static str,
    pub records: u64,
    /// Points (raw) or rows (rollups).
    pub items: u64,
    /// Keys and values.
    pub bytes: u64,
    /// Values alone (the blocks).
    pub value_bytes: u64,
    /// `du` of a compacted copy of this part alone, less that of an empty store.
    pub disk_bytes: u64,
}

impl PartFigure {
    pub fn disk_per_item(&self) -> f64 {
        self.disk_bytes as f64 / self.items.max(1) as f64
    }
}

fn tier_name(tier: Tier) -> &'static str {
    match tier {
        Tier::Open => "open",
        Tier::Raw => "raw",
        Tier::Hourly => "hourly",
        Tier::Daily => "daily",
    }
}

/// Each part of `end` on disk: a compacted copy of its records alone.
pub fn parts_on_disk(
    store: &Store,
    scratch: &Path,
    end: &Snapshot,
    empty: u64,
) -> anyhow::Result<Vec<PartFigure>> {
    let mut figures = Vec::new();
    for &((kind, tier), part) in &end.parts {
        let copy = tempfile::tempdir_in(scratch)?;
        let mine = |tree: &[u8], key: &[u8]| {
            tree == SERIES.as_bytes() && part_of(key) == Some((kind, tier))
        };
        let disk = store.compacted(copy.path(), mine)?;
        figures.push(PartFigure {
            kind: kind_name(kind),
            tier: tier_name(tier),
            records: part.records,
            items: part.items,
            bytes: part.bytes,
            value_bytes: part.value_bytes,
            disk_bytes: disk.saturating_sub(empty),
        });
    }
    Ok(figures)
}

/// Everything the run measured, for [`HistoryBenchResult::new`].
pub struct Measured {
    /// Traffic and optics points written.
    pub points: (u64, u64),
    /// `du` of a compacted empty store.
    pub empty: u64,
    /// Wall seconds of writing and housekeeping (snapshots included).
    pub written_seconds: f64,
    /// At the start of simulated days 100 and 130, when the run reached them.
    pub growth: (Option<Snapshot>, Option<Snapshot>),
    pub end: Snapshot,
    pub on_disk: Vec<PartFigure>,
    pub reads: Reads,
}

/// Percentile `p` (0–100) of `values` (sorted here), nearest rank.
fn percentile(values: &mut [f64], p: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    if values.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * values.len() as f64).ceil() as usize;
    values[rank.clamp(1, values.len()) - 1]
}

/// One chart's reads.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChartFigure {
    pub kind: &'static str,
    pub range: &'static str,
    pub resolution: Resolution,
    /// Points of an answer (the last read's).
    pub points: usize,
    pub reads: usize,
    pub median_ms: f64,
    pub p99_ms: f64,
    pub target_ms: f64,
}

/// What `GET /traffic/top` reads: no store read, each OLT actor's [`TrafficBook`] of
/// latest rates in memory, ranked; then the OLTs' answers merged ([`ponkeeper_actors::traffic::rank`]).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TopFigure {
    /// ONUs of the book ranked (one OLT of the national workload).
    pub onus: usize,
    pub median_us: f64,
    pub p99_us: f64,
    /// Merging 10 from each of 10,000 OLTs.
    pub merge_national_us: f64,
    /// Every book ranked one after the other, and the merge: the CPU of a fleet-wide
    /// `traffic/top` (the actors rank theirs in parallel).
    pub national_cpu_ms: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Reads {
    pub charts: Vec<ChartFigure>,
    pub top: TopFigure,
}

/// Times `reads` charts of each range of each kind at `now`, over ONUs in turn, and
/// `traffic/top`'s ranking.
pub fn chart_reads(
    store: &Store,
    config: &Config,
    now: DateTime<Utc>,
    reads: usize,
    onus: u64,
) -> anyhow::Result<Reads> {
    let mut charts = Vec::new();
    for (range, days, target_ms) in [("24 h", 1, 20.0), ("30 d", 30, 30.0), ("1 y", 365, 50.0)] {
        let from = now - Duration::days(days);
        let traffic =
            chart::<TrafficPoint>(store, &config.traffic_history(), (from, now), reads, onus)?;
        let optics =
            chart::<OpticsPoint>(store, &config.optics_history(), (from, now), reads, onus)?;
        for (kind, (resolution, points, mut ms)) in [("traffic", traffic), ("optics", optics)] {
            charts.push(ChartFigure {
                kind,
                range,
                resolution,
                points,
                reads,
                median_ms: percentile(&mut ms, 50.0),
                p99_ms: percentile(&mut ms, 99.0),
                target_ms,
            });
        }
    }
    Ok(Reads {
        charts,
        top: top_figure(reads.max(100) * 10),
    })
}

/// `reads` charts of `P` over `period` as the handlers read them ([`crate::history`]'s
/// `local_series`): the plan, the period cut to its tier's retention, the read. The
/// resolution, the last answer's points and each read's milliseconds.
fn chart<P: Sample>(
    store: &Store,
    history: &History,
    (from, now): (DateTime<Utc>, DateTime<Utc>),
    reads: usize,
    onus: u64,
) -> anyhow::Result<(Resolution, usize, Vec<f64>)> {
    let plan = Plan::new(history, now, from, None);
    let retention = plan.resolution.retention(history);
    let mut times = Vec::with_capacity(reads);
    let mut points = 0;
    for read in 0..reads as u64 {
        let onu: OnuId = read * 7_919 % onus + 1;
        let started = Instant::now();
        let answer = match kept_period(from, now, retention, now) {
            None => Vec::new(),
            Some(kept) => {
                series::read::<P>(store, onu, kept, (plan, plan.origin(from)), CHART_LIMIT)?
            }
        };
        times.push(started.elapsed().as_secs_f64() * 1e3);
        points = answer.len();
    }
    Ok((plan.resolution, points, times))
}

/// A book of one OLT's ONUs after two reads 5 minutes apart, ranked `rounds` times for
/// `traffic/top`'s default 10, and the merge of 10,000 OLTs' answers.
fn top_figure(rounds: usize) -> TopFigure {
    let mut book = TrafficBook::default();
    let first = DateTime::<Utc>::UNIX_EPOCH + Duration::days(20_000);
    let mut rates: Vec<_> = (1..=ONUS_PER_OLT as u64)
        .map(|onu| ponkeeper_actors::store::series::realistic::Rates::new(onu).skip(250))
        .collect();
    for (read, at) in [first, first + Duration::minutes(5)]
        .into_iter()
        .enumerate()
    {
        let counters = rates
            .iter_mut()
            .enumerate()
            .map(|(i, r)| {
                let octets =
                    read as u64 * (f64::from(r.next().unwrap_or(0.0)) * 300.0 / 8.0) as u64;
                let counters = Counters {
                    in_octets: Some(octets / 8),
                    out_octets: Some(octets),
                };
                (i as OnuId + 1, counters)
            })
            .collect();
        book.record(TrafficRead { counters, bits: 64 }, at, None, &[]);
    }
    let mut us = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let started = Instant::now();
        std::hint::black_box(book.busiest(Direction::Out, 10));
        us.push(started.elapsed().as_secs_f64() * 1e6);
    }
    let top = book.busiest(Direction::Out, 10);
    let answers = (0..10_000u64).flat_map(|olt| {
        top.iter()
            .map(move |(id, reading)| (olt * 1_000 + id, (), *reading))
    });
    let answers: Vec<_> = answers.collect();
    let started = Instant::now();
    std::hint::black_box(ponkeeper_actors::traffic::rank(answers, Direction::Out, 10));
    let merge = started.elapsed().as_secs_f64() * 1e6;
    let median = percentile(&mut us, 50.0);
    TopFigure {
        onus: ONUS_PER_OLT,
        median_us: median,
        p99_us: percentile(&mut us, 99.0),
        merge_national_us: merge,
        national_cpu_ms: (median * 10_000.0 + merge) / 1e3,
    }
}
