//! One channel's delivery task. It reads the alarms' change log from the channel's cursor
//! (tree `notify_cursors`: name → the key of the last change sent), keeps the changes its
//! filter admits, and sends each as a message — or, when more wait than the rate cap lets
//! out this minute, the rest as one digest. The cursor moves only once a message was
//! taken (Telegram answered `ok`, the relay accepted the mail), so a restart or `kill -9`
//! sends again at most the message in flight, and loses none. A failed send is retried
//! after 1 s, 2 s, 4 s, … at most 5 min (or when Telegram says), the channel alone
//! waiting. A channel seen for the first time starts at the log's end.

use super::facts::{Facts, Gatherer};
use super::render::{self, Message};
use crate::alarms::{AlarmChange, Alarms, ChangeKey, ChangeLog, What};
use crate::channels::{Channel, NotifyConfig, Target};
use crate::clock::Clock;
use chrono::{DateTime, Utc};
use ponkeeper_actors::events::Severity;
use ponkeeper_actors::store::Store;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const CURSORS: &str = "notify_cursors";
/// Changes read from the log at once.
const BATCH: usize = 50;
/// Changes in one digest at most.
const DIGEST_MAX: usize = 50;

/// What `GET /notifications` and `/metrics` show of one channel.
#[derive(Debug, Clone, Default)]
pub struct ChannelStatus {
    /// The event of the last change sent or passed over.
    pub delivered_up_to: u64,
    /// Messages taken since the start (digests count once).
    pub sent: u64,
    /// Why the last attempt failed; `None` after a success.
    pub last_error: Option<String>,
    pub last_sent_at: Option<DateTime<Utc>>,
    /// When the next attempt is due, while retrying.
    pub next_attempt_at: Option<DateTime<Utc>>,
    /// Failed attempts in a row.
    pub failures: u32,
}

/// What every channel task reads.
#[derive(Clone)]
pub struct Feed {
    pub changes: ChangeLog,
    pub alarms: Alarms,
    pub facts: Gatherer,
    pub clock: Clock,
}

/// The channels' cursors in the store.
#[derive(Clone)]
pub struct Cursors(sled::Tree);

impl Cursors {
    pub fn open(store: &Store) -> anyhow::Result<Cursors> {
        Ok(Cursors(store.open_tree(CURSORS)?))
    }

    /// `name`'s cursor; a channel seen for the first time starts at `newest`.
    fn get_or_start(&self, name: &str, newest: ChangeKey) -> anyhow::Result<ChangeKey> {
        if let Some(value) = self.0.get(name.as_bytes())? {
            let raw: [u8; 17] = value
                .as_ref()
                .try_into()
                .map_err(|_| anyhow::anyhow!("the cursor of channel `{name}` is corrupt"))?;
            return Ok(ChangeKey(raw));
        }
        self.set(name, newest)?;
        Ok(newest)
    }

    fn set(&self, name: &str, key: ChangeKey) -> anyhow::Result<()> {
        self.0.insert(name.as_bytes(), &key.0)?;
        Ok(())
    }

    /// Writes the cursors to disk now (sled otherwise does within half a second): after a
    /// message was taken, so a `kill -9` sends again only the one in flight.
    async fn flush(&self) {
        if let Err(error) = self.0.flush_async().await {
            tracing::warn!(%error, "cannot flush the notification cursors");
        }
    }
}

/// Whether `config`'s filter admits `change`, whose facts are `facts`.
pub fn admits(config: &NotifyConfig, change: &AlarmChange, facts: &Facts) -> bool {
    let rank = |s: Severity| match s {
        Severity::Info => 0,
        Severity::Warning => 1,
        Severity::Critical => 2,
    };
    let alarm = &change.alarm;
    (config.types.is_empty() || config.types.contains(&alarm.kind))
        && rank(alarm.severity) >= rank(config.min_severity)
        && (config.nodes.is_empty()
            || facts
                .node
                .as_ref()
                .is_some_and(|(id, _)| config.nodes.contains(id)))
        && (!config.szo_only || !facts.szo.is_empty())
}

/// Sends one minute's worth at most: the times of the sends of the last minute.
struct RateCap {
    per_minute: usize,
    sent: VecDeque<tokio::time::Instant>,
}

impl RateCap {
    fn new(per_minute: u32) -> RateCap {
        RateCap {
            per_minute: per_minute.max(1) as usize,
            sent: VecDeque::new(),
        }
    }

    /// Sends allowed now.
    fn free(&mut self) -> usize {
        self.free_at(tokio::time::Instant::now())
    }

    /// Sends allowed at `now`.
    fn free_at(&mut self, now: tokio::time::Instant) -> usize {
        let minute_ago = now - Duration::from_secs(60);
        while self.sent.front().is_some_and(|at| *at <= minute_ago) {
            self.sent.pop_front();
        }
        self.per_minute.saturating_sub(self.sent.len())
    }

    /// Waits until a send is allowed.
    async fn slot(&mut self) {
        while self.free() == 0 {
            let oldest = self
                .sent
                .front()
                .copied()
                .unwrap_or_else(tokio::time::Instant::now);
            tokio::time::sleep_until(oldest + Duration::from_secs(60)).await;
        }
    }

    fn used(&mut self) {
        self.used_at(tokio::time::Instant::now());
    }

    fn used_at(&mut self, at: tokio::time::Instant) {
        self.sent.push_back(at);
    }
}

/// Delivers `channel`'s messages until the task is aborted.
pub async fn run(
    feed: Feed,
    channel: Channel,
    cursors: Cursors,
    status: Arc<Mutex<ChannelStatus>>,
) {
    let name = channel.config.name.clone();
    let start = feed.changes.last().map_err(anyhow::Error::from);
    let mut cursor = match start.and_then(|last| cursors.get_or_start(&name, last)) {
        Ok(cursor) => cursor,
        Err(error) => {
            tracing::error!(channel = %name, %error, "cannot read the channel's cursor; it sends nothing");
            return;
        }
    };
    let mut woken = feed.alarms.subscribe();
    let mut cap = RateCap::new(channel.config.max_per_minute);
    loop {
        crate::tasks::lock(&status).delivered_up_to = cursor.event_id();
        woken.borrow_and_update();
        let batch = match feed.changes.after(cursor, BATCH) {
            Ok(batch) => batch,
            Err(error) => {
                tracing::error!(channel = %name, %error, "cannot read the alarms' change log");
                tokio::time::sleep(Duration::from_secs(5)).await;
                continue;
            }
        };
        let Some(last) = batch.last().map(|c| c.key) else {
            // A missed wake-up costs half a minute at most.
            let _ = tokio::time::timeout(Duration::from_secs(30), woken.changed()).await;
            continue;
        };
        let mut pending = VecDeque::new();
        for change in batch {
            let facts = feed.facts.gather(&change.alarm).await;
            if admits(&channel.config, &change, &facts) {
                pending.push_back((change, facts));
            }
        }
        while !pending.is_empty() {
            cap.slot().await;
            let take = if pending.len() > cap.free() {
                pending.len().min(DIGEST_MAX)
            } else {
                1
            };
            let mut items: Vec<(AlarmChange, Facts)> = pending.drain(..take).collect();
            if settle(&items, channel.config.group_wait).await {
                // What grew while it waited (an outage's ONUs) is told as it is now.
                for (change, facts) in &mut items {
                    *facts = feed.facts.gather(&change.alarm).await;
                }
            }
            let language = channel.config.language;
            let message = match items.as_slice() {
                [(change, facts)] => render::message(change, facts, language, feed.clock),
                many => render::digest(many, language),
            };
            send(&channel, &message, &status).await;
            cap.used();
            cursor = items.last().map(|(c, _)| c.key).unwrap_or(cursor);
            save(&cursors, &name, cursor);
            cursors.flush().await;
            metrics::counter!("ponkeeper_notifications_total", "channel" => name.clone())
                .increment(1);
        }
        cursor = last;
        save(&cursors, &name, cursor);
    }
}

/// Waits until every raise among `items` is `group_wait` old; whether it waited.
async fn settle(items: &[(AlarmChange, Facts)], group_wait: Duration) -> bool {
    let wait = chrono::Duration::from_std(group_wait).unwrap_or_default();
    let due = items
        .iter()
        .filter(|(c, _)| c.what == What::Raised)
        .map(|(c, _)| c.alarm.started_at + wait)
        .max();
    let Some(ahead) = due.and_then(|due| (due - Utc::now()).to_std().ok()) else {
        return false;
    };
    tokio::time::sleep(ahead).await;
    true
}

fn save(cursors: &Cursors, name: &str, cursor: ChangeKey) {
    if let Err(error) = cursors.set(name, cursor) {
        // Delivery goes on; a restart sends again from the last saved cursor.
        tracing::error!(channel = %name, %error, "cannot save the channel's cursor");
    }
}

/// Notes a failed attempt in `status`; the wait before the next.
fn note_failure(
    name: &str,
    status: &Mutex<ChannelStatus>,
    reason: String,
    asked: Option<Duration>,
) -> Duration {
    let now = Utc::now();
    let reason = outside_words(&reason);
    let mut state = crate::tasks::lock(status);
    state.failures = state.failures.saturating_add(1);
    // A service's hint is heeded within the channel's own limit: a `retry_after` of
    // 2^64 - 1 seconds must not silence the channel for good.
    let wait = asked
        .map(|asked| asked.min(crate::webhooks::delivery::BACKOFF_CAP))
        .unwrap_or_else(|| crate::webhooks::delivery::backoff(state.failures));
    state.next_attempt_at = chrono::Duration::from_std(wait).ok().map(|w| now + w);
    tracing::warn!(channel = %name, failures = state.failures, retry_in = ?wait, error = %reason, "notification not sent");
    state.last_error = Some(reason);
    wait
}

/// The longest reason a failed send keeps, in characters.
const MOST_REASON: usize = 300;

/// A reason an outside service gave, as it is kept and logged: its first
/// [`MOST_REASON`] characters, control and format characters (line breaks, bidi
/// controls) written as escapes, so it can neither fill the log nor forge a line of it.
fn outside_words(reason: &str) -> String {
    let mut kept = String::with_capacity(reason.len().min(MOST_REASON + 16));
    for (n, c) in reason.chars().enumerate() {
        if n == MOST_REASON {
            kept.push('…');
            break;
        }
        if c.is_control() || crate::text::is_format(c) {
            kept.extend(c.escape_unicode());
        } else {
            kept.push(c);
        }
    }
    kept
}

/// Sends `message` until it is taken (every chat of a Telegram channel), backing off.
async fn send(channel: &Channel, message: &Message, status: &Mutex<ChannelStatus>) {
    let name = channel.config.name.as_str();
    let chats = match &channel.target {
        Target::Telegram(bot) => bot.chats(),
        Target::Email(_) => 1,
    };
    let mut done = vec![false; chats];
    loop {
        let mut failure = None;
        for (chat, taken) in done.iter_mut().enumerate() {
            if *taken {
                continue;
            }
            let outcome = match &channel.target {
                Target::Telegram(bot) => bot
                    .send(chat, &message.text)
                    .await
                    .map_err(|r| (r.reason, r.retry_after)),
                Target::Email(mailer) => mailer
                    .send(&message.subject, &message.text)
                    .await
                    .map_err(|reason| (reason, None)),
            };
            match outcome {
                Ok(()) => *taken = true,
                Err(refused) => failure = Some(refused),
            }
        }
        let Some((reason, asked)) = failure else {
            let mut state = crate::tasks::lock(status);
            state.sent += 1;
            state.last_sent_at = Some(Utc::now());
            state.last_error = None;
            state.next_attempt_at = None;
            state.failures = 0;
            return;
        };
        let wait = note_failure(name, status, reason, asked);
        tokio::time::sleep(wait).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_outside_reason_is_cut_and_cannot_break_a_log_line() {
        let forged = "Too Many Requests\r\n2026-12-02T06:00:00Z  INFO forged\u{202e}";
        let kept = outside_words(forged);
        assert!(!kept.contains(['\r', '\n', '\u{202e}']), "{kept}");
        assert!(
            kept.contains("\\u{d}\\u{a}2026") && kept.contains("\\u{202e}"),
            "{kept}"
        );
        let long = outside_words(&"x".repeat(2_000_000));
        assert_eq!(long.chars().count(), MOST_REASON + 1);
    }

    #[test]
    fn the_cap_lets_out_its_number_a_minute() {
        let start = tokio::time::Instant::now();
        let second = |n: u64| start + Duration::from_secs(n);
        let mut cap = RateCap::new(3);
        cap.used_at(second(0));
        cap.used_at(second(10));
        assert_eq!(cap.free_at(second(10)), 1);
        cap.used_at(second(20));
        assert_eq!(cap.free_at(second(59)), 0);
        // Each send frees its place a minute after it.
        assert_eq!(cap.free_at(second(60)), 1);
        assert_eq!(cap.free_at(second(75)), 2);
        assert_eq!(cap.free_at(second(200)), 3);
    }
}
