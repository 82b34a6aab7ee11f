//! `kill -9` while polls write history and housekeeping seals it: a child process (this
//! test binary again, told so by an environment variable) writes a read of 50 ONUs at a
//! time (one OLT's poll record), 5 simulated minutes apart, sealing at each simulated
//! midnight, and says on stdout each read it stored; the parent kills it with SIGKILL a second after some read past
//! two midnights. Every read the child had said it stored a second before the kill (past
//! sled's 500 ms flush) must be there after a reopen, each point once, in order; reads
//! after it may be there or not, but only as a whole-read prefix. A second child writes
//! three days of 400 ONUs on four OLTs, flushes them, and is killed halfway through sealing
//! the second day (each OLT's day in one batch: its ONUs' blocks and their hourly and daily
//! rollups, its poll records out): every point is
//! there once after a reopen, and every rollup equals a recomputation from the points,
//! sealed or not. Here and not in the library's tests, whose stores reopen their
//! directories: a child forked while a test holds a store keeps a copy of its lock until
//! it execs.

use chrono::{DateTime, Duration, TimeZone, Utc};
use ponkeeper_actors::store::series::rollup::{summarise, Rollup};
use ponkeeper_actors::store::series::tiers::{Cutoffs, Tier};
use ponkeeper_actors::store::Store;
use ponkeeper_actors::traffic::TrafficPoint;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

const CHILD: &str = "PONKEEPER_SERIES_CRASH_CHILD";
const ONUS: u64 = 50;

fn start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0)
        .single()
        .expect("time")
}

fn point(read: i64, onu: u64) -> TrafficPoint {
    TrafficPoint {
        at: start() + Duration::minutes(5 * read),
        in_bps: Some((read * 31 + onu as i64) as f64),
        out_bps: Some(onu as f64),
    }
}

/// The OLT ONU `onu` is on when the ONUs are spread over `olts` OLTs.
fn olt_of(onu: u64, olts: u32) -> u32 {
    (onu % u64::from(olts)) as u32 + 1
}

/// Opens the store in `dir` with ONUs 1 to `onus` allocated to `olts` OLTs.
fn store_of(dir: &Path, onus: u64, olts: u32) -> Store {
    let store = Store::open(dir).expect("open");
    for onu in 1..=onus {
        store
            .adopt_onu_id(olt_of(onu, olts), &format!("SN{onu:08}"), onu)
            .expect("owner");
    }
    store
}

/// Writes one read of every ONU: a poll record per OLT.
fn record(store: &Store, points: &[(u64, TrafficPoint)], olts: u32) {
    for olt in 1..=olts {
        let polled: Vec<_> = points
            .iter()
            .filter(|(onu, _)| olt_of(*onu, olts) == olt)
            .copied()
            .collect();
        store.record_traffic(olt, &polled).expect("record");
    }
}

/// The child: writes reads until it is killed.
fn write_until_killed(dir: &Path) {
    let store = store_of(dir, ONUS, 1);
    let mut out = std::io::stdout();
    for read in 0.. {
        if read > 0 && read % 288 == 0 {
            store
                .seal_history(start() + Duration::minutes(5 * read))
                .expect("seal");
        }
        let points: Vec<_> = (1..=ONUS).map(|onu| (onu, point(read, onu))).collect();
        record(&store, &points, 1);
        writeln!(out, "stored {read}").expect("stdout");
        out.flush().expect("stdout");
    }
}

#[test]
fn a_kill_9_while_writing_and_sealing_loses_no_stored_point() {
    if let Ok(dir) = std::env::var(CHILD) {
        write_until_killed(Path::new(&dir));
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let name = module_path!().split_once("::").map_or("", |(_, path)| path);
    let mut child = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            &format!("{name}::a_kill_9_while_writing_and_sealing_loses_no_stored_point"),
            "--exact",
            "--nocapture",
        ])
        .env(CHILD, dir.path())
        .stdout(Stdio::piped())
        .spawn()
        .expect("child");
    let stored = Arc::new(AtomicI64::new(-1));
    let lines = BufReader::new(child.stdout.take().expect("stdout"));
    let seen = stored.clone();
    let reader = std::thread::spawn(move || {
        for line in lines.lines().map_while(Result::ok) {
            if let Some(read) = line.strip_prefix("stored ").and_then(|r| r.parse().ok()) {
                seen.store(read, Ordering::SeqCst);
            }
        }
    });
    while stored.load(Ordering::SeqCst) < 2 * 288 + 10 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let durable = stored.load(Ordering::SeqCst);
    std::thread::sleep(std::time::Duration::from_secs(1));
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    reader.join().expect("reader");

    let store = Store::open(dir.path()).expect("reopen after the kill");
    let (from, to) = (start(), start() + Duration::days(365));
    for onu in [1, ONUS] {
        let mut points = Vec::new();
        store
            .traffic_history(onu, from, to, |p| {
                points.push(p);
                true
            })
            .expect("history");
        assert!(
            points.len() as i64 > durable,
            "ONU {onu}: {} reads back, {durable} were stored a second before the kill",
            points.len()
        );
        for (read, got) in points.iter().enumerate() {
            assert_eq!(*got, point(read as i64, onu), "read {read} of ONU {onu}");
        }
    }
}

const SEAL_CHILD: &str = "PONKEEPER_ROLLUP_CRASH_CHILD";
/// Enough ONUs that sealing a day (each ONU's block and rollups, a batch each) takes far
/// longer than the parent takes to kill the child once told it started.
const SEAL_ONUS: u64 = 400;
const DAYS: i64 = 3;

/// A read every 15 minutes, so three days of 400 ONUs are quick to write.
fn quarter(read: i64, onu: u64) -> TrafficPoint {
    TrafficPoint {
        at: start() + Duration::minutes(15 * read),
        in_bps: (read % 5 != 1).then(|| ((read * 7_919 + onu as i64) % 1_000_003) as f64),
        out_bps: Some(((read * 104_729 + onu as i64 * 31) % 10_000_019) as f64),
    }
}

/// The child: writes three days, makes them durable, then seals day after day, saying
/// when each seal starts, until it is killed.
fn seal_until_killed(dir: &Path) {
    let store = store_of(dir, SEAL_ONUS, 4);
    for read in 0..DAYS * 96 {
        let points: Vec<_> = (1..=SEAL_ONUS)
            .map(|onu| (onu, quarter(read, onu)))
            .collect();
        record(&store, &points, 4);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    runtime.block_on(store.flush()).expect("flush");
    let mut out = std::io::stdout();
    for day in 1..=DAYS {
        writeln!(out, "sealing {day}").expect("stdout");
        out.flush().expect("stdout");
        store
            .seal_history(start() + Duration::days(day))
            .expect("seal");
    }
    writeln!(out, "sealed").expect("stdout");
    out.flush().expect("stdout");
    std::thread::sleep(std::time::Duration::from_secs(3_600));
}

/// Every raw point of ONU `onu` and its rows of `tier`, as `store` reads them.
fn raw_and_rows(store: &Store, onu: u64, tier: Tier) -> (Vec<TrafficPoint>, Vec<Rollup>) {
    let (from, to) = (start(), start() + Duration::days(DAYS));
    let mut points = Vec::new();
    store
        .traffic_history(onu, from, to, |p| {
            points.push(p);
            true
        })
        .expect("history");
    let mut rows = Vec::new();
    store
        .traffic_rollups(onu, (from, to), tier, |row| {
            rows.push(row.clone());
            true
        })
        .expect("rollups");
    (points, rows)
}

/// Every point of every ONU once, and rows of each tier that are those of a
/// recomputation from them.
fn assert_whole(store: &Store, when: &str) {
    for onu in 1..=SEAL_ONUS {
        for (tier, period) in [(Tier::Hourly, 3_600), (Tier::Daily, 86_400)] {
            let (points, rows) = raw_and_rows(store, onu, tier);
            let expected: Vec<_> = (0..DAYS * 96).map(|read| quarter(read, onu)).collect();
            assert_eq!(points, expected, "{when}: the points of ONU {onu}");
            assert_eq!(
                rows,
                summarise(&points, period),
                "{when}: the {tier:?} rows of ONU {onu}"
            );
        }
    }
}

/// `kill -9` while housekeeping seals days and writes their rollups: after a reopen no
/// point is lost or doubled and every rollup equals a recomputation from the raw points;
/// so again once the seal is done over, and once the raw points are pruned.
#[test]
fn a_kill_9_while_sealing_and_rolling_up_loses_and_doubles_nothing() {
    if let Ok(dir) = std::env::var(SEAL_CHILD) {
        seal_until_killed(Path::new(&dir));
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let name = module_path!().split_once("::").map_or("", |(_, path)| path);
    let mut child = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            &format!("{name}::a_kill_9_while_sealing_and_rolling_up_loses_and_doubles_nothing"),
            "--exact",
            "--nocapture",
        ])
        .env(SEAL_CHILD, dir.path())
        .stdout(Stdio::piped())
        .spawn()
        .expect("child");
    let lines = BufReader::new(child.stdout.take().expect("stdout"));
    let mut first_seal = None;
    for line in lines.lines().map_while(Result::ok) {
        if line == "sealing 1" {
            first_seal = Some(std::time::Instant::now());
        }
        // Killed halfway through the second day's seal, as long as the first took: the
        // first day sealed, the second in the middle of its ONUs (on disk, up to sled's
        // last flush), the third open.
        if line == "sealing 2" {
            let took = first_seal.map(|at| at.elapsed()).unwrap_or_default();
            std::thread::sleep(took / 2);
            break;
        }
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");

    let store = Store::open(dir.path()).expect("reopen after the kill");
    assert_whole(&store, "after the kill");
    let end = start() + Duration::days(DAYS);
    store.seal_history(end).expect("seal again");
    assert_whole(&store, "sealed again");
    let raw_gone = Cutoffs {
        raw: end,
        hourly: DateTime::<Utc>::MIN_UTC,
        daily: DateTime::<Utc>::MIN_UTC,
    };
    store.prune_traffic(raw_gone).expect("prune");
    let (points, rows) = raw_and_rows(&store, 1, Tier::Hourly);
    assert!(points.is_empty(), "the raw points are pruned");
    let expected: Vec<_> = (0..DAYS * 96).map(|read| quarter(read, 1)).collect();
    assert_eq!(
        rows,
        summarise(&expected, 3_600),
        "the hourly rows outlive them"
    );
}
