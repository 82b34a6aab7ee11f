//! `GET /audit-logs` (docs/api.md): the audit log newest first, filtered by `from`/`to`
//! (local date-times), `keyName`, `action` and `result` (`SUCCESS` | `FAILURE`), paged.
//! Entries are written by [`crate::audit`] and read through [`crate::history`].

use super::doc::{BadParameter, Refusals};
use crate::http::{page_of, ApiResult, LocalDateTime, PageQuery, Paged, Query};
use crate::records::{AuditEntry, AuditFilter, AuditResult, Channel};
use crate::state::AppState;
use axum::extract::State;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list))
}

/// Filters of `GET /audit-logs`.
#[derive(Debug, Default, Deserialize, Serialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct AuditQuery {
    /// Local date-time, e.g. `2026-11-21T19:15:03`: entries at or after it.
    #[param(inline)]
    pub from: Option<LocalDateTime>,
    /// Local date-time: entries at or before it.
    #[param(inline)]
    pub to: Option<LocalDateTime>,
    /// Only requests made with the key of this name.
    pub key_name: Option<String>,
    /// Action name, e.g. `onu.reboot`, `onu.set_vlan`, `olt.restart_session` or `read`.
    pub action: Option<String>,
    /// Only successes or only failures.
    #[param(inline)]
    pub result: Option<AuditResult>,
}

/// An audit entry (docs/api.md).
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
    /// `auth.repeated_refusals` entry, `{"count": <refusals it stands for>}`; for an
    /// `auth.refusals_over_budget` entry (`clientIp` `*`), `{"count": N, "addresses": M}`.
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
    params(PageQuery, AuditQuery),
    responses((status = 200, description = "one page of entries", body = Paged<AuditItem>), BadParameter, Refusals)
)]
async fn list(
    State(app): State<AppState>,
    Query(page_query): Query<PageQuery>,
    Query(query): Query<AuditQuery>,
) -> ApiResult {
    let paging = page_query.paging(&app.config.paging)?;
    let filter = AuditFilter {
        from: query.from.map(|at| at.instant(&app.clock)),
        to: query.to.map(|at| at.instant(&app.clock)),
        key_name: query.key_name,
        action: query.action,
        result: query.result,
    };
    let (total, entries) =
        crate::history::audit_entries(&app, filter, paging.offset(), paging.size as usize).await?;
    page_of(
        entries.into_iter().map(|e| item(&app, e)).collect(),
        total,
        paging,
    )
}
