//! Where alarms are kept: the store's `alarms` tree (alarm id → the alarm as JSON),
//! written on every raise, clear and acknowledgement, and `alarms_meta` (`cursor` → the
//! last event folded in, u64 big-endian), so a restart goes on from there; and the change
//! log ([`ChangeLog`], tree `alarm_changes`) that notifications read.

use super::changes::ChangeLog;
use super::Alarm;
use ponkeeper_actors::store::{Store, StoreError};

const ALARMS: &str = "alarms";
const META: &str = "alarms_meta";
const CURSOR: &[u8] = b"cursor";

#[derive(Clone)]
pub struct AlarmArchive {
    store: Store,
    alarms: sled::Tree,
    meta: sled::Tree,
    changes: ChangeLog,
}

impl AlarmArchive {
    pub fn open(store: &Store) -> Result<AlarmArchive, StoreError> {
        Ok(AlarmArchive {
            alarms: store.open_tree(ALARMS)?,
            meta: store.open_tree(META)?,
            changes: ChangeLog::open(store)?,
            store: store.clone(),
        })
    }

    pub fn changes(&self) -> &ChangeLog {
        &self.changes
    }

    /// Every alarm kept, by id.
    pub fn load(&self) -> Result<Vec<Alarm>, StoreError> {
        let mut list = Vec::new();
        for entry in self.alarms.iter() {
            let (_, value) = entry?;
            list.push(ponkeeper_actors::store::decode(ALARMS, &value)?);
        }
        Ok(list)
    }

    pub fn save(&self, alarm: &Alarm) -> Result<(), StoreError> {
        self.store.writable()?;
        self.alarms
            .insert(alarm.id.to_be_bytes(), serde_json::to_vec(alarm)?)?;
        Ok(())
    }

    pub fn remove(&self, id: u64) -> Result<(), StoreError> {
        self.alarms.remove(id.to_be_bytes())?;
        Ok(())
    }

    /// The last event folded in; `None` for a book never written.
    pub fn cursor(&self) -> Result<Option<u64>, StoreError> {
        Ok(self
            .meta
            .get(CURSOR)?
            .and_then(|v| <[u8; 8]>::try_from(v.as_ref()).ok())
            .map(u64::from_be_bytes))
    }

    pub fn set_cursor(&self, id: u64) -> Result<(), StoreError> {
        self.store.writable()?;
        self.meta.insert(CURSOR, &id.to_be_bytes())?;
        Ok(())
    }
}
