//! The messages as a reader gets them: a splitter outage with its facts in both
//! languages, its clear with how long it lasted, a digest, and no English word left in
//! a Russian message (the service's own `foreign_words` check).

use super::*;
use crate::alarms::Alarm;
use chrono::{TimeZone, Utc};

fn change(what: What) -> AlarmChange {
    let start = Utc
        .with_ymd_and_hms(2026, 11, 26, 12, 4, 5)
        .single()
        .expect("time");
    AlarmChange {
        key: Default::default(),
        what,
        alarm: Alarm {
            id: 2_000_311,
            kind: AlarmType::SplitterOutage,
            severity: Severity::Critical,
            object: "outage:7".into(),
            olt_id: Some(3),
            onu_id: None,
            outage_id: Some(7),
            message: "OLT 3 port 0/1: 12 of 12 ONUs behind splitter S-12 went down with LOS".into(),
            event_id: 2_000_311,
            started_at: start,
            cleared_at: (what == What::Cleared)
                .then(|| start + chrono::Duration::seconds(7 * 60 + 9)),
            acknowledged_by: None,
            acknowledged_at: None,
            comment: None,
        },
    }
}

fn facts() -> Facts {
    Facts {
        olt: Some("OLT 3 (BDCOM P3310, 10.0.0.3, Kazan)".into()),
        node: Some((2, "Kazan-Center".into())),
        pon_port: Some("0/1".into()),
        splitter: Some("S-12, Lenina 5".into()),
        address: None,
        onus: Some(12),
        onu: None,
        subscribers: (1..=32).map(|n| format!("Д-2024/{n:03}")).collect(),
        szo: vec!["School No 5".into()],
    }
}

fn utc() -> Clock {
    Clock::Zone(chrono_tz::UTC)
}

#[test]
fn an_outage_names_where_how_many_and_whom_in_english() {
    let message = message(&change(What::Raised), &facts(), MessageLanguage::En, utc());
    assert_eq!(
        message.subject,
        "🔴 Splitter outage — OLT 3 (BDCOM P3310, 10.0.0.3, Kazan): ONUs down 12"
    );
    let lines: Vec<&str> = message.text.lines().collect();
    assert_eq!(lines[0], message.subject);
    assert!(lines.contains(&"Node: Kazan-Center (2)"), "{lines:?}");
    assert!(lines.contains(&"Splitter: S-12, Lenina 5"), "{lines:?}");
    assert!(lines.contains(&"Since: 2026-11-26T12:04:05"), "{lines:?}");
    assert!(lines.contains(&"Alarm 2000311"), "{lines:?}");
    let subscribers = lines
        .iter()
        .find(|l| l.starts_with("Subscribers: "))
        .expect("subscribers");
    assert!(subscribers.contains("Д-2024/030") && !subscribers.contains("Д-2024/031"));
    assert!(subscribers.ends_with("; more 2"), "{subscribers}");
}

#[test]
fn a_clear_says_how_long_it_lasted_and_russian_has_no_english_word() {
    let cleared = message(&change(What::Cleared), &facts(), MessageLanguage::Ru, utc());
    assert!(
        cleared
            .subject
            .starts_with("✅ Устранено: Авария сплиттера — OLT 3"),
        "{}",
        cleared.subject
    );
    assert!(
        cleared
            .text
            .contains("\nДлительность: 7 мин 9 с (2026-11-26T12:11:14)\n"),
        "{}",
        cleared.text
    );
    assert!(
        cleared.text.ends_with("\nАвария №2000311"),
        "{}",
        cleared.text
    );
    // The alarm's own sentence came through the phrase book.
    assert!(!cleared.text.contains("went down"), "{}", cleared.text);
    // Names the operator wrote (a node, a splitter) are not the service's words.
    let ours = cleared
        .text
        .replace("Kazan-Center", "")
        .replace("Kazan", "")
        .replace("Lenina", "")
        .replace("School No 5", "")
        .replace("BDCOM", "");
    let foreign = crate::http::russian::foreign_words(&ours);
    assert!(foreign.is_empty(), "{foreign:?} in\n{ours}");
}

#[test]
fn a_digest_is_one_line_a_change_under_a_count() {
    let items = vec![
        (change(What::Raised), facts()),
        (change(What::Cleared), facts()),
    ];
    let digest = digest(&items, MessageLanguage::En);
    assert_eq!(
        digest.subject,
        "⚠ 2 alarm changes (more than the channel sends a minute)"
    );
    assert_eq!(digest.text.lines().count(), 3);
    assert!(digest
        .text
        .lines()
        .nth(2)
        .expect("line")
        .starts_with("✅ Cleared: Splitter outage"));
}

#[test]
fn spans_show_the_two_largest_units() {
    let en = &ENGLISH;
    assert_eq!(span(0, en), "0 s");
    assert_eq!(span(59, en), "59 s");
    assert_eq!(span(3600, en), "1 h");
    assert_eq!(span(3 * 86_400 + 7200 + 60, en), "3 d 2 h");
    assert_eq!(span(90_061, &RUSSIAN), "1 сут 1 ч");
}
