//! Traffic: an ONU's latest octet counters and the rates computed between its last two
//! reads of the `traffic` poll group (docs/api.md, "Traffic"). The OLT's actor keeps
//! them in memory ([`ponkeeper_actors::traffic`]); nothing here is stored. A layout
//! without per-ONU counters, an ONU the last read did not find, a first read and a read
//! after a reset (the OLT or the ONU restarted) answer `null`, never 0.

use super::doc::{ActorTimeout, BadParameter, Missing, Refusals};
use super::path::OnuPath;
use crate::http::{one, ApiResult, Single};
use crate::state::AppState;
use axum::extract::State;
use ponkeeper_actors::traffic::TrafficReading;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(latest))
}

/// An ONU's latest traffic reading (docs/api.md). `in` is what the OLT received from the
/// ONU (the subscriber's upload), `out` what it sent to the ONU (the download).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrafficItem {
    /// Bits a second received from the ONU between the last two reads; null for the
    /// first read, after a reset, or where the layout has no counter.
    pub in_bps: Option<f64>,
    /// Bits a second sent to the ONU between the last two reads; null as `inBps`.
    pub out_bps: Option<f64>,
    /// The counters as last read (the device's own, which may wrap or restart).
    pub in_octets: Option<u64>,
    pub out_octets: Option<u64>,
    /// When the counters were last read; null before the first read.
    pub at: Option<String>,
}

/// The item of `reading`, or the all-null item when there is none.
fn item(app: &AppState, reading: Option<TrafficReading>) -> TrafficItem {
    let round = |bps: Option<f64>| bps.map(f64::round);
    TrafficItem {
        in_bps: round(reading.and_then(|r| r.in_bps)),
        out_bps: round(reading.and_then(|r| r.out_bps)),
        in_octets: reading.and_then(|r| r.in_octets),
        out_octets: reading.and_then(|r| r.out_octets),
        at: reading.map(|r| app.clock.format(r.at)),
    }
}

#[utoipa::path(
    get,
    path = "/onus/{id}/traffic",
    operation_id = "get_onu_traffic",
    tag = "traffic",
    summary = "Latest traffic rates of an ONU",
    description = "The ONU's octet counters as the `traffic` poll group last read them \
        (`[polling] traffic_interval`, default 5 minutes) and the rates between that read and \
        the one before, in bits a second. Null where the OLT's layout has no per-ONU counter \
        (docs/devices.md), before the second read, and for the first read after the OLT or \
        the ONU restarted.",
    params(("id" = u64, Path, description = "ONU id")),
    responses((status = 200, description = "the latest reading", body = Single<TrafficItem>), BadParameter, Missing, ActorTimeout, Refusals)
)]
async fn latest(State(app): State<AppState>, OnuPath(id): OnuPath) -> ApiResult {
    let owner = app.onu_olt(id)?;
    // 404 for an ONU its OLT no longer has, as the other ONU sub-resources answer.
    app.onu(id).await?;
    let reading = owner.traffic(id).await?;
    one(item(&app, reading))
}
