//! Folding one OLT's published update into the view. The update carries the OLT's whole
//! table, shared with its actor: the view keeps that table in place of the one it held
//! (no row is copied) and moves the indexes of the rows the update names. A row whose
//! OLT, serial and description stayed — a poll's usual change: a status, a reading —
//! moves only the indexes whose key changed; any other row is taken out and put in.
//!
//! The table the view held is the one the actor last published (updates of one actor
//! are folded in the order they were sent), so each named row's previous values are
//! read from it, and every row of an OLT's table is in the view's id map.

use super::{level_slot, optics_key, search_key, FleetAggregate, NodeCounters};
use super::{OltEntry, OnuPlace, Slot};
use crate::domain::{OltId, Onu, OnuId, OnuStatus};
use crate::published::{row_of, OltSummary, OltUpdate, OnuChange};
use std::collections::HashMap;
use std::sync::Arc;

impl FleetAggregate {
    pub(super) fn apply_update(&mut self, update: OltUpdate) -> bool {
        let OltUpdate {
            olt,
            incarnation,
            snapshot,
            summary,
            ports,
            vlans,
            // Each row carries its own `last_update`: the view needs no poll time.
            polled_at: _,
            table,
            onus,
        } = update;
        if self.removed.get(&olt).is_some_and(|&r| r >= incarnation) {
            return false;
        }
        let current = self.olts.get(&olt).map(|e| e.incarnation);
        match (current, snapshot) {
            (Some(known), _) if incarnation < known => return false,
            (Some(known), false) if incarnation == known => {}
            (_, false) => return false, // a delta before its actor's snapshot
            (_, true) => {
                self.remove_olt(olt);
                self.olts.insert(
                    olt,
                    OltEntry {
                        incarnation,
                        summary: summary.clone(),
                        ports: Vec::new(),
                        vlans: Vec::new(),
                        vlan_use: HashMap::new(),
                        table: Arc::default(),
                    },
                );
                self.count_node(&summary, 1);
            }
        }
        let Some(entry) = self.olts.get_mut(&olt) else {
            return false;
        };
        let old_summary = std::mem::replace(&mut entry.summary, summary.clone());
        if let Some(ports) = ports {
            entry.ports = ports;
        }
        if let Some(vlans) = vlans {
            entry.vlans = vlans;
        }
        let old = std::mem::replace(&mut entry.table, table.clone());
        self.count_node(&old_summary, -1);
        self.count_node(&summary, 1);
        let slots = self.fold_rows(olt, &old, &table, onus);
        // A snapshot (a start folds in one per OLT) is searchable at once but posted in
        // the trigram lists later, by `post_text`; a poll's few changed rows now.
        if snapshot {
            self.text.post_later(&slots);
        } else {
            let held: Vec<(Slot, OnuId)> = slots
                .iter()
                .filter_map(|&slot| Some((slot, self.text.unposted_id(slot)?)))
                .collect();
            self.post_keys(held.into_iter());
        }
        true
    }

    /// Moves the indexes of the rows `changes` names from table `old` to table `new` of
    /// OLT `olt`. Returns the search-key slots of the rows upserted.
    fn fold_rows(
        &mut self,
        olt: OltId,
        old: &[Onu],
        new: &[Onu],
        changes: Vec<OnuChange>,
    ) -> Vec<Slot> {
        // Rows that left go first, while the places held still point into `old`.
        for change in &changes {
            if let OnuChange::Remove(id) = *change {
                if let Some((_, was)) = row_of(old, id) {
                    self.take_out(olt, was);
                }
            }
        }
        let same_places = old.len() == new.len() && old.iter().zip(new).all(|(a, b)| a.id == b.id);
        if !same_places {
            for (position, onu) in new.iter().enumerate() {
                if let Some(place) = self.onus.get_mut(onu.id).filter(|p| p.olt == olt) {
                    place.position = position as u32;
                }
            }
        }
        let mut slots = Vec::with_capacity(changes.len());
        for change in changes {
            let OnuChange::Upsert(id) = change else {
                continue;
            };
            if let Some((position, onu)) = row_of(new, id) {
                let was = row_of(old, id).map(|(_, was)| was);
                slots.push(self.upsert_onu(olt, onu, position as u32, was));
            }
        }
        slots
    }

    /// Indexes `onu`, now at `position` of OLT `olt`'s table; `was` is its row in the
    /// table the view held before.
    fn upsert_onu(&mut self, olt: OltId, onu: &Onu, position: u32, was: Option<&Onu>) -> Slot {
        match (self.onus.get(onu.id).copied(), was) {
            (Some(place), Some(was)) if place.olt == olt => {
                self.update_in_place(olt, onu, position, place, was)
            }
            (Some(place), _) if place.olt != olt => {
                // Held under another OLT, whose table is unchanged: out with the row
                // held there first.
                if let Some(held) = self.row_at(&place).cloned() {
                    self.take_out(place.olt, &held);
                }
                self.put_in(olt, onu, position)
            }
            // A place of this OLT points into its new table already: never read it.
            _ => self.put_in(olt, onu, position),
        }
    }

    /// Moves only the indexes whose key differs between `was` and `onu`.
    fn update_in_place(
        &mut self,
        olt: OltId,
        onu: &Onu,
        position: u32,
        place: OnuPlace,
        was: &Onu,
    ) -> Slot {
        let id = onu.id;
        if was.vlan != onu.vlan {
            if let Some(entry) = self.olts.get_mut(&olt) {
                entry.use_vlan(was.vlan, -1);
                entry.use_vlan(onu.vlan, 1);
            }
        }
        if was.serial != onu.serial {
            self.by_serial.remove(&was.serial, id);
            self.by_serial.insert(&onu.serial, id);
        }
        if was.status != onu.status {
            if onu.status == OnuStatus::Offline {
                self.offline.insert(id);
            } else {
                self.offline.remove(&id);
            }
        }
        if was.rx_power != onu.rx_power {
            self.optics.remove(&optics_key(was.rx_power, id));
            self.optics.insert(optics_key(onu.rx_power, id));
            self.per_level[level_slot(self.thresholds.level(was.rx_power.get()))] -= 1;
            self.per_level[level_slot(self.thresholds.level(onu.rx_power.get()))] += 1;
        }
        // The search key is made of the serial and the description only: a row whose
        // status or readings changed keeps its place in the text index.
        let slot = if was.serial != onu.serial || was.description != onu.description {
            self.text
                .remove(place.slot, &search_key(&was.serial, &was.description));
            self.text.hold(id)
        } else {
            place.slot
        };
        self.place(id, olt, position, slot)
    }

    /// Indexes a row the view did not hold; it gets a slot in the text index, whose
    /// trigram lists the caller posts for all of an update's rows at once.
    fn put_in(&mut self, olt: OltId, onu: &Onu, position: u32) -> Slot {
        let id = onu.id;
        if let Some(entry) = self.olts.get_mut(&olt) {
            entry.use_vlan(onu.vlan, 1);
        }
        self.by_serial.insert(&onu.serial, id);
        if onu.status == OnuStatus::Offline {
            self.offline.insert(id);
        }
        self.optics.insert(optics_key(onu.rx_power, id));
        self.per_level[level_slot(self.thresholds.level(onu.rx_power.get()))] += 1;
        let slot = self.text.hold(id);
        self.place(id, olt, position, slot)
    }

    /// Records where ONU `id`'s row and text-index slot are; returns the slot.
    fn place(&mut self, id: OnuId, olt: OltId, position: u32, slot: Slot) -> Slot {
        let place = OnuPlace {
            olt,
            position,
            slot,
        };
        self.onus.insert(id, place);
        slot
    }

    /// Takes row `was` of OLT `olt` and its indexes out (nothing when the view holds
    /// that ONU under another OLT).
    fn take_out(&mut self, olt: OltId, was: &Onu) {
        let id = was.id;
        let Some(place) = self.onus.get(id).copied().filter(|p| p.olt == olt) else {
            return;
        };
        self.onus.remove(id);
        if let Some(entry) = self.olts.get_mut(&olt) {
            entry.use_vlan(was.vlan, -1);
        }
        self.by_serial.remove(&was.serial, id);
        self.offline.remove(&id);
        self.optics.remove(&optics_key(was.rx_power, id));
        self.per_level[level_slot(self.thresholds.level(was.rx_power.get()))] -= 1;
        self.text
            .remove(place.slot, &search_key(&was.serial, &was.description));
    }

    pub(super) fn remove_olt(&mut self, olt: OltId) {
        let Some(entry) = self.olts.remove(&olt) else {
            return;
        };
        self.count_node(&entry.summary, -1);
        for onu in entry.table.iter() {
            self.take_out(olt, onu);
        }
    }

    fn count_node(&mut self, summary: &OltSummary, sign: i64) {
        let Some(node) = summary.node else {
            return;
        };
        let counters = self.nodes.entry(node).or_default();
        let olts = i64::from(counters.olt_count) + sign;
        let total = counters.onu_total as i64 + sign * i64::from(summary.total_onu);
        let online = counters.onu_online as i64 + sign * i64::from(summary.onu_online);
        *counters = NodeCounters {
            olt_count: olts.max(0) as u32,
            onu_total: total.max(0) as u64,
            onu_online: online.max(0) as u64,
        };
        if counters.olt_count == 0 {
            self.nodes.remove(&node);
        }
    }
}

impl OltEntry {
    /// Counts one ONU more (`sign` 1) or less (-1) on service VLAN `vlan`.
    fn use_vlan(&mut self, vlan: Option<u16>, sign: i32) {
        let Some(vlan) = vlan else {
            return;
        };
        let count = self.vlan_use.entry(vlan).or_default();
        *count = count.saturating_add_signed(sign);
        if *count == 0 {
            self.vlan_use.remove(&vlan);
        }
    }
}
