//! The operations endpoints (docs/operations.md), answered without a key: `GET /healthz` (the
//! process answers) and `GET /readyz` (the store answers a read, takes a write and has
//! room on its disk, every OLT of the
//! inventory in force has its actor, and the fleet view answers with a row for each;
//! 503 `NOT_READY` in the error envelope otherwise, naming what is not ready; with the
//! history in VictoriaMetrics, a `history` check tells its backlog, never failing). Load
//! balancers and orchestrators probe them; [`crate::router`] mounts them in front
//! of the key check and adds them to the OpenAPI document.

use crate::api::doc::ErrorEnvelope;
use crate::http::Single;
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use serde_json::json;
use std::time::Duration;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// How long a readiness check may take before it counts as failed.
const CHECK_TIMEOUT: Duration = Duration::from_secs(2);

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(healthz))
        .routes(routes!(readyz))
}

/// The process answers.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// Always `ok`.
    pub status: String,
}

/// One readiness check and its outcome.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReadinessCheck {
    /// `store`, `fleet`, or `history` (VictoriaMetrics' backlog).
    pub name: String,
    pub ok: bool,
    /// What was found, for a person.
    pub detail: String,
}

/// The checks of a ready service.
#[derive(Debug, Serialize, ToSchema)]
pub struct Readiness {
    /// Always `true` in a 200 answer.
    pub ready: bool,
    pub checks: Vec<ReadinessCheck>,
}

#[utoipa::path(
    get,
    path = "/healthz",
    operation_id = "healthz",
    tag = "operations",
    summary = "Liveness: the process answers",
    description = "Needs no key. Answers 200 as long as the process serves HTTP.",
    security(()),
    responses((status = 200, description = "the process answers", body = Single<Health>))
)]
async fn healthz() -> Response {
    Json(Single {
        success: true,
        data: Health {
            status: "ok".into(),
        },
    })
    .into_response()
}

#[utoipa::path(
    get,
    path = "/readyz",
    operation_id = "readyz",
    tag = "operations",
    summary = "Readiness: store open, inventory reconciled",
    description = "Needs no key. 200 when the store answers a read, every OLT of the \
        inventory in force has its actor and the fleet view answers with a row for each; \
        503 `NOT_READY` otherwise, the message naming each failed check.",
    security(()),
    responses(
        (status = 200, description = "ready", body = Single<Readiness>),
        (status = 503, description = "`NOT_READY`: a check failed", body = ErrorEnvelope),
    )
)]
async fn readyz(State(state): State<AppState>) -> Response {
    let mut checks = vec![store_check(&state).await, fleet_check(&state).await];
    checks.extend(history_check(&state));
    if checks.iter().all(|c| c.ok) {
        return Json(Single {
            success: true,
            data: Readiness {
                ready: true,
                checks,
            },
        })
        .into_response();
    }
    let message = checks
        .iter()
        .filter(|c| !c.ok)
        .map(|c| format!("{}: {}", c.name, c.detail))
        .collect::<Vec<_>>()
        .join("; ");
    let body = json!({ "success": false, "error": { "code": "NOT_READY", "message": message } });
    (StatusCode::SERVICE_UNAVAILABLE, Json(body)).into_response()
}

fn check(name: &str, outcome: Result<String, String>) -> ReadinessCheck {
    let ok = outcome.is_ok();
    ReadinessCheck {
        name: name.into(),
        ok,
        detail: outcome.unwrap_or_else(|e| e),
    }
}

/// The store answers a read and takes a write within [`CHECK_TIMEOUT`], and has room
/// to write (writes are held back while the disk is nearly full:
/// `ponkeeper_actors::store::space`).
async fn store_check(state: &AppState) -> ReadinessCheck {
    let store = state.store.clone();
    let read = tokio::task::spawn_blocking(move || store.ping());
    let outcome = match tokio::time::timeout(CHECK_TIMEOUT, read).await {
        Ok(Ok(Ok(status))) => Ok(status),
        Ok(Ok(Err(error))) => Err(error),
        Ok(Err(error)) => Err(format!("the read task failed: {error}")),
        Err(_) => Err(format!("no answer to a read within {CHECK_TIMEOUT:?}")),
    };
    check("store", outcome)
}

/// With the history kept in VictoriaMetrics, its backlog: batches and bytes waiting on
/// disk, batches dropped, the last failed send. Always ok: while VictoriaMetrics is away
/// the batches wait, and the service serves on.
fn history_check(state: &AppState) -> Option<ReadinessCheck> {
    let (url, status) = state.history.backlog()?;
    let mut detail = format!(
        "VictoriaMetrics at {url}: backlog {} batches, {} bytes; {} batches dropped",
        status.batches, status.bytes, status.dropped
    );
    if let Some(error) = status.last_error {
        detail.push_str(&format!("; last send failed: {error}"));
    }
    Some(check("history", Ok(detail)))
}

/// Every OLT of the inventory in force runs, and the fleet view knows each.
async fn fleet_check(state: &AppState) -> ReadinessCheck {
    let inventory = state.inventory();
    let wanted = inventory.olts.len();
    let without_actor: Vec<String> = inventory
        .olts
        .iter()
        .filter(|olt| state.fleet.olt(olt.id).is_none())
        .map(|olt| olt.id.to_string())
        .collect();
    let outcome = if !without_actor.is_empty() {
        Err(format!(
            "OLTs without a running actor: {}",
            without_actor.join(", ")
        ))
    } else {
        match state.fleet.view().summaries(None).await {
            Err(error) => Err(format!("the fleet view does not answer: {error}")),
            Ok(rows) if rows.len() < wanted => Err(format!(
                "the fleet view knows {} of the inventory's {wanted} OLTs",
                rows.len()
            )),
            Ok(_) => Ok(format!("{wanted} OLTs running, inventory reconciled")),
        }
    };
    check("fleet", outcome)
}
