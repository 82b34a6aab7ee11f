//! The fault board: every OLT's faults ([`super::fault`]), by id, as [`super::SimFleet`]
//! and the control socket ([`super::control`]) change and show them. An OLT's own faults
//! are its [`FaultSet`], in the watch channel its agent reads before each answer; its ONU
//! groups become cuts in its model (`model/cut.rs`), checked against its ports and ONU
//! numbers here before anything changes, so a SPEC applies to every OLT it names or to
//! none. The fault module stays a leaf that knows no OLT; this one joins it to the OLTs.

use crate::agent::OltShared;
use crate::fault::{
    FaultSet, FaultSpec, FaultSpecError, GroupCause, OltFaults, OnuGroup, RuleFault, Targets,
};
use crate::model::{OnuCut, SimOlt, MAX_CUTS};
use crate::vendor::SimVendor;
use ponkeeper_actors::domain::OltId;
use std::sync::Arc;

/// One OLT on the board.
pub(crate) struct BoardOlt {
    pub id: OltId,
    pub shared: Arc<OltShared>,
    /// Which ports it has and how it numbers ONUs, for its groups.
    pub vendor: &'static SimVendor,
}

/// Every OLT's faults, by id.
pub(crate) struct FaultBoard {
    /// Ascending by id.
    olts: Vec<BoardOlt>,
}

impl FaultBoard {
    pub fn new(mut olts: Vec<BoardOlt>) -> FaultBoard {
        olts.sort_by_key(|olt| olt.id);
        FaultBoard { olts }
    }

    fn ids(&self) -> Vec<OltId> {
        self.olts.iter().map(|olt| olt.id).collect()
    }

    fn olt(&self, id: OltId) -> Option<&BoardOlt> {
        self.olts
            .binary_search_by_key(&id, |olt| olt.id)
            .ok()
            .map(|i| &self.olts[i])
    }

    /// The faults of OLT `id` itself (`None`: no such OLT).
    pub fn get(&self, id: OltId) -> Option<FaultSet> {
        self.olt(id).map(|olt| *olt.shared.faults.borrow())
    }

    /// Replaces the faults of OLT `id` itself (its ONU groups stay); `false` if there is
    /// no such OLT.
    pub fn set(&self, id: OltId, faults: FaultSet) -> bool {
        self.update(id, |set| *set = faults)
    }

    /// Changes the faults of OLT `id` itself in place; `false` if there is no such OLT.
    pub fn update(&self, id: OltId, change: impl FnOnce(&mut FaultSet)) -> bool {
        match self.olt(id) {
            Some(olt) => {
                olt.shared.faults.send_modify(change);
                true
            }
            None => false,
        }
    }

    /// Adds the SPEC's faults to the OLTs it names (replacing faults of the same kinds
    /// and groups of the same ONUs); all or nothing. Returns how many OLTs it touched.
    pub fn apply(&self, spec: &FaultSpec) -> Result<usize, FaultSpecError> {
        let olts = spec.resolve(&self.ids())?;
        let cuts = self.plan_cuts(spec)?;
        for (id, faults) in &olts {
            self.update(*id, |set| set.merge(&faults.set));
        }
        for (id, cut) in cuts {
            if let Some(olt) = self.olt(id) {
                // Checked against the bound above; only a concurrent `set` could refuse.
                if !crate::lock(&olt.shared).add_cut(cut) {
                    tracing::warn!(olt = id, "ONU group refused: the OLT holds {MAX_CUTS}");
                }
            }
        }
        Ok(olts.len())
    }

    /// The cuts the SPEC's ONU groups make, by OLT, in order; or the first group an OLT
    /// cannot take (no such port, no such ONUs, more than [`MAX_CUTS`] at once), named
    /// with the rule and the OLT.
    fn plan_cuts(&self, spec: &FaultSpec) -> Result<Vec<(OltId, OnuCut)>, FaultSpecError> {
        let ids = self.ids();
        let mut planned: Vec<(OltId, OnuCut)> = Vec::new();
        // Each OLT's cuts as they will be: what it holds now, then the planned ones.
        let mut held: Vec<(OltId, Vec<OnuCut>)> = Vec::new();
        for rule in &spec.rules {
            let RuleFault::Onus(group) = &rule.fault else {
                continue;
            };
            let bad = |reason: String| FaultSpecError {
                rule: rule.to_string(),
                reason,
            };
            for id in rule.targets.select(&ids).map_err(bad)? {
                let Some(olt) = self.olt(id) else { continue };
                let state = crate::lock(&olt.shared);
                let cut = cut_in(group, &state, olt.vendor)
                    .map_err(|reason| bad(format!("OLT {id}: {reason}")))?;
                let at = match held.iter().position(|(olt, _)| *olt == id) {
                    Some(at) => at,
                    None => {
                        held.push((id, state.cuts.clone()));
                        held.len() - 1
                    }
                };
                let cuts = &mut held[at].1;
                cuts.retain(|other| !other.same_onus(&cut));
                cuts.push(cut);
                if cuts.len() > MAX_CUTS {
                    return Err(bad(format!(
                        "OLT {id}: more than {MAX_CUTS} ONU groups at once (clear it first)"
                    )));
                }
                planned.push((id, cut));
            }
        }
        Ok(planned)
    }

    /// Heals the targeted OLTs (every OLT for `None`): no fault of their own, and every
    /// ONU their groups held down back online at once. Returns how many OLTs.
    pub fn clear(&self, targets: Option<&Targets>) -> Result<usize, String> {
        let ids = match targets {
            Some(targets) => targets.select(&self.ids())?,
            None => self.ids(),
        };
        for id in &ids {
            self.heal(*id);
        }
        Ok(ids.len())
    }

    /// Heals OLT `id` (see [`FaultBoard::clear`]); `false` if there is no such OLT.
    pub fn heal(&self, id: OltId) -> bool {
        let Some(olt) = self.olt(id) else {
            return false;
        };
        self.set(id, FaultSet::new());
        crate::lock(&olt.shared).heal_cuts();
        true
    }

    /// The current faults as a SPEC (empty when the fleet is healthy).
    pub fn describe(&self) -> FaultSpec {
        let olts: Vec<(OltId, OltFaults)> = self
            .olts
            .iter()
            .map(|olt| (olt.id, self.faults_of(olt)))
            .collect();
        FaultSpec::describe(&olts)
    }

    fn faults_of(&self, olt: &BoardOlt) -> OltFaults {
        // The set first: no borrow of the watch channel is held under the state's lock.
        let set = *olt.shared.faults.borrow();
        let state = crate::lock(&olt.shared);
        OltFaults {
            set,
            groups: state
                .cuts
                .iter()
                .filter_map(|cut| group_of(&state, cut))
                .collect(),
        }
    }
}

/// `group` on `olt`, or what is wrong there (no such port, numbers a port cannot have, no
/// ONU among them).
fn cut_in(group: &OnuGroup, olt: &SimOlt, vendor: &SimVendor) -> Result<OnuCut, String> {
    olt.onu_cut(
        vendor,
        &group.port,
        (group.first, group.last),
        group.cause.down_cause(),
    )
}

/// The group `olt`'s `cut` was made from.
fn group_of(olt: &SimOlt, cut: &OnuCut) -> Option<OnuGroup> {
    Some(OnuGroup {
        cause: GroupCause::of_down_cause(cut.cause)?,
        port: olt.ports.get(cut.port)?.name.clone(),
        first: cut.first,
        last: cut.last,
    })
}

#[cfg(test)]
mod tests {
    use crate::{Dynamics, FleetSpec, FleetVendors, SimFleet};
    use ponkeeper_actors::domain::{DownCause, OnuStatus, Vendor};

    async fn fleet(vendors: FleetVendors, olts: usize, onus: usize) -> SimFleet {
        SimFleet::start(FleetSpec {
            dynamics: Dynamics::none(),
            vendors,
            ..FleetSpec::new(olts, onus)
        })
        .await
        .expect("fleet starts")
    }

    /// (status, cause) of the ONUs of OLT `id` on `port` numbered `first..=last`.
    fn onus(
        sim: &SimFleet,
        id: u32,
        port: &str,
        range: (u32, u32),
    ) -> Vec<(OnuStatus, Option<DownCause>)> {
        sim.expected_onus(id)
            .into_iter()
            .filter(|o| o.pon_port == port && (range.0..=range.1).contains(&o.onu_index))
            .map(|o| (o.status, o.last_down_cause))
            .collect()
    }

    #[tokio::test]
    async fn groups_take_onus_down_on_each_vendors_ports_and_clear_heals_them() {
        let sim = fleet(FleetVendors::Mixed, 3, 64).await;
        let spec = "los:0/1/0:0-3@1;dying-gasp:1/1/2:1-4@2;los:0/2:2-5@3;\
                    dying-gasp:0/1/1:0-127@1;dying-gasp:0/3:1-3@3";
        assert_eq!(sim.apply_faults(&spec.parse().expect("spec")), Ok(3));
        // Shown by OLT, each OLT's groups in the order added.
        assert_eq!(
            sim.fault_spec().to_string(),
            "los:0/1/0:0-3@1;dying-gasp:0/1/1:0-127@1;dying-gasp:1/1/2:1-4@2;los:0/2:2-5@3;\
             dying-gasp:0/3:1-3@3"
        );
        let los = (OnuStatus::Offline, Some(DownCause::Los));
        let gasp = (OnuStatus::Offline, Some(DownCause::DyingGasp));
        let groups = [
            (1, "0/1/0", (0, 3), los),
            (1, "0/1/1", (0, 127), gasp),
            (2, "1/1/2", (1, 4), gasp),
            (3, "0/2", (2, 5), los),
            // BDCOM's status has no dying gasp: offline, cause unknown.
            (
                3,
                "0/3",
                (1, 3),
                (OnuStatus::Offline, Some(DownCause::Unknown)),
            ),
        ];
        for (id, port, range, expected) in groups {
            let got = onus(&sim, id, port, range);
            assert!(!got.is_empty(), "{id} {port}");
            assert!(got.iter().all(|o| *o == expected), "{id} {port}: {got:?}");
        }
        assert_eq!(sim.board.clear(None), Ok(3));
        assert_eq!(sim.fault_spec().to_string(), "");
        for (id, port, range) in [
            (1, "0/1/0", (0, 3)),
            (1, "0/1/1", (0, 127)),
            (2, "1/1/2", (1, 4)),
        ] {
            let back = onus(&sim, id, port, range);
            assert!(
                back.iter().all(|(status, _)| *status == OnuStatus::Online),
                "{back:?}"
            );
        }
        sim.shutdown().await;
    }

    #[tokio::test]
    async fn a_group_an_olt_cannot_take_changes_nothing() {
        let sim = fleet(FleetVendors::One(Vendor::Huawei), 2, 64).await;
        let before = sim.expected_onus(1);
        let cases = [
            (
                "hang@1;los:0/1/0:0-3@1;los:1/1/1:1-3@2",
                "bad fault rule `los:1/1/1:1-3@2`: OLT 2: no PON port `1/1/1` \
                 (its ports: 8 from 0/1/0 to 0/1/7)",
            ),
            (
                "los:0/1/0:0-3@1-2;dying-gasp:0/1/0:128-130@1",
                "bad fault rule `dying-gasp:0/1/0:128-130@1`: OLT 1: ONU 128-130 is outside \
                 the numbers of a port (0-127)",
            ),
            (
                "los:0/1/0:100-127@all",
                "bad fault rule `los:0/1/0:100-127@all`: OLT 1: port 0/1/0 has no ONU \
                 numbered 100-127 (its ONUs: ",
            ),
            (
                "los:0/1/0:1@3",
                "bad fault rule `los:0/1/0:1@3`: OLT 3: the fleet has 2 OLTs",
            ),
        ];
        for (spec, error) in cases {
            let got = sim
                .apply_faults(&spec.parse().expect("parses"))
                .expect_err(spec);
            assert!(got.to_string().starts_with(error), "{spec}: {got}");
        }
        assert_eq!(sim.fault_spec().to_string(), "");
        assert_eq!(sim.expected_onus(1), before);
        let many: Vec<String> = (0..65)
            .map(|n| format!("los:0/1/{}:0-{}@1", n % 8, 127 - n))
            .collect();
        let got = sim
            .apply_faults(&many.join(";").parse().expect("parses"))
            .expect_err("too many");
        assert_eq!(
            got.to_string(),
            "bad fault rule `los:0/1/0:0-63@1`: OLT 1: more than 64 ONU groups at once \
             (clear it first)"
        );
        assert_eq!(sim.fault_spec().to_string(), "");
        sim.shutdown().await;
    }
}
