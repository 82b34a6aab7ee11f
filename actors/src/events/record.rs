//! The event record of docs/events.md — [`Event`], its [`EventType`] and [`Severity`] — the
//! [`Draft`] the fleet view derives before the log gives it an id, and the
//! [`EventFilter`] that `GET /events`, the stream and webhooks select with.

use crate::domain::{NodeId, OltId, OnuId};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// What happened (docs/events.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub enum EventType {
    OltStatusChanged,
    OnuDown,
    OnuUp,
    PonOutage,
    OpticsLevelChanged,
    OnuDiscovered,
    OnuAuthorized,
    OnuDeauthorized,
    SzoDown,
    SzoUp,
    ConfigChanged,
    SplitterOutage,
    PowerOutage,
    OltOutage,
    OutageCleared,
    MacMoved,
    PonPortSaturated,
    PonPortSaturationCleared,
    OnuFlapping,
    OnuFlappingCleared,
}

impl EventType {
    pub const ALL: [EventType; 20] = [
        EventType::OltStatusChanged,
        EventType::OnuDown,
        EventType::OnuUp,
        EventType::PonOutage,
        EventType::OpticsLevelChanged,
        EventType::OnuDiscovered,
        EventType::OnuAuthorized,
        EventType::OnuDeauthorized,
        EventType::SzoDown,
        EventType::SzoUp,
        EventType::ConfigChanged,
        EventType::SplitterOutage,
        EventType::PowerOutage,
        EventType::OltOutage,
        EventType::OutageCleared,
        EventType::MacMoved,
        EventType::PonPortSaturated,
        EventType::PonPortSaturationCleared,
        EventType::OnuFlapping,
        EventType::OnuFlappingCleared,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EventType::OltStatusChanged => "OLT_STATUS_CHANGED",
            EventType::OnuDown => "ONU_DOWN",
            EventType::OnuUp => "ONU_UP",
            EventType::PonOutage => "PON_OUTAGE",
            EventType::OpticsLevelChanged => "OPTICS_LEVEL_CHANGED",
            EventType::OnuDiscovered => "ONU_DISCOVERED",
            EventType::OnuAuthorized => "ONU_AUTHORIZED",
            EventType::OnuDeauthorized => "ONU_DEAUTHORIZED",
            EventType::SzoDown => "SZO_DOWN",
            EventType::SzoUp => "SZO_UP",
            EventType::ConfigChanged => "CONFIG_CHANGED",
            EventType::SplitterOutage => "SPLITTER_OUTAGE",
            EventType::PowerOutage => "POWER_OUTAGE",
            EventType::OltOutage => "OLT_OUTAGE",
            EventType::OutageCleared => "OUTAGE_CLEARED",
            EventType::MacMoved => "MAC_MOVED",
            EventType::PonPortSaturated => "PON_PORT_SATURATED",
            EventType::PonPortSaturationCleared => "PON_PORT_SATURATION_CLEARED",
            EventType::OnuFlapping => "ONU_FLAPPING",
            EventType::OnuFlappingCleared => "ONU_FLAPPING_CLEARED",
        }
    }
}

impl fmt::Display for EventType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for EventType {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        EventType::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = EventType::ALL.iter().map(|t| t.as_str()).collect();
                format!("must be one of {}", names.join(", "))
            })
    }
}

/// How much an event matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub enum Severity {
    Info,
    Warning,
    Critical,
}

impl FromStr for Severity {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "INFO" => Ok(Severity::Info),
            "WARNING" => Ok(Severity::Warning),
            "CRITICAL" => Ok(Severity::Critical),
            _ => Err("must be INFO, WARNING or CRITICAL".into()),
        }
    }
}

/// One event as the log keeps it (docs/events.md); unset ids are `None`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// Given by the log: 1, 2, 3, … without gaps.
    pub id: u64,
    pub at: DateTime<Utc>,
    #[serde(rename = "type")]
    pub kind: EventType,
    pub severity: Severity,
    pub olt_id: Option<OltId>,
    pub node_id: Option<NodeId>,
    pub pon_port: Option<String>,
    pub onu_id: Option<OnuId>,
    pub szo_id: Option<u32>,
    pub message: String,
    pub data: serde_json::Value,
}

/// An event before the log has given it an id.
#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    /// The event; its `id` is 0 until the log appends it.
    pub event: Event,
    /// The ONU's serial, for the СЗО bound to it.
    pub serial: Option<String>,
}

/// Which events a reader wants; every unset field admits everything.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EventFilter {
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
    /// Any of these types; empty: all.
    pub types: Vec<EventType>,
    pub severity: Option<Severity>,
    pub olt_id: Option<OltId>,
    pub node_id: Option<NodeId>,
    pub onu_id: Option<OnuId>,
}

impl EventFilter {
    pub fn admits(&self, event: &Event) -> bool {
        self.from.is_none_or(|from| event.at >= from)
            && self.to.is_none_or(|to| event.at <= to)
            && (self.types.is_empty() || self.types.contains(&event.kind))
            && self.severity.is_none_or(|s| event.severity == s)
            && self.olt_id.is_none_or(|o| event.olt_id == Some(o))
            && self.node_id.is_none_or(|n| event.node_id == Some(n))
            && self.onu_id.is_none_or(|o| event.onu_id == Some(o))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_parse_from_their_wire_names_and_nothing_else() {
        for kind in EventType::ALL {
            assert_eq!(kind.as_str().parse::<EventType>(), Ok(kind));
            assert_eq!(
                serde_json::to_value(kind).expect("json"),
                serde_json::Value::String(kind.as_str().into())
            );
        }
        assert!("onu_down".parse::<EventType>().is_err());
    }
}
