//! What an OLT actor does with a good poll of 128 ONUs, apart from the SNMP exchange:
//! merging the readings into its [`OnuTable`] (the steady state: every ONU known, nothing
//! changed but the time), and writing the result to sled — a table that changed (binary
//! ONU table, OLT record, coverage) and one that did not (poll statistics and coverage
//! only). The JSON encoding the ONU table used before is measured beside the binary one.

use chrono::{DateTime, Utc};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use ponkeeper_actors::domain::Reading;
use ponkeeper_actors::domain::{DownCause, Onu, OnuStatus, OpticsThresholds, SessionStatus};
use ponkeeper_actors::onu_table::OnuTable;
use ponkeeper_actors::poller::PolledOnu;
use ponkeeper_actors::store::onu_table_encoding;
use ponkeeper_actors::store::{OltRecord, Store, SystemInfo};
use std::time::Duration;

const ONUS: u32 = 128;
const THRESHOLDS: OpticsThresholds = OpticsThresholds {
    warning_dbm: -25.0,
    critical_dbm: -27.0,
};

fn readings() -> Vec<PolledOnu> {
    (0..ONUS)
        .map(|i| PolledOnu {
            pon_port: format!("0/{}/{}", 1 + i / 64, (i / 8) % 8).into(),
            onu_index: i % 8,
            serial: format!("HWTC{:08X}", 0x1A2B_0000 + i).into(),
            description: format!("ул. Баумана, д. {}, кв. {}", i / 4, i).into(),
            status: if i % 10 == 0 {
                OnuStatus::Offline
            } else {
                OnuStatus::Online
            },
            last_down_cause: (i % 10 == 0).then_some(DownCause::DyingGasp),
            distance: Some(800 + i * 13),
            rx_power: Some(-18.0 - f64::from(i % 90) / 10.0).into(),
            tx_power: Some(2.31).into(),
            olt_rx_power: Some(-21.5).into(),
            temperature: Reading::NONE,
            voltage: Reading::NONE,
            bias_current: Reading::NONE,
            optics_read: true,
        })
        .collect()
}

fn at(seconds: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(1_800_000_000 + seconds, 0).expect("time")
}

/// A table that has merged one poll of [`readings`].
fn polled_table() -> OnuTable {
    let mut table = OnuTable::default();
    let mut next = 0;
    table.merge(
        1,
        readings(),
        at(0),
        &THRESHOLDS,
        Duration::from_secs(900),
        |_| {
            next += 1;
            Some(next)
        },
    );
    table
}

fn record(onus: &[Onu]) -> OltRecord {
    OltRecord {
        id: 1,
        status: SessionStatus::Online,
        since: at(0),
        last_poll_at: Some(at(60)),
        last_poll_ms: Some(42),
        last_poll_varbinds: 1100,
        last_success_at: Some(at(60)),
        detected_vendor: None,
        detected_family: None,
        last_error: None,
        failures_in_row: 0,
        system: SystemInfo {
            sys_name: Some("olt-kazan-1".into()),
            sys_descr: Some("Huawei Integrated Access Software MA5800-X7".into()),
            uptime_seconds: Some(86_400),
            firmware: Some("V100R019C10".into()),
        },
        ports: (0..16)
            .map(|p| ponkeeper_actors::domain::PonPortStats {
                name: format!("0/{}/{}", 1 + p / 8, p % 8),
                onu_total: onus.len() as u32 / 16,
                onu_online: onus.len() as u32 / 16,
            })
            .collect(),
        transitions: Vec::new(),
        vlans: vec![(100, "internet".into()), (200, "iptv".into())],
        warnings: Vec::new(),
    }
}

fn onu_table_update(c: &mut Criterion) {
    let table = polled_table();
    let mut group = c.benchmark_group("onu_table");
    let mut seconds = 0;
    group.bench_function("merge_128_onus_unchanged", |b| {
        let mut table = polled_table();
        b.iter_batched(
            readings,
            |polled| {
                seconds += 60;
                table.merge(
                    1,
                    polled,
                    at(seconds),
                    &THRESHOLDS,
                    Duration::from_secs(900),
                    |_| None,
                )
            },
            BatchSize::SmallInput,
        )
    });
    let onus = table.all();
    group.bench_function("encode_128_onus_binary", |b| {
        b.iter(|| onu_table_encoding::encode(&onus, Some(at(0))))
    });
    group.bench_function("encode_128_onus_json_as_before", |b| {
        b.iter(|| serde_json::to_vec(onus.as_slice()).expect("json"))
    });
    group.finish();
}

fn sled_write(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("store");
    let table = polled_table();
    let onus = table.all();
    let mut olt = record(&onus);
    let mut group = c.benchmark_group("sled_write_of_a_poll");
    let mut seconds = 60;
    group.bench_function("changed_128_onus", |b| {
        b.iter(|| {
            seconds += 60;
            olt.last_poll_at = Some(at(seconds));
            store.save_onus(1, &onus, Some(at(0))).expect("onus");
            store.save_olt(&olt).expect("olt");
            store
                .extend_coverage(1, at(seconds), true, Duration::from_secs(150))
                .expect("coverage");
        })
    });
    group.bench_function("unchanged", |b| {
        b.iter(|| {
            seconds += 60;
            olt.last_poll_at = Some(at(seconds));
            store.save_poll_stats(&olt).expect("stats");
            store
                .extend_coverage(1, at(seconds), true, Duration::from_secs(150))
                .expect("coverage");
        })
    });
    group.finish();
}

criterion_group!(benches, onu_table_update, sled_write);
criterion_main!(benches);
