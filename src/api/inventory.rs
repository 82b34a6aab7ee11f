//! `POST /inventory/reload`: re-reads the inventory file and reconciles the OLT actors
//! (docs/operations.md). An invalid file leaves the running inventory in force and answers 422
//! `INVALID_INVENTORY` naming the file, line and field: the request itself was fine (it
//! has no body, so neither 400 `INVALID_BODY` nor 409 `CONFLICT` would say what failed).

use super::doc::{Refusals, TooLarge};
use crate::error::ApiError;
use crate::http::{one, ApiResult, Single};
use crate::state::AppState;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(reload))
}

/// What a reload found and changed.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReloadItem {
    pub nodes: usize,
    pub olts: usize,
    pub added: usize,
    pub removed: usize,
    pub changed: usize,
    pub unchanged: usize,
}

#[utoipa::path(
    post,
    path = "/inventory/reload",
    operation_id = "reload_inventory",
    tag = "inventory",
    summary = "Reload the inventory file",
    description = "FULL keys only. Re-reads the inventory and reconciles the OLTs with it.",
    responses(
        (status = 200, description = "counts after the reload", body = Single<ReloadItem>),
        (status = 422, description = "`INVALID_INVENTORY`: the file is invalid (the message names the file, line and field); the running inventory stays", body = super::doc::ErrorEnvelope),
        TooLarge,
        Refusals
    )
)]
async fn reload(State(app): State<AppState>) -> ApiResult {
    let (inventory, report) = app.reload_inventory().await.map_err(|e| match e {
        crate::state::ReloadError::Invalid(message) => ApiError::InvalidInventory(format!(
            "the inventory file is invalid, the running inventory stays: {message}"
        )),
        crate::state::ReloadError::Fleet(message) => ApiError::Internal(message),
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
