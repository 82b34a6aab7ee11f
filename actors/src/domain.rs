//! Domain vocabulary shared by the actors, the store, the simulator and the API layer:
//! identifiers, OLT session states, ONU records and their enumerations. Nothing here does
//! I/O; these are the values that cross actor mailboxes and get persisted in the store.

use chrono::{DateTime, Utc};
pub use compact_str::CompactString;
pub use port_name::PortName;
pub use reading::Reading;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

mod port_name;
mod reading;

/// Inventory identifier of an OLT.
pub type OltId = u32;
/// Inventory identifier of a communication node.
pub type NodeId = u32;
/// Service-wide, stable identifier of an ONU (allocated once per OLT and serial).
pub type OnuId = u64;

/// Equipment vendor, which selects the driver profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Vendor {
    Huawei,
    Zte,
    Bdcom,
    /// Eltex LTP (Russia).
    Eltex,
    /// V-SOL (`vsol`).
    Vsol,
    /// C-Data (`cdata`).
    Cdata,
    /// SNR (Russia).
    Snr,
}

impl Vendor {
    pub const ALL: [Vendor; 7] = [
        Vendor::Huawei,
        Vendor::Zte,
        Vendor::Bdcom,
        Vendor::Eltex,
        Vendor::Vsol,
        Vendor::Cdata,
        Vendor::Snr,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Vendor::Huawei => "huawei",
            Vendor::Zte => "zte",
            Vendor::Bdcom => "bdcom",
            Vendor::Eltex => "eltex",
            Vendor::Vsol => "vsol",
            Vendor::Cdata => "cdata",
            Vendor::Snr => "snr",
        }
    }
}

impl fmt::Display for Vendor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// State of the management session with one OLT (README.md, "OLT session states").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub enum SessionStatus {
    /// Actor started or session restarted; no poll has finished yet.
    Connecting,
    /// The last poll succeeded.
    Online,
    /// The last poll failed, fewer than `offline_after` times in a row.
    Degraded,
    /// `offline_after` or more failed polls in a row.
    Offline,
    /// `enabled = false` in the inventory; no device traffic.
    Disabled,
}

impl SessionStatus {
    pub const ALL: [SessionStatus; 5] = [
        SessionStatus::Connecting,
        SessionStatus::Online,
        SessionStatus::Degraded,
        SessionStatus::Offline,
        SessionStatus::Disabled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SessionStatus::Connecting => "CONNECTING",
            SessionStatus::Online => "ONLINE",
            SessionStatus::Degraded => "DEGRADED",
            SessionStatus::Offline => "OFFLINE",
            SessionStatus::Disabled => "DISABLED",
        }
    }
}

impl fmt::Display for SessionStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for SessionStatus {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SessionStatus::ALL
            .into_iter()
            .find(|status| status.as_str() == s)
            .ok_or_else(|| {
                let allowed: Vec<&str> = SessionStatus::ALL.iter().map(|s| s.as_str()).collect();
                format!("must be one of {}", allowed.join(", "))
            })
    }
}

/// Whether an ONU is registered and working on its PON port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub enum OnuStatus {
    Online,
    Offline,
}

/// Why an ONU last went offline, normalised across vendors (docs/devices.md "Mapping to the API").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum DownCause {
    Los,
    DyingGasp,
    Deactivated,
    /// Reset or rebooted (from the CLI, SNMP or the ONU itself), where the vendor says so.
    Reboot,
    Unknown,
}

/// One ONU as the OLT reported it in the latest poll that saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Onu {
    pub id: OnuId,
    pub olt_id: OltId,
    /// `frame/slot/port` as the device names it, e.g. `0/1/3`.
    pub pon_port: PortName,
    /// ONU id on its port as the device numbers it.
    pub onu_index: u32,
    /// GPON serial (`HWTC1A2B3C4D`) or EPON MAC.
    pub serial: CompactString,
    pub description: CompactString,
    pub status: OnuStatus,
    /// `None` while online.
    pub last_down_cause: Option<DownCause>,
    /// Metres, `None` when the device has no reading.
    pub distance: Option<u32>,
    /// dBm, rounded to two decimals; none when the device marks the value absent.
    pub rx_power: Reading,
    pub tx_power: Reading,
    pub olt_rx_power: Reading,
    /// The ONU transceiver's temperature (°C), supply voltage (V) and laser bias current
    /// (mA), rounded to two decimals; none where the vendor reports none.
    #[serde(default)]
    pub temperature: Reading,
    #[serde(default)]
    pub voltage: Reading,
    #[serde(default)]
    pub bias_current: Reading,
    pub vlan: Option<u16>,
    /// When a poll last saw the ONU (read its run state): the API's `statusAt`.
    pub last_update: DateTime<Utc>,
    /// When its optics were last read from the device (the optics group is read far less
    /// often than the status, docs/polling.md); `None` before the first reading.
    #[serde(default)]
    pub optics_at: Option<DateTime<Utc>>,
}

// A national fleet holds 1.28 M rows: a field that grows the row costs a megabyte per
// byte (docs/benchmarks.md, issue 31). Was 224 bytes with `Option<f64>` readings, 152
// with four-byte readings and the port name inline.
const _: () = assert!(std::mem::size_of::<Onu>() <= 128);

/// Counters of one PON port.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PonPortStats {
    pub name: String,
    pub onu_total: u32,
    pub onu_online: u32,
}

/// Rounds a power reading to two decimals, as the API reports it.
pub fn round_dbm(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// Signal level of an ONU, from its Rx power and the configured thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub enum OpticsLevel {
    Ok,
    Warning,
    Critical,
    /// No Rx reading (offline ONU, or the device reports none).
    Unknown,
}

impl OpticsLevel {
    pub const ALL: [OpticsLevel; 4] = [
        OpticsLevel::Ok,
        OpticsLevel::Warning,
        OpticsLevel::Critical,
        OpticsLevel::Unknown,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            OpticsLevel::Ok => "OK",
            OpticsLevel::Warning => "WARNING",
            OpticsLevel::Critical => "CRITICAL",
            OpticsLevel::Unknown => "UNKNOWN",
        }
    }
}

impl FromStr for OpticsLevel {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        OpticsLevel::ALL
            .into_iter()
            .find(|level| level.as_str() == s)
            .ok_or_else(|| "must be one of OK, WARNING, CRITICAL, UNKNOWN".to_string())
    }
}

impl FromStr for OnuStatus {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "ONLINE" => Ok(OnuStatus::Online),
            "OFFLINE" => Ok(OnuStatus::Offline),
            _ => Err("must be one of ONLINE, OFFLINE".to_string()),
        }
    }
}

/// Rx thresholds (`[optics]`): at or below `warning_dbm` is WARNING, at or below
/// `critical_dbm` is CRITICAL.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OpticsThresholds {
    pub warning_dbm: f64,
    pub critical_dbm: f64,
}

impl OpticsThresholds {
    pub fn level(&self, rx_power: Option<f64>) -> OpticsLevel {
        match rx_power {
            None => OpticsLevel::Unknown,
            Some(rx) if rx <= self.critical_dbm => OpticsLevel::Critical,
            Some(rx) if rx <= self.warning_dbm => OpticsLevel::Warning,
            Some(_) => OpticsLevel::Ok,
        }
    }
}

/// One recorded change of an ONU's state (kept for availability reports).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OnuStateChange {
    pub at: DateTime<Utc>,
    pub status: OnuStatus,
    pub cause: Option<DownCause>,
}

/// One stored optics point of an ONU.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct OpticsPoint {
    pub at: DateTime<Utc>,
    pub rx_power: Option<f64>,
    pub tx_power: Option<f64>,
    pub olt_rx_power: Option<f64>,
    /// °C, V and mA (see [`Onu::temperature`]).
    pub temperature: Option<f64>,
    pub voltage: Option<f64>,
    pub bias_current: Option<f64>,
    pub level: OpticsLevel,
}

impl OpticsPoint {
    /// The point of `onu`'s readings as its row holds them, taken `at` at `level`.
    pub fn of(onu: &Onu, at: DateTime<Utc>, level: OpticsLevel) -> OpticsPoint {
        OpticsPoint {
            at,
            rx_power: onu.rx_power.get(),
            tx_power: onu.tx_power.get(),
            olt_rx_power: onu.olt_rx_power.get(),
            temperature: onu.temperature.get(),
            voltage: onu.voltage.get(),
            bias_current: onu.bias_current.get(),
            level,
        }
    }
}

/// Who an ONU serves, as billing knows them (docs/provisioning.md, "Subscriber binding");
/// every field may be absent. Kept by the service's records, held by the fleet view so
/// lists show it and `GET /onus` finds ONUs by it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Subscriber {
    /// The billing contract, e.g. `Д-2024/117`.
    pub contract: Option<String>,
    pub name: Option<String>,
    pub address: Option<String>,
    pub note: Option<String>,
}

impl Subscriber {
    /// True when no field holds anything: binding it removes the binding.
    pub fn is_empty(&self) -> bool {
        self.fields().iter().all(|(_, v)| v.is_none())
    }

    /// The fields by their API names.
    pub fn fields(&self) -> [(&'static str, Option<&str>); 4] {
        [
            ("contract", self.contract.as_deref()),
            ("name", self.name.as_deref()),
            ("address", self.address.as_deref()),
            ("note", self.note.as_deref()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_follow_the_thresholds() {
        let t = OpticsThresholds {
            warning_dbm: -25.0,
            critical_dbm: -27.0,
        };
        assert_eq!(t.level(Some(-20.0)), OpticsLevel::Ok);
        assert_eq!(t.level(Some(-24.99)), OpticsLevel::Ok);
        assert_eq!(t.level(Some(-25.0)), OpticsLevel::Warning);
        assert_eq!(t.level(Some(-26.99)), OpticsLevel::Warning);
        assert_eq!(t.level(Some(-27.0)), OpticsLevel::Critical);
        assert_eq!(t.level(None), OpticsLevel::Unknown);
    }
}
