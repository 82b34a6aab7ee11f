//! ONU provisioning, discovery side (docs/provisioning.md): `GET /olts/{id}/unconfigured-onus` and
//! `GET /unconfigured-onus` (filters `oltId`, `nodeId`, `ponPort`). Each OLT's actor keeps
//! the ONUs its latest poll found in the vendor's autofind / uncfg table, with the time
//! each was first and last seen ([`ponkeeper_actors::provision`]); the fleet-wide list
//! asks every OLT in scope and orders by OLT, port and serial. `GET /olts/{id}/onu-profiles`
//! reads the profiles an authorisation can name from the device, over its CLI queue.

use super::doc::{ActorTimeout, BadParameter, DeviceFailures, Missing, NotSupported, Refusals};
use super::path::OltPath;
use crate::error::ApiError;
use crate::http::{page, ApiResult, PageQuery, Paged, Query, ScopeQuery};

use crate::state::AppState;
use axum::extract::State;
use ponkeeper_actors::olt::{ActionOutcome, CliAction};
use ponkeeper_actors::provision::cli::{ProvisionDone, ProvisionJob};
use ponkeeper_actors::provision::UnconfiguredOnu;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(of_olt))
        .routes(routes!(list))
        .routes(routes!(profiles))
}

/// Filters of `GET /unconfigured-onus`.
#[derive(Debug, Default, Deserialize, Serialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct UnconfiguredQuery {
    /// The port as the device names it, e.g. `0/1/0`.
    pub pon_port: Option<String>,
}

/// An ONU an OLT sees on a port but has not registered (docs/provisioning.md).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnconfiguredItem {
    pub olt_id: u32,
    #[schema(example = "0/1/0")]
    pub pon_port: String,
    /// GPON serial (`HWTC1A2B3C4D`) or EPON MAC (`fc:fa:f7:12:34:56`).
    pub serial: String,
    /// The ONU's model where the device reports it.
    pub equipment_id: Option<String>,
    /// When a poll first found it in the table (it stayed there since).
    pub first_seen_at: String,
    /// The latest poll that found it.
    pub last_seen_at: String,
}

fn item(app: &AppState, onu: UnconfiguredOnu) -> UnconfiguredItem {
    UnconfiguredItem {
        olt_id: onu.olt_id,
        pon_port: onu.pon_port,
        serial: onu.serial,
        equipment_id: onu.equipment_id,
        first_seen_at: app.clock.format(onu.first_seen_at),
        last_seen_at: app.clock.format(onu.last_seen_at),
    }
}

#[utoipa::path(
    get,
    path = "/olts/{id}/unconfigured-onus",
    operation_id = "list_olt_unconfigured_onus",
    tag = "provisioning",
    summary = "Unconfigured ONUs of one OLT",
    description = "ONUs the OLT showed in its autofind / uncfg table at its latest poll, by port and serial; paged. A family whose provisioning no public source gives (Eltex, V-SOL, C-Data, SNR) answers 501 NOT_SUPPORTED naming it rather than an empty list.",
    params(("id" = u32, Path, description = "OLT id"), PageQuery),
    responses((status = 200, description = "one page of unconfigured ONUs", body = Paged<UnconfiguredItem>), BadParameter, Missing, ActorTimeout, NotSupported, Refusals)
)]
async fn of_olt(
    State(app): State<AppState>,
    OltPath(id): OltPath,
    Query(page_query): Query<PageQuery>,
) -> ApiResult {
    let handle = app.olt(id)?;
    let paging = page_query.paging(&app.config.paging)?;
    let summary = handle.detail().await?.summary;
    if let Some(vendor) = summary.vendor {
        let known = ponkeeper_actors::profile::provisioning::Provisioning::for_layout(
            vendor,
            summary.family,
        );
        if known.is_none() {
            return Err(ApiError::NotSupported(format!(
                "OLT {id} is of the {} family of {vendor}, whose unconfigured ONUs no public \
                 source shows how to read",
                summary.family.unwrap_or("default")
            )));
        }
    }
    let onus = handle.unconfigured().await?;
    page(onus.into_iter().map(|o| item(&app, o)).collect(), paging)
}

#[utoipa::path(
    get,
    path = "/unconfigured-onus",
    operation_id = "list_unconfigured_onus",
    tag = "provisioning",
    summary = "Unconfigured ONUs across OLTs",
    description = "Ordered by OLT, port and serial; paged.",
    params(PageQuery, ScopeQuery, UnconfiguredQuery),
    responses((status = 200, description = "one page of unconfigured ONUs", body = Paged<UnconfiguredItem>), BadParameter, ActorTimeout, Refusals)
)]
async fn list(
    State(app): State<AppState>,
    Query(page_query): Query<PageQuery>,
    Query(scope): Query<ScopeQuery>,
    Query(query): Query<UnconfiguredQuery>,
) -> ApiResult {
    let paging = page_query.paging(&app.config.paging)?;
    let scope = scope.search();
    let pon_port = query.pon_port.as_deref();
    let inventory = app.inventory();
    let mut items = Vec::new();
    for spec in &inventory.olts {
        let in_scope = scope.olt_id.is_none_or(|id| id == spec.id)
            && scope.node_id.is_none_or(|node| spec.node == Some(node));
        let Some(handle) = app.fleet.olt(spec.id).filter(|_| in_scope) else {
            continue;
        };
        let onus = handle.unconfigured().await?;
        items.extend(
            onus.into_iter()
                .filter(|o| pon_port.is_none_or(|p| o.pon_port == p))
                .map(|o| item(&app, o)),
        );
    }
    items.sort_by(|a, b| {
        (a.olt_id, &a.pon_port, &a.serial).cmp(&(b.olt_id, &b.pon_port, &b.serial))
    });
    page(items, paging)
}

/// A profile an authorisation can name (docs/provisioning.md).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OnuProfileItem {
    /// `LINE` and `SERVICE` (Huawei line and service profiles) or `ONU_TYPE` (ZTE).
    #[schema(example = "LINE")]
    pub kind: String,
    /// What an authorisation names: `"10"` for a Huawei profile, `"ZTE-F660"` for a type.
    #[schema(example = "10")]
    pub id: String,
    pub name: String,
}

#[utoipa::path(
    get,
    path = "/olts/{id}/onu-profiles",
    operation_id = "list_onu_profiles",
    tag = "provisioning",
    summary = "Profiles an authorisation can name on one OLT",
    description = "Read from the device over SSH with the commands of the OLT's family: Huawei line and service profiles, ZTE C300/C320 ONU types; BDCOM has none (an empty list). A family whose listing command no source settles (ZTE C600/C620) answers 501 NOT_SUPPORTED naming it. Paged.",
    params(("id" = u32, Path, description = "OLT id"), PageQuery),
    responses((status = 200, description = "one page of profiles", body = Paged<OnuProfileItem>), BadParameter, Missing, DeviceFailures, ActorTimeout, NotSupported, Refusals)
)]
async fn profiles(
    State(app): State<AppState>,
    OltPath(id): OltPath,
    Query(page_query): Query<PageQuery>,
) -> ApiResult {
    let handle = app.olt(id)?;
    let paging = page_query.paging(&app.config.paging)?;
    match handle
        .cli(CliAction::Provision(ProvisionJob::ListProfiles))
        .await?
    {
        ActionOutcome::Provisioned(ProvisionDone::Profiles(list)) => page(
            list.into_iter()
                .map(|p| OnuProfileItem {
                    kind: p.kind,
                    id: p.id,
                    name: p.name,
                })
                .collect(),
            paging,
        ),
        _ => Err(ApiError::Internal(
            "a profile listing answered with something else".into(),
        )),
    }
}
