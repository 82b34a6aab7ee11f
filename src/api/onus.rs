//! ONUs: `GET /olts/{id}/onus`, `GET /onus` with every filter of docs/api.md, `GET /onus/{id}`.
//! Each ONU shows its subscriber binding ([`crate::records::subscribers`]); `q` also
//! searches the bindings and `contract=` picks ONUs by theirs.
//! `GET /onus` is one question to the fleet view, which answers from its indexes (by
//! serial, text, OLT, status); `GET /olts/{id}/onus` and `GET /onus/{id}` ask the OLT's
//! own actor.

use super::doc::{ActorTimeout, BadParameter, Missing, Refusals};
use super::path::{OltPath, OnuPath};
use crate::error::ApiError;
use crate::http::{one, page_of, ApiResult, Flag, PageQuery, Paged, Query, ScopeQuery, Single};
use crate::records::Subscriber;
use crate::state::AppState;
use axum::extract::State;
use ponkeeper_actors::domain::{DownCause, Onu, OnuId, OnuStatus};
use ponkeeper_actors::fleet_view::OnuSearch as FleetSearch;
use ponkeeper_actors::onu_table::{OnuFilter, OnuOrder};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(of_olt))
        .routes(routes!(list))
        .routes(routes!(detail))
}

/// Filters every ONU list takes (and the MCP tool `list_onus`).
#[derive(Debug, Default, Deserialize, Serialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct OnuFilterQuery {
    /// Only ONUs in this state.
    #[param(inline)]
    pub status: Option<OnuStatus>,
    /// PON port as frame/slot/port, e.g. `0/1/3`.
    pub pon_port: Option<String>,
}

/// What only `GET /onus` looks for (and the MCP tool `find_onu`).
#[derive(Debug, Default, Deserialize, Serialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
pub struct OnuSearchQuery {
    /// Serial (a GPON SN such as `HWTC1A2B3C4D` or an EPON MAC such as
    /// `a0:b1:c2:d3:e4:f5`), exact, case-insensitive.
    pub serial: Option<String>,
    /// Text searched in the serial, the description or the subscriber binding (a name,
    /// contract number or address as the operator wrote it), case-insensitive.
    pub q: Option<String>,
    /// The subscriber binding's contract, exact, any case.
    pub contract: Option<String>,
    /// `true`: only the ONUs flapping now (`ONU_FLAPPING`, `[onu] flap_count` state
    /// changes within `flap_window`); `false`: only those that are not.
    #[param(inline)]
    pub flapping: Option<Flag>,
}

/// An ONU (docs/api.md, "ONU").
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
    /// When the ONU's run state was last read from the device (every poll reads it).
    pub status_at: String,
    /// When its optics were last read from the device: the optics sweep reads them far
    /// less often than the status (docs/polling.md); null before the first reading.
    pub optics_at: Option<String>,
    /// Who the ONU serves, as bound with `POST /onus/{id}/subscriber`; null when unbound.
    pub subscriber: Option<Subscriber>,
    /// Since when the ONU has been flapping (`ONU_FLAPPING`); null when it is not.
    pub flapping_since: Option<String>,
}

/// `onu` as the API shows it, with its subscriber binding.
pub fn item(app: &AppState, onu: Onu, subscriber: Option<Subscriber>) -> OnuItem {
    OnuItem {
        id: onu.id,
        olt_id: onu.olt_id,
        pon_port: onu.pon_port.into(),
        onu_index: onu.onu_index,
        serial: onu.serial.into(),
        description: onu.description.into(),
        status: onu.status,
        last_down_cause: onu.last_down_cause,
        distance: onu.distance,
        rx_power: onu.rx_power.get(),
        tx_power: onu.tx_power.get(),
        olt_rx_power: onu.olt_rx_power.get(),
        vlan: onu.vlan,
        last_update: app.clock.format(onu.last_update),
        status_at: app.clock.format(onu.last_update),
        optics_at: onu.optics_at.map(|at| app.clock.format(at)),
        subscriber,
        flapping_since: app.flaps.since(onu.id).map(|at| app.clock.format(at)),
    }
}

/// `onu` as the API shows it, its binding asked of the fleet view.
pub async fn bound_item(app: &AppState, onu: Onu) -> Result<OnuItem, ApiError> {
    let subscriber = app.subscribers(vec![onu.id]).await?.pop().flatten();
    Ok(item(app, onu, subscriber))
}

#[utoipa::path(
    get,
    path = "/olts/{id}/onus",
    operation_id = "list_olt_onus",
    tag = "onus",
    summary = "ONUs of one OLT",
    description = "The OLT's ONUs ordered by id, filtered and paged.",
    params(("id" = u32, Path, description = "OLT id"), PageQuery, OnuFilterQuery),
    responses((status = 200, description = "one page of ONUs", body = Paged<OnuItem>), BadParameter, Missing, ActorTimeout, Refusals)
)]
async fn of_olt(
    State(app): State<AppState>,
    OltPath(id): OltPath,
    Query(page_query): Query<PageQuery>,
    Query(query): Query<OnuFilterQuery>,
) -> ApiResult {
    let handle = app.olt(id)?;
    let filter = OnuFilter {
        status: query.status,
        pon_port: query.pon_port,
        ..OnuFilter::default()
    };
    let paging = page_query.paging(&app.config.paging)?;
    let (total, onus) = app.onus_of(&handle, filter, paging.window()).await?;
    let bindings = app.subscribers(onus.iter().map(|o| o.id).collect()).await?;
    let items = onus.into_iter().zip(bindings);
    page_of(
        items.map(|(o, s)| item(&app, o, s)).collect(),
        total,
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
    params(PageQuery, OnuFilterQuery, ScopeQuery, OnuSearchQuery),
    responses((status = 200, description = "one page of ONUs", body = Paged<OnuItem>), BadParameter, ActorTimeout, Refusals)
)]
async fn list(
    State(app): State<AppState>,
    Query(page_query): Query<PageQuery>,
    Query(filter): Query<OnuFilterQuery>,
    Query(scope): Query<ScopeQuery>,
    Query(query): Query<OnuSearchQuery>,
) -> ApiResult {
    let flapping = query.flapping.map(|wanted| (wanted.yes(), app.flaps.ids()));
    let search = FleetSearch {
        status: filter.status,
        pon_port: filter.pon_port,
        serial: query.serial,
        text: query.q,
        contract: query.contract,
        among: flapping.clone().filter(|(w, _)| *w).map(|(_, ids)| ids),
        excluding: flapping.filter(|(w, _)| !*w).map(|(_, ids)| ids),
        ..scope.search()
    };
    let paging = page_query.paging(&app.config.paging)?;
    let (total, found) = app.find_onus(search, OnuOrder::Id, paging.window()).await?;
    page_of(
        found
            .into_iter()
            .map(|b| item(&app, b.onu, b.subscriber))
            .collect(),
        total,
        paging,
    )
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
    one(bound_item(&app, onu).await?)
}
