//! The MCP server for LLM agents (docs/api.md, "MCP server"): one tool per REST read endpoint and per
//! action, named in snake_case, with schemars input schemas and structured JSON results.
//! Two transports share this one implementation: Streamable HTTP at [`crate::http::MCP_PATH`] on the
//! service's own port ([`http_service`], mounted by [`crate::router`]) and stdio
//! through `ponkeeper mcp` ([`serve_stdio`]), which bridges to a running service. The
//! tools themselves are in [`reads`], [`actions`] and [`provisioning`]; their inputs, the
//! REST query types flattened, in [`params`].
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

mod actions;
mod backend;
mod low_signal;
mod macs;
mod outages;
mod params;
mod provisioning;
mod reads;

pub use backend::{Backend, Reply};

use crate::records::AccessLevel;
use http::Method;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{tool_handler, ErrorData, RoleServer, ServerHandler, ServiceExt};
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
/// (`type=ONU_DOWN&type=ONU_UP`). An argument a model gave as an empty or blank string is
/// left out: to a tool it means "no filter", where REST refuses `name=` and `name=%20`.
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
                Value::String(text) if text.trim().is_empty() => {}
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
            tool_router: Self::reads_router()
                + Self::actions_router()
                + Self::provisioning_router()
                + Self::outages_router()
                + Self::macs_router(),
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
