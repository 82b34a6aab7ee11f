//! Driver profiles: everything vendor-specific about an OLT as data — OIDs, index layout,
//! value scales, absent sentinels and the status / down-cause enumerations. The poller
//! (client side) decodes with these tables and the simulator (agent side) encodes with the
//! very same tables, so the two can never disagree about a vendor. Facts come from
//! `DEVICES.md`; a wrong OID is fixed on one line here.

pub mod commands;

use crate::domain::{DownCause, OnuStatus, Vendor};
use commands::CliProfile;

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
}

/// How a raw SNMP value maps to the API's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Encoding {
    /// 8-byte GPON serial: 4 ASCII vendor letters + 4 bytes shown as upper-case hex.
    GponSerial,
    /// 6-byte EPON MAC address shown as lower-case `a0:b1:c2:d3:e4:f5`.
    MacAddress,
    /// OCTET STRING shown as text.
    Text,
    /// INTEGER enumeration, used as is.
    Enum,
    /// INTEGER metres.
    Metres,
    /// dBm = (raw - offset) / divisor.
    ScaledDbm { offset: i64, divisor: f64 },
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
    pub onu_indexing: OnuIndexing,
    pub onu_columns: &'static [OnuColumn],
    /// Status values that mean the ONU is online.
    pub online_status: &'static [i64],
    pub down_cause_source: DownCauseSource,
    /// Down-cause values and what they mean; any other value is `UNKNOWN`.
    pub down_causes: &'static [(i64, DownCause)],
    /// How the vendor's command line is driven over SSH.
    pub cli: &'static CliProfile,
}

const HUAWEI_ONT: [u32; 12] = [1, 3, 6, 1, 4, 1, 2011, 6, 128, 1, 1, 2];

const fn huawei(table: u32, column: u32) -> [u32; 15] {
    let mut oid = [0; 15];
    let mut i = 0;
    while i < HUAWEI_ONT.len() {
        oid[i] = HUAWEI_ONT[i];
        i += 1;
    }
    oid[12] = table;
    oid[13] = 1;
    oid[14] = column;
    oid
}

const HUAWEI_ABSENT: &[i64] = &[2_147_483_647];

/// Huawei MA5600T / MA5800 GPON (HUAWEI-XPON-MIB).
pub static HUAWEI: Profile = Profile {
    vendor: Vendor::Huawei,
    sys_object_id: &[1, 3, 6, 1, 4, 1, 2011, 2, 248],
    sys_descr: "Huawei Integrated Access Software",
    interface_names: InterfaceNames::IfName,
    port_if_type: Some(250),
    port_name_prefix: "GPON ",
    onu_indexing: OnuIndexing::PortIfIndexAndOnuId,
    onu_columns: &[
        OnuColumn {
            field: OnuField::Serial,
            oid: &huawei(43, 3),
            suffix: &[],
            encoding: Encoding::GponSerial,
            absent: &[],
        },
        OnuColumn {
            field: OnuField::Description,
            oid: &huawei(43, 9),
            suffix: &[],
            encoding: Encoding::Text,
            absent: &[],
        },
        OnuColumn {
            field: OnuField::Status,
            oid: &huawei(46, 15),
            suffix: &[],
            encoding: Encoding::Enum,
            absent: &[],
        },
        OnuColumn {
            field: OnuField::Distance,
            oid: &huawei(46, 20),
            suffix: &[],
            encoding: Encoding::Metres,
            absent: &[-1, 2_147_483_647],
        },
        OnuColumn {
            field: OnuField::DownCause,
            oid: &huawei(46, 24),
            suffix: &[],
            encoding: Encoding::Enum,
            absent: &[-1],
        },
        OnuColumn {
            field: OnuField::TxPower,
            oid: &huawei(51, 3),
            suffix: &[],
            encoding: Encoding::ScaledDbm {
                offset: 0,
                divisor: 100.0,
            },
            absent: HUAWEI_ABSENT,
        },
        OnuColumn {
            field: OnuField::RxPower,
            oid: &huawei(51, 4),
            suffix: &[],
            encoding: Encoding::ScaledDbm {
                offset: 0,
                divisor: 100.0,
            },
            absent: HUAWEI_ABSENT,
        },
        OnuColumn {
            field: OnuField::OltRxPower,
            oid: &huawei(51, 6),
            suffix: &[],
            encoding: Encoding::ScaledDbm {
                offset: 10_000,
                divisor: 100.0,
            },
            absent: HUAWEI_ABSENT,
        },
    ],
    online_status: &[1],
    down_cause_source: DownCauseSource::Column,
    down_causes: &[
        (1, DownCause::Los),
        (2, DownCause::Los),
        (3, DownCause::Los),
        (8, DownCause::Deactivated),
        (13, DownCause::DyingGasp),
    ],
    cli: &commands::HUAWEI,
};

/// ZTE ONU optics: `raw*0.002 - 30` dBm, above 30000 `(raw - 65535)*0.002 - 30`.
const ZTE_ONU_DBM: Encoding = Encoding::WrappingDbm {
    offset: 15_000,
    divisor: 500.0,
    wrap_above: 30_000,
    modulus: 65_535,
};

/// ZTE C300 / C320 GPON (ZXGPON 1012 MIB).
pub static ZTE: Profile = Profile {
    vendor: Vendor::Zte,
    sys_object_id: &[1, 3, 6, 1, 4, 1, 3902, 1082, 1001, 320, 2, 1],
    sys_descr: "C320 Version V2.1.0 Software, Copyright (c) by ZTE Corporation Compiled",
    interface_names: InterfaceNames::IfName,
    port_if_type: Some(250),
    port_name_prefix: "gpon_",
    onu_indexing: OnuIndexing::PonIdAndOnuId(PonIdLayout {
        base: 0x1000_0000,
        frame: 1,
        slot_step: 65_536,
        port_step: 256,
    }),
    onu_columns: &[
        OnuColumn {
            field: OnuField::Serial,
            oid: &[1, 3, 6, 1, 4, 1, 3902, 1012, 3, 28, 1, 1, 5],
            suffix: &[],
            encoding: Encoding::GponSerial,
            absent: &[],
        },
        OnuColumn {
            field: OnuField::Description,
            oid: &[1, 3, 6, 1, 4, 1, 3902, 1012, 3, 28, 1, 1, 3],
            suffix: &[],
            encoding: Encoding::Text,
            absent: &[],
        },
        OnuColumn {
            field: OnuField::Status,
            oid: &[1, 3, 6, 1, 4, 1, 3902, 1012, 3, 28, 2, 1, 4],
            suffix: &[],
            encoding: Encoding::Enum,
            absent: &[],
        },
        OnuColumn {
            field: OnuField::Distance,
            oid: &[1, 3, 6, 1, 4, 1, 3902, 1012, 3, 11, 4, 1, 2],
            suffix: &[],
            encoding: Encoding::Metres,
            absent: &[],
        },
        OnuColumn {
            field: OnuField::RxPower,
            oid: &[1, 3, 6, 1, 4, 1, 3902, 1012, 3, 50, 12, 1, 1, 10],
            suffix: &[1],
            encoding: ZTE_ONU_DBM,
            absent: &[65_535],
        },
        OnuColumn {
            field: OnuField::TxPower,
            oid: &[1, 3, 6, 1, 4, 1, 3902, 1012, 3, 50, 12, 1, 1, 14],
            suffix: &[1],
            encoding: ZTE_ONU_DBM,
            absent: &[65_535],
        },
        // (?) in DEVICES.md; indexed `<ponId>.<onuId>` without the optics suffix, as
        // public C300/C320 pollers read it.
        OnuColumn {
            field: OnuField::OltRxPower,
            oid: &[1, 3, 6, 1, 4, 1, 3902, 1015, 1010, 11, 2, 1, 2],
            suffix: &[],
            encoding: Encoding::ScaledDbm {
                offset: 0,
                divisor: 1000.0,
            },
            absent: &[-80_000, 65_535_000],
        },
    ],
    online_status: &[3],
    down_cause_source: DownCauseSource::Status,
    down_causes: &[(1, DownCause::Los), (4, DownCause::DyingGasp)],
    cli: &commands::ZTE,
};

/// (?) DEVICES.md names no BDCOM sentinel: the common "no value" integers, so that
/// none can ever show up as 214748364.7 or 6553.5 dBm.
const BDCOM_ABSENT: &[i64] = &[2_147_483_647, 65_535];

/// BDCOM P3310 / P3600 EPON (NMS-EPON MIB).
pub static BDCOM: Profile = Profile {
    vendor: Vendor::Bdcom,
    // (?) DEVICES.md gives the prefix 1.3.6.1.4.1.3320.1 only.
    sys_object_id: &[1, 3, 6, 1, 4, 1, 3320, 1, 164, 0],
    sys_descr: "BDCOM(tm) P3310 Software, Version 10.1.0E Build 41588",
    interface_names: InterfaceNames::IfDescr,
    port_if_type: None,
    port_name_prefix: "EPON",
    onu_indexing: OnuIndexing::OnuIfIndex { separator: ':' },
    onu_columns: &[
        OnuColumn {
            field: OnuField::Serial,
            oid: &[1, 3, 6, 1, 4, 1, 3320, 101, 10, 1, 1, 3],
            suffix: &[],
            encoding: Encoding::MacAddress,
            absent: &[],
        },
        OnuColumn {
            field: OnuField::Status,
            oid: &[1, 3, 6, 1, 4, 1, 3320, 101, 10, 1, 1, 26],
            suffix: &[],
            encoding: Encoding::Enum,
            absent: &[],
        },
        OnuColumn {
            field: OnuField::Distance,
            oid: &[1, 3, 6, 1, 4, 1, 3320, 101, 10, 1, 1, 27],
            suffix: &[],
            encoding: Encoding::Metres,
            absent: &[],
        },
        OnuColumn {
            field: OnuField::RxPower,
            oid: &[1, 3, 6, 1, 4, 1, 3320, 101, 10, 5, 1, 5],
            suffix: &[],
            encoding: Encoding::ScaledDbm {
                offset: 0,
                divisor: 10.0,
            },
            absent: BDCOM_ABSENT,
        },
        OnuColumn {
            field: OnuField::TxPower,
            oid: &[1, 3, 6, 1, 4, 1, 3320, 101, 10, 5, 1, 6],
            suffix: &[],
            encoding: Encoding::ScaledDbm {
                offset: 0,
                divisor: 10.0,
            },
            absent: BDCOM_ABSENT,
        },
        OnuColumn {
            field: OnuField::Description,
            oid: &[1, 3, 6, 1, 4, 1, 3320, 101, 11, 1, 1, 4],
            suffix: &[],
            encoding: Encoding::Text,
            absent: &[],
        },
    ],
    // 0 authenticated, 1 registered, 3 auto_config.
    online_status: &[0, 1, 3],
    down_cause_source: DownCauseSource::Status,
    // 4 lost; 2 deregistered and 5 standby are UNKNOWN.
    down_causes: &[(4, DownCause::Los)],
    cli: &commands::BDCOM,
};

impl Profile {
    /// The profile of a vendor: every [`Vendor`] has one.
    pub fn for_vendor(vendor: Vendor) -> &'static Profile {
        match vendor {
            Vendor::Huawei => &HUAWEI,
            Vendor::Zte => &ZTE,
            Vendor::Bdcom => &BDCOM,
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
/// between about −40 and +10 dBm, so anything past this is a device's garbage.
pub const PLAUSIBLE_DBM: f64 = 100.0;

impl OnuColumn {
    /// Decodes a raw integer to the API's dBm, `None` when absent, or when so far out of
    /// range (beyond ±[`PLAUSIBLE_DBM`]) that it cannot be an optical reading.
    pub fn decode_dbm(&self, raw: i64) -> Option<f64> {
        if self.absent.contains(&raw) {
            return None;
        }
        let (raw, offset, divisor) = match self.encoding {
            Encoding::ScaledDbm { offset, divisor } => (raw, offset, divisor),
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

    /// Shows an OCTET STRING value as the API does (serial, MAC or text).
    pub fn decode_octets(&self, bytes: &[u8]) -> String {
        match self.encoding {
            Encoding::GponSerial => format_gpon_serial(bytes),
            Encoding::MacAddress => format_mac(bytes),
            _ => String::from_utf8_lossy(bytes)
                .trim_end_matches('\0')
                .to_string(),
        }
    }

    /// How many bytes a serial of this column has (8 GPON, 6 MAC), for the simulator.
    pub fn serial_len(&self) -> usize {
        match self.encoding {
            Encoding::MacAddress => 6,
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

/// Huawei's ifIndex of a GPON port `frame/slot/port`.
pub fn huawei_gpon_if_index(frame: u32, slot: u32, port: u32) -> u32 {
    (125u32 << 25) | (frame << 19) | (slot << 13) | (port << 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huawei_if_index_matches_devices_md() {
        assert_eq!(huawei_gpon_if_index(0, 0, 0), 4_194_304_000);
        assert_eq!(huawei_gpon_if_index(0, 0, 1), 4_194_304_256);
        assert_eq!(huawei_gpon_if_index(0, 1, 0), 4_194_312_192);
    }

    #[test]
    fn serial_round_trips() {
        let bytes = [0x48, 0x57, 0x54, 0x43, 0x22, 0x65, 0xB1, 0xF5];
        assert_eq!(format_gpon_serial(&bytes), "HWTC2265B1F5");
        assert_eq!(parse_gpon_serial("HWTC2265B1F5"), Some(bytes));
        assert_eq!(parse_gpon_serial("HWTC2265B1F"), None);
    }

    #[test]
    fn huawei_scales_and_sentinels() {
        let rx = HUAWEI.column(OnuField::RxPower).expect("rx column");
        assert_eq!(rx.decode_dbm(-2218), Some(-22.18));
        assert_eq!(rx.decode_dbm(2_147_483_647), None);
        assert_eq!(rx.encode_dbm(Some(-22.18)), -2218);
        let olt_rx = HUAWEI.column(OnuField::OltRxPower).expect("olt rx column");
        assert_eq!(olt_rx.decode_dbm(7315), Some(-26.85));
        assert_eq!(olt_rx.encode_dbm(Some(-26.85)), 7315);
        assert_eq!(HUAWEI.down_cause(13), DownCause::DyingGasp);
        assert_eq!(HUAWEI.down_cause(9), DownCause::Unknown);
        assert_eq!(HUAWEI.last_down_cause(Some(2), Some(1)), DownCause::Los);
        assert_eq!(HUAWEI.port_from_if_name("GPON 0/1/0"), Some("0/1/0"));
    }

    #[test]
    fn zte_optics_follow_devices_md_and_the_fixture() {
        let rx = ZTE.column(OnuField::RxPower).expect("rx column");
        let tx = ZTE.column(OnuField::TxPower).expect("tx column");
        assert_eq!(rx.suffix, &[1]);
        // zte-c320 fixture: 1/1/1:2 rx 1620, tx 15595; 1/1/2:1 rx 5440, tx 15865.
        assert_eq!(rx.decode_dbm(1620), Some(-26.76));
        assert_eq!(tx.decode_dbm(15_595), Some(1.19));
        assert_eq!(rx.decode_dbm(5440), Some(-19.12));
        assert_eq!(tx.decode_dbm(15_865), Some(1.73));
        // raw 0 is -30 dBm; above 30000 the reading wraps: (raw - 65535)*0.002 - 30.
        assert_eq!(rx.decode_dbm(0), Some(-30.0));
        assert_eq!(rx.decode_dbm(30_000), Some(30.0));
        assert_eq!(rx.decode_dbm(60_535), Some(-40.0));
        assert_eq!(rx.decode_dbm(65_534), Some(-30.0));
        assert_eq!(rx.decode_dbm(65_535), None, "absent, not -30 dBm");
        for dbm in [-26.76, 1.19, -40.0, -30.0, 2.5] {
            assert_eq!(rx.decode_dbm(rx.encode_dbm(Some(dbm))), Some(dbm));
        }
        assert_eq!(rx.encode_dbm(None), 65_535);

        let olt_rx = ZTE.column(OnuField::OltRxPower).expect("olt rx column");
        assert_eq!(olt_rx.decode_dbm(-21_456), Some(-21.46));
        assert_eq!(olt_rx.decode_dbm(-80_000), None, "no signal");
        assert_eq!(olt_rx.decode_dbm(65_535_000), None, "absent");
        assert_eq!(olt_rx.encode_dbm(Some(-21.45)), -21_450);
    }

    #[test]
    fn zte_status_is_the_phase_and_gives_the_down_cause() {
        assert_eq!(ZTE.status(3), OnuStatus::Online);
        for phase in [0, 1, 2, 4, 5, 6] {
            assert_eq!(ZTE.status(phase), OnuStatus::Offline, "phase {phase}");
        }
        assert_eq!(ZTE.last_down_cause(Some(1), None), DownCause::Los);
        assert_eq!(ZTE.last_down_cause(Some(4), None), DownCause::DyingGasp);
        assert_eq!(ZTE.last_down_cause(Some(6), None), DownCause::Unknown);
        assert_eq!(ZTE.last_down_cause(None, None), DownCause::Unknown);
        assert!(ZTE.column(OnuField::DownCause).is_none());
    }

    #[test]
    fn zte_pon_ids_name_their_ports() {
        let OnuIndexing::PonIdAndOnuId(layout) = ZTE.onu_indexing else {
            panic!("ZTE rows are <ponId>.<onuId>");
        };
        assert_eq!(layout.port_name(268_501_248).as_deref(), Some("1/1/1"));
        assert_eq!(layout.port_name(268_501_504).as_deref(), Some("1/1/2"));
        assert_eq!(layout.port_name(268_566_784).as_deref(), Some("1/2/1"));
        assert_eq!(layout.port_name(268_567_296).as_deref(), Some("1/2/3"));
        assert_eq!(layout.pon_id(1, 1), Some(268_501_248));
        assert_eq!(layout.pon_id(2, 1), Some(268_566_784));
        assert_eq!(layout.port_name(268_501_249), None, "not a port id");
        assert_eq!(layout.port_name(5), None, "below the base");
        assert_eq!(ZTE.port_from_if_name("gpon_1/2/3"), Some("1/2/3"));
        assert_eq!(ZTE.port_from_if_name("gpon-onu_1/2/3:1"), None);
    }

    #[test]
    fn bdcom_reads_macs_tenths_and_onu_interfaces() {
        let mac = BDCOM.column(OnuField::Serial).expect("mac column");
        let bytes = [0xA0, 0xB1, 0xC2, 0xD3, 0xE4, 0xF5];
        assert_eq!(mac.decode_octets(&bytes), "a0:b1:c2:d3:e4:f5");
        assert_eq!(mac.serial_len(), 6);
        let rx = BDCOM.column(OnuField::RxPower).expect("rx column");
        assert_eq!(rx.decode_dbm(-215), Some(-21.5));
        assert_eq!(rx.decode_dbm(23), Some(2.3));
        assert_eq!(rx.decode_dbm(2_147_483_647), None);
        assert_eq!(rx.decode_dbm(65_535), None);
        assert_eq!(rx.encode_dbm(Some(-21.5)), -215);

        for online in [0, 1, 3] {
            assert_eq!(BDCOM.status(online), OnuStatus::Online);
        }
        for offline in [2, 4, 5] {
            assert_eq!(BDCOM.status(offline), OnuStatus::Offline);
        }
        assert_eq!(BDCOM.last_down_cause(Some(4), None), DownCause::Los);
        assert_eq!(BDCOM.last_down_cause(Some(2), None), DownCause::Unknown);
        assert_eq!(BDCOM.down_cause_value(DownCause::DyingGasp), None);

        assert_eq!(BDCOM.port_from_if_name("EPON0/1"), Some("0/1"));
        assert_eq!(BDCOM.port_from_if_name("EPON0/1:3"), None);
        assert_eq!(BDCOM.port_from_if_name("GigaEthernet0/1"), None);
        assert_eq!(BDCOM.onu_from_if_name("EPON0/1:3"), Some(("0/1", 3)));
        assert_eq!(BDCOM.onu_from_if_name("EPON0/1"), None);
        assert_eq!(BDCOM.onu_from_if_name("EPON0/1:x"), None);
        assert_eq!(HUAWEI.onu_from_if_name("GPON 0/1/0:1"), None);
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
