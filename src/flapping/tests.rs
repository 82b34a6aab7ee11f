use super::*;
use chrono::TimeZone;

fn minutes(minutes: u64) -> Duration {
    Duration::from_secs(minutes * 60)
}

fn change(onu: OnuId, minute: i64, down: bool) -> Event {
    let at = Utc.with_ymd_and_hms(2026, 12, 2, 10, 0, 0).unwrap() + Span::minutes(minute);
    Event {
        id: 0,
        at,
        kind: if down {
            EventType::OnuDown
        } else {
            EventType::OnuUp
        },
        severity: Severity::Warning,
        olt_id: Some(3),
        node_id: Some(7),
        pon_port: Some("0/1/2".into()),
        onu_id: Some(onu),
        szo_id: None,
        message: String::new(),
        data: json!({}),
    }
}

#[test]
fn four_changes_in_the_window_start_one_flap_and_a_quiet_window_ends_it() {
    let mut watch = FlapWatch::new(4, minutes(15));
    let started: Vec<Draft> = [0, 3, 6, 9, 12, 14]
        .iter()
        .enumerate()
        .filter_map(|(n, minute)| watch.note(&change(5, *minute, n % 2 == 0)))
        .collect();
    assert_eq!(started.len(), 1, "one ONU_FLAPPING, at the fourth change");
    let flap = &started[0].event;
    assert_eq!(flap.kind, EventType::OnuFlapping);
    assert_eq!(flap.at, change(5, 9, true).at);
    assert_eq!((flap.olt_id, flap.node_id), (Some(3), Some(7)));
    assert_eq!(flap.data["changes"], 4);
    assert_eq!(watch.ids(), [5]);
    // Still flapping until 15 minutes after its last change (minute 14).
    assert!(watch.quiet(change(5, 28, true).at).is_empty());
    let cleared = watch.quiet(change(5, 30, true).at);
    assert_eq!(cleared.len(), 1);
    assert_eq!(cleared[0].event.kind, EventType::OnuFlappingCleared);
    assert_eq!(cleared[0].event.at, change(5, 29, true).at);
    assert!(watch.ids().is_empty());
}

#[test]
fn changes_spread_wider_than_the_window_are_no_flap() {
    let mut watch = FlapWatch::new(4, minutes(15));
    for (n, minute) in [0, 6, 12, 18, 24, 30, 36].iter().enumerate() {
        assert!(watch.note(&change(9, *minute, n % 2 == 0)).is_none());
    }
    assert!(watch.ids().is_empty());
    // A change of another ONU never counts for this one.
    assert!(watch.note(&change(10, 37, true)).is_none());
}

#[test]
fn a_deauthorised_onu_stops_flapping_and_its_own_events_read_back_change_nothing() {
    let mut watch = FlapWatch::new(2, minutes(15));
    assert!(watch.note(&change(4, 0, true)).is_none());
    let flap = watch
        .note(&change(4, 1, false))
        .expect("a flap at two changes");
    // The projection reads its own ONU_FLAPPING back from the log.
    let mut read_back = flap.event.clone();
    read_back.id = 12;
    assert!(watch.note(&read_back).is_none());
    assert_eq!(watch.ids(), [4]);
    let mut gone = change(4, 2, true);
    gone.kind = EventType::OnuDeauthorized;
    let cleared = watch.note(&gone).expect("cleared");
    assert_eq!(cleared.event.kind, EventType::OnuFlappingCleared);
    assert!(watch.ids().is_empty());
}

#[test]
fn a_flap_read_back_after_a_restart_is_not_raised_again() {
    let mut watch = FlapWatch::new(3, minutes(15));
    let mut earlier = change(8, 0, true);
    earlier.kind = EventType::OnuFlapping;
    assert!(watch.note(&earlier).is_none());
    for (n, minute) in [1, 2, 3, 4].iter().enumerate() {
        assert!(watch.note(&change(8, *minute, n % 2 == 0)).is_none());
    }
    assert_eq!(watch.ids(), [8]);
}
