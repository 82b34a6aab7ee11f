//! The operations endpoints (docs/operations.md), answered without a key: `GET /healthz` (the
//! process answers) and `GET /readyz` (the store answers a read, takes a write and has
//! room on its disk, every OLT of the
//! inventory in force has its actor, and the fleet view answers with a row for each;
//! 503 `NOT_READY` in the error envelope otherwise, naming what is not ready; with the
//! history in VictoriaMetrics, a `history` check tells its backlog, never failing; a ready
//! answer adds what the history of the ONUs known will take on disk). Load
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
    /// What the traffic and optics history of the ONUs known now will take on disk,
    /// beside the free space the store check names.
    #[serde(rename = "historyEstimate")]
    pub history_estimate: HistoryEstimate,
}

/// `ponkeeper storage estimate` for the ONUs the fleet view knows now, at the config's
/// schedule and `[history]` retentions (docs/operations.md, "History").
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HistoryEstimate {
    /// ONUs of every OLT's latest table.
    pub onus: u64,
    /// Bytes a day of history adds to the tiers that keep it.
    pub bytes_per_day: u64,
    /// Bytes kept once every tier is full to its retention.
    pub steady_state_bytes: u64,
}

impl HistoryEstimate {
    fn of(state: &AppState, onus: u64) -> HistoryEstimate {
        let config = &state.config;
        let estimate = crate::storage::estimate(
            onus,
            crate::storage::Schedule::of(config),
            (&config.traffic_history(), &config.optics_history()),
            &crate::storage::MEASURED,
        );
        HistoryEstimate {
            onus,
            bytes_per_day: estimate.bytes_per_day.round() as u64,
            steady_state_bytes: estimate.steady_state_bytes.round() as u64,
        }
    }
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
    let (fleet, onus) = fleet_check(&state).await;
    let mut checks = vec![store_check(&state).await, fleet];
    checks.extend(history_check(&state));
    if checks.iter().all(|c| c.ok) {
        return Json(Single {
            success: true,
            data: Readiness {
                ready: true,
                checks,
                history_estimate: HistoryEstimate::of(&state, onus),
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

/// Every OLT of the inventory in force runs, and the fleet view knows each; with the
/// ONUs the view knows.
async fn fleet_check(state: &AppState) -> (ReadinessCheck, u64) {
    let mut onus = 0;
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
            Ok(rows) => {
                onus = rows.iter().map(|row| u64::from(row.total_onu)).sum();
                Ok(format!("{wanted} OLTs running, inventory reconciled"))
            }
        }
    };
    (check("fleet", outcome), onus)
}
