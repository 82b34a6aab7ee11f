//! `/events/stream` in a cluster: one stream of every member's events. Each member keeps
//! and numbers its own events, so a position in the whole stream is one position per
//! member ([`Positions`]); it is each message's SSE `id:`, `alpha:41,bravo:7,charlie:12`,
//! and a client that reconnects to any member with it as `Last-Event-ID` resumes every
//! member's events where it left off, without a gap or a duplicate.
//!
//! A follower task per member reads that member's log from the stream's position (this
//! member's log directly, the others' over the link with a question that waits up to ten
//! seconds for an event) and hands each batch to the stream through a channel of one
//! batch, so a slow client only holds its followers back. A member out of reach is asked
//! again every second and its events come when it is back. The followers end with the
//! stream.

use crate::cluster::questions::{ask_member, EventsAnswer, Question, MAX_EVENT_WAIT};
use crate::cluster::ClusterShared;
use crate::events::item;
use crate::state::AppState;
use axum::response::sse::Event as SseEvent;
use futures::stream::{self, Stream};
use ponkeeper_actors::events::{Event, EventFilter};
use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Events one follower reads at once.
const BATCH: usize = 256;
/// How long a follower waits before asking a member out of reach again.
const RETRY: Duration = Duration::from_secs(1);
/// How often the stream checks that its key is still valid.
const KEY_CHECK: Duration = Duration::from_secs(2);

/// Where a stream stands in each member's log: the last event id it has passed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Positions(BTreeMap<String, u64>);

impl Positions {
    /// A `Last-Event-ID`: `name:id` pairs joined by commas, or a plain id, which is this
    /// member's (`this`) alone. `None` when it is neither.
    pub fn parse(text: &str, this: &str) -> Option<Positions> {
        let text = text.trim();
        if let Ok(id) = text.parse::<u64>() {
            return Some(Positions(BTreeMap::from([(this.to_string(), id)])));
        }
        let mut positions = BTreeMap::new();
        for pair in text.split(',') {
            let (name, id) = pair.trim().rsplit_once(':')?;
            if name.is_empty()
                || positions
                    .insert(name.to_string(), id.parse().ok()?)
                    .is_some()
            {
                return None;
            }
        }
        (!positions.is_empty()).then_some(Positions(positions))
    }

    /// The SSE `id:` of this position.
    pub fn id(&self) -> String {
        let pairs: Vec<String> = self
            .0
            .iter()
            .map(|(name, id)| format!("{name}:{id}"))
            .collect();
        pairs.join(",")
    }

    fn of(&self, member: &str) -> Option<u64> {
        self.0.get(member).copied()
    }
}

/// Aborts the followers when the stream is dropped.
struct Followers(Vec<JoinHandle<()>>);

impl Drop for Followers {
    fn drop(&mut self) {
        for follower in &self.0 {
            follower.abort();
        }
    }
}

/// The stream's state: its position, the batches the followers read, its key.
struct Merged {
    app: AppState,
    key: String,
    positions: Positions,
    batches: mpsc::Receiver<EventsAnswer<Event>>,
    ready: std::collections::VecDeque<(String, Event)>,
    _followers: Followers,
}

/// The SSE messages of every member's events from `start`; ends when the key is revoked.
pub fn messages(
    app: AppState,
    shared: Arc<ClusterShared>,
    (key, filter): (String, EventFilter),
    start: Positions,
) -> impl Stream<Item = Result<SseEvent, Infallible>> {
    let (sender, batches) = mpsc::channel(1);
    let this = shared.config().name.clone();
    let followers = shared
        .config()
        .member_names()
        .into_iter()
        .map(|name| {
            let from = start.of(&name);
            let (app, shared, filter, sender) =
                (app.clone(), shared.clone(), filter.clone(), sender.clone());
            if name == this {
                tokio::spawn(follow_here(app, name, (filter, from), sender))
            } else {
                tokio::spawn(follow_there(shared, name, (filter, from), sender))
            }
        })
        .collect();
    let merged = Merged {
        app,
        key,
        positions: start,
        batches,
        ready: Default::default(),
        _followers: Followers(followers),
    };
    stream::unfold(merged, |mut merged| async move {
        let (member, event) = merged.next().await?;
        merged.positions.0.insert(member.clone(), event.id);
        let shown = crate::events::EventItem {
            member: Some(member),
            ..item(&merged.app.clock, event)
        };
        let body = serde_json::to_string(&shown).unwrap_or_default();
        let message = SseEvent::default().id(merged.positions.id()).data(body);
        Some((Ok(message), merged))
    })
}

impl Merged {
    /// The next event and its member, waiting for it; `None` ends the stream.
    async fn next(&mut self) -> Option<(String, Event)> {
        loop {
            if let Some(next) = self.ready.pop_front() {
                return Some(next);
            }
            if self.key.is_empty() || self.app.keys.find(&self.key).is_none() {
                tracing::info!("an event stream ends: its key was revoked");
                return None;
            }
            tokio::select! {
                batch = self.batches.recv() => {
                    let batch = batch?;
                    if batch.events.is_empty() {
                        // Past events the filter left out: the next message says so.
                        self.positions.0.insert(batch.member, batch.seen);
                    } else {
                        let member = batch.member;
                        self.ready.extend(batch.events.into_iter().map(|e| (member.clone(), e)));
                    }
                }
                () = tokio::time::sleep(KEY_CHECK) => {}
            }
        }
    }
}

/// Reads this member's log from `from` into `sender`.
async fn follow_here(
    app: AppState,
    name: String,
    (filter, mut from): (EventFilter, Option<u64>),
    sender: mpsc::Sender<EventsAnswer<Event>>,
) {
    loop {
        // A stream that starts at the newest event learns where that is at once.
        let wait = if from.is_some() {
            MAX_EVENT_WAIT
        } else {
            Duration::ZERO
        };
        match crate::events::wait_after(&app.events, &filter, from, (BATCH, wait)).await {
            Ok((events, seen)) => {
                from = Some(seen);
                let batch = EventsAnswer {
                    member: name.clone(),
                    events,
                    seen,
                };
                if sender.send(batch).await.is_err() {
                    return;
                }
            }
            Err(error) => {
                tracing::error!(%error, "an event stream cannot read the log; its events wait");
                tokio::time::sleep(RETRY).await;
            }
        }
    }
}

/// Reads member `name`'s log from `from` into `sender`, over the link.
async fn follow_there(
    shared: Arc<ClusterShared>,
    name: String,
    (filter, mut from): (EventFilter, Option<u64>),
    sender: mpsc::Sender<EventsAnswer<Event>>,
) {
    loop {
        let question = Question::Events {
            filter: filter.clone(),
            after: from,
            limit: BATCH,
            wait_ms: if from.is_some() {
                MAX_EVENT_WAIT.as_millis() as u64
            } else {
                0
            },
        };
        match ask_member::<EventsAnswer<Event>>(&shared, &name, &question).await {
            Some(batch) if batch.member == name => {
                from = Some(batch.seen);
                if sender.send(batch).await.is_err() {
                    return;
                }
            }
            _ => {
                if sender.is_closed() {
                    return;
                }
                tokio::time::sleep(RETRY).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_position_reads_back_and_a_plain_id_is_this_members() {
        let both = Positions::parse("alpha:41, bravo:7", "alpha").expect("parsed");
        assert_eq!(both.id(), "alpha:41,bravo:7");
        assert_eq!(Positions::parse(&both.id(), "x"), Some(both));
        assert_eq!(
            Positions::parse("12", "charlie").expect("plain").id(),
            "charlie:12"
        );
        for bad in ["", "alpha", "alpha:x", ":3", "alpha:1,alpha:2", "-1"] {
            assert_eq!(Positions::parse(bad, "alpha"), None, "{bad}");
        }
    }
}
