//! What an OLT actor publishes to the fleet view, and what the fleet view and the event
//! log read from it. It sits below both (it knows neither actor): the OLT actor
//! ([`crate::olt`]) builds these values, the fleet view ([`crate::fleet_view`]) folds
//! them into its rows, and the event log's derivation ([`crate::events::derive`])
//! compares them with those rows.
//!
//! An [`OltUpdate`] goes out whenever something an OLT actor owns changed (its
//! [`OltSummary`] and counters, ports, VLANs, ONU rows), a snapshot of everything when it
//! starts, and [`FleetChange::Removed`] from the supervisor when the OLT leaves the
//! inventory. [`diff_onus`] turns two versions of an ONU table into the row changes to
//! publish, so a steady poll publishes only the summary.
//!
//! Every update carries the *incarnation* of the actor that sent it (a number the
//! supervisor gives each spawn): after a crash the new actor's snapshot replaces the old
//! one's rows, and a late message from a stopped actor is ignored, so rows are never
//! duplicated or resurrected.
//!
//! The changes are designed to be enough to derive events from: an ONU row's upsert,
//! compared with the row the view held, says which ONU went down or up and why.

use crate::domain::{NodeId, OltId, Onu, OnuId, PonPortStats, SessionStatus, Vendor};
use chrono::{DateTime, Utc};
use std::net::IpAddr;
use std::sync::Arc;

/// Everything an OLT list item shows (`GET /olts`, docs/api.md), plus what node counters
/// need.
#[derive(Debug, Clone, PartialEq)]
pub struct OltSummary {
    pub id: OltId,
    pub ip: IpAddr,
    /// `None` while an OLT with `vendor = "auto"` has not been detected yet.
    pub vendor: Option<Vendor>,
    /// The table layout a good poll read the OLT with, by its short name
    /// ([`crate::profile::Profile::layout`], `GP3600`); `None` before any good poll
    /// (the record keeps it across restarts).
    pub family: Option<&'static str>,
    pub model: String,
    pub city: String,
    pub node: Option<NodeId>,
    pub status: SessionStatus,
    /// When the OLT entered its current status.
    pub status_since: DateTime<Utc>,
    pub total_ports: u32,
    pub total_onu: u32,
    pub onu_online: u32,
    pub last_update: DateTime<Utc>,
}

impl OltSummary {
    /// The vendor as the API names it: `auto` while `vendor = "auto"` is undetected.
    pub fn vendor_name(&self) -> &'static str {
        self.vendor.map_or("auto", Vendor::as_str)
    }
}

/// One change of one ONU row: which row, read from the update's [`OltUpdate::table`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnuChange {
    /// The ONU appeared or changed.
    Upsert(OnuId),
    /// The ONU left the OLT's table.
    Remove(OnuId),
}

/// What one OLT actor publishes at once.
#[derive(Debug, Clone, PartialEq)]
pub struct OltUpdate {
    pub olt: OltId,
    /// Which spawn of the OLT's actor sent it (see the module docs).
    pub incarnation: u64,
    /// Replaces everything the view holds of this OLT (actor start and restart); `ports`
    /// and `vlans` of `None` are then empty.
    pub snapshot: bool,
    /// The OLT's list item and counters, as they are now.
    pub summary: OltSummary,
    /// The ports with their ONU counters, when they changed.
    pub ports: Option<Vec<PonPortStats>>,
    /// The OLT's VLANs (id, name), when they changed.
    pub vlans: Option<Vec<(u16, String)>>,
    /// Time of the last merged poll: the `last_update` of every fresh ONU.
    pub polled_at: Option<DateTime<Utc>>,
    /// The OLT's whole ONU table as the actor holds it now, sorted by id. Shared, not
    /// copied: the fleet view keeps this one instead of rows of its own, so every row
    /// is held once (the actor's next merge makes a new table and leaves this one to
    /// the view).
    pub table: Arc<Vec<Onu>>,
    /// The rows of `table` that changed since the last update, and those that left it,
    /// in any order.
    pub onus: Vec<OnuChange>,
}

impl OltUpdate {
    /// ONU `id`'s row in the update's table.
    pub fn row(&self, id: OnuId) -> Option<&Onu> {
        row_of(&self.table, id).map(|(_, row)| row)
    }
}

/// ONU `id`'s position and row in `table` (sorted by id).
pub fn row_of(table: &[Onu], id: OnuId) -> Option<(usize, &Onu)> {
    let position = table.binary_search_by_key(&id, |o| o.id).ok()?;
    Some((position, &table[position]))
}

/// A message to the fleet view.
#[derive(Debug, Clone, PartialEq)]
pub enum FleetChange {
    Olt(Box<OltUpdate>),
    /// The OLT left the inventory (or its actor was given up): its rows leave the view.
    Removed {
        olt: OltId,
        incarnation: u64,
    },
    /// A backup stored a new running-config version of the OLT (the event log's
    /// `CONFIG_CHANGED`); the view itself holds nothing of it.
    ConfigStored {
        olt: OltId,
        incarnation: u64,
        backup_id: u64,
        taken_at: DateTime<Utc>,
    },
    /// A poll's discovery saw ONUs not shown unconfigured before (the event log's
    /// `ONU_DISCOVERED`); the view itself holds nothing of them.
    Discovered {
        olt: OltId,
        incarnation: u64,
        onus: Vec<crate::provision::UnconfiguredOnu>,
    },
    /// A read of the MACs behind the ONUs saw MACs behind another ONU than before (the
    /// event log's `MAC_MOVED`); the view itself holds nothing of them.
    MacsMoved {
        olt: OltId,
        incarnation: u64,
        moves: Vec<crate::macs::MacMove>,
    },
    /// A `traffic` read found PON ports that became saturated or stopped being so (the
    /// event log's `PON_PORT_SATURATED` and its clear); the view holds nothing of them.
    PortSaturation {
        olt: OltId,
        incarnation: u64,
        changes: Vec<crate::traffic::saturation::SaturationChange>,
    },
}

/// Whether `onu` was in the poll merged at `polled_at`.
pub fn is_fresh(onu: &Onu, polled_at: Option<DateTime<Utc>>) -> bool {
    polled_at == Some(onu.last_update)
}

/// The row changes that turn table `old` (merged at `old_polled`) into `new` (merged at
/// `new_polled`). Both tables are sorted by id. A fresh row whose only change is the
/// poll time is not a change.
pub fn diff_onus(
    old: &[Onu],
    old_polled: Option<DateTime<Utc>>,
    new: &[Onu],
    new_polled: Option<DateTime<Utc>>,
) -> Vec<OnuChange> {
    let mut changes = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        match (old.get(i), new.get(j)) {
            (Some(a), Some(b)) if a.id == b.id => {
                let (was_fresh, fresh) = (is_fresh(a, old_polled), is_fresh(b, new_polled));
                let same = was_fresh == fresh
                    && same_but_time(a, b)
                    && (fresh || a.last_update == b.last_update);
                if !same {
                    changes.push(OnuChange::Upsert(b.id));
                }
                i += 1;
                j += 1;
            }
            (Some(a), Some(b)) if a.id < b.id => {
                changes.push(OnuChange::Remove(a.id));
                i += 1;
            }
            (Some(a), None) => {
                changes.push(OnuChange::Remove(a.id));
                i += 1;
            }
            (_, Some(b)) => {
                changes.push(OnuChange::Upsert(b.id));
                j += 1;
            }
            (None, None) => break,
        }
    }
    changes
}

/// Every field of the row but `last_update` is equal. Destructured, so a field added to
/// [`Onu`] cannot be forgotten here.
fn same_but_time(a: &Onu, b: &Onu) -> bool {
    let Onu {
        id,
        olt_id,
        pon_port,
        onu_index,
        serial,
        description,
        status,
        last_down_cause,
        distance,
        rx_power,
        tx_power,
        olt_rx_power,
        temperature,
        voltage,
        bias_current,
        vlan,
        last_update: _,
        optics_at,
    } = a;
    *id == b.id
        && *olt_id == b.olt_id
        && *pon_port == b.pon_port
        && *onu_index == b.onu_index
        && *serial == b.serial
        && *description == b.description
        && *status == b.status
        && *last_down_cause == b.last_down_cause
        && *distance == b.distance
        && *rx_power == b.rx_power
        && *tx_power == b.tx_power
        && *olt_rx_power == b.olt_rx_power
        && *temperature == b.temperature
        && *voltage == b.voltage
        && *bias_current == b.bias_current
        && *vlan == b.vlan
        && *optics_at == b.optics_at
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::OnuStatus;
    use crate::domain::Reading;
    use chrono::TimeZone;

    fn at(second: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 23, 10, 0, 0)
            .single()
            .expect("a valid time")
            + chrono::Duration::seconds(i64::from(second))
    }

    fn onu(id: OnuId, polled: DateTime<Utc>) -> Onu {
        Onu {
            id,
            olt_id: 1,
            pon_port: "0/1/0".into(),
            onu_index: id as u32,
            serial: format!("HWTC{id:08X}").into(),
            description: format!("subscriber {id}").into(),
            status: OnuStatus::Online,
            last_down_cause: None,
            distance: Some(1200),
            rx_power: Some(-21.5).into(),
            tx_power: Some(2.1).into(),
            olt_rx_power: Some(-24.0).into(),
            temperature: Reading::NONE,
            voltage: Reading::NONE,
            bias_current: Reading::NONE,
            vlan: Some(100),
            last_update: polled,
            optics_at: None,
        }
    }

    #[test]
    fn a_steady_poll_changes_nothing() {
        let old: Vec<Onu> = (1..=3).map(|id| onu(id, at(0))).collect();
        let new: Vec<Onu> = (1..=3).map(|id| onu(id, at(30))).collect();
        assert_eq!(diff_onus(&old, Some(at(0)), &new, Some(at(30))), vec![]);
    }

    #[test]
    fn appeared_changed_vanished_and_stale_rows_are_published() {
        let old: Vec<Onu> = (1..=4).map(|id| onu(id, at(0))).collect();
        let mut new: Vec<Onu> = vec![
            onu(2, at(30)),
            onu(3, at(0)),
            onu(4, at(30)),
            onu(5, at(30)),
        ];
        new[2].rx_power = Some(-26.0).into();
        let changes = diff_onus(&old, Some(at(0)), &new, Some(at(30)));
        assert_eq!(
            changes,
            vec![
                OnuChange::Remove(1),
                // Not in the new poll: no longer fresh, its own last_update counts.
                OnuChange::Upsert(3),
                OnuChange::Upsert(4),
                OnuChange::Upsert(5),
            ]
        );
    }

    #[test]
    fn a_stale_row_stays_quiet_until_it_changes() {
        let old = vec![onu(1, at(0))];
        let new = vec![onu(1, at(0))];
        assert_eq!(diff_onus(&old, Some(at(30)), &new, Some(at(60))), vec![]);
    }
}
