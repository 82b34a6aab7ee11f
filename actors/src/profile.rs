//! Driver profiles: everything vendor-specific about an OLT as data — OIDs, index layout,
//! value scales, absent sentinels and the status / down-cause enumerations, the CLI
//! dialogue and scripts, provisioning and detection. The poller (client side) decodes
//! with these tables and the simulator (agent side) encodes with the very same tables,
//! so the two can never disagree about a vendor. Facts come from `docs/devices.md`.
//!
//! This file holds the SNMP types and their codecs; `commands.rs` the CLI's types and
//! template engine, `provisioning.rs` provisioning's, `detection.rs` the detection engine
//! and its order, `if_index.rs` port ifIndex decoding. Each vendor family's data is in
//! its own folder — `huawei/`, `zte/` (C300 / C320 and C600 / C620), `bdcom/` (EPON and
//! GPON) — with its tables, CLI, provisioning and detection rules side by side, so a
//! wrong OID or command is fixed on one line. The tables are re-exported here
//! (`profile::HUAWEI` etc.) and reached through [`Profile::for_vendor`].

mod bdcom;
mod cdata;
mod codec;
pub mod commands;
pub mod detection;
mod eltex;
mod huawei;
mod if_index;
pub mod polling;
pub mod provisioning;
mod snr;
pub mod text;
mod vsol;
mod zte;

use crate::domain::{DownCause, OnuStatus, Vendor};
pub use bdcom::{BDCOM, BDCOM_GPON};
pub use cdata::CDATA;
pub use codec::{
    format_gpon_serial, format_gpon_serial_text, format_mac, parse_gpon_serial, Cell, PLAUSIBLE_DBM,
};
use commands::CliProfile;
pub use eltex::ELTEX;
pub use huawei::{huawei_gpon_if_index, HUAWEI, HUAWEI_GPON};
pub use if_index::IfIndexLayout;
pub use snr::SNR;
pub use vsol::{VSOL_EPON, VSOL_GPON};
pub use zte::{ZTE, ZTE_C600, ZTE_C600_GPON};

/// Standard MIB-II / IF-MIB / ENTITY-MIB objects every profile reads.
pub mod std_oids {
    pub const SYS_DESCR: &[u32] = &[1, 3, 6, 1, 2, 1, 1, 1, 0];
    pub const SYS_OBJECT_ID: &[u32] = &[1, 3, 6, 1, 2, 1, 1, 2, 0];
    pub const SYS_UPTIME: &[u32] = &[1, 3, 6, 1, 2, 1, 1, 3, 0];
    pub const SYS_NAME: &[u32] = &[1, 3, 6, 1, 2, 1, 1, 5, 0];
    /// entPhysicalSoftwareRev of the chassis (entPhysicalIndex 1).
    pub const FIRMWARE: &[u32] = &[1, 3, 6, 1, 2, 1, 47, 1, 1, 1, 1, 10, 1];
    pub const IF_DESCR: &[u32] = &[1, 3, 6, 1, 2, 1, 2, 2, 1, 2];
    pub const IF_TYPE: &[u32] = &[1, 3, 6, 1, 2, 1, 2, 2, 1, 3];
    pub const IF_NAME: &[u32] = &[1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 1];
    /// Q-BRIDGE-MIB dot1qVlanStaticName, indexed by VLAN id.
    pub const VLAN_STATIC_NAME: &[u32] = &[1, 3, 6, 1, 2, 1, 17, 7, 1, 4, 3, 1, 1];
    /// Q-BRIDGE-MIB dot1qTpFdbPort: the bridge port a MAC was learnt on, indexed by the
    /// filtering database id (the VLAN) and the MAC's six octets.
    pub const FDB_PORT: &[u32] = &[1, 3, 6, 1, 2, 1, 17, 7, 1, 2, 2, 1, 2];
    /// BRIDGE-MIB dot1dBasePortIfIndex: the ifIndex of a bridge port.
    pub const BRIDGE_PORT_IF_INDEX: &[u32] = &[1, 3, 6, 1, 2, 1, 17, 1, 4, 1, 2];
}

/// What an ONU table column carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OnuField {
    Serial,
    Description,
    /// The vendor's run/phase status enumeration.
    Status,
    Distance,
    /// The vendor's last-down-cause enumeration (only where the device has one; see
    /// [`DownCauseSource`]).
    DownCause,
    RxPower,
    TxPower,
    OltRxPower,
    /// The ONU transceiver's temperature (°C), where the vendor's MIB has it.
    Temperature,
    /// The ONU transceiver's supply voltage (V).
    Voltage,
    /// The ONU laser's bias current (mA).
    BiasCurrent,
    /// The PON channel (port) an ONU is on, where the row index does not say it (Eltex
    /// LTP-8X indexes ONUs by their serial: [`OnuIndexing::SlotAndSerial`]).
    PonChannel,
    /// The ONU's number on its port, where the row index does not say it.
    OnuNumber,
}

/// How a raw SNMP value maps to the API's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Encoding {
    /// 8-byte GPON serial: 4 ASCII vendor letters + 4 bytes shown as upper-case hex.
    GponSerial,
    /// A GPON serial as text, `VEND:XXXXXXXX` (BDCOM GPON), shown without the colon as
    /// [`Encoding::GponSerial`] shows the bytes: `HWTC:1a2b3c4d` is `HWTC1A2B3C4D`.
    GponSerialText,
    /// 6-byte EPON MAC address shown as lower-case `a0:b1:c2:d3:e4:f5`.
    MacAddress,
    /// A GPON serial as text in whatever form the device prints it — 16 hex digits
    /// (`485754431A2B3C4D`, SNR), `HWTC1A2B3C4D` or `HWTC:1A2B3C4D` — shown as
    /// [`Encoding::GponSerial`] shows the bytes; `hex` is the form the simulator prints.
    SerialText { hex: bool },
    /// An EPON MAC sent as text (`a0:b1:c2:d3:e4:f5`, `a0b1.c2d3.e4f5`, V-SOL), shown as
    /// [`Encoding::MacAddress`] shows the bytes.
    MacText,
    /// An enumeration sent as text, by its words (C-Data's last down cause `LOS`,
    /// `dying-gasp`): each known word and the value it stands for; any other word is no
    /// value.
    TextEnum(&'static [(&'static str, i64)]),
    /// An enumeration sent as its decimal code in text (SNR's offline reason `7`).
    TextCode,
    /// OCTET STRING shown as text.
    Text,
    /// A reading sent as text ([`text::parse_reading`]): V-SOL's and SNR's optics. `absent`
    /// is what the device prints without a reading (any text without a number reads as
    /// none; the simulator prints this one).
    TextReading {
        form: text::TextForm,
        absent: &'static str,
    },
    /// Whole metres sent as text (SNR's distance).
    TextMetres,
    /// INTEGER enumeration, used as is.
    Enum,
    /// INTEGER metres.
    Metres,
    /// INTEGER tenths of a metre (BDCOM GPON's onuDistance), shown in whole metres.
    Decimetres,
    /// dBm = (raw - offset) / divisor.
    ScaledDbm { offset: i64, divisor: f64 },
    /// A transceiver reading in the API's unit (°C, V, mA) = raw / divisor: Huawei's
    /// voltage in mV is divisor 1000, BDCOM's temperature in 1/256 °C is divisor 256.
    Scaled { divisor: f64 },
    /// A 16-bit reading whose values above `wrap_above` stand for `raw - modulus`
    /// (negative), then dBm = (raw - offset) / divisor. ZTE's `raw*0.002 - 30` is
    /// offset 15000, divisor 500, wrapping above 30000 by 65535.
    WrappingDbm {
        offset: i64,
        divisor: f64,
        wrap_above: i64,
        modulus: i64,
    },
}

/// One column of the ONU table.
#[derive(Debug, Clone, Copy)]
pub struct OnuColumn {
    pub field: OnuField,
    /// Column OID; an instance is `oid . <row index> . suffix`.
    pub oid: &'static [u32],
    /// Arcs after the row index (ZTE optics carry a trailing `.1`).
    pub suffix: &'static [u32],
    pub encoding: Encoding,
    /// Raw values that mean "no reading" and become `null`. A column without sentinels
    /// leaves the instance out instead (ZTE distance of an offline ONU).
    pub absent: &'static [i64],
}

impl OnuColumn {
    /// A column without a suffix after the row index.
    pub const fn new(
        field: OnuField,
        oid: &'static [u32],
        encoding: Encoding,
        absent: &'static [i64],
    ) -> OnuColumn {
        OnuColumn {
            field,
            oid,
            suffix: &[],
            encoding,
            absent,
        }
    }

    /// The row index of one of this column's `instance`s (the arcs after the column OID):
    /// the instance less the column's suffix, or `None` when it does not end with it.
    /// Compared arc by arc: a poll asks this of every cell, and a suffix is zero or one
    /// arc, where `<[u32]>::strip_suffix` calls `memcmp` even for none.
    pub fn row_index<'a>(&self, instance: &'a [u32]) -> Option<&'a [u32]> {
        let (index, end) =
            instance.split_at_checked(instance.len().checked_sub(self.suffix.len())?)?;
        end.iter()
            .zip(self.suffix)
            .all(|(arc, wanted)| arc == wanted)
            .then_some(index)
    }
}

/// A layout's per-ONU traffic counters (the `traffic` poll group), indexed by the ONU
/// table's row index as its columns are. Where each comes from is in docs/devices.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrafficColumns {
    /// Octets the OLT received from the ONU (upstream).
    pub in_octets: &'static [u32],
    /// Octets the OLT sent to the ONU (downstream).
    pub out_octets: &'static [u32],
    /// The counters' width: 32 (Counter32, wraps) or 64 (Counter64).
    pub bits: u32,
}

/// ZTE's packed PON port id: `base + slot*slot_step + port*port_step` names the port
/// `frame/slot/port` (`gpon-olt_1/1/1` = 0x10000000 + 65536 + 256 = 268501248).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PonIdLayout {
    pub base: u32,
    /// The frame (rack) every port id names; the id itself does not carry it.
    pub frame: u32,
    pub slot_step: u32,
    pub port_step: u32,
}

impl PonIdLayout {
    /// The id of port `frame/slot/port` (the simulator's side).
    pub fn pon_id(&self, slot: u32, port: u32) -> Option<u32> {
        self.base
            .checked_add(slot.checked_mul(self.slot_step)?)?
            .checked_add(port.checked_mul(self.port_step)?)
    }

    /// `frame/slot/port` of a port id, or `None` when the id is not one.
    pub fn port_name(&self, pon_id: u32) -> Option<String> {
        let rest = pon_id.checked_sub(self.base)?;
        let slot = rest.checked_div(self.slot_step)?;
        let within = rest.checked_rem(self.slot_step)?;
        if within.checked_rem(self.port_step)? != 0 || slot > 255 {
            return None;
        }
        let port = within.checked_div(self.port_step)?;
        Some(format!("{}/{slot}/{port}", self.frame))
    }
}

/// How the row index of the ONU table names the ONU's port and number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnuIndexing {
    /// `<port ifIndex>.<ontId>`; the port name comes from the port's IF-MIB name (Huawei).
    PortIfIndexAndOnuId,
    /// `<ponId>.<onuId>`; the port is decoded from the ponId arithmetically, as IF-MIB
    /// indexes are unrelated to it (ZTE).
    PonIdAndOnuId(PonIdLayout),
    /// `<ONU ifIndex>`; the ONU interface's IF-MIB name is the port's name, `separator`
    /// and the ONU number: `EPON0/1:3` is ONU 3 on port `0/1` (BDCOM).
    OnuIfIndex { separator: char },
    /// `<arcs naming the port>.<onuId>`: the port's name is `prefix` and the leading arcs
    /// joined by slashes (V-SOL `<pon>.<onu>` with prefix `0/` is port `0/<pon>`; SNR
    /// `<slot>.<port>.<ont>` is `0/<slot>/<port>`). Where IF-MIB also lists every ONU
    /// as an interface of its own (V-SOL V1600D's `EPON0/1:1`), `onu_interfaces` is the
    /// separator of those names, and IF-MIB is compared with the table.
    PortArcsAndOnuId {
        prefix: &'static str,
        onu_interfaces: Option<char>,
    },
    /// One packed integer naming port and ONU ([`PackedOnuLayout`], C-Data).
    Packed(PackedOnuLayout),
    /// `<slot>.<serial as 8 octets>` (Eltex LTP-8X): the serial is the index, and the
    /// port (`<slot>/<channel>`) and the ONU number are the [`OnuField::PonChannel`] and
    /// [`OnuField::OnuNumber`] columns.
    SlotAndSerial,
}

impl OnuIndexing {
    /// Whether a row's place names its port without IF-MIB (port arcs, a packed index,
    /// Eltex's channel column): a port its ONUs name is listed even where IF-MIB does not
    /// list it (Eltex's IF-MIB names no PON port any source shows).
    pub fn names_ports(self) -> bool {
        matches!(
            self,
            OnuIndexing::PortArcsAndOnuId { .. }
                | OnuIndexing::Packed(_)
                | OnuIndexing::SlotAndSerial
        )
    }

    /// The separator of the ONU interfaces' IF-MIB names (`EPON0/1:3`), where IF-MIB
    /// lists ONUs as interfaces of their own.
    pub fn onu_interface_separator(self) -> Option<char> {
        match self {
            OnuIndexing::OnuIfIndex { separator } => Some(separator),
            OnuIndexing::PortArcsAndOnuId { onu_interfaces, .. } => onu_interfaces,
            _ => None,
        }
    }
}

/// C-Data's packed ONU index: `base | (port - first_port) << port_shift | onu`
/// (`0x480000 | (port-1) << 12 | onu`), the port named `prefix` and its number
/// (`0/0/3`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackedOnuLayout {
    pub base: u32,
    pub port_shift: u32,
    pub first_port: u32,
    /// Ports the layout can name (a larger number is no index of this layout).
    pub ports: u32,
    pub prefix: &'static str,
}

impl PackedOnuLayout {
    /// The index of ONU `onu` on port number `port` (the simulator's side).
    pub fn index(&self, port: u32, onu: u32) -> Option<u32> {
        let port = port.checked_sub(self.first_port)?;
        (port < self.ports && onu < 1 << self.port_shift)
            .then(|| self.base | (port << self.port_shift) | onu)
    }

    /// Port name and ONU number of an index, or `None` when it is not one.
    pub fn place(&self, index: u32) -> Option<(String, u32)> {
        if index & self.base != self.base {
            return None;
        }
        let rest = index & !self.base;
        let port = rest >> self.port_shift;
        let onu = rest & ((1 << self.port_shift) - 1);
        (port < self.ports && (port << self.port_shift) & self.base == 0)
            .then(|| (format!("{}{}", self.prefix, port + self.first_port), onu))
    }
}

/// Which IF-MIB column names interfaces (PON ports and, for
/// [`OnuIndexing::OnuIfIndex`], ONU interfaces). The poller walks it with ifType.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InterfaceNames {
    /// ifName (`GPON 0/1/0`, `gpon_1/1/1`; ZTE leaves ifDescr empty).
    IfName,
    /// ifDescr (`EPON0/1`, `EPON0/1:3`).
    IfDescr,
}

impl InterfaceNames {
    pub fn oid(self) -> &'static [u32] {
        match self {
            InterfaceNames::IfName => std_oids::IF_NAME,
            InterfaceNames::IfDescr => std_oids::IF_DESCR,
        }
    }
}

/// Where an offline ONU's last down cause is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DownCauseSource {
    /// Its own column ([`OnuField::DownCause`]), mapped by `down_causes` (Huawei).
    Column,
    /// The status value itself, mapped by `down_causes` (ZTE phase state 1 = LOS,
    /// BDCOM status 4 = lost).
    Status,
}

/// A vendor's driver profile.
#[derive(Debug)]
pub struct Profile {
    pub vendor: Vendor,
    /// The device family whose table layout this is (`C600 / C620`): a vendor has one
    /// profile per layout, and detection picks among them.
    pub family: &'static str,
    /// The layout's short, stable name (`GP3600`): what the API shows as an OLT's
    /// `family` and filters on. Unlike [`Profile::family`], which is written for people,
    /// it never changes once published.
    pub layout: &'static str,
    pub sys_object_id: &'static [u32],
    pub sys_descr: &'static str,
    /// The IF-MIB column holding interface names.
    pub interface_names: InterfaceNames,
    /// ifType of a PON port, where confirmed (250 GPON); `None` accepts any ifType and
    /// relies on the name alone.
    pub port_if_type: Option<u32>,
    /// The name of a PON port is this prefix followed by the port (`0/1/0`, `1/1/1`,
    /// `0/1`: digits and slashes only).
    pub port_name_prefix: &'static str,
    /// How a PON port's ifIndex spells its name, where it does (Huawei): the poller
    /// names a port IF-MIB does not list from the ONU rows' index instead of dropping
    /// them.
    pub port_if_index: Option<IfIndexLayout>,
    pub onu_indexing: OnuIndexing,
    pub onu_columns: &'static [OnuColumn],
    /// Status values that mean the ONU is online.
    pub online_status: &'static [i64],
    pub down_cause_source: DownCauseSource,
    /// Down-cause values and what they mean; any other value is `UNKNOWN`.
    pub down_causes: &'static [(i64, DownCause)],
    /// How the vendor's command line is driven over SSH.
    pub cli: &'static CliProfile,
    /// How often optics may be read and how fast requests may be sent
    /// ([`polling::PollingDefaults`]).
    pub polling: polling::PollingDefaults,
    /// The per-ONU traffic counters, where the layout has them; `None` answers `null`.
    pub traffic: Option<TrafficColumns>,
}

impl Profile {
    /// Every layout ponkeeper reads, each vendor's default first.
    pub const ALL: [&'static Profile; 10] = [
        &HUAWEI,
        &ZTE,
        &BDCOM,
        &ZTE_C600,
        &BDCOM_GPON,
        &ELTEX,
        &VSOL_EPON,
        &VSOL_GPON,
        &CDATA,
        &SNR,
    ];

    /// The default profile of a vendor (the layout an OLT that does not say otherwise
    /// in its system group is read with): every [`Vendor`] has one.
    pub fn for_vendor(vendor: Vendor) -> &'static Profile {
        match vendor {
            Vendor::Huawei => &HUAWEI,
            Vendor::Zte => &ZTE,
            Vendor::Bdcom => &BDCOM,
            Vendor::Eltex => &ELTEX,
            Vendor::Vsol => &VSOL_EPON,
            Vendor::Cdata => &CDATA,
            Vendor::Snr => &SNR,
        }
    }

    /// The profile of `vendor` whose [`Profile::family`] is `family`, else the vendor's
    /// default (a family no longer known, or none recorded yet).
    pub fn for_family(vendor: Vendor, family: Option<&str>) -> &'static Profile {
        Profile::detected(vendor, family).unwrap_or_else(|| Profile::for_vendor(vendor))
    }

    /// The profile of `vendor` whose [`Profile::family`] is `family` exactly, or `None`:
    /// the layout a poll detected, without [`Profile::for_family`]'s fallback to the
    /// vendor's default (the API shows no layout it did not see).
    pub fn detected(vendor: Vendor, family: Option<&str>) -> Option<&'static Profile> {
        let family = family?;
        Profile::ALL
            .into_iter()
            .find(|profile| profile.vendor == vendor && profile.family == family)
    }

    /// The profile of a device that answered `sys_object_id` and `sys_descr`: for a
    /// configured vendor, the layout of that vendor the detection table picks, else the
    /// vendor's default; for `vendor = "auto"` (`None`), whatever the table picks, or
    /// `None` when nothing matches.
    pub fn for_device(
        vendor: Option<Vendor>,
        sys_object_id: Option<&[u32]>,
        sys_descr: Option<&str>,
    ) -> Option<&'static Profile> {
        let detected = detection::detect(sys_object_id, sys_descr);
        match vendor {
            Some(vendor) => Some(
                detected
                    .filter(|profile| profile.vendor == vendor)
                    .unwrap_or_else(|| Profile::for_vendor(vendor)),
            ),
            None => detected,
        }
    }

    /// Whether the layout is EPON: its ONUs are known by their MAC.
    pub fn is_epon(&self) -> bool {
        self.column(OnuField::Serial).is_some_and(|column| {
            matches!(column.encoding, Encoding::MacAddress | Encoding::MacText)
        })
    }

    pub fn column(&self, field: OnuField) -> Option<&OnuColumn> {
        self.onu_columns.iter().find(|c| c.field == field)
    }

    pub fn status(&self, raw: i64) -> OnuStatus {
        if self.online_status.contains(&raw) {
            OnuStatus::Online
        } else {
            OnuStatus::Offline
        }
    }

    pub fn down_cause(&self, raw: i64) -> DownCause {
        self.down_causes
            .iter()
            .find(|(value, _)| *value == raw)
            .map(|(_, cause)| *cause)
            .unwrap_or(DownCause::Unknown)
    }

    /// Why an offline ONU went down, from its raw status and down-cause values (either
    /// may be missing), read where [`Profile::down_cause_source`] says.
    pub fn last_down_cause(&self, status: Option<i64>, cause: Option<i64>) -> DownCause {
        let raw = match self.down_cause_source {
            DownCauseSource::Column => cause,
            DownCauseSource::Status => status,
        };
        raw.map_or(DownCause::Unknown, |raw| self.down_cause(raw))
    }

    /// A raw value the device reports for a down cause (the first listed for it), or
    /// `None` when the vendor cannot express it (the simulator's side).
    pub fn down_cause_value(&self, cause: DownCause) -> Option<i64> {
        self.down_causes
            .iter()
            .find(|(_, c)| *c == cause)
            .map(|(value, _)| *value)
    }

    /// The port name (`0/1/0`) from an interface name (`GPON 0/1/0`), if it names a PON
    /// port: the prefix followed by digits and slashes only (`EPON0/1:3` is an ONU).
    /// What follows the port may be a description after a space (V-SOL's
    /// `GPON0/1 Clients`); a profile without a prefix names no port in IF-MIB.
    pub fn port_from_if_name<'a>(&self, if_name: &'a str) -> Option<&'a str> {
        if self.port_name_prefix.is_empty() {
            return None;
        }
        let rest = if_name.strip_prefix(self.port_name_prefix)?;
        let port = rest.split_once(' ').map_or(rest, |(port, _)| port);
        is_port_name(port).then_some(port)
    }

    /// Port and ONU number from an ONU interface's name (`EPON0/1:3` → `0/1`, 3), for
    /// profiles whose IF-MIB lists ONU interfaces
    /// ([`OnuIndexing::onu_interface_separator`]).
    pub fn onu_from_if_name<'a>(&self, if_name: &'a str) -> Option<(&'a str, u32)> {
        let separator = self.onu_indexing.onu_interface_separator()?;
        let (port, number) = if_name
            .strip_prefix(self.port_name_prefix)?
            .split_once(separator)?;
        is_port_name(port).then_some(())?;
        Some((port, number.parse().ok()?))
    }
}

fn is_port_name(port: &str) -> bool {
    port.starts_with(|c: char| c.is_ascii_digit())
        && port.bytes().all(|b| b.is_ascii_digit() || b == b'/')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_round_trips() {
        let bytes = [0x48, 0x57, 0x54, 0x43, 0x22, 0x65, 0xB1, 0xF5];
        assert_eq!(format_gpon_serial(&bytes), "HWTC2265B1F5");
        assert_eq!(parse_gpon_serial("HWTC2265B1F5"), Some(bytes));
        assert_eq!(parse_gpon_serial("HWTC2265B1F"), None);
    }

    #[test]
    fn a_row_index_is_the_instance_less_the_suffix_it_ends_with() {
        let plain = OnuColumn::new(OnuField::Status, &[1, 2], Encoding::Enum, &[]);
        let with_one = OnuColumn {
            suffix: &[1],
            ..plain
        };
        let instance: &[u32] = &[268501248, 7, 1];
        assert_eq!(plain.row_index(instance), Some(instance));
        assert_eq!(with_one.row_index(instance), Some(&instance[..2]));
        assert_eq!(with_one.row_index(&[268501248, 7, 2]), None);
        assert_eq!(with_one.row_index(&[]), None);
        assert_eq!(plain.row_index(&[]), Some(&[][..]));
        for (instance, suffix) in [
            (&[5, 1, 2][..], &[1, 2][..]),
            (&[5, 2, 1], &[1, 2]),
            (&[2], &[1, 2]),
        ] {
            let column = OnuColumn { suffix, ..plain };
            assert_eq!(column.row_index(instance), instance.strip_suffix(suffix));
        }
    }

    proptest::proptest! {
        /// The hand-written hex is what `format!` writes.
        #[test]
        fn serials_and_macs_are_formatted_as_format_writes_them(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..10),
        ) {
            let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02X}")).collect::<String>();
            let serial = match bytes.len() == 8 && bytes[..4].iter().all(u8::is_ascii_alphanumeric) {
                true => format!("{}{}", String::from_utf8_lossy(&bytes[..4]), hex(&bytes[4..])),
                false => hex(&bytes),
            };
            proptest::prop_assert_eq!(format_gpon_serial(&bytes), serial);
            let pairs: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
            proptest::prop_assert_eq!(format_mac(&bytes), pairs.join(":"));
        }
    }

    #[test]
    fn every_layout_has_its_own_short_name() {
        let names: Vec<&str> = Profile::ALL.iter().map(|p| p.layout).collect();
        assert_eq!(
            names,
            [
                "MA5800", "C320", "P3310", "C620", "GP3600", "LTP-8X", "V1600D", "V1600G",
                "FD16XX", "SNR-GPON"
            ]
        );
        for profile in Profile::ALL {
            let name = profile.layout;
            assert!(
                name.len() <= 16
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'-'),
                "{name}: upper-case letters, digits and dashes only"
            );
            let found = Profile::detected(profile.vendor, Some(profile.family));
            assert_eq!(found.map(|p| p.layout), Some(name));
        }
        assert!(Profile::detected(Vendor::Zte, Some(HUAWEI.family)).is_none());
        assert!(Profile::detected(Vendor::Zte, None).is_none());
    }

    #[test]
    fn every_vendor_has_a_profile_with_the_fields_the_api_needs() {
        for vendor in Vendor::ALL {
            let profile = Profile::for_vendor(vendor);
            assert_eq!(profile.vendor, vendor);
            for field in [OnuField::Serial, OnuField::Status, OnuField::Description] {
                assert!(profile.column(field).is_some(), "{vendor} {field:?}");
            }
        }
    }
}
