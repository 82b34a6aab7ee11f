//! The service's own records, kept in trees of the store's sled database next to the
//! device side's: API keys ([`api_keys`], tree `api_keys`) and the audit log ([`audit`],
//! tree `audit`, indexed by time in `audit_by_time`). The tree names and encodings are those the device crate used before
//! these records moved here, so existing data directories still read.
//!
//! [`Records`] is opened from the actors' [`Store`] ([`Store::open_tree`] gives it its
//! trees, [`Store::next_id`] its audit ids) and is, with `ponkeeper_actors::store`, the
//! only place the service names sled: key management, the key ring's loader and saver,
//! the admin socket, the audit middleware, the subscriber binding
//! ([`subscribers`], tree `subscribers`) and the outside plant ([`plant`], trees
//! `splitters` and `placements`) call its named methods; handlers read the
//! audit log through [`crate::history`].

use ponkeeper_actors::store::{Store, StoreError};

pub mod api_keys;
pub mod audit;
mod audit_time;
pub mod declared;
pub mod plant;
pub mod subscribers;

pub use api_keys::{AccessLevel, ApiKeyRecord};
pub use audit::{AuditEntry, AuditFilter, AuditResult, Channel};
pub use subscribers::Subscriber;

/// Handle to the service's records; cheap to clone.
#[derive(Clone)]
pub struct Records {
    /// The database the trees live in, for ids shared with the device side.
    store: Store,
    /// Key name → [`ApiKeyRecord`].
    api_keys: sled::Tree,
    /// Entry id (ascending in time) → [`AuditEntry`].
    audit: sled::Tree,
    /// Entry time + id → nothing: the audit log by time ([`audit_time`]).
    audit_by_time: sled::Tree,
    /// ONU id → its subscriber binding ([`subscribers`]).
    subscribers: sled::Tree,
    /// Splitter id → the splitter; ONU id → its splitter ([`plant`]).
    splitters: sled::Tree,
    placements: sled::Tree,
    /// The highest splitter id given ([`plant`]).
    splitter_ids: sled::Tree,
    /// Held while a splitter is created or removed, or ONUs are placed.
    plant_writes: std::sync::Arc<tokio::sync::Mutex<()>>,
}

impl Records {
    /// Opens (or creates) the service's trees in `store`'s database.
    /// Builds the audit log's time index if the data directory predates it.
    pub fn open(store: &Store) -> Result<Records, StoreError> {
        let records = Records {
            api_keys: store.open_tree(api_keys::API_KEYS)?,
            audit: store.open_tree(audit::AUDIT)?,
            audit_by_time: store.open_tree(audit_time::AUDIT_BY_TIME)?,
            subscribers: store.open_tree(subscribers::SUBSCRIBERS)?,
            splitters: store.open_tree(plant::SPLITTERS)?,
            placements: store.open_tree(plant::PLACEMENTS)?,
            splitter_ids: store.open_tree(plant::SPLITTER_IDS)?,
            plant_writes: Default::default(),
            store: store.clone(),
        };
        let built = records.build_audit_index()?;
        if built > 0 {
            tracing::info!(entries = built, "audit log: time index built");
        }
        Ok(records)
    }
}
