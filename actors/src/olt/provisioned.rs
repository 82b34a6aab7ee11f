//! What a finished provisioning job changes in the OLT actor's own state: an authorised
//! ONU's service VLAN goes into the VLAN map (so the next poll shows it before the next
//! backup), a removed ONU leaves the ONU table at once (and stays out of a poll already
//! in flight), with its VLAN.

use super::actor::OltState;
use super::merge::TableEdit;
use crate::provision::cli::ProvisionJob;

impl OltState {
    pub(super) fn provisioned(&mut self, job: &ProvisionJob) {
        match job {
            ProvisionJob::ListProfiles => {}
            ProvisionJob::Authorize(job) => {
                if let Some(vlan) = job.vlan {
                    self.vlan_map
                        .insert((job.pon_port.clone(), job.index), vlan);
                    self.poll.note_edit(TableEdit::Vlans);
                }
            }
            ProvisionJob::Deauthorize { pon_port, index } => {
                self.vlan_map.remove(&(pon_port.clone(), *index));
                let id = self
                    .onus
                    .all()
                    .iter()
                    .find(|o| o.pon_port == *pon_port && o.onu_index == *index)
                    .map(|o| o.id);
                if let Some(id) = id {
                    self.onus.remove(id);
                    self.poll.note_edit(TableEdit::Removed(id));
                    self.persist_onus();
                }
            }
        }
    }
}
