//! SNR-OLT-GPON's SNMP tables (NGPON-MIB): the ONU info table
//! `65268.1.14.2.4.1.1.1.<col>.<slot>.<port>.<ont>` and the ONU optics
//! `65268.1.14.2.4.1.4.1.<col>.<slot>.<port>.<ont>`, whose readings, distance and serial
//! are text (`-` or `-inf` without a reading). The poller decodes with them and the
//! simulator encodes with them.

use super::cli::SNR_CLI;
use crate::domain::{DownCause, Vendor};
use crate::profile::text::TextForm;
use crate::profile::{
    polling, DownCauseSource, Encoding, InterfaceNames, OnuColumn, OnuField, OnuIndexing, Profile,
};

const TEXT: Encoding = Encoding::TextReading {
    form: TextForm::Plain,
    absent: "-",
};

const fn info(column: u32) -> [u32; 15] {
    [1, 3, 6, 1, 4, 1, 65268, 1, 14, 2, 4, 1, 1, 1, column]
}

const fn optics(column: u32) -> [u32; 15] {
    [1, 3, 6, 1, 4, 1, 65268, 1, 14, 2, 4, 1, 4, 1, column]
}

const DESCRIPTION: [u32; 15] = info(4);
const RUN_STATUS: [u32; 15] = info(6);
const DISTANCE: [u32; 15] = info(7);
const SERIAL: [u32; 15] = info(8);
const OFFLINE_REASON: [u32; 15] = info(12);
const VOLTAGE: [u32; 15] = optics(4);
const RX: [u32; 15] = optics(5);
const TX: [u32; 15] = optics(6);
const BIAS: [u32; 15] = optics(7);
const TEMPERATURE: [u32; 15] = optics(8);
const OLT_RX: [u32; 15] = optics(11);

/// SNR-OLT-GPON.
pub static SNR: Profile = Profile {
    vendor: Vendor::Snr,
    family: "SNR-OLT-GPON",
    layout: "SNR-GPON",
    // LibreNMS tests/snmpsim/snr-olt.snmprec.
    sys_object_id: &[1, 3, 6, 1, 4, 1, 65268, 1, 3, 34, 3],
    sys_descr: "GPON OLT",
    interface_names: InterfaceNames::IfDescr,
    // The capture's ports are ifType 6: the name decides.
    port_if_type: None,
    port_name_prefix: "gpon",
    port_if_index: None,
    // `<slot>.<port>.<ont>`; the capture's PON slot is 2 (`gpon0/2/N`).
    onu_indexing: OnuIndexing::PortArcsAndOnuId {
        prefix: "0/",
        onu_interfaces: None,
    },
    onu_columns: &[
        OnuColumn::new(OnuField::Description, &DESCRIPTION, Encoding::Text, &[]),
        // 0 off, 1 on.
        OnuColumn::new(OnuField::Status, &RUN_STATUS, Encoding::Enum, &[]),
        OnuColumn::new(OnuField::Distance, &DISTANCE, Encoding::TextMetres, &[]),
        // "hex string format".
        OnuColumn::new(
            OnuField::Serial,
            &SERIAL,
            Encoding::SerialText { hex: true },
            &[],
        ),
        // OCTET STRING; (?) the decimal code, as no capture shows a value.
        OnuColumn::new(
            OnuField::DownCause,
            &OFFLINE_REASON,
            Encoding::TextCode,
            &[],
        ),
        OnuColumn::new(OnuField::Voltage, &VOLTAGE, TEXT, &[]),
        OnuColumn::new(OnuField::RxPower, &RX, TEXT, &[]),
        OnuColumn::new(OnuField::TxPower, &TX, TEXT, &[]),
        OnuColumn::new(OnuField::BiasCurrent, &BIAS, TEXT, &[]),
        OnuColumn::new(OnuField::Temperature, &TEMPERATURE, TEXT, &[]),
        OnuColumn::new(OnuField::OltRxPower, &OLT_RX, TEXT, &[]),
    ],
    online_status: &[1],
    down_cause_source: DownCauseSource::Column,
    // NGPON-MIB ontOfflineReason: 6 LOSI and 7 LOS are a loss of signal, 11 POWER_OFF
    // the ONT's dying gasp; the rest (deactivation, timeouts, failed ranging) UNKNOWN.
    down_causes: &[
        (7, DownCause::Los),
        (6, DownCause::Los),
        (11, DownCause::DyingGasp),
    ],
    cli: &SNR_CLI,
    polling: polling::CONSERVATIVE_POLLING,
    traffic: None,
};
