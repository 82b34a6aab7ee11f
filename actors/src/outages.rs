//! Outages: many ONUs down for one cause, found as the status reads come in. The outside
//! plant says where each ONU hangs ([`Plant`]: splitters, a tree of at most two levels
//! under a PON port, and each ONU's placement, which the service's records keep and tell
//! the fleet view); the [`OutageBook`] watches the events the fleet view derives from
//! every change (`ONU_DOWN` with its cause, `ONU_UP`, an OLT going `OFFLINE`) and keeps
//! what is broken now:
//!
//! - LOS on most ONUs of a PON port → `PON_OUTAGE` (the feeder fibre);
//! - LOS on most ONUs behind one splitter while the rest of the port is up →
//!   `SPLITTER_OUTAGE` (the most upstream splitter whose ONUs are mostly dark: a cut
//!   before a first-level splitter darkens all of its second-level ones);
//! - `DYING_GASP` on several ONUs behind one splitter, of one subscriber address, or
//!   else of one port → `POWER_OUTAGE`;
//! - an OLT `OFFLINE` → `OLT_OUTAGE` over every ONU it holds.
//!
//! Downs count together when they fall within [`OutageRules::window`] of each other. An
//! outage takes in later downs of its scope, names its ONUs, their contracts and its
//! probable cause, and ends when what opened it no longer holds (fewer of its ONUs dark
//! than its kind's minimum, or its OLT answering again). Each outage opens with its
//! event, the `ONU_DOWN`s it explains carry its id in `data.outageId`, and it ends with
//! `OUTAGE_CLEARED`. The book keeps its outages in the store's `outages` tree
//! ([`OutageArchive`]), so a restart keeps the active ones and the history.

mod archive;
mod book;
mod grouping;
mod plant;
#[cfg(test)]
mod tests;

pub use archive::OutageArchive;
pub use book::OutageBook;
pub use plant::{Plant, PlantChange};

use crate::domain::{NodeId, OltId, Onu, OnuId, SessionStatus, Subscriber};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// What the book reads of the fleet, as the fleet view holds it after a change.
pub trait FleetRows {
    fn onu(&self, id: OnuId) -> Option<&Onu>;
    /// Every ONU the view holds of OLT `olt`.
    fn onus_of(&self, olt: OltId) -> Vec<OnuId>;
    fn onus_on_port(&self, olt: OltId, port: &str) -> usize;
    fn olt_status(&self, olt: OltId) -> Option<SessionStatus>;
    fn node_of(&self, olt: OltId) -> Option<NodeId>;
    fn subscriber(&self, onu: OnuId) -> Option<&Subscriber>;
}

pub type SplitterId = u32;
pub type OutageId = u64;

/// An optical splitter (an ODB's): on one PON port of one OLT, under another splitter or
/// straight on the port's feeder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Splitter {
    pub id: SplitterId,
    pub name: String,
    pub olt_id: OltId,
    pub pon_port: String,
    /// The first-level splitter this one hangs under; `None` on the feeder.
    pub parent_id: Option<SplitterId>,
    pub address: Option<String>,
    pub lat: Option<f64>,
    pub lon: Option<f64>,
    /// Declared by the inventory's `[[splitters]]` (changed there, not through the API).
    #[serde(default)]
    pub declared: bool,
}

/// What kind of fault an outage is put down to. The names are the API's and the events'
/// (`PON_OUTAGE`, …), hence the shared suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[allow(clippy::enum_variant_names)]
pub enum OutageKind {
    PonOutage,
    SplitterOutage,
    PowerOutage,
    OltOutage,
}

impl OutageKind {
    pub const ALL: [OutageKind; 4] = [
        OutageKind::PonOutage,
        OutageKind::SplitterOutage,
        OutageKind::PowerOutage,
        OutageKind::OltOutage,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            OutageKind::PonOutage => "PON_OUTAGE",
            OutageKind::SplitterOutage => "SPLITTER_OUTAGE",
            OutageKind::PowerOutage => "POWER_OUTAGE",
            OutageKind::OltOutage => "OLT_OUTAGE",
        }
    }
}

impl std::str::FromStr for OutageKind {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        OutageKind::ALL
            .into_iter()
            .find(|kind| kind.as_str().eq_ignore_ascii_case(text))
            .ok_or_else(|| {
                "must be one of PON_OUTAGE, SPLITTER_OUTAGE, POWER_OUTAGE, OLT_OUTAGE".into()
            })
    }
}

/// Many ONUs down for one cause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Outage {
    pub id: OutageId,
    #[serde(rename = "type")]
    pub kind: OutageKind,
    /// The probable cause, in words: "feeder fibre of PON port 0/1/0", "splitter S-12".
    pub cause: String,
    pub olt_id: OltId,
    pub pon_port: Option<String>,
    pub splitter_id: Option<SplitterId>,
    /// The subscriber address a power outage was grouped by.
    pub address: Option<String>,
    /// Every ONU it took down, in id order.
    pub onu_ids: Vec<OnuId>,
    /// Their subscribers' contracts (as bound when each ONU joined), sorted, no repeats.
    pub contracts: Vec<String>,
    pub started_at: DateTime<Utc>,
    pub ended_at: Option<DateTime<Utc>>,
}

impl Outage {
    pub fn is_active(&self) -> bool {
        self.ended_at.is_none()
    }
}

/// When downs make an outage (`[outages]` of the config).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OutageRules {
    /// LOS downs on one port that make a `PON_OUTAGE`…
    pub port_min: usize,
    /// …when they are at least this share of the port's ONUs.
    pub port_share: f64,
    /// LOS downs behind one splitter that make a `SPLITTER_OUTAGE`…
    pub splitter_min: usize,
    /// …when they are at least this share of the ONUs behind it.
    pub splitter_share: f64,
    /// Dying-gasp downs of one splitter, address or port that make a `POWER_OUTAGE`.
    pub power_min: usize,
    /// Downs further apart than this are not one fault.
    pub window: Duration,
    /// Ended outages are kept this long.
    pub retention: Duration,
}

impl Default for OutageRules {
    fn default() -> Self {
        OutageRules {
            port_min: 4,
            port_share: 0.5,
            splitter_min: 3,
            splitter_share: 0.5,
            power_min: 3,
            window: Duration::from_secs(300),
            retention: Duration::from_secs(30 * 86_400),
        }
    }
}

/// Which outages a reader wants.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OutageFilter {
    /// `Some(true)`: only those going on; `Some(false)`: only ended ones.
    pub active: Option<bool>,
    pub olt_id: Option<OltId>,
    pub kind: Option<OutageKind>,
    pub splitter_id: Option<SplitterId>,
    pub onu_id: Option<OnuId>,
}

impl OutageFilter {
    pub fn admits(&self, outage: &Outage) -> bool {
        self.active
            .is_none_or(|active| outage.is_active() == active)
            && self.olt_id.is_none_or(|olt| outage.olt_id == olt)
            && self.kind.is_none_or(|kind| outage.kind == kind)
            && self
                .splitter_id
                .is_none_or(|s| outage.splitter_id == Some(s))
            && self
                .onu_id
                .is_none_or(|onu| outage.onu_ids.binary_search(&onu).is_ok())
    }
}
