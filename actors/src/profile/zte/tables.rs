//! ZTE's SNMP tables: the C300 / C320's ONU columns (ZXGPON, rows `<ponId>.<onuId>`)
//! and the C600 / C620's (TITAN, rows `<port ifIndex>.<onuId>`), their scales and
//! sentinels, the phase states and what they say of a down cause, and the C600's port
//! ifIndex layout. The poller decodes with them and the simulator encodes with them.

use super::cli::{ZTE_C600_CLI, ZTE_CLI};
use crate::domain::{DownCause, Vendor};
use crate::profile::{
    polling, DownCauseSource, Encoding, IfIndexLayout, InterfaceNames, OnuColumn, OnuField,
    OnuIndexing, PonIdLayout, Profile, TrafficColumns,
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
    family: "C300 / C320",
    layout: "C320",
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
    cli: &ZTE_CLI,
    polling: polling::ZTE_POLLING,
    // zxAnXpon ONU octets (switcher-core's C300 table); row index and width unconfirmed:
    // read as 32-bit, so a wrap is handled (docs/devices.md).
    traffic: Some(TrafficColumns {
        in_octets: &[1, 3, 6, 1, 4, 1, 3902, 1015, 1010, 5, 56, 1, 1, 2],
        out_octets: &[1, 3, 6, 1, 4, 1, 3902, 1015, 1010, 5, 56, 1, 1, 3],
        bits: 32,
    }),
};

/// `1.3.6.1.4.1.3902.1082.500` + `rest`.
const fn zte_500<const N: usize>(rest: [u32; N]) -> [u32; 12] {
    let head = [1, 3, 6, 1, 4, 1, 3902, 1082, 500];
    let mut oid = [0; 12];
    let mut i = 0;
    while i < 9 {
        oid[i] = head[i];
        i += 1;
    }
    let mut j = 0;
    while j < N && i < 12 {
        oid[i] = rest[j];
        i += 1;
        j += 1;
    }
    oid
}

const ZTE_C600_ONU: [u32; 12] = zte_500([10, 2, 3]);

const fn zte_c600_onu(table: u32, column: u32) -> [u32; 15] {
    let mut oid = [0; 15];
    let mut i = 0;
    while i < 12 {
        oid[i] = ZTE_C600_ONU[i];
        i += 1;
    }
    oid[12] = table;
    oid[13] = 1;
    oid[14] = column;
    oid
}

/// ZTE C600 / C620 / C650 GPON (ZXA10 TITAN): rows `<port ifIndex>.<onuId>`, the port
/// ifIndex spelling `1/slot/port`.
pub static ZTE_C600: Profile = Profile {
    vendor: Vendor::Zte,
    family: "C600 / C620",
    layout: "C620",
    // LibreNMS tests/snmpsim/zxa10_c620.snmprec.
    sys_object_id: &[1, 3, 6, 1, 4, 1, 3902, 1082, 1001, 620, 1, 1],
    sys_descr: "ZXA10 C620, ZTE ZXA10 Software Version: V2.0.30",
    interface_names: InterfaceNames::IfName,
    port_if_type: Some(250),
    port_name_prefix: "gpon_olt-",
    port_if_index: Some(super::ZTE_C600_GPON),
    onu_indexing: OnuIndexing::PortIfIndexAndOnuId,
    onu_columns: &[
        OnuColumn {
            field: OnuField::Serial,
            oid: &zte_c600_onu(3, 6),
            suffix: &[],
            encoding: Encoding::GponSerial,
            absent: &[],
        },
        OnuColumn {
            field: OnuField::Description,
            oid: &zte_c600_onu(3, 3),
            suffix: &[],
            encoding: Encoding::Text,
            absent: &[],
        },
        OnuColumn {
            field: OnuField::Status,
            oid: &zte_c600_onu(8, 4),
            suffix: &[],
            encoding: Encoding::Enum,
            absent: &[],
        },
        OnuColumn {
            field: OnuField::Distance,
            oid: &zte_c600_onu(10, 2),
            suffix: &[],
            encoding: Encoding::Metres,
            absent: &[],
        },
        OnuColumn {
            field: OnuField::RxPower,
            oid: &[1, 3, 6, 1, 4, 1, 3902, 1082, 500, 20, 2, 2, 2, 1, 10],
            suffix: &[1],
            encoding: ZTE_ONU_DBM,
            absent: &[65_535],
        },
        OnuColumn {
            field: OnuField::TxPower,
            oid: &[1, 3, 6, 1, 4, 1, 3902, 1082, 500, 20, 2, 2, 2, 1, 14],
            suffix: &[1],
            encoding: ZTE_ONU_DBM,
            absent: &[65_535],
        },
        OnuColumn {
            field: OnuField::OltRxPower,
            oid: &[1, 3, 6, 1, 4, 1, 3902, 1082, 500, 1, 2, 4, 2, 1, 2],
            suffix: &[],
            encoding: Encoding::ScaledDbm {
                offset: 0,
                divisor: 1000.0,
            },
            absent: &[-80_000, 65_535_000],
        },
    ],
    // The C300 phase enumeration plus one: 4 working.
    online_status: &[4],
    down_cause_source: DownCauseSource::Status,
    down_causes: &[(2, DownCause::Los), (5, DownCause::DyingGasp)],
    cli: &ZTE_C600_CLI,
    polling: polling::ZTE_POLLING,
    // zxAnPonOnuIfRxOctets / zxAnPonOnuIfTxOctets, rows `<port ifIndex>.<onuId>`.
    traffic: Some(TrafficColumns {
        in_octets: &[1, 3, 6, 1, 4, 1, 3902, 1082, 500, 4, 2, 2, 2, 1, 1],
        out_octets: &[1, 3, 6, 1, 4, 1, 3902, 1082, 500, 4, 2, 2, 2, 1, 44],
        bits: 64,
    }),
};

/// ZTE C600 / C620 GPON port (`gpon_olt-1/1/1` = 285278465):
/// `(1 << 28) | (1 << 24) | (shelf << 16) | (slot << 8) | port`, as the LibreNMS C620
/// captures number them.
pub const ZTE_C600_GPON: IfIndexLayout = IfIndexLayout {
    kind: 0x11,
    kind_shift: 24,
    frame_shift: 16,
    slot_shift: 8,
    port_shift: 0,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::OnuStatus;

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
    fn zte_c300_tables_carry_no_transceiver_readings() {
        // ZTE's C300/C320 tables ponkeeper reads carry none of the three.
        for field in [
            OnuField::Temperature,
            OnuField::Voltage,
            OnuField::BiasCurrent,
        ] {
            assert!(ZTE.column(field).is_none(), "{field:?}");
        }
    }

    #[test]
    fn c600_phase_is_the_c300_phase_plus_one() {
        assert_eq!(ZTE_C600.status(4), OnuStatus::Online);
        for phase in [1, 2, 3, 5, 6, 7] {
            assert_eq!(ZTE_C600.status(phase), OnuStatus::Offline, "phase {phase}");
        }
        assert_eq!(ZTE_C600.last_down_cause(Some(2), None), DownCause::Los);
        assert_eq!(
            ZTE_C600.last_down_cause(Some(5), None),
            DownCause::DyingGasp
        );
        assert_eq!(ZTE_C600.last_down_cause(Some(7), None), DownCause::Unknown);
        assert_eq!(
            ZTE_C600.port_from_if_name("gpon_olt-1/1/16"),
            Some("1/1/16")
        );
        assert_eq!(ZTE_C600.port_from_if_name("gpon_onu-1/1/1:1"), None);
        assert_eq!(ZTE_C600.port_from_if_name("xgei-1/4/1"), None);
        let rx = ZTE_C600.column(OnuField::RxPower).expect("rx");
        assert_eq!(rx.decode_dbm(1620), Some(-26.76));
        assert_eq!(rx.suffix, &[1]);
    }

    #[test]
    fn zte_c600_ports_match_the_c620_capture() {
        assert_eq!(ZTE_C600_GPON.if_index(1, 1, 1), Some(285_278_465));
        assert_eq!(ZTE_C600_GPON.if_index(1, 1, 16), Some(285_278_480));
        assert_eq!(
            ZTE_C600_GPON.port_name(285_278_480).as_deref(),
            Some("1/1/16")
        );
        // xgei-1/4/1 is numbered alike: a port name, but IF-MIB's ifType tells it apart.
        assert_eq!(
            ZTE_C600_GPON.port_name(285_279_233).as_deref(),
            Some("1/4/1")
        );
        assert_eq!(ZTE_C600_GPON.port_name(721_420_289), None, "not kind 0x11");
    }
}
