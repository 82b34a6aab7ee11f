//! The end of a poll, run off the actor. The poll task takes a copy of the ONU table
//! along ([`PollBase`]); when the device has answered, it hands answer and copy to
//! tokio's blocking pool, which records the poll's coverage, merges a good answer into the
//! copy (allocating ids for new ONUs), writes the table, the ONUs' state changes and the
//! optics points that are due to the store, records a `traffic` read into the copy of
//! the traffic book the poll took along and stores its rates as history points (or hands
//! the history points to [`crate::history_export`] when history is kept outside), and
//! returns the merged table and book ([`MergedPoll`]). The actor swaps it in when the report arrives, so a question to the
//! actor never waits behind a merge or a store write, and no store write blocks an async
//! worker thread.
//!
//! A CLI action that changes the table while a poll is in flight (a VLAN, a description,
//! the VLANs of a new backup) is noted as a [`TableEdit`] and replayed onto the merged
//! table, so neither the poll nor the action loses the other's change.

use crate::domain::{
    CompactString, OltId, Onu, OnuId, OnuStatus, OpticsPoint, OpticsThresholds, PonPortStats,
    Vendor,
};
use crate::history_export::{ExportedPoint, HistoryExport, SeriesLabels};
use crate::macs::{MacMove, MacRead};
use crate::onu_table::OnuTable;
use crate::poller::{Interfaces, PollOutcome, RowMap, RowTraffic};
use crate::snmp::DeviceError;
use crate::store::{Store, StoreError, SystemInfo};
use crate::traffic::{TrafficBook, TrafficRead};
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::time::Duration;

/// What the poll task takes along to finish the poll.
pub(super) struct PollBase {
    pub(super) olt: OltId,
    pub(super) store: Store,
    /// The actor's table when the poll started.
    pub(super) table: OnuTable,
    /// (port, ONU number) → service VLAN of the latest running configuration.
    pub(super) vlan_map: HashMap<(String, u32), u16>,
    pub(super) thresholds: OpticsThresholds,
    pub(super) history_step: Duration,
    /// The OLT's node, a label of its exported history.
    pub(super) node: Option<crate::domain::NodeId>,
    /// Where history points go instead of the store, when kept outside.
    pub(super) export: Option<HistoryExport>,
    pub(super) coverage_tolerance: Duration,
    /// A copy of the actor's traffic book, when the poll reads the `traffic` group.
    pub(super) traffic: Option<TrafficBook>,
    /// The last write of the table failed (the disk was full): it is written again even
    /// if this poll changes nothing.
    pub(super) unsaved: bool,
}

/// A good poll, merged and stored.
pub(super) struct MergedPoll {
    pub(super) table: OnuTable,
    pub(super) ports: Vec<PonPortStats>,
    pub(super) system: SystemInfo,
    pub(super) vlans: Vec<(u16, String)>,
    pub(super) warnings: Vec<String>,
    /// The vendor whose profile read the device.
    pub(super) vendor: Vendor,
    /// The layout that read the device ([`crate::profile::Profile::family`]).
    pub(super) family: &'static str,
    /// Row index → ONU, as this poll read the table.
    pub(super) rows: RowMap,
    /// IF-MIB, when this poll read it.
    pub(super) interfaces: Option<Interfaces>,
    /// ONUs whose optics this poll read.
    pub(super) optics_read: Vec<OnuId>,
    /// ONUs this poll saw come back online.
    pub(super) came_online: Vec<OnuId>,
    /// The traffic book with this poll's `traffic` read recorded, when it had one.
    pub(super) traffic: Option<TrafficBook>,
    /// The table could not be written: the next poll writes it again.
    pub(super) unsaved: bool,
    /// MACs the poll's forwarding-table read saw behind another ONU than before.
    pub(super) mac_moves: Vec<MacMove>,
}

/// A change a CLI action made to the table while a poll was in flight.
pub(super) enum TableEdit {
    /// Service VLANs from a new running configuration (the actor's `vlan_map`).
    Vlans,
    Vlan(OnuId, u16),
    Description(OnuId, String),
    /// The ONU was removed from the device (deauthorised).
    Removed(OnuId),
}

impl PollBase {
    /// Records the poll's coverage and, for a good poll, merges and stores it. Blocking:
    /// runs on tokio's blocking pool.
    pub(super) fn finish(
        mut self,
        result: Result<PollOutcome, DeviceError>,
        at: DateTime<Utc>,
    ) -> Result<MergedPoll, DeviceError> {
        let covered =
            self.store
                .extend_coverage(self.olt, at, result.is_ok(), self.coverage_tolerance);
        if let Err(e) = covered {
            crate::store::log_write_error("cannot record poll coverage", Some(self.olt), &e);
        }
        let mut outcome = result?;
        let (store, olt) = (&self.store, self.olt);
        let row_serials: Vec<(u128, CompactString)> = outcome
            .rows
            .iter()
            .zip(&outcome.onus)
            .map(|(row, onu)| (*row, onu.serial.clone()))
            .collect();
        let onus = std::mem::take(&mut outcome.onus);
        let report = self.table.merge(
            olt,
            onus,
            at,
            &self.thresholds,
            self.history_step,
            |serial| match store.onu_id(olt, serial) {
                Ok(id) => Some(id),
                Err(e) => {
                    crate::store::log_write_error("cannot allocate an ONU id", Some(olt), &e);
                    None
                }
            },
        );
        let mut table_changed = report.table_changed;
        if !self.vlan_map.is_empty() {
            // ONUs that moved or appeared take their VLAN from the latest configuration.
            table_changed |= self.table.set_vlans(&self.vlan_map);
        }
        let learnt = Learnt::of(&self.table, &row_serials, &report, at);
        let onus = self.table.all();
        // A table that changed only in the poll time is not rewritten (the OLT record's
        // `last_success_at` carries that time).
        let saved = if table_changed || self.unsaved {
            store.save_onus(olt, &onus, self.table.polled_at())
        } else {
            Ok(())
        };
        let unsaved = saved.is_err();
        let persisted = saved
            .and_then(|()| store.record_state_changes(&report.state_changes))
            .and_then(|()| self.record_optics(&report.optics));
        if let Err(e) = persisted {
            crate::store::log_write_error("cannot persist the poll", Some(olt), &e);
        }
        let traffic = self.record_traffic(&mut outcome, &learnt, at);
        let mac_moves = self.record_macs(&mut outcome, at);
        Ok(MergedPoll {
            mac_moves,
            traffic,
            ports: port_stats(&outcome.ports, &onus),
            system: SystemInfo {
                sys_name: outcome.sys_name,
                sys_descr: outcome.sys_descr,
                uptime_seconds: outcome.uptime_seconds,
                firmware: outcome.firmware,
            },
            vlans: outcome.vlans,
            warnings: outcome.warnings,
            vendor: outcome.vendor,
            family: outcome.family,
            table: self.table,
            rows: learnt.rows,
            interfaces: outcome.interfaces,
            optics_read: learnt.optics_read,
            came_online: learnt.came_online,
            unsaved,
        })
    }

    /// Records the poll's read of the forwarding table (BDCOM), if it made one, for every
    /// ONU of the merged table; the MACs that moved to another ONU.
    fn record_macs(&self, outcome: &mut PollOutcome, at: DateTime<Utc>) -> Vec<MacMove> {
        let Some(sightings) = outcome.macs.take() else {
            return Vec::new();
        };
        let onus = self.table.all();
        let onus: Vec<&Onu> = onus.iter().collect();
        let read = MacRead::place(self.olt, &onus, &sightings, at);
        self.store.record_macs(&read).unwrap_or_else(|e| {
            crate::store::log_write_error("cannot record the MACs", Some(self.olt), &e);
            Vec::new()
        })
    }

    /// The traffic book the poll took along with the poll's `traffic` read (made at `at`)
    /// recorded, when it had one; the read's rates are stored as history points (a failed
    /// write is logged: the book is right all the same).
    fn record_traffic(
        &mut self,
        outcome: &mut PollOutcome,
        learnt: &Learnt,
        at: DateTime<Utc>,
    ) -> Option<TrafficBook> {
        let read = traffic_by_onu(outcome.traffic.take()?, &learnt.rows);
        let mut book = self.traffic.take()?;
        book.record(read, at, outcome.uptime_seconds, &learnt.came_online);
        let points = book.points();
        if let Some(export) = &self.export {
            export.send(self.labelled(&points, ExportedPoint::Traffic));
        } else if let Err(e) = self.store.record_traffic(self.olt, &points) {
            crate::store::log_write_error("cannot record traffic history", Some(self.olt), &e);
        }
        Some(book)
    }

    /// Stores the poll's optics points, or hands them to the export when history is kept
    /// outside.
    fn record_optics(&self, points: &[(OnuId, OpticsPoint)]) -> Result<(), StoreError> {
        match &self.export {
            Some(export) => {
                export.send(self.labelled(points, ExportedPoint::Optics));
                Ok(())
            }
            None => self.store.record_optics(self.olt, points),
        }
    }

    /// `points` with their ONUs' labels from the merged table (an ONU it no longer holds
    /// keeps only its ids).
    fn labelled<P: Copy>(
        &self,
        points: &[(OnuId, P)],
        kind: fn(P) -> ExportedPoint,
    ) -> Vec<(SeriesLabels, ExportedPoint)> {
        points
            .iter()
            .map(|(id, point)| {
                let labels = match self.table.get_ref(*id) {
                    Some(onu) => SeriesLabels::of(onu, self.node),
                    None => SeriesLabels {
                        olt: self.olt,
                        onu: *id,
                        serial: CompactString::default(),
                        pon: String::new(),
                        node: self.node,
                    },
                };
                (labels, kind(*point))
            })
            .collect()
    }
}

/// The `traffic` group's counters put down to the ONUs their rows stand for.
fn traffic_by_onu(read: RowTraffic, rows: &RowMap) -> TrafficRead {
    TrafficRead {
        counters: read
            .rows
            .into_iter()
            .filter_map(|(row, counters)| Some((rows.onu(row)?, counters)))
            .collect(),
        bits: read.bits,
    }
}

/// What the schedule learns of a merged poll (see [`MergedPoll`]).
struct Learnt {
    rows: RowMap,
    optics_read: Vec<OnuId>,
    came_online: Vec<OnuId>,
}

impl Learnt {
    /// From the merged `table`, the poll's (row, serial) pairs and its merge `report` at
    /// `at`.
    fn of(
        table: &OnuTable,
        row_serials: &[(u128, CompactString)],
        report: &crate::onu_table::MergeReport,
        at: DateTime<Utc>,
    ) -> Learnt {
        let mut guess = 0;
        let rows = RowMap::new(
            row_serials
                .iter()
                .filter_map(|(row, serial)| Some((*row, table.id_near(serial, &mut guess)?))),
        );
        let came_online = report
            .state_changes
            .iter()
            .filter(|(_, change)| change.status == OnuStatus::Online)
            .map(|(id, _)| *id)
            .collect();
        let optics_read = table
            .all()
            .iter()
            .filter(|onu| onu.optics_at == Some(at))
            .map(|onu| onu.id)
            .collect();
        Learnt {
            rows,
            optics_read,
            came_online,
        }
    }
}

/// Makes again, on a merged table, the changes CLI actions made while its poll ran.
pub(super) fn replay(
    edits: Vec<TableEdit>,
    table: &mut OnuTable,
    vlan_map: &HashMap<(String, u32), u16>,
) {
    for edit in edits {
        match edit {
            TableEdit::Vlans => {
                table.set_vlans(vlan_map);
            }
            TableEdit::Vlan(onu, vlan) => {
                table.update(onu, |o| o.vlan = Some(vlan));
            }
            TableEdit::Description(onu, description) => {
                table.update(onu, |o| o.description = description.into());
            }
            TableEdit::Removed(onu) => {
                table.remove(onu);
            }
        }
    }
}

/// Each polled port, in the poll's order, with its ONUs counted (an ONU on a port the
/// poll did not list counts nowhere).
fn port_stats(ports: &[String], onus: &[Onu]) -> Vec<PonPortStats> {
    let mut stats: Vec<PonPortStats> = ports
        .iter()
        .map(|name| PonPortStats {
            name: name.clone(),
            onu_total: 0,
            onu_online: 0,
        })
        .collect();
    let position: HashMap<&str, usize> = ports
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_str(), i))
        .collect();
    for onu in onus {
        if let Some(&i) = position.get(onu.pon_port.as_str()) {
            stats[i].onu_total += 1;
            if onu.status == OnuStatus::Online {
                stats[i].onu_online += 1;
            }
        }
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Reading;
    use crate::poller::PolledOnu;

    fn polled(serial: &str, description: &str) -> PolledOnu {
        PolledOnu {
            pon_port: "0/1/0".into(),
            onu_index: serial.len() as u32,
            serial: serial.into(),
            description: description.into(),
            status: OnuStatus::Online,
            last_down_cause: None,
            distance: Some(1200),
            rx_power: Some(-21.0).into(),
            tx_power: Some(2.0).into(),
            olt_rx_power: Reading::NONE,
            temperature: Reading::NONE,
            voltage: Reading::NONE,
            bias_current: Reading::NONE,
            optics_read: true,
        }
    }

    /// A poll that read the device before a CLI action changed it must not undo the
    /// action: the merged table gets the action's edits again.
    #[test]
    fn edits_made_during_a_poll_survive_its_merge() {
        let thresholds = OpticsThresholds {
            warning_dbm: -25.0,
            critical_dbm: -27.0,
        };
        let step = Duration::from_secs(900);
        let mut next_id = 0;
        let mut allocate = |_: &str| {
            next_id += 1;
            Some(next_id)
        };
        let mut actor_table = OnuTable::default();
        let first = vec![polled("HWTC0001", "old"), polled("HWTC00002", "b")];
        actor_table.merge(
            1,
            first.clone(),
            Utc::now(),
            &thresholds,
            step,
            &mut allocate,
        );
        // The poll takes its copy; the device still answers the old description.
        let mut merged = actor_table.clone();
        merged.merge(1, first, Utc::now(), &thresholds, step, &mut allocate);
        let vlan_map = HashMap::from([(("0/1/0".to_string(), 9), 300)]);
        replay(
            vec![
                TableEdit::Description(1, "school 7".into()),
                TableEdit::Vlan(1, 200),
                TableEdit::Vlans,
            ],
            &mut merged,
            &vlan_map,
        );
        let one = merged.get(1).expect("ONU 1");
        assert_eq!(one.description, "school 7");
        // The backup's VLANs came last: ONU 1 is not in them, ONU 2 (index 9) is.
        assert_eq!(one.vlan, None);
        assert_eq!(merged.get(2).expect("ONU 2").vlan, Some(300));
    }
}
