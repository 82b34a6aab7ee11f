//! What the simulator needs to know about a vendor beyond the driver profile: the chassis
//! model and firmware strings, how PON ports are laid out, named and indexed, how ONUs are
//! numbered (and, for BDCOM, which ifIndex their own interface gets), which serial
//! prefixes appear and the raw status of an offline ONU. Like [`ponkeeper_actors::profile`], this is
//! data, one table per vendor: the fleet model ([`super::model`]) and the MIB view
//! ([`super::mib`]) read it. Row indexes are built from the profile's
//! [`OnuIndexing`] in one place, [`SimVendor::onu_row_index`].

mod families;
use super::raw::Raw;
use ponkeeper_actors::domain::{DownCause, Vendor};
use ponkeeper_actors::profile::{self, DownCauseSource, Encoding, OnuField, OnuIndexing, Profile};

/// Where a PON port sits in the chassis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PortPosition {
    pub frame: u32,
    pub slot: u32,
    pub port: u32,
    /// The port's place in the chassis, from 0 (ifIndex order).
    pub ordinal: u32,
}

/// How a family prints its running configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ConfigDialect {
    Huawei,
    Zte,
    ZteC600,
    Bdcom,
    BdcomGpon,
    Eltex,
    Vsol,
    Cdata,
    /// No public source shows one: a bare host name.
    Snr,
}

/// A simulated vendor: its driver profile plus the agent-side facts the profile lacks.
#[derive(Debug)]
pub(crate) struct SimVendor {
    /// The table the pollers decode with; the simulator encodes with it.
    pub profile: &'static Profile,
    /// Inventory model name.
    pub model: &'static str,
    /// Firmware versions reported in entPhysicalSoftwareRev.1; each OLT picks one.
    pub firmware: &'static [&'static str],
    /// Serial (or MAC) prefixes with relative weights (ONUs of other makes are common);
    /// the rest of the serial is random.
    pub serial_prefixes: &'static [(&'static [u8], u32)],
    /// Raw status of an offline ONU whose down cause the status cannot express (the
    /// online value is `profile.online_status[0]`).
    pub offline_status: i64,
    /// The chassis frame every port is on.
    pub frame: u32,
    /// Whether a port is named `frame/slot/port` (GPON OLTs) or `slot/port` (BDCOM).
    pub name_has_frame: bool,
    /// The first service slot holding PON boards.
    pub first_slot: u32,
    /// Service slots a chassis has before the layout spills into further slots.
    pub slots: u32,
    /// The number of the first port on a board.
    pub first_port: u32,
    /// PON ports per board.
    pub ports_per_slot: u32,
    /// The most ONUs one PON port carries.
    pub max_onus_per_port: u32,
    /// The number of the first ONU on a port (Huawei counts from 0, ZTE and BDCOM from 1).
    pub first_onu_id: u32,
    /// How many ONU numbers a port has.
    pub onu_ids_per_port: u32,
    /// ifType of a PON port in IF-MIB.
    pub port_if_type: u32,
    /// ifIndex of a port.
    pub port_if_index: fn(PortPosition) -> u32,
    /// Whether ifDescr repeats the interface name (ZTE leaves it empty).
    pub if_descr_is_name: bool,
    /// ifIndex of an ONU's own interface, for vendors whose IF-MIB lists ONUs (BDCOM
    /// indexes ONUs by it; V-SOL V1600D lists them beside its `<pon>.<onu>` rows).
    pub onu_if_index: Option<fn(PortPosition, u32) -> u32>,
    /// Whether IF-MIB lists the PON ports (no capture shows an Eltex LTP's IF-MIB).
    pub ports_in_if_mib: bool,
    /// How the vendor prints its running configuration
    /// ([`super::console::running_config`]).
    pub running_config: ConfigDialect,
    /// The CLI's answers to a line it does not know, an ONU that does not exist and a
    /// VLAN the OLT does not carry (each starts with one of the profile's error markers).
    pub error_unknown: &'static str,
    pub error_no_onu: &'static str,
    pub error_no_vlan: &'static str,
}

fn huawei_port_if_index(at: PortPosition) -> u32 {
    profile::huawei_gpon_if_index(at.frame, at.slot, at.port)
}

/// ZTE numbers IF-MIB rows on its own (the fixture's ports are 268500000 + n).
fn zte_port_if_index(at: PortPosition) -> u32 {
    268_500_000 + at.ordinal
}

/// (?) BDCOM: ports after a few uplinks, ONU interfaces in a block of 64 per port.
fn bdcom_port_if_index(at: PortPosition) -> u32 {
    5 + at.ordinal
}

fn bdcom_onu_if_index(at: PortPosition, onu_id: u32) -> u32 {
    100 + at.ordinal * 64 + onu_id
}

static HUAWEI: SimVendor = SimVendor {
    profile: &profile::HUAWEI,
    model: "MA5800-X7",
    firmware: &["V800R021C00", "V800R021C10", "V800R022C00"],
    serial_prefixes: &[(b"HWTC", 70), (b"ZTEG", 15), (b"ALCL", 15)],
    offline_status: 2,
    frame: 0,
    name_has_frame: true,
    first_slot: 1,
    slots: 2,
    first_port: 0,
    ports_per_slot: 16,
    max_onus_per_port: 32,
    first_onu_id: 0,
    onu_ids_per_port: 128,
    port_if_type: 250,
    port_if_index: huawei_port_if_index,
    if_descr_is_name: true,
    onu_if_index: None,
    ports_in_if_mib: true,
    running_config: ConfigDialect::Huawei,
    error_unknown: "% Unknown command, the error locates at '^'",
    error_no_onu: "  Failure: The ONT does not exist",
    error_no_vlan: "  Failure: The VLAN does not exist",
};

static ZTE: SimVendor = SimVendor {
    profile: &profile::ZTE,
    model: "C320",
    firmware: &["V2.1.0", "V2.1.0P1T1", "V1.2.5P3"],
    serial_prefixes: &[(b"ZTEG", 80), (b"HWTC", 10), (b"ALCL", 10)],
    // Phase "offline"; LOS and dying gasp have phases of their own.
    offline_status: 6,
    frame: 1,
    name_has_frame: true,
    first_slot: 1,
    slots: 2,
    first_port: 1,
    ports_per_slot: 16,
    max_onus_per_port: 64,
    first_onu_id: 1,
    onu_ids_per_port: 128,
    port_if_type: 250,
    port_if_index: zte_port_if_index,
    if_descr_is_name: false,
    onu_if_index: None,
    ports_in_if_mib: true,
    running_config: ConfigDialect::Zte,
    error_unknown: "%Error 20203: Incorrect command.",
    error_no_onu: "%Code 32310-GPONSRV : The ONU does not exist.",
    error_no_vlan: "%Code 32514-GPONSRV : The VLAN does not exist.",
};

static BDCOM: SimVendor = SimVendor {
    profile: &profile::BDCOM,
    model: "P3310",
    firmware: &["10.1.0E Build 41588", "10.1.0F Build 53320"],
    // MAC OUIs (the rest is random).
    serial_prefixes: &[(&[0xFC, 0xFA, 0xF7], 70), (&[0xE0, 0x67, 0xB3], 30)],
    // Deregistered: down for a reason the status does not say (UNKNOWN).
    offline_status: 2,
    frame: 0,
    name_has_frame: false,
    first_slot: 0,
    slots: 1,
    first_port: 1,
    ports_per_slot: 4,
    max_onus_per_port: 64,
    first_onu_id: 1,
    onu_ids_per_port: 64,
    port_if_type: 1,
    port_if_index: bdcom_port_if_index,
    if_descr_is_name: true,
    onu_if_index: Some(bdcom_onu_if_index),
    ports_in_if_mib: true,
    running_config: ConfigDialect::Bdcom,
    error_unknown: "% Unknown command.",
    error_no_onu: "% Invalid input: the ONU does not exist.",
    error_no_vlan: "% Invalid input: VLAN not configured.",
};

/// ZTE C600 / C620: the port ifIndex spells `1/slot/port` (`gpon_olt-1/1/1` = 285278465).
fn zte_c600_port_if_index(at: PortPosition) -> u32 {
    profile::ZTE_C600_GPON
        .if_index(at.frame, at.slot, at.port)
        .unwrap_or(u32::MAX)
}

/// BDCOM GP3600: ports after 13 uplinks from ifIndex 110 (`GPON0/1`), as the LibreNMS
/// capture numbers them.
fn bdcom_gpon_port_if_index(at: PortPosition) -> u32 {
    110 + at.ordinal
}

/// (?) BDCOM GP3600: ONU interfaces from 1179 on; the capture's are irregular, so a block
/// of 128 per port stands in.
fn bdcom_gpon_onu_if_index(at: PortPosition, onu_id: u32) -> u32 {
    1179 + at.ordinal * 128 + onu_id - 1
}

static ZTE_C600: SimVendor = SimVendor {
    profile: &profile::ZTE_C600,
    model: "C620",
    firmware: &["V2.0.30", "V1.2.2"],
    serial_prefixes: &[(b"ZTEG", 80), (b"HWTC", 10), (b"ALCL", 10)],
    // Phase "offline"; LOS and dying gasp have phases of their own.
    offline_status: 7,
    port_if_index: zte_c600_port_if_index,
    if_descr_is_name: true,
    running_config: ConfigDialect::ZteC600,
    ..ZTE
};

static BDCOM_GPON: SimVendor = SimVendor {
    profile: &profile::BDCOM_GPON,
    model: "GP3600-16B",
    firmware: &["74104", "74201"],
    serial_prefixes: &[(b"HWTC", 50), (b"ZTEG", 30), (b"BDCM", 20)],
    ports_per_slot: 16,
    max_onus_per_port: 128,
    onu_ids_per_port: 128,
    port_if_index: bdcom_gpon_port_if_index,
    onu_if_index: Some(bdcom_gpon_onu_if_index),
    running_config: ConfigDialect::BdcomGpon,
    ..BDCOM
};

impl SimVendor {
    /// Every simulated layout, in the order a fleet of [`super::FleetVendors::EveryFamily`]
    /// takes them: the three first vendors' defaults first.
    pub const ALL: [&'static SimVendor; 10] = [
        &HUAWEI,
        &ZTE,
        &BDCOM,
        &ZTE_C600,
        &BDCOM_GPON,
        &families::ELTEX,
        &families::VSOL_EPON,
        &families::VSOL_GPON,
        &families::CDATA,
        &families::SNR,
    ];

    /// The simulator table of a vendor.
    pub fn for_vendor(vendor: Vendor) -> &'static SimVendor {
        match vendor {
            Vendor::Huawei => &HUAWEI,
            Vendor::Zte => &ZTE,
            Vendor::Bdcom => &BDCOM,
            Vendor::Eltex => &families::ELTEX,
            Vendor::Vsol => &families::VSOL_EPON,
            Vendor::Cdata => &families::CDATA,
            Vendor::Snr => &families::SNR,
        }
    }

    /// Raw status of an ONU that is online, or offline after `cause`. Where the status
    /// carries the cause (ZTE, BDCOM) an offline ONU reports the cause's status value.
    pub fn status_value(&self, online: bool, cause: Option<DownCause>) -> i64 {
        if online {
            return self.profile.online_status.first().copied().unwrap_or(1);
        }
        match self.profile.down_cause_source {
            DownCauseSource::Column => self.offline_status,
            DownCauseSource::Status => cause
                .and_then(|cause| self.profile.down_cause_value(cause))
                .unwrap_or(self.offline_status),
        }
    }

    /// The port's name as the API shows it (`0/1/0`, `1/1/1`, `0/1`).
    pub fn port_name(&self, at: PortPosition) -> String {
        if self.name_has_frame {
            format!("{}/{}/{}", at.frame, at.slot, at.port)
        } else {
            format!("{}/{}", at.slot, at.port)
        }
    }

    /// Bytes a serial is kept in: 8 for GPON, 6 for an EPON MAC.
    pub fn serial_len(&self) -> usize {
        self.profile
            .column(OnuField::Serial)
            .map_or(8, |column| column.serial_len().min(8))
    }

    /// A serial as the agent sends it: its bytes, or for a vendor that sends serials as
    /// text `HWTC:1A2B3C4D` (BDCOM GPON), `485754431A2B3C4D` (SNR), `HWTC1A2B3C4D`
    /// (V-SOL GPON) or `a0:b1:c2:d3:e4:f5` (V-SOL EPON).
    pub fn wire_serial<'a>(&self, serial: &'a [u8; 8]) -> Raw<'a> {
        let encoding = self.profile.column(OnuField::Serial).map(|c| c.encoding);
        let shown = || profile::format_gpon_serial(serial);
        let text = match encoding {
            Some(Encoding::GponSerialText) => {
                let shown = shown();
                format!(
                    "{}:{}",
                    shown.get(..4).unwrap_or(""),
                    shown.get(4..).unwrap_or("")
                )
            }
            Some(Encoding::SerialText { hex: true }) => profile::text::format_hex_serial(serial),
            Some(Encoding::SerialText { hex: false }) => shown(),
            Some(Encoding::MacText) => profile::format_mac(&serial[..6]),
            _ => return Raw::Octets(&serial[..self.serial_len()]),
        };
        Raw::inline(&text)
    }

    /// The ONU table row index of ONU `onu_id` (serial `serial`) on the port at `at`.
    pub fn onu_row_index(&self, at: PortPosition, onu_id: u32, serial: &[u8; 8]) -> RowIndex {
        match self.profile.onu_indexing {
            OnuIndexing::PortIfIndexAndOnuId => RowIndex::new(&[(self.port_if_index)(at), onu_id]),
            OnuIndexing::PonIdAndOnuId(layout) => {
                let pon_id = layout.pon_id(at.slot, at.port).unwrap_or(u32::MAX);
                RowIndex::new(&[pon_id, onu_id])
            }
            OnuIndexing::OnuIfIndex { .. } => {
                RowIndex::new(&[self.onu_if_index(at, onu_id).unwrap_or(u32::MAX)])
            }
            OnuIndexing::PortArcsAndOnuId { .. } if self.name_has_frame => {
                RowIndex::new(&[at.slot, at.port, onu_id])
            }
            OnuIndexing::PortArcsAndOnuId { .. } => RowIndex::new(&[at.port, onu_id]),
            OnuIndexing::Packed(layout) => {
                RowIndex::new(&[layout.index(at.port, onu_id).unwrap_or(u32::MAX)])
            }
            OnuIndexing::SlotAndSerial => {
                let mut arcs = [at.slot; 9];
                for (arc, &octet) in arcs[1..].iter_mut().zip(serial) {
                    *arc = u32::from(octet);
                }
                RowIndex::new(&arcs)
            }
        }
    }

    /// The ifIndex of the ONU's own interface, where the vendor's IF-MIB lists ONUs.
    pub fn onu_if_index(&self, at: PortPosition, onu_id: u32) -> Option<u32> {
        self.onu_if_index.map(|of_onu| of_onu(at, onu_id))
    }
}

/// The row index of an ONU table row: up to nine arcs (Eltex's slot and serial), without
/// heap allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct RowIndex {
    arcs: [u32; 9],
    len: u8,
}

impl RowIndex {
    fn new(arcs: &[u32]) -> RowIndex {
        let mut row = RowIndex {
            arcs: [0; 9],
            len: arcs.len().min(9) as u8,
        };
        row.arcs[..usize::from(row.len)].copy_from_slice(&arcs[..usize::from(row.len)]);
        row
    }

    pub fn arcs(&self) -> &[u32] {
        &self.arcs[..usize::from(self.len)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ponkeeper_actors::domain::OnuStatus;

    #[test]
    fn status_values_round_trip_through_the_profile() {
        for vendor in Vendor::ALL {
            let sim = SimVendor::for_vendor(vendor);
            let profile = sim.profile;
            assert_eq!(
                profile.status(sim.status_value(true, None)),
                OnuStatus::Online
            );
            for cause in [None, Some(DownCause::Los), Some(DownCause::DyingGasp)] {
                let raw = sim.status_value(false, cause);
                assert_eq!(
                    profile.status(raw),
                    OnuStatus::Offline,
                    "{vendor} {cause:?}"
                );
            }
        }
        let zte = SimVendor::for_vendor(Vendor::Zte);
        assert_eq!(zte.status_value(false, Some(DownCause::Los)), 1);
        assert_eq!(zte.status_value(false, Some(DownCause::DyingGasp)), 4);
        let bdcom = SimVendor::for_vendor(Vendor::Bdcom);
        assert_eq!(bdcom.status_value(false, Some(DownCause::Los)), 4);
        assert_eq!(bdcom.status_value(false, Some(DownCause::DyingGasp)), 2);
    }

    #[test]
    fn row_indexes_follow_each_vendor_layout() {
        let at = PortPosition {
            frame: 1,
            slot: 2,
            port: 1,
            ordinal: 3,
        };
        let serial = *b"ZTEG0001";
        let zte = SimVendor::for_vendor(Vendor::Zte);
        let row = zte.onu_row_index(at, 5, &serial);
        assert_eq!(
            (row.arcs(), zte.onu_if_index(at, 5)),
            (&[268_566_784, 5][..], None)
        );
        let bdcom = SimVendor::for_vendor(Vendor::Bdcom);
        let at = PortPosition {
            frame: 0,
            slot: 0,
            port: 2,
            ordinal: 1,
        };
        let row = bdcom.onu_row_index(at, 3, &serial);
        assert_eq!(row.arcs(), &[167]);
        assert_eq!(bdcom.onu_if_index(at, 3), Some(167));
        assert_eq!(bdcom.port_name(at), "0/2");
        // The CIS families: Eltex by slot and serial, V-SOL and SNR by port arcs, C-Data
        // packed.
        let at = |slot, port| PortPosition {
            frame: 0,
            slot,
            port,
            ordinal: 0,
        };
        let eltex = SimVendor::for_vendor(Vendor::Eltex).onu_row_index(
            at(1, 3),
            5,
            b"ELTX\x01\x02\x03\x04",
        );
        assert_eq!(eltex.arcs(), &[1, 69, 76, 84, 88, 1, 2, 3, 4]);
        let vsol = SimVendor::for_vendor(Vendor::Vsol).onu_row_index(at(0, 2), 7, &serial);
        assert_eq!(vsol.arcs(), &[2, 7]);
        let snr = SimVendor::for_vendor(Vendor::Snr).onu_row_index(at(2, 16), 9, &serial);
        assert_eq!(snr.arcs(), &[2, 16, 9]);
        let cdata = SimVendor::for_vendor(Vendor::Cdata).onu_row_index(at(0, 3), 7, &serial);
        assert_eq!(cdata.arcs(), &[0x48_0000 | (2 << 12) | 7]);
    }
}
