//! What one fleet-wide question costs the fleet view, and what a steady poll's publish
//! costs it, on the reference workload (1,000 OLTs × 128 ONUs = 128,000 ONU rows in the
//! view): a page of 100 OLTs, node counters, ONU search by serial fragment, by
//! description word and by status, the optics worst-first page, and folding one OLT's
//! steady-poll update in. These are the view actor's own times per message; the API's
//! figures (A2–A4) add HTTP, auth, audit and JSON around them.

use chrono::{Duration as Age, Utc};
use criterion::{criterion_group, criterion_main, Criterion};
use ponkeeper_actors::domain::{Onu, OnuStatus, OpticsThresholds};
use ponkeeper_actors::fleet_view::{
    diff_onus, FleetAggregate, FleetChange, OltFilter, OltUpdate, OnuSearch, Window,
};
use ponkeeper_actors::onu_table::OnuOrder;

#[path = "common/fleet_rows.rs"]
mod fleet_rows;
use fleet_rows::{onus_of, summary};

const OLTS: u32 = 1000;

fn update(olt: u32, at: chrono::DateTime<Utc>, old: &[Onu], snapshot: bool) -> FleetChange {
    let onus = onus_of(olt, at);
    let changes = if snapshot {
        diff_onus(&[], None, &onus, Some(at))
    } else {
        diff_onus(old, Some(at - Age::seconds(60)), &onus, Some(at))
    };
    FleetChange::Olt(Box::new(OltUpdate {
        olt,
        incarnation: 1,
        snapshot,
        summary: summary(olt, &onus, at),
        ports: snapshot.then(Vec::new),
        vlans: snapshot.then(|| vec![(100, "internet".into())]),
        polled_at: Some(at),
        onus: changes,
        table: std::sync::Arc::new(onus),
    }))
}

fn fleet_view(c: &mut Criterion) {
    let thresholds = OpticsThresholds {
        warning_dbm: -25.0,
        critical_dbm: -27.0,
    };
    let mut view = FleetAggregate::new(thresholds);
    let at = Utc::now();
    for olt in 1..=OLTS {
        view.apply(update(olt, at, &[], true));
    }
    let page = Window {
        offset: 0,
        limit: 100,
    };
    c.bench_function("fleet_view/olts_page_of_100", |b| {
        b.iter(|| view.olts(&OltFilter::default(), page))
    });
    let nodes: Vec<u32> = (1..=50).collect();
    c.bench_function("fleet_view/node_counters_of_50", |b| {
        b.iter(|| view.node_counters(&nodes))
    });
    let by_serial = OnuSearch {
        text: Some("0007a1".into()),
        ..OnuSearch::default()
    };
    c.bench_function("fleet_view/onus_q_serial_fragment", |b| {
        b.iter(|| view.onus(&by_serial, OnuOrder::Id, page))
    });
    let by_word = OnuSearch {
        text: Some("lenina 3".into()),
        ..OnuSearch::default()
    };
    c.bench_function("fleet_view/onus_q_description_35000_hits", |b| {
        b.iter(|| view.onus(&by_word, OnuOrder::Id, page))
    });
    let offline = OnuSearch {
        status: Some(OnuStatus::Offline),
        ..OnuSearch::default()
    };
    c.bench_function("fleet_view/onus_offline_page", |b| {
        b.iter(|| view.onus(&offline, OnuOrder::Id, page))
    });
    c.bench_function("fleet_view/optics_worst_page", |b| {
        b.iter(|| view.onus(&OnuSearch::default(), OnuOrder::WorstRx, page))
    });
    let old = onus_of(7, at);
    let later = at + Age::seconds(60);
    c.bench_function("fleet_view/publish_and_apply_steady_poll_of_one_olt", |b| {
        b.iter(|| view.apply(update(7, later, &old, false)))
    });
}

criterion_group!(benches, fleet_view);
criterion_main!(benches);
