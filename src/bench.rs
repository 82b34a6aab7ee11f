//! `ponkeeper bench poll` (docs/benchmarks.md): the simulator in a child process, full poll
//! cycles through the same supervisor and OLT actors that `serve` uses, and the figures
//! the project is held to, measured in one run — cycle wall time (median), the poller's
//! CPU time per cycle, varbinds per second, resident memory, and two baselines on the same
//! OIDs: net-snmp's `snmpbulkwalk` processes (8 at a time, one per table column, as script
//! pollers do) over up to 200 OLTs, and a bare GETBULK loop with no actors, ONU decoding
//! or storage. It then times restarts of the real `serve` binary with the workload's
//! state in the store ([`restart`], P6) and measures how hung OLTs affect the healthy ones and
//! `restart-session` on a stuck one ([`isolation`], P7 and P8); `--skip-restart` and
//! `--skip-isolation` leave those out.

use anyhow::{bail, Context};
use futures::stream::{self, StreamExt};
use ponkeeper_actors::domain::SessionStatus;
use ponkeeper_actors::inventory::{Inventory, OltSpec};
use ponkeeper_actors::olt::{OltHandle, PollSettings};
use ponkeeper_actors::profile::{std_oids, Profile};
use ponkeeper_actors::snmp::{ClientSettings, SnmpClient};
use ponkeeper_actors::store::Store;
use ponkeeper_actors::supervisor::Fleet;
use serde::Serialize;
use std::net::SocketAddr;
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub mod baseline_http;
pub mod events;
pub mod history;
pub mod isolation;
pub mod progress;
pub mod restart;
pub mod schedule;
pub mod snmpv3;

/// OLTs the net-snmp comparison walks (docs/benchmarks.md P3).
const NETSNMP_OLTS: usize = 200;
const NETSNMP_PARALLEL: usize = 8;

#[derive(Debug, Clone, clap::Args)]
pub struct PollBenchOptions {
    #[arg(long, default_value_t = 1000)]
    pub olts: usize,
    #[arg(long, default_value_t = 128)]
    pub onus_per_olt: usize,
    #[arg(long, default_value_t = 5)]
    pub cycles: usize,
    /// Also walk the same tables of up to 200 OLTs with snmpbulkwalk (8 at a time).
    #[arg(long)]
    pub compare_netsnmp: bool,
    /// Print only the JSON result.
    #[arg(long)]
    pub json: bool,
    /// Leave out the restarts of `ponkeeper serve` with the workload's state stored (P6).
    #[arg(long)]
    pub skip_restart: bool,
    /// Leave out P7 (healthy cycles with OLTs hung) and P8 (restart-session on a stuck OLT).
    #[arg(long)]
    pub skip_isolation: bool,
    /// Read the `traffic` group (each ONU's octet counters) in every measured cycle too,
    /// as a fleet does at each `traffic_interval`: P2 with it minus P2 without is the
    /// group's CPU per read of the fleet.
    #[arg(long)]
    pub with_traffic: bool,
    /// First UDP port of the simulated fleet.
    #[arg(long, default_value_t = 21000)]
    pub base_port: u16,
    /// Also poll every OLT over SNMPv3 authPriv (SHA-256 + AES-128), cycles alternating
    /// with v2c ones: the v3 cycle over the v2c cycle.
    #[arg(long)]
    pub snmp_v3: bool,
    /// OLTs per simulated UDP socket (`sim --olts-per-socket`); the simulator's default
    /// (one each up to 5,000 OLTs, else 100) when not given.
    #[arg(long, value_name = "N")]
    pub olts_per_socket: Option<usize>,
    /// Instead of the all-tables cycle, the default schedule's figures S1–S4
    /// ([`schedule`]): status sweep (`--cycles` sweeps), CPU per hour, ONU down to
    /// `ONU_DOWN`, and each vendor's optics reads per ONU.
    #[arg(long)]
    pub schedule: bool,
    /// `--schedule`: S2 and S4 run the schedule with every interval divided, and every
    /// rate multiplied, by this.
    #[arg(long, value_name = "K", default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..))]
    pub schedule_scale: u32,
    /// `--schedule`: compressed hours S2 and S4 run for.
    #[arg(long, value_name = "H", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub schedule_hours: u32,
    /// `--schedule`: leave out S2 and S4 (the compressed hour).
    #[arg(long)]
    pub skip_hour: bool,
    /// `--schedule`: leave out S3 (ONU down to `ONU_DOWN` through `serve`).
    #[arg(long)]
    pub skip_detect: bool,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PollBenchResult {
    pub olts: usize,
    pub onus: usize,
    pub cycles: usize,
    pub cycle_seconds_median: f64,
    pub cycle_seconds_all: Vec<f64>,
    pub poller_cpu_seconds: f64,
    pub varbinds_per_second: f64,
    /// Resident memory of this process after the first measured cycle (before any bare
    /// loop ran in it).
    pub rss_bytes: u64,
    /// Resident memory of the real `serve` after its first full poll (unless `--skip-restart`).
    pub serve_rss_bytes: Option<u64>,
    pub netsnmp_olts: Option<usize>,
    pub netsnmp_seconds: Option<f64>,
    /// ponkeeper's cycle over the same OLTs as net-snmp.
    pub ponkeeper_seconds_same_olts: Option<f64>,
    pub ratio_vs_netsnmp: Option<f64>,
    /// Median of the bare loops, one run after each cycle.
    pub bare_loop_seconds: f64,
    pub bare_loop_seconds_all: Vec<f64>,
    /// Median of each cycle's time over the bare loop run right after it.
    pub ratio_vs_bare_loop: f64,
    /// Median time from starting `serve` until `GET /olts` shows every OLT's ONUs.
    pub restart_seconds: Option<f64>,
    pub restart_seconds_all: Option<Vec<f64>>,
    /// P7: healthy OLTs' cycle with one OLT hung over the same cycle with none hung.
    pub ratio_one_hung: Option<f64>,
    /// P7: the same with the first 10% of the OLTs hung.
    pub ratio_tenth_hung: Option<f64>,
    /// P8: `restart-session` on a stuck OLT, from the device answering again to the reply.
    pub restart_session_seconds: Option<f64>,
    /// P8's comparison: that OLT's ordinary poll.
    pub restart_session_poll_seconds: Option<f64>,
    /// Every sample behind the P7 and P8 figures.
    pub isolation: Option<isolation::IsolationFigures>,
    /// `--snmp-v3`: the cycle over SNMPv3 authPriv beside the v2c cycle.
    pub snmp_v3: Option<snmpv3::SnmpV3Figures>,
}

/// The simulator child; killed when dropped.
struct SimulatorProcess(tokio::process::Child);

impl Drop for SimulatorProcess {
    fn drop(&mut self) {
        let _ = self.0.start_kill();
    }
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// User + system CPU seconds of this process so far (`/proc`, in USER_HZ = 100 ticks).
fn cpu_seconds() -> anyhow::Result<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    let after_name = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .unwrap_or_default();
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // After the name: state is field 3 of the file, utime 14 and stime 15.
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    Ok((ticks(11) + ticks(12)) as f64 / 100.0)
}

fn rss_bytes() -> u64 {
    crate::metrics::resident_memory_bytes().unwrap_or(0)
}

/// `ponkeeper sim` for `options`' fleet, charging `omci_cost` per ONU whose optics an
/// answer carries (zero for the all-tables cycles, so that they stay comparable with the
/// figures measured before the simulator charged for optics).
async fn start_simulator(
    options: &PollBenchOptions,
    inventory_path: &Path,
    control_path: &Path,
    omci_cost: Duration,
) -> anyhow::Result<(SimulatorProcess, Inventory)> {
    let exe = std::env::current_exe().context("cannot find the ponkeeper binary")?;
    let child = tokio::process::Command::new(exe)
        .args(["sim", "--steady", "--vendor", "mixed"])
        .args([
            "--omci-cost".to_string(),
            humantime::format_duration(omci_cost).to_string(),
        ])
        .args(["--olts", &options.olts.to_string()])
        .args(["--onus-per-olt", &options.onus_per_olt.to_string()])
        .args(["--base-port", &options.base_port.to_string()])
        .arg("--inventory-out")
        .arg(inventory_path)
        .arg("--control")
        .arg(control_path)
        .args(
            options
                .olts_per_socket
                .map(|n| ["--olts-per-socket".to_string(), n.to_string()])
                .into_iter()
                .flatten(),
        )
        .args(if options.snmp_v3 {
            vec!["--snmp-v3".to_string(), snmpv3::simulator_user()]
        } else {
            Vec::new()
        })
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .context("cannot start `ponkeeper sim`")?;
    let child = SimulatorProcess(child);
    let started = Instant::now();
    // A minute, and 10 s more per 1,000 OLTs (a national fleet's 1.28 M ONUs take a while
    // to generate, minutes in a debug build).
    let limit = Duration::from_secs(60 + 10 * options.olts as u64 / 1000);
    while !inventory_path.exists() {
        if started.elapsed() > limit {
            bail!(
                "the simulator did not write its inventory within {} s",
                limit.as_secs()
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The file is written in one go after every agent is bound; read it once complete.
    tokio::time::sleep(Duration::from_millis(200)).await;
    Ok((child, Inventory::load(inventory_path)?))
}

/// One full cycle: every OLT polled now, all at once (the semaphore bounds concurrency).
pub(crate) async fn cycle(handles: &[OltHandle]) -> anyhow::Result<f64> {
    let started = Instant::now();
    let results = futures::future::join_all(handles.iter().map(|h| h.poll_now())).await;
    let elapsed = started.elapsed().as_secs_f64();
    let failed = results
        .iter()
        .filter(|r| !matches!(r, Ok(s) if s.status == SessionStatus::Online))
        .count();
    if failed > 0 {
        bail!("{failed} of {} OLTs failed their poll", handles.len());
    }
    Ok(elapsed)
}

/// The OIDs ponkeeper reads from an OLT, as the columns a script poller would walk.
fn columns(profile: &Profile) -> Vec<&'static [u32]> {
    let mut columns = vec![
        profile.interface_names.oid(),
        std_oids::IF_TYPE,
        std_oids::VLAN_STATIC_NAME,
    ];
    columns.extend(profile.onu_columns.iter().map(|c| c.oid));
    columns
}

fn oid_text(oid: &[u32]) -> String {
    oid.iter().map(u32::to_string).collect::<Vec<_>>().join(".")
}

fn endpoint(olt: &OltSpec) -> SocketAddr {
    SocketAddr::new(olt.ip, olt.snmp.port)
}

/// `snmpbulkwalk` per column per OLT, `NETSNMP_PARALLEL` processes at a time.
async fn netsnmp(olts: &[OltSpec]) -> anyhow::Result<f64> {
    let mut jobs = Vec::new();
    for olt in olts {
        let profile = Profile::for_vendor(olt.vendor.fixed().context("a bench OLT's vendor")?);
        for column in columns(profile) {
            jobs.push((endpoint(olt), olt.snmp.community.clone(), oid_text(column)));
        }
    }
    let started = Instant::now();
    let outcomes: Vec<anyhow::Result<()>> = stream::iter(jobs)
        .map(|(addr, community, oid)| async move {
            let status = tokio::process::Command::new("snmpbulkwalk")
                .args([
                    "-v2c", "-c", &community, "-Cr25", "-On", "-t", "2", "-r", "1",
                ])
                .arg(addr.to_string())
                .arg(&oid)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .await
                .context("cannot run snmpbulkwalk (apt-get install snmp)")?;
            if status.success() {
                Ok(())
            } else {
                bail!("snmpbulkwalk of {oid} on {addr} failed")
            }
        })
        .buffer_unordered(NETSNMP_PARALLEL)
        .collect()
        .await;
    outcomes.into_iter().collect::<anyhow::Result<Vec<()>>>()?;
    Ok(started.elapsed().as_secs_f64())
}

/// The same OIDs read with plain GETBULK walks: no actors, no decoding, no storage.
async fn bare_loop(olts: &[OltSpec], settings: &PollSettings) -> anyhow::Result<f64> {
    let client_settings = ClientSettings {
        timeout: settings.timeout,
        retries: settings.retries,
        bulk_varbinds: settings.bulk_varbinds,
    };
    let started = Instant::now();
    let outcomes: Vec<anyhow::Result<()>> = stream::iter(olts.iter().cloned())
        .map(|olt| {
            let client_settings = client_settings.clone();
            async move {
                let profile =
                    Profile::for_vendor(olt.vendor.fixed().context("a bench OLT's vendor")?);
                let mut client =
                    SnmpClient::for_olt(endpoint(&olt), olt.id, &olt.snmp, client_settings);
                client
                    .get(&[
                        std_oids::SYS_NAME,
                        std_oids::SYS_DESCR,
                        std_oids::SYS_UPTIME,
                        std_oids::FIRMWARE,
                    ])
                    .await?;
                client
                    .walk_columns(&[
                        profile.interface_names.oid(),
                        std_oids::IF_TYPE,
                        std_oids::VLAN_STATIC_NAME,
                    ])
                    .await?;
                let onu_columns: Vec<&[u32]> = profile.onu_columns.iter().map(|c| c.oid).collect();
                client.walk_columns(&onu_columns).await?;
                Ok(())
            }
        })
        .buffer_unordered(settings.concurrency.available_permits().max(1))
        .collect()
        .await;
    outcomes.into_iter().collect::<anyhow::Result<Vec<()>>>()?;
    Ok(started.elapsed().as_secs_f64())
}

/// The simulator started, and the inventories the benchmark polls it with: v2c, and with
/// `--snmp-v3` the simulator's own v3 one beside it. Polling alone is measured: neither
/// has SSH, so no scheduled config backups compete with the polls.
async fn bench_inventories(
    options: &PollBenchOptions,
    inventory_path: &Path,
    control_path: &Path,
) -> anyhow::Result<(SimulatorProcess, Inventory, Option<Inventory>)> {
    let (simulator, mut inventory) =
        start_simulator(options, inventory_path, control_path, Duration::ZERO).await?;
    let mut v3_inventory = options.snmp_v3.then(|| inventory.clone());
    if options.snmp_v3 {
        inventory = snmpv3::as_v2c(&inventory);
        std::fs::write(inventory_path, inventory.to_toml())?;
    }
    for olt in inventory
        .olts
        .iter_mut()
        .chain(v3_inventory.iter_mut().flat_map(|i| i.olts.iter_mut()))
    {
        olt.ssh = None;
    }
    Ok((simulator, inventory, v3_inventory))
}

pub async fn poll(options: PollBenchOptions) -> anyhow::Result<PollBenchResult> {
    let work = tempfile::Builder::new()
        .prefix("ponkeeper-bench-")
        .tempdir()?;
    let inventory_path = work.path().join("inventory.toml");
    let control_path = work.path().join("sim.sock");
    // On stderr even with --json: the JSON alone goes to stdout.
    let progress = progress::Progress::new(options.cycles + 4);
    progress.step(format!(
        "starting the simulator: {} OLTs × {} ONUs",
        options.olts, options.onus_per_olt
    ));
    let (_simulator, inventory, v3_inventory) =
        bench_inventories(&options, &inventory_path, &control_path).await?;
    progress.step(format!(
        "{} OLTs started; warm-up cycle (sessions, ONU ids)",
        inventory.olts.len()
    ));

    let (settings, bare_settings) = bench_settings(options.with_traffic);
    let (fleet, handles) = warmed_up_fleet(work.path(), settings, &inventory).await?;
    progress.inc();

    let measured = measure_cycles(
        options.cycles,
        &handles,
        &inventory.olts,
        &bare_settings,
        &progress,
    )
    .await?;
    progress.inc();

    let netsnmp = if options.compare_netsnmp {
        progress.step("snmpbulkwalk");
        Some(against_netsnmp(&inventory.olts, &handles).await?)
    } else {
        None
    };
    progress.inc();
    let snmp_v3 = match v3_inventory {
        Some(v3_inventory) => {
            progress.step("SNMPv3 authPriv cycles beside v2c ones");
            Some(v3_cycles(work.path(), v3_inventory, &handles, options.cycles).await?)
        }
        None => None,
    };
    let isolation = if options.skip_isolation {
        None
    } else {
        progress.step("hung OLTs and restart-session");
        Some(isolation::measure(&control_path, &handles).await?)
    };
    progress.inc();
    fleet.shutdown().await;
    let restarts = if !options.skip_restart {
        progress.step("restarts of serve");
        let onus_per_olt = options.onus_per_olt;
        let olts = inventory.olts.len();
        Some(restart::measure(work.path(), &inventory_path, olts, onus_per_olt).await?)
    } else {
        None
    };
    progress.finish();

    let mut result = figures(
        &options,
        inventory.olts.len(),
        measured,
        netsnmp,
        restarts,
        isolation,
    );
    result.snmp_v3 = snmp_v3;
    Ok(result)
}

/// The bench's fleet of OLT actors over a store in `work`, after one warm-up cycle
/// (sessions opened, ONU ids allocated).
async fn warmed_up_fleet(
    work: &Path,
    settings: PollSettings,
    inventory: &Inventory,
) -> anyhow::Result<(Fleet, Vec<OltHandle>)> {
    let store = Store::open(work)?;
    let fleet = Fleet::start(store, settings, inventory.clone())
        .await
        .map_err(|e| anyhow::anyhow!(e))?;
    let handles = fleet.olts();
    cycle(&handles).await?;
    Ok((fleet, handles))
}

/// P1 over SNMPv3 authPriv beside the v2c fleet's `handles` (`--snmp-v3`), polling only.
async fn v3_cycles(
    work: &Path,
    v3_inventory: Inventory,
    handles: &[OltHandle],
    cycles: usize,
) -> anyhow::Result<snmpv3::SnmpV3Figures> {
    snmpv3::measure(work, v3_inventory, bench_settings(false).0, handles, cycles).await
}

/// The fleet's poll settings, and the bare loop's: the same, with a semaphore of its own.
/// Polls happen only when the benchmark asks: the interval is far away. Every poll reads
/// every group (P1 is "everything at once"): the identity, `olt` and optics intervals
/// are 1 ns, so each is due again by the next cycle, and the pace is so high it never
/// waits, as before polling by group.
fn bench_settings(with_traffic: bool) -> (PollSettings, PollSettings) {
    let always = Duration::from_nanos(1);
    // The deadline counts device time only; it also bounds how long `poll_now` waits,
    // and a cycle of 10,000 OLTs queued on the poll permits at once (the first one
    // storing every ONU) takes longer than the service's default allows.
    let settings = PollSettings {
        interval: Duration::from_secs(24 * 3600),
        identity_interval: always,
        olt_interval: always,
        optics_interval: Some(always),
        traffic_interval: match with_traffic {
            true => always,
            false => PollSettings::default().traffic_interval,
        },
        max_requests_per_second: Some(1_000_000),
        deadline: Duration::from_secs(300),
        ..PollSettings::default()
    };
    let bare_settings = PollSettings {
        concurrency: Arc::new(tokio::sync::Semaphore::new(
            settings.concurrency.available_permits(),
        )),
        probes: Arc::new(tokio::sync::Semaphore::new(
            settings.probes.available_permits(),
        )),
        ..settings.clone()
    };
    (settings, bare_settings)
}

/// The result of the poll benchmark from its measurements.
fn figures(
    options: &PollBenchOptions,
    olts: usize,
    measured: Cycles,
    netsnmp: Option<(usize, f64, f64)>,
    restarts: Option<restart::Restarts>,
    isolation: Option<isolation::IsolationFigures>,
) -> PollBenchResult {
    let Cycles {
        walls,
        bares,
        ratios,
        varbinds,
        cpu,
        rss,
    } = measured;
    let median_wall = median(&walls);
    let restart_median = restarts.as_ref().map(|r| median(&r.seconds));
    let serve_rss_bytes = restarts.as_ref().map(|r| r.serve_rss_bytes);
    let total_wall: f64 = walls.iter().sum();
    PollBenchResult {
        olts,
        onus: olts * options.onus_per_olt,
        cycles: options.cycles,
        cycle_seconds_median: median_wall,
        cycle_seconds_all: walls,
        poller_cpu_seconds: cpu,
        varbinds_per_second: if total_wall > 0.0 {
            varbinds as f64 / total_wall
        } else {
            0.0
        },
        rss_bytes: rss,
        serve_rss_bytes,
        netsnmp_olts: netsnmp.map(|(olts, _, _)| olts),
        netsnmp_seconds: netsnmp.map(|(_, seconds, _)| seconds),
        ponkeeper_seconds_same_olts: netsnmp.map(|(_, _, same)| same),
        ratio_vs_netsnmp: netsnmp.map(|(_, seconds, same)| seconds / same),
        bare_loop_seconds: median(&bares),
        bare_loop_seconds_all: bares,
        restart_seconds_all: restarts.map(|r| r.seconds),
        ratio_vs_bare_loop: median(&ratios),
        restart_seconds: restart_median,
        ratio_one_hung: isolation.as_ref().map(|i| i.ratio_one_hung),
        ratio_tenth_hung: isolation.as_ref().map(|i| i.ratio_tenth_hung),
        restart_session_seconds: isolation.as_ref().map(|i| i.restart_session_seconds),
        restart_session_poll_seconds: isolation.as_ref().map(|i| i.poll_seconds),
        isolation,
        snmp_v3: None,
    }
}

/// What the measured cycles gave: each cycle's and its bare loop's wall time, their
/// ratios, the varbinds the cycles read, CPU seconds per cycle, and this process's
/// resident memory after the first cycle.
struct Cycles {
    walls: Vec<f64>,
    bares: Vec<f64>,
    ratios: Vec<f64>,
    varbinds: u64,
    cpu: f64,
    rss: u64,
}

/// Runs `cycles` poll cycles of `handles`. Each cycle is followed by a bare loop over the
/// same OIDs, so both see the same machine load (the machine is shared); the ratio is the
/// median of the pairs'.
async fn measure_cycles(
    cycles: usize,
    handles: &[OltHandle],
    olts: &[OltSpec],
    bare_settings: &PollSettings,
    progress: &progress::Progress,
) -> anyhow::Result<Cycles> {
    let mut walls = Vec::new();
    let mut bares = Vec::new();
    let mut ratios = Vec::new();
    let mut varbinds = 0u64;
    let mut cpu = 0.0;
    let mut rss = rss_bytes();
    for i in 0..cycles {
        progress.step(format!("cycle {} of {}", i + 1, cycles));
        let cpu_before = cpu_seconds()?;
        let wall = cycle(handles).await?;
        cpu += cpu_seconds()? - cpu_before;
        for handle in handles {
            varbinds += handle.detail().await?.session.last_poll_varbinds;
        }
        if i == 0 {
            rss = rss_bytes();
        }
        let bare = bare_loop(olts, bare_settings).await?;
        walls.push(wall);
        bares.push(bare);
        ratios.push(wall / bare);
        progress.inc();
    }
    Ok(Cycles {
        walls,
        bares,
        ratios,
        varbinds,
        cpu: cpu / cycles.max(1) as f64,
        rss,
    })
}

/// snmpbulkwalk over the first [`NETSNMP_OLTS`] OLTs, and a ponkeeper cycle over the same:
/// how many OLTs, net-snmp's seconds, ponkeeper's seconds.
async fn against_netsnmp(
    olts: &[OltSpec],
    handles: &[OltHandle],
) -> anyhow::Result<(usize, f64, f64)> {
    let subset: Vec<OltSpec> = olts.iter().take(NETSNMP_OLTS).cloned().collect();
    let netsnmp_seconds = netsnmp(&subset).await?;
    let same = cycle(&handles[..subset.len()]).await?;
    Ok((subset.len(), netsnmp_seconds, same))
}
