//! API keys created with `ponkeeper keys create`: name → [`ApiKeyRecord`] (JSON) in the
//! `api_keys` tree, holding the key's SHA-256, never the key. Key management
//! ([`crate::keys`], through the admin socket or directly when no service runs) inserts
//! and removes keys and flushes before it answers; the service loads them into its key
//! ring at start-up and saves when each was last used every minute and at shutdown.

use super::Records;
use chrono::{DateTime, Utc};
use ponkeeper_actors::store::{flush_tree, get_json, StoreError};
use serde::{Deserialize, Serialize};

pub(super) const API_KEYS: &str = "api_keys";

/// Access level of an API key (docs/api.md, "Access control").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
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
    /// Last request with this key, as last saved by the running service.
    #[serde(default)]
    pub last_used_at: Option<DateTime<Utc>>,
}

impl Records {
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
        self.store.writable()?;
        let value = serde_json::to_vec(record)?;
        let inserted = self
            .api_keys
            .compare_and_swap(record.name.as_bytes(), None as Option<&[u8]>, Some(value))?
            .is_ok();
        flush_tree(&self.api_keys).await?;
        Ok(inserted)
    }

    /// Saves when keys were last used. A key revoked meanwhile stays revoked: each
    /// record is replaced only if it is still the one that was read.
    pub fn record_key_use(&self, uses: &[(String, DateTime<Utc>)]) -> Result<(), StoreError> {
        for (name, at) in uses {
            let Some(current) = self.api_keys.get(name.as_bytes())? else {
                continue;
            };
            let mut record: ApiKeyRecord =
                serde_json::from_slice(&current).map_err(|source| StoreError::Decode {
                    tree: API_KEYS,
                    key: name.clone(),
                    source,
                })?;
            if record.last_used_at.is_some_and(|last| last >= *at) {
                continue;
            }
            record.last_used_at = Some(*at);
            let updated = serde_json::to_vec(&record)?;
            // A lost race (a revoke, a newer use) leaves the record as it is.
            let _ =
                self.api_keys
                    .compare_and_swap(name.as_bytes(), Some(current), Some(updated))?;
        }
        Ok(())
    }

    /// Removes a key and flushes; `false` if there was none by that name.
    pub async fn remove_api_key(&self, name: &str) -> Result<bool, StoreError> {
        let removed = self.api_keys.remove(name.as_bytes())?.is_some();
        flush_tree(&self.api_keys).await?;
        Ok(removed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ponkeeper_actors::store::Store;

    #[tokio::test]
    async fn api_key_names_are_unique() {
        let dir = tempfile::tempdir().expect("tempdir");
        let records = Records::open(&Store::open(dir.path()).expect("open")).expect("records");
        let record = ApiKeyRecord {
            name: "billing".into(),
            sha256: "00".repeat(32),
            level: AccessLevel::ReadOnly,
            rate: None,
            allow_ip: vec![],
            created_at: Utc::now(),
            last_used_at: None,
        };
        assert!(records.insert_api_key(&record).await.expect("insert"));
        assert!(!records.insert_api_key(&record).await.expect("insert twice"));
        assert_eq!(records.api_keys().expect("list"), vec![record]);
        assert!(records.remove_api_key("billing").await.expect("remove"));
        assert!(!records
            .remove_api_key("billing")
            .await
            .expect("remove twice"));
    }
}
