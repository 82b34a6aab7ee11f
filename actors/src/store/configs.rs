//! Running-config backups: OLT id + backup id → [`ConfigBackup`] in `config_meta`, the
//! text under the same key in `config_content`. An OLT actor's backup task stores a
//! version only when the text changed and flushes it before it reports success; the
//! service lists versions, reads their text and finds the version before one for a diff.

use super::{decode, flush_tree, Store, StoreError};
use crate::domain::OltId;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub(super) const CONFIG_META: &str = "config_meta";
pub(super) const CONFIG_CONTENT: &str = "config_content";

/// One stored version of an OLT's running configuration (without its text).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigBackup {
    pub id: u64,
    pub olt_id: OltId,
    pub taken_at: DateTime<Utc>,
    pub size_bytes: u64,
    /// Lower-case hex SHA-256 of the text.
    pub sha256: String,
    /// Whether it differs from the version before it. Stored versions always do (an
    /// unchanged configuration is not stored again); a backup that found nothing new
    /// answers with the latest version and `changed: false`.
    pub changed: bool,
}

impl Store {
    /// Stores `content` as OLT `olt`'s newest configuration version unless it equals the
    /// latest one, and flushes. Returns the version that holds this content, with
    /// `changed` telling whether it was new.
    pub async fn save_config(
        &self,
        olt: OltId,
        content: &str,
        taken_at: DateTime<Utc>,
    ) -> Result<ConfigBackup, StoreError> {
        self.writable()?;
        use sha2::{Digest, Sha256};
        let sha256 = hex::encode(Sha256::digest(content.as_bytes()));
        if let Some(mut latest) = self.latest_config(olt)? {
            if latest.sha256 == sha256 {
                latest.changed = false;
                return Ok(latest);
            }
        }
        let backup = ConfigBackup {
            id: self.next_id()?,
            olt_id: olt,
            taken_at,
            size_bytes: content.len() as u64,
            sha256,
            changed: true,
        };
        let key = config_key(olt, backup.id);
        self.config_content.insert(key, content.as_bytes())?;
        self.config_meta.insert(key, serde_json::to_vec(&backup)?)?;
        flush_tree(&self.db).await?;
        Ok(backup)
    }

    /// Keeps `version` with its text as another store recorded it (same id), unless this
    /// store holds it already, and flushes: a cluster member that takes an OLT over keeps
    /// the previous owner's latest version, so its next backup of the same text is no new
    /// version. Returns whether it was new here.
    pub async fn adopt_config(
        &self,
        version: &ConfigBackup,
        content: &str,
    ) -> Result<bool, StoreError> {
        self.writable()?;
        let key = config_key(version.olt_id, version.id);
        if self.config_meta.contains_key(key)? {
            return Ok(false);
        }
        self.config_content.insert(key, content.as_bytes())?;
        self.config_meta.insert(key, serde_json::to_vec(version)?)?;
        flush_tree(&self.db).await?;
        Ok(true)
    }

    /// The newest configuration version of an OLT: the one taken last (then the largest
    /// id; see [`Store::configs`]).
    pub fn latest_config(&self, olt: OltId) -> Result<Option<ConfigBackup>, StoreError> {
        Ok(self.versions(olt)?.into_iter().next())
    }

    /// A page of an OLT's configuration versions, newest first, and how many there are.
    pub fn configs(
        &self,
        olt: OltId,
        offset: usize,
        limit: usize,
    ) -> Result<(usize, Vec<ConfigBackup>), StoreError> {
        let versions = self.versions(olt)?;
        let total = versions.len();
        Ok((
            total,
            versions.into_iter().skip(offset).take(limit).collect(),
        ))
    }

    /// One configuration version with its text.
    pub fn config(
        &self,
        olt: OltId,
        id: u64,
    ) -> Result<Option<(ConfigBackup, String)>, StoreError> {
        let key = config_key(olt, id);
        let Some(meta) = self.config_meta.get(key)? else {
            return Ok(None);
        };
        let content = self.config_content.get(key)?.unwrap_or_default();
        Ok(Some((
            decode(CONFIG_META, &meta)?,
            String::from_utf8_lossy(&content).into_owned(),
        )))
    }

    /// The version taken just before version `id` of the same OLT.
    pub fn config_before(&self, olt: OltId, id: u64) -> Result<Option<u64>, StoreError> {
        let versions = self.versions(olt)?;
        let next_older = versions
            .iter()
            .position(|v| v.id == id)
            .and_then(|at| versions.get(at + 1));
        Ok(next_older.map(|v| v.id))
    }

    /// Every version of an OLT, newest first: by when it was taken, then by id. Ids alone
    /// order the versions this store took; one adopted from another cluster member
    /// ([`Store::adopt_config`]) has an id from that member's block, so time decides.
    fn versions(&self, olt: OltId) -> Result<Vec<ConfigBackup>, StoreError> {
        let mut versions: Vec<ConfigBackup> = self
            .config_meta
            .scan_prefix(olt.to_be_bytes())
            .values()
            .map(|value| decode(CONFIG_META, &value?))
            .collect::<Result<_, _>>()?;
        versions.sort_by_key(|v| std::cmp::Reverse((v.taken_at, v.id)));
        Ok(versions)
    }
}

fn config_key(olt: OltId, id: u64) -> [u8; 12] {
    let mut key = [0u8; 12];
    key[..4].copy_from_slice(&olt.to_be_bytes());
    key[4..].copy_from_slice(&id.to_be_bytes());
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn unchanged_configs_keep_one_version() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let first = store
            .save_config(1, "a\nb\n", Utc::now())
            .await
            .expect("save");
        assert!(first.changed);
        assert_eq!(first.size_bytes, 4);
        let again = store
            .save_config(1, "a\nb\n", Utc::now())
            .await
            .expect("save");
        assert_eq!((again.id, again.changed), (first.id, false));
        let second = store
            .save_config(1, "a\nc\n", Utc::now())
            .await
            .expect("save");
        store
            .save_config(2, "other", Utc::now())
            .await
            .expect("save");
        let (total, page) = store.configs(1, 0, 10).expect("list");
        assert_eq!(total, 2);
        assert_eq!(
            page.iter().map(|b| b.id).collect::<Vec<_>>(),
            vec![second.id, first.id]
        );
        assert_eq!(
            store.config_before(1, second.id).expect("before"),
            Some(first.id)
        );
        assert_eq!(store.config_before(1, first.id).expect("before"), None);
        let (_, text) = store.config(1, second.id).expect("get").expect("some");
        assert_eq!(text, "a\nc\n");
        assert!(store.config(2, second.id).expect("get").is_none());
    }

    #[tokio::test]
    async fn an_adopted_version_counts_as_the_latest_until_a_newer_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let before = Utc::now() - chrono::Duration::minutes(5);
        let own = store.save_config(1, "old\n", before).await.expect("save");
        // Another member's later version, with an id from its larger block.
        let theirs = ConfigBackup {
            id: 2 << 48,
            taken_at: Utc::now() - chrono::Duration::minutes(1),
            sha256: hex::encode(<sha2::Sha256 as sha2::Digest>::digest(b"same\n")),
            ..own.clone()
        };
        assert!(store.adopt_config(&theirs, "same\n").await.expect("adopt"));
        assert!(!store.adopt_config(&theirs, "same\n").await.expect("again"));
        let same = store
            .save_config(1, "same\n", Utc::now())
            .await
            .expect("save");
        assert_eq!((same.id, same.changed), (theirs.id, false));
        let newer = store
            .save_config(1, "new\n", Utc::now())
            .await
            .expect("save");
        assert!(newer.changed && newer.id < theirs.id);
        let again = store
            .save_config(1, "new\n", Utc::now())
            .await
            .expect("save");
        assert_eq!((again.id, again.changed), (newer.id, false));
    }
}
