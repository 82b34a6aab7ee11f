//! The outside plant as the fleet view holds it: every splitter by id, each placed ONU's
//! splitter, and the ONUs behind each splitter (its own and, for a first-level one, its
//! second-level ones'). The service's records keep both on disk and tell the view every
//! change ([`PlantChange`]); the outage book reads the plant to group downs by splitter.

use super::{Splitter, SplitterId};
use crate::domain::{OltId, OnuId};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A change of the plant the records made.
#[derive(Debug, Clone, PartialEq)]
pub enum PlantChange {
    /// Every splitter there is now (a placement under a splitter no longer listed goes).
    Splitters(Vec<Splitter>),
    /// ONUs placed under a splitter, or taken off one (`None`).
    Place(Vec<(OnuId, Option<SplitterId>)>),
}

#[derive(Debug, Default)]
pub struct Plant {
    splitters: BTreeMap<SplitterId, Splitter>,
    placed: HashMap<OnuId, SplitterId>,
    /// Splitter → the ONUs placed directly under it.
    under: HashMap<SplitterId, BTreeSet<OnuId>>,
}

impl Plant {
    pub fn apply(&mut self, change: PlantChange) {
        match change {
            PlantChange::Splitters(splitters) => {
                self.splitters = splitters.into_iter().map(|s| (s.id, s)).collect();
                let gone: Vec<OnuId> = self
                    .placed
                    .iter()
                    .filter(|(_, s)| !self.splitters.contains_key(s))
                    .map(|(onu, _)| *onu)
                    .collect();
                for onu in gone {
                    self.place(onu, None);
                }
            }
            PlantChange::Place(placements) => {
                for (onu, splitter) in placements {
                    self.place(onu, splitter);
                }
            }
        }
    }

    fn place(&mut self, onu: OnuId, splitter: Option<SplitterId>) {
        if let Some(old) = self.placed.remove(&onu) {
            if let Some(set) = self.under.get_mut(&old) {
                set.remove(&onu);
                if set.is_empty() {
                    self.under.remove(&old);
                }
            }
        }
        if let Some(splitter) = splitter.filter(|s| self.splitters.contains_key(s)) {
            self.placed.insert(onu, splitter);
            self.under.entry(splitter).or_default().insert(onu);
        }
    }

    pub fn splitter(&self, id: SplitterId) -> Option<&Splitter> {
        self.splitters.get(&id)
    }

    /// The splitter ONU `onu` is placed under.
    pub fn splitter_of(&self, onu: OnuId) -> Option<&Splitter> {
        self.placed.get(&onu).and_then(|id| self.splitters.get(id))
    }

    /// The ONUs placed directly under `splitter`, in id order.
    pub fn placed_under(&self, splitter: SplitterId) -> Vec<OnuId> {
        self.under
            .get(&splitter)
            .map(|set| set.iter().copied().collect())
            .unwrap_or_default()
    }

    /// The ONUs behind `splitter`: its own and its children's, in id order.
    pub fn behind(&self, splitter: SplitterId) -> BTreeSet<OnuId> {
        let mut onus: BTreeSet<OnuId> = self.under.get(&splitter).cloned().unwrap_or_default();
        for child in self.children(splitter) {
            onus.extend(self.under.get(&child).into_iter().flatten().copied());
        }
        onus
    }

    /// The splitters hanging under `splitter`.
    pub fn children(&self, splitter: SplitterId) -> Vec<SplitterId> {
        self.splitters
            .values()
            .filter(|s| s.parent_id == Some(splitter))
            .map(|s| s.id)
            .collect()
    }

    /// The splitters of one port, first-level ones (on the feeder) first.
    pub fn on_port(&self, olt: OltId, port: &str) -> Vec<&Splitter> {
        let mut list: Vec<&Splitter> = self
            .splitters
            .values()
            .filter(|s| s.olt_id == olt && s.pon_port == port)
            .collect();
        list.sort_by_key(|s| (s.parent_id.is_some(), s.id));
        list
    }
}
