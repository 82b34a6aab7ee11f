//! Active alarms (docs/outages.md#alarms): one list of what is wrong now — an OLT offline
//! or degraded, each outage, an ONU down that no outage explains, an ONU whose signal is
//! CRITICAL — each with its severity, object, start and, once it ends, its clear time,
//! and an operator's acknowledgement (who, when, a comment). Alarms are a projection of
//! the event log: a task reads the log from its cursor like a webhook does
//! ([`project`]), so a restart goes on where it stopped and nothing is raised twice. The
//! book ([`book`]) holds them in memory and writes each change to the store's `alarms`
//! tree ([`archive`]); cleared alarms are kept for `[alarms] retention`. Every raise and
//! clear is also written to the change log ([`changes`]) that notifications read.

mod archive;
mod book;
pub mod changes;
#[cfg(test)]
mod tests;

pub use book::{AlarmBook, AlarmFilter};
pub use changes::{AlarmChange, ChangeKey, ChangeLog, What};

use chrono::{DateTime, Utc};
use ponkeeper_actors::events::{EventFilter, EventLog, Severity};
use ponkeeper_actors::store::Store;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use utoipa::ToSchema;

/// `[alarms]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AlarmsConfig {
    /// Cleared alarms are kept this long.
    #[serde(with = "humantime_serde")]
    pub retention: Duration,
}

impl Default for AlarmsConfig {
    fn default() -> Self {
        AlarmsConfig {
            retention: Duration::from_secs(30 * 86_400),
        }
    }
}

/// What is wrong.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    ToSchema,
    schemars::JsonSchema,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AlarmType {
    OltOffline,
    OltDegraded,
    PonOutage,
    SplitterOutage,
    PowerOutage,
    OltOutage,
    OnuDown,
    OpticsCritical,
    PonPortSaturated,
    OnuFlapping,
}

/// One alarm (docs/outages.md#alarms).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Alarm {
    pub id: u64,
    #[serde(rename = "type")]
    pub kind: AlarmType,
    pub severity: Severity,
    /// What it is about: `olt:3`, `outage:2000311`, `onu:2000049`, `port:3:0/1/0`.
    pub object: String,
    pub olt_id: Option<u32>,
    pub onu_id: Option<u64>,
    pub outage_id: Option<u64>,
    /// The message of the event that raised it.
    pub message: String,
    /// The event that raised it.
    pub event_id: u64,
    pub started_at: DateTime<Utc>,
    pub cleared_at: Option<DateTime<Utc>>,
    pub acknowledged_by: Option<String>,
    pub acknowledged_at: Option<DateTime<Utc>>,
    pub comment: Option<String>,
}

impl Alarm {
    pub fn is_active(&self) -> bool {
        self.cleared_at.is_none()
    }
}

/// Why an acknowledgement was refused.
#[derive(Debug, PartialEq)]
pub enum AckRefusal {
    NoSuchAlarm,
    Already { by: String, at: DateTime<Utc> },
    Store(String),
}

/// The alarms every handler sees; cheap to clone. Empty until [`Alarms::start`].
#[derive(Clone)]
pub struct Alarms {
    book: Arc<Mutex<AlarmBook>>,
    /// The change log, once started.
    changes: Arc<std::sync::OnceLock<ChangeLog>>,
    /// Bumped after each batch of events folded in: the change log may have grown.
    folded: Arc<tokio::sync::watch::Sender<u64>>,
}

impl Default for Alarms {
    fn default() -> Self {
        Alarms {
            book: Arc::default(),
            changes: Arc::default(),
            folded: Arc::new(tokio::sync::watch::channel(0).0),
        }
    }
}

impl Alarms {
    /// The change log (`None` before [`Alarms::start`]).
    pub fn changes(&self) -> Option<&ChangeLog> {
        self.changes.get()
    }

    /// Changes when the projection has folded more events in.
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.folded.subscribe()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, AlarmBook> {
        match self.book.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Loads the kept alarms from `store` and starts the projection of `events` from
    /// the book's cursor (a new book starts at the log's end: the past is not re-raised).
    pub fn start(
        &self,
        store: &Store,
        events: EventLog,
        config: &AlarmsConfig,
    ) -> anyhow::Result<()> {
        let archive = archive::AlarmArchive::open(store)?;
        let _ = self.changes.set(archive.changes().clone());
        let book = AlarmBook::load(archive, config.retention, events.last_id(), Utc::now())?;
        *self.lock() = book;
        tokio::spawn(project(self.clone(), events));
        Ok(())
    }

    /// The alarms `filter` admits: unacknowledged first, then the most severe, then the
    /// newest; and how many there are.
    pub fn list(&self, filter: &AlarmFilter, offset: usize, limit: usize) -> (usize, Vec<Alarm>) {
        self.lock().list(filter, offset, limit)
    }

    /// The ONUs with an active `ONU_FLAPPING` alarm: their OLT and since when.
    pub fn flapping_now(&self) -> Vec<(u64, Option<u32>, DateTime<Utc>)> {
        let filter = AlarmFilter {
            active: Some(true),
            kind: Some(AlarmType::OnuFlapping),
            ..AlarmFilter::default()
        };
        let (_, alarms) = self.list(&filter, 0, 1_000_000);
        alarms
            .into_iter()
            .filter_map(|a| Some((a.onu_id?, a.olt_id, a.started_at)))
            .collect()
    }

    pub fn get(&self, id: u64) -> Option<Alarm> {
        self.lock().get(id).cloned()
    }

    /// Acknowledges alarm `id` for `by`, with an optional comment.
    pub fn acknowledge(
        &self,
        id: u64,
        by: &str,
        comment: Option<String>,
    ) -> Result<Alarm, AckRefusal> {
        self.lock().acknowledge(id, by, comment, Utc::now())
    }
}

/// Events read from the log at a time.
const BATCH: usize = 500;

/// The projection: reads the log after the book's cursor, folds each event in, and waits
/// for more; an hourly prune drops the cleared alarms past the retention.
async fn project(alarms: Alarms, events: EventLog) {
    let mut last = events.subscribe();
    let mut pruned = tokio::time::Instant::now();
    loop {
        last.borrow_and_update();
        let cursor = alarms.lock().cursor();
        let (batch, seen) = match events.after(cursor, &EventFilter::default(), BATCH) {
            Ok(read) => read,
            Err(error) => {
                tracing::error!(%error, "alarms: cannot read the event log");
                tokio::time::sleep(Duration::from_secs(5)).await;
                continue;
            }
        };
        {
            let mut book = alarms.lock();
            for event in &batch {
                book.apply(event);
            }
            book.moved_to(seen.max(cursor));
            if pruned.elapsed() > Duration::from_secs(3600) {
                book.prune(Utc::now());
                pruned = tokio::time::Instant::now();
            }
        }
        if !batch.is_empty() {
            alarms.folded.send_replace(seen.max(cursor));
        }
        if batch.is_empty() && last.changed().await.is_err() {
            return; // the log is gone: the service is stopping
        }
    }
}
