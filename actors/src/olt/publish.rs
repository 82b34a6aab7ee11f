//! What the OLT actor tells the fleet view (OLT actors publish, one fleet view,
//! [`crate::fleet_view`], aggregates). The [`Publisher`] part of the actor's state keeps
//! what it last published; [`Publisher::publish`] compares the state with it and sends
//! only what changed — the summary (always: it carries the poll time), the ports and
//! VLANs when they changed, and the ONU rows that changed ([`diff_onus`]). The first
//! publish of an actor is a snapshot of everything, which replaces whatever an earlier
//! incarnation of the actor left in the view.
//!
//! The state changes in three places — the end of a poll, the end of a CLI action, a
//! session move — and each calls `publish` before it answers whoever caused the change,
//! so a read of the view after an acknowledged action sees its result.

use super::actor::OltState;
use super::view::OltSummary;
use crate::domain::{OltId, Onu, PonPortStats};
use crate::fleet_view::{diff_onus, FleetChange, FleetViewHandle, OltUpdate};
use crate::provision::Sighting;
use chrono::{DateTime, Utc};
use std::sync::Arc;

/// The fleet view and what this actor last told it.
pub(crate) struct Publisher {
    view: FleetViewHandle,
    /// Which spawn of this OLT's actor this is (from the supervisor).
    incarnation: u64,
    /// `None` until the first (snapshot) publish.
    published: Option<Published>,
}

/// The state to publish now, borrowed from the actor's.
struct Current<'a> {
    summary: OltSummary,
    ports: &'a [PonPortStats],
    vlans: &'a [(u16, String)],
    onus: Arc<Vec<Onu>>,
    polled_at: Option<DateTime<Utc>>,
}

/// The state as last published.
struct Published {
    summary: OltSummary,
    ports: Vec<PonPortStats>,
    vlans: Vec<(u16, String)>,
    onus: Arc<Vec<Onu>>,
    polled_at: Option<DateTime<Utc>>,
}

impl Publisher {
    pub(crate) fn new(view: FleetViewHandle, incarnation: u64) -> Publisher {
        Publisher {
            view,
            incarnation,
            published: None,
        }
    }

    /// Tells the fleet view that a backup of OLT `olt` stored a new running-config
    /// version.
    fn config_stored(&self, olt: OltId, backup_id: u64, taken_at: DateTime<Utc>) {
        self.view.publish(FleetChange::ConfigStored {
            olt,
            incarnation: self.incarnation,
            backup_id,
            taken_at,
        });
    }

    /// Tells the fleet view of MACs that moved to another ONU of OLT `olt`.
    pub(super) fn macs_moved(&self, olt: OltId, moves: Vec<crate::macs::MacMove>) {
        if !moves.is_empty() {
            self.view.publish(FleetChange::MacsMoved {
                olt,
                incarnation: self.incarnation,
                moves,
            });
        }
    }

    /// Tells the fleet view of PON ports of OLT `olt` that became saturated or stopped.
    pub(super) fn port_saturation(
        &self,
        olt: OltId,
        changes: Vec<crate::traffic::saturation::SaturationChange>,
    ) {
        if !changes.is_empty() {
            self.view.publish(FleetChange::PortSaturation {
                olt,
                incarnation: self.incarnation,
                changes,
            });
        }
    }

    /// Tells the fleet view of unconfigured ONUs of OLT `olt` not shown before.
    fn discovered(&self, olt: OltId, onus: Vec<crate::provision::UnconfiguredOnu>) {
        self.view.publish(FleetChange::Discovered {
            olt,
            incarnation: self.incarnation,
            onus,
        });
    }

    /// Tells the fleet view what changed since the last publish; the first time, all of
    /// it. Cheap when nothing changed: the ONU table is compared by pointer first.
    fn publish(&mut self, now: Current<'_>) {
        let update = match &self.published {
            None => OltUpdate {
                olt: now.summary.id,
                incarnation: self.incarnation,
                snapshot: true,
                summary: now.summary.clone(),
                ports: Some(now.ports.to_vec()),
                vlans: Some(now.vlans.to_vec()),
                polled_at: now.polled_at,
                table: now.onus.clone(),
                onus: diff_onus(&[], None, &now.onus, now.polled_at),
            },
            Some(last) => {
                let same_table =
                    Arc::ptr_eq(&last.onus, &now.onus) && last.polled_at == now.polled_at;
                let changes = if same_table {
                    Vec::new()
                } else {
                    diff_onus(&last.onus, last.polled_at, &now.onus, now.polled_at)
                };
                if changes.is_empty()
                    && last.summary == now.summary
                    && last.ports == now.ports
                    && last.vlans == now.vlans
                {
                    return;
                }
                OltUpdate {
                    olt: now.summary.id,
                    incarnation: self.incarnation,
                    snapshot: false,
                    summary: now.summary.clone(),
                    ports: (last.ports != now.ports).then(|| now.ports.to_vec()),
                    vlans: (last.vlans != now.vlans).then(|| now.vlans.to_vec()),
                    polled_at: now.polled_at,
                    table: now.onus.clone(),
                    onus: changes,
                }
            }
        };
        self.view.publish(FleetChange::Olt(Box::new(update)));
        self.published = Some(Published {
            summary: now.summary,
            ports: now.ports.to_vec(),
            vlans: now.vlans.to_vec(),
            onus: now.onus,
            polled_at: now.polled_at,
        });
    }
}

impl OltState {
    /// Tells the fleet view that a backup stored a new running-config version.
    pub(super) fn publish_config(&self, backup_id: u64, taken_at: DateTime<Utc>) {
        self.publisher
            .config_stored(self.spec.id, backup_id, taken_at);
    }

    /// `OltMsg::Discovered`: takes a poll's unconfigured ONUs, and tells the fleet view
    /// (so the event log) of those not shown before — except at the actor's first
    /// discovery, which would report every ONU already waiting at each start.
    pub(super) fn discovered(&mut self, sightings: Vec<Sighting>, at: DateTime<Utc>) {
        let first = !self.unconfigured.has_merged();
        let new = self.unconfigured.merge(self.spec.id, sightings, at);
        if !first && !new.is_empty() {
            self.publisher.discovered(self.spec.id, new);
        }
    }

    /// Tells the fleet view what changed since the last publish ([`Publisher::publish`]).
    /// Returns the summary it compared, for callers that answer with it.
    pub(super) fn publish(&mut self) -> OltSummary {
        let summary = self.summary();
        self.publisher.publish(Current {
            summary: summary.clone(),
            ports: &self.record.ports,
            vlans: &self.record.vlans,
            onus: self.onus.all(),
            polled_at: self.onus.polled_at(),
        });
        summary
    }
}
