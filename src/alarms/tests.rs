//! The alarm book against a real sled archive, fed events as the log writes them: an OLT
//! offline raises and its return clears, an outage is one alarm (its ONUs' downs none),
//! a lone ONU down is one, acknowledgement is once and kept, the list puts what nobody
//! acknowledged first, and a reopened book goes on from its cursor.

use super::archive::AlarmArchive;
use super::{AckRefusal, AlarmBook, AlarmFilter, AlarmType};
use chrono::{DateTime, TimeZone, Utc};
use ponkeeper_actors::events::{Event, EventType, Severity};
use serde_json::json;
use std::time::Duration;

fn at(second: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 26, 10, 0, 0)
        .single()
        .expect("a time")
        + chrono::Duration::seconds(second)
}

fn event(id: u64, kind: EventType, olt: u32, onu: Option<u64>, data: serde_json::Value) -> Event {
    Event {
        id,
        at: at(id as i64),
        kind,
        severity: Severity::Warning,
        olt_id: Some(olt),
        node_id: None,
        pon_port: Some("0/1/0".into()),
        onu_id: onu,
        szo_id: None,
        message: format!("event {id}"),
        data,
    }
}

fn book(dir: &std::path::Path) -> (AlarmBook, AlarmArchive) {
    let store = open_when_free(dir);
    let archive = AlarmArchive::open(&store).expect("archive");
    let book =
        AlarmBook::load(archive.clone(), Duration::from_secs(86_400), 0, at(0)).expect("load");
    (book, archive)
}

/// The store in `dir`, once the last one there let go of it: sled's flusher thread holds
/// a dropped database's lock for a moment, as a restarted service finds it (`app.rs`).
fn open_when_free(dir: &std::path::Path) -> ponkeeper_actors::store::Store {
    let started = std::time::Instant::now();
    loop {
        match ponkeeper_actors::store::Store::open(dir) {
            Err(error)
                if error.to_string().contains("could not acquire lock")
                    && started.elapsed() < Duration::from_secs(10) =>
            {
                std::thread::sleep(Duration::from_millis(50));
            }
            opened => return opened.expect("store"),
        }
    }
}

fn active(book: &AlarmBook) -> Vec<(AlarmType, String)> {
    let filter = AlarmFilter {
        active: Some(true),
        ..AlarmFilter::default()
    };
    book.list(&filter, 0, 100)
        .1
        .into_iter()
        .map(|a| (a.kind, a.object))
        .collect()
}

#[test]
fn events_raise_and_clear_alarms_once_each() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut book, _) = book(dir.path());
    let status = |id, to: &str| {
        event(
            id,
            EventType::OltStatusChanged,
            3,
            None,
            json!({"from": "ONLINE", "to": to}),
        )
    };
    book.apply(&status(1, "DEGRADED"));
    book.apply(&status(2, "OFFLINE"));
    assert_eq!(
        active(&book),
        vec![(AlarmType::OltOffline, "olt:3".to_string())]
    );
    book.apply(&event(
        3,
        EventType::PonOutage,
        3,
        None,
        json!({"outageId": 77}),
    ));
    book.apply(&event(
        4,
        EventType::OnuDown,
        3,
        Some(9),
        json!({"cause": "LOS", "outageId": 77}),
    ));
    book.apply(&event(
        5,
        EventType::OnuDown,
        3,
        Some(12),
        json!({"cause": "DYING_GASP"}),
    ));
    book.apply(&event(
        6,
        EventType::OpticsLevelChanged,
        3,
        Some(14),
        json!({"from": "WARNING", "to": "CRITICAL"}),
    ));
    let mut now = active(&book);
    now.sort();
    assert_eq!(
        now,
        vec![
            (AlarmType::OltOffline, "olt:3".to_string()),
            (AlarmType::PonOutage, "outage:77".to_string()),
            (AlarmType::OnuDown, "onu:12".to_string()),
            (AlarmType::OpticsCritical, "onu:14".to_string()),
        ],
        "the outage's ONU down is the outage's, not an alarm of its own"
    );
    book.apply(&status(7, "ONLINE"));
    book.apply(&event(
        8,
        EventType::OutageCleared,
        3,
        None,
        json!({"outageId": 77}),
    ));
    book.apply(&event(9, EventType::OnuUp, 3, Some(12), json!({})));
    book.apply(&event(
        10,
        EventType::OpticsLevelChanged,
        3,
        Some(14),
        json!({"from": "CRITICAL", "to": "WARNING"}),
    ));
    assert!(active(&book).is_empty());
    let cleared = book.get(2).expect("the offline alarm");
    assert_eq!(
        (cleared.cleared_at, cleared.severity),
        (Some(at(7)), Severity::Critical)
    );
    // The same OLT offline again is a new alarm, with the new event's id.
    book.apply(&status(11, "OFFLINE"));
    assert_eq!(book.get(11).map(|a| a.kind), Some(AlarmType::OltOffline));
}

#[test]
fn an_acknowledgement_is_kept_once_and_the_unacknowledged_come_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    {
        let (mut book, _) = book(dir.path());
        book.apply(&event(
            1,
            EventType::OnuDown,
            3,
            Some(12),
            json!({"cause": "LOS"}),
        ));
        book.apply(&event(
            2,
            EventType::OnuDown,
            3,
            Some(13),
            json!({"cause": "LOS"}),
        ));
        book.apply(&event(
            3,
            EventType::OltStatusChanged,
            3,
            None,
            json!({"to": "OFFLINE"}),
        ));
        let acked = book
            .acknowledge(3, "noc-ivanov", Some("crew on the way".into()), at(60))
            .expect("acknowledged");
        assert_eq!(acked.acknowledged_by.as_deref(), Some("noc-ivanov"));
        assert_eq!(
            book.acknowledge(3, "noc-petrov", None, at(61)),
            Err(AckRefusal::Already {
                by: "noc-ivanov".into(),
                at: at(60)
            })
        );
        assert_eq!(
            book.acknowledge(99, "noc-petrov", None, at(61)),
            Err(AckRefusal::NoSuchAlarm)
        );
        // Unacknowledged first (the newest of them first), the acknowledged one last.
        let order: Vec<u64> = book
            .list(&AlarmFilter::default(), 0, 10)
            .1
            .iter()
            .map(|a| a.id)
            .collect();
        assert_eq!(order, vec![2, 1, 3]);
        book.moved_to(3);
    }
    // Reopened: the alarms, the acknowledgement and the cursor are still there.
    let (book, _) = book(dir.path());
    assert_eq!(book.cursor(), 3);
    let acked = book.get(3).expect("kept");
    assert_eq!(acked.comment.as_deref(), Some("crew on the way"));
    assert_eq!(active(&book).len(), 3);
}

#[test]
fn cleared_alarms_past_the_retention_are_dropped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut book, archive) = book(dir.path());
    book.apply(&event(
        1,
        EventType::OnuDown,
        3,
        Some(12),
        json!({"cause": "LOS"}),
    ));
    book.apply(&event(2, EventType::OnuUp, 3, Some(12), json!({})));
    book.apply(&event(
        3,
        EventType::OnuDown,
        3,
        Some(13),
        json!({"cause": "LOS"}),
    ));
    book.prune(at(2) + chrono::Duration::days(2));
    assert!(book.get(1).is_none(), "cleared two days ago, kept one");
    assert!(book.get(3).is_some(), "active alarms are never pruned");
    assert_eq!(archive.load().expect("load").len(), 1);
}

#[test]
fn every_raise_and_clear_is_logged_once_even_when_folded_in_again() {
    use super::What;
    let dir = tempfile::tempdir().expect("tempdir");
    let events = [
        event(
            1,
            EventType::SplitterOutage,
            3,
            None,
            json!({"outageId": 5}),
        ),
        event(2, EventType::OnuDown, 3, Some(9), json!({"outageId": 5})),
        event(3, EventType::OnuDown, 3, Some(12), json!({"cause": "LOS"})),
        event(4, EventType::OutageCleared, 3, None, json!({"outageId": 5})),
    ];
    {
        let (mut book, _) = book(dir.path());
        for e in &events {
            book.apply(e);
        }
        // A crash before the cursor was written: the reopened book folds them in again.
    }
    let (mut book, archive) = book(dir.path());
    assert_eq!(book.cursor(), 0);
    for e in &events {
        book.apply(e);
    }
    let log = archive.changes();
    let changes = log.after(Default::default(), 100).expect("read");
    let seen: Vec<(u64, u64, What)> = changes
        .iter()
        .map(|c| (c.key.event_id(), c.alarm.id, c.what))
        .collect();
    assert_eq!(
        seen,
        vec![
            (1, 1, What::Raised),
            (3, 3, What::Raised),
            (4, 1, What::Cleared)
        ],
        "the outage's ONU down raised nothing; nothing twice"
    );
    assert_eq!(changes[2].alarm.cleared_at, Some(at(4)));
    assert_eq!(log.last().expect("last"), changes[2].key);
    // Read on from a change: only the ones after it.
    let rest = log.after(changes[0].key, 100).expect("read");
    assert_eq!(rest.len(), 2);
    // Pruned by when each change was made: the raise at 1 goes, the rest stay.
    assert_eq!(log.prune(at(2)).expect("prune"), 1);
    let kept = log.after(Default::default(), 100).expect("read");
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert_eq!(kept[0].key, changes[1].key);
}

#[test]
fn a_saturated_port_is_one_alarm_until_its_clear() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut book, _) = book(dir.path());
    let port = |id, kind| {
        let mut e = event(id, kind, 3, None, json!({"port": "0/1/0"}));
        e.pon_port = Some("0/1/0".into());
        e
    };
    book.apply(&port(1, EventType::PonPortSaturated));
    book.apply(&port(2, EventType::PonPortSaturated));
    assert_eq!(
        active(&book),
        vec![(AlarmType::PonPortSaturated, "port:3:0/1/0".to_string())],
        "saturated twice is one alarm"
    );
    assert_eq!(book.get(1).map(|a| a.severity), Some(Severity::Warning));
    book.apply(&port(3, EventType::PonPortSaturationCleared));
    assert!(active(&book).is_empty());
    assert_eq!(book.get(1).and_then(|a| a.cleared_at), Some(at(3)));
}
