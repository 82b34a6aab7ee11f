//! The MCP server for LLM agents (docs/api.md, "MCP server"): one tool per REST read endpoint and per
//! action, named in snake_case, with schemars input schemas and structured JSON results.
//! Two transports share this one implementation: Streamable HTTP at [`crate::http::MCP_PATH`] on the
//! service's own port ([`http_service`], mounted by [`crate::router`]) and stdio
//! through `ponkeeper mcp` ([`serve_stdio`]), which bridges to a running service.
//!
//! Every tool is one REST call made through a [`Backend`]: in process it goes through the
//! REST router with the MCP request's own key and client address, so the REST key
//! checks, IP rules, levels and audit log are the only ones there are. The `/mcp` request
//! itself passes the key, IP and rate checks of [`crate::auth::authenticate`] (not the
//! level check: every MCP message is a POST); its tool call is not counted against the
//! rate a second time. FULL tools (every tool not annotated `readOnlyHint`) are not
//! listed for READ_ONLY keys, and a call to one is refused by the REST level check with
//! `FORBIDDEN` — audited like any refusal. A REST error becomes a tool error whose
//! structured content is `{code, message, httpStatus}` from the envelope.

mod backend;
mod low_signal;
mod params;
mod provisioning;

pub use backend::{Backend, Reply};

use crate::records::AccessLevel;
use http::Method;
use params::*;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde::Serialize;
use serde_json::{json, Value};
use std::sync::Arc;

/// The `/mcp` endpoint's tower service.
pub type HttpService = StreamableHttpService<PonTools, NeverSessionManager>;

const INSTRUCTIONS: &str = "ponkeeper manages an ISP's optical access network (GPON/EPON): \
OLTs grouped in communication nodes, the ONUs (subscriber terminals) on their PON ports, \
ONU optical levels, VLANs, OLT configuration backups, socially significant objects (СЗО) \
with their availability, and an audit log. Optical powers are in dBm (an ONU's rxPower \
below about -27 dBm is weak), distances in metres, times are local date-times such as \
2026-11-21T19:15:03. Lists are paged (page from 0, size up to 500) and say \
meta.totalCount. To look up a subscriber's ONU use find_onu; actions (restart, poll, \
reboot, VLAN, description, backup) need a FULL key and touch live equipment.";

/// The MCP server: the tools and the REST backend they call.
#[derive(Clone)]
pub struct PonTools {
    backend: Arc<Backend>,
    tool_router: ToolRouter<PonTools>,
}

/// `path?query` with `query` serialised as a URL query, a list as its parameter repeated
/// (`type=ONU_DOWN&type=ONU_UP`). An argument a model gave as an empty string is left
/// out: to a tool it means "no filter", where REST refuses `name=`.
fn with_query<T: Serialize>(path: &str, query: &T) -> Result<String, ErrorData> {
    let cannot = |e: &dyn std::fmt::Display| {
        ErrorData::invalid_params(format!("cannot encode the arguments: {e}"), None)
    };
    let arguments = serde_json::to_value(query).map_err(|e| cannot(&e))?;
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (name, value) in arguments.as_object().into_iter().flatten() {
        let values = match value {
            Value::Array(items) => items.clone(),
            other => vec![other.clone()],
        };
        for value in values {
            match value {
                Value::Null => {}
                Value::String(text) if text.is_empty() => {}
                Value::String(text) => pairs.push((name.clone(), text)),
                other => pairs.push((name.clone(), other.to_string())),
            }
        }
    }
    let query = serde_urlencoded::to_string(&pairs).map_err(|e| cannot(&e))?;
    Ok(if query.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{query}")
    })
}

/// A REST answer as a tool result: the envelope without `success` (so `data`, and `meta`
/// for lists), or the envelope's error as a tool error.
pub fn tool_result(reply: Reply) -> CallToolResult {
    let Reply { status, mut body } = reply;
    if (200..300).contains(&status) {
        if let Some(envelope) = body.as_object_mut() {
            envelope.remove("success");
        }
        return CallToolResult::structured(body);
    }
    let code = body["error"]["code"]
        .as_str()
        .unwrap_or("HTTP_ERROR")
        .to_string();
    let message = body["error"]["message"]
        .as_str()
        .unwrap_or("the service gave no message")
        .to_string();
    let mut result = CallToolResult::structured_error(
        json!({ "code": code, "message": message, "httpStatus": status }),
    );
    result.content = vec![ContentBlock::text(format!(
        "{code} (HTTP {status}): {message}"
    ))];
    result
}

/// Whether a tool only reads (and so is listed for READ_ONLY keys).
fn reads_only(tool: &Tool) -> bool {
    tool.annotations
        .as_ref()
        .and_then(|a| a.read_only_hint)
        .unwrap_or(false)
}

impl PonTools {
    pub fn new(backend: Backend) -> PonTools {
        PonTools {
            backend: Arc::new(backend),
            tool_router: Self::tool_router() + Self::provisioning_router(),
        }
    }

    /// The tools a key of `level` is shown.
    fn visible_tools(&self, level: Option<AccessLevel>) -> Vec<Tool> {
        let full = level == Some(AccessLevel::Full);
        self.tool_router
            .list_all()
            .into_iter()
            .filter(|tool| full || reads_only(tool))
            .collect()
    }

    async fn rest(
        &self,
        ctx: &RequestContext<RoleServer>,
        method: Method,
        path: String,
        body: Option<Value>,
    ) -> Result<CallToolResult, ErrorData> {
        match self.backend.call(ctx, method, &path, body).await {
            Ok(reply) => Ok(tool_result(reply)),
            Err(why) => self.rest_failed(&path, why),
        }
    }

    /// The tool result when the REST API gave no answer at all.
    fn rest_failed(&self, path: &str, why: String) -> Result<CallToolResult, ErrorData> {
        tracing::warn!(%path, %why, "MCP tool call got no REST answer");
        Ok(CallToolResult::structured_error(json!({
            "code": "BACKEND_UNAVAILABLE",
            "message": why,
        })))
    }

    async fn get(
        &self,
        ctx: &RequestContext<RoleServer>,
        path: String,
    ) -> Result<CallToolResult, ErrorData> {
        self.rest(ctx, Method::GET, path, None).await
    }

    async fn post(
        &self,
        ctx: &RequestContext<RoleServer>,
        path: String,
        body: Option<Value>,
    ) -> Result<CallToolResult, ErrorData> {
        self.rest(ctx, Method::POST, path, body).await
    }
}

#[tool_router]
impl PonTools {
    #[tool(
        description = "List OLTs (optical line terminals) with their vendor, model, IP, city, \
communication node, session status (ONLINE, DEGRADED, OFFLINE, CONNECTING, DISABLED), port \
and ONU counts and last update. Filter by vendor, city, status or node. Use it to get an \
overview of the network or to find an OLT's id.",
        annotations(read_only_hint = true)
    )]
    async fn list_olts(
        &self,
        Parameters(p): Parameters<ListOlts>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, with_query("/olts", &p)?).await
    }

    #[tool(
        description = "One OLT in detail: everything list_olts gives plus ONUs online, sysName, \
uptime in seconds, firmware, per-PON-port ONU counts (ports like 0/1/0) and the management \
session (status, since when, last poll time and duration in ms, last error, failures in a \
row, recent transitions). Use it to tell why an OLT is OFFLINE or DEGRADED.",
        annotations(read_only_hint = true)
    )]
    async fn get_olt(
        &self,
        Parameters(p): Parameters<OltRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, format!("/olts/{}", p.olt_id)).await
    }

    #[tool(
        description = "List communication nodes (sites that house OLTs) with city, description, \
number of OLTs and ONUs total and online. Use it to see which sites exist or to get a node id \
for filtering other lists.",
        annotations(read_only_hint = true)
    )]
    async fn list_nodes(
        &self,
        Parameters(p): Parameters<ListNodes>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, with_query("/nodes", &p)?).await
    }

    #[tool(
        description = "One communication node with its OLT count and ONU totals (all and online).",
        annotations(read_only_hint = true)
    )]
    async fn get_node(
        &self,
        Parameters(p): Parameters<NodeRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, format!("/nodes/{}", p.node_id)).await
    }

    #[tool(
        description = "List ONUs (subscriber optical terminals), ordered by id, optionally of one \
OLT, node, PON port (such as 0/1/3) or status. Each ONU has id, oltId, ponPort, onuIndex, \
serial, description, status (ONLINE/OFFLINE), lastDownCause (LOS = fibre cut or unplugged, \
DYING_GASP = power loss, DEACTIVATED, REBOOT = reset or rebooted, UNKNOWN), distance in metres, rxPower/txPower/\
oltRxPower in dBm, service VLAN and last update. To find one subscriber use find_onu instead.",
        annotations(read_only_hint = true)
    )]
    async fn list_onus(
        &self,
        Parameters(p): Parameters<ListOnus>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, with_query("/onus", &p)?).await
    }

    #[tool(
        description = "Find ONUs by serial (exact GPON SN or EPON MAC) and/or by text in the \
serial or description (subscriber name, contract number, address). Returns the matching \
ONUs with status, optical levels in dBm and VLAN. Use it first when a user names a \
subscriber or a device; give at least one of serial or q.",
        annotations(read_only_hint = true)
    )]
    async fn find_onu(
        &self,
        Parameters(p): Parameters<FindOnu>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let given = |text: &Option<String>| text.as_deref().is_some_and(|s| !s.trim().is_empty());
        let search = &p.query;
        if !(given(&search.serial) || given(&search.q) || given(&search.contract)) {
            return Ok(CallToolResult::structured_error(json!({
                "code": "INVALID_PARAMETER",
                "message": "give `serial`, `q` (text to look for) or `contract`",
            })));
        }
        self.get(&ctx, with_query("/onus", &p)?).await
    }

    #[tool(
        description = "One ONU by its id: status, last down cause, distance in metres, rxPower, \
txPower and oltRxPower in dBm (null when the device has no reading), VLAN, description.",
        annotations(read_only_hint = true)
    )]
    async fn get_onu(
        &self,
        Parameters(p): Parameters<OnuRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, format!("/onus/{}", p.onu_id)).await
    }

    #[tool(
        description = "The latest optical reading of one ONU: rxPower (received at the ONU), \
txPower and oltRxPower (received at the OLT) in dBm, temperature in °C, voltage in V, bias \
current in mA (null where the vendor lacks them), and level OK/WARNING/CRITICAL/UNKNOWN \
from the rxPower thresholds. Use it to judge a subscriber's line quality.",
        annotations(read_only_hint = true)
    )]
    async fn get_onu_optics(
        &self,
        Parameters(p): Parameters<OnuRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, format!("/onus/{}/optics", p.onu_id)).await
    }

    #[tool(
        description = "Stored optical readings of one ONU over a period (default the last 24 \
hours), oldest first: rxPower, txPower, oltRxPower in dBm and level per reading. Use it to \
see whether a weak signal is new, degrading or intermittent.",
        annotations(read_only_hint = true)
    )]
    async fn get_onu_optics_history(
        &self,
        Parameters(p): Parameters<OpticsHistory>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = format!("/onus/{}/optics/history", p.onu_id);
        self.get(&ctx, with_query(&path, &p)?).await
    }

    #[tool(
        description = "ONUs ordered by worst received power first (rxPower in dBm, most negative \
first), each with its serial, description, oltId and ponPort beside its latest reading and \
level. Without `level` it lists the ONUs that need attention (CRITICAL and WARNING); filter by \
OLT, node or one level (CRITICAL, WARNING, OK, UNKNOWN). Use it to find subscribers with weak \
or failing optical signal.",
        annotations(read_only_hint = true)
    )]
    async fn list_low_signal_onus(
        &self,
        Parameters(p): Parameters<LowSignal>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        if p.query.level.is_some() {
            return self.get(&ctx, with_query("/optics", &p)?).await;
        }
        match low_signal::needing_attention(&self.backend, &ctx, &p).await {
            Ok(reply) => Ok(tool_result(reply)),
            Err(why) => self.rest_failed("/optics", why),
        }
    }

    #[tool(
        description = "VLANs configured on the OLTs: oltId, vlanId, name, type and how many ONUs \
use each. Filter by OLT or VLAN number. Use it before set_onu_vlan to check a VLAN exists.",
        annotations(read_only_hint = true)
    )]
    async fn list_vlans(
        &self,
        Parameters(p): Parameters<ListVlans>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, with_query("/vlans", &p)?).await
    }

    #[tool(
        description = "Stored running-configuration backups of one OLT, newest first: id, \
takenAt, sizeBytes, sha256 and whether it changed from the previous backup (no content; use \
get_olt_config for that).",
        annotations(read_only_hint = true)
    )]
    async fn list_olt_configs(
        &self,
        Parameters(p): Parameters<OfOlt<crate::http::PageQuery>>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = format!("/olts/{}/configs", p.olt_id);
        self.get(&ctx, with_query(&path, &p)?).await
    }

    #[tool(
        description = "One stored configuration backup of an OLT with its full text (content).",
        annotations(read_only_hint = true)
    )]
    async fn get_olt_config(
        &self,
        Parameters(p): Parameters<ConfigRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, format!("/olts/{}/configs/{}", p.olt_id, p.config_id))
            .await
    }

    #[tool(
        description = "Unified diff between two configuration backups of an OLT (by default \
the given one against the one before it). Use it to see what changed on the device.",
        annotations(read_only_hint = true)
    )]
    async fn diff_olt_config(
        &self,
        Parameters(p): Parameters<ConfigDiff>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = format!(
            "/olts/{}/configs/{}/diff",
            p.config.olt_id, p.config.config_id
        );
        self.get(&ctx, with_query(&path, &p)?).await
    }

    #[tool(
        description = "The event log, newest first: ONUs down and up (with cause), PON \
outages (likely fibre cuts), OLT status moves, optics level changes, СЗО down/up, new \
running-config versions. Use it to answer what happened, and when.",
        annotations(read_only_hint = true)
    )]
    async fn list_events(
        &self,
        Parameters(p): Parameters<ListEvents>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, with_query("/events", &p)?).await
    }

    #[tool(
        description = "The audit log, newest first: who (key name, client IP) did what \
(action such as onu.reboot, target, parameters), when, with which result and HTTP status. \
Use it to answer who changed or rebooted something.",
        annotations(read_only_hint = true)
    )]
    async fn list_audit_logs(
        &self,
        Parameters(p): Parameters<ListAudit>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, with_query("/audit-logs", &p)?).await
    }

    #[tool(
        description = "Socially significant objects (СЗО: schools, hospitals, FAPs, fire \
stations, ...) with their live status (UP, DOWN, UNKNOWN, UNBOUND = its ONU not seen), since \
when, the ONU/OLT/node serving them, rxPower in dBm and SLA percent. Use status=DOWN to see \
which are without service now.",
        annotations(read_only_hint = true)
    )]
    async fn list_szo(
        &self,
        Parameters(p): Parameters<ListSzo>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, with_query("/szo", &p)?).await
    }

    #[tool(
        description = "One socially significant object (СЗО) with address, bandwidth in Mbit/s, \
SLA percent, live status and the ONU serving it.",
        annotations(read_only_hint = true)
    )]
    async fn get_szo(
        &self,
        Parameters(p): Parameters<SzoRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, format!("/szo/{}", p.szo_id)).await
    }

    #[tool(
        description = "Outages of one СЗО over a period (default the last 30 days): start, end, \
duration in seconds and cause (the ONU's or the OLT's), with availability over the period.",
        annotations(read_only_hint = true)
    )]
    async fn get_szo_outages(
        &self,
        Parameters(p): Parameters<SzoOutages>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = format!("/szo/{}/outages", p.szo.szo_id);
        self.get(&ctx, with_query(&path, &p)?).await
    }

    #[tool(
        description = "Availability report of СЗО over a period (from and to required): per \
object up/down/unknown seconds, availability percent, outage count and whether its SLA was \
met, plus a summary per object type. Use it for monthly SLA reporting.",
        annotations(read_only_hint = true)
    )]
    async fn szo_availability_report(
        &self,
        Parameters(p): Parameters<SzoAvailability>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, with_query("/szo/availability", &p)?).await
    }

    #[tool(
        description = "FULL key. Drop and re-establish the service's management session with an \
OLT (it reconnects and polls anew); returns the OLT. Use it when an OLT is stuck DEGRADED or \
OFFLINE although the device is reachable. Does not touch subscribers.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            open_world_hint = true
        )
    )]
    async fn restart_olt_session(
        &self,
        Parameters(p): Parameters<OltRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.post(&ctx, format!("/olts/{}/restart-session", p.olt_id), None)
            .await
    }

    #[tool(
        description = "FULL key. Poll an OLT now instead of waiting for the next scheduled poll; \
returns the OLT after the poll. Use it to get fresh ONU states and optical levels.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn poll_olt(
        &self,
        Parameters(p): Parameters<OltRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.post(&ctx, format!("/olts/{}/poll", p.olt_id), None)
            .await
    }

    #[tool(
        description = "FULL key. Reboot an ONU over the OLT's CLI: the subscriber loses service \
for a minute or so. Returns {onuId, accepted}. Only when the subscriber agrees or the ONU is \
misbehaving.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            open_world_hint = true
        )
    )]
    async fn reboot_onu(
        &self,
        Parameters(p): Parameters<OnuRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.post(&ctx, format!("/onus/{}/reboot", p.onu_id), None)
            .await
    }

    #[tool(
        description = "FULL key. Set an ONU's service VLAN (1-4094) on the OLT; returns the ONU. \
Moves the subscriber's traffic: check the VLAN with list_vlans first.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn set_onu_vlan(
        &self,
        Parameters(p): Parameters<SetVlan>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = format!("/onus/{}/vlan", p.onu_id);
        self.post(&ctx, path, Some(json!({ "vlan": p.vlan }))).await
    }

    #[tool(
        description = "FULL key. Set an ONU's description on the device (1-64 ASCII letters, \
digits, spaces and -_.,:/()+@=), e.g. the subscriber's contract number; returns the ONU.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn set_onu_description(
        &self,
        Parameters(p): Parameters<SetDescription>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = format!("/onus/{}/description", p.onu_id);
        self.post(&ctx, path, Some(json!({ "description": p.description })))
            .await
    }

    #[tool(
        description = "FULL key. Fetch an OLT's running configuration over SSH now and store it \
as a backup; returns the backup (id, sha256, sizeBytes, changed from the previous one).",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            open_world_hint = true
        )
    )]
    async fn backup_olt_config(
        &self,
        Parameters(p): Parameters<OltRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.post(&ctx, format!("/olts/{}/configs/backup", p.olt_id), None)
            .await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for PonTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("ponkeeper", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS.to_string())
    }

    /// Only the tools the caller's key may use: READ_ONLY keys see no FULL tools.
    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let level = self.backend.level(&context);
        Ok(ListToolsResult::with_all_items(self.visible_tools(level)))
    }
}

/// The Streamable HTTP transport for `/mcp`, whose tools call `rest` (the REST router,
/// without `/mcp`) in process. Stateless: every POST carries its own key and is checked
/// on its own, and answers are plain JSON. The `Host` allow-list (a DNS-rebinding guard
/// for unauthenticated local servers) is off: this endpoint needs an API key, which a
/// browser tricked by DNS rebinding does not have, and it must answer on the service's
/// real host names.
pub fn http_service(rest: axum::Router) -> HttpService {
    let tools = PonTools::new(Backend::InProcess { rest });
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .disable_allowed_hosts()
        .with_max_request_body_bytes(crate::http::MAX_BODY_BYTES);
    StreamableHttpService::new(
        move || Ok(tools.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    )
}

/// The `/mcp` endpoint as the router mounts it: a JSON-RPC batch (a JSON array; MCP
/// dropped batching in 2025-06-18) is refused with 400 `INVALID_BODY` in the envelope
/// before the transport, which would answer it with a plain-text 415.
pub fn single_messages(service: HttpService) -> axum::Router {
    axum::Router::new()
        .fallback_service(service)
        .layer(axum::middleware::from_fn(refuse_batches))
}

async fn refuse_batches(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let (parts, body) = request.into_parts();
    // The body was read already, within its limit (`crate::body`): this takes it again.
    let bytes = match axum::body::to_bytes(body, crate::http::MAX_BODY_BYTES).await {
        Ok(bytes) => bytes,
        Err(e) => {
            return crate::error::ApiError::InvalidBody(format!("the body cannot be read: {e}"))
                .into_response()
        }
    };
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
        return crate::error::ApiError::InvalidBody(
            "JSON-RPC batches are not supported: send one message per request".into(),
        )
        .into_response();
    }
    next.run(axum::extract::Request::from_parts(parts, bytes.into()))
        .await
}

/// `ponkeeper mcp`: an MCP server on stdin/stdout whose tools call the REST API at `url`
/// with `key`. Fails at start if the service cannot be reached or refuses the key.
pub async fn serve_stdio(url: &str, key: &str) -> anyhow::Result<()> {
    let (backend, key_name) = Backend::remote(url, key).await?;
    let level = match &backend {
        Backend::Remote { level, .. } => *level,
        Backend::InProcess { .. } => AccessLevel::ReadOnly,
    };
    tracing::info!(%url, %key_name, level = level.as_str(), "MCP over stdio");
    let service = PonTools::new(backend)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| anyhow::anyhow!("MCP start over stdio failed: {e}"))?;
    service.waiting().await?;
    Ok(())
}
