//! VLANs: `GET /olts/{id}/vlans` and `GET /vlans` (filters `oltId`, `vlanId`). An OLT's
//! VLANs are what its Q-BRIDGE-MIB static VLAN table reported in the last good poll;
//! `onuCount` counts its ONUs whose service VLAN is that VLAN.

use super::doc::{ActorTimeout, BadParameter, Missing, PageParams, Refusals};
use super::path::OltPath;
use super::{page, ApiResult, Paged, Params};
use crate::state::AppState;
use axum::extract::{RawQuery, State};
use ponkeeper_actors::olt::{OltHandle, VlanInfo};
use serde::Serialize;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(of_olt))
        .routes(routes!(list))
}

/// Filters of `GET /vlans`.
#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
#[allow(dead_code)] // documents the query that `Params` parses
struct VlanFilters {
    #[param(required = false, minimum = 0, maximum = 4294967295_u64)]
    olt_id: u64,
    #[param(required = false, minimum = 1, maximum = 4094)]
    vlan_id: u16,
}

/// A VLAN of one OLT (SPEC §4 "VLAN").
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

/// The VLANs of `olts`, ordered by OLT then VLAN id.
async fn vlans_of(olts: &[OltHandle]) -> Result<Vec<VlanItem>, super::ApiError> {
    let replies = futures::future::join_all(olts.iter().map(|h| h.vlans())).await;
    let mut items = Vec::new();
    for (olt, reply) in olts.iter().zip(replies) {
        items.extend(reply?.into_iter().map(|v| item(olt.id, v)));
    }
    Ok(items)
}

#[utoipa::path(
    get,
    path = "/olts/{id}/vlans",
    operation_id = "list_olt_vlans",
    tag = "vlans",
    summary = "VLANs of one OLT",
    params(("id" = u32, Path, description = "OLT id"), PageParams),
    responses((status = 200, description = "one page of VLANs", body = Paged<VlanItem>), BadParameter, Missing, ActorTimeout, Refusals)
)]
async fn of_olt(
    State(app): State<AppState>,
    OltPath(id): OltPath,
    RawQuery(query): RawQuery,
) -> ApiResult {
    let handle = app.olt(id)?;
    let params = Params::parse(query.as_deref())?;
    let paging = params.paging(&app.config.paging)?;
    page(vlans_of(&[handle]).await?, paging)
}

#[utoipa::path(
    get,
    path = "/vlans",
    operation_id = "list_vlans",
    tag = "vlans",
    summary = "VLANs across OLTs",
    description = "Ordered by OLT, then VLAN id; paged.",
    params(PageParams, VlanFilters),
    responses((status = 200, description = "one page of VLANs", body = Paged<VlanItem>), BadParameter, ActorTimeout, Refusals)
)]
async fn list(State(app): State<AppState>, RawQuery(query): RawQuery) -> ApiResult {
    let params = Params::parse(query.as_deref())?;
    let paging = params.paging(&app.config.paging)?;
    let vlan_id = params.integer("vlanId", 1, 4094)?;
    let olts = app.olts_in_scope(&params)?;
    let items = vlans_of(&olts)
        .await?
        .into_iter()
        .filter(|v| vlan_id.is_none_or(|id| i64::from(v.vlan_id) == id))
        .collect();
    page(items, paging)
}
