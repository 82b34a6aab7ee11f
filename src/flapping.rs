//! Flapping ONUs (docs/events.md, `ONU_FLAPPING`): an ONU whose status changed at least
//! `[onu] flap_count` times within `flap_window` "keeps dropping" — the event
//! `ONU_FLAPPING` (WARNING), which raises an alarm — until it has stayed quiet for a whole
//! window, when `ONU_FLAPPING_CLEARED` (INFO) clears both. Like the alarms, this is a
//! projection of the event log: a task reads `ONU_DOWN` and `ONU_UP` from its cursor and
//! appends its own events, so nothing in the poll path pays for it. The ONUs flapping now
//! are what `GET /onus?flapping=true` answers.
//!
//! After a restart the task reads the log back one window (found by a binary search on
//! the events' times: ids are gapless), and takes the ONUs whose `ONU_FLAPPING` alarm is
//! still active as flapping, so neither the detection nor the event is repeated.

use chrono::{DateTime, Duration as Span, Utc};
use ponkeeper_actors::domain::{NodeId, OltId, OnuId};
use ponkeeper_actors::events::{Draft, Event, EventFilter, EventLog, EventType, Severity};
use serde_json::json;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How often the quiet ONUs are looked for, at most.
const QUIET_CHECK: Duration = Duration::from_secs(10);
/// Events read from the log at a time.
const BATCH: usize = 1_000;

/// Where an ONU is, for its events.
#[derive(Debug, Clone, PartialEq)]
struct Place {
    olt: Option<OltId>,
    node: Option<NodeId>,
    pon_port: Option<String>,
}

/// An ONU flapping now.
#[derive(Debug, Clone, PartialEq)]
struct Flapping {
    since: DateTime<Utc>,
    last_change: DateTime<Utc>,
    place: Place,
}

/// The changes of the last window and the ONUs flapping now.
#[derive(Debug)]
pub struct FlapWatch {
    count: usize,
    window: Span,
    changes: HashMap<OnuId, VecDeque<DateTime<Utc>>>,
    flapping: BTreeMap<OnuId, Flapping>,
}

impl FlapWatch {
    /// `count` changes within `window` make an ONU flapping (`[onu] flap_count`,
    /// `flap_window`).
    pub fn new(count: u32, window: Duration) -> FlapWatch {
        FlapWatch {
            count: usize::try_from(count).unwrap_or(usize::MAX),
            window: Span::from_std(window).unwrap_or(Span::minutes(15)),
            changes: HashMap::new(),
            flapping: BTreeMap::new(),
        }
    }

    /// Folds one event in; answers the `ONU_FLAPPING` it starts, if it does.
    pub fn note(&mut self, event: &Event) -> Option<Draft> {
        let onu = event.onu_id?;
        match event.kind {
            EventType::OnuDown | EventType::OnuUp => {}
            EventType::OnuDeauthorized => {
                self.changes.remove(&onu);
                return self
                    .flapping
                    .remove(&onu)
                    .map(|f| cleared(onu, &f, event.at));
            }
            EventType::OnuFlapping => {
                self.flapping
                    .entry(onu)
                    .or_insert_with(|| flapping(event.at, event));
                return None;
            }
            EventType::OnuFlappingCleared => {
                self.flapping.remove(&onu);
                return None;
            }
            _ => return None,
        }
        let since = event.at - self.window;
        let times = self.changes.entry(onu).or_default();
        times.push_back(event.at);
        while times.front().is_some_and(|t| *t < since) {
            times.pop_front();
        }
        let recent = times.len();
        if let Some(flap) = self.flapping.get_mut(&onu) {
            flap.last_change = flap.last_change.max(event.at);
            return None;
        }
        if recent < self.count {
            return None;
        }
        let flap = flapping(event.at, event);
        let draft = started(onu, &flap, recent, self.window);
        self.flapping.insert(onu, flap);
        Some(draft)
    }

    /// Takes the ONUs quiet for a whole window by `now` off the flapping list; answers
    /// their `ONU_FLAPPING_CLEARED`. Forgets changes older than a window.
    pub fn quiet(&mut self, now: DateTime<Utc>) -> Vec<Draft> {
        let since = now - self.window;
        self.changes
            .retain(|_, times| times.back().is_some_and(|t| *t >= since));
        let quiet: Vec<OnuId> = self
            .flapping
            .iter()
            .filter(|(_, f)| f.last_change < since)
            .map(|(onu, _)| *onu)
            .collect();
        quiet
            .into_iter()
            .filter_map(|onu| {
                let flap = self.flapping.remove(&onu)?;
                Some(cleared(onu, &flap, flap.last_change + self.window))
            })
            .collect()
    }

    /// Marks `onu` flapping since `since` (its alarm is still active after a restart).
    fn already_flapping(&mut self, onu: OnuId, since: DateTime<Utc>, olt: Option<OltId>) {
        let place = Place {
            olt,
            node: None,
            pon_port: None,
        };
        self.flapping.entry(onu).or_insert(Flapping {
            since,
            last_change: Utc::now(),
            place,
        });
    }

    /// The ONUs flapping now, by id.
    pub fn ids(&self) -> Vec<OnuId> {
        self.flapping.keys().copied().collect()
    }

    /// Since when `onu` has been flapping, if it is.
    pub fn since(&self, onu: OnuId) -> Option<DateTime<Utc>> {
        self.flapping.get(&onu).map(|f| f.since)
    }
}

fn flapping(at: DateTime<Utc>, event: &Event) -> Flapping {
    Flapping {
        since: at,
        last_change: at,
        place: Place {
            olt: event.olt_id,
            node: event.node_id,
            pon_port: event.pon_port.clone(),
        },
    }
}

fn started(onu: OnuId, flap: &Flapping, changes: usize, window: Span) -> Draft {
    let minutes = window.num_minutes();
    Draft {
        event: Event {
            id: 0,
            at: flap.since,
            kind: EventType::OnuFlapping,
            severity: Severity::Warning,
            olt_id: flap.place.olt,
            node_id: flap.place.node,
            pon_port: flap.place.pon_port.clone(),
            onu_id: Some(onu),
            szo_id: None,
            message: format!("ONU {onu} is flapping: {changes} state changes in {minutes} min"),
            data: json!({ "changes": changes, "windowSeconds": window.num_seconds() }),
        },
        serial: None,
    }
}

fn cleared(onu: OnuId, flap: &Flapping, at: DateTime<Utc>) -> Draft {
    Draft {
        event: Event {
            id: 0,
            at,
            kind: EventType::OnuFlappingCleared,
            severity: Severity::Info,
            olt_id: flap.place.olt,
            node_id: flap.place.node,
            pon_port: flap.place.pon_port.clone(),
            onu_id: Some(onu),
            szo_id: None,
            message: format!("ONU {onu} stopped flapping"),
            data: json!({ "since": flap.since }),
        },
        serial: None,
    }
}

/// The flapping ONUs every handler sees; cheap to clone. Empty until [`Flaps::start`].
#[derive(Clone, Default)]
pub struct Flaps {
    watch: Arc<Mutex<Option<FlapWatch>>>,
}

impl Flaps {
    fn with<T>(&self, read: impl FnOnce(&mut FlapWatch) -> T) -> Option<T> {
        let mut guard = match self.watch.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        guard.as_mut().map(read)
    }

    /// The ONUs flapping now, by id.
    pub fn ids(&self) -> Vec<OnuId> {
        self.with(|w| w.ids()).unwrap_or_default()
    }

    /// Since when `onu` has been flapping, if it is.
    pub fn since(&self, onu: OnuId) -> Option<DateTime<Utc>> {
        self.with(|w| w.since(onu)).flatten()
    }

    /// Starts the projection of `events`, reading back one window; `still_active` are
    /// the ONUs (and their OLTs) whose `ONU_FLAPPING` alarm is active.
    pub fn start(
        &self,
        events: EventLog,
        (count, window): (u32, Duration),
        still_active: Vec<(OnuId, Option<OltId>, DateTime<Utc>)>,
    ) {
        let mut watch = FlapWatch::new(count, window);
        for (onu, olt, since) in still_active {
            watch.already_flapping(onu, since, olt);
        }
        let window = watch.window;
        *match self.watch.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        } = Some(watch);
        let cursor = first_at_or_after(&events, Utc::now() - window).saturating_sub(1);
        tokio::spawn(project(self.clone(), events, cursor));
    }
}

/// The id before which every event is older than `at` (the log's end + 1 when all are).
fn first_at_or_after(events: &EventLog, at: DateTime<Utc>) -> u64 {
    let time_of = |id: u64| -> Option<DateTime<Utc>> {
        let (found, _) = events
            .after(id.saturating_sub(1), &EventFilter::default(), 1)
            .ok()?;
        found.first().filter(|e| e.id == id).map(|e| e.at)
    };
    let (mut low, mut high) = (1, events.last_id() + 1);
    while low < high {
        let middle = low + (high - low) / 2;
        match time_of(middle) {
            Some(t) if t < at => low = middle + 1,
            _ => high = middle,
        }
    }
    low
}

/// Reads the log from `cursor` for good: each ONU change folded in, each flap started
/// or ended appended to the log.
async fn project(flaps: Flaps, events: EventLog, mut cursor: u64) {
    let mut last = events.subscribe();
    let filter = EventFilter {
        types: vec![
            EventType::OnuDown,
            EventType::OnuUp,
            EventType::OnuDeauthorized,
            EventType::OnuFlapping,
            EventType::OnuFlappingCleared,
        ],
        ..EventFilter::default()
    };
    loop {
        last.borrow_and_update();
        let (batch, seen) = match events.after(cursor, &filter, BATCH) {
            Ok(read) => read,
            Err(error) => {
                tracing::error!(%error, "flapping: cannot read the event log");
                tokio::time::sleep(Duration::from_secs(5)).await;
                continue;
            }
        };
        cursor = seen.max(cursor);
        let mut drafts: Vec<Draft> = flaps
            .with(|w| batch.iter().filter_map(|e| w.note(e)).collect())
            .unwrap_or_default();
        drafts.extend(flaps.with(|w| w.quiet(Utc::now())).unwrap_or_default());
        if !drafts.is_empty() {
            if let Err(error) = events.append(drafts).await {
                tracing::warn!(%error, "flapping: events not written");
            }
        }
        if batch.is_empty() {
            tokio::select! {
                changed = last.changed() => if changed.is_err() { return },
                _ = tokio::time::sleep(QUIET_CHECK) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests;
