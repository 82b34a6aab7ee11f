//! Failed authentications the audit log could not take (the store held its writes back:
//! the disk was nearly full). A keyless client is still answered its 401 — refusing to
//! answer would turn a full disk into an outage of the whole API — and the refusal is
//! counted here, in memory: how many, from how many addresses, when the first and last
//! came. The next request the service answers after the store takes writes again writes
//! them as one entry, action [`UNWRITTEN_REFUSALS`], `client_ip` `*`,
//! `params: {"count": N, "addresses": M, "from": …, "to": …}`.

use crate::records::{AuditEntry, Records};
use chrono::{DateTime, Utc};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The action of the entry that counts refusals the log could not take when they came.
pub const UNWRITTEN_REFUSALS: &str = "auth.refusals_unwritten";
/// The most addresses told apart (past it, `addressesAtLeast` is set).
const ADDRESSES_MAX: usize = 4096;

/// Refusals waiting for the audit log to take writes again.
#[derive(Default)]
pub struct HeldRefusals {
    /// Whether anything is held: checked by every request without taking the lock.
    any: AtomicBool,
    held: Mutex<Option<Held>>,
}

struct Held {
    /// The first refusal held; the entry is written in its shape.
    first: AuditEntry,
    last_at: DateTime<Utc>,
    count: u64,
    addresses: HashSet<String>,
}

impl HeldRefusals {
    /// Counts `entry`, which the log could not take.
    pub fn hold(&self, entry: AuditEntry) {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let held = held.get_or_insert_with(|| Held {
            last_at: entry.at,
            count: 0,
            addresses: HashSet::new(),
            first: entry.clone(),
        });
        held.count += 1;
        held.last_at = held.last_at.max(entry.at);
        if held.addresses.len() < ADDRESSES_MAX {
            held.addresses.insert(entry.client_ip);
        }
        self.any.store(true, Ordering::Release);
    }

    /// How many refusals are held.
    pub fn count(&self) -> u64 {
        let held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        held.as_ref().map_or(0, |h| h.count)
    }

    /// Writes what is held as one entry, if anything is and the log takes it now; kept
    /// for a later try otherwise.
    pub fn write_out(&self, records: &Records) {
        if !self.any.load(Ordering::Acquire) {
            return;
        }
        let mut slot = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let Some(held) = slot.as_ref() else {
            return;
        };
        let mut params = serde_json::json!({
            "count": held.count,
            "addresses": held.addresses.len(),
            "from": held.first.at.to_rfc3339(),
            "to": held.last_at.to_rfc3339(),
        });
        if held.addresses.len() >= ADDRESSES_MAX {
            params["addressesAtLeast"] = true.into();
        }
        let entry = AuditEntry {
            action: UNWRITTEN_REFUSALS.to_string(),
            client_ip: "*".to_string(),
            target: None,
            params: Some(params),
            ..held.first.clone()
        };
        match records.insert_audit(entry) {
            Ok(_) => {
                *slot = None;
                self.any.store(false, Ordering::Release);
            }
            Err(error) => tracing::debug!(%error, "held refusals still wait for the audit log"),
        }
    }
}
