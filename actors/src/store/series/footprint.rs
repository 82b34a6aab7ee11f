//! H1 of issue 53, measured: the bytes on disk a raw traffic point takes, a simulated
//! stretch of 5-minute reads of realistic rates ([`super::realistic::realistic_rates`])
//! for a sample of ONUs written through the real store, once the way the store wrote
//! before the series (a merge a point into the day's record, `before`) and once through
//! [`Store::record_traffic`] with housekeeping's seal at each midnight (`series`). Two
//! figures each: `du` of the data directory as sled leaves it after a flush, and
//! compacted (every tree copied into a fresh database, as a snapshot restore does).
//! `PONKEEPER_H1_ONUS=1000 PONKEEPER_H1_DAYS=7 cargo test -p ponkeeper-actors --release
//! history_bytes_a_point -- --ignored --nocapture`

use super::measure;
use super::realistic::realistic_rates;
use crate::domain::OnuId;
use crate::store::optics::day_of;
use crate::store::traffic::encode_point;
use crate::store::Store;
use crate::traffic::TrafficPoint;
use chrono::{DateTime, Duration, TimeZone, Utc};
use std::path::Path;

/// `du` of a fresh database holding every tree of `store` ([`Store::compacted`]).
fn compacted(store: &Store) -> u64 {
    let dir = tempfile::tempdir().expect("tempdir");
    store.compacted(dir.path(), |_, _| true).expect("compacted")
}

fn du(dir: &Path) -> u64 {
    measure::du(dir).expect("du")
}

fn logical(store: &Store) -> u64 {
    store.logical().expect("logical")
}

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[derive(Clone, Copy, Debug)]
enum Writer {
    /// The previous release's write path: one merge a point into its day's record.
    Before,
    /// [`Store::record_traffic`], a batch a read, sealed at each midnight.
    Series,
}

fn write(store: &Store, writer: Writer, rates: &[(Vec<f32>, Vec<f32>)], start: DateTime<Utc>) {
    let reads = rates.first().map_or(0, |r| r.0.len());
    for read in 0..reads {
        let at = start + Duration::minutes(5 * read as i64);
        if read > 0 && read % 288 == 0 {
            if let Writer::Series = writer {
                store.seal_history(at).expect("seal");
            }
        }
        let points: Vec<(OnuId, TrafficPoint)> = rates
            .iter()
            .enumerate()
            .map(|(i, (inbound, outbound))| {
                let point = TrafficPoint {
                    at,
                    in_bps: Some(f64::from(inbound[read])),
                    out_bps: Some(f64::from(outbound[read])),
                };
                (i as OnuId + 1, point)
            })
            .collect();
        match writer {
            Writer::Before => {
                for (onu, point) in &points {
                    let mut key = day_of(point.at).to_be_bytes().to_vec();
                    key.extend_from_slice(&onu.to_be_bytes());
                    store
                        .traffic
                        .merge(key, encode_point(point))
                        .expect("merge");
                }
            }
            Writer::Series => store.write_poll(1, &points).expect("record"),
        }
    }
}

#[test]
#[ignore = "a measurement, minutes: run by hand"]
fn history_bytes_a_point() {
    let (onus, days) = (
        setting("PONKEEPER_H1_ONUS", 1_000),
        setting("PONKEEPER_H1_DAYS", 7),
    );
    let reads = (days * 288) as usize;
    let rates: Vec<(Vec<f32>, Vec<f32>)> = (1..=onus)
        .map(|onu| {
            let inbound = realistic_rates(onu, reads)
                .iter()
                .map(|r| r / 8.0)
                .collect();
            (inbound, realistic_rates(onu + 1_000_000, reads))
        })
        .collect();
    let start = Utc
        .with_ymd_and_hms(2026, 11, 1, 0, 0, 0)
        .single()
        .expect("time");
    let points = onus * reads as u64;
    let empty = {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        store.db.flush().expect("flush");
        compacted(&store)
    };
    println!("an empty store, compacted: {empty} B (left out of the figures below)");
    for writer in [Writer::Before, Writer::Series] {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        write(&store, writer, &rates, start);
        let per = |bytes: u64| bytes.saturating_sub(empty) as f64 / points as f64;
        store.db.flush().expect("flush");
        let (raw, packed, kept) = (du(dir.path()), compacted(&store), logical(&store));
        println!(
            "{writer:?}: {onus} ONUs × {days} d = {points} points, last day open: du {raw} B ({:.2} B a point), compacted {packed} B ({:.2} B a point), keys and values {kept} B ({:.2} B a point)",
            per(raw),
            per(packed),
            kept as f64 / points as f64
        );
        if let Writer::Series = writer {
            let end = start + Duration::days(days as i64);
            store.seal_history(end).expect("seal");
            store.db.flush().expect("flush");
            let (raw, packed, kept) = (du(dir.path()), compacted(&store), logical(&store));
            println!(
                "{writer:?}: every day sealed: du {raw} B ({:.2} B a point), compacted {packed} B ({:.2} B a point), keys and values {kept} B ({:.2} B a point)",
                per(raw),
                per(packed),
                kept as f64 / points as f64
            );
        }
    }
}

/// Bytes of a day's raw block, a day's hourly block and a month's daily block (values and
/// keys of 13 bytes), mean over 200 ONUs' 31 days of realistic 5-minute rates and
/// 15-minute optics: the figures of docs/operations.md, "History". `cargo test -p
/// ponkeeper-actors rollup_blocks_on -- --nocapture`
#[test]
fn rollup_blocks_on_realistic_series() {
    use super::realistic::realistic_rx;
    use super::rollup::{summarise, to_block};
    use super::Sample;
    use crate::domain::{OpticsLevel, OpticsPoint};
    const KEY: usize = 13;
    let (onus, days) = (200u64, 31usize);
    let start = Utc
        .with_ymd_and_hms(2026, 12, 1, 0, 0, 0)
        .single()
        .expect("time");
    // Bytes of raw, hourly and daily blocks of traffic, then of optics.
    let mut bytes = [0usize; 6];
    for onu in 1..=onus {
        let (inbound, outbound) = (
            realistic_rates(onu, 288 * days),
            realistic_rates(onu + 1_000_000, 288 * days),
        );
        let traffic: Vec<TrafficPoint> = (0..288 * days)
            .map(|i| TrafficPoint {
                at: start + Duration::minutes(5 * i as i64),
                in_bps: Some(f64::from(inbound[i] / 8.0)),
                out_bps: Some(f64::from(outbound[i])),
            })
            .collect();
        let rx = realistic_rx(onu, 96 * days);
        let optics: Vec<OpticsPoint> = (0..96 * days)
            .map(|i| OpticsPoint {
                at: start + Duration::minutes(15 * i as i64),
                rx_power: Some(f64::from(rx[i]) / 100.0),
                tx_power: Some(2.31),
                olt_rx_power: Some(f64::from(rx[i] + 250) / 100.0),
                temperature: Some(41.0 + (i % 96 / 24) as f64),
                voltage: Some(3.28),
                bias_current: Some(12.5),
                level: OpticsLevel::Ok,
            })
            .collect();
        for day in traffic.chunks(288) {
            bytes[0] += KEY + TrafficPoint::to_block(day).len();
            bytes[1] += KEY + to_block(&summarise(day, 3_600), 2, TrafficPoint::CODEC).len();
        }
        bytes[2] += KEY + to_block(&summarise(&traffic, 86_400), 2, TrafficPoint::CODEC).len();
        for day in optics.chunks(96) {
            bytes[3] += KEY + OpticsPoint::to_block(day).len();
            bytes[4] += KEY + to_block(&summarise(day, 3_600), 7, OpticsPoint::CODEC).len();
        }
        bytes[5] += KEY + to_block(&summarise(&optics, 86_400), 7, OpticsPoint::CODEC).len();
    }
    let per_day = |b: usize| b as f64 / (onus as usize * days) as f64;
    let per_month = |b: usize| b as f64 / onus as f64;
    println!(
        "traffic: raw {:.0} B a day, hourly {:.0} B a day, daily {:.0} B a month",
        per_day(bytes[0]),
        per_day(bytes[1]),
        per_month(bytes[2])
    );
    println!(
        "optics: raw {:.0} B a day, hourly {:.0} B a day, daily {:.0} B a month",
        per_day(bytes[3]),
        per_day(bytes[4]),
        per_month(bytes[5])
    );
    // What the tiers rest on: a day of hourly rows costs a fraction of the day's points,
    // and a month of daily rows a fraction of a day of hourly ones times 31.
    assert!(per_day(bytes[1]) < per_day(bytes[0]));
    assert!(per_month(bytes[2]) < per_day(bytes[1]) * 31.0 / 10.0);
}
