//! ONUs held down by something outside the OLT: a splitter's fibre cut (loss of signal)
//! or a building's power cut (dying gasp) takes a run of ONU numbers on one PON port
//! offline ([`OnuCut`]). An OLT keeps its cuts in its model beside the ONUs they hold, so
//! the MIB view, the traps and `expected_onus` see a cut ONU as they see any offline ONU;
//! [`SimOlt::step`] leaves held ONUs alone, and a CLI reboot neither reaches nor revives
//! them. The fault board (`fault/board.rs`) checks the SPEC's `los:` and `dying-gasp:`
//! groups with [`SimOlt::onu_cut`], adds them with [`SimOlt::add_cut`] and heals them
//! with [`SimOlt::heal_cuts`].

use super::{SimOlt, SimOnu};
use crate::vendor::SimVendor;
use ponkeeper_actors::domain::DownCause;

/// The most cuts one OLT holds at once.
pub(crate) const MAX_CUTS: usize = 64;

/// The ONUs numbered `first..=last` on one port, down for `cause` while the cut lasts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OnuCut {
    pub cause: DownCause,
    /// Index into [`SimOlt::ports`].
    pub port: usize,
    pub first: u32,
    pub last: u32,
}

impl OnuCut {
    /// Whether `onu` is one of the ONUs this cut takes down.
    pub fn holds(&self, onu: &SimOnu) -> bool {
        onu.port == self.port && (self.first..=self.last).contains(&onu.ont_id)
    }

    /// Whether both cuts name the same ONU numbers of the same port (whatever the cause).
    pub fn same_onus(&self, other: &OnuCut) -> bool {
        (self.port, self.first, self.last) == (other.port, other.first, other.last)
    }
}

/// Whether any of `cuts` holds `onu` down.
pub(crate) fn held(cuts: &[OnuCut], onu: &SimOnu) -> bool {
    cuts.iter().any(|cut| cut.holds(onu))
}

impl SimOlt {
    /// The cut of the ONUs numbered `first..=last` on the port named `port` (as the API
    /// names it), or what is wrong: no such port, numbers a port of this vendor cannot
    /// have, or no ONU at all among them. Numbers without an ONU inside the range are
    /// simply not there (the range is clipped to the ONUs the port has).
    pub fn onu_cut(
        &self,
        vendor: &SimVendor,
        port: &str,
        (first, last): (u32, u32),
        cause: DownCause,
    ) -> Result<OnuCut, String> {
        let Some(port_no) = self.ports.iter().position(|p| p.name == port) else {
            let names = match (self.ports.first(), self.ports.last()) {
                (Some(a), Some(b)) => format!("{} from {} to {}", self.ports.len(), a.name, b.name),
                _ => "none".to_string(),
            };
            return Err(format!("no PON port `{port}` (its ports: {names})"));
        };
        let lowest = vendor.first_onu_id;
        let highest = lowest + vendor.onu_ids_per_port.max(1) - 1;
        let range = numbers_text(first, last);
        if first < lowest || last > highest {
            return Err(format!(
                "ONU {range} is outside the numbers of a port ({lowest}-{highest})"
            ));
        }
        let on_port = self.onus.iter().filter(|onu| onu.port == port_no);
        let (min, max) = on_port.fold((u32::MAX, 0), |(min, max), onu| {
            (min.min(onu.ont_id), max.max(onu.ont_id))
        });
        let cut = OnuCut {
            cause,
            port: port_no,
            first,
            last,
        };
        if !self.onus.iter().any(|onu| cut.holds(onu)) {
            let has = if min > max {
                "none".to_string()
            } else {
                numbers_text(min, max)
            };
            return Err(format!(
                "port {port} has no ONU numbered {range} (its ONUs: {has})"
            ));
        }
        Ok(cut)
    }

    /// Adds `cut`, replacing a cut of the same ONUs (so its cause can change), and takes
    /// its ONUs down; `false`, changing nothing, when the OLT already holds
    /// [`MAX_CUTS`] other cuts.
    pub fn add_cut(&mut self, cut: OnuCut) -> bool {
        self.cuts.retain(|held| !held.same_onus(&cut));
        if self.cuts.len() >= MAX_CUTS {
            return false;
        }
        self.cuts.push(cut);
        self.hold_cut_onus();
        true
    }

    /// Holds every ONU of every cut offline with its cut's cause; where cuts overlap, the
    /// one added last gives the cause. Idempotent: also called when an ONU is registered
    /// on a port that is cut.
    pub fn hold_cut_onus(&mut self) {
        let SimOlt { onus, cuts, .. } = self;
        for cut in cuts.iter() {
            for onu in onus.iter_mut().filter(|onu| cut.holds(onu)) {
                onu.online = false;
                onu.last_down_cause = Some(cut.cause);
                onu.outage_ticks_left = None;
            }
        }
    }

    /// Ends every cut: each ONU a cut held comes back online at once (even one that
    /// was down before the cut came), its optics at their usual values and its last
    /// down cause kept, as a real OLT keeps it. Returns how many ONUs came back.
    pub fn heal_cuts(&mut self) -> usize {
        let cuts = std::mem::take(&mut self.cuts);
        let mut healed = 0;
        for onu in self.onus.iter_mut().filter(|onu| held(&cuts, onu)) {
            onu.online = true;
            onu.outage_ticks_left = None;
            for reading in [&mut onu.rx, &mut onu.tx, &mut onu.olt_rx] {
                reading.now = reading.base;
            }
            healed += 1;
        }
        healed
    }
}

/// `5` or `1-12`.
pub(crate) fn numbers_text(first: u32, last: u32) -> String {
    if first == last {
        first.to_string()
    } else {
        format!("{first}-{last}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Dynamics;
    use ponkeeper_actors::domain::Vendor;

    fn huawei() -> &'static SimVendor {
        SimVendor::for_vendor(Vendor::Huawei)
    }

    /// Huawei, 512 ONUs: 32 ports of 16, ONU numbers from 0.
    fn olt() -> SimOlt {
        SimOlt::generate(huawei(), 7, 1, 512, 0)
    }

    fn numbers(olt: &SimOlt, port: usize, online: bool) -> Vec<u32> {
        olt.onus
            .iter()
            .filter(|onu| onu.port == port && onu.online == online)
            .map(|onu| onu.ont_id)
            .collect()
    }

    #[test]
    fn a_cut_holds_its_onus_down_until_healed() {
        let mut olt = olt();
        let before: Vec<(bool, Option<DownCause>)> = olt
            .onus
            .iter()
            .map(|onu| (onu.online, onu.last_down_cause))
            .collect();
        let los = olt
            .onu_cut(huawei(), "0/1/0", (2, 6), DownCause::Los)
            .expect("a cut");
        assert_eq!(los.port, 0);
        assert!(olt.add_cut(los));
        let gasp = olt
            .onu_cut(huawei(), "0/1/3", (0, 127), DownCause::DyingGasp)
            .expect("a whole port");
        assert!(olt.add_cut(gasp));
        for (onu, (online, cause)) in olt.onus.iter().zip(&before) {
            let cut = [los, gasp].into_iter().find(|cut| cut.holds(onu));
            match cut {
                Some(cut) => {
                    assert!(!onu.online);
                    assert_eq!(onu.last_down_cause, Some(cut.cause));
                }
                None => assert_eq!((onu.online, onu.last_down_cause), (*online, *cause)),
            }
        }
        assert!(numbers(&olt, 3, true).is_empty(), "the whole port is down");
        assert_eq!(olt.heal_cuts(), 5 + 16);
        assert!(olt.cuts.is_empty());
        assert!(olt.onus.iter().filter(|o| los.holds(o)).all(|o| o.online));
        assert_eq!(numbers(&olt, 3, false), Vec::<u32>::new());
        let gasped = olt.onus.iter().find(|o| gasp.holds(o)).expect("an ONU");
        assert_eq!(gasped.last_down_cause, Some(DownCause::DyingGasp), "kept");
    }

    #[test]
    fn dynamics_never_bring_a_cut_onu_back() {
        let mut olt = olt();
        let cut = olt
            .onu_cut(huawei(), "0/1/1", (0, 127), DownCause::Los)
            .expect("a cut");
        assert!(olt.add_cut(cut));
        let restless = Dynamics {
            outage_probability: 0.5,
            outage_ticks: (1, 1),
            ..Dynamics::default()
        };
        for _ in 0..50 {
            olt.step(&restless);
            for onu in olt.onus.iter().filter(|onu| cut.holds(onu)) {
                assert!(!onu.online, "ONU {} came back", onu.ont_id);
                assert_eq!(onu.last_down_cause, Some(DownCause::Los));
            }
        }
        assert!(
            olt.onus.iter().any(|o| !cut.holds(o) && !o.online),
            "other ONUs still come and go"
        );
    }

    #[test]
    fn the_same_onus_are_cut_once_and_cuts_are_bounded() {
        let mut olt = olt();
        let cut = |olt: &SimOlt, first, cause| {
            olt.onu_cut(huawei(), "0/1/0", (first, first), cause)
                .expect("a cut")
        };
        let first_onu = olt.onus[0].ont_id;
        assert!(olt.add_cut(cut(&olt, first_onu, DownCause::Los)));
        assert!(olt.add_cut(cut(&olt, first_onu, DownCause::DyingGasp)));
        assert_eq!(olt.cuts.len(), 1, "the same ONUs again replace the cut");
        assert_eq!(olt.onus[0].last_down_cause, Some(DownCause::DyingGasp));
        for n in 1..MAX_CUTS as u32 {
            let port = olt.ports[(n % 32) as usize].name.clone();
            let more = olt
                .onu_cut(huawei(), &port, (0, 127 - n), DownCause::Los)
                .expect("a cut");
            assert!(olt.add_cut(more), "cut {n}");
        }
        let extra = olt
            .onu_cut(huawei(), "0/1/5", (0, 1), DownCause::Los)
            .expect("a cut");
        assert!(!olt.add_cut(extra), "a 65th cut is refused");
        assert_eq!(olt.cuts.len(), MAX_CUTS);
    }

    #[test]
    fn bad_cuts_say_what_is_wrong() {
        let olt = olt();
        let refused = |port: &str, range: (u32, u32)| {
            olt.onu_cut(huawei(), port, range, DownCause::Los)
                .expect_err("refused")
        };
        assert_eq!(
            refused("1/1/1", (1, 2)),
            "no PON port `1/1/1` (its ports: 32 from 0/1/0 to 0/2/15)"
        );
        assert_eq!(
            refused("0/1/0", (100, 200)),
            "ONU 100-200 is outside the numbers of a port (0-127)"
        );
        let on_port = numbers(&olt, 0, true).len() + numbers(&olt, 0, false).len();
        assert_eq!(on_port, 16);
        let err = refused("0/1/0", (120, 127));
        assert!(
            err.starts_with("port 0/1/0 has no ONU numbered 120-127 (its ONUs: 0-"),
            "{err}"
        );
    }
}
