//! The words of a notification, in Russian or English: a headline (the e-mail's subject)
//! — a mark for the severity or the clear, the alarm's kind, where — and a body: the
//! alarm's own sentence (in Russian through the phrase book the API uses), the facts
//! ([`super::facts`]) one a line, when it started and, for a clear, how long it lasted.
//! A digest (the rate cap reached) is one line per change under a count. Plain text: no
//! markup, so nothing an alarm holds is read as any.

use super::facts::Facts;
use crate::alarms::{AlarmChange, AlarmType, What};
use crate::channels::MessageLanguage;
use crate::clock::Clock;
use crate::http::russian::Language;
use ponkeeper_actors::events::Severity;

/// Contracts named in one message at most; the rest are counted.
const SUBSCRIBERS_SHOWN: usize = 30;

/// One message: the e-mail's subject and the text (Telegram sends the headline as its
/// first line).
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub subject: String,
    pub text: String,
}

/// The fixed words of one language.
struct Words {
    kind: fn(AlarmType) -> &'static str,
    cleared: &'static str,
    node: &'static str,
    pon_port: &'static str,
    splitter: &'static str,
    address: &'static str,
    onus: &'static str,
    onu: &'static str,
    subscribers: &'static str,
    more: &'static str,
    szo: &'static str,
    since: &'static str,
    lasted: &'static str,
    alarm: &'static str,
    digest: &'static str,
    /// Day, hour, minute, second.
    units: [&'static str; 4],
}

const ENGLISH: Words = Words {
    kind: |kind| match kind {
        AlarmType::OltOffline => "OLT offline",
        AlarmType::OltDegraded => "OLT degraded",
        AlarmType::PonOutage => "PON port outage",
        AlarmType::SplitterOutage => "Splitter outage",
        AlarmType::PowerOutage => "Power outage",
        AlarmType::OltOutage => "OLT outage",
        AlarmType::OnuDown => "ONU down",
        AlarmType::OpticsCritical => "Critical optical signal",
        AlarmType::PonPortSaturated => "PON port saturated",
        AlarmType::OnuFlapping => "ONU flapping",
    },
    cleared: "Cleared",
    node: "Node",
    pon_port: "PON port",
    splitter: "Splitter",
    address: "Address",
    onus: "ONUs down",
    onu: "ONU",
    subscribers: "Subscribers",
    more: "more",
    szo: "СЗО hit",
    since: "Since",
    lasted: "Lasted",
    alarm: "Alarm",
    digest: "alarm changes (more than the channel sends a minute)",
    units: ["d", "h", "min", "s"],
};

const RUSSIAN: Words = Words {
    kind: |kind| match kind {
        AlarmType::OltOffline => "OLT недоступен",
        AlarmType::OltDegraded => "OLT работает с ошибками",
        AlarmType::PonOutage => "Авария PON-порта",
        AlarmType::SplitterOutage => "Авария сплиттера",
        AlarmType::PowerOutage => "Отключение электропитания",
        AlarmType::OltOutage => "Авария OLT",
        AlarmType::OnuDown => "ONU отключилась",
        AlarmType::OpticsCritical => "Критический уровень оптического сигнала",
        AlarmType::PonPortSaturated => "PON-порт перегружен",
        AlarmType::OnuFlapping => "ONU то включается, то отключается",
    },
    cleared: "Устранено",
    node: "Узел",
    pon_port: "PON-порт",
    splitter: "Сплиттер",
    address: "Адрес",
    onus: "ONU без связи",
    onu: "ONU",
    subscribers: "Абоненты",
    more: "ещё",
    szo: "Затронуты СЗО",
    since: "Начало",
    lasted: "Длительность",
    alarm: "Авария №",
    digest: "изменений аварий (больше, чем канал отправляет в минуту)",
    units: ["сут", "ч", "мин", "с"],
};

fn words(language: MessageLanguage) -> &'static Words {
    match language {
        MessageLanguage::Ru => &RUSSIAN,
        MessageLanguage::En => &ENGLISH,
    }
}

/// The mark a headline starts with.
fn mark(change: &AlarmChange) -> &'static str {
    match (change.what, change.alarm.severity) {
        (What::Cleared, _) => "✅",
        (What::Raised, Severity::Critical) => "🔴",
        (What::Raised, Severity::Warning) => "🟠",
        (What::Raised, Severity::Info) => "🔵",
    }
}

/// `🔴 Splitter outage — OLT 3 (…): 12 ONUs down` (the count for outages only).
fn headline(change: &AlarmChange, facts: &Facts, words: &Words) -> String {
    let mut line = format!("{} ", mark(change));
    if change.what == What::Cleared {
        line.push_str(&format!("{}: ", words.cleared));
    }
    line.push_str((words.kind)(change.alarm.kind));
    let olt = change.alarm.olt_id.map(|id| format!("OLT {id}"));
    if let Some(place) = facts.olt.clone().or(olt) {
        line.push_str(&format!(" — {place}"));
    }
    if let Some(onus) = facts.onus {
        line.push_str(&format!(": {} {onus}", words.onus));
    } else if let Some(onu) = &facts.onu {
        line.push_str(&format!(": {onu}"));
    }
    line
}

/// The message for one change.
pub fn message(
    change: &AlarmChange,
    facts: &Facts,
    language: MessageLanguage,
    clock: Clock,
) -> Message {
    let words = words(language);
    let subject = headline(change, facts, words);
    let mut lines = vec![subject.clone(), say(language, &change.alarm.message)];
    let mut fact = |label: &str, value: &Option<String>| {
        if let Some(value) = value {
            lines.push(format!("{label}: {value}"));
        }
    };
    fact(
        words.node,
        &facts
            .node
            .as_ref()
            .map(|(id, name)| format!("{name} ({id})")),
    );
    fact(words.pon_port, &facts.pon_port);
    fact(words.splitter, &facts.splitter);
    fact(words.address, &facts.address);
    fact(
        words.onu,
        &facts.onu.clone().filter(|_| facts.onus.is_none()),
    );
    if !facts.subscribers.is_empty() {
        let shown = facts.subscribers.iter().take(SUBSCRIBERS_SHOWN).cloned();
        let mut list: Vec<String> = shown.collect();
        let rest = facts.subscribers.len().saturating_sub(SUBSCRIBERS_SHOWN);
        if rest > 0 {
            list.push(format!("{} {rest}", words.more));
        }
        lines.push(format!("{}: {}", words.subscribers, list.join("; ")));
    }
    if !facts.szo.is_empty() {
        lines.push(format!("{}: {}", words.szo, facts.szo.join("; ")));
    }
    let alarm = &change.alarm;
    lines.push(format!(
        "{}: {}",
        words.since,
        clock.format(alarm.started_at)
    ));
    if let (What::Cleared, Some(end)) = (change.what, alarm.cleared_at) {
        let lasted = span((end - alarm.started_at).num_seconds().max(0), words);
        lines.push(format!(
            "{}: {lasted} ({})",
            words.lasted,
            clock.format(end)
        ));
    }
    lines.push(match language {
        MessageLanguage::Ru => format!("{}{}", words.alarm, alarm.id),
        MessageLanguage::En => format!("{} {}", words.alarm, alarm.id),
    });
    Message {
        subject,
        text: lines.join("\n"),
    }
}

/// One message for many changes: a count, then each change's headline.
pub fn digest(changes: &[(AlarmChange, Facts)], language: MessageLanguage) -> Message {
    let words = words(language);
    let subject = format!("⚠ {} {}", changes.len(), words.digest);
    let mut lines = vec![subject.clone()];
    lines.extend(changes.iter().map(|(c, f)| headline(c, f, words)));
    Message {
        subject,
        text: lines.join("\n"),
    }
}

/// `2 h 5 min`: the two largest units, seconds only under an hour.
fn span(seconds: i64, words: &Words) -> String {
    let parts = [
        seconds / 86_400,
        seconds % 86_400 / 3600,
        seconds % 3600 / 60,
        seconds % 60,
    ];
    let first = parts.iter().position(|&p| p > 0).unwrap_or(3);
    let shown: Vec<String> = (first..(first + 2).min(4))
        .filter(|&i| parts[i] > 0 || i == first)
        .map(|i| format!("{} {}", parts[i], words.units[i]))
        .collect();
    shown.join(" ")
}

fn say(language: MessageLanguage, sentence: &str) -> String {
    match language {
        MessageLanguage::Ru => Language::Russian.say(sentence),
        MessageLanguage::En => sentence.to_string(),
    }
}

#[cfg(test)]
mod tests;
