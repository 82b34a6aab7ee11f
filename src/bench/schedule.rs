//! `ponkeeper bench poll --schedule` (docs/benchmarks.md S1–S4): the fleet polled on the
//! default schedule (status every poll, identity and the OLT's tables every 15 minutes,
//! optics swept per vendor, requests paced per OLT, the simulator charging OMCI time for
//! optics) instead of the all-tables cycle of P1–P8. Three runs, one after another:
//!
//! - S1 ([`status_sweeps`]): every OLT polled at once through `poll_now`, after a warm-up
//!   poll that reads everything; the sweeps that follow have only the status group due.
//!   Wall and CPU time per sweep (median), and the idle fleet's CPU rate for S2.
//! - S2 and S4 ([`scaled_hour`]): the real timer-driven schedule, compressed in time by
//!   `--schedule-scale` ([`figures::Scale`]), run for `--schedule-hours` compressed
//!   hours after a warm-up; the process CPU over that window becomes CPU per real hour
//!   ([`figures::cpu_per_hour`]), and the simulator's read counters, reset when the
//!   window opens, give every vendor's optics reads per ONU against their bounds
//!   ([`figures::optics_read_bounds`]).
//! - S3 ([`super::events::down_to_event`]): the real `serve` on a small fleet, an ONU down
//!   until its `ONU_DOWN` is on the stream, without traps (status every
//!   [`S3_STATUS_INTERVAL`]) and with traps (default intervals).
//!
//! Progress goes to stderr, the figures to stdout.

pub mod figures;

use super::isolation::control;
use super::progress::Progress;
use super::{cpu_seconds, cycle, median, start_simulator, PollBenchOptions};
use anyhow::bail;
use figures::{ReadBounds, Scale, ScaledRun, VendorReads, HOUR};
use ponkeeper_actors::domain::{SessionStatus, Vendor};
use ponkeeper_actors::fleet_view::FleetViewError;
use ponkeeper_actors::inventory::Inventory;
use ponkeeper_actors::olt::{OltHandle, PollSettings};
use ponkeeper_actors::store::Store;
use ponkeeper_actors::supervisor::Fleet;
use ponkeeper_sim::{FleetStats, DEFAULT_OMCI_COST};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// S3 without traps: the status interval `serve` polls at (shortened from 60 s so the
/// samples take seconds, not minutes; the target is this interval + 2 s).
pub const S3_STATUS_INTERVAL: Duration = Duration::from_secs(5);
/// S3 samples of each kind, each on an OLT of its own.
const S3_SAMPLES: usize = 5;
/// After the first polls: no new optics read for this long means the polls the actors
/// start on their own are done; waited for at most [`SETTLE_LIMIT`].
const SETTLED: Duration = Duration::from_secs(3);
const SETTLE_LIMIT: Duration = Duration::from_secs(600);
/// The fleet view has caught up with the polls when it answers within this.
const VIEW_CALM: Duration = Duration::from_millis(100);
/// How long the idle fleet's CPU rate is measured for (S2's time-driven part).
const IDLE: Duration = Duration::from_secs(10);
/// The targets at 10,000 OLTs × 128 ONUs.
const S1_WALL_TARGET: f64 = 3.0;
const S1_CPU_TARGET: f64 = 2.0;
const S2_CPU_TARGET: f64 = 180.0;
const S3_TRAPS_TARGET_MS: f64 = 2000.0;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleBenchResult {
    pub olts: usize,
    pub onus: usize,
    pub s1: SweepFigures,
    /// `None` with `--skip-hour`.
    pub s2: Option<HourFigures>,
    /// `None` with `--skip-detect`.
    pub s3: Option<DetectFigures>,
    /// `None` with `--skip-hour`.
    pub s4: Option<OpticsFigures>,
}

/// S1: one status sweep of the whole fleet.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SweepFigures {
    pub wall_seconds_median: f64,
    pub wall_seconds_all: Vec<f64>,
    pub cpu_seconds_median: f64,
    /// Process CPU from the sweep's start until the fleet view has taken in what its
    /// polls published (the API answers from the view).
    pub cpu_seconds_all: Vec<f64>,
    /// Per sweep: how long after the last poll's answer the fleet view caught up.
    pub view_seconds_all: Vec<f64>,
    /// From the fleet's start until every OLT's first poll (which reads everything) is
    /// done, wall seconds.
    pub warm_up_seconds: f64,
    /// Once those polls were done (and the actors' own re-read of the optics, below),
    /// how long the fleet view still took to take in what they published, wall seconds.
    pub view_seconds_after_start: f64,
    /// Optics reads per ONU from the start until the polls the actors start on their
    /// own are done: 1 would be each ONU read by the first poll (less the offline ones);
    /// about twice that means the first poll's ONUs were read again at once (every
    /// online ONU seen for the first time counts as come online, and the schedule reads
    /// those first).
    pub optics_reads_per_onu_at_start: f64,
    /// Per sweep: the fewest and most status reads of any ONU (1 and 1 when every ONU's
    /// run state was read exactly once).
    pub status_reads_min_all: Vec<u32>,
    pub status_reads_max_all: Vec<u32>,
    /// Per sweep: ONUs whose optics were read (those that fell due meanwhile).
    pub optics_reads_all: Vec<u64>,
    /// The most requests any OLT received within one second over the sweeps.
    pub peak_requests_per_second: u32,
    pub wall_target_seconds: f64,
    pub cpu_target_seconds: f64,
    pub pass: bool,
}

/// S2: CPU per hour of the default schedule.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HourFigures {
    pub scale: u32,
    pub hours: u32,
    /// The compressed status interval.
    pub status_interval_seconds: f64,
    pub window_seconds: f64,
    /// Process CPU over the window, until the fleet view had taken in its polls.
    pub cpu_seconds_in_window: f64,
    /// How long the fleet view took, once the window closed, to catch up.
    pub view_lag_seconds: f64,
    pub status_reads_per_onu: f64,
    pub status_reads_expected: f64,
    pub keep_up_factor: f64,
    pub idle_cpu_per_second: f64,
    pub cpu_seconds_per_hour: f64,
    /// `cpu_seconds_per_hour` as a share of one core.
    pub core_share: f64,
    pub target_seconds_per_hour: f64,
    pub pass: bool,
}

/// S3: ONU down in the simulator until its `ONU_DOWN` is on the stream.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DetectFigures {
    pub status_interval_seconds: f64,
    pub polls_ms_all: Vec<f64>,
    pub polls_ms_median: f64,
    pub polls_ms_max: f64,
    pub polls_target_ms: f64,
    pub traps_ms_all: Vec<f64>,
    pub traps_ms_median: f64,
    pub traps_ms_max: f64,
    pub traps_target_ms: f64,
    pub pass: bool,
}

/// S4: every vendor's optics reads per ONU over the window.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OpticsFigures {
    /// Between the counters' reset and their reading: known only between these two.
    pub window_seconds_inner: f64,
    pub window_seconds_outer: f64,
    pub vendors: Vec<VendorOptics>,
    /// Every vendor within `maxAllowed` and `minRequired`.
    pub pass: bool,
    /// Every vendor within `maxAllowed` and `minByDesign`.
    pub pass_by_design: bool,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VendorOptics {
    pub vendor: &'static str,
    /// The vendor's compressed optics interval.
    pub interval_seconds: f64,
    /// The compressed pace, requests a second per OLT.
    pub pace: u32,
    #[serde(flatten)]
    pub reads: VendorReads,
    pub optics_mean: f64,
    #[serde(flatten)]
    pub bounds: ReadBounds,
    pub max_ok: bool,
    pub min_ok: bool,
    pub min_by_design_ok: bool,
}

/// Runs S1, then S2 and S4, then S3.
pub async fn run(options: &PollBenchOptions) -> anyhow::Result<ScheduleBenchResult> {
    let work = tempfile::Builder::new()
        .prefix("ponkeeper-bench-schedule-")
        .tempdir()?;
    let progress = Progress::new(options.cycles + 6);
    let (s1, idle) = status_sweeps(options, work.path(), &progress).await?;
    let (s2, s4) = if options.skip_hour {
        (None, None)
    } else {
        let (s2, s4) = scaled_hour(options, work.path(), idle, &progress).await?;
        (Some(s2), Some(s4))
    };
    let s3 = if options.skip_detect {
        None
    } else {
        Some(detection(work.path(), options.onus_per_olt, &progress).await?)
    };
    progress.finish();
    Ok(ScheduleBenchResult {
        olts: options.olts,
        onus: options.olts * options.onus_per_olt,
        s1,
        s2,
        s3,
        s4,
    })
}

/// S3: without traps at [`S3_STATUS_INTERVAL`], then with traps at the default interval.
async fn detection(
    work: &Path,
    onus_per_olt: usize,
    progress: &Progress,
) -> anyhow::Result<DetectFigures> {
    progress.step("S3: ONU down until ONU_DOWN, polls only");
    let polls =
        super::events::down_to_event(work, S3_SAMPLES, onus_per_olt, S3_STATUS_INTERVAL, false)
            .await?;
    progress.inc();
    progress.step("S3: the same with traps, default intervals");
    let interval = PollSettings::default().interval;
    let traps =
        super::events::down_to_event(work, S3_SAMPLES, onus_per_olt, interval, true).await?;
    Ok(detect_figures(polls, traps))
}

fn max(values: &[f64]) -> f64 {
    values.iter().copied().fold(0.0, f64::max)
}

fn detect_figures(polls: Vec<f64>, traps: Vec<f64>) -> DetectFigures {
    let polls_target_ms = (S3_STATUS_INTERVAL.as_secs_f64() + 2.0) * 1e3;
    let pass = max(&polls) <= polls_target_ms && max(&traps) <= S3_TRAPS_TARGET_MS;
    DetectFigures {
        status_interval_seconds: S3_STATUS_INTERVAL.as_secs_f64(),
        polls_ms_median: median(&polls),
        polls_ms_max: max(&polls),
        polls_ms_all: polls,
        polls_target_ms,
        traps_ms_median: median(&traps),
        traps_ms_max: max(&traps),
        traps_ms_all: traps,
        traps_target_ms: S3_TRAPS_TARGET_MS,
        pass,
    }
}

/// A simulator for `options`' fleet charging `omci_cost`, its inventory without SSH
/// (polling alone is measured: no scheduled config backups), and its control socket.
async fn simulator(
    options: &PollBenchOptions,
    dir: &Path,
    omci_cost: Duration,
) -> anyhow::Result<(super::SimulatorProcess, Inventory, PathBuf)> {
    std::fs::create_dir_all(dir)?;
    let socket = dir.join("sim.sock");
    let (sim, mut inventory) =
        start_simulator(options, &dir.join("inventory.toml"), &socket, omci_cost).await?;
    for olt in &mut inventory.olts {
        olt.ssh = None;
    }
    Ok((sim, inventory, socket))
}

/// The simulator's counters now.
async fn stats(socket: &Path) -> anyhow::Result<FleetStats> {
    let json = control(socket, "stats").await?;
    Ok(serde_json::from_str(&json)?)
}

/// A fleet of OLT actors polling `inventory` with `settings`, over a store in `dir`,
/// once every OLT's first poll (which reads every group, started by the actor itself as
/// in `serve`) is done: its handles and the wall seconds until then.
async fn warmed_up(
    dir: &Path,
    settings: PollSettings,
    inventory: Inventory,
) -> anyhow::Result<(Fleet, Vec<OltHandle>, f64)> {
    let started = Instant::now();
    let fleet = Fleet::start(Store::open(&dir.join("data"))?, settings, inventory)
        .await
        .map_err(|e| anyhow::anyhow!(e))?;
    let handles = fleet.olts();
    let mut waiting: Vec<&OltHandle> = handles.iter().collect();
    while !waiting.is_empty() {
        if started.elapsed() > SETTLE_LIMIT {
            bail!("{} OLTs not online after {SETTLE_LIMIT:?}", waiting.len());
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let summaries = futures::future::join_all(waiting.iter().map(|h| h.summary())).await;
        let mut still = Vec::new();
        for (handle, summary) in waiting.into_iter().zip(summaries) {
            if summary?.status != SessionStatus::Online {
                still.push(handle);
            }
        }
        waiting = still;
    }
    let seconds = started.elapsed().as_secs_f64();
    Ok((fleet, handles, seconds))
}

/// Waits until the simulator has counted no new optics read for [`SETTLED`] (or
/// [`SETTLE_LIMIT`] has passed): the polls the OLT actors started on their own are done.
/// Gives the optics reads counted since the last reset.
async fn optics_settled(socket: &Path) -> anyhow::Result<u64> {
    let started = Instant::now();
    let mut last = (u64::MAX, Instant::now());
    loop {
        let total = stats(socket)
            .await?
            .olts
            .iter()
            .map(|o| o.onu_optics_reads.total)
            .sum();
        if total != last.0 {
            last = (total, Instant::now());
        } else if last.1.elapsed() >= SETTLED || started.elapsed() >= SETTLE_LIMIT {
            return Ok(total);
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Waits until the fleet view has handled everything published before this call (its
/// queries queue behind the updates): how long that took. A query that times out is
/// asked again; the view is given [`SETTLE_LIMIT`] in all.
async fn view_drained(fleet: &Fleet) -> anyhow::Result<f64> {
    let started = Instant::now();
    loop {
        match fleet.view().node_counters(Vec::new()).await {
            Ok(_) => return Ok(started.elapsed().as_secs_f64()),
            Err(FleetViewError::NoReply(_)) if started.elapsed() < SETTLE_LIMIT => {}
            Err(error) => bail!("the fleet view did not catch up: {error}"),
        }
    }
}

/// Waits until the fleet view answers within [`VIEW_CALM`]: it has caught up with what
/// the polls publish.
async fn view_caught_up(fleet: &Fleet) -> anyhow::Result<()> {
    let started = Instant::now();
    while view_drained(fleet).await? > VIEW_CALM.as_secs_f64() {
        if started.elapsed() > SETTLE_LIMIT {
            bail!("the fleet view did not catch up within {SETTLE_LIMIT:?}");
        }
    }
    Ok(())
}

/// One S1 sweep, and what the simulator counted during it.
struct Sweep {
    wall: f64,
    cpu: f64,
    view: f64,
    status_min: u32,
    status_max: u32,
    optics: u64,
    peak: u32,
}

/// One status sweep of `handles` once the view is idle: wall time until every poll is
/// answered, CPU time until the fleet view has also taken in what they published.
async fn sweep(fleet: &Fleet, handles: &[OltHandle], socket: &Path) -> anyhow::Result<Sweep> {
    view_caught_up(fleet).await?;
    control(socket, "stats reset").await?;
    let cpu_before = cpu_seconds()?;
    let wall = cycle(handles).await?;
    let view = view_drained(fleet).await?;
    let cpu = cpu_seconds()? - cpu_before;
    let counted = stats(socket).await?.olts;
    let status = counted.iter().map(|o| o.onu_status_reads);
    Ok(Sweep {
        wall,
        cpu,
        view,
        status_min: status.clone().map(|s| s.min).min().unwrap_or(0),
        status_max: status.map(|s| s.max).max().unwrap_or(0),
        optics: counted.iter().map(|o| o.onu_optics_reads.total).sum(),
        peak: counted
            .iter()
            .map(|o| o.peak_requests_per_second)
            .max()
            .unwrap_or(0),
    })
}

/// S1, and the idle fleet's CPU seconds per second.
async fn status_sweeps(
    options: &PollBenchOptions,
    work: &Path,
    progress: &Progress,
) -> anyhow::Result<(SweepFigures, f64)> {
    let dir = work.join("s1");
    progress.step(format!(
        "S1: starting the simulator: {} OLTs × {} ONUs, OMCI {:?} an ONU",
        options.olts, options.onus_per_olt, DEFAULT_OMCI_COST
    ));
    let (mut sim, inventory, socket) = simulator(options, &dir, DEFAULT_OMCI_COST).await?;
    // The default schedule, but no timer polls: the sweeps are the bench's `poll_now`s.
    // What a poll reads does not depend on the status interval at 128 ONUs an OLT (the
    // optics cap, half an interval's pace, is far above the ONUs due).
    let settings = PollSettings {
        interval: Duration::from_secs(24 * 3600),
        deadline: Duration::from_secs(300),
        ..PollSettings::default()
    };
    progress.step("S1: warm-up, a first poll of every OLT (reads everything)");
    control(&socket, "stats reset").await?;
    let (fleet, handles, warm_up_seconds) = warmed_up(&dir, settings, inventory).await?;
    // The first poll counts every online ONU it sees for the first time as come online,
    // and the schedule reads their optics again at once, in a poll of its own.
    let optics_at_start = optics_settled(&socket).await?;
    progress.step("S1: waiting for the fleet view to take in the first polls");
    let view_started = Instant::now();
    view_caught_up(&fleet).await?;
    let view_after_start = view_started.elapsed().as_secs_f64();
    progress.inc();
    let mut sweeps = Vec::new();
    for i in 0..options.cycles.max(1) {
        progress.step(format!("S1: status sweep {} of {}", i + 1, options.cycles));
        sweeps.push(sweep(&fleet, &handles, &socket).await?);
        progress.inc();
    }
    progress.step(format!("S1: idle fleet for {} s", IDLE.as_secs()));
    view_caught_up(&fleet).await?;
    let cpu_before = cpu_seconds()?;
    let idle_started = Instant::now();
    tokio::time::sleep(IDLE).await;
    let idle = (cpu_seconds()? - cpu_before) / idle_started.elapsed().as_secs_f64();
    fleet.shutdown().await;
    // S2's simulator binds the same ports: this one must be gone first.
    sim.0.kill().await?;
    progress.inc();
    let onus = (options.olts * options.onus_per_olt).max(1) as f64;
    let optics_at_start = optics_at_start as f64 / onus;
    let mut figures = sweep_figures(sweeps, warm_up_seconds, optics_at_start);
    figures.view_seconds_after_start = view_after_start;
    Ok((figures, idle))
}

fn sweep_figures(sweeps: Vec<Sweep>, warm_up_seconds: f64, optics_at_start: f64) -> SweepFigures {
    let walls: Vec<f64> = sweeps.iter().map(|s| s.wall).collect();
    let cpus: Vec<f64> = sweeps.iter().map(|s| s.cpu).collect();
    let (wall, cpu) = (median(&walls), median(&cpus));
    SweepFigures {
        wall_seconds_median: wall,
        wall_seconds_all: walls,
        cpu_seconds_median: cpu,
        cpu_seconds_all: cpus,
        view_seconds_all: sweeps.iter().map(|s| s.view).collect(),
        warm_up_seconds,
        view_seconds_after_start: 0.0,
        optics_reads_per_onu_at_start: optics_at_start,
        status_reads_min_all: sweeps.iter().map(|s| s.status_min).collect(),
        status_reads_max_all: sweeps.iter().map(|s| s.status_max).collect(),
        optics_reads_all: sweeps.iter().map(|s| s.optics).collect(),
        peak_requests_per_second: sweeps.iter().map(|s| s.peak).max().unwrap_or(0),
        wall_target_seconds: S1_WALL_TARGET,
        cpu_target_seconds: S1_CPU_TARGET,
        pass: wall <= S1_WALL_TARGET && cpu <= S1_CPU_TARGET,
    }
}

/// What the compressed window measured, before it is turned into S2 and S4.
struct Window {
    inner: f64,
    outer: f64,
    cpu: f64,
    /// How long the fleet view took, once the window closed, to take in what had been
    /// published by then (its CPU is counted in `cpu`).
    view_lag: f64,
    stats: FleetStats,
}

/// S2 and S4: the compressed schedule run for its window after a warm-up.
async fn scaled_hour(
    options: &PollBenchOptions,
    work: &Path,
    idle_cpu_per_second: f64,
    progress: &Progress,
) -> anyhow::Result<(HourFigures, OpticsFigures)> {
    let scale = Scale {
        factor: options.schedule_scale,
    };
    let hours = options.schedule_hours;
    let dir = work.join("s2");
    let omci = scale.interval(DEFAULT_OMCI_COST);
    progress.step(format!(
        "S2/S4: starting the simulator, the schedule ÷{}, OMCI {omci:?} an ONU",
        scale.factor
    ));
    let (_sim, inventory, socket) = simulator(options, &dir, omci).await?;
    let inventory = scale.inventory(&inventory)?;
    let vendors: BTreeMap<u32, Vendor> = inventory
        .olts
        .iter()
        .filter_map(|o| Some((o.id, o.vendor.fixed()?)))
        .collect();
    progress.step("S2/S4: warm-up, a first poll of every OLT (reads everything)");
    let settings = scale.settings();
    let status_interval = settings.interval;
    let (fleet, _handles, _) = warmed_up(&dir, settings, inventory).await?;
    // The timer takes over; the re-read of every online ONU's optics that follows the
    // first poll (see S1) is a cost of the start, not of an hour: it passes first.
    tokio::time::sleep(SETTLED + status_interval * 3).await;
    view_caught_up(&fleet).await.map_err(|e| {
        e.context("the fleet view cannot keep up with this compressed schedule: try a smaller --schedule-scale")
    })?;
    progress.inc();
    let window = measure_window(&fleet, &socket, scale.window(hours), progress).await?;
    fleet.shutdown().await;
    progress.inc();

    let reads = figures::vendor_reads(&window.stats, options.onus_per_olt, |id| {
        vendors.get(&id).copied()
    });
    let onus: u64 = reads.values().map(|r| r.onus).sum();
    let status_total: u64 = reads.values().map(|r| r.status_total).sum();
    let run = ScaledRun {
        hours,
        window_seconds: window.inner,
        cpu_seconds: window.cpu,
        status_reads_per_onu: status_total as f64 / onus.max(1) as f64,
        status_reads_expected: window.inner / status_interval.as_secs_f64(),
        idle_cpu_per_second,
    };
    let per_hour = figures::cpu_per_hour(&run);
    let s2 = HourFigures {
        scale: scale.factor,
        hours,
        status_interval_seconds: status_interval.as_secs_f64(),
        window_seconds: window.inner,
        cpu_seconds_in_window: window.cpu,
        view_lag_seconds: window.view_lag,
        status_reads_per_onu: run.status_reads_per_onu,
        status_reads_expected: run.status_reads_expected,
        keep_up_factor: run.keep_up_factor(),
        idle_cpu_per_second,
        cpu_seconds_per_hour: per_hour,
        core_share: per_hour / HOUR.as_secs_f64(),
        target_seconds_per_hour: S2_CPU_TARGET,
        pass: per_hour <= S2_CPU_TARGET,
    };
    Ok((s2, optics_figures(scale, &window, reads)))
}

/// Resets the simulator's counters, lets the schedule run for `length`, and reads the
/// counters and the process CPU it took, up to when the fleet view has taken in what the
/// window's polls published (a view that falls behind would otherwise leave their work
/// out; the polls of the drain's time are counted in too, an over-count).
async fn measure_window(
    fleet: &Fleet,
    socket: &Path,
    length: Duration,
    progress: &Progress,
) -> anyhow::Result<Window> {
    let reset_sent = Instant::now();
    control(socket, "stats reset").await?;
    let opened = Instant::now();
    let cpu_before = cpu_seconds()?;
    let tenth = length / 10;
    for step in 1..=10 {
        tokio::time::sleep_until((opened + tenth * step).into()).await;
        progress.step(format!(
            "S2/S4: compressed schedule, {}% of {:.0} s",
            step * 10,
            length.as_secs_f64()
        ));
    }
    let inner = opened.elapsed().as_secs_f64();
    let stats = stats(socket).await?;
    let outer = reset_sent.elapsed().as_secs_f64();
    let view_lag = view_drained(fleet).await?;
    let cpu = cpu_seconds()? - cpu_before;
    Ok(Window {
        inner,
        outer,
        cpu,
        view_lag,
        stats,
    })
}

/// S4 from the window's counters per vendor.
fn optics_figures(
    scale: Scale,
    window: &Window,
    reads: BTreeMap<&'static str, VendorReads>,
) -> OpticsFigures {
    let vendors: Vec<VendorOptics> = Vendor::ALL
        .iter()
        .filter_map(|vendor| {
            let reads = *reads.get(vendor.as_str())?;
            let overrides = scale.overrides(*vendor);
            let interval = overrides.optics.unwrap_or_default();
            let bounds = figures::optics_read_bounds(window.inner, window.outer, interval);
            Some(VendorOptics {
                vendor: vendor.as_str(),
                interval_seconds: interval.as_secs_f64(),
                pace: overrides.max_requests_per_second.unwrap_or_default(),
                optics_mean: reads.optics_total as f64 / reads.onus.max(1) as f64,
                max_ok: reads.optics_max <= bounds.max_allowed,
                min_ok: reads.optics_min >= bounds.min_required,
                min_by_design_ok: reads.optics_min >= bounds.min_by_design,
                reads,
                bounds,
            })
        })
        .collect();
    OpticsFigures {
        window_seconds_inner: window.inner,
        window_seconds_outer: window.outer,
        pass: vendors.iter().all(|v| v.max_ok && v.min_ok),
        pass_by_design: vendors.iter().all(|v| v.max_ok && v.min_by_design_ok),
        vendors,
    }
}
