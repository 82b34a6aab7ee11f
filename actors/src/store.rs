//! The sled store of the device side, behind typed trees, one module per record kind:
//! OLT session records and poll statistics ([`olt_record`]), ONU tables ([`onu_tables`],
//! encoded by [`onu_table_encoding`]), the ONU id allocation and owner index
//! ([`onu_ids`]), ONU state changes ([`onu_states`]), optics history ([`optics`]),
//! traffic history ([`traffic`]), OLT poll coverage ([`coverage`]), running-config
//! backups ([`configs`]) and SSH host keys recorded on first use ([`host_keys`]). Each
//! module holds its record types, key encodings, its `impl Store` block and its tests; this file
//! holds what they share: opening the database, [`StoreError`], flushing and JSON
//! decoding. OLT actors write their own records after each poll; the service reads them at
//! start-up to answer before the first poll, and reads history through its own history
//! module; backup tasks flush a configuration before they report success.
//!
//! The service keeps its own records (API keys, the audit log) in trees of the same
//! database, opened with [`Store::open_tree`]; ids for them come from [`Store::next_id`].
//! sled is named only here, in these modules and in the service's record store.

use serde::de::DeserializeOwned;
use std::path::Path;

mod config_retention;
pub mod configs;
mod snapshot;
pub use snapshot::SnapshotSummary;
pub mod coverage;
pub mod host_keys;
pub mod macs;
pub mod olt_record;
pub mod onu_ids;
pub mod onu_states;
pub mod onu_table_encoding;
pub mod onu_tables;
pub mod optics;
pub mod series;
pub mod space;
pub mod traffic;

pub use configs::ConfigBackup;
pub use coverage::Coverage;
pub use olt_record::{OltRecord, SystemInfo, Transition};
pub use space::Space;

use configs::{CONFIG_CONTENT, CONFIG_META};
use coverage::COVERAGE;
use host_keys::SSH_HOST_KEYS;
use macs::{MACS, MAC_READS, ONU_MACS};
use olt_record::{OLTS, OLT_POLLS};
use onu_ids::{ONU_IDS, ONU_OWNERS};
use onu_states::ONU_STATES;
use onu_tables::ONUS;
use optics::OPTICS;
use series::SERIES;
use traffic::TRAFFIC;

/// The trees of the device side; [`Store::open_tree`] refuses these names.
const DEVICE_TREES: [&str; 16] = [
    OLTS,
    OLT_POLLS,
    ONUS,
    ONU_IDS,
    ONU_OWNERS,
    ONU_STATES,
    OPTICS,
    TRAFFIC,
    SERIES,
    MACS,
    ONU_MACS,
    MAC_READS,
    COVERAGE,
    CONFIG_META,
    CONFIG_CONTENT,
    SSH_HOST_KEYS,
];

/// sled's page cache, in bytes. sled's default (1 GiB) lets the cache grow with every
/// write until it holds most of what was ever written; the service reads its trees at
/// start-up and then mostly writes, so a small cache costs nothing measurable and keeps
/// the resident size of `serve` close to what the actors hold (docs/benchmarks.md P5).
/// sled keeps several times this figure in use: 8 MB instead of 32 took 54 MB off `serve`
/// at 10,000 OLTs, with restarts no slower (docs/benchmarks.md, national scale).
const CACHE_BYTES: u64 = 8 * 1024 * 1024;

/// A cluster member's ids are its block shifted this far ([`Store::with_id_block`]).
pub const ID_BLOCK_BITS: u32 = 48;

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
    #[error("store: tree {0} belongs to the device side")]
    DeviceTree(String),
    #[error("store: cannot encode a record: {0}")]
    Encode(#[from] serde_json::Error),
    /// The data directory's filesystem is nearly full: writes wait until space is freed
    /// ([`space`]).
    #[error("store: {} MiB free on the data directory's filesystem, below the {} MiB kept in reserve (storage.min_free_mb); writes resume once space is freed", .available / (1024 * 1024), .min_free / (1024 * 1024))]
    NoSpace { available: u64, min_free: u64 },
}

/// Flushes `tree` (with it, the whole database) to disk from tokio's blocking pool.
///
/// Not `flush_async`: sled 0.34 runs that on its own thread pool, whose threads then
/// wait for log writes queued on the same pool, and the pool counts a busy thread as
/// idle (it subtracts one twice), so it grows no thread to take those writes. A few flushes at once (a
/// fleet's first scheduled backups, audit entries) left every sled-io thread waiting in
/// `make_stable` and every later store call hung (seen in a tests/faults.rs run).
pub async fn flush_tree(tree: &sled::Tree) -> Result<(), StoreError> {
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
    /// Day + ONU id → that day's traffic points, appended the same way.
    traffic: sled::Tree,
    /// Kind + ONU id + day → a block of points; kind + ONU id + second → an open point
    /// ([`series`]). Traffic and optics are written here; the two trees above are read
    /// through until their days age out.
    series: sled::Tree,
    /// Per series kind, the days of the cutoffs its tiers were last pruned to: a prune
    /// whose cutoffs fall on the same days finds nothing new and is skipped.
    series_pruned: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<u8, [u32; 3]>>>,
    /// MAC + ONU id → when and in which VLAN the MAC was seen behind the ONU.
    macs: sled::Tree,
    /// ONU id + MAC → nothing: the MACs of one ONU.
    onu_macs: sled::Tree,
    /// ONU id → when its MACs were last read.
    mac_reads: sled::Tree,
    /// OLT id + start → end and reachability of a stretch of polls (see [`Coverage`]).
    coverage: sled::Tree,
    /// OLT id + backup id → [`ConfigBackup`]; the text is in `config_content`.
    config_meta: sled::Tree,
    config_content: sled::Tree,
    /// Added to sled's id sequence: a restored database starts past the ids it holds.
    id_base: u64,
    /// Room on the filesystem: the write paths ask it first.
    space: std::sync::Arc<Space>,
    /// Added to every new id: a cluster member's block ([`Store::with_id_block`]).
    id_block: u64,
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
        optics.set_merge_operator(optics::append_points);
        let traffic = db.open_tree(TRAFFIC)?;
        traffic.set_merge_operator(optics::append_points);
        Ok(Store {
            olts: db.open_tree(OLTS)?,
            olt_polls: db.open_tree(OLT_POLLS)?,
            onus: db.open_tree(ONUS)?,
            onu_ids: db.open_tree(ONU_IDS)?,
            onu_owners: db.open_tree(ONU_OWNERS)?,
            onu_states: db.open_tree(ONU_STATES)?,
            optics,
            traffic,
            series: db.open_tree(SERIES)?,
            series_pruned: Default::default(),
            macs: db.open_tree(MACS)?,
            onu_macs: db.open_tree(ONU_MACS)?,
            mac_reads: db.open_tree(MAC_READS)?,
            coverage: db.open_tree(COVERAGE)?,
            config_meta: db.open_tree(CONFIG_META)?,
            config_content: db.open_tree(CONFIG_CONTENT)?,
            id_base: db
                .get(snapshot::ID_BASE)?
                .and_then(|v| <[u8; 8]>::try_from(v.as_ref()).ok())
                .map(u64::from_be_bytes)
                .unwrap_or(0),
            db,
            space: std::sync::Arc::new(Space::new(dir.to_path_buf())),
            id_block: 0,
        })
    }

    /// New ids from here on are `block × 2⁴⁸` past what they would be: a cluster member
    /// allocates in a block of its own, so ids stay unique across members. Ids stored
    /// already keep their values.
    pub fn with_id_block(mut self, block: u16) -> Store {
        self.id_block = u64::from(block) << ID_BLOCK_BITS;
        self
    }

    /// The first id of this store's block: 0 alone, `block × 2⁴⁸` for a cluster member.
    /// The event log numbers its events past it, so event ids are unique across members.
    pub fn id_floor(&self) -> u64 {
        self.id_block
    }

    /// Room on the data directory's filesystem ([`space`]).
    pub fn space(&self) -> &Space {
        &self.space
    }

    /// Whether a write may go ahead now ([`Space::check`]); every write path asks first.
    pub fn writable(&self) -> Result<(), StoreError> {
        self.space.check()
    }

    /// Keeps `error` if sled failed a write ([`Space::note_failure`]), and passes it on.
    pub fn noted<T>(&self, result: Result<T, StoreError>) -> Result<T, StoreError> {
        if let Err(StoreError::Sled(error)) = &result {
            if matches!(error, sled::Error::Io(_) | sled::Error::ReportableBug(_)) {
                self.space.note_failure(&error.to_string());
            }
        }
        result
    }

    /// Opens (or creates) a tree of the service's own, `name`, in the same database, so
    /// its records share the one lock, page cache and flush with the device side's. The
    /// device side's trees are refused: the service reaches those only through the typed
    /// methods of the record modules.
    pub fn open_tree(&self, name: &str) -> Result<sled::Tree, StoreError> {
        if DEVICE_TREES.contains(&name) {
            return Err(StoreError::DeviceTree(name.to_string()));
        }
        Ok(self.db.open_tree(name)?)
    }

    /// A new id, unique in the database and greater than every id given before (ONU ids,
    /// config backup ids and the service's audit entry ids share the one sequence).
    pub fn next_id(&self) -> Result<u64, StoreError> {
        self.writable()?;
        let id = self.noted(self.db.generate_id().map_err(StoreError::from))?;
        Ok(id + 1 + self.id_base + self.id_block)
    }

    /// One read and one small write of the database, for `GET /readyz`: an error if the
    /// store cannot answer, cannot write, or keeps writes back for lack of space.
    pub fn ping(&self) -> Result<String, String> {
        self.db
            .get(b"ponkeeper.ping")
            .map_err(|e| format!("a read failed: {e}"))?;
        let status = self.space.status()?;
        let written = self
            .db
            .insert(
                b"ponkeeper.ping",
                &chrono::Utc::now().timestamp().to_be_bytes(),
            )
            .map_err(StoreError::from);
        self.noted(written)
            .map_err(|e| format!("a write failed: {e}"))?;
        Ok(status)
    }

    /// Writes everything buffered to disk.
    pub async fn flush(&self) -> Result<(), StoreError> {
        flush_tree(&self.db).await?;
        Ok(())
    }
}

/// Logs a write that failed: an error, unless the store held it back for lack of space
/// (the store says so once, when it starts and when it ends; a fleet's polls would
/// otherwise log it thousands of times a minute).
pub fn log_write_error(what: &str, olt: Option<u32>, error: &StoreError) {
    if matches!(error, StoreError::NoSpace { .. }) {
        tracing::debug!(?olt, %error, "{what}");
    } else {
        tracing::error!(?olt, %error, "{what}");
    }
}

/// Decodes one JSON record of tree `tree`.
pub fn decode<T: DeserializeOwned>(tree: &'static str, bytes: &[u8]) -> Result<T, StoreError> {
    serde_json::from_slice(bytes).map_err(|source| StoreError::Decode {
        tree,
        key: String::new(),
        source,
    })
}

/// The JSON record under `key` in `tree` (named `name` in errors), if there is one.
pub fn get_json<T: DeserializeOwned>(
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
    fn the_service_opens_trees_of_its_own_but_not_the_device_sides() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let audit = store.open_tree("audit").expect("a tree of the service");
        audit.insert(b"k", b"v").expect("insert");
        assert_eq!(
            store
                .open_tree("audit")
                .expect("reopen")
                .get(b"k")
                .expect("get")
                .as_deref(),
            Some(&b"v"[..])
        );
        for name in DEVICE_TREES {
            assert!(
                matches!(store.open_tree(name), Err(StoreError::DeviceTree(n)) if n == name),
                "{name} refused"
            );
        }
        let first = store.next_id().expect("id");
        assert!(store.next_id().expect("id") > first);
    }
}
