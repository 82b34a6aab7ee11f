//! The event log: event id → [`Event`] (JSON) in the `events` tree, appended by one actor
//! so ids are given in order without gaps (the next id is kept in `events_meta`, so
//! pruning the oldest never reuses one). The fleet view sends it the drafts it derives
//! ([`EventLog::send`]); the actor gives them ids, adds the СЗО events of bound ONUs,
//! writes and flushes them, and only then moves [`EventLog::subscribe`]'s watch to the
//! new last id, so whoever is told (the stream, webhooks) reads events that are on disk.
//! Readers read the tree directly: newest first for `GET /events`, oldest first after an
//! id for the stream and webhooks. Every hour the actor drops events older than
//! `events.retention`.

use super::record::{Draft, Event, EventFilter, EventType, Severity};
use crate::store::{decode, flush_tree, Store, StoreError};
use chrono::Utc;
use ractor::rpc::CallResult;
use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio::sync::watch;

pub(crate) const EVENTS: &str = "events";
const EVENTS_META: &str = "events_meta";
const NEXT_ID: &[u8] = b"next_id";
/// How often events past retention are dropped.
const PRUNE_EVERY: Duration = Duration::from_secs(3600);
const APPEND_TIMEOUT: Duration = Duration::from_secs(10);

/// `[events]` as the log uses it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EventSettings {
    /// Events older than this are dropped.
    pub retention: Duration,
}

impl Default for EventSettings {
    fn default() -> Self {
        EventSettings {
            retention: Duration::from_secs(30 * 24 * 3600),
        }
    }
}

/// СЗО bound to ONU serials (lower case) → СЗО id; set from the inventory.
type SzoBindings = Arc<RwLock<HashMap<String, u32>>>;

pub enum EventLogMsg {
    Append(Vec<Draft>, Option<RpcReplyPort<Result<Vec<Event>, String>>>),
    Prune,
}

// Local only: ractor's `cluster` feature (ponkeeper's members, src/cluster.rs) asks
// every message type to say whether it crosses the network; this one does not.
impl ractor::Message for EventLogMsg {}

struct EventLogActor;

struct EventLogState {
    /// The store the log lives in: asked whether a write may go ahead.
    store: Store,
    tree: sled::Tree,
    meta: sled::Tree,
    next: u64,
    last: watch::Sender<u64>,
    szo: SzoBindings,
    retention: Duration,
}

struct EventLogArgs {
    store: Store,
    tree: sled::Tree,
    meta: sled::Tree,
    last: watch::Sender<u64>,
    szo: SzoBindings,
    retention: Duration,
}

impl Actor for EventLogActor {
    type Msg = EventLogMsg;
    type State = EventLogState;
    type Arguments = EventLogArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<EventLogMsg>,
        args: EventLogArgs,
    ) -> Result<EventLogState, ActorProcessingErr> {
        let next = next_id(&args.tree, &args.meta, args.store.id_floor())?;
        myself.send_interval(PRUNE_EVERY, || EventLogMsg::Prune);
        let _ = myself.send_message(EventLogMsg::Prune);
        Ok(EventLogState {
            store: args.store,
            tree: args.tree,
            meta: args.meta,
            next,
            last: args.last,
            szo: args.szo,
            retention: args.retention,
        })
    }

    async fn handle(
        &self,
        _myself: ActorRef<EventLogMsg>,
        message: EventLogMsg,
        state: &mut EventLogState,
    ) -> Result<(), ActorProcessingErr> {
        match message {
            EventLogMsg::Append(drafts, reply) => {
                let result = state.append(drafts).await;
                if let Err(error) = &result {
                    crate::store::log_write_error(
                        "events were not written to the log",
                        None,
                        error,
                    );
                }
                if let Some(reply) = reply {
                    let _ = reply.send(result.map_err(|e| e.to_string()));
                }
            }
            EventLogMsg::Prune => {
                let cutoff = Utc::now()
                    - chrono::Duration::from_std(state.retention).unwrap_or(chrono::Duration::MAX);
                match prune(&state.tree, cutoff) {
                    Ok(0) => {}
                    Ok(n) => tracing::info!(removed = n, "events past retention dropped"),
                    Err(error) => tracing::warn!(%error, "cannot prune the event log"),
                }
            }
        }
        Ok(())
    }
}

impl EventLogState {
    /// Gives the drafts ids, adds СЗО events, writes, flushes, then tells the watchers.
    async fn append(&mut self, drafts: Vec<Draft>) -> Result<Vec<Event>, StoreError> {
        if drafts.is_empty() {
            return Ok(Vec::new());
        }
        self.store.writable()?;
        let mut events = Vec::with_capacity(drafts.len());
        for draft in drafts {
            let mut event = draft.event;
            event.id = self.next + events.len() as u64;
            let szo = self.szo_of(&draft.serial);
            // The ONU's own event names the СЗО it serves too, not only SZO_DOWN / SZO_UP.
            event.szo_id = event.szo_id.or(szo);
            let extra = szo.and_then(|szo| szo_event(&event, szo));
            events.push(event);
            if let Some(mut extra) = extra {
                extra.id = self.next + events.len() as u64;
                events.push(extra);
            }
        }
        for event in &events {
            self.tree
                .insert(event.id.to_be_bytes(), serde_json::to_vec(event)?)?;
        }
        self.next += events.len() as u64;
        self.meta.insert(NEXT_ID, &self.next.to_be_bytes())?;
        flush_tree(&self.tree).await?;
        self.last.send_replace(self.next - 1);
        Ok(events)
    }

    fn szo_of(&self, serial: &Option<String>) -> Option<u32> {
        let serial = serial.as_ref()?.to_ascii_lowercase();
        let bindings = match self.szo.read() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        bindings.get(&serial).copied()
    }
}

/// `SZO_DOWN` / `SZO_UP` for the СЗО bound to the ONU of an `ONU_DOWN` / `ONU_UP`.
fn szo_event(onu_event: &Event, szo: u32) -> Option<Event> {
    let (kind, severity, word) = match onu_event.kind {
        EventType::OnuDown => (EventType::SzoDown, Severity::Critical, "down"),
        EventType::OnuUp => (EventType::SzoUp, Severity::Info, "up"),
        _ => return None,
    };
    Some(Event {
        kind,
        severity,
        szo_id: Some(szo),
        message: format!("СЗО {szo} is {word}: {}", onu_event.message),
        data: serde_json::json!({ "onuEventId": onu_event.id }),
        ..onu_event.clone()
    })
}

/// The id the next event gets: past the newest event, past the kept counter and past
/// `floor`, the first id of a cluster member's block (0 alone), so no two members' events
/// share an id (nor a webhook a `webhook-id`).
fn next_id(tree: &sled::Tree, meta: &sled::Tree, floor: u64) -> Result<u64, StoreError> {
    let after_last = match tree.last()? {
        Some((key, _)) => id_of(&key) + 1,
        None => 1,
    };
    let kept = meta.get(NEXT_ID)?.map(|v| id_of(&v)).unwrap_or(1);
    Ok(after_last.max(kept).max(floor + 1))
}

fn id_of(bytes: &[u8]) -> u64 {
    bytes
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .map(u64::from_be_bytes)
        .unwrap_or(0)
}

/// Drops events older than `cutoff`, oldest first, stopping at the first newer one.
fn prune(tree: &sled::Tree, cutoff: chrono::DateTime<Utc>) -> Result<usize, StoreError> {
    let mut removed = 0;
    for entry in tree.iter() {
        let (key, value) = entry?;
        let event: Event = decode(EVENTS, &value)?;
        if event.at >= cutoff {
            break;
        }
        tree.remove(key)?;
        removed += 1;
    }
    Ok(removed)
}

/// The event log's handle: append through the actor, read the tree directly.
#[derive(Clone)]
pub struct EventLog {
    actor: ActorRef<EventLogMsg>,
    tree: sled::Tree,
    last: watch::Receiver<u64>,
    szo: SzoBindings,
    settings: EventSettings,
}

impl EventLog {
    /// Opens the log in `store` and starts its writer.
    pub async fn start(store: &Store, settings: EventSettings) -> Result<EventLog, String> {
        let open = |name| {
            store
                .open_tree(name)
                .map_err(|e| format!("cannot open the event log: {e}"))
        };
        let (tree, meta) = (open(EVENTS)?, open(EVENTS_META)?);
        let first_next = next_id(&tree, &meta, store.id_floor()).map_err(|e| e.to_string())?;
        let (sender, last) = watch::channel(first_next - 1);
        let szo = SzoBindings::default();
        let args = EventLogArgs {
            store: store.clone(),
            tree: tree.clone(),
            meta,
            last: sender,
            szo: szo.clone(),
            retention: settings.retention,
        };
        let (actor, _) = Actor::spawn(None, EventLogActor, args)
            .await
            .map_err(|e| format!("cannot start the event log: {e}"))?;
        Ok(EventLog {
            actor,
            tree,
            last,
            szo,
            settings,
        })
    }

    pub fn settings(&self) -> EventSettings {
        self.settings
    }

    /// Stops the writer after what it has queued (at shutdown, after the fleet view).
    pub async fn stop(&self) {
        if let Err(error) = self.actor.drain_and_wait(Some(APPEND_TIMEOUT)).await {
            tracing::warn!(%error, "the event log did not stop in time");
        }
    }

    /// Queues drafts for the log; never waits.
    pub fn send(&self, drafts: Vec<Draft>) {
        if drafts.is_empty() {
            return;
        }
        if let Err(error) = self.actor.send_message(EventLogMsg::Append(drafts, None)) {
            tracing::warn!(%error, "the event log is gone; events were lost");
        }
    }

    /// Appends drafts and answers with the events as written.
    pub async fn append(&self, drafts: Vec<Draft>) -> Result<Vec<Event>, String> {
        match self
            .actor
            .call(
                |reply| EventLogMsg::Append(drafts, Some(reply)),
                Some(APPEND_TIMEOUT),
            )
            .await
        {
            Ok(CallResult::Success(result)) => result,
            Ok(CallResult::Timeout) => Err("the event log did not answer".into()),
            Ok(CallResult::SenderError) | Err(_) => Err("the event log is not running".into()),
        }
    }

    /// Binds СЗО to ONU serials (the inventory's `szo` entries), replacing the old binding.
    pub fn bind_szo(&self, bindings: impl IntoIterator<Item = (String, u32)>) {
        let map = bindings
            .into_iter()
            .map(|(serial, id)| (serial.to_ascii_lowercase(), id))
            .collect();
        match self.szo.write() {
            Ok(mut guard) => *guard = map,
            Err(poisoned) => *poisoned.into_inner() = map,
        }
    }

    /// The id of the newest event on disk (0: none yet).
    pub fn last_id(&self) -> u64 {
        *self.last.borrow()
    }

    /// A watch of [`EventLog::last_id`]: it changes after events are on disk.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.last.clone()
    }

    /// A page of the events `filter` admits, newest first, and how many it admits.
    pub fn page(
        &self,
        filter: &EventFilter,
        offset: usize,
        limit: usize,
    ) -> Result<(usize, Vec<Event>), StoreError> {
        let mut total = 0;
        let mut page = Vec::new();
        for value in self.tree.iter().values().rev() {
            let event: Event = decode(EVENTS, &value?)?;
            if !filter.admits(&event) {
                continue;
            }
            if total >= offset && page.len() < limit {
                page.push(event);
            }
            total += 1;
        }
        Ok((total, page))
    }

    /// Up to `limit` events with an id above `after` that `filter` admits, oldest first,
    /// and the id of the last event looked at (so a reader skips what it did not want).
    pub fn after(
        &self,
        after: u64,
        filter: &EventFilter,
        limit: usize,
    ) -> Result<(Vec<Event>, u64), StoreError> {
        let mut seen = after;
        let mut events = Vec::new();
        let start = after.saturating_add(1).to_be_bytes();
        for value in self.tree.range(start..) {
            let (key, value) = value?;
            let id = id_of(&key);
            if id > self.last_id() {
                break; // not flushed yet: its watchers are told when it is
            }
            seen = id;
            let event: Event = decode(EVENTS, &value)?;
            if filter.admits(&event) {
                events.push(event);
                if events.len() >= limit {
                    break;
                }
            }
        }
        Ok((events, seen))
    }
}
