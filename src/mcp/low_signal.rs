//! `list_low_signal_onus` when the agent names no `level`: the ONUs whose signal needs
//! attention, WARNING and CRITICAL together, worst first. `GET /optics` filters by one
//! level, but its order (worst Rx first) puts every CRITICAL reading, then every WARNING
//! one, before any OK or UNKNOWN one, so the two levels are the head of the unfiltered
//! list: a page of it, cut where the OK readings start, is the page asked for, and the
//! two levels' counts give its `totalCount`. Called by the tool in `src/mcp.rs`.

use super::backend::{Backend, Reply};
use super::params::LowSignal;
use http::Method;
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use serde_json::Value;

/// The levels listed when none is asked for.
const NEEDS_ATTENTION: [&str; 2] = ["CRITICAL", "WARNING"];

/// The REST reply for a `list_low_signal_onus` call without `level`.
pub async fn needing_attention(
    backend: &Backend,
    ctx: &RequestContext<RoleServer>,
    query: &LowSignal,
) -> Result<Reply, String> {
    let mut scope = Vec::new();
    if let Some(olt) = query.scope.olt_id {
        scope.push(format!("oltId={}", olt.get()));
    }
    if let Some(node) = query.scope.node_id {
        scope.push(format!("nodeId={}", node.get()));
    }
    let mut total = 0u64;
    for level in NEEDS_ATTENTION {
        let mut params = scope.clone();
        params.extend([format!("level={level}"), "size=1".into()]);
        let reply = get(backend, ctx, &params).await?;
        if !(200..300).contains(&reply.status) {
            return Ok(reply);
        }
        total += reply.body["meta"]["totalCount"].as_u64().unwrap_or(0);
    }
    let mut params = scope;
    if let Some(page) = query.page.page {
        params.push(format!("page={}", page.get()));
    }
    if let Some(size) = query.page.size {
        params.push(format!("size={}", size.get()));
    }
    let mut reply = get(backend, ctx, &params).await?;
    if (200..300).contains(&reply.status) {
        if let Some(items) = reply.body["data"].as_array_mut() {
            items.retain(|item| {
                item["level"]
                    .as_str()
                    .is_some_and(|level| NEEDS_ATTENTION.contains(&level))
            });
        }
        reply.body["meta"]["totalCount"] = Value::from(total);
    }
    Ok(reply)
}

async fn get(
    backend: &Backend,
    ctx: &RequestContext<RoleServer>,
    params: &[String],
) -> Result<Reply, String> {
    let path = if params.is_empty() {
        "/optics".to_string()
    } else {
        format!("/optics?{}", params.join("&"))
    };
    backend.call(ctx, Method::GET, &path, None).await
}
