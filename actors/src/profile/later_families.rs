//! The second layout of two vendors, as data like `vendors.rs`: the ZTE C600 / C620
//! (TITAN) generation, whose ports are `gpon_olt-1/1/1` and whose ONU tables moved to
//! the `3902.1082.500` subtree, and BDCOM's GPON OLTs (GP3600), whose ports are
//! `GPON0/1` and whose ONU tables are NMS-GPON-MIB's `3320.10.3`. Detection
//! ([`super::detection`]) picks them from the system group; facts and sources are in
//! `docs/devices.md`.

use super::vendors::{BDCOM_ABSENT, ZTE_ONU_DBM};
use super::{
    commands, DownCauseSource, Encoding, InterfaceNames, OnuColumn, OnuField, OnuIndexing, Profile,
};
use crate::domain::{DownCause, Vendor};

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
    cli: &commands::ZTE_C600,
};

/// BDCOM GP3600 GPON (NMS-GPON-MIB): rows indexed by the ONU's own ifIndex, named
/// `GPON0/2:1` in ifDescr; the description is the ONU interface's ifAlias.
pub static BDCOM_GPON: Profile = Profile {
    vendor: Vendor::Bdcom,
    family: "GP3600 (GPON)",
    // LibreNMS tests/snmpsim/bdcom.snmprec, a GP3600-16B.
    sys_object_id: &[1, 3, 6, 1, 4, 1, 3320, 1, 390, 0],
    sys_descr: "BDCOM(tm) GP3600-16B Software, Version 74104\nhardware version: A",
    interface_names: InterfaceNames::IfDescr,
    // The capture's ports and ONU interfaces are all ifType 1: the name decides.
    port_if_type: None,
    port_name_prefix: "GPON",
    port_if_index: None,
    onu_indexing: OnuIndexing::OnuIfIndex { separator: ':' },
    onu_columns: &[
        // gponOnuStatusOnuSn: `HWTC:1A2B3C4D` as text.
        OnuColumn {
            field: OnuField::Serial,
            oid: &[1, 3, 6, 1, 4, 1, 3320, 10, 3, 3, 1, 2],
            suffix: &[],
            encoding: Encoding::GponSerialText,
            absent: &[],
        },
        // IF-MIB ifAlias of the ONU interface (`description` under `interface GPON0/2:1`).
        OnuColumn {
            field: OnuField::Description,
            oid: &[1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 18],
            suffix: &[],
            encoding: Encoding::Text,
            absent: &[],
        },
        // gponOnuStatusOnuStatus, the EPON enumeration.
        OnuColumn {
            field: OnuField::Status,
            oid: &[1, 3, 6, 1, 4, 1, 3320, 10, 3, 3, 1, 4],
            suffix: &[],
            encoding: Encoding::Enum,
            absent: &[],
        },
        // onuDistance, tenths of a metre.
        OnuColumn {
            field: OnuField::Distance,
            oid: &[1, 3, 6, 1, 4, 1, 3320, 10, 3, 1, 1, 33],
            suffix: &[],
            encoding: Encoding::Decimetres,
            absent: &[],
        },
        OnuColumn {
            field: OnuField::RxPower,
            oid: &[1, 3, 6, 1, 4, 1, 3320, 10, 3, 4, 1, 2],
            suffix: &[],
            encoding: Encoding::ScaledDbm {
                offset: 0,
                divisor: 10.0,
            },
            absent: BDCOM_ABSENT,
        },
        OnuColumn {
            field: OnuField::TxPower,
            oid: &[1, 3, 6, 1, 4, 1, 3320, 10, 3, 4, 1, 3],
            suffix: &[],
            encoding: Encoding::ScaledDbm {
                offset: 0,
                divisor: 10.0,
            },
            absent: BDCOM_ABSENT,
        },
    ],
    // 0 authenticated, 1 registered, 3 auto_config.
    online_status: &[0, 1, 3],
    down_cause_source: DownCauseSource::Status,
    down_causes: &[(4, DownCause::Los)],
    cli: &commands::BDCOM_GPON,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::OnuStatus;

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
    fn bdcom_gpon_reads_text_serials_and_decimetres() {
        let serial = BDCOM_GPON.column(OnuField::Serial).expect("serial");
        assert_eq!(serial.decode_octets(b"HWTC:1a2b3c4d"), "HWTC1A2B3C4D");
        assert_eq!(serial.decode_octets(b"ZTEG:C0FFEE01"), "ZTEGC0FFEE01");
        assert_eq!(serial.decode_octets(b"odd"), "odd", "shown as sent");
        assert_eq!(serial.serial_len(), 13);
        let distance = BDCOM_GPON.column(OnuField::Distance).expect("distance");
        assert_eq!(distance.decode_metres(15_204), Some(1520));
        assert_eq!(distance.decode_metres(15_205), Some(1521));
        assert_eq!(distance.encode_metres(1520), 15_200);
        assert_eq!(distance.decode_metres(-10), None);
        assert_eq!(BDCOM_GPON.port_from_if_name("GPON0/16"), Some("0/16"));
        assert_eq!(BDCOM_GPON.onu_from_if_name("GPON0/2:14"), Some(("0/2", 14)));
        assert_eq!(BDCOM_GPON.port_from_if_name("GigaEthernet0/1"), None);
        assert_eq!(BDCOM_GPON.status(3), OnuStatus::Online);
        assert_eq!(BDCOM_GPON.last_down_cause(Some(4), None), DownCause::Los);
    }
}
