//! The alarm book: every alarm kept (active ones, and cleared ones within the retention)
//! by id — an alarm's id is the id of the event that raised it — with the active ones
//! indexed by type and object, so an event raises an alarm once and clears the one it
//! ends. [`AlarmBook::apply`] is the whole rule set:
//!
//! | event | raises | clears |
//! |---|---|---|
//! | `OLT_STATUS_CHANGED` to OFFLINE / DEGRADED | `OLT_OFFLINE` / `OLT_DEGRADED` | the other; both when ONLINE or DISABLED |
//! | `PON_OUTAGE`, `SPLITTER_OUTAGE`, `POWER_OUTAGE`, `OLT_OUTAGE` | the same, on `outage:ID` | |
//! | `OUTAGE_CLEARED` | | the outage's |
//! | `ONU_DOWN` no outage explains | `ONU_DOWN` | |
//! | `ONU_UP` | | `ONU_DOWN` |
//! | `OPTICS_LEVEL_CHANGED` to / from CRITICAL | `OPTICS_CRITICAL` | `OPTICS_CRITICAL` |
//! | `ONU_DEAUTHORIZED` | | the ONU's |
//! | `PON_PORT_SATURATED` | `PON_PORT_SATURATED`, on `port:OLT:PORT` | |
//! | `PON_PORT_SATURATION_CLEARED` | | the port's |

use super::archive::AlarmArchive;
use super::changes::What;
use super::{AckRefusal, Alarm, AlarmType};
use chrono::{DateTime, Utc};
use ponkeeper_actors::events::{Event, EventType, Severity};
use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

/// Cleared alarms kept in memory at most (the oldest go first beyond it).
const CLEARED_MAX: usize = 100_000;

/// Which alarms a reader wants; every unset field admits all.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AlarmFilter {
    pub active: Option<bool>,
    pub kind: Option<AlarmType>,
    pub severity: Option<Severity>,
    pub olt_id: Option<u32>,
    pub acknowledged: Option<bool>,
}

impl AlarmFilter {
    fn admits(&self, alarm: &Alarm) -> bool {
        self.active.is_none_or(|a| alarm.is_active() == a)
            && self.kind.is_none_or(|k| alarm.kind == k)
            && self.severity.is_none_or(|s| alarm.severity == s)
            && self.olt_id.is_none_or(|o| alarm.olt_id == Some(o))
            && self
                .acknowledged
                .is_none_or(|a| alarm.acknowledged_at.is_some() == a)
    }
}

#[derive(Default)]
pub struct AlarmBook {
    alarms: BTreeMap<u64, Alarm>,
    active: HashMap<(AlarmType, String), u64>,
    archive: Option<AlarmArchive>,
    retention: Duration,
    /// The last event folded in.
    cursor: u64,
}

impl AlarmBook {
    /// The book `archive` keeps, cleared alarms past `retention` dropped; a book never
    /// written starts after event `log_end`.
    pub(super) fn load(
        archive: AlarmArchive,
        retention: Duration,
        log_end: u64,
        now: DateTime<Utc>,
    ) -> anyhow::Result<AlarmBook> {
        let cursor = archive.cursor()?.unwrap_or(log_end);
        let mut book = AlarmBook {
            alarms: BTreeMap::new(),
            active: HashMap::new(),
            retention,
            cursor,
            archive: None,
        };
        for alarm in archive.load()? {
            if alarm.is_active() {
                book.active
                    .insert((alarm.kind, alarm.object.clone()), alarm.id);
            }
            book.alarms.insert(alarm.id, alarm);
        }
        book.archive = Some(archive);
        book.prune(now);
        Ok(book)
    }

    pub fn cursor(&self) -> u64 {
        self.cursor
    }

    /// Notes that every event up to `id` was folded in.
    pub fn moved_to(&mut self, id: u64) {
        if id == self.cursor {
            return;
        }
        self.cursor = id;
        if let Some(Err(error)) = self.archive.as_ref().map(|a| a.set_cursor(id)) {
            tracing::warn!(%error, "alarms: cursor not written; a restart folds some events again");
        }
    }

    pub fn get(&self, id: u64) -> Option<&Alarm> {
        self.alarms.get(&id)
    }

    /// Folds one event in (the table of the module's documentation).
    pub fn apply(&mut self, event: &Event) {
        let data = &event.data;
        let word = |key: &str| data.get(key).and_then(|v| v.as_str()).unwrap_or("");
        let olt = event.olt_id.map(|id| format!("olt:{id}"));
        let onu = event.onu_id.map(|id| format!("onu:{id}"));
        let outage = data.get("outageId").and_then(|v| v.as_u64());
        if let (Some(olt), Some(port)) = (event.olt_id, &event.pon_port) {
            let object = format!("port:{olt}:{port}");
            match event.kind {
                EventType::PonPortSaturated => {
                    return self.raise(
                        event,
                        AlarmType::PonPortSaturated,
                        Severity::Warning,
                        object,
                    )
                }
                EventType::PonPortSaturationCleared => {
                    return self.clear(AlarmType::PonPortSaturated, &object, event)
                }
                _ => {}
            }
        }
        match (event.kind, olt, onu) {
            (EventType::OltStatusChanged, Some(olt), _) => match word("to") {
                "OFFLINE" => {
                    self.clear(AlarmType::OltDegraded, &olt, event);
                    self.raise(event, AlarmType::OltOffline, Severity::Critical, olt);
                }
                "DEGRADED" => {
                    self.clear(AlarmType::OltOffline, &olt, event);
                    self.raise(event, AlarmType::OltDegraded, Severity::Warning, olt);
                }
                "ONLINE" | "DISABLED" => {
                    self.clear(AlarmType::OltOffline, &olt, event);
                    self.clear(AlarmType::OltDegraded, &olt, event);
                }
                _ => {}
            },
            (EventType::OutageCleared, _, _) => {
                if let Some(id) = outage {
                    for kind in OUTAGE_TYPES {
                        self.clear(kind, &format!("outage:{id}"), event);
                    }
                }
            }
            (EventType::OnuDown, _, Some(onu)) if outage.is_none() => {
                self.raise(event, AlarmType::OnuDown, Severity::Warning, onu);
            }
            (EventType::OnuUp, _, Some(onu)) => self.clear(AlarmType::OnuDown, &onu, event),
            (EventType::OpticsLevelChanged, _, Some(onu)) => {
                if word("to") == "CRITICAL" {
                    self.raise(event, AlarmType::OpticsCritical, Severity::Critical, onu);
                } else if word("from") == "CRITICAL" {
                    self.clear(AlarmType::OpticsCritical, &onu, event);
                }
            }
            (EventType::OnuDeauthorized, _, Some(onu)) => {
                self.clear(AlarmType::OnuDown, &onu, event);
                self.clear(AlarmType::OpticsCritical, &onu, event);
            }
            (EventType::OnuFlapping, _, Some(onu)) => {
                self.raise(event, AlarmType::OnuFlapping, Severity::Warning, onu);
            }
            (EventType::OnuFlappingCleared, _, Some(onu)) => {
                self.clear(AlarmType::OnuFlapping, &onu, event)
            }
            (kind, _, _) => {
                if let (Some(alarm), Some(id)) = (outage_alarm(kind), outage) {
                    self.raise(event, alarm, Severity::Critical, format!("outage:{id}"));
                }
            }
        }
    }

    fn raise(&mut self, event: &Event, kind: AlarmType, severity: Severity, object: String) {
        let key = (kind, object);
        if self.active.contains_key(&key) || self.alarms.contains_key(&event.id) {
            return;
        }
        let alarm = Alarm {
            id: event.id,
            kind,
            severity,
            object: key.1.clone(),
            olt_id: event.olt_id,
            onu_id: event.onu_id,
            outage_id: event.data.get("outageId").and_then(|v| v.as_u64()),
            message: event.message.clone(),
            event_id: event.id,
            started_at: event.at,
            cleared_at: None,
            acknowledged_by: None,
            acknowledged_at: None,
            comment: None,
        };
        self.record(event.id, What::Raised, &alarm);
        self.save(&alarm);
        self.active.insert(key, alarm.id);
        self.alarms.insert(alarm.id, alarm);
    }

    fn clear(&mut self, kind: AlarmType, object: &str, event: &Event) {
        let Some(id) = self.active.remove(&(kind, object.to_string())) else {
            return;
        };
        if let Some(mut alarm) = self.alarms.remove(&id) {
            alarm.cleared_at = Some(event.at);
            self.record(event.id, What::Cleared, &alarm);
            self.save(&alarm);
            self.alarms.insert(id, alarm);
        }
    }

    /// Writes the change to the log notifications read, before the alarm itself: after a
    /// crash between the two, folding the event in again writes the same change again.
    fn record(&self, event_id: u64, what: What, alarm: &Alarm) {
        let written = self
            .archive
            .as_ref()
            .map(|a| a.changes().record(event_id, what, alarm));
        if let Some(Err(error)) = written {
            tracing::warn!(%error, alarm = alarm.id, "alarm change not written; no notification for it");
        }
    }

    fn save(&self, alarm: &Alarm) {
        if let Some(Err(error)) = self.archive.as_ref().map(|a| a.save(alarm)) {
            tracing::warn!(%error, alarm = alarm.id, "alarm not written to the store");
        }
    }

    /// Records `by`'s acknowledgement of alarm `id` (once: a second one is refused,
    /// naming the first).
    pub fn acknowledge(
        &mut self,
        id: u64,
        by: &str,
        comment: Option<String>,
        now: DateTime<Utc>,
    ) -> Result<Alarm, AckRefusal> {
        let alarm = self.alarms.get(&id).ok_or(AckRefusal::NoSuchAlarm)?;
        if let (Some(by), Some(at)) = (&alarm.acknowledged_by, alarm.acknowledged_at) {
            return Err(AckRefusal::Already { by: by.clone(), at });
        }
        let mut acknowledged = alarm.clone();
        acknowledged.acknowledged_by = Some(by.to_string());
        acknowledged.acknowledged_at = Some(now);
        acknowledged.comment = comment;
        if let Some(archive) = &self.archive {
            archive
                .save(&acknowledged)
                .map_err(|e| AckRefusal::Store(e.to_string()))?;
        }
        self.alarms.insert(id, acknowledged.clone());
        Ok(acknowledged)
    }

    /// The alarms `filter` admits, in the page `offset..offset + limit`: unacknowledged
    /// first, then active, then the most severe, then the newest; and how many match.
    pub fn list(&self, filter: &AlarmFilter, offset: usize, limit: usize) -> (usize, Vec<Alarm>) {
        let mut matching: Vec<&Alarm> = self.alarms.values().filter(|a| filter.admits(a)).collect();
        let rank = |s: Severity| match s {
            Severity::Critical => 0,
            Severity::Warning => 1,
            Severity::Info => 2,
        };
        matching.sort_by_key(|a| {
            (
                a.acknowledged_at.is_some(),
                !a.is_active(),
                rank(a.severity),
                // Newest by the second (as the API shows the time), then by id: the
                // order a cluster merges members' lists in.
                std::cmp::Reverse((a.started_at.timestamp(), a.id)),
            )
        });
        let total = matching.len();
        let page = matching
            .into_iter()
            .skip(offset)
            .take(limit)
            .cloned()
            .collect();
        (total, page)
    }

    /// Drops cleared alarms past the retention, and the oldest cleared beyond
    /// [`CLEARED_MAX`].
    pub fn prune(&mut self, now: DateTime<Utc>) {
        let retention =
            chrono::Duration::from_std(self.retention).unwrap_or(chrono::Duration::days(30));
        let mut cleared: Vec<(DateTime<Utc>, u64)> = self
            .alarms
            .values()
            .filter_map(|a| a.cleared_at.map(|at| (at, a.id)))
            .collect();
        cleared.sort_unstable();
        let over = cleared.len().saturating_sub(CLEARED_MAX);
        for (n, (at, id)) in cleared.into_iter().enumerate() {
            if n >= over && now - at <= retention {
                break;
            }
            self.alarms.remove(&id);
            if let Some(archive) = &self.archive {
                let _ = archive.remove(id);
            }
        }
        if let Some(Err(error)) = self
            .archive
            .as_ref()
            .map(|a| a.changes().prune(now - retention))
        {
            tracing::warn!(%error, "alarms: old changes not pruned");
        }
    }
}

const OUTAGE_TYPES: [AlarmType; 4] = [
    AlarmType::PonOutage,
    AlarmType::SplitterOutage,
    AlarmType::PowerOutage,
    AlarmType::OltOutage,
];

/// The alarm an outage event raises.
fn outage_alarm(kind: EventType) -> Option<AlarmType> {
    match kind {
        EventType::PonOutage => Some(AlarmType::PonOutage),
        EventType::SplitterOutage => Some(AlarmType::SplitterOutage),
        EventType::PowerOutage => Some(AlarmType::PowerOutage),
        EventType::OltOutage => Some(AlarmType::OltOutage),
        _ => None,
    }
}
