//! ONU state changes: ONU id + time → [`OnuStateChange`] in the `onu_states` tree, one
//! independent entry each. OLT actors record the changes a poll finds; the СЗО reports
//! read them back by period (through the service's history reads); housekeeping prunes
//! them past retention, keeping the last change before the cutoff.

use super::{Store, StoreError};
use crate::domain::{OnuId, OnuStateChange};
use chrono::{DateTime, Utc};

pub(super) const ONU_STATES: &str = "onu_states";

impl Store {
    /// Records ONU state changes, one independent entry each.
    ///
    /// Not a `sled::Batch`: sled 0.34's `apply_batch` takes a process-wide write lock,
    /// while a flush holds the read side of it until the log is on disk. Once a batch
    /// waits for the write side, new readers (sled's own log flushers among them) wait
    /// behind it, and every sled call in the process stopped for good (seen in a
    /// tests/faults.rs run: a poll's `extend_coverage` against an audit flush). Plain
    /// inserts take only the read side, so nothing waits behind them.
    pub fn record_state_changes(
        &self,
        changes: &[(OnuId, OnuStateChange)],
    ) -> Result<(), StoreError> {
        self.writable()?;
        for (onu, change) in changes {
            self.onu_states
                .insert(state_key(*onu, change.at), serde_json::to_vec(change)?)?;
        }
        Ok(())
    }

    /// State changes of one ONU with `from <= at < to`, oldest first.
    pub fn state_changes(
        &self,
        onu: OnuId,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> Result<Vec<OnuStateChange>, StoreError> {
        self.onu_states
            .range(state_key(onu, from)..state_key(onu, to))
            .values()
            .map(|value| {
                let value = value?;
                serde_json::from_slice(&value).map_err(|source| StoreError::Decode {
                    tree: ONU_STATES,
                    key: format!("onu {onu}"),
                    source,
                })
            })
            .collect()
    }

    /// The last state change of one ONU before `at`, if any.
    pub fn state_before(
        &self,
        onu: OnuId,
        at: DateTime<Utc>,
    ) -> Result<Option<OnuStateChange>, StoreError> {
        match self
            .onu_states
            .range(state_key(onu, DateTime::<Utc>::MIN_UTC)..state_key(onu, at))
            .next_back()
        {
            None => Ok(None),
            Some(entry) => {
                let (_, value) = entry?;
                Ok(Some(serde_json::from_slice(&value).map_err(|source| {
                    StoreError::Decode {
                        tree: ONU_STATES,
                        key: format!("onu {onu}"),
                        source,
                    }
                })?))
            }
        }
    }

    /// Drops ONU state changes older than each ONU's cutoff, keeping the last change
    /// before it so the state at the start of any kept period stays known.
    pub fn prune_state_changes(
        &self,
        cutoff: impl Fn(OnuId) -> DateTime<Utc>,
    ) -> Result<usize, StoreError> {
        let mut removed = 0;
        let mut pending: Option<(OnuId, sled::IVec)> = None;
        for key in self.onu_states.iter().keys() {
            let key = key?;
            let Some((onu, at)) = decode_state_key(&key) else {
                continue;
            };
            if at >= cutoff(onu) {
                continue;
            }
            // `pending` is the newest old change seen so far for this ONU: it is only
            // removed once a newer old change of the same ONU shows up.
            if let Some((previous_onu, previous_key)) = pending.take() {
                if previous_onu == onu {
                    self.onu_states.remove(previous_key)?;
                    removed += 1;
                }
            }
            pending = Some((onu, key));
        }
        Ok(removed)
    }
}

fn state_key(onu: OnuId, at: DateTime<Utc>) -> [u8; 16] {
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&onu.to_be_bytes());
    // Offset so that times before 1970 still sort below later ones.
    let millis = (at.timestamp_millis() as u64) ^ (1 << 63);
    key[8..].copy_from_slice(&millis.to_be_bytes());
    key
}

fn decode_state_key(key: &[u8]) -> Option<(OnuId, DateTime<Utc>)> {
    let onu = u64::from_be_bytes(key.get(..8)?.try_into().ok()?);
    let millis = u64::from_be_bytes(key.get(8..16)?.try_into().ok()?) ^ (1 << 63);
    Some((onu, DateTime::from_timestamp_millis(millis as i64)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_changes_come_back_in_order_per_onu() {
        use crate::domain::{DownCause, OnuStatus};
        use chrono::TimeZone;
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let t = |s: u32| {
            Utc.with_ymd_and_hms(2026, 11, 21, 10, 0, s)
                .single()
                .expect("time")
        };
        let down = OnuStateChange {
            at: t(10),
            status: OnuStatus::Offline,
            cause: Some(DownCause::Los),
        };
        let up = OnuStateChange {
            at: t(40),
            status: OnuStatus::Online,
            cause: None,
        };
        let other = OnuStateChange {
            at: t(20),
            status: OnuStatus::Offline,
            cause: None,
        };
        store
            .record_state_changes(&[(1, up.clone()), (1, down.clone()), (2, other)])
            .expect("record");
        assert_eq!(
            store.state_changes(1, t(0), t(59)).expect("range"),
            vec![down.clone(), up]
        );
        assert_eq!(store.state_changes(1, t(11), t(40)).expect("range"), vec![]);
        assert_eq!(store.state_before(1, t(30)).expect("before"), Some(down));
        assert_eq!(store.state_before(1, t(5)).expect("before"), None);
    }

    #[test]
    fn pruning_state_changes_keeps_the_last_one_before_the_cutoff() {
        use crate::domain::OnuStatus;
        use chrono::TimeZone;
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let t = |d: u32| {
            Utc.with_ymd_and_hms(2026, 1, d, 0, 0, 0)
                .single()
                .expect("time")
        };
        let change = |d: u32, online: bool| OnuStateChange {
            at: t(d),
            status: if online {
                OnuStatus::Online
            } else {
                OnuStatus::Offline
            },
            cause: None,
        };
        for onu in [1, 2] {
            store
                .record_state_changes(&[
                    (onu, change(1, true)),
                    (onu, change(5, false)),
                    (onu, change(9, true)),
                    (onu, change(20, false)),
                ])
                .expect("record");
        }
        // ONU 1 keeps history from the 10th, ONU 2 from the 2nd.
        let removed = store
            .prune_state_changes(|onu| if onu == 1 { t(10) } else { t(2) })
            .expect("prune");
        assert_eq!(
            removed, 2,
            "ONU 1 loses its changes of the 1st and 5th; ONU 2 none"
        );
        assert_eq!(
            store.state_changes(1, t(1), t(31)).expect("range"),
            [change(9, true), change(20, false)]
        );
        assert_eq!(store.state_changes(2, t(1), t(31)).expect("range").len(), 4);
    }
}
