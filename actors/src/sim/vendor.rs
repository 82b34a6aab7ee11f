//! What the simulator needs to know about a vendor beyond the driver profile: the chassis
//! model and firmware strings, how PON ports are laid out and indexed, how ONUs are
//! numbered, which serial prefixes appear and the raw status of an offline ONU. Like
//! [`crate::profile`], this is data, one table per vendor: the fleet model
//! ([`super::model`]) and the MIB view ([`super::mib`]) read it, and adding ZTE or BDCOM
//! means adding one table here next to its profile.

use crate::domain::Vendor;
use crate::profile::{self, Profile};

/// A simulated vendor: its driver profile plus the agent-side facts the profile lacks.
#[derive(Debug)]
pub(crate) struct SimVendor {
    /// The table the pollers decode with; the simulator encodes with it.
    pub profile: &'static Profile,
    /// Inventory model name.
    pub model: &'static str,
    /// Firmware versions reported in entPhysicalSoftwareRev.1; each OLT picks one.
    pub firmware: &'static [&'static str],
    /// Serial vendor prefixes with relative weights (ONUs of other makes are common).
    pub serial_prefixes: &'static [([u8; 4], u32)],
    /// Raw run status of an offline ONU (the online value is `profile.online_status[0]`).
    pub offline_status: i64,
    /// The chassis frame every port is on.
    pub frame: u32,
    /// The first service slot holding PON boards.
    pub first_slot: u32,
    /// PON ports per board.
    pub ports_per_slot: u32,
    /// The most ONUs one PON port carries.
    pub max_onus_per_port: u32,
    /// The number of the first ONU on a port (Huawei counts from 0, ZTE from 1).
    pub first_onu_id: u32,
    /// ifIndex of the port `frame/slot/port`.
    pub port_if_index: fn(u32, u32, u32) -> u32,
}

static HUAWEI: SimVendor = SimVendor {
    profile: &profile::HUAWEI,
    model: "MA5800-X7",
    firmware: &["V800R021C00", "V800R021C10", "V800R022C00"],
    serial_prefixes: &[(*b"HWTC", 70), (*b"ZTEG", 15), (*b"ALCL", 15)],
    offline_status: 2,
    frame: 0,
    first_slot: 1,
    ports_per_slot: 16,
    max_onus_per_port: 32,
    first_onu_id: 0,
    port_if_index: profile::huawei_gpon_if_index,
};

impl SimVendor {
    /// The simulator table of a vendor, or `None` when it cannot be simulated yet.
    pub fn for_vendor(vendor: Vendor) -> Option<&'static SimVendor> {
        match vendor {
            Vendor::Huawei => Some(&HUAWEI),
            Vendor::Zte | Vendor::Bdcom => None,
        }
    }

    /// Raw run status for an ONU that is (or is not) online.
    pub fn status_value(&self, online: bool) -> i64 {
        if online {
            self.profile.online_status.first().copied().unwrap_or(1)
        } else {
            self.offline_status
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::OnuStatus;

    #[test]
    fn status_values_round_trip_through_the_profile() {
        let vendor = SimVendor::for_vendor(Vendor::Huawei).expect("huawei is simulated");
        assert_eq!(
            vendor.profile.status(vendor.status_value(true)),
            OnuStatus::Online
        );
        assert_eq!(
            vendor.profile.status(vendor.status_value(false)),
            OnuStatus::Offline
        );
    }
}
