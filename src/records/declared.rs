//! The splitters the inventory declares (`[[splitters]]`, docs/outages.md) made real in
//! the records, at start and on every inventory reload: a declared splitter is matched to
//! a stored one by its OLT and name (letter case aside) and keeps its id — so placements,
//! outages and links stay right — its fields follow the file, a new one gets the next
//! id, and one the file no longer declares is removed with its placements (a splitter
//! made through the API under it moves to the feeder). Splitters made through the API
//! are left alone, unless the file declares one of the same name: then the file owns it.

use super::Records;
use ponkeeper_actors::domain::{OltId, OnuId};
use ponkeeper_actors::inventory::SplitterSpec;
use ponkeeper_actors::outages::{Splitter, SplitterId};
use ponkeeper_actors::store::{flush_tree, StoreError};
use std::collections::HashMap;

/// What a declaration changed.
#[derive(Debug, Default, PartialEq)]
pub struct Declared {
    pub created: usize,
    pub changed: usize,
    pub removed: usize,
    /// The ONUs whose splitter was removed.
    pub freed: Vec<OnuId>,
}

impl Declared {
    pub fn is_empty(&self) -> bool {
        self.created + self.changed + self.removed == 0
    }
}

impl Records {
    /// Makes the stored splitters match `specs` (checked by the inventory's load).
    pub async fn declare_splitters(&self, specs: &[SplitterSpec]) -> Result<Declared, StoreError> {
        let _one_at_a_time = self.plant_writes.lock().await;
        let existing = self.splitters()?;
        if specs.is_empty() && !existing.iter().any(|s| s.declared) {
            return Ok(Declared::default());
        }
        self.store.writable()?;
        let stored: HashMap<(OltId, String), &Splitter> = existing
            .iter()
            .map(|s| (SplitterSpec::key(s.olt_id, &s.name), s))
            .collect();
        let mut ids: HashMap<(OltId, String), SplitterId> = HashMap::new();
        let mut declared = Declared::default();
        // First-level splitters first: a second-level one names its parent's id.
        let mut ordered: Vec<&SplitterSpec> = specs.iter().collect();
        ordered.sort_by_key(|s| s.parent.is_some());
        for spec in ordered {
            let key = SplitterSpec::key(spec.olt, &spec.name);
            let old = stored.get(&key);
            let id = match old {
                Some(old) => old.id,
                None => self.next_splitter_id()?,
            };
            let wanted = Splitter {
                id,
                name: spec.name.trim().to_string(),
                olt_id: spec.olt,
                pon_port: spec.pon_port.trim().to_string(),
                parent_id: spec
                    .parent
                    .as_ref()
                    .and_then(|p| ids.get(&SplitterSpec::key(spec.olt, p)).copied()),
                address: spec.address.clone(),
                lat: spec.lat,
                lon: spec.lon,
                declared: true,
            };
            ids.insert(key, wanted.id);
            match old {
                Some(old) if **old == wanted => continue,
                Some(_) => declared.changed += 1,
                None => declared.created += 1,
            }
            self.write_splitter(&wanted)?;
        }
        for gone in existing.iter().filter(|s| s.declared) {
            if ids.contains_key(&SplitterSpec::key(gone.olt_id, &gone.name)) {
                continue;
            }
            declared.freed.extend(self.free_placements_under(gone.id)?);
            self.splitters.remove(gone.id.to_be_bytes())?;
            for child in existing.iter().filter(|s| s.parent_id == Some(gone.id)) {
                if !child.declared {
                    let mut moved = child.clone();
                    moved.parent_id = None;
                    self.write_splitter(&moved)?;
                }
            }
            declared.removed += 1;
        }
        flush_tree(&self.placements).await?;
        flush_tree(&self.splitters).await?;
        Ok(declared)
    }

    fn write_splitter(&self, splitter: &Splitter) -> Result<(), StoreError> {
        self.splitters
            .insert(splitter.id.to_be_bytes(), serde_json::to_vec(splitter)?)?;
        Ok(())
    }
}
