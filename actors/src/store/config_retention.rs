//! Retention of running-config versions (docs/operations.md `backup.keep_versions`): per OLT, the
//! newest `keep` versions stay, and so does every version younger than the cut-off (30
//! days in the service) and always the newest one; older versions beyond `keep` are
//! deleted, text and all. The service's housekeeping job calls [`Store::prune_configs`].

use super::configs::{ConfigBackup, CONFIG_META};
use super::{decode, Store, StoreError};
use chrono::{DateTime, Utc};

impl Store {
    /// Deletes each OLT's versions beyond its newest `keep` that were taken before
    /// `young_since`; returns how many were deleted.
    pub fn prune_configs(
        &self,
        keep: usize,
        young_since: DateTime<Utc>,
    ) -> Result<usize, StoreError> {
        let mut doomed: Vec<sled::IVec> = Vec::new();
        let mut current_olt = None;
        let mut rank = 0usize;
        // Keys are OLT id + version id, so newest first within each OLT when reversed.
        for item in self.config_meta.iter().rev() {
            let (key, value) = item?;
            let olt = key.get(..4).map(<[u8]>::to_vec);
            if olt != current_olt {
                current_olt = olt;
                rank = 0;
            }
            rank += 1;
            if rank == 1 || rank <= keep {
                continue;
            }
            let version: ConfigBackup = decode(CONFIG_META, &value)?;
            if version.taken_at < young_since {
                doomed.push(key);
            }
        }
        let (mut meta, mut content) = (sled::Batch::default(), sled::Batch::default());
        for key in &doomed {
            meta.remove(key);
            content.remove(key);
        }
        self.config_meta.apply_batch(meta)?;
        self.config_content.apply_batch(content)?;
        Ok(doomed.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    #[tokio::test]
    async fn old_versions_beyond_keep_go_young_ones_and_the_newest_stay() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let now = Utc::now();
        // OLT 1: six versions, 100..95 days old; OLT 2: three, 3..1 days old.
        for n in 0..6 {
            let at = now - Duration::days(100 - n);
            store
                .save_config(1, &format!("sysname a{n}"), at)
                .await
                .expect("save");
        }
        for n in 0..3 {
            let at = now - Duration::days(3 - n);
            store
                .save_config(2, &format!("sysname b{n}"), at)
                .await
                .expect("save");
        }
        let young_since = now - Duration::days(30);
        assert_eq!(store.prune_configs(2, young_since).expect("prune"), 4);
        let (total, kept) = store.configs(1, 0, 10).expect("list");
        assert_eq!(total, 2);
        let ages: Vec<i64> = kept.iter().map(|v| (now - v.taken_at).num_days()).collect();
        assert_eq!(ages, vec![95, 96]);
        assert_eq!(store.configs(2, 0, 10).expect("list").0, 3);
        // keep = 0 still keeps the newest.
        assert_eq!(store.prune_configs(0, young_since).expect("prune"), 1);
        assert_eq!(store.configs(1, 0, 10).expect("list").0, 1);
        let newest = store.latest_config(1).expect("latest").expect("one");
        assert_eq!(
            store.config(1, newest.id).expect("read").expect("there").1,
            "sysname a5"
        );
    }
}
