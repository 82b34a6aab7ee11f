//! `/nodes`: communication nodes with subscriber counters (docs/api.md). `oltCount` counts
//! the inventory OLTs bound to the node; `onuTotal` and `onuOnline` are sums over those
//! OLTs' counters. The fleet view keeps the counters as the OLT actors publish their
//! changes, so a page of nodes is one question to it.

use super::doc::{ActorTimeout, BadParameter, Missing, Refusals};
use super::path::NodePath;
use crate::error::ApiError;
use crate::http::{one, page_of, ApiResult, PageQuery, Paged, Query, Single};
use crate::state::AppState;
use axum::extract::State;
use ponkeeper_actors::domain::NodeId;
use ponkeeper_actors::fleet_view::NodeCounters;
use ponkeeper_actors::inventory::NodeSpec;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(detail))
}

/// Filters of `GET /nodes` and of the MCP tool `list_nodes`.
#[derive(Debug, Default, Deserialize, Serialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
pub struct NodesQuery {
    /// City, matched case-insensitively.
    pub city: Option<String>,
}

/// A node with its counters: exactly the published contract's fields (docs/api.md).
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

fn node_item(node: &NodeSpec, counters: NodeCounters) -> NodeItem {
    NodeItem {
        id: node.id,
        name: node.name.clone(),
        city: node.city.clone(),
        description: node.description.clone(),
        olt_count: counters.olt_count,
        onu_total: counters.onu_total,
        onu_online: counters.onu_online,
    }
}

#[utoipa::path(
    get,
    path = "/nodes",
    operation_id = "list_nodes",
    tag = "nodes",
    summary = "List communication nodes",
    description = "Nodes ordered by id with their OLT count and ONU counters, paged.",
    params(PageQuery, NodesQuery),
    responses((status = 200, description = "one page of nodes", body = Paged<NodeItem>), BadParameter, ActorTimeout, Refusals)
)]
async fn list(
    State(app): State<AppState>,
    Query(page_query): Query<PageQuery>,
    Query(query): Query<NodesQuery>,
) -> ApiResult {
    let paging = page_query.paging(&app.config.paging)?;
    let city = query.city.as_deref();
    let inventory = app.inventory();
    let mut nodes: Vec<&NodeSpec> = inventory
        .nodes
        .iter()
        .filter(|n| city.is_none_or(|c| n.city.eq_ignore_ascii_case(c)))
        .collect();
    nodes.sort_by_key(|n| n.id);
    let total = nodes.len();
    let shown: Vec<&NodeSpec> = nodes
        .into_iter()
        .skip(paging.offset())
        .take(paging.size as usize)
        .collect();
    let ids = shown.iter().map(|n| n.id).collect();
    let counters = app.cluster.node_counters(app.fleet.view(), ids).await?;
    page_of(
        shown
            .into_iter()
            .zip(counters)
            .map(|(n, c)| node_item(n, c))
            .collect(),
        total,
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
    let counters = app
        .cluster
        .node_counters(app.fleet.view(), vec![id])
        .await?;
    one(node_item(
        node,
        counters.into_iter().next().unwrap_or_default(),
    ))
}
