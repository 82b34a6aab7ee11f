//! The input of every MCP tool. A tool that lists takes exactly the query of the REST
//! endpoint it calls: the query types are declared once beside their handlers
//! ([`crate::api`], [`crate::http`]) and flattened here, so the tool's JSON Schema, the
//! OpenAPI document and the REST check are the same declaration. What a tool adds is the
//! ids the REST path carries (`onuId` of `/onus/{id}/...`), which are not serialised into
//! the query, and the bodies of the three ONU actions.

use crate::api::{
    AuditQuery, DiffQuery, EventsQuery, HistoryQuery, NodesQuery, OltsQuery, OnuFilterQuery,
    OnuSearchQuery, OpticsQuery, PeriodQuery, RequiredPeriodQuery, SzoQuery, SzoStatusQuery,
    TopQuery, TrafficHistoryQuery, VlansQuery,
};
use crate::http::{PageQuery, ScopeQuery};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A list's query: its page, and the endpoint's own parameters.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct Listed<Q> {
    #[serde(flatten)]
    pub page: PageQuery,
    #[serde(flatten)]
    pub query: Q,
}

/// A fleet-wide list's query: its page, its scope (`oltId`, `nodeId`) and the
/// endpoint's own parameters.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct Scoped<Q> {
    #[serde(flatten)]
    pub page: PageQuery,
    #[serde(flatten)]
    pub scope: ScopeQuery,
    #[serde(flatten)]
    pub query: Q,
}

pub type ListOlts = Listed<OltsQuery>;
pub type ListNodes = Listed<NodesQuery>;
pub type ListOnus = Scoped<OnuFilterQuery>;
pub type FindOnu = Listed<OnuSearchQuery>;
pub type LowSignal = Scoped<OpticsQuery>;
pub type ListVlans = Scoped<VlansQuery>;
pub type ListAudit = Listed<AuditQuery>;
pub type ListEvents = Listed<EventsQuery>;
pub type ListSzo = Listed<SzoListQuery>;

/// `GET /szo`'s own parameters: the registry's filters and the live status.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct SzoListQuery {
    #[serde(flatten)]
    pub filters: SzoQuery,
    #[serde(flatten)]
    pub status: SzoStatusQuery,
}

/// One OLT by id.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OltRef {
    /// OLT id (from list_olts).
    #[schemars(range(min = 1))]
    pub olt_id: u32,
}

/// One communication node by id.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeRef {
    /// Node id (from list_nodes).
    #[schemars(range(min = 1))]
    pub node_id: u32,
}

/// One ONU by id.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OnuRef {
    /// ONU id (the service-wide `id` from list_onus or find_onu, not the index on the port).
    #[schemars(range(min = 1))]
    pub onu_id: u64,
}

/// One OLT's list, by the OLT's id.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OfOlt<Q> {
    /// OLT id (from list_olts).
    #[serde(skip_serializing)]
    #[schemars(range(min = 1))]
    pub olt_id: u32,
    #[serde(flatten)]
    pub query: Q,
}

/// One ONU's readings over a period.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpticsHistory {
    /// ONU id.
    #[serde(skip_serializing)]
    #[schemars(range(min = 1))]
    pub onu_id: u64,
    #[serde(flatten)]
    pub query: HistoryQuery,
}

/// One ONU's traffic rates over a period, optionally averaged by a step.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrafficHistory {
    /// ONU id.
    #[serde(skip_serializing)]
    #[schemars(range(min = 1))]
    pub onu_id: u64,
    #[serde(flatten)]
    pub query: TrafficHistoryQuery,
}

/// The busiest ONUs: `GET /traffic/top`'s query as it is.
pub type TopTraffic = TopQuery;

/// One stored configuration backup.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfigRef {
    /// OLT id.
    #[serde(skip_serializing)]
    #[schemars(range(min = 1))]
    pub olt_id: u32,
    /// Backup id (from list_olt_configs).
    #[serde(skip_serializing)]
    #[schemars(range(min = 1))]
    pub config_id: u64,
}

/// Two configuration backups of an OLT.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct ConfigDiff {
    #[serde(flatten)]
    pub config: ConfigRef,
    #[serde(flatten)]
    pub query: DiffQuery,
}

/// One СЗО by id.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SzoRef {
    /// СЗО id (from list_szo).
    #[serde(skip_serializing)]
    #[schemars(range(min = 1))]
    pub szo_id: u32,
}

/// One СЗО's outages over a period.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct SzoOutages {
    #[serde(flatten)]
    pub szo: SzoRef,
    #[serde(flatten)]
    pub period: PeriodQuery,
}

/// The availability report: its period (required), page and filters.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct SzoAvailability {
    #[serde(flatten)]
    pub period: RequiredPeriodQuery,
    #[serde(flatten)]
    pub listed: Listed<SzoQuery>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SetVlan {
    /// ONU id.
    #[serde(skip_serializing)]
    #[schemars(range(min = 1))]
    pub onu_id: u64,
    /// The service VLAN to put the subscriber in.
    #[schemars(range(min = 1, max = 4094))]
    pub vlan: u16,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SetProfile {
    /// ONU id.
    #[serde(skip_serializing)]
    #[schemars(range(min = 1))]
    pub onu_id: u64,
    /// A LINE profile id from list_onu_profiles (the bandwidth the subscriber buys).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 32), regex(pattern = r"^[A-Za-z0-9_.-]+$"))]
    pub line_profile: Option<String>,
    /// A SERVICE profile id from list_onu_profiles.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 32), regex(pattern = r"^[A-Za-z0-9_.-]+$"))]
    pub service_profile: Option<String>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SetDescription {
    /// ONU id.
    #[serde(skip_serializing)]
    #[schemars(range(min = 1))]
    pub onu_id: u64,
    /// The new description: 1 to 64 ASCII letters, digits, spaces and -_.,:/()+@=
    #[schemars(
        length(min = 1, max = 64),
        regex(pattern = r"^[A-Za-z0-9 \-_.,:/()+@=]{1,64}$")
    )]
    pub description: String,
}
