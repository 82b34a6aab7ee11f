//! The sled store, behind typed trees: OLT session records, ONU tables, the ONU id
//! allocation and owner index, ONU state changes, optics history, API keys, running-config
//! backups and the audit log. Every sled call in ponkeeper goes through here, so moving to
//! another engine is one file. OLT actors write their own records after each poll; the
//! service reads them at start-up to answer before the first poll; key management writes
//! keys, and backup tasks write configurations, and flush them before they report success;
//! the API flushes each audit entry before it answers the request it records.

use crate::domain::{
    OltId, Onu, OnuId, OnuStateChange, OpticsLevel, OpticsPoint, PonPortStats, SessionStatus,
};
use chrono::{DateTime, Utc};
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use std::path::Path;

pub mod onu_table_encoding;

/// sled's page cache, in bytes. sled's default (1 GiB) lets the cache grow with every
/// write until it holds most of what was ever written; the service reads its trees at
/// start-up and then mostly writes, so a small cache costs nothing measurable and keeps
/// the resident size of `serve` close to what the actors hold (BENCHMARKS.md P5).
const CACHE_BYTES: u64 = 32 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The sled error is shown, not chained, so reports do not repeat it.
    #[error("store: {0}")]
    Sled(sled::Error),
    #[error("store: record {key} in tree {tree} is unreadable: {source}")]
    Decode {
        tree: &'static str,
        key: String,
        source: serde_json::Error,
    },
    #[error("store: record {key} in tree {tree} is unreadable: {reason}")]
    Corrupt {
        tree: &'static str,
        key: String,
        reason: String,
    },
    #[error("store: cannot encode a record: {0}")]
    Encode(#[from] serde_json::Error),
}

/// Flushes `tree` (with it, the whole database) to disk from tokio's blocking pool.
///
/// Not `flush_async`: sled 0.34 runs that on its own thread pool, whose threads then
/// wait for log writes queued on the same pool, and the pool counts a busy thread as
/// idle (it subtracts one twice), so it grows no thread to take those writes. A few flushes at once (a
/// fleet's first scheduled backups, audit entries) left every sled-io thread waiting in
/// `make_stable` and every later store call hung (seen in a tests/faults.rs run).
async fn flush_tree(tree: &sled::Tree) -> Result<(), StoreError> {
    let tree = tree.clone();
    match tokio::task::spawn_blocking(move || tree.flush()).await {
        Ok(flushed) => flushed.map(|_| ()).map_err(StoreError::from),
        Err(failed) => Err(StoreError::Sled(sled::Error::ReportableBug(format!(
            "the flush task failed: {failed}"
        )))),
    }
}

impl From<sled::Error> for StoreError {
    fn from(error: sled::Error) -> Self {
        StoreError::Sled(error)
    }
}

/// One move between session states, with its reason (SPEC §3).
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

/// Access level of an API key (seed §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AccessLevel {
    ReadOnly,
    Full,
}

impl AccessLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            AccessLevel::ReadOnly => "READ_ONLY",
            AccessLevel::Full => "FULL",
        }
    }
}

impl std::str::FromStr for AccessLevel {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "READ_ONLY" => Ok(AccessLevel::ReadOnly),
            "FULL" => Ok(AccessLevel::Full),
            other => Err(format!(
                "unknown access level `{other}`: must be READ_ONLY or FULL"
            )),
        }
    }
}

/// A stored API key: its SHA-256, never the key itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiKeyRecord {
    pub name: String,
    /// Lower-case hex SHA-256 of the key.
    pub sha256: String,
    pub level: AccessLevel,
    /// Rate such as `100/s`; `None` means the configured default.
    pub rate: Option<String>,
    /// CIDRs the key may be used from; empty means anywhere.
    pub allow_ip: Vec<String>,
    pub created_at: DateTime<Utc>,
    /// Last request with this key, as last saved by the running service.
    #[serde(default)]
    pub last_used_at: Option<DateTime<Utc>>,
}

const OLTS: &str = "olts";
const ONUS: &str = "onus";
/// OLT id → [`PollStats`] (binary): what changes with every poll, kept apart from the
/// JSON OLT record so that record is rewritten only when something else changed.
const OLT_POLLS: &str = "olt_polls";
const ONU_IDS: &str = "onu_ids";
const API_KEYS: &str = "api_keys";
const ONU_OWNERS: &str = "onu_owners";
const ONU_STATES: &str = "onu_states";
const OPTICS: &str = "optics";
const COVERAGE: &str = "olt_coverage";
const CONFIG_META: &str = "config_meta";
const CONFIG_CONTENT: &str = "config_content";
const AUDIT: &str = "audit";

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

/// Outcome of an audited request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum AuditResult {
    Success,
    Failure,
}

impl std::str::FromStr for AuditResult {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "SUCCESS" => Ok(AuditResult::Success),
            "FAILURE" => Ok(AuditResult::Failure),
            _ => Err("must be SUCCESS or FAILURE".to_string()),
        }
    }
}

/// One audit log entry (SPEC §4 "Audit entry"); `id` is given by the store.
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

/// Bytes of one optics point: seconds (u32), Rx, Tx, OLT Rx (i16 centi-dBm), level (u8).
const POINT_BYTES: usize = 11;
const ABSENT_CENTI_DBM: i16 = i16::MIN;

/// Handle to the database; cheap to clone, shared by every actor.
#[derive(Clone)]
pub struct Store {
    db: sled::Db,
    olts: sled::Tree,
    olt_polls: sled::Tree,
    onus: sled::Tree,
    onu_ids: sled::Tree,
    /// ONU id → OLT id, so a handler knows which actor to ask.
    onu_owners: sled::Tree,
    /// ONU id + time → state change.
    onu_states: sled::Tree,
    /// Day + ONU id → that day's optics points, appended with a merge operator.
    optics: sled::Tree,
    /// OLT id + start → end and reachability of a stretch of polls (see [`Coverage`]).
    coverage: sled::Tree,
    api_keys: sled::Tree,
    /// OLT id + backup id → [`ConfigBackup`]; the text is in `config_content`.
    config_meta: sled::Tree,
    config_content: sled::Tree,
    /// Entry id (ascending in time) → [`AuditEntry`].
    audit: sled::Tree,
}

/// A stretch of time in which an OLT was polled closely enough that its state is known,
/// and whether it answered. Time outside every stretch is unknown: the service was not
/// running, or the OLT was not polled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Coverage {
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
    pub reachable: bool,
}

impl Store {
    /// Opens (or creates) the store in `dir`. Fails if another process holds it.
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        let db = sled::Config::new()
            .path(dir.join("ponkeeper.sled"))
            .flush_every_ms(Some(500))
            .cache_capacity(CACHE_BYTES)
            .open()?;
        let optics = db.open_tree(OPTICS)?;
        optics.set_merge_operator(append_points);
        Ok(Store {
            olts: db.open_tree(OLTS)?,
            olt_polls: db.open_tree(OLT_POLLS)?,
            onus: db.open_tree(ONUS)?,
            onu_ids: db.open_tree(ONU_IDS)?,
            onu_owners: db.open_tree(ONU_OWNERS)?,
            onu_states: db.open_tree(ONU_STATES)?,
            optics,
            coverage: db.open_tree(COVERAGE)?,
            api_keys: db.open_tree(API_KEYS)?,
            config_meta: db.open_tree(CONFIG_META)?,
            config_content: db.open_tree(CONFIG_CONTENT)?,
            audit: db.open_tree(AUDIT)?,
            db,
        })
    }

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
        self.olts
            .insert(record.id.to_be_bytes(), serde_json::to_vec(record)?)?;
        self.save_poll_stats(record)
    }

    /// Writes only the poll statistics of an OLT record (about 60 bytes), for a poll that
    /// changed nothing else in it.
    pub fn save_poll_stats(&self, record: &OltRecord) -> Result<(), StoreError> {
        self.olt_polls
            .insert(record.id.to_be_bytes(), PollStats::of(record).encode())?;
        Ok(())
    }

    /// The ONU table of `olt`, in either encoding (see [`onu_table_encoding`]); ONUs seen
    /// in the table's latest poll take the later of its time and `last_success_at`.
    pub fn load_onus(
        &self,
        olt: OltId,
        last_success_at: Option<DateTime<Utc>>,
    ) -> Result<Vec<Onu>, StoreError> {
        let key = olt.to_be_bytes();
        match self.onus.get(key)? {
            None => Ok(Vec::new()),
            Some(bytes) if onu_table_encoding::is_binary(&bytes) => {
                onu_table_encoding::decode(&bytes, last_success_at).map_err(|reason| {
                    StoreError::Corrupt {
                        tree: ONUS,
                        key: format!("{key:?}"),
                        reason,
                    }
                })
            }
            Some(_) => Ok(get_json(&self.onus, ONUS, &key)?.unwrap_or_default()),
        }
    }

    /// Writes the ONU table of `olt`; `polled_at` is the time of the poll the table last
    /// merged (its ONUs with that `last_update` are stored without a time).
    pub fn save_onus(
        &self,
        olt: OltId,
        onus: &[Onu],
        polled_at: Option<DateTime<Utc>>,
    ) -> Result<(), StoreError> {
        self.onus.insert(
            olt.to_be_bytes(),
            onu_table_encoding::encode(onus, polled_at),
        )?;
        Ok(())
    }

    /// The stable id of the ONU with `serial` on `olt`, allocated on first sight.
    pub fn onu_id(&self, olt: OltId, serial: &str) -> Result<OnuId, StoreError> {
        let mut key = olt.to_be_bytes().to_vec();
        key.extend_from_slice(serial.as_bytes());
        if let Some(existing) = self.onu_ids.get(&key)? {
            if let Ok(bytes) = <[u8; 8]>::try_from(existing.as_ref()) {
                return Ok(u64::from_be_bytes(bytes));
            }
        }
        let id = self.db.generate_id()? + 1;
        match self.onu_ids.compare_and_swap(
            &key,
            None as Option<&[u8]>,
            Some(&id.to_be_bytes()[..]),
        )? {
            Ok(()) => {
                self.onu_owners
                    .insert(id.to_be_bytes(), &olt.to_be_bytes())?;
                Ok(id)
            }
            Err(conflict) => {
                let current = conflict.current.as_deref().unwrap_or_default();
                Ok(<[u8; 8]>::try_from(current)
                    .map(u64::from_be_bytes)
                    .unwrap_or(id))
            }
        }
    }

    /// The OLT an ONU id belongs to.
    pub fn onu_owner(&self, onu: OnuId) -> Result<Option<OltId>, StoreError> {
        Ok(self
            .onu_owners
            .get(onu.to_be_bytes())?
            .and_then(|v| <[u8; 4]>::try_from(v.as_ref()).ok())
            .map(u32::from_be_bytes))
    }

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

    /// Appends optics points in one batch (each to its day's record).
    pub fn record_optics(&self, points: &[(OnuId, OpticsPoint)]) -> Result<(), StoreError> {
        for (onu, point) in points {
            self.optics
                .merge(optics_key(day_of(point.at), *onu), encode_point(point))?;
        }
        Ok(())
    }

    /// Optics points of one ONU with `from <= at <= to`, oldest first, at most `limit`.
    pub fn optics_history(
        &self,
        onu: OnuId,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<OpticsPoint>, StoreError> {
        let mut points = Vec::new();
        for day in day_of(from)..=day_of(to) {
            let Some(record) = self.optics.get(optics_key(day, onu))? else {
                continue;
            };
            for chunk in record.chunks_exact(POINT_BYTES) {
                let Some(point) = decode_point(chunk) else {
                    continue;
                };
                if point.at >= from && point.at <= to {
                    points.push(point);
                    if points.len() == limit {
                        return Ok(points);
                    }
                }
            }
        }
        Ok(points)
    }

    /// Drops optics days entirely before `before`; returns how many records went.
    pub fn prune_optics(&self, before: DateTime<Utc>) -> Result<usize, StoreError> {
        let end = (day_of(before)).to_be_bytes();
        let mut removed = 0;
        for key in self.optics.range(..&end[..]).keys() {
            self.optics.remove(key?)?;
            removed += 1;
        }
        Ok(removed)
    }

    /// Records a poll of `olt` that finished at `at`: it extends the current stretch when
    /// it follows within `tolerance` (a change of reachability starts a new stretch at
    /// `at`), and starts a new stretch after a longer gap.
    pub fn extend_coverage(
        &self,
        olt: OltId,
        at: DateTime<Utc>,
        reachable: bool,
        tolerance: std::time::Duration,
    ) -> Result<(), StoreError> {
        let tolerance = chrono::Duration::from_std(tolerance).unwrap_or(chrono::Duration::zero());
        let last = self
            .coverage
            .range(
                coverage_key(olt, DateTime::<Utc>::MIN_UTC)
                    ..=coverage_key(olt, DateTime::<Utc>::MAX_UTC),
            )
            .next_back()
            .transpose()?
            .and_then(|(key, value)| decode_coverage(&key, &value));
        // Inserts, not a batch: see record_state_changes. Should the process die between
        // the two, the stretch is extended and the next poll starts the new one.
        match last {
            Some(last) if at >= last.end && at - last.end <= tolerance => {
                self.coverage.insert(
                    coverage_key(olt, last.start),
                    encode_coverage(at, last.reachable).to_vec(),
                )?;
                if last.reachable != reachable {
                    self.coverage.insert(
                        coverage_key(olt, at),
                        encode_coverage(at, reachable).to_vec(),
                    )?;
                }
            }
            Some(last) if at < last.end => return Ok(()), // the clock went back
            _ => {
                self.coverage.insert(
                    coverage_key(olt, at),
                    encode_coverage(at, reachable).to_vec(),
                )?;
            }
        }
        Ok(())
    }

    /// The stretches of `olt` overlapping `[from, to]`, clipped to it, in time order.
    pub fn coverage(
        &self,
        olt: OltId,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> Result<Vec<Coverage>, StoreError> {
        let mut stretches = Vec::new();
        // The stretch that started before `from` may still reach into the period.
        let before = self
            .coverage
            .range(coverage_key(olt, DateTime::<Utc>::MIN_UTC)..coverage_key(olt, from))
            .next_back()
            .transpose()?;
        let within = self
            .coverage
            .range(coverage_key(olt, from)..=coverage_key(olt, to));
        for entry in before.into_iter().map(Ok).chain(within) {
            let (key, value) = entry?;
            let Some(stretch) = decode_coverage(&key, &value) else {
                continue;
            };
            if stretch.end < from || stretch.start > to {
                continue;
            }
            stretches.push(Coverage {
                start: stretch.start.max(from),
                end: stretch.end.min(to),
                reachable: stretch.reachable,
            });
        }
        Ok(stretches)
    }

    /// Drops stretches that ended before `before`.
    pub fn prune_coverage(&self, before: DateTime<Utc>) -> Result<usize, StoreError> {
        let mut removed = 0;
        for entry in self.coverage.iter() {
            let (key, value) = entry?;
            if decode_coverage(&key, &value).is_some_and(|c| c.end < before) {
                self.coverage.remove(key)?;
                removed += 1;
            }
        }
        Ok(removed)
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

    pub fn api_keys(&self) -> Result<Vec<ApiKeyRecord>, StoreError> {
        self.api_keys
            .iter()
            .map(|entry| {
                let (key, value) = entry?;
                serde_json::from_slice(&value).map_err(|source| StoreError::Decode {
                    tree: API_KEYS,
                    key: String::from_utf8_lossy(&key).into_owned(),
                    source,
                })
            })
            .collect()
    }

    pub fn api_key(&self, name: &str) -> Result<Option<ApiKeyRecord>, StoreError> {
        get_json(&self.api_keys, API_KEYS, name.as_bytes())
    }

    /// Stores a new key and flushes it to disk; `false` if the name is taken.
    pub async fn insert_api_key(&self, record: &ApiKeyRecord) -> Result<bool, StoreError> {
        let value = serde_json::to_vec(record)?;
        let inserted = self
            .api_keys
            .compare_and_swap(record.name.as_bytes(), None as Option<&[u8]>, Some(value))?
            .is_ok();
        flush_tree(&self.api_keys).await?;
        Ok(inserted)
    }

    /// Saves when keys were last used. A key revoked meanwhile stays revoked: each
    /// record is replaced only if it is still the one that was read.
    pub fn record_key_use(&self, uses: &[(String, DateTime<Utc>)]) -> Result<(), StoreError> {
        for (name, at) in uses {
            let Some(current) = self.api_keys.get(name.as_bytes())? else {
                continue;
            };
            let mut record: ApiKeyRecord =
                serde_json::from_slice(&current).map_err(|source| StoreError::Decode {
                    tree: API_KEYS,
                    key: name.clone(),
                    source,
                })?;
            if record.last_used_at.is_some_and(|last| last >= *at) {
                continue;
            }
            record.last_used_at = Some(*at);
            let updated = serde_json::to_vec(&record)?;
            // A lost race (a revoke, a newer use) leaves the record as it is.
            let _ =
                self.api_keys
                    .compare_and_swap(name.as_bytes(), Some(current), Some(updated))?;
        }
        Ok(())
    }

    /// Removes a key and flushes; `false` if there was none by that name.
    pub async fn remove_api_key(&self, name: &str) -> Result<bool, StoreError> {
        let removed = self.api_keys.remove(name.as_bytes())?.is_some();
        flush_tree(&self.api_keys).await?;
        Ok(removed)
    }

    /// Stores `content` as OLT `olt`'s newest configuration version unless it equals the
    /// latest one, and flushes. Returns the version that holds this content, with
    /// `changed` telling whether it was new.
    pub async fn save_config(
        &self,
        olt: OltId,
        content: &str,
        taken_at: DateTime<Utc>,
    ) -> Result<ConfigBackup, StoreError> {
        use sha2::{Digest, Sha256};
        let sha256 = hex::encode(Sha256::digest(content.as_bytes()));
        if let Some(mut latest) = self.latest_config(olt)? {
            if latest.sha256 == sha256 {
                latest.changed = false;
                return Ok(latest);
            }
        }
        let backup = ConfigBackup {
            id: self.db.generate_id()? + 1,
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

    /// The newest configuration version of an OLT.
    pub fn latest_config(&self, olt: OltId) -> Result<Option<ConfigBackup>, StoreError> {
        self.config_meta
            .scan_prefix(olt.to_be_bytes())
            .values()
            .next_back()
            .map(|value| decode(CONFIG_META, &value?))
            .transpose()
    }

    /// A page of an OLT's configuration versions, newest first, and how many there are.
    pub fn configs(
        &self,
        olt: OltId,
        offset: usize,
        limit: usize,
    ) -> Result<(usize, Vec<ConfigBackup>), StoreError> {
        let versions = self.config_meta.scan_prefix(olt.to_be_bytes());
        let total = self.config_meta.scan_prefix(olt.to_be_bytes()).count();
        let page = versions
            .values()
            .rev()
            .skip(offset)
            .take(limit)
            .map(|value| decode(CONFIG_META, &value?))
            .collect::<Result<_, _>>()?;
        Ok((total, page))
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

    /// The version stored just before version `id` of the same OLT.
    pub fn config_before(&self, olt: OltId, id: u64) -> Result<Option<u64>, StoreError> {
        let start = config_key(olt, 0);
        let end = config_key(olt, id);
        match self.config_meta.range(start..end).keys().next_back() {
            None => Ok(None),
            Some(key) => {
                let key = key?;
                Ok(key
                    .get(4..12)
                    .and_then(|b| <[u8; 8]>::try_from(b).ok())
                    .map(u64::from_be_bytes))
            }
        }
    }

    /// Appends an audit entry, giving it its id, and flushes it to disk before returning.
    pub async fn append_audit(&self, mut entry: AuditEntry) -> Result<AuditEntry, StoreError> {
        entry.id = self.db.generate_id()? + 1;
        self.audit
            .insert(entry.id.to_be_bytes(), serde_json::to_vec(&entry)?)?;
        flush_tree(&self.audit).await?;
        Ok(entry)
    }

    /// A page of the audit entries `filter` admits, newest first, and how many it admits.
    pub fn audit_entries(
        &self,
        filter: &AuditFilter,
        offset: usize,
        limit: usize,
    ) -> Result<(usize, Vec<AuditEntry>), StoreError> {
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

    /// Writes everything buffered to disk.
    pub async fn flush(&self) -> Result<(), StoreError> {
        flush_tree(&self.db).await?;
        Ok(())
    }
}

fn config_key(olt: OltId, id: u64) -> [u8; 12] {
    let mut key = [0u8; 12];
    key[..4].copy_from_slice(&olt.to_be_bytes());
    key[4..].copy_from_slice(&id.to_be_bytes());
    key
}

fn decode<T: DeserializeOwned>(tree: &'static str, bytes: &[u8]) -> Result<T, StoreError> {
    serde_json::from_slice(bytes).map_err(|source| StoreError::Decode {
        tree,
        key: String::new(),
        source,
    })
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

fn coverage_key(olt: OltId, start: DateTime<Utc>) -> [u8; 12] {
    let mut key = [0u8; 12];
    key[..4].copy_from_slice(&olt.to_be_bytes());
    let millis = (start.timestamp_millis() as u64) ^ (1 << 63);
    key[4..].copy_from_slice(&millis.to_be_bytes());
    key
}

fn encode_coverage(end: DateTime<Utc>, reachable: bool) -> [u8; 9] {
    let mut value = [0u8; 9];
    value[..8].copy_from_slice(&end.timestamp_millis().to_be_bytes());
    value[8] = u8::from(reachable);
    value
}

fn decode_coverage(key: &[u8], value: &[u8]) -> Option<Coverage> {
    let millis = u64::from_be_bytes(key.get(4..12)?.try_into().ok()?) ^ (1 << 63);
    Some(Coverage {
        start: DateTime::from_timestamp_millis(millis as i64)?,
        end: DateTime::from_timestamp_millis(i64::from_be_bytes(value.get(..8)?.try_into().ok()?))?,
        reachable: *value.get(8)? == 1,
    })
}

/// Days since the Unix epoch (0 for earlier times).
fn day_of(at: DateTime<Utc>) -> u32 {
    u32::try_from(at.timestamp().div_euclid(86_400)).unwrap_or(0)
}

fn optics_key(day: u32, onu: OnuId) -> [u8; 12] {
    let mut key = [0u8; 12];
    key[..4].copy_from_slice(&day.to_be_bytes());
    key[4..].copy_from_slice(&onu.to_be_bytes());
    key
}

fn centi(dbm: Option<f64>) -> i16 {
    dbm.map(|v| (v * 100.0).round().clamp(-32_000.0, 32_000.0) as i16)
        .unwrap_or(ABSENT_CENTI_DBM)
}

fn from_centi(raw: i16) -> Option<f64> {
    (raw != ABSENT_CENTI_DBM).then(|| f64::from(raw) / 100.0)
}

fn encode_point(point: &OpticsPoint) -> [u8; POINT_BYTES] {
    let mut out = [0u8; POINT_BYTES];
    let seconds = u32::try_from(point.at.timestamp()).unwrap_or(0);
    out[..4].copy_from_slice(&seconds.to_be_bytes());
    out[4..6].copy_from_slice(&centi(point.rx_power).to_be_bytes());
    out[6..8].copy_from_slice(&centi(point.tx_power).to_be_bytes());
    out[8..10].copy_from_slice(&centi(point.olt_rx_power).to_be_bytes());
    out[10] = match point.level {
        OpticsLevel::Ok => 0,
        OpticsLevel::Warning => 1,
        OpticsLevel::Critical => 2,
        OpticsLevel::Unknown => 3,
    };
    out
}

fn decode_point(bytes: &[u8]) -> Option<OpticsPoint> {
    let seconds = u32::from_be_bytes(bytes.get(..4)?.try_into().ok()?);
    let i16_at = |i: usize| -> Option<i16> {
        Some(i16::from_be_bytes(bytes.get(i..i + 2)?.try_into().ok()?))
    };
    Some(OpticsPoint {
        at: DateTime::from_timestamp(i64::from(seconds), 0)?,
        rx_power: from_centi(i16_at(4)?),
        tx_power: from_centi(i16_at(6)?),
        olt_rx_power: from_centi(i16_at(8)?),
        level: match bytes.get(10)? {
            0 => OpticsLevel::Ok,
            1 => OpticsLevel::Warning,
            2 => OpticsLevel::Critical,
            _ => OpticsLevel::Unknown,
        },
    })
}

/// sled merge operator of the optics tree: appends the new points to the day's record.
fn append_points(_key: &[u8], old: Option<&[u8]>, new: &[u8]) -> Option<Vec<u8>> {
    let mut record = old.map(|o| o.to_vec()).unwrap_or_default();
    record.extend_from_slice(new);
    Some(record)
}

fn get_json<T: DeserializeOwned>(
    tree: &sled::Tree,
    name: &'static str,
    key: &[u8],
) -> Result<Option<T>, StoreError> {
    match tree.get(key)? {
        None => Ok(None),
        Some(bytes) => {
            serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|source| StoreError::Decode {
                    tree: name,
                    key: format!("{key:?}"),
                    source,
                })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn onu_tables_in_the_old_json_encoding_are_read_and_rewritten_in_binary() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let seen = DateTime::from_timestamp(1_800_000_000, 250).expect("time");
        let onu = Onu {
            id: 9,
            olt_id: 3,
            pon_port: "0/1/0".into(),
            onu_index: 4,
            serial: "HWTC00000009".into(),
            description: "contract 9".into(),
            status: crate::domain::OnuStatus::Online,
            last_down_cause: None,
            distance: Some(900),
            rx_power: Some(-20.5),
            tx_power: Some(2.0),
            olt_rx_power: None,
            vlan: Some(100),
            last_update: seen,
        };
        // What versions before the binary encoding wrote.
        store
            .onus
            .insert(
                3u32.to_be_bytes(),
                serde_json::to_vec(&[&onu]).expect("json"),
            )
            .expect("insert");
        assert_eq!(
            store.load_onus(3, Some(seen)).expect("load"),
            vec![onu.clone()]
        );

        store
            .save_onus(3, std::slice::from_ref(&onu), Some(seen))
            .expect("save");
        let raw = store
            .onus
            .get(3u32.to_be_bytes())
            .expect("get")
            .expect("some");
        assert!(onu_table_encoding::is_binary(&raw));
        assert_eq!(
            store.load_onus(3, Some(seen)).expect("load"),
            vec![onu.clone()]
        );
        // A later good poll that changed nothing left the table as it was.
        let later = seen + chrono::Duration::seconds(60);
        let loaded = store.load_onus(3, Some(later)).expect("load");
        assert_eq!(loaded[0].last_update, later);
    }

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
            last_error: None,
            failures_in_row: 0,
            system: SystemInfo {
                uptime_seconds: Some(100),
                ..SystemInfo::default()
            },
            ports: Vec::new(),
            transitions: Vec::new(),
            vlans: Vec::new(),
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

    #[test]
    fn onu_ids_are_stable_and_distinct() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let a = store.onu_id(1, "HWTC00000001").expect("id");
        let b = store.onu_id(1, "HWTC00000002").expect("id");
        let c = store.onu_id(2, "HWTC00000001").expect("id");
        assert_eq!(store.onu_owner(c).expect("owner"), Some(2));
        assert_eq!(store.onu_owner(b).expect("owner"), Some(1));
        assert_ne!(a, b);
        assert_ne!(a, c);
        assert_eq!(store.onu_id(1, "HWTC00000001").expect("id"), a);
        drop(store);
        let reopened = Store::open(dir.path()).expect("reopen");
        assert_eq!(reopened.onu_id(1, "HWTC00000002").expect("id"), b);
    }

    #[test]
    fn optics_history_is_stored_compactly_by_day_and_pruned() {
        use chrono::TimeZone;
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let day0 = Utc
            .with_ymd_and_hms(2026, 11, 20, 23, 50, 0)
            .single()
            .expect("time");
        let point = |minutes: i64, rx: Option<f64>| OpticsPoint {
            at: day0 + chrono::Duration::minutes(minutes),
            rx_power: rx,
            tx_power: Some(2.5),
            olt_rx_power: Some(-18.04),
            level: if rx.is_some() {
                OpticsLevel::Ok
            } else {
                OpticsLevel::Unknown
            },
        };
        let points = [
            point(0, Some(-21.37)),
            point(15, None),
            point(30, Some(-21.4)),
        ];
        for p in &points {
            store.record_optics(&[(7, *p), (8, *p)]).expect("record");
        }
        let all = store
            .optics_history(
                7,
                day0 - chrono::Duration::days(1),
                day0 + chrono::Duration::days(1),
                100,
            )
            .expect("history");
        assert_eq!(all, points, "across midnight, absent readings kept as None");
        let limited = store
            .optics_history(7, day0, day0 + chrono::Duration::days(1), 2)
            .expect("history");
        assert_eq!(limited, points[..2]);
        let windowed = store
            .optics_history(
                7,
                day0 + chrono::Duration::minutes(10),
                day0 + chrono::Duration::minutes(20),
                100,
            )
            .expect("history");
        assert_eq!(windowed, points[1..2]);
        // Day 0 holds one record per ONU; pruning before day 1 removes both.
        assert_eq!(
            store
                .prune_optics(day0 + chrono::Duration::minutes(10))
                .expect("prune"),
            2
        );
        let rest = store
            .optics_history(7, day0, day0 + chrono::Duration::days(1), 100)
            .expect("history");
        assert_eq!(rest, points[1..]);
    }

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
    fn coverage_stretches_follow_polls_and_gaps() {
        use chrono::TimeZone;
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let t = |s: i64| {
            Utc.with_ymd_and_hms(2026, 11, 21, 10, 0, 0)
                .single()
                .expect("time")
                + chrono::Duration::seconds(s)
        };
        let tolerance = std::time::Duration::from_secs(30);
        for (at, reachable) in [
            (0, true),
            (20, true),
            (40, true),
            (60, false),
            (80, false),
            (100, true),
            (300, true),
            (320, true),
        ] {
            store
                .extend_coverage(7, t(at), reachable, tolerance)
                .expect("extend");
        }
        store
            .extend_coverage(8, t(10), true, tolerance)
            .expect("another OLT");
        let stretch = |a: i64, b: i64, reachable: bool| Coverage {
            start: t(a),
            end: t(b),
            reachable,
        };
        assert_eq!(
            store.coverage(7, t(-100), t(1000)).expect("coverage"),
            [
                stretch(0, 60, true),
                stretch(60, 100, false),
                stretch(100, 100, true),
                stretch(300, 320, true)
            ],
            "reachability changes split at the poll; a gap over the tolerance is left out"
        );
        assert_eq!(
            store.coverage(7, t(30), t(70)).expect("coverage"),
            [stretch(30, 60, true), stretch(60, 70, false)],
            "clipped to the period"
        );
        // OLT 7's first stretch and OLT 8's only one ended before 90 s.
        assert_eq!(store.prune_coverage(t(90)).expect("prune"), 2);
        assert!(store
            .coverage(8, t(-100), t(1000))
            .expect("coverage")
            .is_empty());
        assert_eq!(
            store.coverage(7, t(-100), t(1000)).expect("coverage").len(),
            3
        );
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
        };
        {
            let store = Store::open(dir.path()).expect("open");
            store
                .append_audit(entry("onu.reboot", AuditResult::Success))
                .await
                .expect("append");
            store
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
        let store = reopened.expect("reopen");
        let (total, all) = store
            .audit_entries(&AuditFilter::default(), 0, 10)
            .expect("list");
        assert_eq!(total, 2);
        assert_eq!(all[0].action, "onu.set_vlan");
        let failures = AuditFilter {
            result: Some(AuditResult::Failure),
            ..AuditFilter::default()
        };
        let (total, _) = store.audit_entries(&failures, 0, 10).expect("list");
        assert_eq!(total, 1);
    }

    #[tokio::test]
    async fn api_key_names_are_unique() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let record = ApiKeyRecord {
            name: "billing".into(),
            sha256: "00".repeat(32),
            level: AccessLevel::ReadOnly,
            rate: None,
            allow_ip: vec![],
            created_at: Utc::now(),
            last_used_at: None,
        };
        assert!(store.insert_api_key(&record).await.expect("insert"));
        assert!(!store.insert_api_key(&record).await.expect("insert twice"));
        assert_eq!(store.api_keys().expect("list"), vec![record]);
        assert!(store.remove_api_key("billing").await.expect("remove"));
        assert!(!store.remove_api_key("billing").await.expect("remove twice"));
    }
}
