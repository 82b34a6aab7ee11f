//! What the OLT actor tells the fleet view (SPEC §1: OLT actors publish, a fleet view
//! aggregates). The actor keeps what it last published; [`OltState::publish`] compares
//! the state with it and sends only what changed — the summary (always: it carries the
//! poll time), the ports and VLANs when they changed, and the ONU rows that changed
//! ([`diff_onus`]). The first publish of an actor is a snapshot of everything, which
//! replaces whatever an earlier incarnation of the actor left in the view.
//!
//! The state changes in three places — the end of a poll, the end of a CLI action, a
//! session move — and each calls `publish` before it answers whoever caused the change,
//! so a read of the view after an acknowledged action sees its result.

use super::actor::OltState;
use super::view::OltSummary;
use crate::domain::{Onu, PonPortStats};
use crate::fleet_view::{diff_onus, FleetChange, FleetViewHandle, OltUpdate};
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
}

impl OltState {
    /// Tells the fleet view that a backup stored a new running-config version.
    pub(super) fn publish_config(&self, backup_id: u64, taken_at: DateTime<Utc>) {
        self.publisher.view.publish(FleetChange::ConfigStored {
            olt: self.spec.id,
            incarnation: self.publisher.incarnation,
            backup_id,
            taken_at,
        });
    }

    /// Tells the fleet view of unconfigured ONUs shown for the first time, if any.
    pub(super) fn publish_discovered(&self, onus: Vec<crate::provision::UnconfiguredOnu>) {
        if onus.is_empty() {
            return;
        }
        self.publisher.view.publish(FleetChange::Discovered {
            olt: self.spec.id,
            incarnation: self.publisher.incarnation,
            onus,
        });
    }

    /// Tells the fleet view what changed since the last publish; the first time, all of
    /// it. Cheap when nothing changed: the ONU table is compared by pointer first.
    /// Returns the summary it compared, for callers that answer with it.
    pub(super) fn publish(&mut self) -> OltSummary {
        let summary = self.summary();
        let onus = self.onus.all();
        let polled_at = self.onus.polled_at();
        let update = match &self.publisher.published {
            None => OltUpdate {
                olt: self.spec.id,
                incarnation: self.publisher.incarnation,
                snapshot: true,
                summary: summary.clone(),
                ports: Some(self.record.ports.clone()),
                vlans: Some(self.record.vlans.clone()),
                polled_at,
                onus: diff_onus(&[], None, &onus, polled_at),
            },
            Some(last) => {
                let same_table = Arc::ptr_eq(&last.onus, &onus) && last.polled_at == polled_at;
                let changes = if same_table {
                    Vec::new()
                } else {
                    diff_onus(&last.onus, last.polled_at, &onus, polled_at)
                };
                if changes.is_empty()
                    && last.summary == summary
                    && last.ports == self.record.ports
                    && last.vlans == self.record.vlans
                {
                    return summary;
                }
                OltUpdate {
                    olt: self.spec.id,
                    incarnation: self.publisher.incarnation,
                    snapshot: false,
                    summary: summary.clone(),
                    ports: (last.ports != self.record.ports).then(|| self.record.ports.clone()),
                    vlans: (last.vlans != self.record.vlans).then(|| self.record.vlans.clone()),
                    polled_at,
                    onus: changes,
                }
            }
        };
        self.publisher
            .view
            .publish(FleetChange::Olt(Box::new(update)));
        self.publisher.published = Some(Published {
            summary: summary.clone(),
            ports: self.record.ports.clone(),
            vlans: self.record.vlans.clone(),
            onus,
            polled_at,
        });
        summary
    }
}
