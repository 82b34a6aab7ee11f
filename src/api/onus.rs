//! ONUs: `GET /olts/{id}/onus`, `GET /onus` with every filter of SPEC §4, `GET /onus/{id}`.
//! Each ONU shows its subscriber binding ([`crate::records::subscribers`]); `q` also
//! searches the bindings and `contract=` picks ONUs by theirs.
//! `GET /onus` is one question to the fleet view, which answers from its indexes (by
//! serial, text, OLT, status); `GET /olts/{id}/onus` and `GET /onus/{id}` ask the OLT's
//! own actor.

use super::doc::{ActorTimeout, BadParameter, Missing, PageParams, Refusals};
use super::path::{OltPath, OnuPath};
use crate::http::{one, page_of, ApiResult, Paged, Paging, Params, Single};
use crate::records::Subscriber;
use crate::state::AppState;
use axum::extract::{RawQuery, State};
use ponkeeper_actors::domain::{DownCause, Onu, OnuId, OnuStatus};
use ponkeeper_actors::fleet_view::OnuSearch as FleetSearch;
use ponkeeper_actors::onu_table::{OnuFilter, OnuOrder};
use serde::Serialize;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(of_olt))
        .routes(routes!(list))
        .routes(routes!(detail))
}

/// Filters every ONU list takes.
#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
#[allow(dead_code)] // documents the query that `Params` parses
struct OnuFilters {
    #[param(required = false, inline)]
    status: OnuStatus,
    /// PON port as frame/slot/port, e.g. `0/1/3`.
    #[param(required = false)]
    pon_port: String,
}

/// Filters only `GET /onus` takes.
#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
#[allow(dead_code)] // documents the query that `Params` parses
struct OnuSearch {
    #[param(required = false, minimum = 0, maximum = 4294967295_u64)]
    olt_id: u64,
    #[param(required = false, minimum = 0, maximum = 4294967295_u64)]
    node_id: u64,
    /// Serial (GPON SN or EPON MAC), exact, case-insensitive.
    #[param(required = false)]
    serial: String,
    /// Text searched in the serial, the description or the subscriber binding.
    #[param(required = false)]
    q: String,
    /// The subscriber binding's contract, exact, any case.
    #[param(required = false)]
    contract: String,
}

/// An ONU (SPEC §4 "ONU").
#[derive(Debug, Serialize, ToSchema)]
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
    /// Who the ONU serves, as bound with `POST /onus/{id}/subscriber`; null when unbound.
    pub subscriber: Option<Subscriber>,
}

pub fn item(app: &AppState, onu: Onu) -> OnuItem {
    let subscriber = app.records.subscriber(onu.id).unwrap_or_else(|error| {
        tracing::warn!(onu = onu.id, %error, "subscriber binding unreadable");
        None
    });
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
        subscriber,
    }
}

/// The filters `status` and `ponPort` that every ONU list takes.
fn filter(params: &Params) -> Result<OnuFilter, crate::error::ApiError> {
    Ok(OnuFilter {
        status: params.enumeration::<OnuStatus>("status")?,
        pon_port: params.text("ponPort").map(str::to_string),
        ..OnuFilter::default()
    })
}

/// One page of ONUs as the API shows them.
fn respond(app: &AppState, (total, onus): (usize, Vec<Onu>), paging: Paging) -> ApiResult {
    page_of(
        onus.into_iter().map(|o| item(app, o)).collect(),
        total,
        paging,
    )
}

#[utoipa::path(
    get,
    path = "/olts/{id}/onus",
    operation_id = "list_olt_onus",
    tag = "onus",
    summary = "ONUs of one OLT",
    description = "The OLT's ONUs ordered by id, filtered and paged.",
    params(("id" = u32, Path, description = "OLT id"), PageParams, OnuFilters),
    responses((status = 200, description = "one page of ONUs", body = Paged<OnuItem>), BadParameter, Missing, ActorTimeout, Refusals)
)]
async fn of_olt(
    State(app): State<AppState>,
    OltPath(id): OltPath,
    RawQuery(query): RawQuery,
) -> ApiResult {
    let handle = app.olt(id)?;
    let params = Params::parse(query.as_deref())?;
    let filter = filter(&params)?;
    let paging = params.paging(&app.config.paging)?;
    respond(
        &app,
        app.onus_of(&handle, filter, paging.window()).await?,
        paging,
    )
}

#[utoipa::path(
    get,
    path = "/onus",
    operation_id = "list_onus",
    tag = "onus",
    summary = "Find ONUs across OLTs",
    description = "ONUs ordered by id, filtered and paged.",
    params(PageParams, OnuFilters, OnuSearch),
    responses((status = 200, description = "one page of ONUs", body = Paged<OnuItem>), BadParameter, ActorTimeout, Refusals)
)]
async fn list(State(app): State<AppState>, RawQuery(query): RawQuery) -> ApiResult {
    let params = Params::parse(query.as_deref())?;
    let filter = filter(&params)?;
    let text = params.text("q").map(str::to_string);
    let text_also = match &text {
        Some(q) => app.records.bound_mentioning(q)?,
        None => Vec::new(),
    };
    let only = match params.text("contract") {
        Some(contract) => Some(app.records.bound_to_contract(contract)?),
        None => None,
    };
    let search = FleetSearch {
        status: filter.status,
        pon_port: filter.pon_port,
        serial: params.text("serial").map(str::to_string),
        text,
        text_also,
        only,
        ..params.scope()?
    };
    let paging = params.paging(&app.config.paging)?;
    let found = app.find_onus(search, OnuOrder::Id, paging.window()).await?;
    respond(&app, found, paging)
}

#[utoipa::path(
    get,
    path = "/onus/{id}",
    operation_id = "get_onu",
    tag = "onus",
    summary = "One ONU",
    params(("id" = u64, Path, description = "ONU id")),
    responses((status = 200, description = "the ONU", body = Single<OnuItem>), BadParameter, Missing, ActorTimeout, Refusals)
)]
async fn detail(State(app): State<AppState>, OnuPath(id): OnuPath) -> ApiResult {
    let onu = app.onu(id).await?;
    one(item(&app, onu))
}
