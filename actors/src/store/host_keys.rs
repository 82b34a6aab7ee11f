//! SSH host keys recorded on first use (docs/devices.md), one per OLT in `ssh_host_keys`
//! (OLT id, big-endian → JSON [`RecordedHostKey`]). Written by the OLT's CLI task after
//! its first successful login ([`crate::host_keys::open_session`]), read before every
//! later login, and removed by `POST /olts/{id}/ssh/trust-host-key` so that the next
//! login records the key the device shows then. A key pinned in the inventory is never
//! stored here.

use super::{get_json, Store, StoreError};
use crate::domain::OltId;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub(super) const SSH_HOST_KEYS: &str = "ssh_host_keys";

/// The host key an OLT showed at its first successful login.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedHostKey {
    /// SHA256 fingerprint, as OpenSSH prints it.
    pub fingerprint: String,
    pub recorded_at: DateTime<Utc>,
}

impl Store {
    fn host_keys(&self) -> Result<sled::Tree, StoreError> {
        Ok(self.db.open_tree(SSH_HOST_KEYS)?)
    }

    /// The key recorded for `olt`, if any.
    pub fn recorded_host_key(&self, olt: OltId) -> Result<Option<RecordedHostKey>, StoreError> {
        get_json(&self.host_keys()?, SSH_HOST_KEYS, &olt.to_be_bytes())
    }

    /// Records `fingerprint` for `olt` unless a key is recorded already (two logins at
    /// once cannot overwrite each other); returns the key recorded now.
    pub fn record_host_key(
        &self,
        olt: OltId,
        fingerprint: &str,
        at: DateTime<Utc>,
    ) -> Result<RecordedHostKey, StoreError> {
        self.writable()?;
        let record = RecordedHostKey {
            fingerprint: fingerprint.to_string(),
            recorded_at: at,
        };
        let bytes = serde_json::to_vec(&record)?;
        let tree = self.host_keys()?;
        match tree.compare_and_swap(olt.to_be_bytes(), None as Option<&[u8]>, Some(bytes))? {
            Ok(()) => Ok(record),
            Err(_) => Ok(self.recorded_host_key(olt)?.unwrap_or(record)),
        }
    }

    /// Forgets the key recorded for `olt`; returns it (`None`: nothing was recorded).
    pub fn forget_host_key(&self, olt: OltId) -> Result<Option<RecordedHostKey>, StoreError> {
        let forgotten = self.recorded_host_key(olt)?;
        self.host_keys()?.remove(olt.to_be_bytes())?;
        Ok(forgotten)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn the_first_key_stays_until_forgotten() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let at = Utc
            .with_ymd_and_hms(2026, 11, 23, 10, 0, 0)
            .single()
            .expect("a time");
        assert_eq!(store.recorded_host_key(7).expect("read"), None);
        let first = store
            .record_host_key(7, "SHA256:first", at)
            .expect("record");
        assert_eq!(first.fingerprint, "SHA256:first");
        // A second login at once does not replace it.
        let later = at + chrono::Duration::seconds(5);
        let kept = store
            .record_host_key(7, "SHA256:second", later)
            .expect("record");
        assert_eq!(kept, first);
        assert_eq!(store.recorded_host_key(8).expect("read"), None);
        drop(store);
        let store = Store::open(dir.path()).expect("reopen");
        assert_eq!(
            store.recorded_host_key(7).expect("read"),
            Some(first.clone())
        );
        assert_eq!(store.forget_host_key(7).expect("forget"), Some(first));
        assert_eq!(store.recorded_host_key(7).expect("read"), None);
        assert_eq!(store.forget_host_key(7).expect("forget"), None);
        let next = store
            .record_host_key(7, "SHA256:second", later)
            .expect("record");
        assert_eq!(next.fingerprint, "SHA256:second");
    }
}
