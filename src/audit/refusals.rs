//! Failed authentications in the audit log, bounded per client address and for all of
//! them together. No key and no rate limit stands in front of a 401 (nor of a 403
//! `IP_NOT_ALLOWED`), so one entry per request would let anyone write to the disk as fast
//! as they can send — and from as many addresses as they hold (an IPv6 /64, or random
//! forwarded addresses through a trusted proxy). Within a minute (docs/api.md, "Actions,
//! backups and the audit log"; docs/production.md, "Retention and bounded storage"):
//!
//! - from an address, the first [`SINGLE_PER_MINUTE`] refusals are entries as any other,
//!   flushed before the answer; past them, the address's refusals are one entry, action
//!   [`REPEATED_REFUSALS`] with `params: {"count": N}`, written (and flushed) at the first
//!   and rewritten in place with each further one;
//! - all addresses together make at most `audit.refusals_per_minute` such entries (single
//!   or counting); a refusal that would make one more is counted in the minute's one
//!   summary entry instead, action [`REFUSALS_OVER_BUDGET`], `client_ip` `*` and
//!   `params: {"count": N, "addresses": M}` (M exact up to [`SUMMARY_ADDRESSES_MAX`], then
//!   `"addressesAtLeast": true`), written and flushed at the first and rewritten in place.
//!
//! So the keyless can add at most `refusals_per_minute + 1` entries a minute, whatever
//! their addresses. Rewrites reach the disk with the store's next flush (within half a
//! second), not before the answer. The audit middleware ([`super::record`]) asks here for
//! every failed authentication; what is kept lives as long as its minute.

#[cfg(test)]
use crate::records::Channel;
use crate::records::{AuditEntry, Records};
use ponkeeper_actors::store::StoreError;
use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Failed authentications from one address in one minute that get an entry each.
pub const SINGLE_PER_MINUTE: u32 = 10;
/// The action of the entry that counts the rest of a minute's refusals from an address.
pub const REPEATED_REFUSALS: &str = "auth.repeated_refusals";
/// The action of the entry that counts a minute's refusals past the shared budget.
pub const REFUSALS_OVER_BUDGET: &str = "auth.refusals_over_budget";
/// The most addresses a summary tells apart (their set is held for the minute).
pub const SUMMARY_ADDRESSES_MAX: usize = 65_536;

/// How often a counting entry (an address's, or the summary) is rewritten at most: each
/// rewrite appends to sled's log, so a count bumped by every refusal of a flood would
/// grow the data directory with the flood's length.
const REWRITE_EVERY: Duration = Duration::from_secs(2);

/// The refusals of one address in the current minute.
struct Window {
    single: u32,
    /// The counting entry, once there is one (with its id in the log).
    counted: Option<AuditEntry>,
    /// When the counting entry was last written, and whether its count moved since.
    written_at: Option<Instant>,
    dirty: bool,
}

/// The minute's refusals past the shared budget, and their entry.
struct Summary {
    entry: AuditEntry,
    count: u64,
    addresses: HashSet<IpAddr>,
    /// More addresses than [`SUMMARY_ADDRESSES_MAX`] were seen.
    more: bool,
    /// When the entry was last written, and whether its count moved since.
    written_at: Instant,
    dirty: bool,
}

impl Summary {
    fn params(&self) -> serde_json::Value {
        let mut params =
            serde_json::json!({ "count": self.count, "addresses": self.addresses.len() });
        if self.more {
            params["addressesAtLeast"] = true.into();
        }
        params
    }
}

/// What the current minute's refusals made.
#[derive(Default)]
struct Minute {
    minute: i64,
    /// Entries made this minute (single or counting), all addresses together.
    entries: u32,
    /// By address; only addresses that got an entry this minute, so at most `entries`.
    windows: HashMap<IpAddr, Window>,
    summary: Option<Summary>,
}

impl Minute {
    /// Writes the counting entries whose count moved since they were written, those last
    /// written `REWRITE_EVERY` ago or more (all of them with `all`).
    fn write_counts(&mut self, records: &Records, all: bool) -> Result<bool, StoreError> {
        let due = |at: Option<Instant>| all || at.is_none_or(|at| at.elapsed() >= REWRITE_EVERY);
        let mut still = false;
        for window in self.windows.values_mut().filter(|w| w.dirty) {
            match &window.counted {
                Some(counted) if due(window.written_at) => {
                    records.replace_audit(counted)?;
                    window.written_at = Some(Instant::now());
                    window.dirty = false;
                }
                _ => still = true,
            }
        }
        if let Some(summary) = self.summary.as_mut().filter(|s| s.dirty) {
            if due(Some(summary.written_at)) {
                records.replace_audit(&summary.entry)?;
                summary.written_at = Instant::now();
                summary.dirty = false;
            } else {
                still = true;
            }
        }
        Ok(still)
    }
}

/// What a refusal becomes.
enum Outcome {
    /// A new entry, flushed before the answer.
    Written,
    /// A count rewritten in place.
    Counted,
}

/// The failed authentications of the current minute.
pub struct RefusalCounts {
    per_minute: u32,
    current: Mutex<Minute>,
    /// Some counting entry's count moved since it was written.
    pending: AtomicBool,
    /// Refusals the log could not take when they came ([`super::held`]).
    pub held: super::held::HeldRefusals,
}

impl Default for RefusalCounts {
    fn default() -> Self {
        RefusalCounts::new(crate::config::DEFAULT_REFUSALS_PER_MINUTE)
    }
}

impl RefusalCounts {
    /// Counts with a shared budget of `per_minute` entries a minute.
    pub fn new(per_minute: u32) -> RefusalCounts {
        RefusalCounts {
            per_minute,
            current: Mutex::default(),
            pending: AtomicBool::new(false),
            held: Default::default(),
        }
    }

    /// Records the failed authentication `entry` from `ip`: as an entry of its own, in
    /// the address's count for the minute, or in the minute's summary. It never fails the
    /// refusal's answer: what the log cannot take now is held and written later
    /// ([`super::held`]).
    pub async fn record(&self, records: &Records, ip: IpAddr, entry: AuditEntry) {
        let kept = entry.clone();
        let outcome = {
            let mut current = self.current.lock().unwrap_or_else(|e| e.into_inner());
            self.place(&mut current, records, ip, entry)
        };
        let written = match outcome {
            Ok(Outcome::Written) => records.flush_audit().await,
            Ok(Outcome::Counted) => Ok(()),
            Err(error) => Err(error),
        };
        if let Err(error) = written {
            tracing::warn!(%error, "a refusal's audit entry waits: the log takes no writes now");
            self.held.hold(kept);
        }
    }

    /// What waits to be written, for every request the service answers: refusals the
    /// log could not take earlier ([`super::held`]), and counts that are due.
    pub fn write_pending(&self, records: &Records) {
        self.held.write_out(records);
        self.write_counts(records);
    }

    /// Writes the counts that moved since they were written and are due
    /// ([`REWRITE_EVERY`]); the audit middleware calls it for every request, so a count
    /// reaches the log within seconds of the last refusal it counts.
    pub fn write_counts(&self, records: &Records) {
        if !self.pending.load(Ordering::Acquire) {
            return;
        }
        let mut current = self.current.lock().unwrap_or_else(|e| e.into_inner());
        match current.write_counts(records, false) {
            Ok(still) => self.pending.store(still, Ordering::Release),
            Err(error) => tracing::debug!(%error, "refusal counts wait for the audit log"),
        }
    }

    /// Writes or counts `entry` in `current`, starting a new minute when its time says so.
    fn place(
        &self,
        current: &mut Minute,
        records: &Records,
        ip: IpAddr,
        entry: AuditEntry,
    ) -> Result<Outcome, StoreError> {
        // A request that began before the minute turned counts in the new one: the
        // budget is never handed out twice.
        let minute = entry.at.timestamp().div_euclid(60);
        if minute > current.minute {
            // The last minute's counts are written as they ended.
            if let Err(error) = current.write_counts(records, true) {
                tracing::warn!(%error, "the last minute's refusal counts were not written");
            }
            *current = Minute {
                minute,
                ..Minute::default()
            };
        }
        let within_budget = current.entries < self.per_minute;
        let window = current.windows.get_mut(&ip);
        match window {
            Some(window) if window.counted.is_some() => {
                if let Some(counted) = window.counted.as_mut() {
                    let count = counted.params.as_ref().and_then(|p| p["count"].as_u64());
                    counted.params = Some(serde_json::json!({ "count": count.unwrap_or(0) + 1 }));
                }
                window.dirty = true;
                self.pending.store(true, Ordering::Release);
                Ok(Outcome::Counted)
            }
            Some(window) if within_budget && window.single < SINGLE_PER_MINUTE => {
                window.single += 1;
                current.entries += 1;
                records.insert_audit(entry)?;
                Ok(Outcome::Written)
            }
            Some(window) if within_budget => {
                let counted = AuditEntry {
                    action: REPEATED_REFUSALS.to_string(),
                    target: None,
                    params: Some(serde_json::json!({ "count": 1 })),
                    ..entry
                };
                window.counted = Some(records.insert_audit(counted)?);
                window.written_at = Some(Instant::now());
                current.entries += 1;
                Ok(Outcome::Written)
            }
            None if within_budget => {
                let window = Window {
                    single: 1,
                    counted: None,
                    written_at: None,
                    dirty: false,
                };
                current.windows.insert(ip, window);
                current.entries += 1;
                records.insert_audit(entry)?;
                Ok(Outcome::Written)
            }
            _ => {
                let outcome = summarise(&mut current.summary, records, ip, entry);
                if matches!(outcome, Ok(Outcome::Counted)) {
                    self.pending.store(true, Ordering::Release);
                }
                outcome
            }
        }
    }
}

/// Counts `entry` from `ip` in the minute's summary, writing the summary at its first.
fn summarise(
    summary: &mut Option<Summary>,
    records: &Records,
    ip: IpAddr,
    entry: AuditEntry,
) -> Result<Outcome, StoreError> {
    let Some(summary) = summary else {
        let mut first = Summary {
            entry: AuditEntry {
                client_ip: "*".to_string(),
                action: REFUSALS_OVER_BUDGET.to_string(),
                target: None,
                params: None,
                ..entry
            },
            count: 1,
            addresses: HashSet::from([ip]),
            more: false,
            written_at: Instant::now(),
            dirty: false,
        };
        first.entry.params = Some(first.params());
        first.entry = records.insert_audit(first.entry)?;
        *summary = Some(first);
        return Ok(Outcome::Written);
    };
    summary.count += 1;
    if summary.addresses.len() < SUMMARY_ADDRESSES_MAX {
        summary.addresses.insert(ip);
    } else if !summary.addresses.contains(&ip) {
        summary.more = true;
    }
    summary.entry.params = Some(summary.params());
    summary.dirty = true;
    Ok(Outcome::Counted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{AuditFilter, AuditResult};
    use chrono::{TimeZone, Utc};
    use ponkeeper_actors::store::Store;

    fn refusal(ip: &str, at: chrono::DateTime<Utc>) -> AuditEntry {
        AuditEntry {
            id: 0,
            at,
            key_name: None,
            client_ip: ip.into(),
            method: "POST".into(),
            path: "/api/v1/external/olts/1/poll".into(),
            action: "olt.poll".into(),
            target: Some("olt:1".into()),
            params: None,
            result: AuditResult::Failure,
            http_status: 401,
            error_code: Some("UNAUTHORIZED".into()),
            duration_ms: 0,
            channel: Channel::Rest,
        }
    }

    #[tokio::test]
    async fn past_ten_a_minute_an_address_refusals_are_one_counted_entry() {
        let dir = tempfile::tempdir().expect("tempdir");
        let records = Records::open(&Store::open(dir.path()).expect("open")).expect("records");
        let counts = RefusalCounts::default();
        let minute = Utc
            .with_ymd_and_hms(2026, 11, 23, 12, 0, 0)
            .single()
            .expect("time");
        let (a, b): (IpAddr, IpAddr) =
            ("192.0.2.1".parse().expect("ip"), "::1".parse().expect("ip"));
        for second in 0..50 {
            let at = minute + chrono::Duration::seconds(second);
            counts.record(&records, a, refusal("192.0.2.1", at)).await;
        }
        for second in 0..3 {
            let at = minute + chrono::Duration::seconds(second);
            counts.record(&records, b, refusal("::1", at)).await;
        }
        // The next minute starts anew.
        let next = minute + chrono::Duration::seconds(61);
        for _ in 0..12 {
            counts.record(&records, a, refusal("192.0.2.1", next)).await;
        }
        // The new minute's count is written once it is due (here: at once, as a flood's
        // last refusal is followed by other requests).
        counts
            .current
            .lock()
            .expect("lock")
            .write_counts(&records, true)
            .expect("written");
        let (total, entries) = records
            .audit_entries(&AuditFilter::default(), 0, 100)
            .expect("list");
        let of = |ip: &str, action: &str| -> Vec<&AuditEntry> {
            entries
                .iter()
                .filter(|e| {
                    e.client_ip == ip
                        && (e.action == REPEATED_REFUSALS) == (action == REPEATED_REFUSALS)
                })
                .collect()
        };
        assert_eq!(of("192.0.2.1", "olt.poll").len(), 20, "10 in each minute");
        let counted = of("192.0.2.1", REPEATED_REFUSALS);
        let counts: Vec<serde_json::Value> =
            counted.iter().filter_map(|e| e.params.clone()).collect();
        assert_eq!(
            counts,
            vec![
                serde_json::json!({"count": 2}),
                serde_json::json!({"count": 40})
            ],
            "newest first"
        );
        assert_eq!(counted[1].at, minute + chrono::Duration::seconds(10));
        assert_eq!(counted[1].http_status, 401);
        assert_eq!(of("::1", "olt.poll").len(), 3);
        assert_eq!(total, 25);
    }

    #[tokio::test]
    async fn a_flood_rewrites_its_count_every_few_seconds_not_every_refusal() {
        let dir = tempfile::tempdir().expect("tempdir");
        let records = Records::open(&Store::open(dir.path()).expect("open")).expect("records");
        let counts = RefusalCounts::default();
        let at = Utc::now();
        let a: IpAddr = "192.0.2.1".parse().expect("ip");
        for _ in 0..500 {
            counts.record(&records, a, refusal("192.0.2.1", at)).await;
        }
        let counted = |records: &Records| {
            let filter = AuditFilter {
                action: Some(REPEATED_REFUSALS.into()),
                ..AuditFilter::default()
            };
            let (_, entries) = records.audit_entries(&filter, 0, 10).expect("list");
            entries[0].params.clone()
        };
        // Written when it began, not since: the 489 further refusals are in memory.
        assert_eq!(counted(&records), Some(serde_json::json!({"count": 1})));
        counts.write_counts(&records);
        assert_eq!(
            counted(&records),
            Some(serde_json::json!({"count": 1})),
            "not due yet"
        );
        tokio::time::sleep(REWRITE_EVERY).await;
        counts.write_counts(&records);
        assert_eq!(counted(&records), Some(serde_json::json!({"count": 490})));
    }

    #[tokio::test]
    async fn past_the_shared_budget_every_address_is_one_summary_a_minute() {
        let dir = tempfile::tempdir().expect("tempdir");
        let records = Records::open(&Store::open(dir.path()).expect("open")).expect("records");
        let counts = RefusalCounts::new(5);
        let minute = Utc
            .with_ymd_and_hms(2026, 11, 23, 12, 0, 0)
            .single()
            .expect("time");
        // Three refusals from each of 30 addresses: 5 entries, then the summary.
        for round in 0..3 {
            for n in 0..30u8 {
                let ip = format!("192.0.2.{n}");
                let at = minute + chrono::Duration::seconds(round);
                let address = ip.parse().expect("ip");
                counts.record(&records, address, refusal(&ip, at)).await;
            }
        }
        // A request begun in the minute before counts in this one.
        let late = minute - chrono::Duration::seconds(1);
        let address = "192.0.2.200".parse().expect("ip");
        counts
            .record(&records, address, refusal("192.0.2.200", late))
            .await;
        counts
            .current
            .lock()
            .expect("lock")
            .write_counts(&records, true)
            .expect("written");
        let (total, entries) = records
            .audit_entries(&AuditFilter::default(), 0, 100)
            .expect("list");
        assert_eq!(total, 6, "{entries:?}");
        let summary = &entries[0];
        assert_eq!(summary.action, REFUSALS_OVER_BUDGET);
        assert_eq!(summary.client_ip, "*");
        assert_eq!(
            summary.params,
            Some(serde_json::json!({"count": 86, "addresses": 31}))
        );
        // The next minute has a budget of its own.
        let next = minute + chrono::Duration::seconds(60);
        counts
            .record(&records, address, refusal("192.0.2.200", next))
            .await;
        let (total, _) = records
            .audit_entries(&AuditFilter::default(), 0, 100)
            .expect("list");
        assert_eq!(total, 7);
    }
}
