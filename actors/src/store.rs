//! The sled store, behind typed trees: OLT session records, ONU tables, the ONU id
//! allocation and API keys. Every sled call in ponkeeper goes through here, so moving to
//! another engine is one file. OLT actors write their own records after each poll; the
//! service reads them at start-up to answer before the first poll; key management writes
//! keys and flushes them before it reports success.

use crate::domain::{OltId, Onu, OnuId, PonPortStats, SessionStatus};
use chrono::{DateTime, Utc};
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The sled error is shown, not chained, so reports do not repeat it.
    #[error("store: {0}")]
    Sled(sled::Error),
    #[error("store: record {key} in tree {tree} is unreadable: {source}")]
    Decode {
        tree: &'static str,
        key: String,
        source: serde_json::Error,
    },
    #[error("store: cannot encode a record: {0}")]
    Encode(#[from] serde_json::Error),
}

impl From<sled::Error> for StoreError {
    fn from(error: sled::Error) -> Self {
        StoreError::Sled(error)
    }
}

/// One move between session states, with its reason (SPEC §3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transition {
    pub at: DateTime<Utc>,
    pub from: Option<SessionStatus>,
    pub to: SessionStatus,
    pub reason: String,
}

/// What the OLT told us about itself in the last good poll.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SystemInfo {
    pub sys_name: Option<String>,
    pub sys_descr: Option<String>,
    pub uptime_seconds: Option<u64>,
    pub firmware: Option<String>,
}

/// The persisted part of an OLT actor's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OltRecord {
    pub id: OltId,
    pub status: SessionStatus,
    pub since: DateTime<Utc>,
    pub last_poll_at: Option<DateTime<Utc>>,
    pub last_poll_ms: Option<u64>,
    pub last_success_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    pub failures_in_row: u32,
    pub system: SystemInfo,
    pub ports: Vec<PonPortStats>,
    pub transitions: Vec<Transition>,
}

/// Access level of an API key (seed §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AccessLevel {
    ReadOnly,
    Full,
}

impl AccessLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            AccessLevel::ReadOnly => "READ_ONLY",
            AccessLevel::Full => "FULL",
        }
    }
}

impl std::str::FromStr for AccessLevel {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "READ_ONLY" => Ok(AccessLevel::ReadOnly),
            "FULL" => Ok(AccessLevel::Full),
            other => Err(format!(
                "unknown access level `{other}`: must be READ_ONLY or FULL"
            )),
        }
    }
}

/// A stored API key: its SHA-256, never the key itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiKeyRecord {
    pub name: String,
    /// Lower-case hex SHA-256 of the key.
    pub sha256: String,
    pub level: AccessLevel,
    /// Rate such as `100/s`; `None` means the configured default.
    pub rate: Option<String>,
    /// CIDRs the key may be used from; empty means anywhere.
    pub allow_ip: Vec<String>,
    pub created_at: DateTime<Utc>,
}

const OLTS: &str = "olts";
const ONUS: &str = "onus";
const ONU_IDS: &str = "onu_ids";
const API_KEYS: &str = "api_keys";

/// Handle to the database; cheap to clone, shared by every actor.
#[derive(Clone)]
pub struct Store {
    db: sled::Db,
    olts: sled::Tree,
    onus: sled::Tree,
    onu_ids: sled::Tree,
    api_keys: sled::Tree,
}

impl Store {
    /// Opens (or creates) the store in `dir`. Fails if another process holds it.
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        let db = sled::Config::new()
            .path(dir.join("ponkeeper.sled"))
            .flush_every_ms(Some(500))
            .open()?;
        Ok(Store {
            olts: db.open_tree(OLTS)?,
            onus: db.open_tree(ONUS)?,
            onu_ids: db.open_tree(ONU_IDS)?,
            api_keys: db.open_tree(API_KEYS)?,
            db,
        })
    }

    pub fn load_olt(&self, id: OltId) -> Result<Option<OltRecord>, StoreError> {
        get_json(&self.olts, OLTS, &id.to_be_bytes())
    }

    pub fn save_olt(&self, record: &OltRecord) -> Result<(), StoreError> {
        self.olts
            .insert(record.id.to_be_bytes(), serde_json::to_vec(record)?)?;
        Ok(())
    }

    pub fn load_onus(&self, olt: OltId) -> Result<Vec<Onu>, StoreError> {
        Ok(get_json(&self.onus, ONUS, &olt.to_be_bytes())?.unwrap_or_default())
    }

    pub fn save_onus(&self, olt: OltId, onus: &[Onu]) -> Result<(), StoreError> {
        self.onus
            .insert(olt.to_be_bytes(), serde_json::to_vec(onus)?)?;
        Ok(())
    }

    /// The stable id of the ONU with `serial` on `olt`, allocated on first sight.
    pub fn onu_id(&self, olt: OltId, serial: &str) -> Result<OnuId, StoreError> {
        let mut key = olt.to_be_bytes().to_vec();
        key.extend_from_slice(serial.as_bytes());
        if let Some(existing) = self.onu_ids.get(&key)? {
            if let Ok(bytes) = <[u8; 8]>::try_from(existing.as_ref()) {
                return Ok(u64::from_be_bytes(bytes));
            }
        }
        let id = self.db.generate_id()? + 1;
        match self.onu_ids.compare_and_swap(
            &key,
            None as Option<&[u8]>,
            Some(&id.to_be_bytes()[..]),
        )? {
            Ok(()) => Ok(id),
            Err(conflict) => {
                let current = conflict.current.as_deref().unwrap_or_default();
                Ok(<[u8; 8]>::try_from(current)
                    .map(u64::from_be_bytes)
                    .unwrap_or(id))
            }
        }
    }

    pub fn api_keys(&self) -> Result<Vec<ApiKeyRecord>, StoreError> {
        self.api_keys
            .iter()
            .map(|entry| {
                let (key, value) = entry?;
                serde_json::from_slice(&value).map_err(|source| StoreError::Decode {
                    tree: API_KEYS,
                    key: String::from_utf8_lossy(&key).into_owned(),
                    source,
                })
            })
            .collect()
    }

    pub fn api_key(&self, name: &str) -> Result<Option<ApiKeyRecord>, StoreError> {
        get_json(&self.api_keys, API_KEYS, name.as_bytes())
    }

    /// Stores a new key and flushes it to disk; `false` if the name is taken.
    pub async fn insert_api_key(&self, record: &ApiKeyRecord) -> Result<bool, StoreError> {
        let value = serde_json::to_vec(record)?;
        let inserted = self
            .api_keys
            .compare_and_swap(record.name.as_bytes(), None as Option<&[u8]>, Some(value))?
            .is_ok();
        self.api_keys.flush_async().await?;
        Ok(inserted)
    }

    /// Removes a key and flushes; `false` if there was none by that name.
    pub async fn remove_api_key(&self, name: &str) -> Result<bool, StoreError> {
        let removed = self.api_keys.remove(name.as_bytes())?.is_some();
        self.api_keys.flush_async().await?;
        Ok(removed)
    }

    /// Writes everything buffered to disk.
    pub async fn flush(&self) -> Result<(), StoreError> {
        self.db.flush_async().await?;
        Ok(())
    }
}

fn get_json<T: DeserializeOwned>(
    tree: &sled::Tree,
    name: &'static str,
    key: &[u8],
) -> Result<Option<T>, StoreError> {
    match tree.get(key)? {
        None => Ok(None),
        Some(bytes) => {
            serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|source| StoreError::Decode {
                    tree: name,
                    key: format!("{key:?}"),
                    source,
                })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn onu_ids_are_stable_and_distinct() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let a = store.onu_id(1, "HWTC00000001").expect("id");
        let b = store.onu_id(1, "HWTC00000002").expect("id");
        let c = store.onu_id(2, "HWTC00000001").expect("id");
        assert_ne!(a, b);
        assert_ne!(a, c);
        assert_eq!(store.onu_id(1, "HWTC00000001").expect("id"), a);
        drop(store);
        let reopened = Store::open(dir.path()).expect("reopen");
        assert_eq!(reopened.onu_id(1, "HWTC00000002").expect("id"), b);
    }

    #[tokio::test]
    async fn api_key_names_are_unique() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let record = ApiKeyRecord {
            name: "billing".into(),
            sha256: "00".repeat(32),
            level: AccessLevel::ReadOnly,
            rate: None,
            allow_ip: vec![],
            created_at: Utc::now(),
        };
        assert!(store.insert_api_key(&record).await.expect("insert"));
        assert!(!store.insert_api_key(&record).await.expect("insert twice"));
        assert_eq!(store.api_keys().expect("list"), vec![record]);
        assert!(store.remove_api_key("billing").await.expect("remove"));
        assert!(!store.remove_api_key("billing").await.expect("remove twice"));
    }
}
