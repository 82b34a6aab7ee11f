//! The audit log: entry id (ascending in time) → [`AuditEntry`] (JSON) in the `audit`
//! tree, indexed by time ([`super::audit_time`]; queries with `from`/`to` use it). The audit middleware ([`crate::audit`]) appends an entry per audited request and
//! flushes it before the response leaves (the count of a minute's repeated refusals from
//! one address is one entry it rewrites in place); `GET /audit-logs` reads pages of it through
//! [`crate::history`].

use super::Records;
use chrono::{DateTime, Utc};
use ponkeeper_actors::store::{decode, flush_tree, StoreError};
use serde::{Deserialize, Serialize};

pub(super) const AUDIT: &str = "audit";

/// Outcome of an audited request.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
    schemars::JsonSchema,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AuditResult {
    Success,
    Failure,
}

/// Which client made an audited request: a REST client, an MCP tool call, or the operator
/// page (`/ui/`). Entries written before channels were recorded read as `REST`.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Channel {
    #[default]
    Rest,
    Mcp,
    Ui,
}

impl Channel {
    /// The channel a client declares in `X-Ponkeeper-Channel` (`UI` or `MCP`, any case);
    /// anything else, or nothing, is `REST`.
    pub fn declared(value: Option<&str>) -> Channel {
        match value.map(str::trim) {
            Some(v) if v.eq_ignore_ascii_case("ui") => Channel::Ui,
            Some(v) if v.eq_ignore_ascii_case("mcp") => Channel::Mcp,
            _ => Channel::Rest,
        }
    }
}

/// One audit log entry (docs/api.md, "Audit entry"); `id` is given by the store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditEntry {
    pub id: u64,
    pub at: DateTime<Utc>,
    /// `None` when no valid key was presented.
    pub key_name: Option<String>,
    pub client_ip: String,
    pub method: String,
    pub path: String,
    pub action: String,
    pub target: Option<String>,
    pub params: Option<serde_json::Value>,
    pub result: AuditResult,
    pub http_status: u16,
    pub error_code: Option<String>,
    pub duration_ms: u64,
    #[serde(default)]
    pub channel: Channel,
}

/// Which audit entries a listing wants.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AuditFilter {
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
    pub key_name: Option<String>,
    pub action: Option<String>,
    pub result: Option<AuditResult>,
}

impl AuditFilter {
    fn admits(&self, entry: &AuditEntry) -> bool {
        self.from.is_none_or(|from| entry.at >= from)
            && self.to.is_none_or(|to| entry.at <= to)
            && self
                .key_name
                .as_deref()
                .is_none_or(|k| entry.key_name.as_deref() == Some(k))
            && self.action.as_deref().is_none_or(|a| entry.action == a)
            && self.result.is_none_or(|r| entry.result == r)
    }
}

impl Records {
    /// Appends an audit entry, giving it its id, and flushes it to disk before returning.
    pub async fn append_audit(&self, entry: AuditEntry) -> Result<AuditEntry, StoreError> {
        let entry = self.insert_audit(entry)?;
        self.flush_audit().await?;
        Ok(entry)
    }

    /// Appends an audit entry, giving it its id, without waiting for the disk: it is there
    /// after the next [`Records::flush_audit`] or the store's own periodic flush.
    pub fn insert_audit(&self, mut entry: AuditEntry) -> Result<AuditEntry, StoreError> {
        entry.id = self.store.next_id()?;
        self.replace_audit(&entry)?;
        Ok(entry)
    }

    /// Writes `entry` over the entry with its id (the count of repeated refusals grows
    /// in place), without waiting for the disk.
    pub fn replace_audit(&self, entry: &AuditEntry) -> Result<(), StoreError> {
        self.write_indexed(entry)
    }

    /// Flushes the audit log to disk.
    pub async fn flush_audit(&self) -> Result<(), StoreError> {
        flush_tree(&self.audit).await
    }

    /// A page of the audit entries `filter` admits, newest first, and how many it admits.
    pub fn audit_entries(
        &self,
        filter: &AuditFilter,
        offset: usize,
        limit: usize,
    ) -> Result<(usize, Vec<AuditEntry>), StoreError> {
        if filter.from.is_some() || filter.to.is_some() {
            return self.audit_entries_by_time(filter, offset, limit);
        }
        let mut total = 0;
        let mut page = Vec::new();
        for value in self.audit.iter().values().rev() {
            let entry: AuditEntry = decode(AUDIT, &value?)?;
            if !filter.admits(&entry) {
                continue;
            }
            if total >= offset && page.len() < limit {
                page.push(entry);
            }
            total += 1;
        }
        Ok((total, page))
    }

    /// [`Records::audit_entries`] with `from` or `to`: only the index keys in that time
    /// range are read; with no other filter only the page's entries are decoded.
    fn audit_entries_by_time(
        &self,
        filter: &AuditFilter,
        offset: usize,
        limit: usize,
    ) -> Result<(usize, Vec<AuditEntry>), StoreError> {
        let time_only =
            filter.key_name.is_none() && filter.action.is_none() && filter.result.is_none();
        let mut total = 0;
        let mut page = Vec::new();
        for id in self.audit_ids_between(filter.from, filter.to) {
            let id = id?;
            let wanted = total >= offset && page.len() < limit;
            if time_only && !wanted {
                total += 1;
                continue;
            }
            let Some(entry) = self.audit_entry(id)? else {
                continue; // pruned between the index read and this one
            };
            if !filter.admits(&entry) {
                continue;
            }
            if wanted {
                page.push(entry);
            }
            total += 1;
        }
        Ok((total, page))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ponkeeper_actors::store::Store;

    #[test]
    fn entries_written_before_channels_read_as_rest() {
        let old = r#"{"id":7,"at":"2026-11-01T10:00:00Z","key_name":"ops","client_ip":"10.0.0.1",
            "method":"POST","path":"/x","action":"olt.poll","target":"olt:1","params":null,
            "result":"SUCCESS","http_status":200,"error_code":null,"duration_ms":3}"#;
        let entry: AuditEntry = serde_json::from_str(old).expect("an entry of the old format");
        assert_eq!(entry.channel, Channel::Rest);
        assert_eq!(Channel::declared(Some(" ui ")), Channel::Ui);
        assert_eq!(Channel::declared(Some("MCP")), Channel::Mcp);
        assert_eq!(Channel::declared(Some("browser")), Channel::Rest);
        assert_eq!(Channel::declared(None), Channel::Rest);
    }

    #[tokio::test]
    async fn audit_entries_survive_a_reopen_newest_first() {
        let dir = tempfile::tempdir().expect("tempdir");
        let entry = |action: &str, result| AuditEntry {
            id: 0,
            at: Utc::now(),
            key_name: Some("ops".into()),
            client_ip: "127.0.0.1".into(),
            method: "POST".into(),
            path: "/x".into(),
            action: action.into(),
            target: None,
            params: None,
            result,
            http_status: 200,
            error_code: None,
            duration_ms: 1,
            channel: Channel::Ui,
        };
        {
            let records = Records::open(&Store::open(dir.path()).expect("open")).expect("records");
            records
                .append_audit(entry("onu.reboot", AuditResult::Success))
                .await
                .expect("append");
            records
                .append_audit(entry("onu.set_vlan", AuditResult::Failure))
                .await
                .expect("append");
        }
        // sled's flusher thread lets go of the files a moment after the drop.
        let mut reopened = Store::open(dir.path());
        for _ in 0..50 {
            if reopened.is_ok() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            reopened = Store::open(dir.path());
        }
        let records = Records::open(&reopened.expect("reopen")).expect("records");
        let (total, all) = records
            .audit_entries(&AuditFilter::default(), 0, 10)
            .expect("list");
        assert_eq!(total, 2);
        assert_eq!(all[0].action, "onu.set_vlan");
        let failures = AuditFilter {
            result: Some(AuditResult::Failure),
            ..AuditFilter::default()
        };
        let (total, _) = records.audit_entries(&failures, 0, 10).expect("list");
        assert_eq!(total, 1);
    }
}
