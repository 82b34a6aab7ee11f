//! `GET /cluster`: the members of the cluster as the asked member sees them — who is
//! live, who is in sight, how many OLTs each runs, whether each has polled them, when
//! each was last heard and the round trip of its last heartbeat (docs/scale-out.md).

use super::doc::Refusals;
use crate::cluster::ClusterItem;
use crate::http::{one, ApiResult, Single};
use crate::state::AppState;
use axum::extract::State;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(cluster))
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
