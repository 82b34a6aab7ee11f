//! Driver profiles: everything vendor-specific about an OLT as data — OIDs, index layout,
//! value scales, absent sentinels and the status / down-cause enumerations. The poller
//! (client side) decodes with these tables and the simulator (agent side) encodes with the
//! very same tables, so the two can never disagree about a vendor. Facts come from
//! `DEVICES.md`; a wrong OID is fixed on one line here.

use crate::domain::{DownCause, OnuStatus, Vendor};

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
}

/// What an ONU table column carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OnuField {
    Serial,
    Description,
    /// The vendor's run/phase status enumeration.
    Status,
    Distance,
    /// The vendor's last-down-cause enumeration (ZTE derives the cause from the status).
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
    /// OCTET STRING shown as text.
    Text,
    /// INTEGER enumeration, used as is.
    Enum,
    /// INTEGER metres.
    Metres,
    /// dBm = (raw - offset) / divisor.
    ScaledDbm { offset: i64, divisor: f64 },
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
    /// Raw values that mean "no reading" and become `null`.
    pub absent: &'static [i64],
}

/// How the row index of the ONU table names the ONU's port and number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnuIndexing {
    /// `<port ifIndex>.<ontId>`; the port name comes from the port's ifName.
    PortIfIndexAndOnuId,
}

/// A vendor's driver profile.
#[derive(Debug)]
pub struct Profile {
    pub vendor: Vendor,
    pub sys_object_id: &'static [u32],
    pub sys_descr: &'static str,
    /// ifType of a PON port (250 GPON, 126 EPON).
    pub port_if_type: u32,
    /// ifName of a PON port is this prefix followed by `frame/slot/port`.
    pub port_name_prefix: &'static str,
    pub onu_indexing: OnuIndexing,
    pub onu_columns: &'static [OnuColumn],
    /// Status values that mean the ONU is online.
    pub online_status: &'static [i64],
    /// Down-cause values and what they mean; any other value is `UNKNOWN`.
    pub down_causes: &'static [(i64, DownCause)],
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
    port_if_type: 250,
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
    down_causes: &[
        (1, DownCause::Los),
        (2, DownCause::Los),
        (3, DownCause::Los),
        (8, DownCause::Deactivated),
        (13, DownCause::DyingGasp),
    ],
};

impl Profile {
    /// The profile of a vendor, or `None` when this build has no driver for it yet.
    pub fn for_vendor(vendor: Vendor) -> Option<&'static Profile> {
        match vendor {
            Vendor::Huawei => Some(&HUAWEI),
            Vendor::Zte | Vendor::Bdcom => None,
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

    /// A raw value the simulator reports for a down cause (the first listed for it).
    pub fn down_cause_value(&self, cause: DownCause) -> i64 {
        self.down_causes
            .iter()
            .find(|(_, c)| *c == cause)
            .map(|(value, _)| *value)
            .unwrap_or(-1)
    }

    /// The port name (`0/1/0`) from an ifName (`GPON 0/1/0`), if it names a PON port.
    pub fn port_from_if_name<'a>(&self, if_name: &'a str) -> Option<&'a str> {
        if_name.strip_prefix(self.port_name_prefix)
    }
}

impl OnuColumn {
    /// Decodes a raw integer to the API's number, `None` when absent.
    pub fn decode_dbm(&self, raw: i64) -> Option<f64> {
        if self.absent.contains(&raw) {
            return None;
        }
        match self.encoding {
            Encoding::ScaledDbm { offset, divisor } => {
                Some(crate::domain::round_dbm((raw - offset) as f64 / divisor))
            }
            _ => None,
        }
    }

    /// Encodes a dBm reading as the device would report it (the simulator's side).
    pub fn encode_dbm(&self, dbm: Option<f64>) -> i64 {
        match (self.encoding, dbm) {
            (Encoding::ScaledDbm { offset, divisor }, Some(value)) => {
                (value * divisor).round() as i64 + offset
            }
            _ => self.absent.first().copied().unwrap_or(0),
        }
    }

    /// Decodes an integer that is absent when it matches a sentinel.
    pub fn decode_integer(&self, raw: i64) -> Option<i64> {
        (!self.absent.contains(&raw)).then_some(raw)
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
    }
}
