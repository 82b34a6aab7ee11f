//! VLANs: `GET /olts/{id}/vlans` and `GET /vlans` (filters `oltId`, `vlanId`). An OLT's
//! VLANs are what its Q-BRIDGE-MIB static VLAN table reported in the last good poll;
//! `onuCount` counts its ONUs whose service VLAN is that VLAN. One OLT's VLANs are asked of
//! its actor, the list across OLTs of the fleet view.

use super::doc::{ActorTimeout, BadParameter, Missing, Refusals};
use super::path::OltPath;
use crate::http::{page, ApiResult, Bounded, PageQuery, Paged, Query, ScopeQuery};
use crate::state::AppState;
use axum::extract::State;
use ponkeeper_actors::olt::VlanInfo;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(of_olt))
        .routes(routes!(list))
}

/// Filters of `GET /vlans`.
#[derive(Debug, Default, Deserialize, Serialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct VlansQuery {
    /// Only this VLAN number.
    #[param(inline)]
    pub vlan_id: Option<Bounded<1, 4094>>,
}

/// A VLAN of one OLT (docs/api.md, "VLAN").
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VlanItem {
    pub olt_id: u32,
    pub vlan_id: u16,
    pub name: String,
    /// `STATIC`: read from the device's static VLAN table.
    #[serde(rename = "type")]
    #[schema(value_type = String, example = "STATIC")]
    pub kind: &'static str,
    pub onu_count: u32,
}

fn item(olt_id: u32, vlan: VlanInfo) -> VlanItem {
    VlanItem {
        olt_id,
        vlan_id: vlan.vlan_id,
        name: vlan.name,
        kind: "STATIC",
        onu_count: vlan.onu_count,
    }
}

#[utoipa::path(
    get,
    path = "/olts/{id}/vlans",
    operation_id = "list_olt_vlans",
    tag = "vlans",
    summary = "VLANs of one OLT",
    params(("id" = u32, Path, description = "OLT id"), PageQuery),
    responses((status = 200, description = "one page of VLANs", body = Paged<VlanItem>), BadParameter, Missing, ActorTimeout, Refusals)
)]
async fn of_olt(
    State(app): State<AppState>,
    OltPath(id): OltPath,
    Query(page_query): Query<PageQuery>,
) -> ApiResult {
    let handle = app.olt(id)?;
    let paging = page_query.paging(&app.config.paging)?;
    let vlans = handle.vlans().await?;
    page(vlans.into_iter().map(|v| item(id, v)).collect(), paging)
}

#[utoipa::path(
    get,
    path = "/vlans",
    operation_id = "list_vlans",
    tag = "vlans",
    summary = "VLANs across OLTs",
    description = "Ordered by OLT, then VLAN id; paged.",
    params(PageQuery, ScopeQuery, VlansQuery),
    responses((status = 200, description = "one page of VLANs", body = Paged<VlanItem>), BadParameter, ActorTimeout, Refusals)
)]
async fn list(
    State(app): State<AppState>,
    Query(page_query): Query<PageQuery>,
    Query(scope): Query<ScopeQuery>,
    Query(query): Query<VlansQuery>,
) -> ApiResult {
    let paging = page_query.paging(&app.config.paging)?;
    let vlan_id = query.vlan_id.map(|id| id.get() as u16);
    let vlans = app.fleet.view().vlans(scope.search(), vlan_id).await?;
    let items = vlans
        .into_iter()
        .map(|v| VlanItem {
            olt_id: v.olt_id,
            vlan_id: v.vlan_id,
            name: v.name,
            kind: "STATIC",
            onu_count: v.onu_count,
        })
        .collect();
    page(items, paging)
}
