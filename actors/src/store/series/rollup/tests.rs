//! Rollups against a plain recomputation (any points), their blocks round-trip and never
//! panic on garbage, and buckets combine rows as a mean weighted by count.

use super::*;
use crate::domain::{OpticsLevel, OpticsPoint};
use crate::traffic::TrafficPoint;
use chrono::DateTime;
use proptest::prelude::*;

fn at(seconds: u32) -> DateTime<chrono::Utc> {
    DateTime::from_timestamp(i64::from(seconds), 0).expect("time")
}

/// A point's rates as the store keeps them (f32), absent for a NaN.
fn rate(bits: u32) -> Option<f64> {
    let value = f32::from_bits(bits);
    (value.is_finite()).then_some(f64::from(value))
}

fn traffic_points(
    seconds: &std::collections::BTreeSet<u32>,
    rates: &[(u32, u32)],
) -> Vec<TrafficPoint> {
    seconds
        .iter()
        .zip(rates)
        .map(|(&s, &(i, o))| TrafficPoint {
            at: at(s),
            in_bps: rate(i),
            out_bps: rate(o),
        })
        .collect()
}

/// The stat of `values` as a reader would compute it by hand.
fn by_hand(values: &[f64], codec: Codec) -> Stat {
    if values.is_empty() {
        return Stat::default();
    }
    let sum: f64 = values.iter().sum();
    Stat {
        count: values.len() as u32,
        min: values.iter().copied().fold(f64::INFINITY, f64::min),
        avg: codec.stored(sum / values.len() as f64),
        max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    }
}

proptest! {
    /// Each hourly row holds exactly the points of its hour, and each value's stat is
    /// what a plain count, minimum, mean and maximum of them give.
    #[test]
    fn rows_equal_a_recomputation_by_hand(
        seconds in proptest::collection::btree_set(1_800_000_000u32..1_800_259_200, 0..300),
        rates in proptest::collection::vec((0u32..0x4f00_0000, any::<u32>()), 300),
    ) {
        let points = traffic_points(&seconds, &rates);
        let rows = summarise(&points, 3_600);
        let mut hours: Vec<u32> = points.iter().map(|p| p.seconds() / 3_600 * 3_600).collect();
        hours.dedup();
        prop_assert_eq!(rows.iter().map(|r| r.start).collect::<Vec<_>>(), hours);
        for row in &rows {
            let of_hour: Vec<&TrafficPoint> = points
                .iter()
                .filter(|p| p.seconds() / 3_600 * 3_600 == row.start)
                .collect();
            prop_assert_eq!(row.count as usize, of_hour.len());
            let inbound: Vec<f64> = of_hour.iter().filter_map(|p| p.in_bps).collect();
            let outbound: Vec<f64> = of_hour.iter().filter_map(|p| p.out_bps).collect();
            prop_assert_eq!(row.stats[0], by_hand(&inbound, Codec::Float));
            prop_assert_eq!(row.stats[1], by_hand(&outbound, Codec::Float));
        }
    }

    /// A block keeps every row as it was computed, for both codecs.
    #[test]
    fn rows_round_trip_through_a_block(
        seconds in proptest::collection::btree_set(1_800_000_000u32..1_802_592_000, 0..300),
        rates in proptest::collection::vec((any::<u32>(), any::<u32>()), 300),
        readings in proptest::collection::vec((-4_000i16..1_000, 0u8..4), 300),
    ) {
        let traffic = traffic_points(&seconds, &rates);
        for period in [3_600, 86_400] {
            let rows = summarise(&traffic, period);
            let block = to_block(&rows, 2, Codec::Float);
            prop_assert_eq!(from_block(&block, 2, Codec::Float), Some(rows));
        }
        let optics: Vec<OpticsPoint> = seconds
            .iter()
            .zip(&readings)
            .map(|(&s, &(centi, level))| optics_point(s, centi, level))
            .collect();
        for period in [3_600, 86_400] {
            let rows = summarise(&optics, period);
            let block = to_block(&rows, 7, Codec::Centi);
            prop_assert_eq!(from_block(&block, 7, Codec::Centi), Some(rows));
        }
    }

    #[test]
    fn garbage_rollup_blocks_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        for values in [0, 2, 7] {
            let _ = from_block(&bytes, values, Codec::Float);
            let _ = from_block(&bytes, values, Codec::Centi);
        }
    }
}

fn optics_point(seconds: u32, centi: i16, level: u8) -> OpticsPoint {
    let reading = |offset: i16| Some(f64::from(centi.saturating_add(offset)) / 100.0);
    OpticsPoint {
        at: at(seconds),
        rx_power: (level != 3).then(|| f64::from(centi) / 100.0),
        tx_power: reading(2_300),
        olt_rx_power: reading(-100),
        temperature: None,
        voltage: Some(3.3),
        bias_current: reading(4_000),
        level: OpticsLevel::ALL[usize::from(level)],
    }
}

#[test]
fn an_optics_row_keeps_the_worst_level_and_means_in_hundredths() {
    let points = [
        optics_point(1_800_000_000, -2_137, 0),
        optics_point(1_800_000_900, -2_140, 1),
        optics_point(1_800_001_800, -2_141, 3),
    ];
    let levels: Vec<OpticsLevel> = points.iter().map(|p| p.level).collect();
    let rows = summarise(&points, 3_600);
    assert_eq!(rows.len(), 1);
    let mean = OpticsPoint::from_stats(at(rows[0].start), &rows[0].stats, Pick::Avg);
    let worst = levels
        .iter()
        .copied()
        .filter(|l| *l != OpticsLevel::Unknown)
        .max_by_key(|l| OpticsLevel::ALL.iter().position(|x| x == l))
        .expect("a level");
    assert_eq!(mean.level, worst);
    // (-21.37 - 21.40) / 2 = -21.385, kept in hundredths; the third point had no Rx.
    assert_eq!(rows[0].stats[0].count, 2);
    assert_eq!(mean.rx_power, Some(Codec::Centi.stored(-21.385)));
    assert_eq!(mean.temperature, None);
    let least = OpticsPoint::from_stats(at(rows[0].start), &rows[0].stats, Pick::Min);
    assert_eq!(least.rx_power, Some(-21.40));
    assert_eq!(least.level, OpticsLevel::Ok);
}

fn row(start: u32, count: u32, stat: (u32, f64, f64, f64)) -> Rollup {
    Rollup {
        start,
        count,
        stats: vec![Stat {
            count: stat.0,
            min: stat.1,
            avg: stat.2,
            max: stat.3,
        }],
    }
}

#[test]
fn buckets_weigh_means_by_count_and_keep_the_extremes() {
    let from = 1_800_000_000;
    let mut buckets = Buckets::new(i64::from(from), 7_200, 10, 1);
    for r in [
        row(from, 12, (12, 1.0, 10.0, 40.0)),
        row(from + 3_600, 4, (4, 5.0, 30.0, 90.0)),
        row(from + 7_200, 12, (0, 0.0, 0.0, 0.0)),
        // Nothing in the third bucket: none answered for it.
        row(from + 21_600, 1, (1, 7.0, 7.0, 7.0)),
    ] {
        assert!(buckets.push(&r));
    }
    let got = buckets.finish();
    assert_eq!(
        got,
        [
            row(from, 16, (16, 1.0, 15.0, 90.0)),
            Rollup {
                start: from + 7_200,
                count: 12,
                stats: vec![Stat::default()],
            },
            row(from + 21_600, 1, (1, 7.0, 7.0, 7.0)),
        ]
    );
}

#[test]
fn the_limit_counts_complete_buckets_and_stops_the_read() {
    let from = 1_800_000_000;
    let point = |minutes: u32, value: f64| TrafficPoint {
        at: at(from + minutes * 60),
        in_bps: Some(value),
        out_bps: None,
    };
    let mut buckets = Buckets::new(i64::from(from), 600, 2, 2);
    assert!(buckets.push(&Rollup::of_point(&point(1, 1.0))));
    assert!(buckets.push(&Rollup::of_point(&point(11, 2.0))));
    assert!(buckets.push(&Rollup::of_point(&point(12, 4.0))));
    // The third bucket's first point closes the second: the limit is reached.
    assert!(!buckets.push(&Rollup::of_point(&point(21, 8.0))));
    let got = buckets.finish();
    let means: Vec<(u32, Option<f64>, Option<f64>)> = got
        .iter()
        .map(|r| {
            (
                r.start,
                r.stats[0].get(Pick::Avg),
                r.stats[1].get(Pick::Avg),
            )
        })
        .collect();
    assert_eq!(
        means,
        [(from, Some(1.0), None), (from + 600, Some(3.0), None)]
    );
    // A row dated before the origin goes to a bucket dated before it, not to the first.
    let mut early = Buckets::new(i64::from(from), 600, 5, 2);
    early.push(&Rollup::of_point(&TrafficPoint {
        at: at(from - 1),
        in_bps: Some(1.0),
        out_bps: None,
    }));
    assert_eq!(early.finish()[0].start, from - 600);
}
