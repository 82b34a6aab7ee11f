//! The outside plant the operators describe (docs/outages.md): splitters in the
//! `splitters` tree (id → [`Splitter`] as JSON) and each ONU's placement under one in
//! `placements` (ONU id → splitter id), beside the subscriber bindings. The API writes
//! here, then tells the fleet view, which holds the plant for the outage book and the
//! splitter pages; the view is given all of it once at start. Nothing here reaches a
//! device.

use super::Records;
use ponkeeper_actors::domain::OnuId;
use ponkeeper_actors::outages::{Splitter, SplitterId};
use ponkeeper_actors::store::{flush_tree, StoreError};

pub(super) const SPLITTERS: &str = "splitters";
pub(super) const PLACEMENTS: &str = "placements";
/// The highest splitter id ever given, so an id is never given twice: a placement
/// checked against splitter 7 can never land under another splitter 7 made after the
/// first was removed.
pub(super) const SPLITTER_IDS: &str = "splitter_ids";
const HIGHEST: &[u8] = b"highest";

impl Records {
    /// Every splitter, by id.
    pub fn splitters(&self) -> Result<Vec<Splitter>, StoreError> {
        let mut list = Vec::new();
        for entry in self.splitters.iter() {
            let (_, value) = entry?;
            list.push(ponkeeper_actors::store::decode(SPLITTERS, &value)?);
        }
        Ok(list)
    }

    /// The splitter `id`, if there is one.
    pub fn splitter(&self, id: SplitterId) -> Result<Option<Splitter>, StoreError> {
        match self.splitters.get(id.to_be_bytes())? {
            Some(value) => Ok(Some(ponkeeper_actors::store::decode(SPLITTERS, &value)?)),
            None => Ok(None),
        }
    }

    /// The splitter ONU `onu` is placed under, if any.
    pub fn placement(&self, onu: OnuId) -> Result<Option<SplitterId>, StoreError> {
        Ok(self
            .placements
            .get(onu.to_be_bytes())?
            .and_then(|v| <[u8; 4]>::try_from(v.as_ref()).ok())
            .map(SplitterId::from_be_bytes))
    }

    /// Every placement, by ONU id.
    pub fn placements(&self) -> Result<Vec<(OnuId, Option<SplitterId>)>, StoreError> {
        let mut list = Vec::new();
        for entry in self.placements.iter() {
            let (key, value) = entry?;
            let (Ok(onu), Ok(splitter)) = (
                <[u8; 8]>::try_from(key.as_ref()),
                <[u8; 4]>::try_from(value.as_ref()),
            ) else {
                continue;
            };
            list.push((
                OnuId::from_be_bytes(onu),
                Some(SplitterId::from_be_bytes(splitter)),
            ));
        }
        Ok(list)
    }

    /// Stores a new splitter under the next id (one after the highest ever given) and
    /// answers it. Creations are one at a time, so two never get the same id.
    pub async fn create_splitter(&self, mut splitter: Splitter) -> Result<Splitter, StoreError> {
        self.store.writable()?;
        let _one_at_a_time = self.plant_writes.lock().await;
        splitter.id = self.next_splitter_id()?;
        self.splitters
            .insert(splitter.id.to_be_bytes(), serde_json::to_vec(&splitter)?)?;
        flush_tree(&self.splitters).await?;
        Ok(splitter)
    }

    /// Removes a splitter and every placement under it; answers the ONUs taken off.
    pub async fn delete_splitter(&self, id: SplitterId) -> Result<Vec<OnuId>, StoreError> {
        self.store.writable()?;
        let _one_at_a_time = self.plant_writes.lock().await;
        let freed = self.free_placements_under(id)?;
        self.splitters.remove(id.to_be_bytes())?;
        flush_tree(&self.placements).await?;
        flush_tree(&self.splitters).await?;
        Ok(freed)
    }

    /// Takes every ONU placed under splitter `id` off it; answers them.
    pub(super) fn free_placements_under(&self, id: SplitterId) -> Result<Vec<OnuId>, StoreError> {
        let mut freed = Vec::new();
        for entry in self.placements.iter() {
            let (key, value) = entry?;
            if value.as_ref() == id.to_be_bytes() {
                if let Ok(onu) = <[u8; 8]>::try_from(key.as_ref()) {
                    freed.push(OnuId::from_be_bytes(onu));
                }
                self.placements.remove(key)?;
            }
        }
        Ok(freed)
    }

    /// The next splitter id, one after the highest ever given (or stored, for a data
    /// directory older than the counter); the caller holds `plant_writes`.
    pub(super) fn next_splitter_id(&self) -> Result<SplitterId, StoreError> {
        let given = self
            .splitter_ids
            .get(HIGHEST)?
            .and_then(|v| <[u8; 4]>::try_from(v.as_ref()).ok())
            .map_or(0, SplitterId::from_be_bytes);
        let stored = match self.splitters.last()? {
            Some((key, _)) => <[u8; 4]>::try_from(key.as_ref()).map_or(0, u32::from_be_bytes),
            None => 0,
        };
        let next = given.max(stored) + 1;
        self.splitter_ids.insert(HIGHEST, &next.to_be_bytes())?;
        Ok(next)
    }

    /// Places each ONU under its splitter (`None` takes it off), in one batch, under the
    /// lock splitters are removed under: a splitter removed since the caller checked it
    /// places nothing and is answered (`Ok(Err(id))`).
    pub async fn place(
        &self,
        placements: &[(OnuId, Option<SplitterId>)],
    ) -> Result<Result<(), SplitterId>, StoreError> {
        self.store.writable()?;
        let _one_at_a_time = self.plant_writes.lock().await;
        let mut batch = sled::Batch::default();
        for (onu, splitter) in placements {
            match splitter {
                Some(splitter) if !self.splitters.contains_key(splitter.to_be_bytes())? => {
                    return Ok(Err(*splitter));
                }
                Some(splitter) => batch.insert(&onu.to_be_bytes(), &splitter.to_be_bytes()),
                None => batch.remove(&onu.to_be_bytes()),
            }
        }
        self.placements.apply_batch(batch)?;
        flush_tree(&self.placements).await?;
        Ok(Ok(()))
    }
}
