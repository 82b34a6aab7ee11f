//! The MACs behind ONUs (docs/api.md, "MACs"): `GET /onus/{id}/macs` lists one ONU's,
//! `GET /macs?mac=` finds every ONU a MAC (or a prefix of one) is or was behind, newest
//! first, and flags a MAC active behind two ONUs at once; `POST /onus/{id}/macs/refresh`
//! (FULL) reads one ONU's now within its OLT's budget. The store's answers come through
//! [`crate::history`], on the blocking pool.

use super::doc::{ActorTimeout, BadParameter, DeviceFailures, Missing, NotSupported, Refusals};
use super::path::OnuPath;
use crate::error::ApiError;
use crate::http::{one, page, ApiResult, PageQuery, Paged, Query, Single};
use crate::state::AppState;
use axum::extract::State;
use ponkeeper_actors::macs::MacQuery;
use ponkeeper_actors::store::macs::MacEntry;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Pairs one lookup answers at most.
const MAX_FOUND: usize = 1_000;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(onu_macs))
        .routes(routes!(refresh_macs))
        .routes(routes!(find_macs))
}

/// A MAC behind one ONU.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OnuMacItem {
    /// Lower-case, colon-separated.
    pub mac: String,
    pub onu_id: u64,
    pub olt_id: u32,
    pub pon_port: String,
    /// The VLAN it was learnt in; null where the device shows none (a Huawei WLAN
    /// client).
    pub vlan: Option<u16>,
    pub first_seen: String,
    pub last_seen: String,
    /// Seen by the last read of the ONU's MACs.
    pub active: bool,
}

/// One ONU's MACs.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OnuMacs {
    pub items: Vec<OnuMacItem>,
    /// Why the list may be empty (a layout with no known way to read MACs).
    pub warnings: Vec<String>,
}

/// An ONU a MAC is or was behind.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MacSightingItem {
    pub mac: String,
    pub onu_id: u64,
    pub olt_id: u32,
    pub pon_port: String,
    pub serial: String,
    /// As [`OnuMacItem::vlan`].
    pub vlan: Option<u16>,
    pub first_seen: String,
    pub last_seen: String,
    pub active: bool,
    /// The MAC is active behind another ONU too (a loop, or a cloned MAC).
    pub duplicate: bool,
}

#[derive(Debug, Default, Deserialize, Serialize, IntoParams, schemars::JsonSchema)]
#[into_params(parameter_in = Query)]
pub struct MacLookup {
    /// A MAC (`aa:bb:cc:dd:ee:ff`, `AA-BB-CC-DD-EE-FF`, `aabb.ccdd.eeff`,
    /// `aabbccddeeff`) or a prefix of at least 6 hex digits.
    #[param(example = "a0:b1:c2:d3:e4:f5")]
    pub mac: String,
}

/// ONU `id`'s MACs as answered.
async fn macs_of(app: &AppState, id: u64) -> Result<OnuMacs, ApiError> {
    let owner = app.onu_olt(id)?;
    let entries = crate::history::macs_of_onu(app, id).await?;
    let summary = owner.summary().await.ok();
    let warnings = summary
        .and_then(|s| {
            let vendor = s.vendor?;
            let layout = s.family?;
            let profile = ponkeeper_actors::profile::Profile::ALL
                .into_iter()
                .find(|p| p.vendor == vendor && p.layout == layout)?;
            ponkeeper_actors::macs::MacSource::of(profile).warning(profile.family)
        })
        .into_iter()
        .collect();
    let items = entries
        .into_iter()
        .map(|e| OnuMacItem {
            mac: e.mac.to_string(),
            onu_id: e.record.owner.onu,
            olt_id: e.record.owner.olt,
            pon_port: e.record.owner.pon_port,
            vlan: e.record.vlan,
            first_seen: app.clock.format(e.record.first_seen),
            last_seen: app.clock.format(e.record.last_seen),
            active: e.active,
        })
        .collect();
    Ok(OnuMacs { items, warnings })
}

#[utoipa::path(
    get,
    path = "/onus/{id}/macs",
    operation_id = "get_onu_macs",
    tag = "macs",
    summary = "The MACs behind an ONU",
    description = "Every MAC seen behind the ONU within `macs.retention`, active ones (seen \
        by the last read of the `macs` group or a refresh) first. A layout with no known way \
        to read MACs answers an empty list with a warning.",
    params(("id" = u64, Path, description = "ONU id")),
    responses((status = 200, description = "the ONU's MACs", body = Single<OnuMacs>), BadParameter, Missing, ActorTimeout, Refusals)
)]
async fn onu_macs(State(app): State<AppState>, OnuPath(id): OnuPath) -> ApiResult {
    one(macs_of(&app, id).await?)
}

#[utoipa::path(
    post,
    path = "/onus/{id}/macs/refresh",
    operation_id = "refresh_onu_macs",
    tag = "macs",
    summary = "Read an ONU's MACs now",
    description = "FULL keys only. Reads the MACs behind the ONU at once, within its OLT's \
        request budget, and answers the list as `GET /onus/{id}/macs` does. When the budget \
        has no room, 429 `RATE_LIMITED` with `Retry-After`; an OFFLINE OLT answers 503.",
    params(("id" = u64, Path, description = "ONU id")),
    responses((status = 200, description = "the ONU's MACs after the read", body = Single<OnuMacs>), BadParameter, Missing, DeviceFailures, ActorTimeout, NotSupported, Refusals)
)]
async fn refresh_macs(State(app): State<AppState>, OnuPath(id): OnuPath) -> ApiResult {
    let owner = app.onu_olt(id)?;
    owner.refresh_macs(id).await?;
    one(macs_of(&app, id).await?)
}

#[utoipa::path(
    get,
    path = "/macs",
    operation_id = "find_mac",
    tag = "macs",
    summary = "Which ONU is this MAC behind?",
    description = "Every ONU the MAC (or every MAC of a prefix of at least 6 hex digits) is \
        or was behind, newest sighting first. `duplicate` marks a MAC active behind two ONUs \
        at once.",
    params(MacLookup, PageQuery),
    responses((status = 200, description = "one page of sightings", body = Paged<MacSightingItem>), BadParameter, Refusals)
)]
async fn find_macs(
    State(app): State<AppState>,
    Query(lookup): Query<MacLookup>,
    Query(page_query): Query<PageQuery>,
) -> ApiResult {
    let paging = page_query.paging(&app.config.paging)?;
    let query = MacQuery::parse(&lookup.mac).map_err(|e| {
        let quoted = crate::http::echo(&lookup.mac);
        ApiError::InvalidParameter(format!("parameter `mac`: {}", e.message(&quoted)))
    })?;
    let entries = crate::history::find_macs(&app, query, MAX_FOUND).await?;
    page(sightings(&app, entries), paging)
}

/// Stored pairs as answered, each flagged when its MAC is active behind another ONU.
fn sightings(app: &AppState, entries: Vec<MacEntry>) -> Vec<MacSightingItem> {
    let mut active: HashMap<_, usize> = HashMap::new();
    for entry in entries.iter().filter(|e| e.active) {
        *active.entry(entry.mac).or_default() += 1;
    }
    entries
        .into_iter()
        .map(|e| MacSightingItem {
            duplicate: e.active && active.get(&e.mac).copied().unwrap_or(0) > 1,
            mac: e.mac.to_string(),
            onu_id: e.record.owner.onu,
            olt_id: e.record.owner.olt,
            pon_port: e.record.owner.pon_port,
            serial: e.record.owner.serial,
            vlan: e.record.vlan,
            first_seen: app.clock.format(e.record.first_seen),
            last_seen: app.clock.format(e.record.last_seen),
            active: e.active,
        })
        .collect()
}
