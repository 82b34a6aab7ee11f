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
pub mod commands;
pub mod detection;
mod huawei;
mod if_index;
pub mod polling;
pub mod provisioning;
mod zte;

use crate::domain::{DownCause, OnuStatus, Vendor};
pub use bdcom::{BDCOM, BDCOM_GPON};
use commands::CliProfile;
pub use huawei::{huawei_gpon_if_index, HUAWEI, HUAWEI_GPON};
pub use if_index::IfIndexLayout;
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
    /// OCTET STRING shown as text.
    Text,
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
    pub const ALL: [&'static Profile; 5] = [&HUAWEI, &ZTE, &BDCOM, &ZTE_C600, &BDCOM_GPON];

    /// The default profile of a vendor (the layout an OLT that does not say otherwise
    /// in its system group is read with): every [`Vendor`] has one.
    pub fn for_vendor(vendor: Vendor) -> &'static Profile {
        match vendor {
            Vendor::Huawei => &HUAWEI,
            Vendor::Zte => &ZTE,
            Vendor::Bdcom => &BDCOM,
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
    pub fn port_from_if_name<'a>(&self, if_name: &'a str) -> Option<&'a str> {
        if_name
            .strip_prefix(self.port_name_prefix)
            .filter(|port| is_port_name(port))
    }

    /// Port and ONU number from an ONU interface's name (`EPON0/1:3` → `0/1`, 3), for
    /// [`OnuIndexing::OnuIfIndex`] profiles.
    pub fn onu_from_if_name<'a>(&self, if_name: &'a str) -> Option<(&'a str, u32)> {
        let OnuIndexing::OnuIfIndex { separator } = self.onu_indexing else {
            return None;
        };
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

/// Largest optical power, in either sign, a decoded reading may have: PON optics live
/// between about −40 and +10 dBm, so anything past this is a device's garbage. The same
/// bound holds the transceiver readings (°C, V, mA) to what an ONU can report.
pub const PLAUSIBLE_DBM: f64 = 100.0;

impl OnuColumn {
    /// Decodes a raw integer to the API's dBm (or, for [`Encoding::Scaled`], °C, V or
    /// mA), `None` when absent, or when so far out of range (beyond ±[`PLAUSIBLE_DBM`])
    /// that it cannot be a reading.
    pub fn decode_dbm(&self, raw: i64) -> Option<f64> {
        if self.absent.contains(&raw) {
            return None;
        }
        let (raw, offset, divisor) = match self.encoding {
            Encoding::ScaledDbm { offset, divisor } => (raw, offset, divisor),
            Encoding::Scaled { divisor } => (raw, 0, divisor),
            Encoding::WrappingDbm {
                offset,
                divisor,
                wrap_above,
                modulus,
            } => {
                let raw = if raw > wrap_above {
                    raw.checked_sub(modulus)?
                } else {
                    raw
                };
                (raw, offset, divisor)
            }
            _ => return None,
        };
        let dbm = raw.checked_sub(offset)? as f64 / divisor;
        (dbm.abs() <= PLAUSIBLE_DBM).then(|| crate::domain::round_dbm(dbm))
    }

    /// Encodes a dBm reading as the device would report it (the simulator's side).
    pub fn encode_dbm(&self, dbm: Option<f64>) -> i64 {
        match (self.encoding, dbm) {
            (Encoding::ScaledDbm { offset, divisor }, Some(value)) => {
                (value * divisor).round() as i64 + offset
            }
            (Encoding::Scaled { divisor }, Some(value)) => (value * divisor).round() as i64,
            (
                Encoding::WrappingDbm {
                    offset,
                    divisor,
                    modulus,
                    ..
                },
                Some(value),
            ) => {
                let raw = (value * divisor).round() as i64 + offset;
                if raw < 0 {
                    raw + modulus
                } else {
                    raw
                }
            }
            _ => self.absent.first().copied().unwrap_or(0),
        }
    }

    /// Decodes an integer that is absent when it matches a sentinel.
    pub fn decode_integer(&self, raw: i64) -> Option<i64> {
        (!self.absent.contains(&raw)).then_some(raw)
    }

    /// Decodes a distance to whole metres ([`Encoding::Metres`] or
    /// [`Encoding::Decimetres`]), `None` when absent or negative.
    pub fn decode_metres(&self, raw: i64) -> Option<u32> {
        let raw = self.decode_integer(raw)?;
        let metres = match self.encoding {
            Encoding::Decimetres => raw.checked_add(5)?.div_euclid(10),
            _ => raw,
        };
        u32::try_from(metres).ok()
    }

    /// Encodes a distance in metres as the device reports it (the simulator's side).
    pub fn encode_metres(&self, metres: u32) -> i64 {
        match self.encoding {
            Encoding::Decimetres => i64::from(metres) * 10,
            _ => i64::from(metres),
        }
    }

    /// Shows an OCTET STRING value as the API does (serial, MAC or text).
    pub fn decode_octets(&self, bytes: &[u8]) -> String {
        match self.encoding {
            Encoding::GponSerial => format_gpon_serial(bytes),
            Encoding::GponSerialText => format_gpon_serial_text(bytes),
            Encoding::MacAddress => format_mac(bytes),
            _ => String::from_utf8_lossy(bytes)
                .trim_end_matches('\0')
                .to_string(),
        }
    }

    /// How many bytes a serial of this column has (8 GPON, 6 MAC, 13 `VEND:XXXXXXXX`),
    /// for the simulator.
    pub fn serial_len(&self) -> usize {
        match self.encoding {
            Encoding::MacAddress => 6,
            Encoding::GponSerialText => 13,
            _ => 8,
        }
    }
}

/// Formats an 8-byte GPON serial: `HWTC` + `1A2B3C4D`. Other lengths are shown as hex.
pub fn format_gpon_serial(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(12);
    if bytes.len() == 8 && bytes[..4].iter().all(|b| b.is_ascii_alphanumeric()) {
        for &b in &bytes[..4] {
            out.push(b as char);
        }
        for b in &bytes[4..] {
            let _ = write!(out, "{b:02X}");
        }
    } else {
        for b in bytes {
            let _ = write!(out, "{b:02X}");
        }
    }
    out
}

/// Formats a GPON serial sent as text, `VEND:XXXXXXXX`, as [`format_gpon_serial`] does
/// the 8 bytes (`HWTC:1a2b3c4d` → `HWTC1A2B3C4D`); any other text is shown as sent.
pub fn format_gpon_serial_text(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end_matches('\0');
    match text.split_once(':') {
        Some((vendor, number))
            if vendor.len() == 4
                && vendor.bytes().all(|b| b.is_ascii_alphanumeric())
                && number.len() == 8
                && number.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            format!("{vendor}{}", number.to_ascii_uppercase())
        }
        _ => text.to_string(),
    }
}

/// Formats a MAC address as lower-case hex pairs joined by colons (`a0:b1:c2:d3:e4:f5`).
pub fn format_mac(bytes: &[u8]) -> String {
    let pairs: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
    pairs.join(":")
}

/// Parses `HWTC1A2B3C4D` back to its 8 bytes (the simulator's side, and inventory checks).
pub fn parse_gpon_serial(serial: &str) -> Option<[u8; 8]> {
    let bytes = serial.as_bytes();
    if bytes.len() != 12 || !bytes[..4].iter().all(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    let mut out = [0u8; 8];
    out[..4].copy_from_slice(&bytes[..4]);
    for i in 0..4 {
        let hex = std::str::from_utf8(&bytes[4 + 2 * i..6 + 2 * i]).ok()?;
        out[4 + i] = u8::from_str_radix(hex, 16).ok()?;
    }
    Some(out)
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
    fn every_layout_has_its_own_short_name() {
        let names: Vec<&str> = Profile::ALL.iter().map(|p| p.layout).collect();
        assert_eq!(names, ["MA5800", "C320", "P3310", "C620", "GP3600"]);
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
