//! The alarm change log: every raise and every clear the book makes, in the order of the
//! events that made them, in the store's `alarm_changes` tree. Notifications
//! ([`crate::notify`]) read it from their own cursors, the way webhooks read the event
//! log. A change's key is the event that made it, the alarm and what happened (17 bytes,
//! big-endian), so folding an event in again after a crash writes the same key again and
//! never a second change: a reader gets each change once, in order, at least once across
//! restarts. Changes older than the alarms' retention are pruned with the cleared alarms.

use super::Alarm;
use chrono::{DateTime, Utc};
use ponkeeper_actors::store::{Store, StoreError};
use serde::{Deserialize, Serialize};

const CHANGES: &str = "alarm_changes";

/// Where a change sits in the log: the event that made it, the alarm, what happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct ChangeKey(pub [u8; 17]);

impl ChangeKey {
    fn new(event_id: u64, alarm_id: u64, what: What) -> ChangeKey {
        let mut key = [0u8; 17];
        key[..8].copy_from_slice(&event_id.to_be_bytes());
        key[8..16].copy_from_slice(&alarm_id.to_be_bytes());
        key[16] = what as u8;
        ChangeKey(key)
    }

    /// The event the change came from.
    pub fn event_id(&self) -> u64 {
        u64::from_be_bytes(self.0[..8].try_into().unwrap_or_default())
    }
}

/// What happened to the alarm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum What {
    Raised = 1,
    Cleared = 2,
}

/// One change: the alarm as it was right after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlarmChange {
    #[serde(skip)]
    pub key: ChangeKey,
    pub what: What,
    pub alarm: Alarm,
}

#[derive(Clone)]
pub struct ChangeLog {
    store: Store,
    tree: sled::Tree,
}

impl ChangeLog {
    pub fn open(store: &Store) -> Result<ChangeLog, StoreError> {
        Ok(ChangeLog {
            tree: store.open_tree(CHANGES)?,
            store: store.clone(),
        })
    }

    /// Writes the change `event_id` made to `alarm`.
    pub fn record(&self, event_id: u64, what: What, alarm: &Alarm) -> Result<(), StoreError> {
        self.store.writable()?;
        let key = ChangeKey::new(event_id, alarm.id, what);
        let change = AlarmChange {
            key,
            what,
            alarm: alarm.clone(),
        };
        self.tree.insert(key.0, serde_json::to_vec(&change)?)?;
        Ok(())
    }

    /// At most `limit` changes after `key`, oldest first.
    pub fn after(&self, key: ChangeKey, limit: usize) -> Result<Vec<AlarmChange>, StoreError> {
        let mut changes = Vec::new();
        for entry in self.tree.range(key.0..).take(limit + 1) {
            let (raw, value) = entry?;
            let Ok(raw) = <[u8; 17]>::try_from(raw.as_ref()) else {
                continue;
            };
            if raw == key.0 {
                continue;
            }
            let mut change: AlarmChange = ponkeeper_actors::store::decode(CHANGES, &value)?;
            change.key = ChangeKey(raw);
            changes.push(change);
            if changes.len() == limit {
                break;
            }
        }
        Ok(changes)
    }

    /// The newest change's key (the zero key for an empty log).
    pub fn last(&self) -> Result<ChangeKey, StoreError> {
        Ok(self
            .tree
            .last()?
            .and_then(|(raw, _)| <[u8; 17]>::try_from(raw.as_ref()).ok())
            .map(ChangeKey)
            .unwrap_or_default())
    }

    /// Drops the changes made before `before` (a raise at the alarm's start, a clear at
    /// its end).
    pub fn prune(&self, before: DateTime<Utc>) -> Result<usize, StoreError> {
        let mut dropped = 0;
        for entry in self.tree.iter() {
            let (raw, value) = entry?;
            let change: AlarmChange = ponkeeper_actors::store::decode(CHANGES, &value)?;
            let made = match change.what {
                What::Raised => Some(change.alarm.started_at),
                What::Cleared => change.alarm.cleared_at,
            };
            if made.is_none_or(|at| at < before) {
                self.tree.remove(raw)?;
                dropped += 1;
            }
        }
        Ok(dropped)
    }
}
