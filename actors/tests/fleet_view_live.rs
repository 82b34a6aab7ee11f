//! The fleet view on a live fleet, against the fan-out it replaced: a simulated fleet
//! whose ONUs go down and come back, OLT actors that crash and are restarted, an
//! inventory reload that removes an OLT and brings it back, a session restart. After each
//! step every fleet-wide list the view answers must equal the one assembled by asking
//! every OLT actor, as the API did before the view. Polls run on demand only (a one-hour
//! interval), so nothing moves between the two readings.

use ponkeeper_actors::domain::{OnuStatus, OpticsLevel, SessionStatus};
use ponkeeper_actors::fleet_view::{FleetVlan, OnuSearch, Page, Window};
use ponkeeper_actors::inventory::Inventory;
use ponkeeper_actors::olt::PollSettings;
use ponkeeper_actors::onu_table::{OnuFilter, OnuOrder, OnuQuery};
use ponkeeper_actors::store::Store;
use ponkeeper_actors::supervisor::Fleet;
use ponkeeper_sim::{Dynamics, FleetSpec, FleetVendors, SimFleet};
use std::sync::Arc;
use std::time::Duration;

fn settings() -> PollSettings {
    PollSettings {
        interval: Duration::from_secs(3600),
        timeout: Duration::from_millis(500),
        retries: 0,
        deadline: Duration::from_secs(5),
        concurrency: Arc::new(tokio::sync::Semaphore::new(8)),
        ..PollSettings::default()
    }
}

/// The searches compared: each filter alone and a few together, both orders.
fn searches() -> Vec<(OnuSearch, OnuOrder)> {
    let mut searches = vec![
        OnuSearch::default(),
        OnuSearch {
            status: Some(OnuStatus::Offline),
            ..OnuSearch::default()
        },
        OnuSearch {
            status: Some(OnuStatus::Online),
            olt_id: Some(2),
            ..OnuSearch::default()
        },
        OnuSearch {
            node_id: Some(1),
            ..OnuSearch::default()
        },
        OnuSearch {
            text: Some("a".into()),
            ..OnuSearch::default()
        },
        OnuSearch {
            text: Some("0000".into()),
            ..OnuSearch::default()
        },
        OnuSearch {
            level: Some(OpticsLevel::Ok),
            ..OnuSearch::default()
        },
    ];
    searches.extend(OpticsLevel::ALL.into_iter().map(|level| OnuSearch {
        level: Some(level),
        ..OnuSearch::default()
    }));
    let mut both = Vec::new();
    for search in searches {
        both.push((search.clone(), OnuOrder::Id));
        both.push((search, OnuOrder::WorstRx));
    }
    both
}

/// Asks every OLT actor, as the API did before the fleet view, and compares.
async fn assert_view_matches_fan_out(fleet: &Fleet, step: &str) {
    let handles = fleet.olts();
    let mut summaries = Vec::new();
    for handle in &handles {
        summaries.push(handle.summary().await.expect("summary"));
    }
    let view = fleet.view();
    assert_eq!(
        view.summaries(None).await.expect("view"),
        summaries,
        "{step}"
    );

    let thresholds = settings().thresholds;
    let window = Window {
        offset: 3,
        limit: 50,
    };
    for (search, order) in searches() {
        let query = OnuQuery {
            filter: OnuFilter {
                status: search.status,
                pon_port: search.pon_port.clone(),
                serial: search.serial.clone(),
                text: search.text.clone(),
                level: search.level,
            },
            order,
            limit: window.offset + window.limit,
            thresholds,
        };
        let (mut total, mut merged) = (0, Vec::new());
        for (handle, summary) in handles.iter().zip(&summaries) {
            let in_scope = search.olt_id.is_none_or(|id| id == handle.id)
                && search.node_id.is_none_or(|n| summary.node == Some(n));
            if in_scope {
                let page = handle.find_onus(query.clone()).await.expect("find");
                total += page.total;
                merged.extend(page.onus);
            }
        }
        merged.sort_by(|a, b| order.compare(a, b));
        let expected = Page {
            total,
            items: merged
                .into_iter()
                .skip(window.offset)
                .take(window.limit)
                .collect(),
        };
        let got = view
            .onus(search.clone(), order, window)
            .await
            .expect("view");
        // Nothing is bound here: every row comes without a binding.
        assert!(got.items.iter().all(|row| row.subscriber.is_none()));
        let got = Page {
            total: got.total,
            items: got.items.into_iter().map(|row| row.onu).collect(),
        };
        assert_eq!(got, expected, "{step}: {search:?} {order:?}");
    }

    let mut vlans = Vec::new();
    for handle in &handles {
        for vlan in handle.vlans().await.expect("vlans") {
            vlans.push(FleetVlan {
                olt_id: handle.id,
                vlan_id: vlan.vlan_id,
                name: vlan.name,
                onu_count: vlan.onu_count,
            });
        }
    }
    let got = view.vlans(OnuSearch::default(), None).await.expect("view");
    assert_eq!(got, vlans, "{step}: VLANs");
}

async fn poll_all(fleet: &Fleet) {
    for handle in fleet.olts() {
        handle.poll_now().await.expect("poll");
    }
}

/// Crashes OLT `id`'s actor and waits for its restarted one and the poll it starts at
/// once (a poll-now joins the poll in flight), so nothing moves while views are compared.
async fn crash(fleet: &Fleet, id: u32) {
    let before = fleet.olt(id).expect("running").actor_id();
    fleet.olt(id).expect("running").crash().expect("send");
    for _ in 0..300 {
        tokio::time::sleep(Duration::from_millis(10)).await;
        if let Some(restarted) = fleet.olt(id).filter(|h| h.actor_id() != before) {
            restarted
                .poll_now()
                .await
                .expect("the restarted actor polls");
            return;
        }
    }
    panic!("OLT {id} was not restarted");
}

#[tokio::test]
async fn the_view_answers_as_the_fan_out_through_changes_crashes_and_reloads() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("store");
    let sim = SimFleet::start(FleetSpec {
        dynamics: Dynamics::none(),
        vendors: FleetVendors::Mixed,
        ..FleetSpec::new(4, 12)
    })
    .await
    .expect("simulator");
    let mut inventory: Inventory = sim.inventory();
    for olt in inventory.olts.iter_mut() {
        olt.node = Some(1 + olt.id % 2);
        // No SSH, so no scheduled backup changes VLANs between two readings.
        olt.ssh = None;
    }
    let fleet = Fleet::start(store, settings(), inventory.clone())
        .await
        .expect("fleet");
    poll_all(&fleet).await;
    assert_view_matches_fan_out(&fleet, "after the first polls").await;

    onus_go_down_and_come_back(&fleet, &sim).await;

    // A crashed actor republishes its state, never twice.
    crash(&fleet, 2).await;
    assert_view_matches_fan_out(&fleet, "OLT 2 crashed and restarted").await;
    poll_all(&fleet).await;
    assert_view_matches_fan_out(&fleet, "OLT 2 polled again").await;

    // A reload that drops OLT 3 takes its rows out; bringing it back puts them in.
    let mut without_3 = inventory.clone();
    without_3.olts.retain(|o| o.id != 3);
    fleet.reconcile(without_3).await.expect("reconcile");
    assert_view_matches_fan_out(&fleet, "OLT 3 removed").await;
    let summaries = fleet.view().summaries(None).await.expect("view");
    assert!(summaries.iter().all(|s| s.id != 3));
    fleet.reconcile(inventory).await.expect("reconcile");
    poll_all(&fleet).await;
    assert_view_matches_fan_out(&fleet, "OLT 3 back").await;

    // A session restart moves the OLT through CONNECTING and back.
    let olt = fleet.olt(4).expect("running");
    let summary = olt.restart_session().await.expect("restart");
    assert_eq!(summary.status, SessionStatus::Online);
    assert_view_matches_fan_out(&fleet, "OLT 4 session restarted").await;

    fleet.shutdown().await;
    sim.shutdown().await;
}

/// Three online ONUs of OLT 1 go down, one comes back; the view follows each step.
async fn onus_go_down_and_come_back(fleet: &Fleet, sim: &SimFleet) {
    // ONUs go down and come back.
    let offline = || async {
        let search = OnuSearch {
            status: Some(OnuStatus::Offline),
            ..OnuSearch::default()
        };
        let all = Window {
            offset: 0,
            limit: 1000,
        };
        let page = fleet.view().onus(search, OnuOrder::Id, all).await;
        page.expect("view").total
    };
    let offline_before = offline().await;
    let serials: Vec<String> = sim
        .expected_onus(1)
        .into_iter()
        .filter(|o| o.status == OnuStatus::Online)
        .map(|o| o.serial.into())
        .collect();
    for serial in serials.iter().take(3) {
        assert!(sim.set_onu_online(1, serial, false));
    }
    poll_all(fleet).await;
    assert_eq!(
        offline().await,
        offline_before + 3,
        "the three ONUs taken down"
    );
    assert_view_matches_fan_out(fleet, "three ONUs down").await;
    assert!(sim.set_onu_online(1, &serials[0], true));
    poll_all(fleet).await;
    assert_view_matches_fan_out(fleet, "one ONU back").await;
}
