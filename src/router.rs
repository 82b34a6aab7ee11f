//! The whole HTTP surface composed in one place: the REST API ([`crate::api`]) and MCP
//! ([`crate::mcp`]) behind the access check ([`crate::auth`]) and the body read
//! ([`crate::body`]); the operations endpoints ([`crate::health`]), the documentation and
//! the operator page ([`crate::ui`]) in front of it; library refusals put in the envelope
//! and the audit log ([`crate::audit`]) around everything; CORS outermost when configured.
//! The API and MCP do not know each other: MCP is handed the REST router it calls.

use crate::audit::refusals::RefusalCounts;
use crate::http::MCP_PATH;
use crate::state::AppState;
use axum::{middleware, Router};
use std::sync::Arc;
use utoipa::openapi::OpenApi;

/// The routes and OpenAPI document of the API and the operations endpoints, the document
/// as a service with `paging` serves it (the operations endpoints are documented with the
/// API but mounted before the key check).
fn documented(paging: &crate::config::Paging) -> (Router<AppState>, OpenApi) {
    let (api, mut openapi) = crate::api::documented_api();
    openapi.merge(crate::health::router().split_for_parts().1);
    crate::api::doc::apply_paging(&mut openapi, paging);
    crate::api::doc::apply_query_rules(&mut openapi);
    (api, openapi)
}

/// The OpenAPI document of the API as a service with `paging` serves it.
pub fn openapi(paging: &crate::config::Paging) -> OpenApi {
    documented(paging).1
}

/// The whole HTTP surface: the REST API and MCP at `/mcp` behind key authentication, the
/// documentation (no key) in front of them, the audit log around everything, envelope
/// fallbacks for the rest. The MCP tools call [`rest_router`] in process; both count
/// failed authentications for the audit log together.
pub fn router(state: AppState) -> Router {
    let refusals = Arc::new(RefusalCounts::new(state.config.audit.refusals_per_minute));
    let rest = surface(state.clone(), None, refusals.clone());
    let mcp = crate::mcp::http_service(rest);
    let origins = state.config.cors_origins.clone();
    crate::cors::allow(surface(state, Some(mcp), refusals), &origins)
}

/// The same surface without `/mcp`: what MCP tools call.
pub fn rest_router(state: AppState) -> Router {
    let refusals = Arc::new(RefusalCounts::new(state.config.audit.refusals_per_minute));
    surface(state, None, refusals)
}

/// The layers, outermost first: the audit log; error messages in the client's language
/// ([`crate::http::russian`]); library answers put in the envelope
/// ([`crate::http::library_errors`]); the documentation, or else the access check ([`crate::auth`]),
/// then the body read ([`crate::body`]), then the route.
fn surface(
    state: AppState,
    mcp: Option<crate::mcp::HttpService>,
    refusals: Arc<RefusalCounts>,
) -> Router {
    let (mut api, openapi) = documented(&state.config.paging);
    if let Some(mcp) = mcp {
        api = api.nest_service(MCP_PATH, crate::mcp::single_messages(mcp));
    }
    // Without a key: the operations endpoints, and /metrics when `metrics.public`.
    let mut open = crate::health::router().split_for_parts().0;
    if state.config.metrics.public {
        open = open.route("/metrics", axum::routing::get(crate::metrics::endpoint));
    } else {
        api = api.route("/metrics", axum::routing::get(crate::metrics::endpoint));
    }
    let open = open
        .method_not_allowed_fallback(crate::http::wrong_method)
        .with_state(state.clone());
    let api = api
        .fallback(crate::http::no_route)
        .method_not_allowed_fallback(crate::http::wrong_method)
        // Innermost: a cluster member answers what another member serves through it.
        .layer(middleware::from_fn_with_state(
            state.clone(),
            crate::member::forward::route,
        ))
        .layer(middleware::from_fn(crate::body::read))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            crate::auth::authenticate,
        ))
        .with_state(state.clone());
    crate::api::doc::docs_router(state.config.swagger().then_some(openapi))
        .merge(open)
        .merge(crate::ui::router())
        // Anything that is not documentation, an open endpoint or the operator page goes
        // through the key check.
        .fallback_service(api)
        .layer(middleware::from_fn(crate::http::library_errors::enveloped))
        // Error messages in Russian for a client that prefers it, library refusals too.
        .layer(middleware::from_fn(crate::http::russian::in_russian))
        // Outermost: sees every answer, the key checks' refusals included.
        .layer(middleware::from_fn_with_state(
            (state, refusals),
            crate::audit::record,
        ))
}
