//! ONUs: `GET /olts/{id}/onus`, `GET /onus` with every filter of SPEC §4, `GET /onus/{id}`.
//! Each OLT actor filters its own table; the handler merges the actors' first matches by
//! id, so a page costs the same however many ONUs the network has.

use super::{one, page_of, path_id, ApiResult, Params};
use crate::app::AppState;
use axum::extract::{Path, RawQuery, State};
use axum::routing::get;
use axum::Router;
use ponkeeper_actors::domain::{DownCause, Onu, OnuId, OnuStatus};
use ponkeeper_actors::olt::OltHandle;
use ponkeeper_actors::onu_table::{OnuFilter, OnuOrder, OnuQuery};
use serde::Serialize;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/olts/{id}/onus", get(of_olt))
        .route("/onus", get(list))
        .route("/onus/{id}", get(detail))
}

/// An ONU (SPEC §4 "ONU").
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OnuItem {
    pub id: OnuId,
    pub olt_id: u32,
    pub pon_port: String,
    pub onu_index: u32,
    pub serial: String,
    pub description: String,
    pub status: OnuStatus,
    pub last_down_cause: Option<DownCause>,
    pub distance: Option<u32>,
    pub rx_power: Option<f64>,
    pub tx_power: Option<f64>,
    pub olt_rx_power: Option<f64>,
    pub vlan: Option<u16>,
    pub last_update: String,
}

pub fn item(app: &AppState, onu: Onu) -> OnuItem {
    OnuItem {
        id: onu.id,
        olt_id: onu.olt_id,
        pon_port: onu.pon_port,
        onu_index: onu.onu_index,
        serial: onu.serial,
        description: onu.description,
        status: onu.status,
        last_down_cause: onu.last_down_cause,
        distance: onu.distance,
        rx_power: onu.rx_power,
        tx_power: onu.tx_power,
        olt_rx_power: onu.olt_rx_power,
        vlan: onu.vlan,
        last_update: app.clock.format(onu.last_update),
    }
}

/// The filters `status` and `ponPort` that every ONU list takes.
fn filter(params: &Params) -> Result<OnuFilter, super::ApiError> {
    Ok(OnuFilter {
        status: params.enumeration::<OnuStatus>("status")?,
        pon_port: params.text("ponPort").map(str::to_string),
        ..OnuFilter::default()
    })
}

async fn respond(
    app: &AppState,
    olts: &[OltHandle],
    filter: OnuFilter,
    params: &Params,
) -> ApiResult {
    let paging = params.paging(&app.config.paging)?;
    let query = OnuQuery {
        filter,
        order: OnuOrder::Id,
        limit: 0,
        thresholds: app.config.optics_thresholds(),
    };
    let (total, onus) = app.find_onus(olts, query, paging).await?;
    page_of(
        onus.into_iter().map(|o| item(app, o)).collect(),
        total,
        paging,
    )
}

async fn of_olt(
    State(app): State<AppState>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> ApiResult {
    let handle = app.olt(path_id("id", &id)?)?;
    let params = Params::parse(query.as_deref())?;
    let filter = filter(&params)?;
    respond(&app, &[handle], filter, &params).await
}

async fn list(State(app): State<AppState>, RawQuery(query): RawQuery) -> ApiResult {
    let params = Params::parse(query.as_deref())?;
    let filter = OnuFilter {
        serial: params.text("serial").map(str::to_string),
        text: params.text("q").map(str::to_string),
        ..filter(&params)?
    };
    let olts = app.olts_in_scope(&params)?;
    respond(&app, &olts, filter, &params).await
}

async fn detail(State(app): State<AppState>, Path(id): Path<String>) -> ApiResult {
    let onu = app.onu(path_id("id", &id)?).await?;
    one(item(&app, onu))
}
