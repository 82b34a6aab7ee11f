//! Which resolution and step a period and a step are read at, and reads on a real store
//! across the tiers' boundaries equal the rollups recomputed from every raw point.

use super::*;
use chrono::{Duration, TimeZone};
use ponkeeper_actors::store::series::rollup::summarise;
use ponkeeper_actors::store::series::tiers::Cutoffs;
use ponkeeper_actors::traffic::TrafficPoint;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 20, 12, 0, 0)
        .single()
        .expect("time")
}

fn plan(from: DateTime<Utc>, step: Option<i64>) -> (Resolution, Option<i64>) {
    let plan = Plan::new(&History::default(), now(), from, step);
    (plan.resolution, plan.step)
}

#[test]
fn the_finest_tier_holding_the_period_or_a_coarser_one_the_step_asks_for() {
    let (hour, day) = (3_600, 86_400);
    let days_ago = |n: i64| now() - Duration::days(n);
    // By the period, at the default tiers (7 d, 90 d, 5 y).
    assert_eq!(plan(days_ago(1), None), (Resolution::Raw, None));
    assert_eq!(plan(days_ago(7), None), (Resolution::Raw, None));
    assert_eq!(plan(days_ago(8), None), (Resolution::Hourly, Some(hour)));
    assert_eq!(plan(days_ago(90), None), (Resolution::Hourly, Some(hour)));
    assert_eq!(plan(days_ago(91), None), (Resolution::Daily, Some(day)));
    assert_eq!(plan(days_ago(4000), None), (Resolution::Daily, Some(day)));
    // A step shorter than the tier's rows is a row; one that is not a whole number of
    // rows is rounded up to one.
    assert_eq!(
        plan(days_ago(8), Some(300)),
        (Resolution::Hourly, Some(hour))
    );
    assert_eq!(
        plan(days_ago(8), Some(5_400)),
        (Resolution::Hourly, Some(2 * hour))
    );
    assert_eq!(
        plan(days_ago(91), Some(hour)),
        (Resolution::Daily, Some(day))
    );
    // By the step: raw points bucketed, or rollups for whole hours, and for whole days
    // from a UTC midnight.
    assert_eq!(plan(days_ago(1), Some(300)), (Resolution::Raw, Some(300)));
    assert_eq!(
        plan(days_ago(1), Some(5_400)),
        (Resolution::Raw, Some(5_400))
    );
    assert_eq!(
        plan(days_ago(1), Some(hour)),
        (Resolution::Hourly, Some(hour))
    );
    assert_eq!(
        plan(days_ago(1), Some(day)),
        (Resolution::Hourly, Some(day))
    );
    let midnight = days_ago(1) - Duration::hours(12);
    assert_eq!(plan(midnight, Some(day)), (Resolution::Daily, Some(day)));
    assert_eq!(
        plan(midnight, Some(2 * day)),
        (Resolution::Daily, Some(2 * day))
    );
    // Rollup buckets start with the row holding `from`.
    let from = now() + Duration::minutes(17);
    let hourly = Plan::new(&History::default(), now(), from, Some(hour));
    assert_eq!(hourly.origin(from), now().timestamp());
    let raw = Plan::new(&History::default(), now(), from, Some(300));
    assert_eq!(raw.origin(from), from.timestamp());
}

/// Ten days of 5-minute points of ONU 5 up to `now`, sealed and pruned as housekeeping
/// does with `history`: what was written (as the store keeps it) and the store.
fn ten_days(history: &History) -> (tempfile::TempDir, Store, Vec<TrafficPoint>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("open");
    store.adopt_onu_id(1, "SN5", 5).expect("owner");
    let start = now() - Duration::days(10);
    for i in 0..10 * 288 {
        let point = TrafficPoint {
            at: start + Duration::minutes(5 * i),
            in_bps: Some(f64::from((i * 7_919 % 100_000) as f32)),
            out_bps: (i % 11 != 0).then_some(f64::from((i * 104_729 % 1_000_000) as f32)),
        };
        store.record_traffic(1, &[(5, point)]).expect("record");
    }
    let mut every = Vec::new();
    store
        .read_points::<TrafficPoint>(5, (start, now()), |p| {
            every.push(p);
            true
        })
        .expect("raw");
    store.seal_history(now()).expect("seal");
    let ago = |kept: std::time::Duration| now() - Duration::from_std(kept).expect("days");
    let cutoffs = Cutoffs {
        raw: ago(history.raw_retention),
        hourly: ago(history.hourly_retention),
        daily: ago(history.daily_retention),
    };
    store.prune_traffic(cutoffs).expect("prune");
    (dir, store, every)
}

/// The summaries a tier of `period` gives of `every` raw point, for `[from, now]`.
fn recomputed(
    every: &[TrafficPoint],
    period: u32,
    from: DateTime<Utc>,
) -> Vec<Summary<TrafficPoint>> {
    summarise(every, period)
        .iter()
        .filter(|row| i64::from(row.start + period) > from.timestamp())
        .map(Summary::of)
        .collect()
}

#[test]
fn a_period_across_the_raw_and_hourly_tiers_reads_hourly_rows_of_every_point() {
    let history = History::default();
    let (_dir, store, every) = ten_days(&history);
    // Raw points of the first three days are gone, but their hourly rows are there;
    // the last day's rows are made from its open points.
    let from = now() - Duration::days(9) - Duration::minutes(20);
    let plan = Plan::new(&history, now(), from, None);
    assert_eq!(plan.resolution, Resolution::Hourly);
    let got = read::<TrafficPoint>(&store, 5, (from, now()), (plan, plan.origin(from)), 10_000)
        .expect("read");
    assert_eq!(got.len(), 9 * 24 + 1);
    assert_eq!(got, recomputed(&every, 3_600, from));
    // Within raw retention a point is as stored.
    let recent = now() - Duration::days(2);
    let plan = Plan::new(&history, now(), recent, None);
    let got = read::<TrafficPoint>(&store, 5, (recent, now()), (plan, 0), 10_000).expect("read");
    let stored: Vec<_> = every
        .iter()
        .filter(|p| p.at >= recent)
        .copied()
        .map(Summary::stored)
        .collect();
    assert_eq!(got, stored);
}

#[test]
fn a_period_past_the_hourly_tier_reads_daily_rows_of_every_point() {
    let history = History {
        raw_retention: std::time::Duration::from_secs(86_400),
        hourly_retention: std::time::Duration::from_secs(3 * 86_400),
        ..History::default()
    };
    let (_dir, store, every) = ten_days(&history);
    let from = now() - Duration::days(9);
    let plan = Plan::new(&history, now(), from, None);
    assert_eq!(plan.resolution, Resolution::Daily);
    let got = read::<TrafficPoint>(&store, 5, (from, now()), (plan, plan.origin(from)), 100)
        .expect("read");
    assert_eq!(got, recomputed(&every, 86_400, from));
    // Two days a bucket: the mean of two rows weighted by their counts, and their extremes.
    let plan = Plan::new(&history, now(), from, Some(2 * 86_400));
    let got = read::<TrafficPoint>(&store, 5, (from, now()), (plan, plan.origin(from)), 100)
        .expect("read");
    let days = recomputed(&every, 86_400, from);
    assert_eq!(got.len(), days.len().div_ceil(2));
    let (first, second) = (&days[0], &days[1]);
    let mean = |s: &Summary<TrafficPoint>| s.point.in_bps.expect("in") * f64::from(s.count);
    let expected = (mean(first) + mean(second)) / f64::from(first.count + second.count);
    assert_eq!(got[0].point.in_bps, Some(expected));
    let least = |s: &Summary<TrafficPoint>| s.min.expect("min").in_bps.expect("in");
    assert_eq!(
        got[0].min.expect("min").in_bps,
        Some(least(first).min(least(second)))
    );
    assert_eq!(got[0].count, first.count + second.count);
}

/// Between cluster members a point travels as a summary; a member of before the tiers
/// answers bare points, read as points as stored.
#[test]
fn a_bare_point_of_an_older_member_reads_as_a_point_as_stored() {
    let point = TrafficPoint {
        at: now(),
        in_bps: Some(1_000.0),
        out_bps: None,
    };
    let bare = serde_json::to_string(&point).expect("json");
    let read: Summary<TrafficPoint> = serde_json::from_str(&bare).expect("a summary");
    assert_eq!(read, Summary::stored(point));
    let rows = summarise(
        &[
            point,
            TrafficPoint {
                at: now() + Duration::minutes(5),
                ..point
            },
        ],
        3_600,
    );
    let summary = Summary::<TrafficPoint>::of(&rows[0]);
    let wire = serde_json::to_string(&summary).expect("json");
    assert_eq!(
        serde_json::from_str::<Summary<TrafficPoint>>(&wire).expect("back"),
        summary
    );
}
