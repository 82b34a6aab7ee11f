//! Failed authentications in the audit log, counted per client address and minute. No key
//! and no rate limit stands in front of a 401 (nor of a 403 `IP_NOT_ALLOWED`), so one
//! entry per request would let anyone write to the disk as fast as they can send: from an
//! address, the first [`SINGLE_PER_MINUTE`] refusals of a minute are entries as any
//! other, flushed before the answer; past them, the minute's refusals from that address
//! are one entry, action [`REPEATED_REFUSALS`] with `params: {"count": N}`, written (and
//! flushed) at the first and rewritten in place with each further one — those rewrites
//! reach the disk with the store's next flush (within half a second), not before the
//! answer. The audit middleware ([`super::record`]) asks here for every failed
//! authentication; the windows live as long as their minute.

#[cfg(test)]
use crate::records::Channel;
use crate::records::{AuditEntry, Records};
use dashmap::DashMap;
use ponkeeper_actors::store::StoreError;
use std::net::IpAddr;
use std::sync::atomic::{AtomicI64, Ordering};

/// Failed authentications from one address in one minute that get an entry each.
pub const SINGLE_PER_MINUTE: u32 = 10;
/// The action of the entry that counts the rest of a minute's refusals from an address.
pub const REPEATED_REFUSALS: &str = "auth.repeated_refusals";

/// The refusals of one address in the current minute.
struct Window {
    minute: i64,
    single: u32,
    /// The counting entry, once there is one (with its id in the log).
    counted: Option<AuditEntry>,
}

/// The current minute's windows, by client address.
#[derive(Default)]
pub struct RefusalCounts {
    windows: DashMap<IpAddr, Window>,
    /// The minute the windows were last swept of older ones.
    swept: AtomicI64,
}

impl RefusalCounts {
    /// Records the failed authentication `entry` from `ip`: as an entry of its own, or in
    /// the address's count for the minute.
    pub async fn record(
        &self,
        records: &Records,
        ip: IpAddr,
        entry: AuditEntry,
    ) -> Result<(), StoreError> {
        let minute = entry.at.timestamp().div_euclid(60);
        self.sweep(minute);
        let flush = {
            let mut window = self.windows.entry(ip).or_insert_with(|| Window {
                minute,
                single: 0,
                counted: None,
            });
            if window.minute != minute {
                *window = Window {
                    minute,
                    single: 0,
                    counted: None,
                };
            }
            if window.single < SINGLE_PER_MINUTE {
                window.single += 1;
                records.insert_audit(entry)?;
                true
            } else if let Some(counted) = window.counted.as_mut() {
                let count = counted.params.as_ref().and_then(|p| p["count"].as_u64());
                counted.params = Some(serde_json::json!({ "count": count.unwrap_or(0) + 1 }));
                records.replace_audit(counted)?;
                false
            } else {
                let counted = AuditEntry {
                    action: REPEATED_REFUSALS.to_string(),
                    target: None,
                    params: Some(serde_json::json!({ "count": 1 })),
                    ..entry
                };
                window.counted = Some(records.insert_audit(counted)?);
                true
            }
        };
        if flush {
            records.flush_audit().await?;
        }
        Ok(())
    }

    /// Drops the windows of minutes past, once a minute.
    fn sweep(&self, minute: i64) {
        if self.swept.swap(minute, Ordering::Relaxed) != minute {
            self.windows.retain(|_, window| window.minute >= minute);
        }
    }
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
            counts
                .record(&records, a, refusal("192.0.2.1", at))
                .await
                .expect("recorded");
        }
        for second in 0..3 {
            let at = minute + chrono::Duration::seconds(second);
            counts
                .record(&records, b, refusal("::1", at))
                .await
                .expect("recorded");
        }
        // The next minute starts anew.
        let next = minute + chrono::Duration::seconds(61);
        for _ in 0..12 {
            counts
                .record(&records, a, refusal("192.0.2.1", next))
                .await
                .expect("recorded");
        }
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
}
