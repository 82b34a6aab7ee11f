//! V-SOL's SNMP tables. V1600D (EPON, MIB `V1600D`): the bound-ONU table
//! `37950.1.1.5.12.1.25.1.<col>.<pon>.<onu>` (status, MAC as text, description, why it
//! deregistered, distance) and the optics `37950.1.1.5.12.2.1.8.1.<col>.<pon>.<onu>` as
//! text (`0.03 mW (-14.61 dBm)`, `30.67 C`). V1600G / V1600GS (GPON, MIB `V1600G`): the
//! phase state and description `37950.1.1.6.1.1.1.1`, the serial
//! `37950.1.1.6.1.1.4.1.5`, the distance `37950.1.1.6.1.1.12.1.3` and the optics
//! `37950.1.1.6.1.1.3.1` as plain numbers in text (`-10.47`); firmware without per-ONU
//! optics answers none of them. The poller decodes with them and the simulator encodes
//! with them.

use super::cli::{VSOL_EPON_CLI, VSOL_GPON_CLI};
use crate::domain::{DownCause, Vendor};
use crate::profile::text::TextForm;
use crate::profile::{
    polling, DownCauseSource, Encoding, InterfaceNames, OnuColumn, OnuField, OnuIndexing, Profile,
};

const fn epon_onu(column: u32) -> [u32; 15] {
    [1, 3, 6, 1, 4, 1, 37950, 1, 1, 5, 12, 1, 25, 1, column]
}

const fn epon_optics(column: u32) -> [u32; 16] {
    [1, 3, 6, 1, 4, 1, 37950, 1, 1, 5, 12, 2, 1, 8, 1, column]
}

const fn gpon(table: u32, column: u32) -> [u32; 15] {
    [1, 3, 6, 1, 4, 1, 37950, 1, 1, 6, 1, 1, table, 1, column]
}

const fn text(form: TextForm) -> Encoding {
    Encoding::TextReading {
        form,
        absent: "N/A",
    }
}

/// Rows `<pon>.<onu>` on ports `0/<pon>` (the CLI's `interface epon 0/1`).
const PON_AND_ONU: OnuIndexing = OnuIndexing::PortArcsAndOnuId {
    prefix: "0/",
    onu_interfaces: Some(':'),
};

/// V-SOL V1600D (EPON).
pub static VSOL_EPON: Profile = Profile {
    vendor: Vendor::Vsol,
    family: "V1600D (EPON)",
    layout: "V1600D",
    // LibreNMS tests/snmpsim/vsolution_v1600d.snmprec (V1600G answers the same).
    sys_object_id: &[1, 3, 6, 1, 4, 1, 37950, 1, 1, 5, 10, 14, 1],
    sys_descr: "V1600D",
    // The capture's PON ports are ifName `EPON0/1` (ifDescr a single space); its ONUs are
    // interfaces of their own, `EPON0/1:1`.
    interface_names: InterfaceNames::IfName,
    port_if_type: None,
    port_name_prefix: "EPON",
    port_if_index: None,
    onu_indexing: PON_AND_ONU,
    onu_columns: &[
        // onuMacAddr2, text.
        OnuColumn::new(OnuField::Serial, &epon_onu(5), Encoding::MacText, &[]),
        OnuColumn::new(OnuField::Description, &epon_onu(9), Encoding::Text, &[]),
        // lineStatus2: 0 offline, 1 online.
        OnuColumn::new(OnuField::Status, &epon_onu(4), Encoding::Enum, &[]),
        // onuAuthInfo2DeregReason: 0 wire-down, 1 power-off.
        OnuColumn::new(OnuField::DownCause, &epon_onu(15), Encoding::Enum, &[]),
        // (?) metres: the MIB gives no unit.
        OnuColumn::new(OnuField::Distance, &epon_onu(17), Encoding::Metres, &[0]),
        OnuColumn::new(
            OnuField::Temperature,
            &epon_optics(3),
            text(TextForm::Unit(" C")),
            &[],
        ),
        OnuColumn::new(
            OnuField::Voltage,
            &epon_optics(4),
            text(TextForm::Unit(" V")),
            &[],
        ),
        OnuColumn::new(
            OnuField::BiasCurrent,
            &epon_optics(5),
            text(TextForm::Unit(" mA")),
            &[],
        ),
        OnuColumn::new(
            OnuField::TxPower,
            &epon_optics(6),
            text(TextForm::MilliwattsAndDbm),
            &[],
        ),
        OnuColumn::new(
            OnuField::RxPower,
            &epon_optics(7),
            text(TextForm::MilliwattsAndDbm),
            &[],
        ),
    ],
    online_status: &[1],
    down_cause_source: DownCauseSource::Column,
    down_causes: &[(0, DownCause::Los), (1, DownCause::DyingGasp)],
    cli: &VSOL_EPON_CLI,
    polling: polling::CONSERVATIVE_POLLING,
    traffic: None,
};

/// V-SOL V1600G / V1600GS (GPON).
pub static VSOL_GPON: Profile = Profile {
    vendor: Vendor::Vsol,
    family: "V1600G / V1600GS (GPON)",
    layout: "V1600G",
    // LibreNMS tests/snmpsim/vsolution_v1600gs.snmprec.
    sys_object_id: &[1, 3, 6, 1, 4, 1, 37950, 1, 1, 5, 10, 14, 1],
    sys_descr: "V1600GS",
    // The capture's ports are `GPON0/1 Clients` (the port's description after a space);
    // its ONU interfaces `GPON01ONU1` name no port, so IF-MIB is not compared.
    interface_names: InterfaceNames::IfName,
    port_if_type: None,
    port_name_prefix: "GPON",
    port_if_index: None,
    onu_indexing: OnuIndexing::PortArcsAndOnuId {
        prefix: "0/",
        onu_interfaces: None,
    },
    onu_columns: &[
        // gOnuDetailInfoSn; (?) its text form: no capture holds one.
        OnuColumn::new(
            OnuField::Serial,
            &gpon(4, 5),
            Encoding::SerialText { hex: false },
            &[],
        ),
        OnuColumn::new(OnuField::Description, &gpon(1, 7), Encoding::Text, &[]),
        // gOnuStaInfoPhaseSta: 3 working.
        OnuColumn::new(OnuField::Status, &gpon(1, 5), Encoding::Enum, &[]),
        // (?) metres.
        OnuColumn::new(OnuField::Distance, &gpon(12, 3), Encoding::Metres, &[0]),
        OnuColumn::new(
            OnuField::Temperature,
            &gpon(3, 3),
            text(TextForm::Plain),
            &[],
        ),
        OnuColumn::new(OnuField::Voltage, &gpon(3, 4), text(TextForm::Plain), &[]),
        OnuColumn::new(
            OnuField::BiasCurrent,
            &gpon(3, 5),
            text(TextForm::Plain),
            &[],
        ),
        OnuColumn::new(OnuField::TxPower, &gpon(3, 6), text(TextForm::Plain), &[]),
        OnuColumn::new(OnuField::RxPower, &gpon(3, 7), text(TextForm::Plain), &[]),
        OnuColumn::new(
            OnuField::OltRxPower,
            &gpon(3, 8),
            text(TextForm::Plain),
            &[],
        ),
    ],
    online_status: &[3],
    down_cause_source: DownCauseSource::Status,
    // 1 los, 4 dyingGasp; logging, syncMib, authFail, offline, deactivated and
    // configFail say nothing of the fibre.
    down_causes: &[(1, DownCause::Los), (4, DownCause::DyingGasp)],
    cli: &VSOL_GPON_CLI,
    polling: polling::CONSERVATIVE_POLLING,
    traffic: None,
};
