//! The outside plant (docs/outages.md): `POST /splitters` (FULL) creates a splitter on an
//! OLT's PON port, under a first-level splitter or on the feeder; `GET /splitters` lists
//! them, `GET /splitters/{id}` shows one with the ONUs placed under it and their state,
//! `DELETE /splitters/{id}` removes one without splitters under it (its placements go
//! too); `POST /onus/{id}/placement {splitterId}` places an ONU (null takes it off). The
//! records keep the plant ([`crate::records::plant`]); the fleet view holds it for the
//! outage book, which groups downs by splitter. Nothing here reaches a device.

use super::doc::{ActorTimeout, BadInput, BadParameter, Missing, Refusals, TooLarge};
use super::onus::{item, OnuItem};
use super::path::{OnuPath, SplitterPath};
use crate::error::ApiError;
use crate::http::{one, page_of, ApiResult, Id32, JsonBody, PageQuery, Paged, Query, Single};
use crate::state::AppState;
use axum::extract::State;
use ponkeeper_actors::inventory::SplitterSpec;
use ponkeeper_actors::outages::{Splitter, SplitterId};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The longest a splitter's name or address may be, in characters.
const NAME_MAX: usize = 64;
const ADDRESS_MAX: usize = 256;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create, list))
        .routes(routes!(detail, remove))
        .routes(routes!(place))
}

/// A new splitter.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SplitterBody {
    /// Unique on its OLT (case-insensitively), e.g. the ODB's label.
    #[schema(example = "ODB-12 Lenina 5", min_length = 1, max_length = 64)]
    name: String,
    #[schema(example = 1, minimum = 1)]
    olt_id: u32,
    /// The PON port as the OLT's ONUs name it (`ponPort`).
    #[schema(example = "0/1/0", min_length = 1, max_length = 64)]
    pon_port: String,
    /// The first-level splitter this one hangs under (same OLT and port); absent on the
    /// feeder.
    #[schema(minimum = 1)]
    parent_id: Option<u32>,
    #[schema(example = "ул. Ленина, 5, подъезд 2", max_length = 256)]
    address: Option<String>,
    #[schema(minimum = -90.0, maximum = 90.0)]
    lat: Option<f64>,
    #[schema(minimum = -180.0, maximum = 180.0)]
    lon: Option<f64>,
}

/// A splitter (docs/outages.md).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SplitterItem {
    pub id: SplitterId,
    pub name: String,
    pub olt_id: u32,
    pub pon_port: String,
    pub parent_id: Option<SplitterId>,
    pub address: Option<String>,
    pub lat: Option<f64>,
    pub lon: Option<f64>,
    /// Declared by the inventory's `[[splitters]]`: changed in the file, not here.
    pub declared: bool,
}

/// A splitter with the splitters under it and the ONUs placed under it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SplitterDetail {
    #[serde(flatten)]
    pub splitter: SplitterItem,
    pub children: Vec<SplitterId>,
    /// The ONUs placed directly under it, by id, as `GET /onus/{id}` shows them.
    pub onus: Vec<OnuItem>,
}

fn splitter_item(s: Splitter) -> SplitterItem {
    SplitterItem {
        id: s.id,
        name: s.name,
        olt_id: s.olt_id,
        pon_port: s.pon_port,
        parent_id: s.parent_id,
        address: s.address,
        lat: s.lat,
        lon: s.lon,
        declared: s.declared,
    }
}

/// Filters of `GET /splitters`.
#[derive(Debug, Default, Deserialize, Serialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct SplittersQuery {
    /// Only splitters of this OLT.
    #[param(inline)]
    pub olt_id: Option<Id32>,
    /// Only splitters of this PON port (exact, as the OLT names it).
    pub pon_port: Option<String>,
}

/// A text field as stored: trimmed, within `max` characters, nothing that is not there to
/// be seen ([`crate::text`]), in NFC.
fn text(field: &str, value: &str, max: usize) -> Result<String, ApiError> {
    let value = value.trim();
    let length = value.chars().count();
    if length == 0 || length > max {
        return Err(ApiError::InvalidParameter(format!(
            "field `{field}` must have 1 to {max} characters, got {length}"
        )));
    }
    if let Some(why) = crate::text::first_unwelcome(value) {
        return Err(ApiError::InvalidParameter(format!("field `{field}` {why}")));
    }
    Ok(crate::text::composed(value))
}

impl SplitterBody {
    /// The splitter to store (id unset), every field checked against the fleet and the
    /// splitters there are.
    async fn checked(self, app: &AppState) -> Result<Splitter, ApiError> {
        let name = text("name", &self.name, NAME_MAX)?;
        let pon_port = text("ponPort", &self.pon_port, NAME_MAX)?;
        let address = match self.address.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(a) => Some(text("address", a, ADDRESS_MAX)?),
        };
        for (field, value, limit) in [("lat", self.lat, 90.0), ("lon", self.lon, 180.0)] {
            if value.is_some_and(|v| !(-limit..=limit).contains(&v)) {
                return Err(ApiError::InvalidParameter(format!(
                    "field `{field}` must be between -{limit} and {limit}"
                )));
            }
        }
        if app.inventory().olt(self.olt_id).is_none() {
            return Err(ApiError::InvalidParameter(format!(
                "field `oltId`: no OLT with id {}",
                self.olt_id
            )));
        }
        // Any OLT of the inventory, whichever member runs it. Only the member that runs
        // the OLT knows its ports: elsewhere the port is taken as given (a placement
        // still checks it against the ONU's own).
        let ports: Vec<String> = match app.fleet.olt(self.olt_id) {
            Some(olt) => olt.detail().await?.ports,
            None => Vec::new(),
        }
        .into_iter()
        .map(|p| p.name)
        .collect();
        if !ports.is_empty() && !ports.contains(&pon_port) {
            return Err(ApiError::InvalidParameter(format!(
                "field `ponPort`: OLT {} has no port {pon_port} (its ports: {})",
                self.olt_id,
                ports.join(", ")
            )));
        }
        let existing = app.records.splitters()?;
        if existing
            .iter()
            .any(|s| SplitterSpec::key(s.olt_id, &s.name) == SplitterSpec::key(self.olt_id, &name))
        {
            return Err(ApiError::Conflict(format!(
                "OLT {} already has a splitter named `{name}`",
                self.olt_id
            )));
        }
        if let Some(parent) = self.parent_id {
            let Some(up) = existing.iter().find(|s| s.id == parent) else {
                return Err(ApiError::InvalidParameter(format!(
                    "field `parentId`: no splitter with id {parent}"
                )));
            };
            if up.olt_id != self.olt_id || up.pon_port != pon_port || up.parent_id.is_some() {
                return Err(ApiError::InvalidParameter(format!(
                    "field `parentId`: splitter {parent} must be a first-level splitter of OLT {} port {pon_port}",
                    self.olt_id
                )));
            }
        }
        Ok(Splitter {
            id: 0,
            name,
            olt_id: self.olt_id,
            pon_port,
            parent_id: self.parent_id,
            address,
            lat: self.lat,
            lon: self.lon,
            declared: false,
        })
    }
}

/// The ids of the splitters hanging under splitter `id`.
fn children_of(app: &AppState, id: SplitterId) -> Result<Vec<SplitterId>, ApiError> {
    Ok(app
        .records
        .splitters()?
        .into_iter()
        .filter(|s| s.parent_id == Some(id))
        .map(|s| s.id)
        .collect())
}

fn missing(id: SplitterId) -> ApiError {
    ApiError::NotFound(format!("no splitter with id {id}"))
}

#[utoipa::path(
    post,
    path = "/splitters",
    operation_id = "create_splitter",
    tag = "outages",
    summary = "Create a splitter",
    description = "FULL keys only. A splitter on an OLT's PON port, on the feeder or under a first-level splitter of the same port (two levels at most); its name is unique on the OLT. ONUs are then placed under it (`POST /onus/{id}/placement`), and the outage book groups their downs by it (docs/outages.md).",
    request_body = SplitterBody,
    responses((status = 200, description = "the splitter with its id", body = Single<SplitterItem>), BadInput, (status = 409, description = "`CONFLICT`: the OLT has a splitter of that name"), ActorTimeout, TooLarge, Refusals)
)]
async fn create(State(app): State<AppState>, JsonBody(body): JsonBody<SplitterBody>) -> ApiResult {
    let splitter = body.checked(&app).await?;
    let stored = app.records.create_splitter(splitter).await?;
    app.splitters_changed()?;
    one(splitter_item(stored))
}

#[utoipa::path(
    get,
    path = "/splitters",
    operation_id = "list_splitters",
    tag = "outages",
    summary = "List splitters",
    description = "Splitters by id, filtered by OLT and port, paged.",
    params(PageQuery, SplittersQuery),
    responses((status = 200, description = "one page of splitters", body = Paged<SplitterItem>), BadParameter, Refusals)
)]
async fn list(
    State(app): State<AppState>,
    Query(page_query): Query<PageQuery>,
    Query(query): Query<SplittersQuery>,
) -> ApiResult {
    let paging = page_query.paging(&app.config.paging)?;
    let olt = query.olt_id.map(Id32::u32);
    let matching: Vec<Splitter> = app
        .records
        .splitters()?
        .into_iter()
        .filter(|s| olt.is_none_or(|o| s.olt_id == o))
        .filter(|s| query.pon_port.as_deref().is_none_or(|p| s.pon_port == p))
        .collect();
    let total = matching.len();
    let shown = matching
        .into_iter()
        .skip(paging.offset())
        .take(paging.size as usize);
    page_of(shown.map(splitter_item).collect(), total, paging)
}

#[utoipa::path(
    get,
    path = "/splitters/{id}",
    operation_id = "get_splitter",
    tag = "outages",
    summary = "One splitter with its ONUs",
    params(("id" = u32, Path, description = "splitter id")),
    responses((status = 200, description = "the splitter, the splitters under it and its ONUs with their state", body = Single<SplitterDetail>), BadParameter, Missing, ActorTimeout, Refusals)
)]
async fn detail(State(app): State<AppState>, SplitterPath(id): SplitterPath) -> ApiResult {
    let splitter = app.records.splitter(id)?.ok_or_else(|| missing(id))?;
    let children = children_of(&app, id)?;
    let placed = app.fleet.view().placed_under(id).await?;
    let onus = placed
        .into_iter()
        .map(|b| item(&app, b.onu, b.subscriber))
        .collect();
    one(SplitterDetail {
        splitter: splitter_item(splitter),
        children,
        onus,
    })
}

#[utoipa::path(
    delete,
    path = "/splitters/{id}",
    operation_id = "delete_splitter",
    tag = "outages",
    summary = "Remove a splitter",
    description = "FULL keys only. Removes a splitter with no splitter under it; the ONUs placed under it are taken off. Outages already recorded keep its id. A splitter the inventory declares (`declared`) is removed from the file instead: 409.",
    params(("id" = u32, Path, description = "splitter id")),
    responses((status = 200, description = "the splitter removed", body = Single<SplitterItem>), BadParameter, Missing, (status = 409, description = "`CONFLICT`: splitters hang under it, or the inventory declares it"), Refusals)
)]
async fn remove(State(app): State<AppState>, SplitterPath(id): SplitterPath) -> ApiResult {
    let splitter = app.records.splitter(id)?.ok_or_else(|| missing(id))?;
    if splitter.declared {
        return Err(ApiError::Conflict(format!(
            "splitter {id} `{}` is declared in the inventory file; remove it there and reload",
            splitter.name
        )));
    }
    let children: Vec<String> = children_of(&app, id)?
        .iter()
        .map(SplitterId::to_string)
        .collect();
    if !children.is_empty() {
        return Err(ApiError::Conflict(format!(
            "splitters {} hang under splitter {id}; remove them first",
            children.join(", ")
        )));
    }
    app.records.delete_splitter(id).await?;
    app.splitters_changed()?;
    one(splitter_item(splitter))
}

/// Where an ONU hangs.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PlacementBody {
    /// A splitter of the ONU's OLT and port; null takes the ONU off its splitter. It must
    /// be given: `{}` is a mistake, not a removal.
    #[schema(minimum = 1, required = true)]
    #[serde(deserialize_with = "Option::deserialize")]
    splitter_id: Option<u32>,
}

/// An ONU's placement.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlacementItem {
    pub onu_id: u64,
    pub splitter_id: Option<SplitterId>,
}

/// Refuses a splitter an ONU cannot hang under: another OLT or port.
pub fn fits(onu: &ponkeeper_actors::domain::Onu, splitter: &Splitter) -> Result<(), String> {
    if splitter.olt_id == onu.olt_id && splitter.pon_port == onu.pon_port {
        return Ok(());
    }
    Err(format!(
        "splitter {} is on OLT {} port {}, the ONU on OLT {} port {}",
        splitter.id, splitter.olt_id, splitter.pon_port, onu.olt_id, onu.pon_port
    ))
}

#[utoipa::path(
    post,
    path = "/onus/{id}/placement",
    operation_id = "place_onu",
    tag = "outages",
    summary = "Place an ONU under a splitter",
    description = "FULL keys only. Records which splitter the ONU hangs under (one of its OLT and port), or with `splitterId: null` takes it off. Kept with the subscriber binding; the outage book groups downs by it.",
    params(("id" = u64, Path, description = "ONU id")),
    request_body = PlacementBody,
    responses((status = 200, description = "the ONU's placement", body = Single<PlacementItem>), BadInput, Missing, ActorTimeout, TooLarge, Refusals)
)]
async fn place(
    State(app): State<AppState>,
    OnuPath(id): OnuPath,
    JsonBody(body): JsonBody<PlacementBody>,
) -> ApiResult {
    let onu = app.onu(id).await?;
    if let Some(splitter_id) = body.splitter_id {
        let splitter = app.records.splitter(splitter_id)?.ok_or_else(|| {
            ApiError::InvalidParameter(format!(
                "field `splitterId`: no splitter with id {splitter_id}"
            ))
        })?;
        fits(&onu, &splitter)
            .map_err(|why| ApiError::InvalidParameter(format!("field `splitterId`: {why}")))?;
    }
    app.place(vec![(id, body.splitter_id)]).await?;
    one(PlacementItem {
        onu_id: id,
        splitter_id: body.splitter_id,
    })
}
