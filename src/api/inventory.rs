//! `POST /inventory/reload`: re-reads the inventory file and reconciles the OLT actors
//! (SPEC §2). An invalid file leaves the running inventory in force and answers 409
//! `CONFLICT` naming the file, line and field.

use super::{one, ApiError, ApiResult};
use crate::app::AppState;
use axum::extract::State;
use axum::routing::post;
use axum::Router;
use serde::Serialize;

pub fn router() -> Router<AppState> {
    Router::new().route("/inventory/reload", post(reload))
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReloadItem {
    pub nodes: usize,
    pub olts: usize,
    pub added: usize,
    pub removed: usize,
    pub changed: usize,
    pub unchanged: usize,
}

async fn reload(State(app): State<AppState>) -> ApiResult {
    let (inventory, report) = app.reload_inventory().await.map_err(|e| match e {
        crate::app::ReloadError::Invalid(message) => ApiError::Conflict(format!(
            "the inventory file is invalid, the running inventory stays: {message}"
        )),
        crate::app::ReloadError::Fleet(message) => ApiError::Internal(message),
    })?;
    one(ReloadItem {
        nodes: inventory.nodes.len(),
        olts: inventory.olts.len(),
        added: report.added,
        removed: report.removed,
        changed: report.changed,
        unchanged: report.unchanged,
    })
}
