//! The MCP tools of outages, alarms and the outside plant (docs/outages.md):
//! `list_outages`, `get_outage`, `list_alarms`, `get_alarm`, `list_splitters`,
//! `get_splitter` (read-only), `acknowledge_alarm`, `create_splitter` and `place_onu`
//! (FULL). Each is one REST call through the server's [`super::Backend`], so
//! validation, levels and the audit log are the REST API's; their router is added to the
//! main one in [`super::PonTools::new`]. The descriptions tell a model where to look
//! first when many subscribers call at once: the active outages.

use super::params::Listed;
use super::{with_query, PonTools};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::schemars::{self, JsonSchema};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, ErrorData, RoleServer};
use serde::{Deserialize, Serialize};

pub type ListOutages = Listed<crate::api::OutagesQuery>;
pub type ListAlarms = Listed<crate::api::AlarmsQuery>;

/// Arguments of `get_alarm`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlarmRef {
    /// Alarm id (from list_alarms).
    #[schemars(range(min = 1))]
    pub alarm_id: u64,
}

/// Arguments of `acknowledge_alarm`: the alarm and the body of `POST /alarms/{id}/ack`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AcknowledgeAlarm {
    /// Alarm id (from list_alarms).
    #[serde(skip_serializing)]
    #[schemars(range(min = 1))]
    pub alarm_id: u64,
    /// What is being done about it (at most 512 characters, any language).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
}
pub type ListSplitters = Listed<crate::api::SplittersQuery>;

/// Arguments of `get_outage`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OutageRef {
    /// Outage id (from list_outages, or `data.outageId` of an event).
    #[schemars(range(min = 1))]
    pub outage_id: u64,
}

/// Arguments of `get_splitter`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SplitterRef {
    /// Splitter id (from list_splitters).
    #[schemars(range(min = 1))]
    pub splitter_id: u32,
}

/// Arguments of `create_splitter`: the body of `POST /splitters`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateSplitter {
    /// Unique on its OLT, e.g. the ODB's label (1-64 characters).
    pub name: String,
    #[schemars(range(min = 1))]
    pub olt_id: u32,
    /// The PON port as the OLT's ONUs name it (`0/1/0`).
    pub pon_port: String,
    /// A first-level splitter of the same port this one hangs under.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lat: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lon: Option<f64>,
}

/// Arguments of `place_onu`: the body of `POST /onus/{id}/placement`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlaceOnu {
    /// ONU id (from list_onus or find_onu).
    #[serde(skip_serializing)]
    #[schemars(range(min = 1))]
    pub onu_id: u64,
    /// A splitter of the ONU's OLT and port; null takes the ONU off its splitter.
    pub splitter_id: Option<u32>,
}

fn body_of(value: &impl Serialize) -> Result<serde_json::Value, ErrorData> {
    serde_json::to_value(value)
        .map_err(|e| ErrorData::invalid_params(format!("cannot encode the arguments: {e}"), None))
}

#[tool_router(router = outages_router, vis = "pub(super)")]
impl PonTools {
    #[tool(
        description = "Outages: many ONUs down for one cause, found as the polls come in — \
PON_OUTAGE (LOS on most of a PON port: the feeder fibre), SPLITTER_OUTAGE (LOS behind one \
splitter), POWER_OUTAGE (dying gasp of several ONUs of one splitter, address or port), \
OLT_OUTAGE (the OLT offline). Each has its probable cause, OLT, port, splitter, the ONU ids, \
the subscribers' contracts, the СЗО hit, startedAt and endedAt (null while it goes on). \
Newest first; active=true for what is broken now. Look here first when many subscribers \
report no service at once.",
        annotations(read_only_hint = true)
    )]
    async fn list_outages(
        &self,
        Parameters(p): Parameters<ListOutages>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, with_query("/outages", &p)?).await
    }

    #[tool(
        description = "Alarms: one list of what is wrong now and what was — OLT_OFFLINE, \
OLT_DEGRADED, each outage (PON_OUTAGE, SPLITTER_OUTAGE, POWER_OUTAGE, OLT_OUTAGE), ONU_DOWN \
for an ONU down that no outage explains, OPTICS_CRITICAL — with severity, object (olt:ID, \
outage:ID, onu:ID), message, startedAt, clearedAt (null while active) and who acknowledged \
it, when and with what comment. Unacknowledged first. active=true, acknowledged=false for \
what nobody has taken yet.",
        annotations(read_only_hint = true)
    )]
    async fn list_alarms(
        &self,
        Parameters(p): Parameters<ListAlarms>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, with_query("/alarms", &p)?).await
    }

    #[tool(
        description = "One alarm by id, as list_alarms gives it.",
        annotations(read_only_hint = true)
    )]
    async fn get_alarm(
        &self,
        Parameters(p): Parameters<AlarmRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, format!("/alarms/{}", p.alarm_id)).await
    }

    #[tool(
        description = "FULL key. Acknowledge an alarm: records that this key has taken it, \
when, and an optional comment; once per alarm (a second time is CONFLICT naming who took \
it). Audited. Say what you are doing about it in the comment.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn acknowledge_alarm(
        &self,
        Parameters(p): Parameters<AcknowledgeAlarm>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = format!("/alarms/{}/ack", p.alarm_id);
        self.post(&ctx, path, Some(body_of(&p)?)).await
    }

    #[tool(
        description = "One outage by id, as list_outages gives it.",
        annotations(read_only_hint = true)
    )]
    async fn get_outage(
        &self,
        Parameters(p): Parameters<OutageRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, format!("/outages/{}", p.outage_id)).await
    }

    #[tool(
        description = "List splitters (optical splitters of the outside plant, ODBs): id, \
name, oltId, ponPort, parentId (the first-level splitter it hangs under), address, lat, lon. \
Filter by OLT and port.",
        annotations(read_only_hint = true)
    )]
    async fn list_splitters(
        &self,
        Parameters(p): Parameters<ListSplitters>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, with_query("/splitters", &p)?).await
    }

    #[tool(
        description = "One splitter with the splitters under it and the ONUs placed under it, \
each with its status, last down cause, signal and subscriber.",
        annotations(read_only_hint = true)
    )]
    async fn get_splitter(
        &self,
        Parameters(p): Parameters<SplitterRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, format!("/splitters/{}", p.splitter_id))
            .await
    }

    #[tool(
        description = "FULL key. Create a splitter on an OLT's PON port, on the feeder or under \
a first-level splitter of the same port (two levels at most); its name is unique on the OLT. \
Returns it with its id. Nothing is sent to the device.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn create_splitter(
        &self,
        Parameters(p): Parameters<CreateSplitter>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.post(&ctx, "/splitters".into(), Some(body_of(&p)?))
            .await
    }

    #[tool(
        description = "FULL key. Place an ONU under a splitter of its OLT and port (splitterId \
null takes it off), so outages group its downs by that splitter. Nothing is sent to the device.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn place_onu(
        &self,
        Parameters(p): Parameters<PlaceOnu>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = format!("/onus/{}/placement", p.onu_id);
        self.post(&ctx, path, Some(body_of(&p)?)).await
    }
}
