//! A fixture's `.expected.json`: the OLT's vendor and layout, its ONUs in the API's field names, the
//! port count, the totals and the session warnings (`tests/fixtures/README.md` says how
//! each was written). These are the test's own types, so the poller's `PolledOnu` is
//! shaped by the poller alone; [`FixtureOnu`] converts into the `PolledOnu` a correct
//! poll produces. Included by `fixtures.rs` with `#[path]`.

use ponkeeper_actors::domain::{DownCause, OnuStatus, Vendor};
use ponkeeper_actors::poller::PolledOnu;

/// A fixture's `.expected.json`.
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Expected {
    pub vendor: Vendor,
    /// The layout's short name (`GP3600`), the API's `family`.
    pub layout: String,
    pub onus: Vec<FixtureOnu>,
    pub ports: u32,
    pub total_onu: u32,
    pub onu_online: u32,
    /// The OLT's `session.warnings` after the poll (none unless the layout is broken).
    #[serde(default)]
    pub warnings: Vec<String>,
    /// The octet counters the `traffic` group reads for each ONU (by serial), where the
    /// fixture holds them (those of a real capture).
    #[serde(default)]
    pub traffic: Vec<ExpectedTraffic>,
}

/// One ONU's counters as the fixture serves them.
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExpectedTraffic {
    pub serial: String,
    pub in_octets: u64,
    pub out_octets: u64,
}

/// One ONU of a fixture's `.expected.json`, in the API's field names.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FixtureOnu {
    pub pon_port: String,
    pub onu_index: u32,
    pub serial: String,
    pub description: String,
    pub status: OnuStatus,
    pub last_down_cause: Option<DownCause>,
    pub distance: Option<u32>,
    pub rx_power: Option<f64>,
    pub tx_power: Option<f64>,
    pub olt_rx_power: Option<f64>,
    /// Transceiver readings (°C, V, mA); fixtures written before they were read leave
    /// them out, which means `null`.
    #[serde(default)]
    pub temperature: Option<f64>,
    #[serde(default)]
    pub voltage: Option<f64>,
    #[serde(default)]
    pub bias_current: Option<f64>,
}

impl From<FixtureOnu> for PolledOnu {
    fn from(onu: FixtureOnu) -> PolledOnu {
        PolledOnu {
            pon_port: onu.pon_port.into(),
            onu_index: onu.onu_index,
            serial: onu.serial.into(),
            description: onu.description.into(),
            status: onu.status,
            last_down_cause: onu.last_down_cause,
            distance: onu.distance,
            rx_power: onu.rx_power.into(),
            tx_power: onu.tx_power.into(),
            olt_rx_power: onu.olt_rx_power.into(),
            temperature: onu.temperature.into(),
            voltage: onu.voltage.into(),
            bias_current: onu.bias_current.into(),
            optics_read: true,
        }
    }
}
