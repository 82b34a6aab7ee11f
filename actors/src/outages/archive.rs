//! Where the outage book keeps its outages: the store's `outages` tree, outage id →
//! the outage as JSON. Written on every opening, growth and end (a few writes per fault,
//! never per poll), read once at start; ended outages older than the retention are
//! dropped then and as the book prunes.

use super::{Outage, OutageId};
use crate::store::{Store, StoreError};
use chrono::{DateTime, Utc};

pub const OUTAGES: &str = "outages";

#[derive(Clone)]
pub struct OutageArchive {
    store: Store,
    tree: sled::Tree,
}

impl OutageArchive {
    pub fn open(store: &Store) -> Result<OutageArchive, StoreError> {
        Ok(OutageArchive {
            tree: store.open_tree(OUTAGES)?,
            store: store.clone(),
        })
    }

    /// Every outage kept, oldest id first; those that ended before `kept_since` are
    /// removed instead.
    pub fn load(&self, kept_since: DateTime<Utc>) -> Result<Vec<Outage>, StoreError> {
        let mut outages = Vec::new();
        for entry in self.tree.iter() {
            let (key, value) = entry?;
            let outage: Outage = crate::store::decode(OUTAGES, &value)?;
            if outage.ended_at.is_some_and(|end| end < kept_since) {
                self.tree.remove(key)?;
            } else {
                outages.push(outage);
            }
        }
        Ok(outages)
    }

    /// A new outage id (the store's one sequence).
    pub fn next_id(&self) -> Result<OutageId, StoreError> {
        self.store.next_id()
    }

    pub fn save(&self, outage: &Outage) -> Result<(), StoreError> {
        self.store.writable()?;
        self.tree
            .insert(outage.id.to_be_bytes(), serde_json::to_vec(outage)?)?;
        Ok(())
    }

    pub fn remove(&self, id: OutageId) -> Result<(), StoreError> {
        self.tree.remove(id.to_be_bytes())?;
        Ok(())
    }
}
