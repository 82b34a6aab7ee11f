//! The simulator's MACs behind ONUs: one to three per ONU, derived from its serial so a
//! seed always gives the same ones, locally administered (first octet `02`) so they
//! cannot clash with a real device's. They are kept sorted by (VLAN, MAC) — the order of
//! BDCOM's forwarding table — each with the position of the ONU it is behind; only an
//! online ONU's MACs are shown. A test moves one to another ONU with
//! [`crate::SimFleet::move_mac`], as a subscriber's router carried to a neighbour's
//! socket would; with `Dynamics::mac_move_probability` the fleet does so now and then
//! by itself (the demo's does, every few minutes an OLT).

use super::{SimOlt, SimOnu};

/// One MAC and where it was learnt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SimMac {
    pub vlan: u16,
    pub mac: [u8; 6],
    /// Position of its ONU in [`SimOlt::onus`].
    pub onu: usize,
}

/// A 64-bit mix of `value` (SplitMix64's finaliser).
fn mix(value: u64) -> u64 {
    let mut z = value.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The MACs behind every ONU of `onus`, sorted by (VLAN, MAC).
pub(crate) fn generate(onus: &[SimOnu]) -> Vec<SimMac> {
    let mut macs = Vec::new();
    for (position, onu) in onus.iter().enumerate() {
        let seed = mix(u64::from_be_bytes(onu.serial));
        let count = 1 + (seed % 3) as usize;
        for k in 0..count as u64 {
            let bits = mix(seed ^ k).to_be_bytes();
            let mac = [0x02, bits[0], bits[1], bits[2], bits[3], bits[4]];
            let vlan = onu.vlan.unwrap_or(100);
            macs.push(SimMac {
                vlan,
                mac,
                onu: position,
            });
        }
    }
    macs.sort_by_key(|m| (m.vlan, m.mac));
    macs.dedup_by_key(|m| (m.vlan, m.mac));
    macs
}

impl SimOlt {
    /// The MACs shown now: those behind online ONUs, in (VLAN, MAC) order.
    pub(crate) fn shown_macs(&self) -> impl Iterator<Item = &SimMac> {
        self.macs
            .iter()
            .filter(|m| self.onus.get(m.onu).is_some_and(|o| o.online))
    }

    /// Moves `mac` to the ONU at `to`; `false` if there is no such MAC or ONU.
    pub(crate) fn move_mac(&mut self, mac: [u8; 6], to: usize) -> bool {
        if to >= self.onus.len() {
            return false;
        }
        match self.macs.iter_mut().find(|m| m.mac == mac) {
            Some(entry) => {
                entry.onu = to;
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::SimOlt;
    use crate::{Dynamics, SimVendor};
    use ponkeeper_actors::domain::Vendor;

    #[test]
    fn the_dynamics_carry_macs_to_other_onus_now_and_then() {
        let vendor = SimVendor::for_vendor(Vendor::Huawei);
        let mut olt = SimOlt::generate(vendor, 1, 1, 32, 7);
        let before: Vec<_> = olt.macs.iter().map(|m| (m.mac, m.onu)).collect();
        let frozen = Dynamics::none();
        olt.step(&frozen);
        let after: Vec<_> = olt.macs.iter().map(|m| (m.mac, m.onu)).collect();
        assert_eq!(before, after, "no chance, no move");
        let carrying = Dynamics {
            mac_move_probability: 1.0,
            ..Dynamics::none()
        };
        for _ in 0..20 {
            olt.step(&carrying);
        }
        let moved = olt
            .macs
            .iter()
            .zip(&before)
            .filter(|(now, (_, was))| now.onu != *was)
            .count();
        assert!(moved > 0, "twenty ticks at certainty moved nothing");
        assert!(moved <= 20, "{moved} moved in twenty ticks");
    }
}
