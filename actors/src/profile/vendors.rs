//! The three vendors' first driver profiles as data: Huawei MA5600T / MA5800
//! (HUAWEI-XPON-MIB), ZTE C300 / C320 (ZXGPON) and BDCOM P3310 / P3600 (NMS-EPON) — their
//! OIDs, scales, sentinels and status / down-cause values, and Huawei's ifIndex layout.
//! The ZTE C600 and BDCOM GPON layouts are in `later_families.rs`. The types they
//! fill are in [`crate::profile`], which re-exports these tables; the poller and the
//! simulator reach them through [`Profile::for_vendor`] and `profile::HUAWEI` etc.

use super::commands;
pub use super::later_families::{BDCOM_GPON, ZTE_C600};
use super::{
    DownCauseSource, Encoding, InterfaceNames, OnuColumn, OnuField, OnuIndexing, PonIdLayout,
    Profile,
};
use crate::domain::{DownCause, Vendor};

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
    cli: &commands::HUAWEI,
};

/// ZTE ONU optics: `raw*0.002 - 30` dBm, above 30000 `(raw - 65535)*0.002 - 30`.
pub(super) const ZTE_ONU_DBM: Encoding = Encoding::WrappingDbm {
    offset: 15_000,
    divisor: 500.0,
    wrap_above: 30_000,
    modulus: 65_535,
};

/// ZTE C300 / C320 GPON (ZXGPON 1012 MIB).
pub static ZTE: Profile = Profile {
    vendor: Vendor::Zte,
    family: "C300 / C320",
    sys_object_id: &[1, 3, 6, 1, 4, 1, 3902, 1082, 1001, 320, 2, 1],
    sys_descr: "C320 Version V2.1.0 Software, Copyright (c) by ZTE Corporation Compiled",
    interface_names: InterfaceNames::IfName,
    port_if_type: Some(250),
    port_name_prefix: "gpon_",
    port_if_index: None,
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
        // Unconfirmed in docs/devices.md; indexed `<ponId>.<onuId>` without the optics suffix, as
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

/// Unconfirmed: docs/devices.md names no BDCOM sentinel: the common "no value" integers, so that
/// none can ever show up as 214748364.7 or 6553.5 dBm.
pub(super) const BDCOM_ABSENT: &[i64] = &[2_147_483_647, 65_535];

/// BDCOM P3310 / P3600 EPON (NMS-EPON MIB).
pub static BDCOM: Profile = Profile {
    vendor: Vendor::Bdcom,
    family: "P3310 / P3600 (EPON)",
    // Unconfirmed: docs/devices.md gives the prefix 1.3.6.1.4.1.3320.1 only.
    sys_object_id: &[1, 3, 6, 1, 4, 1, 3320, 1, 164, 0],
    sys_descr: "BDCOM(tm) P3310 Software, Version 10.1.0E Build 41588",
    interface_names: InterfaceNames::IfDescr,
    port_if_type: None,
    port_name_prefix: "EPON",
    port_if_index: None,
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
        // NMS-EPON-ONU opModuleTemp / opModuleVolt / opModuleCurrent: 1/256 °C, 100 µV
        // and 2 µA units.
        OnuColumn {
            field: OnuField::Temperature,
            oid: &[1, 3, 6, 1, 4, 1, 3320, 101, 10, 5, 1, 2],
            suffix: &[],
            encoding: Encoding::Scaled { divisor: 256.0 },
            absent: BDCOM_ABSENT,
        },
        OnuColumn {
            field: OnuField::Voltage,
            oid: &[1, 3, 6, 1, 4, 1, 3320, 101, 10, 5, 1, 3],
            suffix: &[],
            encoding: Encoding::Scaled { divisor: 10_000.0 },
            absent: BDCOM_ABSENT,
        },
        OnuColumn {
            field: OnuField::BiasCurrent,
            oid: &[1, 3, 6, 1, 4, 1, 3320, 101, 10, 5, 1, 4],
            suffix: &[],
            encoding: Encoding::Scaled { divisor: 500.0 },
            absent: BDCOM_ABSENT,
        },
    ],
    // 0 authenticated, 1 registered, 3 auto_config.
    online_status: &[0, 1, 3],
    down_cause_source: DownCauseSource::Status,
    // 4 lost; 2 deregistered and 5 standby are UNKNOWN.
    down_causes: &[(4, DownCause::Los)],
    cli: &commands::BDCOM,
};

/// Huawei's ifIndex of a GPON port `frame/slot/port`.
pub fn huawei_gpon_if_index(frame: u32, slot: u32, port: u32) -> u32 {
    (125u32 << 25) | (frame << 19) | (slot << 13) | (port << 8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::OnuStatus;

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
    fn transceiver_readings_follow_each_mib() {
        let reading = |profile: &Profile, field: OnuField, raw: i64| {
            profile.column(field).expect("column").decode_dbm(raw)
        };
        // Huawei: °C, mA, mV as a real MA5800 answers them.
        assert_eq!(reading(&HUAWEI, OnuField::Temperature, 41), Some(41.0));
        assert_eq!(reading(&HUAWEI, OnuField::BiasCurrent, 19), Some(19.0));
        assert_eq!(reading(&HUAWEI, OnuField::Voltage, 3220), Some(3.22));
        assert_eq!(reading(&HUAWEI, OnuField::Voltage, 2_147_483_647), None);
        // BDCOM: 1/256 °C, 100 µV, 2 µA.
        assert_eq!(reading(&BDCOM, OnuField::Temperature, 10_624), Some(41.5));
        assert_eq!(reading(&BDCOM, OnuField::Voltage, 32_800), Some(3.28));
        assert_eq!(reading(&BDCOM, OnuField::BiasCurrent, 7_500), Some(15.0));
        assert_eq!(reading(&BDCOM, OnuField::Temperature, 65_535), None);
        // ZTE's C300/C320 tables ponkeeper reads carry none of the three.
        for field in [
            OnuField::Temperature,
            OnuField::Voltage,
            OnuField::BiasCurrent,
        ] {
            assert!(ZTE.column(field).is_none(), "{field:?}");
        }
        let volt = HUAWEI.column(OnuField::Voltage).expect("column");
        assert_eq!(volt.encode_dbm(Some(3.22)), 3220);
        assert_eq!(volt.encode_dbm(None), 2_147_483_647);
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
}
