//! `kill -9` while polls write history and housekeeping seals it: a child process (this
//! test binary again, told so by an environment variable) writes a read of 50 ONUs at a
//! time, 5 simulated minutes apart, sealing at each simulated midnight, and says on stdout
//! each read it stored; the parent kills it with SIGKILL a second after some read past
//! two midnights. Every read the child had said it stored a second before the kill (past
//! sled's 500 ms flush) must be there after a reopen, each point once, in order; reads
//! after it may be there or not, but only as a whole-read prefix. Here and not in the
//! library's tests, whose stores reopen their directories: a child forked while a test
//! holds a store keeps a copy of its lock until it execs.

use chrono::{DateTime, Duration, TimeZone, Utc};
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

/// The child: writes reads until it is killed.
fn write_until_killed(dir: &Path) {
    let store = Store::open(dir).expect("open");
    let mut out = std::io::stdout();
    for read in 0.. {
        if read > 0 && read % 288 == 0 {
            store
                .seal_history(start() + Duration::minutes(5 * read))
                .expect("seal");
        }
        let points: Vec<_> = (1..=ONUS).map(|onu| (onu, point(read, onu))).collect();
        store.record_traffic(&points).expect("record");
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
