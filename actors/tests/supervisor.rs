//! The supervisor's restart intensity against a simulated OLT: an OLT actor that crashes
//! more than [`MAX_RESTARTS`] times in a row is restarted *stopped* (served from sled,
//! OFFLINE with the reason, no device I/O) until the operator's `restart-session`
//! revives it; one that keeps failing even stopped is given up until the inventory
//! brings it back; shutdown stops every actor and frees the store. Crashes are injected
//! with `OltHandle::crash` (the `test-support` feature).

use ponkeeper_actors::domain::{SessionStatus, Vendor};
use ponkeeper_actors::inventory::{Inventory, OltSpec, SnmpSpec};
use ponkeeper_actors::olt::{ActionError, OltHandle, PollSettings};
use ponkeeper_actors::store::Store;
use ponkeeper_actors::supervisor::{Fleet, MAX_FAILURES, MAX_RESTARTS};
use ponkeeper_sim::{Dynamics, FleetSpec, SimFleet};
use std::sync::Arc;
use std::time::Duration;

fn settings() -> PollSettings {
    PollSettings {
        interval: Duration::from_secs(60),
        timeout: Duration::from_secs(1),
        retries: 0,
        deadline: Duration::from_secs(5),
        offline_after: 3,
        bulk_varbinds: 64,
        concurrency: Arc::new(tokio::sync::Semaphore::new(4)),
        ..PollSettings::default()
    }
}

/// Crashes the current actor of OLT 7 and waits for the registry to change.
async fn crash(fleet: &Fleet) -> Option<OltHandle> {
    let before = fleet.olt(7).expect("running").actor_id();
    fleet.olt(7).expect("running").crash().expect("send");
    for _ in 0..200 {
        tokio::time::sleep(Duration::from_millis(10)).await;
        match fleet.olt(7) {
            Some(handle) if handle.actor_id() != before => return Some(handle),
            _ => {}
        }
    }
    None
}

/// OLT 7 as an enabled OLT of a simulated fleet.
async fn one_simulated_olt() -> (SimFleet, Inventory) {
    let mut spec = FleetSpec::new(1, 4);
    spec.dynamics = Dynamics::none();
    let sim = SimFleet::start(spec).await.expect("simulator");
    let mut inventory = sim.inventory();
    inventory.olts[0].id = 7;
    (sim, inventory)
}

#[tokio::test]
async fn a_crash_loop_stops_the_olt_and_restart_session_revives_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("store");
    let (sim, inventory) = one_simulated_olt().await;
    let fleet = Fleet::start(store, settings(), inventory.clone())
        .await
        .expect("fleet");
    let first = fleet
        .olt(7)
        .expect("running")
        .poll_now()
        .await
        .expect("poll");
    assert_eq!(first.status, SessionStatus::Online);
    assert_eq!(first.total_onu, 4);

    for _ in 0..MAX_RESTARTS {
        let restarted = crash(&fleet).await.expect("restarted");
        let detail = restarted.detail().await.expect("answers after restart");
        assert_ne!(detail.summary.status, SessionStatus::Offline);
        assert_eq!(detail.summary.total_onu, 4, "reloaded from sled");
    }
    // One crash too many within the window: restarted stopped, state kept, reported.
    let stopped = crash(&fleet).await.expect("restarted stopped");
    let detail = stopped.detail().await.expect("a stopped OLT still answers");
    assert_eq!(detail.summary.status, SessionStatus::Offline);
    assert_eq!(detail.summary.total_onu, 4, "its ONUs are still served");
    let error = detail.session.last_error.expect("says why");
    assert!(error.contains("crash loop"), "{error}");
    assert!(error.contains("injected crash of OLT 7"), "{error}");
    // Stopped means no device I/O: a poll is refused with the reason.
    match stopped.poll_now().await {
        Err(ActionError::Unavailable(reason)) => {
            assert!(reason.contains("restart-session"), "{reason}")
        }
        other => panic!("a stopped OLT polled: {other:?}"),
    }
    let polled_at = detail.session.last_poll_at;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let later = stopped.detail().await.expect("detail");
    assert_eq!(
        later.session.last_poll_at, polled_at,
        "no polls while stopped"
    );

    // The operator's restart-session brings it back.
    let revived = stopped.restart_session().await.expect("restart-session");
    assert_eq!(revived.status, SessionStatus::Online);
    assert!(stopped
        .detail()
        .await
        .expect("detail")
        .session
        .last_error
        .is_none());
    fleet.shutdown().await;
    sim.shutdown().await;
}

/// OLT 7, disabled: an actor with no device I/O.
fn one_disabled_olt() -> Inventory {
    Inventory {
        szo: Vec::new(),
        splitters: Vec::new(),
        nodes: vec![],
        olts: vec![OltSpec {
            id: 7,
            ip: [127, 0, 0, 1].into(),
            vendor: Vendor::Huawei.into(),
            model: "MA5800-X7".into(),
            city: "Kazan".into(),
            node: None,
            enabled: false,
            snmp: SnmpSpec::default(),
            ssh: None,
            poll: Default::default(),
        }],
    }
}

#[tokio::test]
async fn shutdown_stops_every_olt_actor() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("store");
    let fleet = Fleet::start(store, settings(), one_disabled_olt())
        .await
        .expect("fleet");
    let handle = fleet.olt(7).expect("running");
    assert!(handle.summary().await.is_ok());
    fleet.shutdown().await;
    assert!(fleet.olt(7).is_none());
    assert_eq!(handle.summary().await, Err(ActionError::Gone(7)));
    // Every store handle is gone with the actors: the directory opens again.
    Store::open(dir.path()).expect("the store is free again");
}

#[tokio::test]
async fn a_stopped_olt_that_keeps_failing_is_given_up_until_the_inventory_returns_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("store");
    let fleet = Fleet::start(store, settings(), one_disabled_olt())
        .await
        .expect("fleet");
    for _ in 0..MAX_FAILURES - 1 {
        crash(&fleet).await.expect("restarted");
    }
    assert!(crash(&fleet).await.is_none(), "given up");
    assert!(fleet.olt(7).is_none());
    // Reloading the inventory starts it again with a fresh budget.
    let report = fleet
        .reconcile(one_disabled_olt())
        .await
        .expect("reconcile");
    assert_eq!(report.added, 1);
    crash(&fleet).await.expect("restarted after the reload");
    fleet.shutdown().await;
}
