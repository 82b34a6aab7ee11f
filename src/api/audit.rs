//! `GET /audit-logs` (SPEC §4): the audit log newest first, filtered by `from`/`to`
//! (local date-times), `keyName`, `action` and `result` (`SUCCESS` | `FAILURE`), paged.
//! Entries are written by [`crate::audit`].

use super::{page_of, ApiError, ApiResult, Params};
use crate::app::AppState;
use axum::extract::{RawQuery, State};
use axum::routing::get;
use axum::Router;
use ponkeeper_actors::store::{AuditEntry, AuditFilter, AuditResult};
use serde::Serialize;

pub fn router() -> Router<AppState> {
    Router::new().route("/audit-logs", get(list))
}

/// An audit entry (SPEC §4).
#[derive(Debug, Serialize)]
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
    pub params: Option<serde_json::Value>,
    pub result: AuditResult,
    pub http_status: u16,
    pub error_code: Option<String>,
    pub duration_ms: u64,
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
    }
}

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
    let store = app.store.clone();
    let (offset, size) = (paging.offset(), paging.size as usize);
    let (total, entries) =
        tokio::task::spawn_blocking(move || store.audit_entries(&filter, offset, size))
            .await
            .map_err(|e| ApiError::Internal(e.to_string()))?
            .map_err(|e| ApiError::Internal(e.to_string()))?;
    page_of(
        entries.into_iter().map(|e| item(&app, e)).collect(),
        total,
        paging,
    )
}
