//! `ponkeeper bench history` (docs/benchmarks.md, "History, H1–H4"): a simulated clock
//! writes `--days` of the default schedule ([`Schedule::of`] the default config: each
//! ONU's traffic rates every 5 minutes, its optics every 15) for `--onus` ONUs, then half
//! a day more of open points, through the store's write calls the poll path makes
//! ([`Store::record_traffic`], [`Store::record_optics`], a record a read of each OLT of
//! 128 ONUs),
//! and runs housekeeping's history step ([`crate::jobs::seal_and_prune_series`]) at every
//! simulated hour, as the service does: the finished day is sealed with its rollups at
//! the first hour past midnight, and every tier pruned past its `[history]` retention.
//! Values are [`ponkeeper_actors::store::series::realistic`]'s. Then:
//!
//! - **H1**: bytes on disk a raw point takes (`du` of a compacted copy of the sealed raw
//!   blocks alone), and in its block;
//! - **H2**: bytes an ONU's history takes at the end, part by part, and at steady state
//!   (daily rows for the whole daily retention), and the growth per ONU and day from
//!   simulated day 100 to 130, when raw points and hourly rows are at steady state;
//! - **H3**: CPU the writes and housekeeping cost per simulated hour, scaled to the
//!   national workload (10,000 OLTs × 128 ONUs) and as a share of one core;
//! - **H4**: with the run's history in the store, one ONU's chart over 24 h, 30 d and 1 y
//!   through the service's reads ([`crate::history::series::read`] on the tier planner's
//!   [`crate::history::Plan`]), and what `GET /traffic/top` reads ([`figures`]).

pub mod figures;
pub mod report;

use crate::config::Config;
use crate::storage::Schedule;
use chrono::{DateTime, Duration, TimeZone, Utc};
use figures::Snapshot;
use ponkeeper_actors::domain::{OltId, OnuId, OpticsPoint};
use ponkeeper_actors::store::series::measure::cpu_seconds;
use ponkeeper_actors::store::series::realistic::{optics_point, Rates, Rx};
use ponkeeper_actors::store::{Store, StoreError};
use ponkeeper_actors::traffic::TrafficPoint;
use report::HistoryBenchResult;

/// ONUs of the national workload the figures are scaled to: 10,000 OLTs × 128.
pub const NATIONAL_ONUS: u64 = 10_000 * 128;

/// ONUs an OLT of the national workload carries: a read writes theirs as one record.
const ONUS_PER_OLT: u64 = 128;

/// The OLT of the run that ONU `onu` (from 1) is on.
fn olt_of(onu: OnuId) -> OltId {
    u32::try_from((onu - 1) / ONUS_PER_OLT + 1).unwrap_or(OltId::MAX)
}

/// Writes a read of every ONU (in id order) as each OLT's poll would, through `record`.
fn by_olt<P>(
    points: &[(OnuId, P)],
    mut record: impl FnMut(OltId, &[(OnuId, P)]) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    for (olt, polled) in (1..).zip(points.chunks(ONUS_PER_OLT as usize)) {
        record(olt, polled)?;
    }
    Ok(())
}

/// The simulated days H2's growth is measured between.
const GROWTH_FROM_DAY: u32 = 100;
const GROWTH_TO_DAY: u32 = 130;

#[derive(Debug, Clone, clap::Args)]
pub struct HistoryBenchOptions {
    /// ONUs written (ids 1 to N).
    #[arg(long, default_value_t = 1000)]
    pub onus: u64,
    /// Simulated days of history.
    #[arg(long, default_value_t = 365)]
    pub days: u32,
    /// Reads of each chart (H4), over ONUs in turn.
    #[arg(long, default_value_t = 200)]
    pub reads: usize,
    /// Keep the store here (made, must not exist) instead of a temporary directory.
    #[arg(long)]
    pub data_dir: Option<std::path::PathBuf>,
    /// Print only the JSON result.
    #[arg(long)]
    pub json: bool,
}

/// Every ONU's value generators: in and out rates, optics Rx.
struct Values {
    rates: Vec<(Rates, Rates)>,
    rx: Vec<Rx>,
}

impl Values {
    fn new(onus: u64) -> Values {
        Values {
            rates: (1..=onus)
                .map(|onu| (Rates::new(onu), Rates::new(onu + 1_000_000)))
                .collect(),
            rx: (1..=onus).map(Rx::new).collect(),
        }
    }

    /// Every ONU's traffic point of a read at `at` (upstream an eighth of downstream).
    fn traffic(&mut self, at: DateTime<Utc>) -> Vec<(OnuId, TrafficPoint)> {
        let mut points = Vec::with_capacity(self.rates.len());
        for (i, (inbound, outbound)) in self.rates.iter_mut().enumerate() {
            let (up, down) = (
                inbound.next().unwrap_or(0.0),
                outbound.next().unwrap_or(0.0),
            );
            let point = TrafficPoint {
                at,
                in_bps: Some(f64::from(up / 8.0)),
                out_bps: Some(f64::from(down)),
            };
            points.push((i as OnuId + 1, point));
        }
        points
    }

    fn optics(&mut self, at: DateTime<Utc>) -> Vec<(OnuId, OpticsPoint)> {
        let rx = self.rx.iter_mut().map(|rx| rx.next().unwrap_or(-2_000));
        rx.enumerate()
            .map(|(i, rx)| (i as OnuId + 1, optics_point(at, rx)))
            .collect()
    }
}

/// CPU seconds spent in the store's history calls, by who spends them.
#[derive(Debug, Clone, Copy, Default)]
pub struct Cpu {
    pub writes: f64,
    pub housekeeping: f64,
}

/// Runs `call`, adding the process's CPU seconds meanwhile to `into`.
fn timed<T>(into: &mut f64, call: impl FnOnce() -> T) -> T {
    let before = cpu_seconds();
    let out = call();
    *into += cpu_seconds() - before;
    out
}

/// The simulated run: the store, the clock and what it cost so far.
struct Run {
    store: Store,
    config: Config,
    schedule: Schedule,
    values: Values,
    start: DateTime<Utc>,
    cpu: Cpu,
    points: (u64, u64),
}

impl Run {
    /// Writes the first `seconds` of day `day`, with housekeeping every hour but
    /// midnight's (the caller's).
    fn day(&mut self, day: u32, seconds: i64) -> anyhow::Result<()> {
        let midnight = self.start + Duration::days(i64::from(day));
        let (traffic, optics) = (self.schedule.traffic as i64, self.schedule.optics as i64);
        let step = gcd(gcd(traffic, optics), 3_600);
        for tick in 0..seconds / step {
            let second = tick * step;
            let at = midnight + Duration::seconds(second);
            if second > 0 && second % 3_600 == 0 {
                self.housekeeping(at)?;
            }
            if second % traffic == 0 {
                let points = self.values.traffic(at);
                self.points.0 += points.len() as u64;
                let store = &self.store;
                timed(&mut self.cpu.writes, || {
                    by_olt(&points, |olt, polled| store.record_traffic(olt, polled))
                })?;
            }
            if second % optics == 0 {
                let points = self.values.optics(at);
                self.points.1 += points.len() as u64;
                let store = &self.store;
                timed(&mut self.cpu.writes, || {
                    by_olt(&points, |olt, polled| store.record_optics(olt, polled))
                })?;
            }
        }
        Ok(())
    }

    fn housekeeping(&mut self, at: DateTime<Utc>) -> anyhow::Result<()> {
        let (store, config) = (&self.store, &self.config);
        timed(&mut self.cpu.housekeeping, || {
            crate::jobs::seal_and_prune_series(store, config, at)
        })?;
        Ok(())
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.max(1)
    } else {
        gcd(b, a % b)
    }
}

/// The first day of the simulated clock: a year starting on a Monday, at UTC midnight.
fn simulated_start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0)
        .single()
        .unwrap_or_default()
}

pub fn run(options: &HistoryBenchOptions) -> anyhow::Result<HistoryBenchResult> {
    anyhow::ensure!(
        options.onus > 0 && options.days > 0,
        "--onus and --days above 0"
    );
    let temporary = tempfile::tempdir()?;
    let dir = options
        .data_dir
        .clone()
        .unwrap_or_else(|| temporary.path().join("data"));
    anyhow::ensure!(!dir.exists(), "{} exists already", dir.display());
    let empty = figures::empty_store_bytes(temporary.path())?;
    let config = Config::default();
    let store = Store::open(&dir)?;
    for onu in 1..=options.onus {
        store.adopt_onu_id(olt_of(onu), &format!("BENCH{onu:08}"), onu)?;
    }
    let mut run = Run {
        store,
        schedule: Schedule::of(&config),
        config,
        values: Values::new(options.onus),
        start: simulated_start(),
        cpu: Cpu::default(),
        points: (0, 0),
    };
    let wall = std::time::Instant::now();
    let mut growth = (None, None);
    for day in 0..options.days {
        // Housekeeping at midnight seals the day before.
        run.housekeeping(run.start + Duration::days(i64::from(day)))?;
        if day == GROWTH_FROM_DAY || day == GROWTH_TO_DAY {
            let snapshot = Snapshot::take(&run.store, temporary.path(), day, run.cpu)?;
            *if day == GROWTH_FROM_DAY {
                &mut growth.0
            } else {
                &mut growth.1
            } = Some(snapshot);
        }
        run.day(day, 86_400)?;
        if (day + 1) % 30 == 0 && !options.json {
            eprintln!(
                "day {} of {}: {:.0} s so far, {:.1} s CPU in writes, {:.1} s in housekeeping",
                day + 1,
                options.days,
                wall.elapsed().as_secs_f64(),
                run.cpu.writes,
                run.cpu.housekeeping
            );
        }
    }
    // The last midnight seals the last day; half a day of open points follows, as the
    // store holds them at noon, and the charts are read then.
    let now = run.start + Duration::days(i64::from(options.days)) + Duration::hours(12);
    run.housekeeping(now - Duration::hours(12))?;
    run.day(options.days, 12 * 3_600)?;
    let written = wall.elapsed().as_secs_f64();
    let end = Snapshot::take(&run.store, temporary.path(), options.days, run.cpu)?;
    let on_disk = figures::parts_on_disk(&run.store, temporary.path(), &end, empty)?;
    let reads = figures::chart_reads(&run.store, &run.config, now, options.reads, options.onus)?;
    let measured = figures::Measured {
        points: run.points,
        empty,
        written_seconds: written,
        growth,
        end,
        on_disk,
        reads,
    };
    Ok(HistoryBenchResult::new(
        options,
        run.schedule,
        &run.config,
        measured,
    ))
}
