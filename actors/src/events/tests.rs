//! Event derivation against a real fleet aggregate, and the log against a real sled
//! store: each down is its `ONU_DOWN` with its cause (the outage book, tested in
//! `outages/tests.rs` on these same helpers, groups them), ids are gapless across a
//! reopen, СЗО events follow their ONU's, retention drops the oldest.

use super::*;
use crate::domain::Reading;
use crate::domain::{DownCause, Onu, OnuStatus, OpticsThresholds, SessionStatus, Vendor};
use crate::fleet_view::{FleetAggregate, FleetChange, OltUpdate, OnuChange};
use crate::olt::OltSummary;
use crate::store::Store;
use chrono::{DateTime, TimeZone, Utc};

pub(crate) fn time(second: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 23, 10, 0, 0)
        .single()
        .expect("a valid time")
        + chrono::Duration::seconds(second)
}

pub(crate) fn onu(id: u64, port: &str, at: DateTime<Utc>) -> Onu {
    Onu {
        id,
        olt_id: 7,
        pon_port: port.into(),
        onu_index: id as u32,
        serial: format!("HWTC{id:08X}").into(),
        description: Default::default(),
        status: OnuStatus::Online,
        last_down_cause: None,
        distance: Some(1000),
        rx_power: Some(-20.0).into(),
        tx_power: Some(2.0).into(),
        olt_rx_power: Reading::NONE,
        temperature: Reading::NONE,
        voltage: Reading::NONE,
        bias_current: Reading::NONE,
        vlan: None,
        last_update: at,
        optics_at: None,
    }
}

pub(crate) fn summary(status: SessionStatus, at: DateTime<Utc>) -> OltSummary {
    OltSummary {
        id: 7,
        ip: std::net::IpAddr::from([127, 0, 0, 7]),
        vendor: Some(Vendor::Huawei),
        family: Some("MA5800"),
        model: "MA5800".into(),
        city: "Kazan".into(),
        node: Some(3),
        status,
        status_since: at,
        total_ports: 2,
        total_onu: 8,
        onu_online: 8,
        last_update: at,
    }
}

/// OLT 7's update at `at`: rows `changed` upserted into the table `view` holds of it (a
/// snapshot: the table is `changed`).
pub(crate) fn update(
    view: &FleetAggregate,
    snapshot: bool,
    status: SessionStatus,
    at: DateTime<Utc>,
    changed: Vec<Onu>,
) -> FleetChange {
    let mut table: Vec<Onu> = match snapshot {
        true => Vec::new(),
        false => view.held_table(7).to_vec(),
    };
    let ids: Vec<OnuChange> = changed.iter().map(|o| OnuChange::Upsert(o.id)).collect();
    for onu in changed {
        match table.binary_search_by_key(&onu.id, |o| o.id) {
            Ok(at) => table[at] = onu,
            Err(at) => table.insert(at, onu),
        }
    }
    FleetChange::Olt(Box::new(OltUpdate {
        olt: 7,
        incarnation: 1,
        snapshot,
        summary: summary(status, at),
        ports: None,
        vlans: None,
        polled_at: Some(at),
        table: std::sync::Arc::new(table),
        onus: ids,
    }))
}

/// Six ONUs on 0/1/0, two on 0/1/1, all online and OK, known to the view.
pub(crate) fn a_view() -> (FleetAggregate, Vec<Onu>) {
    let mut view = FleetAggregate::new(OpticsThresholds {
        warning_dbm: -25.0,
        critical_dbm: -27.0,
    });
    let onus: Vec<Onu> = (1..=8)
        .map(|id| onu(id, if id <= 6 { "0/1/0" } else { "0/1/1" }, time(0)))
        .collect();
    let first = update(&view, true, SessionStatus::Online, time(0), onus.clone());
    assert!(derive(&view, &first).is_empty(), "nothing to compare with");
    assert!(view.apply(first));
    (view, onus)
}

pub(crate) fn down(mut onu: Onu, cause: DownCause, at: DateTime<Utc>) -> Onu {
    onu.status = OnuStatus::Offline;
    onu.last_down_cause = Some(cause);
    onu.rx_power = Reading::NONE;
    onu.last_update = at;
    onu
}

#[test]
fn each_down_is_its_onu_down_with_its_cause_and_an_optics_move_its_own_event() {
    let (view, onus) = a_view();
    let mut changed: Vec<Onu> = onus[..5]
        .iter()
        .map(|o| down(o.clone(), DownCause::Los, time(60)))
        .collect();
    changed.push(down(onus[6].clone(), DownCause::DyingGasp, time(60)));
    let mut weaker = onus[7].clone();
    weaker.rx_power = Some(-27.5).into();
    weaker.last_update = time(60);
    changed.push(weaker);
    let change = update(&view, false, SessionStatus::Online, time(60), changed);
    let drafts = derive(&view, &change);
    let kinds: Vec<(EventType, Option<u64>)> = drafts
        .iter()
        .map(|d| (d.event.kind, d.event.onu_id))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (EventType::OnuDown, Some(1)),
            (EventType::OnuDown, Some(2)),
            (EventType::OnuDown, Some(3)),
            (EventType::OnuDown, Some(4)),
            (EventType::OnuDown, Some(5)),
            (EventType::OnuDown, Some(7)),
            (EventType::OpticsLevelChanged, Some(8)),
        ]
    );
    assert_eq!(drafts[0].event.data, serde_json::json!({"cause": "LOS"}));
    assert_eq!(
        drafts[5].event.data,
        serde_json::json!({"cause": "DYING_GASP"})
    );
    assert_eq!(
        drafts[6].event.data,
        serde_json::json!({"from": "OK", "to": "CRITICAL", "rxPower": -27.5})
    );
    assert_eq!(drafts[6].event.severity, Severity::Critical);
}

#[test]
fn status_moves_and_comebacks_are_events_but_a_first_connect_is_not() {
    let (mut view, onus) = a_view();
    let change = update(&view, false, SessionStatus::Degraded, time(60), vec![]);
    let drafts = derive(&view, &change);
    assert_eq!(drafts.len(), 1);
    assert_eq!(drafts[0].event.kind, EventType::OltStatusChanged);
    assert_eq!(drafts[0].event.severity, Severity::Warning);
    assert_eq!(drafts[0].event.node_id, Some(3));
    assert_eq!(
        drafts[0].event.data,
        serde_json::json!({"from": "ONLINE", "to": "DEGRADED", "reason": "a poll failed"})
    );
    let gone = update(
        &view,
        false,
        SessionStatus::Online,
        time(60),
        vec![down(onus[0].clone(), DownCause::Los, time(60))],
    );
    assert!(view.apply(gone));
    let back = update(
        &view,
        false,
        SessionStatus::Online,
        time(120),
        vec![onu(1, "0/1/0", time(120))],
    );
    let drafts = derive(&view, &back);
    assert_eq!(drafts.len(), 1);
    assert_eq!(drafts[0].event.kind, EventType::OnuUp);
    assert_eq!(drafts[0].serial.as_deref(), Some("HWTC00000001"));
}

async fn open_log(dir: &std::path::Path) -> (Store, EventLog) {
    let store = Store::open(dir).expect("store");
    let log = EventLog::start(&store, EventSettings::default())
        .await
        .expect("log");
    (store, log)
}

#[tokio::test]
async fn ids_are_gapless_and_szo_events_follow() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (view, onus) = a_view();
    let downs: Vec<Onu> = onus[..4]
        .iter()
        .map(|o| down(o.clone(), DownCause::Los, time(60)))
        .collect();
    let drafts = derive(
        &view,
        &update(&view, false, SessionStatus::Online, time(60), downs),
    );
    {
        let (_store, log) = open_log(dir.path()).await;
        let log = log;
        log.bind_szo([("hwtc00000002".to_string(), 42)]);
        let mut watch = log.subscribe();
        let written = log.append(drafts).await.expect("append");
        assert!(watch.has_changed().expect("watch"));
        assert_eq!(*watch.borrow_and_update(), 5);
        let ids: Vec<(u64, EventType)> = written.iter().map(|e| (e.id, e.kind)).collect();
        assert_eq!(
            ids,
            vec![
                (1, EventType::OnuDown),
                (2, EventType::OnuDown),
                (3, EventType::SzoDown),
                (4, EventType::OnuDown),
                (5, EventType::OnuDown),
            ]
        );
        assert_eq!(written[2].szo_id, Some(42));
        // The ONU_DOWN it follows names the СЗО too.
        assert_eq!(written[1].szo_id, Some(42));
        assert_eq!(written[0].szo_id, None);
        assert_eq!(written[2].severity, Severity::Critical);
        assert_eq!(written[2].onu_id, Some(2));
        log.stop().await;
    }
    // Reopened: the ids go on where they stopped, and the readers see the same log.
    let (_store, log) = open_log(dir.path()).await;
    assert_eq!(log.last_id(), 5);
    let more = log.append(drafts_of_one_config()).await.expect("append");
    assert_eq!(more[0].id, 6);
    let (total, newest) = log.page(&EventFilter::default(), 0, 2).expect("page");
    assert_eq!(total, 6);
    assert_eq!(newest.iter().map(|e| e.id).collect::<Vec<_>>(), vec![6, 5]);
    let only_downs = EventFilter {
        types: vec![EventType::OnuDown],
        onu_id: Some(3),
        ..EventFilter::default()
    };
    let (total, found) = log.page(&only_downs, 0, 10).expect("page");
    assert_eq!((total, found[0].id), (1, 4));
    let (after, seen) = log.after(2, &EventFilter::default(), 3).expect("after");
    assert_eq!(
        after.iter().map(|e| e.id).collect::<Vec<_>>(),
        vec![3, 4, 5]
    );
    assert_eq!(seen, 5);
    let (none, seen) = log.after(3, &only_downs, 10).expect("after");
    assert_eq!((none.len(), seen), (1, 6));
}

fn drafts_of_one_config() -> Vec<Draft> {
    let (view, _) = a_view();
    let change = FleetChange::ConfigStored {
        olt: 7,
        incarnation: 1,
        backup_id: 99,
        taken_at: time(300),
    };
    let drafts = derive(&view, &change);
    assert_eq!(drafts[0].event.data, serde_json::json!({"configId": 99}));
    drafts
}

#[tokio::test]
async fn retention_drops_the_oldest_and_never_reuses_their_ids() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("store");
    let settings = EventSettings {
        retention: std::time::Duration::from_secs(3600),
    };
    let log = EventLog::start(&store, settings).await.expect("log");
    let mut old = drafts_of_one_config();
    old[0].event.at = Utc::now() - chrono::Duration::hours(2);
    let mut new = drafts_of_one_config();
    new[0].event.at = Utc::now();
    log.append(old.clone()).await.expect("append");
    log.append(new).await.expect("append");
    log.stop().await;
    drop(log);
    // A restart prunes at once.
    let log = EventLog::start(&store, settings).await.expect("log");
    let appended = log.append(old).await.expect("append");
    assert_eq!(appended[0].id, 3);
    let (total, events) = log.page(&EventFilter::default(), 0, 10).expect("page");
    assert_eq!(total, 2, "event 1 is past retention: {events:?}");
    assert_eq!(events.iter().map(|e| e.id).collect::<Vec<_>>(), vec![3, 2]);
}
