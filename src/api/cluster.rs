//! `GET /cluster`: the members of the cluster as the asked member sees them — who is
//! live, who is in sight, how many OLTs each runs, whether each has polled them, when
//! each was last heard and the round trip of its last heartbeat (docs/scale-out.md).

use super::doc::Refusals;
use crate::http::{one, ApiResult, Single};
use crate::state::AppState;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(cluster))
}

/// The cluster as this member sees it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterItem {
    /// Whether this process is a member of a cluster (`[cluster]`); without one it serves
    /// every OLT of the inventory alone and `members` is empty.
    pub clustered: bool,
    /// This member's name.
    pub name: Option<String>,
    /// Whether this member sees a strict majority of the members (it runs actions only then).
    pub quorum: bool,
    /// The silence after which a member's OLTs go to the others, in seconds.
    pub takeover_after_seconds: Option<f64>,
    /// Every configured member, this one included, by name.
    pub members: Vec<MemberItem>,
}

/// One member.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MemberItem {
    pub name: String,
    /// The member answering this request.
    pub this: bool,
    /// Counted in the OLTs' ownership now.
    pub live: bool,
    /// Heard within `takeoverAfterSeconds`.
    pub in_sight: bool,
    /// Every OLT it runs has finished a poll.
    pub ready: bool,
    /// OLT actors it runs, as it last said.
    pub olts: usize,
    /// The block it allocates ids in.
    pub id_block: Option<u16>,
    /// Seconds since it was last heard (`null`: never, or this member).
    pub last_seen_seconds_ago: Option<f64>,
    /// The round trip of the last heartbeat to it, in milliseconds.
    pub round_trip_ms: Option<f64>,
}

#[utoipa::path(
    get,
    path = "/cluster",
    operation_id = "get_cluster",
    tag = "cluster",
    summary = "The cluster's members",
    description = "Who is live, in sight and ready, how many OLTs each member runs, and the links' ages, as the asked member sees them.",
    responses((status = 200, description = "the cluster", body = Single<ClusterItem>), Refusals)
)]
async fn cluster(State(app): State<AppState>) -> ApiResult {
    one(app.cluster.describe(app.fleet.olts().len()))
}
