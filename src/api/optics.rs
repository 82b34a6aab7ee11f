//! Optics: an ONU's latest reading and its stored history, and `GET /optics` — the latest
//! readings across the network, worst Rx first, with the level set by `[optics]`
//! thresholds. History points are read from sled (see the store's optics tree).

use super::{one, page_of, path_id, ApiError, ApiResult, Params};
use crate::app::AppState;
use axum::extract::{Path, RawQuery, State};
use axum::routing::get;
use axum::Router;
use chrono::{DateTime, Utc};
use ponkeeper_actors::domain::{Onu, OnuId, OpticsLevel, OpticsPoint};
use ponkeeper_actors::onu_table::{OnuFilter, OnuOrder, OnuQuery};
use serde::Serialize;

/// Points one history request returns at most.
const MAX_HISTORY_POINTS: i64 = 10_000;
const DEFAULT_HISTORY_POINTS: i64 = 1_000;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/onus/{id}/optics", get(latest))
        .route("/onus/{id}/optics/history", get(history))
        .route("/optics", get(list))
}

/// An optics reading (SPEC §4). The vendors polled today report no temperature, voltage
/// or bias current in the tables ponkeeper reads, so those are `null`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OpticsItem {
    pub onu_id: OnuId,
    pub rx_power: Option<f64>,
    pub tx_power: Option<f64>,
    pub olt_rx_power: Option<f64>,
    pub temperature: Option<f64>,
    pub voltage: Option<f64>,
    pub bias_current: Option<f64>,
    pub level: OpticsLevel,
    pub measured_at: String,
}

fn reading(app: &AppState, onu: OnuId, point: &OpticsPoint) -> OpticsItem {
    OpticsItem {
        onu_id: onu,
        rx_power: point.rx_power,
        tx_power: point.tx_power,
        olt_rx_power: point.olt_rx_power,
        temperature: None,
        voltage: None,
        bias_current: None,
        level: point.level,
        measured_at: app.clock.format(point.at),
    }
}

fn latest_of(app: &AppState, onu: &Onu) -> OpticsItem {
    let point = OpticsPoint {
        at: onu.last_update,
        rx_power: onu.rx_power,
        tx_power: onu.tx_power,
        olt_rx_power: onu.olt_rx_power,
        level: app.config.optics_thresholds().level(onu.rx_power),
    };
    reading(app, onu.id, &point)
}

async fn latest(State(app): State<AppState>, Path(id): Path<String>) -> ApiResult {
    let onu = app.onu(path_id("id", &id)?).await?;
    one(latest_of(&app, &onu))
}

async fn history(
    State(app): State<AppState>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> ApiResult {
    let params = Params::parse(query.as_deref())?;
    let onu = app.onu(path_id("id", &id)?).await?;
    let now = Utc::now();
    let to: DateTime<Utc> = params.local_time("to", &app.clock)?.unwrap_or(now);
    let from = params
        .local_time("from", &app.clock)?
        .unwrap_or(to - chrono::Duration::days(1));
    if from > to {
        return Err(ApiError::InvalidParameter(
            "parameter `from` must not be after `to`".into(),
        ));
    }
    let limit = params
        .integer("limit", 1, MAX_HISTORY_POINTS)?
        .unwrap_or(DEFAULT_HISTORY_POINTS) as usize;
    let points = app
        .store
        .optics_history(onu.id, from, to, limit)
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    one(points
        .iter()
        .map(|p| reading(&app, onu.id, p))
        .collect::<Vec<_>>())
}

async fn list(State(app): State<AppState>, RawQuery(query): RawQuery) -> ApiResult {
    let params = Params::parse(query.as_deref())?;
    let paging = params.paging(&app.config.paging)?;
    let filter = OnuFilter {
        level: params.enumeration::<OpticsLevel>("level")?,
        ..OnuFilter::default()
    };
    let olts = app.olts_in_scope(&params)?;
    let query = OnuQuery {
        filter,
        order: OnuOrder::WorstRx,
        limit: 0,
        thresholds: app.config.optics_thresholds(),
    };
    let (total, onus) = app.find_onus(&olts, query, paging).await?;
    page_of(
        onus.iter().map(|o| latest_of(&app, o)).collect(),
        total,
        paging,
    )
}
