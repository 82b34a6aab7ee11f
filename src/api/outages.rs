//! `GET /outages` and `GET /outages/{id}` (docs/outages.md): what the outage book found —
//! many ONUs down for one cause, with the ONUs, their contracts, the СЗО they serve, the
//! probable cause, start and end — newest first, filtered by `active`, OLT, type,
//! splitter and ONU. The book lives in the fleet view; the СЗО come from the inventory
//! (each СЗО names its ONU's serial). The cause is in the reader's language.

use super::doc::{ActorTimeout, BadParameter, Missing, Refusals};
use super::path::OutagePath;
use crate::error::ApiError;
use crate::http::russian::Language;
use crate::http::{one, page_of, ApiResult, Flag, Id32, Id53, PageQuery, Paged, Query, Single};
use crate::state::AppState;
use axum::extract::State;
use ponkeeper_actors::outages::{Outage, OutageFilter, OutageKind};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(detail))
}

/// Filters of `GET /outages` and of the MCP tool `list_outages`.
#[derive(Debug, Default, Deserialize, Serialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct OutagesQuery {
    /// `true`: only outages going on; `false`: only ended ones.
    #[param(inline)]
    pub active: Option<Flag>,
    #[param(inline)]
    pub olt_id: Option<Id32>,
    /// `PON_OUTAGE`, `SPLITTER_OUTAGE`, `POWER_OUTAGE` or `OLT_OUTAGE`.
    #[serde(rename = "type")]
    #[param(inline)]
    pub kind: Option<OutageKind>,
    #[param(inline)]
    pub splitter_id: Option<Id32>,
    /// Only outages that took this ONU down.
    #[param(inline)]
    pub onu_id: Option<Id53>,
}

/// An outage (docs/outages.md).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OutageItem {
    pub id: u64,
    #[serde(rename = "type")]
    #[schema(inline)]
    pub kind: OutageKind,
    /// The probable cause, in words.
    pub cause: String,
    pub olt_id: u32,
    pub pon_port: Option<String>,
    pub splitter_id: Option<u32>,
    /// The subscriber address a power outage was grouped by.
    pub address: Option<String>,
    pub onu_ids: Vec<u64>,
    /// The contracts of the ONUs' subscribers.
    pub contracts: Vec<String>,
    /// The СЗО (socially significant objects) its ONUs serve.
    pub szo_ids: Vec<u32>,
    /// Local date-times; `endedAt` null while it goes on.
    pub started_at: String,
    pub ended_at: Option<String>,
}

/// `outage` as the API shows it: times in the service's zone, the СЗО its ONUs serve,
/// the cause in `language`.
async fn item(app: &AppState, outage: Outage, language: Language) -> Result<OutageItem, ApiError> {
    let szo = &app.inventory().szo;
    let szo_ids = if szo.is_empty() {
        Vec::new()
    } else {
        let rows = app.fleet.view().onus_by_id(outage.onu_ids.clone()).await?;
        let serials: Vec<String> = rows
            .into_iter()
            .flatten()
            .map(|b| b.onu.serial.as_str().to_lowercase())
            .collect();
        let mut ids: Vec<u32> = szo
            .iter()
            .filter(|s| serials.contains(&s.onu_serial.to_lowercase()))
            .map(|s| s.id)
            .collect();
        ids.sort_unstable();
        ids
    };
    Ok(OutageItem {
        id: outage.id,
        kind: outage.kind,
        cause: language.say(&outage.cause),
        olt_id: outage.olt_id,
        pon_port: outage.pon_port,
        splitter_id: outage.splitter_id,
        address: outage.address,
        onu_ids: outage.onu_ids,
        contracts: outage.contracts,
        szo_ids,
        started_at: app.clock.format(outage.started_at),
        ended_at: outage.ended_at.map(|at| app.clock.format(at)),
    })
}

#[utoipa::path(
    get,
    path = "/outages",
    operation_id = "list_outages",
    tag = "outages",
    summary = "Outages: many ONUs down for one cause",
    description = "Newest first; `active=true` for what is broken now. Each names its probable cause, ONUs, contracts, СЗО, start and end (docs/outages.md).",
    params(PageQuery, OutagesQuery),
    responses((status = 200, description = "one page of outages", body = Paged<OutageItem>), BadParameter, ActorTimeout, Refusals)
)]
async fn list(
    State(app): State<AppState>,
    Query(page_query): Query<PageQuery>,
    Query(query): Query<OutagesQuery>,
    language: Language,
) -> ApiResult {
    let paging = page_query.paging(&app.config.paging)?;
    let filter = OutageFilter {
        active: query.active.map(Flag::yes),
        olt_id: query.olt_id.map(Id32::u32),
        kind: query.kind,
        splitter_id: query.splitter_id.map(Id32::u32),
        onu_id: query.onu_id.map(Id53::u64),
    };
    let outages = app.fleet.view().outages(filter).await?;
    let total = outages.len();
    let mut items = Vec::new();
    for outage in outages
        .into_iter()
        .skip(paging.offset())
        .take(paging.size as usize)
    {
        items.push(item(&app, outage, language).await?);
    }
    page_of(items, total, paging)
}

#[utoipa::path(
    get,
    path = "/outages/{id}",
    operation_id = "get_outage",
    tag = "outages",
    summary = "One outage",
    params(("id" = u64, Path, description = "outage id")),
    responses((status = 200, description = "the outage", body = Single<OutageItem>), BadParameter, Missing, ActorTimeout, Refusals)
)]
async fn detail(
    State(app): State<AppState>,
    OutagePath(id): OutagePath,
    language: Language,
) -> ApiResult {
    let outage = app
        .fleet
        .view()
        .outage(id)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no outage with id {id}")))?;
    one(item(&app, outage, language).await?)
}
