//! C-Data FD16xx's SNMP tables: the ONU info table `17409.2.8.4.1.1.<col>.<index>` and
//! the optics `17409.2.8.4.4.1.<col>.<index>.0.0`, where the index packs port and ONU as
//! `0x480000 | (port-1) << 12 | onu` (the MIB's textual convention says 8/8/8/8 bits; the
//! devices do not), and the OLT-side Rx per ONU. The poller decodes with them and the
//! simulator encodes with them.

use super::cli::CDATA_CLI;
use crate::domain::{DownCause, Vendor};
use crate::profile::{
    polling, DownCauseSource, Encoding, InterfaceNames, OnuColumn, OnuField, OnuIndexing,
    PackedOnuLayout, Profile,
};

const CENTI_DBM: Encoding = Encoding::ScaledDbm {
    offset: 0,
    divisor: 100.0,
};

/// C-Data FD16xx (GPON).
pub static CDATA: Profile = Profile {
    vendor: Vendor::Cdata,
    family: "FD16xx (GPON)",
    layout: "FD16XX",
    // LibreNMS tests/snmpsim/cdata.snmprec: the enterprise arc alone; its sysDescr is the
    // device's host name, so the sysObjectID decides.
    sys_object_id: &[1, 3, 6, 1, 4, 1, 17409],
    sys_descr: "olt-fd1616",
    interface_names: InterfaceNames::IfDescr,
    port_if_type: None,
    port_name_prefix: "pon",
    port_if_index: None,
    onu_indexing: OnuIndexing::Packed(PackedOnuLayout {
        base: 0x48_0000,
        port_shift: 12,
        first_port: 1,
        ports: 16,
        prefix: "0/0/",
    }),
    onu_columns: &[
        OnuColumn::new(
            OnuField::Description,
            &[1, 3, 6, 1, 4, 1, 17409, 2, 8, 4, 1, 1, 2],
            Encoding::Text,
            &[],
        ),
        OnuColumn::new(
            OnuField::Serial,
            &[1, 3, 6, 1, 4, 1, 17409, 2, 8, 4, 1, 1, 3],
            Encoding::GponSerial,
            &[],
        ),
        // 1 up, 2 down.
        OnuColumn::new(
            OnuField::Status,
            &[1, 3, 6, 1, 4, 1, 17409, 2, 8, 4, 1, 1, 7],
            Encoding::Enum,
            &[],
        ),
        // 0 for an offline ONU: no reading.
        OnuColumn::new(
            OnuField::Distance,
            &[1, 3, 6, 1, 4, 1, 17409, 2, 8, 4, 1, 1, 9],
            Encoding::Metres,
            &[0, -1],
        ),
        // Not in the MIB; switcher-core and Ubilling read it as text.
        OnuColumn::new(
            OnuField::DownCause,
            &[1, 3, 6, 1, 4, 1, 17409, 2, 8, 4, 1, 1, 103],
            Encoding::TextEnum(&[("LOS", 1), ("losi", 2), ("dying-gasp", 3), ("--", 0)]),
            &[],
        ),
        // Centi-dBm (the MIB's optics table, indexed by the ONU and its own card and
        // port, 0 and 0). (?) An offline ONU's Rx -1 and Tx -3000.
        OnuColumn {
            field: OnuField::RxPower,
            oid: &[1, 3, 6, 1, 4, 1, 17409, 2, 8, 4, 4, 1, 4],
            suffix: &[0, 0],
            encoding: CENTI_DBM,
            absent: &[-1],
        },
        OnuColumn {
            field: OnuField::TxPower,
            oid: &[1, 3, 6, 1, 4, 1, 17409, 2, 8, 4, 4, 1, 5],
            suffix: &[0, 0],
            encoding: CENTI_DBM,
            absent: &[-3000],
        },
        // Centi-mA, centi-mV and centi-degrees, same index.
        OnuColumn {
            field: OnuField::BiasCurrent,
            oid: &[1, 3, 6, 1, 4, 1, 17409, 2, 8, 4, 4, 1, 6],
            suffix: &[0, 0],
            encoding: Encoding::Scaled { divisor: 100.0 },
            absent: &[],
        },
        OnuColumn {
            field: OnuField::Voltage,
            oid: &[1, 3, 6, 1, 4, 1, 17409, 2, 8, 4, 4, 1, 7],
            suffix: &[0, 0],
            encoding: Encoding::Scaled { divisor: 100_000.0 },
            absent: &[],
        },
        OnuColumn {
            field: OnuField::Temperature,
            oid: &[1, 3, 6, 1, 4, 1, 17409, 2, 8, 4, 4, 1, 8],
            suffix: &[0, 0],
            encoding: Encoding::Scaled { divisor: 100.0 },
            absent: &[],
        },
        // The OLT's Rx of each ONU, centi-dBm; 65535 without one (Ubilling).
        OnuColumn::new(
            OnuField::OltRxPower,
            &[1, 3, 6, 1, 4, 1, 17409, 2, 3, 3, 6, 1, 2],
            CENTI_DBM,
            &[65_535],
        ),
    ],
    online_status: &[1],
    down_cause_source: DownCauseSource::Column,
    down_causes: &[
        (1, DownCause::Los),
        (2, DownCause::Los),
        (3, DownCause::DyingGasp),
    ],
    cli: &CDATA_CLI,
    polling: polling::CONSERVATIVE_POLLING,
    traffic: None,
};
