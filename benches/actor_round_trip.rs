//! Hot path of every API read: a query to an OLT actor answered from memory. Measures
//! `OltHandle::summary` and `OltHandle::detail` against a real actor under the real
//! supervisor (its OLT disabled, so no device traffic competes), and the fan-out the OLT
//! list and node counters do across many actors at once.

use criterion::{criterion_group, criterion_main, Criterion};
use ponkeeper_actors::domain::Vendor;
use ponkeeper_actors::inventory::{Inventory, OltSpec, SnmpSpec};
use ponkeeper_actors::olt::PollSettings;
use ponkeeper_actors::store::Store;
use ponkeeper_actors::supervisor::Fleet;
use std::sync::Arc;
use std::time::Duration;

fn disabled_olts(count: u32) -> Inventory {
    Inventory {
        nodes: vec![],
        szo: vec![],
        splitters: vec![],
        olts: (1..=count)
            .map(|id| OltSpec {
                id,
                ip: [127, 0, 0, 1].into(),
                vendor: Vendor::Huawei.into(),
                model: "MA5800-X7".into(),
                city: "Kazan".into(),
                node: None,
                enabled: false,
                snmp: SnmpSpec {
                    port: 20_000 + id as u16,
                    ..SnmpSpec::default()
                },
                ssh: None,
                poll: Default::default(),
            })
            .collect(),
    }
}

fn actor_round_trip(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let dir = tempfile::tempdir().expect("tempdir");
    let fleet = runtime.block_on(async {
        let store = Store::open(dir.path()).expect("store");
        let settings = PollSettings {
            interval: Duration::from_secs(60),
            timeout: Duration::from_secs(2),
            retries: 1,
            deadline: Duration::from_secs(30),
            offline_after: 3,
            bulk_varbinds: 256,
            concurrency: Arc::new(tokio::sync::Semaphore::new(256)),
            ..PollSettings::default()
        };
        Fleet::start(store, settings, disabled_olts(1000))
            .await
            .expect("fleet")
    });
    let handle = fleet.olt(1).expect("actor");

    c.bench_function("olt_summary_round_trip", |b| {
        b.to_async(&runtime)
            .iter(|| async { handle.summary().await.expect("summary") })
    });
    c.bench_function("olt_detail_round_trip", |b| {
        b.to_async(&runtime)
            .iter(|| async { handle.detail().await.expect("detail") })
    });
    let handles = fleet.olts();
    c.bench_function("summaries_of_1000_actors", |b| {
        b.to_async(&runtime)
            .iter(|| async { futures::future::join_all(handles.iter().map(|h| h.summary())).await })
    });
    runtime.block_on(fleet.shutdown());
}

criterion_group!(benches, actor_round_trip);
criterion_main!(benches);
