//! BDCOM's SNMP tables: the EPON OLTs' ONU columns (NMS-EPON, rows by the ONU's
//! ifIndex, named `EPON0/1:3`) and the GPON OLTs' (NMS-GPON, named `GPON0/2:1`), their
//! scales and sentinels, and the status values. The poller decodes with them and the
//! simulator encodes with them.

use super::cli::{BDCOM_CLI, BDCOM_GPON_CLI};
use crate::domain::{DownCause, Vendor};
use crate::profile::{
    polling, DownCauseSource, Encoding, InterfaceNames, OnuColumn, OnuField, OnuIndexing, Profile,
    TrafficColumns,
};

/// Unconfirmed: docs/devices.md names no BDCOM sentinel: the common "no value" integers, so that
/// none can ever show up as 214748364.7 or 6553.5 dBm.
/// An ONU is an IF-MIB interface of its own: ifHCInOctets / ifHCOutOctets of its
/// ifIndex, which is the ONU table's row index.
const IF_MIB_HC_OCTETS: TrafficColumns = TrafficColumns {
    in_octets: &[1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 6],
    out_octets: &[1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 10],
    bits: 64,
};

const BDCOM_ABSENT: &[i64] = &[2_147_483_647, 65_535];

/// BDCOM P3310 / P3600 EPON (NMS-EPON MIB).
pub static BDCOM: Profile = Profile {
    vendor: Vendor::Bdcom,
    family: "P3310 / P3600 (EPON)",
    layout: "P3310",
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
    cli: &BDCOM_CLI,
    polling: polling::COMMON_POLLING,
    traffic: Some(IF_MIB_HC_OCTETS),
};

/// BDCOM GP3600 GPON (NMS-GPON-MIB): rows indexed by the ONU's own ifIndex, named
/// `GPON0/2:1` in ifDescr; the description is the ONU interface's ifAlias.
pub static BDCOM_GPON: Profile = Profile {
    vendor: Vendor::Bdcom,
    family: "GP3600 (GPON)",
    layout: "GP3600",
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
    cli: &BDCOM_GPON_CLI,
    polling: polling::COMMON_POLLING,
    traffic: Some(IF_MIB_HC_OCTETS),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::OnuStatus;

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
    }

    #[test]
    fn bdcom_transceiver_readings_are_256ths_of_a_degree_100_microvolts_and_2_microamps() {
        let reading =
            |field: OnuField, raw: i64| BDCOM.column(field).expect("column").decode_dbm(raw);
        // BDCOM: 1/256 °C, 100 µV, 2 µA.
        assert_eq!(reading(OnuField::Temperature, 10_624), Some(41.5));
        assert_eq!(reading(OnuField::Voltage, 32_800), Some(3.28));
        assert_eq!(reading(OnuField::BiasCurrent, 7_500), Some(15.0));
        assert_eq!(reading(OnuField::Temperature, 65_535), None);
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
