//! Eltex LTP-8X / LTP-4X's SNMP tables (ELTEX-LTP8X MIB): the ONT state table
//! `35265.1.22.3.1.1.<col>.<slot>.<serial as 8 octets>` — the serial is the index, the
//! PON channel and ONT number are columns — and the description in the ONT config table
//! under the same index. The poller decodes with them and the simulator encodes with them.

use super::cli::ELTEX_CLI;
use crate::domain::Vendor;
use crate::profile::{
    polling, DownCauseSource, Encoding, InterfaceNames, OnuColumn, OnuField, OnuIndexing, Profile,
};

/// An ONT state column (`ltp8xONTStateEntry`).
const fn state(column: u32) -> [u32; 13] {
    [1, 3, 6, 1, 4, 1, 35265, 1, 22, 3, 1, 1, column]
}

const CHANNEL: [u32; 13] = state(3);
const ONT_ID: [u32; 13] = state(4);
const STATE_COLUMN: [u32; 13] = state(5);
const DISTANCE: [u32; 13] = state(10);
const OLT_RX: [u32; 13] = state(11);
const ONU_TX: [u32; 13] = state(13);
const ONU_RX: [u32; 13] = state(14);
const TEMPERATURE: [u32; 13] = state(15);

/// Eltex LTP-8X / LTP-4X (GPON).
pub static ELTEX: Profile = Profile {
    vendor: Vendor::Eltex,
    family: "LTP-8X / LTP-4X (GPON)",
    layout: "LTP-8X",
    sys_object_id: &[1, 3, 6, 1, 4, 1, 35265, 1, 22],
    // LibreNMS tests/snmpsim/eltex-olt.snmprec.
    sys_descr: "Linux AT-LTP8X-BG-1 2.6.22.18 #1 Fri Sep 2 10:00:29 UTC 2016 armv5tejl",
    interface_names: InterfaceNames::IfDescr,
    port_if_type: None,
    // No capture shows the LTP's IF-MIB, and LibreNMS marks its ifXTable unreliable:
    // ports are named by their ONTs' channel instead.
    port_name_prefix: "",
    port_if_index: None,
    onu_indexing: OnuIndexing::SlotAndSerial,
    onu_columns: &[
        // The serial is the index too; Ubilling walks this column for it.
        OnuColumn::new(OnuField::Serial, &state(2), Encoding::GponSerial, &[]),
        OnuColumn::new(OnuField::PonChannel, &CHANNEL, Encoding::Enum, &[]),
        OnuColumn::new(OnuField::OnuNumber, &ONT_ID, Encoding::Enum, &[]),
        // ltp8xONTConfigDescription, same index.
        OnuColumn::new(
            OnuField::Description,
            &[1, 3, 6, 1, 4, 1, 35265, 1, 22, 3, 4, 1, 8],
            Encoding::Text,
            &[],
        ),
        OnuColumn::new(OnuField::Status, &STATE_COLUMN, Encoding::Enum, &[]),
        // 0 (an offline ONT) and 65535: no reading.
        OnuColumn::new(
            OnuField::Distance,
            &DISTANCE,
            Encoding::Metres,
            &[0, 65_535],
        ),
        // RSSI at the OLT, 0.1 dBm; 65535 without a reading.
        OnuColumn::new(
            OnuField::OltRxPower,
            &OLT_RX,
            Encoding::ScaledDbm {
                offset: 0,
                divisor: 10.0,
            },
            &[65_535],
        ),
        // The ONT's own Tx / Rx, dBm × 1000 (only some ONT models report them).
        OnuColumn::new(
            OnuField::TxPower,
            &ONU_TX,
            Encoding::ScaledDbm {
                offset: 0,
                divisor: 1000.0,
            },
            &[65_535],
        ),
        OnuColumn::new(
            OnuField::RxPower,
            &ONU_RX,
            Encoding::ScaledDbm {
                offset: 0,
                divisor: 1000.0,
            },
            &[65_535],
        ),
        OnuColumn::new(
            OnuField::Temperature,
            &TEMPERATURE,
            Encoding::Scaled { divisor: 10.0 },
            &[65_535],
        ),
    ],
    // LTPONTState 7 ok.
    online_status: &[7],
    down_cause_source: DownCauseSource::Status,
    // The state says nothing of why an ONT went down: every cause is UNKNOWN.
    down_causes: &[],
    cli: &ELTEX_CLI,
    polling: polling::CONSERVATIVE_POLLING,
    traffic: None,
};
