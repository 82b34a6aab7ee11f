//! `/nodes`: communication nodes with subscriber counters (seed §2.2). `oltCount` counts
//! the inventory OLTs bound to the node; `onuTotal` and `onuOnline` are sums over the
//! replies of those OLTs' actors.

use super::doc::{ActorTimeout, BadParameter, Missing, PageParams, Refusals};
use super::path::NodePath;
use super::{one, page, ApiError, ApiResult, Paged, Params, Single};
use crate::state::AppState;
use axum::extract::{RawQuery, State};
use ponkeeper_actors::domain::NodeId;
use ponkeeper_actors::inventory::NodeSpec;
use ponkeeper_actors::olt::OltSummary;
use serde::Serialize;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(detail))
}

/// Filters of `GET /nodes`.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)] // documents the query that `Params` parses
struct NodeFilters {
    /// City, matched case-insensitively.
    #[param(required = false)]
    city: String,
}

/// A node with its counters: exactly seed §2.2.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeItem {
    pub id: NodeId,
    pub name: String,
    pub city: String,
    pub description: String,
    pub olt_count: u32,
    pub onu_total: u64,
    pub onu_online: u64,
}

fn counters(node: &NodeSpec, olts: &[OltSummary]) -> NodeItem {
    let mine = olts.iter().filter(|o| o.node == Some(node.id));
    let (mut olt_count, mut onu_total, mut onu_online) = (0, 0, 0);
    for olt in mine {
        olt_count += 1;
        onu_total += u64::from(olt.total_onu);
        onu_online += u64::from(olt.onu_online);
    }
    NodeItem {
        id: node.id,
        name: node.name.clone(),
        city: node.city.clone(),
        description: node.description.clone(),
        olt_count,
        onu_total,
        onu_online,
    }
}

#[utoipa::path(
    get,
    path = "/nodes",
    operation_id = "list_nodes",
    tag = "nodes",
    summary = "List communication nodes",
    description = "Nodes ordered by id with their OLT count and ONU counters, paged.",
    params(PageParams, NodeFilters),
    responses((status = 200, description = "one page of nodes", body = Paged<NodeItem>), BadParameter, ActorTimeout, Refusals)
)]
async fn list(State(app): State<AppState>, RawQuery(query): RawQuery) -> ApiResult {
    let params = Params::parse(query.as_deref())?;
    let paging = params.paging(&app.config.paging)?;
    let city = params.text("city");
    let inventory = app.inventory();
    let olts = app.summaries().await?;
    let mut nodes: Vec<&NodeSpec> = inventory
        .nodes
        .iter()
        .filter(|n| city.is_none_or(|c| n.city.eq_ignore_ascii_case(c)))
        .collect();
    nodes.sort_by_key(|n| n.id);
    page(
        nodes.into_iter().map(|n| counters(n, &olts)).collect(),
        paging,
    )
}

#[utoipa::path(
    get,
    path = "/nodes/{id}",
    operation_id = "get_node",
    tag = "nodes",
    summary = "One communication node",
    params(("id" = u32, Path, description = "node id")),
    responses((status = 200, description = "the node with its counters", body = Single<NodeItem>), BadParameter, Missing, ActorTimeout, Refusals)
)]
async fn detail(State(app): State<AppState>, NodePath(id): NodePath) -> ApiResult {
    let inventory = app.inventory();
    let node = inventory
        .node(id)
        .ok_or_else(|| ApiError::NotFound(format!("no node with id {id}")))?;
    let olts = app.summaries().await?;
    one(counters(node, &olts))
}
