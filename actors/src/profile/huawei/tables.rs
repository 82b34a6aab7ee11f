//! Huawei MA5600T / MA5800's SNMP tables: the ONT table's columns under
//! `1.3.6.1.4.1.2011.6.128.1.1.2`, their scales and sentinels, the run state and
//! last-down-cause values, and the GPON port ifIndex layout. The poller decodes with
//! them and the simulator encodes with them.

use super::cli::HUAWEI_CLI;
use crate::domain::{DownCause, Vendor};
use crate::profile::{
    polling, DownCauseSource, Encoding, IfIndexLayout, InterfaceNames, OnuColumn, OnuField,
    OnuIndexing, Profile, TrafficColumns,
};

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
    family: "MA5600T / MA5800",
    layout: "MA5800",
    sys_object_id: &[1, 3, 6, 1, 4, 1, 2011, 2, 248],
    sys_descr: "Huawei Integrated Access Software",
    interface_names: InterfaceNames::IfName,
    port_if_type: Some(250),
    port_name_prefix: "GPON ",
    port_if_index: Some(super::HUAWEI_GPON),
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
        // hwGponOntOpticalDdm*: °C, mA and mV (a real MA5800 answers 41, 19, 3220).
        OnuColumn {
            field: OnuField::Temperature,
            oid: &huawei(51, 1),
            suffix: &[],
            encoding: Encoding::Scaled { divisor: 1.0 },
            absent: HUAWEI_ABSENT,
        },
        OnuColumn {
            field: OnuField::BiasCurrent,
            oid: &huawei(51, 2),
            suffix: &[],
            encoding: Encoding::Scaled { divisor: 1.0 },
            absent: HUAWEI_ABSENT,
        },
        OnuColumn {
            field: OnuField::Voltage,
            oid: &huawei(51, 5),
            suffix: &[],
            encoding: Encoding::Scaled { divisor: 1000.0 },
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
        (9, DownCause::Reboot),
        (13, DownCause::DyingGasp),
    ],
    cli: &HUAWEI_CLI,
    polling: polling::COMMON_POLLING,
    // hwGponOntStatisticTable (HUAWEI-XPON-MIB), Counter64, indexed as the ONT table.
    traffic: Some(TrafficColumns {
        in_octets: &[1, 3, 6, 1, 4, 1, 2011, 6, 128, 1, 1, 4, 23, 1, 3],
        out_octets: &[1, 3, 6, 1, 4, 1, 2011, 6, 128, 1, 1, 4, 23, 1, 4],
        bits: 64,
    }),
};

/// Huawei's GPON port: `(125 << 25) | (frame << 19) | (slot << 13) | (port << 8)`.
pub const HUAWEI_GPON: IfIndexLayout = IfIndexLayout {
    kind: 125,
    kind_shift: 25,
    frame_shift: 19,
    slot_shift: 13,
    port_shift: 8,
};

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
    fn huawei_scales_and_sentinels() {
        let rx = HUAWEI.column(OnuField::RxPower).expect("rx column");
        assert_eq!(rx.decode_dbm(-2218), Some(-22.18));
        assert_eq!(rx.decode_dbm(2_147_483_647), None);
        assert_eq!(rx.encode_dbm(Some(-22.18)), -2218);
        let olt_rx = HUAWEI.column(OnuField::OltRxPower).expect("olt rx column");
        assert_eq!(olt_rx.decode_dbm(7315), Some(-26.85));
        assert_eq!(olt_rx.encode_dbm(Some(-26.85)), 7315);
        assert_eq!(HUAWEI.down_cause(13), DownCause::DyingGasp);
        assert_eq!(HUAWEI.down_cause(9), DownCause::Reboot);
        assert_eq!(HUAWEI.down_cause_value(DownCause::Reboot), Some(9));
        assert_eq!(HUAWEI.down_cause(10), DownCause::Unknown);
        assert_eq!(HUAWEI.last_down_cause(Some(2), Some(1)), DownCause::Los);
        assert_eq!(HUAWEI.port_from_if_name("GPON 0/1/0"), Some("0/1/0"));
    }

    #[test]
    fn huawei_transceiver_readings_are_c_ma_and_mv() {
        let reading =
            |field: OnuField, raw: i64| HUAWEI.column(field).expect("column").decode_dbm(raw);
        // Huawei: °C, mA, mV as a real MA5800 answers them.
        assert_eq!(reading(OnuField::Temperature, 41), Some(41.0));
        assert_eq!(reading(OnuField::BiasCurrent, 19), Some(19.0));
        assert_eq!(reading(OnuField::Voltage, 3220), Some(3.22));
        assert_eq!(reading(OnuField::Voltage, 2_147_483_647), None);
        let volt = HUAWEI.column(OnuField::Voltage).expect("column");
        assert_eq!(volt.encode_dbm(Some(3.22)), 3220);
        assert_eq!(volt.encode_dbm(None), 2_147_483_647);
    }

    #[test]
    fn huawei_onu_rows_are_not_interfaces() {
        assert_eq!(HUAWEI.onu_from_if_name("GPON 0/1/0:1"), None);
    }

    #[test]
    fn huawei_gpon_ports_round_trip() {
        assert_eq!(HUAWEI_GPON.if_index(0, 1, 0), Some(4_194_312_192));
        assert_eq!(HUAWEI_GPON.if_index(0, 0, 1), Some(4_194_304_256));
        assert_eq!(
            HUAWEI_GPON.port_name(4_194_312_448).as_deref(),
            Some("0/1/1")
        );
        assert_eq!(
            HUAWEI_GPON.port_name(4_194_320_640).as_deref(),
            Some("0/2/1")
        );
        assert_eq!(
            HUAWEI_GPON.port_name(4_194_304_000).as_deref(),
            Some("0/0/0")
        );
        for frame in 0..2 {
            for slot in 0..22 {
                for port in 0..16 {
                    let index = HUAWEI_GPON.if_index(frame, slot, port).expect("fits");
                    let name = HUAWEI_GPON.port_name(index);
                    assert_eq!(name, Some(format!("{frame}/{slot}/{port}")));
                }
            }
        }
        assert_eq!(HUAWEI_GPON.if_index(0, 0, 32), None, "port has 5 bits");
        assert_eq!(HUAWEI_GPON.port_name(5), None, "not a GPON port");
        assert_eq!(HUAWEI_GPON.port_name(4_194_312_193), None, "low bits set");
        // An EPON port (type 126) is not a GPON one.
        assert_eq!(HUAWEI_GPON.port_name(126 << 25), None);
    }
}
