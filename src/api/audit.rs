//! `GET /audit-logs` (SPEC §4): the audit log newest first, filtered by `from`/`to`
//! (local date-times), `keyName`, `action` and `result` (`SUCCESS` | `FAILURE`), paged.
//! Entries are written by [`crate::audit`] and read through [`crate::history`].

use super::doc::{BadParameter, LocalDateTime, PageParams, Refusals};
use crate::http::{page_of, ApiResult, Paged, Params};
use crate::records::{AuditEntry, AuditFilter, AuditResult, Channel};
use crate::state::AppState;
use axum::extract::{RawQuery, State};
use serde::Serialize;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list))
}

/// Filters of `GET /audit-logs`.
#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
#[allow(dead_code)] // documents the query that `Params` parses
struct AuditFilters {
    /// Local date-time, e.g. `2026-11-21T19:15:03`: entries at or after it.
    #[param(required = false, inline)]
    from: Option<LocalDateTime>,
    /// Local date-time: entries at or before it.
    #[param(required = false, inline)]
    to: Option<LocalDateTime>,
    #[param(required = false)]
    key_name: String,
    /// Action name, e.g. `onu.reboot`.
    #[param(required = false)]
    action: String,
    #[param(required = false, inline)]
    result: AuditResult,
}

/// An audit entry (SPEC §4).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditItem {
    pub id: u64,
    pub at: String,
    pub key_name: Option<String>,
    pub client_ip: String,
    pub method: String,
    pub path: String,
    pub action: String,
    pub target: Option<String>,
    /// The request body, when one was read: its JSON, or its text, if that is at most
    /// 1 KiB; else `{"cut": true, "bytes": <length>, "text": <its first 1 KiB>}`. For an
    /// `auth.repeated_refusals` entry, `{"count": <refusals it stands for>}`.
    pub params: Option<serde_json::Value>,
    pub result: AuditResult,
    pub http_status: u16,
    pub error_code: Option<String>,
    pub duration_ms: u64,
    /// Which client made the request: `REST`, `MCP` (a tool call) or `UI` (the operator
    /// page).
    pub channel: Channel,
}

fn item(app: &AppState, entry: AuditEntry) -> AuditItem {
    AuditItem {
        id: entry.id,
        at: app.clock.format(entry.at),
        key_name: entry.key_name,
        client_ip: entry.client_ip,
        method: entry.method,
        path: entry.path,
        action: entry.action,
        target: entry.target,
        params: entry.params,
        result: entry.result,
        http_status: entry.http_status,
        error_code: entry.error_code,
        duration_ms: entry.duration_ms,
        channel: entry.channel,
    }
}

#[utoipa::path(
    get,
    path = "/audit-logs",
    operation_id = "list_audit_logs",
    tag = "audit",
    summary = "The audit log",
    description = "Entries newest first, filtered and paged.",
    params(PageParams, AuditFilters),
    responses((status = 200, description = "one page of entries", body = Paged<AuditItem>), BadParameter, Refusals)
)]
async fn list(State(app): State<AppState>, RawQuery(query): RawQuery) -> ApiResult {
    let params = Params::parse(query.as_deref())?;
    let paging = params.paging(&app.config.paging)?;
    let filter = AuditFilter {
        from: params.local_time("from", &app.clock)?,
        to: params.local_time("to", &app.clock)?,
        key_name: params.text("keyName").map(str::to_string),
        action: params.text("action").map(str::to_string),
        result: params.enumeration::<AuditResult>("result")?,
    };
    let (total, entries) =
        crate::history::audit_entries(&app, filter, paging.offset(), paging.size as usize).await?;
    page_of(
        entries.into_iter().map(|e| item(&app, e)).collect(),
        total,
        paging,
    )
}
