//! What a read costs the device, as data: the poll groups ([`PollGroup`]) every ONU
//! column and OLT table belongs to, and each vendor family's polling defaults
//! ([`PollingDefaults`]: how often its optics may be read, how many requests a second
//! it is sent). An OLT answers an ONU's run state from its own memory, but it asks the
//! ONU itself over OMCI for optics, one ONU at a time: that is why optics are a group of
//! their own, read rarely and spread out. Where each default comes from is said beside
//! it in the vendor's `tables.rs` and in docs/polling.md.

use super::OnuField;
use std::time::Duration;

/// A set of tables read together, on its own interval (`[polling] *_interval`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PollGroup {
    /// ONU run state and last down cause: cheap, from the OLT's memory.
    Status,
    /// Serial, description, distance: cheap, but they rarely change.
    Identity,
    /// ONU-side Rx/Tx, temperature, voltage, bias and the OLT-side Rx per ONU: each
    /// ONU's reading is an OMCI query, costly to the OLT's CPU.
    Optics,
    /// The OLT itself: system group (read by every poll as its probe), PON ports, VLANs.
    Olt,
    /// Per-ONU octet counters ([`super::TrafficColumns`]): cheap, from the OLT's memory,
    /// but a walk of two columns of every ONU, so read on an interval of its own.
    Traffic,
    /// The MACs learnt behind each ONU ([`crate::macs`]): BDCOM's forwarding table over
    /// SNMP, Huawei's and ZTE's over the CLI, one command per PON port.
    Macs,
}

impl PollGroup {
    /// Every group, in the order a short budget serves them.
    pub const ALL: [PollGroup; 6] = [
        PollGroup::Status,
        PollGroup::Identity,
        PollGroup::Optics,
        PollGroup::Olt,
        PollGroup::Traffic,
        PollGroup::Macs,
    ];

    /// The group's name in the API, metrics and config (`status`, `optics`, …).
    pub fn name(self) -> &'static str {
        match self {
            PollGroup::Status => "status",
            PollGroup::Identity => "identity",
            PollGroup::Optics => "optics",
            PollGroup::Olt => "olt",
            PollGroup::Traffic => "traffic",
            PollGroup::Macs => "macs",
        }
    }
}

impl OnuField {
    /// The poll group this column is read with.
    pub fn group(self) -> PollGroup {
        match self {
            OnuField::Status | OnuField::DownCause => PollGroup::Status,
            OnuField::Serial
            | OnuField::Description
            | OnuField::Distance
            | OnuField::PonChannel
            | OnuField::OnuNumber => PollGroup::Identity,
            OnuField::RxPower
            | OnuField::TxPower
            | OnuField::OltRxPower
            | OnuField::Temperature
            | OnuField::Voltage
            | OnuField::BiasCurrent => PollGroup::Optics,
        }
    }
}

/// A vendor family's polling defaults; `[polling]` and an OLT's `poll = { … }` override
/// them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PollingDefaults {
    /// How often each ONU's optics are read.
    pub optics_interval: Duration,
    /// Requests a second the OLT is sent at most, before any back-off.
    pub max_requests_per_second: u32,
}

/// ZTE asks for ONU signal over SNMP at most once an hour; per-ONU optics polled more
/// often crashed a C300 GPON card (docs/polling.md, "Where the defaults come from").
pub const ZTE_POLLING: PollingDefaults = PollingDefaults {
    optics_interval: Duration::from_secs(3600),
    max_requests_per_second: 20,
};

/// Huawei, BDCOM: no vendor guidance is published; 15 minutes is what operators run
/// (SmartOLT reads signal every 15–30 minutes, Zabbix templates every 15).
pub const COMMON_POLLING: PollingDefaults = PollingDefaults {
    optics_interval: Duration::from_secs(15 * 60),
    max_requests_per_second: 20,
};

/// Eltex, V-SOL, C-Data, SNR: no public source gives a safe optics rate, so the most
/// careful one any vendor published (ZTE's hourly) and half the usual request rate.
pub const CONSERVATIVE_POLLING: PollingDefaults = PollingDefaults {
    optics_interval: Duration::from_secs(3600),
    max_requests_per_second: 10,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::Profile;

    #[test]
    fn every_column_of_every_profile_has_a_group_and_status_is_never_optics() {
        for profile in Profile::ALL {
            let groups: Vec<PollGroup> = profile
                .onu_columns
                .iter()
                .map(|c| c.field.group())
                .collect();
            assert!(groups.contains(&PollGroup::Status), "{}", profile.family);
            assert!(groups.contains(&PollGroup::Identity), "{}", profile.family);
            assert!(groups.contains(&PollGroup::Optics), "{}", profile.family);
            assert!(profile.polling.max_requests_per_second > 0);
        }
        assert_eq!(
            Profile::for_vendor(crate::domain::Vendor::Zte).polling,
            ZTE_POLLING
        );
    }
}
