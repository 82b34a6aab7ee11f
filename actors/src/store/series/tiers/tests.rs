//! The tiers on a real store: the rollups sealing writes equal a recomputation from the
//! raw points (and stay equal when a late point is sealed in), a day not rolled up yet
//! reads as if it were, each tier is pruned past its own cutoff, and days sealed before
//! rollups existed are rolled up before their raw points go.

use super::*;
use crate::domain::{OpticsLevel, OpticsPoint};
use crate::store::series::rollup::summarise;
use crate::traffic::TrafficPoint;
use chrono::{Duration, TimeZone};

/// Two days before a month ends, so the days span two daily blocks.
fn start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 29, 0, 0, 0)
        .single()
        .expect("time")
}

fn day(n: i64) -> DateTime<Utc> {
    start() + Duration::days(n)
}

fn traffic(at: DateTime<Utc>, i: i64) -> TrafficPoint {
    let rate = |bps: f64| f64::from(bps as f32);
    TrafficPoint {
        at,
        in_bps: (i % 7 != 3).then(|| rate((i * 1_000 + 1) as f64 / 3.0)),
        out_bps: Some(rate(i as f64 * 8_000.5 + (i % 13) as f64 * 1e6)),
    }
}

/// `days` days of 5-minute points of ONUs 7 and 8 (8's twice 7's), as polls write them.
fn write_traffic(store: &Store, days: i64) -> Vec<TrafficPoint> {
    let points: Vec<TrafficPoint> = (0..days * 288)
        .map(|i| traffic(start() + Duration::minutes(5 * i), i))
        .collect();
    for p in &points {
        let double = TrafficPoint {
            in_bps: p.in_bps.map(|v| v * 2.0),
            ..*p
        };
        store.record_test_poll(&[(7, *p), (8, double)]);
    }
    points
}

fn raw(store: &Store, onu: OnuId) -> Vec<TrafficPoint> {
    let mut points = Vec::new();
    store
        .traffic_history(onu, day(-1), day(5), |p| {
            points.push(p);
            true
        })
        .expect("raw");
    points
}

fn rows(store: &Store, onu: OnuId, tier: Tier) -> Vec<Rollup> {
    let mut rows = Vec::new();
    store
        .traffic_rollups(onu, (day(-1), day(5)), tier, |row| {
            rows.push(row.clone());
            true
        })
        .expect("rollups");
    rows
}

fn stored(store: &Store, first: u8, onu: OnuId, day_number: i64) -> bool {
    let day = day_of(day(day_number));
    let key = match first & 0x30 {
        HOURLY => hourly_key(first & 0x0f, onu, day),
        _ => daily_key(first & 0x0f, onu, day),
    };
    store.series.contains_key(key).expect("get")
}

#[test]
fn sealed_rollups_equal_a_recomputation_from_raw_even_after_a_late_point() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("open");
    let points = write_traffic(&store, 3);
    // Days 0 and 1 sealed, day 2 still open: its rows are made as they are read.
    assert_eq!(store.seal_history(day(2)).expect("seal"), 4);
    assert!(stored(&store, HOURLY | 1, 7, 1));
    assert!(!stored(&store, HOURLY | 1, 7, 2));
    assert!(stored(&store, DAILY | 1, 7, 1) && !stored(&store, DAILY | 1, 7, 2));
    for onu in [7, 8] {
        let every = raw(&store, onu);
        assert_eq!(every.len(), points.len());
        assert_eq!(rows(&store, onu, Tier::Hourly), summarise(&every, 3_600));
        assert_eq!(rows(&store, onu, Tier::Daily), summarise(&every, 86_400));
        assert_eq!(rows(&store, onu, Tier::Daily).len(), 3);
    }
    // Late points of day 0 (its first hour and its very last second): read at once,
    // sealed in at the next seal, counted once.
    let last = traffic(day(1) - Duration::seconds(1), 6);
    store.record_test_poll(&[(7, last)]);
    assert_eq!(
        rows(&store, 7, Tier::Hourly),
        summarise(&raw(&store, 7), 3_600)
    );
    assert_eq!(
        rows(&store, 7, Tier::Daily),
        summarise(&raw(&store, 7), 86_400)
    );
    let late = traffic(day(0) + Duration::seconds(1), 5);
    store.record_test_poll(&[(7, late)]);
    let every = raw(&store, 7);
    assert_eq!(every.len(), points.len() + 2);
    assert_eq!(rows(&store, 7, Tier::Hourly), summarise(&every, 3_600));
    assert_eq!(store.seal_history(day(2)).expect("seal"), 1);
    assert_eq!(store.seal_history(day(2)).expect("seal"), 0);
    assert_eq!(rows(&store, 7, Tier::Hourly), summarise(&every, 3_600));
    assert_eq!(rows(&store, 7, Tier::Daily), summarise(&every, 86_400));
    assert_eq!(rows(&store, 7, Tier::Daily)[0].count, 290);
}

#[test]
fn a_period_reads_the_rows_it_overlaps() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("open");
    write_traffic(&store, 2);
    store.seal_history(day(1)).expect("seal");
    let mut hours = Vec::new();
    let (from, to) = (day(0) + Duration::minutes(90), day(1) + Duration::hours(2));
    store
        .traffic_rollups(7, (from, to), Tier::Hourly, |row| {
            hours.push(i64::from(row.start) - day(0).timestamp());
            true
        })
        .expect("rollups");
    // From the hour holding `from` (01:00) to the one starting at `to`, across midnight.
    let expected: Vec<i64> = (1..=26).map(|h| h * 3_600).collect();
    assert_eq!(hours, expected);
}

#[test]
fn each_tier_is_pruned_past_its_own_cutoff() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("open");
    write_traffic(&store, 3);
    store.seal_history(day(3)).expect("seal");
    let every = raw(&store, 7);
    let (hourly, daily) = (summarise(&every, 3_600), summarise(&every, 86_400));
    // Raw before day 2, hourly before day 1: each tier keeps its own days.
    let cutoffs = Cutoffs {
        raw: day(2),
        hourly: day(1),
        daily: DateTime::<Utc>::MIN_UTC,
    };
    // Per ONU: 2 raw blocks and 1 hourly block.
    assert_eq!(store.prune_traffic(cutoffs).expect("prune"), 6);
    assert_eq!(raw(&store, 7), every[2 * 288..]);
    assert_eq!(rows(&store, 7, Tier::Hourly), hourly[24..]);
    assert_eq!(rows(&store, 7, Tier::Daily), daily);
    // Raw and hourly all gone (a daily tier is kept no shorter: its cutoffs are no
    // later), the daily rows are left.
    let only_daily = Cutoffs {
        raw: day(3),
        hourly: day(3),
        daily: DateTime::<Utc>::MIN_UTC,
    };
    assert_eq!(store.prune_traffic(only_daily).expect("prune"), 2 + 4);
    assert!(rows(&store, 7, Tier::Hourly).is_empty());
    assert_eq!(rows(&store, 7, Tier::Daily), daily);
    // Daily before day 1 (November 30): the row of November 29 goes from its month's
    // block; then before day 2 (December 1) the whole November block.
    let daily_before = |n: i64| Cutoffs {
        daily: day(n),
        ..only_daily
    };
    assert_eq!(store.prune_traffic(daily_before(1)).expect("prune"), 2);
    assert_eq!(rows(&store, 7, Tier::Daily), daily[1..]);
    assert!(stored(&store, DAILY | 1, 7, 1));
    assert_eq!(store.prune_traffic(daily_before(2)).expect("prune"), 2);
    assert!(!stored(&store, DAILY | 1, 7, 1));
    assert_eq!(rows(&store, 7, Tier::Daily), daily[2..]);
    assert_eq!(store.prune_traffic(daily_before(2)).expect("prune"), 0);
}

/// Days sealed by a release without rollups, and a day of the `traffic` tree of before
/// the series: their rollups are made from them before they are dropped.
#[test]
fn days_without_rollups_are_rolled_up_before_their_raw_points_go() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("open");
    let old = traffic(day(-1) + Duration::hours(5), 1);
    let mut key = day_of(old.at).to_be_bytes().to_vec();
    key.extend_from_slice(&7u64.to_be_bytes());
    let record = crate::store::traffic::encode_point(&old);
    store.traffic.merge(key, record).expect("merge");
    write_traffic(&store, 2);
    store.seal_history(day(2)).expect("seal");
    for entry in store.series.iter() {
        let (key, _) = entry.expect("entry");
        if key[0] & (HOURLY | DAILY) != 0 {
            store.series.remove(key).expect("remove");
        }
    }
    let every = raw(&store, 7);
    assert_eq!(every[0], old);
    let cutoffs = Cutoffs {
        raw: day(2),
        hourly: DateTime::<Utc>::MIN_UTC,
        daily: DateTime::<Utc>::MIN_UTC,
    };
    // The legacy record, and 2 blocks of each ONU.
    assert_eq!(store.prune_traffic(cutoffs).expect("prune"), 5);
    assert!(raw(&store, 7).is_empty());
    assert_eq!(rows(&store, 7, Tier::Hourly), summarise(&every, 3_600));
    assert_eq!(rows(&store, 7, Tier::Daily), summarise(&every, 86_400));
}

#[test]
fn optics_rollups_equal_a_recomputation_from_raw() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("open");
    let points: Vec<OpticsPoint> = (0..3 * 96)
        .map(|i| OpticsPoint {
            at: start() + Duration::minutes(15 * i),
            rx_power: (i % 5 != 0).then(|| -21.0 - (i % 3) as f64 / 100.0),
            tx_power: Some(2.5),
            olt_rx_power: Some(-18.04 - (i % 40) as f64 / 100.0),
            temperature: Some(41.0 + (i % 2) as f64),
            voltage: Some(3.22),
            bias_current: None,
            level: OpticsLevel::ALL[(i % 4) as usize],
        })
        .collect();
    for p in &points {
        store.record_test_poll(&[(3, *p)]);
    }
    store.seal_history(day(2)).expect("seal");
    // As the store keeps them: readings in hundredths.
    let points = store.optics_history(3, day(0), day(3), 1_000).expect("raw");
    assert_eq!(points.len(), 3 * 96);
    let read = |tier| {
        let mut rows = Vec::new();
        store
            .optics_rollups(3, (day(0), day(3)), tier, |row| {
                rows.push(row.clone());
                true
            })
            .expect("rollups");
        rows
    };
    assert_eq!(read(Tier::Hourly), summarise(&points, 3_600));
    assert_eq!(read(Tier::Daily), summarise(&points, 86_400));
    let cutoffs = Cutoffs {
        raw: day(3),
        hourly: DateTime::<Utc>::MIN_UTC,
        daily: DateTime::<Utc>::MIN_UTC,
    };
    store.seal_history(day(3)).expect("seal");
    assert_eq!(store.prune_optics(cutoffs).expect("prune"), 3);
    assert!(store
        .optics_history(3, day(0), day(3), 10)
        .expect("raw")
        .is_empty());
    assert_eq!(read(Tier::Daily), summarise(&points, 86_400));
}
