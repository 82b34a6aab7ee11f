//! VLANs: `GET /olts/{id}/vlans` and `GET /vlans` (filters `oltId`, `vlanId`). An OLT's
//! VLANs are what its Q-BRIDGE-MIB static VLAN table reported in the last good poll;
//! `onuCount` counts its ONUs whose service VLAN is that VLAN.

use super::{page, path_id, ApiResult, Params};
use crate::app::AppState;
use axum::extract::{Path, RawQuery, State};
use axum::routing::get;
use axum::Router;
use ponkeeper_actors::olt::{OltHandle, VlanInfo};
use serde::Serialize;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/olts/{id}/vlans", get(of_olt))
        .route("/vlans", get(list))
}

/// A VLAN of one OLT (SPEC §4 "VLAN").
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VlanItem {
    pub olt_id: u32,
    pub vlan_id: u16,
    pub name: String,
    /// `STATIC`: read from the device's static VLAN table.
    #[serde(rename = "type")]
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

async fn of_olt(
    State(app): State<AppState>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> ApiResult {
    let handle = app.olt(path_id("id", &id)?)?;
    let params = Params::parse(query.as_deref())?;
    let paging = params.paging(&app.config.paging)?;
    page(vlans_of(&[handle]).await?, paging)
}

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
