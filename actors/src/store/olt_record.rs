//! OLT session records: the persisted part of each OLT actor's state ([`OltRecord`]: status,
//! transitions, system info, PON ports, VLANs) in the `olts` tree as JSON, and the poll
//! statistics every poll changes (`PollStats`) apart from it in `olt_polls`, in a small
//! binary form, so the JSON record is rewritten only when something else changed. OLT
//! actors write both after each poll; the service reads them at start-up (through the
//! actors) to answer before the first poll.

use super::{get_json, Store, StoreError};
use crate::domain::{OltId, PonPortStats, SessionStatus, Vendor};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub(super) const OLTS: &str = "olts";
/// OLT id → [`PollStats`] (binary): what changes with every poll, kept apart from the
/// JSON OLT record so that record is rewritten only when something else changed.
pub(super) const OLT_POLLS: &str = "olt_polls";

/// One move between session states, with its reason (README.md, "OLT session states").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transition {
    pub at: DateTime<Utc>,
    pub from: Option<SessionStatus>,
    pub to: SessionStatus,
    pub reason: String,
}

/// What the OLT told us about itself in the last good poll.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SystemInfo {
    pub sys_name: Option<String>,
    pub sys_descr: Option<String>,
    pub uptime_seconds: Option<u64>,
    pub firmware: Option<String>,
}

/// The persisted part of an OLT actor's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OltRecord {
    pub id: OltId,
    pub status: SessionStatus,
    pub since: DateTime<Utc>,
    pub last_poll_at: Option<DateTime<Utc>>,
    pub last_poll_ms: Option<u64>,
    #[serde(default)]
    pub last_poll_varbinds: u64,
    pub last_success_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    pub failures_in_row: u32,
    pub system: SystemInfo,
    pub ports: Vec<PonPortStats>,
    pub transitions: Vec<Transition>,
    /// VLANs the device reported in the last good poll: id and name.
    #[serde(default)]
    pub vlans: Vec<(u16, String)>,
    /// Where the last good poll found the ONU table and IF-MIB disagreeing
    /// (docs/devices.md).
    #[serde(default)]
    pub warnings: Vec<String>,
    /// `vendor = "auto"`: the vendor the first good poll detected (docs/devices.md), kept so a
    /// restart knows it before the device answers.
    #[serde(default)]
    pub detected_vendor: Option<Vendor>,
    /// The table layout the last good poll read the device with (`C600 / C620`), kept so
    /// CLI actions after a restart speak its dialect; `None` before any good poll.
    #[serde(default)]
    pub detected_family: Option<String>,
}

/// The fields of an [`OltRecord`] that every poll changes.
#[derive(Debug, Clone, PartialEq)]
struct PollStats {
    last_poll_at: Option<DateTime<Utc>>,
    last_poll_ms: Option<u64>,
    last_poll_varbinds: u64,
    last_success_at: Option<DateTime<Utc>>,
    failures_in_row: u32,
    uptime_seconds: Option<u64>,
}

impl PollStats {
    fn of(record: &OltRecord) -> PollStats {
        PollStats {
            last_poll_at: record.last_poll_at,
            last_poll_ms: record.last_poll_ms,
            last_poll_varbinds: record.last_poll_varbinds,
            last_success_at: record.last_success_at,
            failures_in_row: record.failures_in_row,
            uptime_seconds: record.system.uptime_seconds,
        }
    }

    fn apply_to(self, record: &mut OltRecord) {
        record.last_poll_at = self.last_poll_at;
        record.last_poll_ms = self.last_poll_ms;
        record.last_poll_varbinds = self.last_poll_varbinds;
        record.last_success_at = self.last_success_at;
        record.failures_in_row = self.failures_in_row;
        record.system.uptime_seconds = self.uptime_seconds;
    }

    /// Version byte 1, then each field as a presence byte and big-endian value (times
    /// as i64 seconds and u32 nanoseconds).
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64);
        out.push(1);
        let time = |out: &mut Vec<u8>, at: Option<DateTime<Utc>>| match at {
            None => out.push(0),
            Some(at) => {
                out.push(1);
                out.extend_from_slice(&at.timestamp().to_be_bytes());
                out.extend_from_slice(&at.timestamp_subsec_nanos().to_be_bytes());
            }
        };
        let number = |out: &mut Vec<u8>, n: Option<u64>| match n {
            None => out.push(0),
            Some(n) => {
                out.push(1);
                out.extend_from_slice(&n.to_be_bytes());
            }
        };
        time(&mut out, self.last_poll_at);
        number(&mut out, self.last_poll_ms);
        number(&mut out, Some(self.last_poll_varbinds));
        time(&mut out, self.last_success_at);
        number(&mut out, Some(u64::from(self.failures_in_row)));
        number(&mut out, self.uptime_seconds);
        out
    }

    fn decode(bytes: &[u8]) -> Option<PollStats> {
        let (&version, rest) = bytes.split_first()?;
        if version != 1 {
            return None;
        }
        let mut r = StatsReader(rest);
        let stats = PollStats {
            last_poll_at: r.time()?,
            last_poll_ms: r.number()?,
            last_poll_varbinds: r.number()?.unwrap_or(0),
            last_success_at: r.time()?,
            failures_in_row: u32::try_from(r.number()?.unwrap_or(0)).ok()?,
            uptime_seconds: r.number()?,
        };
        r.0.is_empty().then_some(stats)
    }
}

struct StatsReader<'a>(&'a [u8]);

impl StatsReader<'_> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, tail) = self.0.split_at_checked(N)?;
        self.0 = tail;
        head.try_into().ok()
    }

    fn present(&mut self) -> Option<bool> {
        Some(self.take::<1>()?[0] == 1)
    }

    fn number(&mut self) -> Option<Option<u64>> {
        if !self.present()? {
            return Some(None);
        }
        Some(Some(u64::from_be_bytes(self.take()?)))
    }

    fn time(&mut self) -> Option<Option<DateTime<Utc>>> {
        if !self.present()? {
            return Some(None);
        }
        let seconds = i64::from_be_bytes(self.take()?);
        let nanos = u32::from_be_bytes(self.take()?);
        Some(Some(DateTime::from_timestamp(seconds, nanos)?))
    }
}

impl Store {
    /// The OLT record, with the poll statistics of its latest poll.
    pub fn load_olt(&self, id: OltId) -> Result<Option<OltRecord>, StoreError> {
        let Some(mut record) = get_json::<OltRecord>(&self.olts, OLTS, &id.to_be_bytes())? else {
            return Ok(None);
        };
        let stats = self
            .olt_polls
            .get(id.to_be_bytes())?
            .and_then(|bytes| PollStats::decode(&bytes));
        // Statistics older than the record (written by a version without them) are stale.
        if let Some(stats) = stats.filter(|s| s.last_poll_at >= record.last_poll_at) {
            stats.apply_to(&mut record);
        }
        Ok(Some(record))
    }

    /// Writes the whole OLT record (and its poll statistics).
    pub fn save_olt(&self, record: &OltRecord) -> Result<(), StoreError> {
        self.writable()?;
        self.olts
            .insert(record.id.to_be_bytes(), serde_json::to_vec(record)?)?;
        self.save_poll_stats(record)
    }

    /// Writes only the poll statistics of an OLT record (about 60 bytes), for a poll that
    /// changed nothing else in it.
    pub fn save_poll_stats(&self, record: &OltRecord) -> Result<(), StoreError> {
        self.writable()?;
        self.olt_polls
            .insert(record.id.to_be_bytes(), PollStats::of(record).encode())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poll_statistics_overlay_the_stored_olt_record() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let at = DateTime::from_timestamp(1_800_000_000, 0).expect("time");
        let mut record = OltRecord {
            id: 5,
            status: SessionStatus::Online,
            since: at,
            last_poll_at: Some(at),
            last_poll_ms: Some(30),
            last_poll_varbinds: 700,
            last_success_at: Some(at),
            detected_vendor: None,
            detected_family: None,
            last_error: None,
            failures_in_row: 0,
            system: SystemInfo {
                uptime_seconds: Some(100),
                ..SystemInfo::default()
            },
            ports: Vec::new(),
            transitions: Vec::new(),
            vlans: Vec::new(),
            warnings: Vec::new(),
        };
        store.save_olt(&record).expect("save");
        let later = at + chrono::Duration::seconds(60);
        record.last_poll_at = Some(later);
        record.last_success_at = Some(later);
        record.last_poll_ms = Some(31);
        record.last_poll_varbinds = 701;
        record.system.uptime_seconds = Some(160);
        store.save_poll_stats(&record).expect("stats");
        drop(store);
        let store = Store::open(dir.path()).expect("reopen");
        assert_eq!(store.load_olt(5).expect("load"), Some(record));
    }
}
