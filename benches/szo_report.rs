//! СЗО availability report at scale (issue 7): 1,000 objects, 30 days of history each,
//! in a real sled store — per object the OLT's coverage, the ONU's state changes (two
//! outages a day) and the timeline arithmetic, exactly as `GET /szo/availability` does
//! after binding. Target: under a second for the whole report.

use chrono::{DateTime, Duration, TimeZone, Utc};
use criterion::{criterion_group, criterion_main, Criterion};
use ponkeeper_actors::domain::{DownCause, OnuStateChange, OnuStatus};
use ponkeeper_actors::store::Store;
use ponkeeper_actors::szo;

const OBJECTS: u64 = 1_000;
const OLTS: u32 = 100;
const DAYS: i64 = 30;

fn start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 10, 1, 0, 0, 0)
        .single()
        .expect("time")
}

/// 30 days of polls every five minutes per OLT (with a one-hour service stop on day 10),
/// and two short outages a day per ONU. The report's cost depends on the stretches and
/// changes, not on how many polls made them.
fn fill(store: &Store) {
    let tolerance = std::time::Duration::from_secs(11 * 60);
    for olt in 0..OLTS {
        let mut at = start();
        while at < start() + Duration::days(DAYS) {
            let stopped = at >= start() + Duration::days(10)
                && at < start() + Duration::days(10) + Duration::hours(1);
            if !stopped {
                store
                    .extend_coverage(olt, at, true, tolerance)
                    .expect("coverage");
            }
            at += Duration::minutes(5);
        }
    }
    for onu in 0..OBJECTS {
        let mut changes = vec![(
            onu,
            OnuStateChange {
                at: start(),
                status: OnuStatus::Online,
                cause: None,
            },
        )];
        for day in 0..DAYS {
            for hour in [3, 15] {
                let down = start()
                    + Duration::days(day)
                    + Duration::hours(hour)
                    + Duration::minutes(onu as i64 % 60);
                changes.push((
                    onu,
                    OnuStateChange {
                        at: down,
                        status: OnuStatus::Offline,
                        cause: Some(DownCause::Los),
                    },
                ));
                changes.push((
                    onu,
                    OnuStateChange {
                        at: down + Duration::minutes(7),
                        status: OnuStatus::Online,
                        cause: None,
                    },
                ));
            }
        }
        store.record_state_changes(&changes).expect("changes");
    }
}

fn report(store: &Store) -> u64 {
    let (from, to) = (start(), start() + Duration::days(DAYS));
    let mut down = 0;
    for onu in 0..OBJECTS {
        let olt = (onu % u64::from(OLTS)) as u32;
        let coverage = store.coverage(olt, from, to).expect("coverage");
        let baseline = store.state_before(onu, from).expect("baseline");
        let changes = store.state_changes(onu, from, to).expect("changes");
        let spans = szo::timeline(from, to, &coverage, baseline.as_ref(), &changes);
        down += szo::availability(&spans, to).down_seconds;
    }
    down
}

fn szo_report(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("store");
    fill(&store);
    // 60 outages of 7 minutes per object; the stop (00:00-01:00 on day 10) overlaps none.
    assert_eq!(report(&store), OBJECTS * 60 * 7 * 60);
    let mut group = c.benchmark_group("szo");
    group.sample_size(10);
    group.bench_function("availability_1000_objects_30_days", |b| {
        b.iter(|| report(&store))
    });
    group.finish();
}

criterion_group!(benches, szo_report);
criterion_main!(benches);
