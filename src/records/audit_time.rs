//! The audit log's time index: tree `audit_by_time`, key = the entry's `at` (microseconds
//! since the epoch, sign bit flipped so the bytes sort as the times do) + its id, both
//! big-endian; empty value. An entry and its index key are written in one transaction.
//! Queries with `from`/`to` range over the index (a day's query reads a day's keys, not
//! the whole log), and retention ([`Records::prune_audit`]) deletes from its old end.
//!
//! Data directories from before the index: [`Records::open`] finds the `audit_index`
//! marker missing and builds the index from the `audit` tree in one pass, then sets the
//! marker; the `audit` tree's keys and values are unchanged, so nothing else migrates.

use super::audit::{AuditEntry, AUDIT};
use super::Records;
use chrono::{DateTime, Utc};
use ponkeeper_actors::store::{decode, StoreError};
use sled::transaction::{ConflictableTransactionError, TransactionError};
use sled::Transactional;

pub(super) const AUDIT_BY_TIME: &str = "audit_by_time";
/// Set in the index tree once it covers every entry.
const BUILT_MARKER: &[u8] = b"\xffbuilt";

/// The index key of an entry at `at` with `id`.
pub(super) fn time_key(at: DateTime<Utc>, id: u64) -> [u8; 16] {
    let micros = at.timestamp_micros() as u64 ^ (1 << 63);
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&micros.to_be_bytes());
    key[8..].copy_from_slice(&id.to_be_bytes());
    key
}

fn id_of(key: &[u8]) -> Option<u64> {
    if key.len() != 16 {
        return None; // the marker
    }
    key[8..].try_into().ok().map(u64::from_be_bytes)
}

fn storage(error: TransactionError<StoreError>) -> StoreError {
    match error {
        TransactionError::Abort(e) => e,
        TransactionError::Storage(e) => StoreError::Sled(e),
    }
}

impl Records {
    /// Writes `entry` and its index key together.
    pub(super) fn write_indexed(&self, entry: &AuditEntry) -> Result<(), StoreError> {
        let value = serde_json::to_vec(entry)?;
        let key = time_key(entry.at, entry.id);
        (&self.audit, &self.audit_by_time)
            .transaction(|(audit, index)| {
                audit.insert(&entry.id.to_be_bytes(), value.as_slice())?;
                index.insert(&key, &[])?;
                Ok::<_, ConflictableTransactionError<StoreError>>(())
            })
            .map_err(storage)
    }

    /// Builds the index from the `audit` tree if an older version left it without one.
    pub(super) fn build_audit_index(&self) -> Result<usize, StoreError> {
        if self.audit_by_time.contains_key(BUILT_MARKER)? {
            return Ok(0);
        }
        let mut built = 0;
        let mut batch = sled::Batch::default();
        for value in self.audit.iter().values() {
            let entry: AuditEntry = decode(AUDIT, &value?)?;
            batch.insert(&time_key(entry.at, entry.id), &[]);
            built += 1;
            if built % 10_000 == 0 {
                self.audit_by_time.apply_batch(std::mem::take(&mut batch))?;
            }
        }
        self.audit_by_time.apply_batch(batch)?;
        self.audit_by_time.insert(BUILT_MARKER, &[])?;
        Ok(built)
    }

    /// Ids of the entries between `from` and `to` (inclusive), newest first.
    pub(super) fn audit_ids_between(
        &self,
        from: Option<DateTime<Utc>>,
        to: Option<DateTime<Utc>>,
    ) -> impl Iterator<Item = Result<u64, StoreError>> + '_ {
        let low = time_key(from.unwrap_or(DateTime::<Utc>::MIN_UTC), 0);
        let high = time_key(to.unwrap_or(DateTime::<Utc>::MAX_UTC), u64::MAX);
        self.audit_by_time
            .range(low..=high)
            .keys()
            .rev()
            .filter_map(|key| match key {
                Err(e) => Some(Err(StoreError::Sled(e))),
                Ok(key) => id_of(&key).map(Ok),
            })
    }

    /// The entry with `id`, if it is (still) there.
    pub(super) fn audit_entry(&self, id: u64) -> Result<Option<AuditEntry>, StoreError> {
        self.audit
            .get(id.to_be_bytes())?
            .map(|value| decode(AUDIT, &value))
            .transpose()
    }

    /// Deletes the entries older than `cutoff`, oldest first; returns how many.
    pub fn prune_audit(&self, cutoff: DateTime<Utc>) -> Result<usize, StoreError> {
        let high = time_key(cutoff, 0);
        let mut pruned = 0;
        loop {
            let keys: Vec<sled::IVec> = self
                .audit_by_time
                .range(..high)
                .keys()
                .take(1000)
                .collect::<Result<_, _>>()?;
            if keys.is_empty() {
                return Ok(pruned);
            }
            let (mut entries, mut index) = (sled::Batch::default(), sled::Batch::default());
            for key in &keys {
                if let Some(id) = id_of(key) {
                    entries.remove(&id.to_be_bytes());
                }
                index.remove(key);
            }
            // Entries first: an index key without its entry is skipped by readers.
            self.audit.apply_batch(entries)?;
            self.audit_by_time.apply_batch(index)?;
            pruned += keys.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{AuditFilter, AuditResult};
    use chrono::Duration;
    use ponkeeper_actors::store::Store;

    fn entry(at: DateTime<Utc>, action: &str) -> AuditEntry {
        AuditEntry {
            id: 0,
            at,
            key_name: Some("ops".into()),
            client_ip: "127.0.0.1".into(),
            method: "POST".into(),
            path: "/x".into(),
            action: action.into(),
            target: None,
            params: None,
            result: AuditResult::Success,
            http_status: 200,
            error_code: None,
            duration_ms: 1,
            channel: Default::default(),
        }
    }

    fn day_filter(from: DateTime<Utc>, to: DateTime<Utc>) -> AuditFilter {
        AuditFilter {
            from: Some(from),
            to: Some(to),
            ..AuditFilter::default()
        }
    }

    #[test]
    fn a_days_query_reads_that_day_and_retention_cuts_the_old_end() {
        let dir = tempfile::tempdir().expect("tempdir");
        let records = Records::open(&Store::open(dir.path()).expect("open")).expect("records");
        let start = DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
            .expect("time")
            .to_utc();
        // Ten days, 24 entries a day (one an hour), written out of time order.
        for hour in (0..240).rev() {
            let action = if hour % 2 == 0 {
                "onu.reboot"
            } else {
                "onu.set_vlan"
            };
            records
                .insert_audit(entry(start + Duration::hours(hour), action))
                .expect("insert");
        }
        let day3 = start + Duration::days(3);
        let to = day3 + Duration::days(1) - Duration::seconds(1);
        let (total, page) = records
            .audit_entries(&day_filter(day3, to), 0, 5)
            .expect("query");
        assert_eq!(total, 24);
        let hours: Vec<i64> = page.iter().map(|e| (e.at - start).num_hours()).collect();
        assert_eq!(hours, vec![95, 94, 93, 92, 91]);
        let (total, page) = records
            .audit_entries(&day_filter(day3, to), 22, 5)
            .expect("query");
        assert_eq!((total, page.len()), (24, 2));
        let reboots = AuditFilter {
            action: Some("onu.reboot".into()),
            ..day_filter(day3, to)
        };
        let (total, page) = records.audit_entries(&reboots, 0, 100).expect("query");
        assert_eq!(total, 12);
        assert!(page.iter().all(|e| e.action == "onu.reboot"));

        // Keep the last five days: 120 entries go, oldest first.
        assert_eq!(
            records
                .prune_audit(start + Duration::days(5))
                .expect("prune"),
            120
        );
        let (total, _) = records
            .audit_entries(&AuditFilter::default(), 0, 1)
            .expect("query");
        assert_eq!(total, 120);
        let (total, _) = records
            .audit_entries(&day_filter(start, start + Duration::days(5)), 0, 1)
            .expect("query");
        assert_eq!(total, 1); // the entry at exactly day 5, 00:00
    }

    #[test]
    fn a_log_from_before_the_index_is_indexed_at_open() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let start = Utc::now() - Duration::days(2);
        {
            let records = Records::open(&store).expect("records");
            for hour in 0..48 {
                records
                    .insert_audit(entry(start + Duration::hours(hour), "onu.reboot"))
                    .expect("insert");
            }
            // What an older version left: the entries, no index.
            records.audit_by_time.clear().expect("clear");
        }
        let records = Records::open(&store).expect("records reopened");
        let (total, _) = records
            .audit_entries(&day_filter(start, start + Duration::hours(11)), 0, 1)
            .expect("query");
        assert_eq!(total, 12);
        assert_eq!(records.audit_by_time.len(), 49); // 48 keys and the marker
    }
}
