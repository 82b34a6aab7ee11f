//! The external REST API under [`crate::http::BASE`]: one module per resource, each a
//! router of documented handlers, merged here with the OpenAPI document they describe
//! (docs/api.md is the guide). Everything a handler needs of the fleet it asks through
//! [`crate::state::AppState`]; the envelope, paging and query reading are
//! [`crate::http`]'s, the errors [`crate::error`]'s. [`crate::router`] mounts this API
//! behind the access check, beside MCP and the operator page.

mod alarms;
mod audit;
mod cluster;
mod configs;
pub mod doc;
mod event_stream;
pub mod events;
mod host_keys;
mod inventory;
mod nodes;
pub mod notifications;
mod olts;
mod onu_actions;
mod onu_downs;
mod onu_profile;
pub mod webhooks;
// Public for benches/envelope.rs, which serialises its real page type.
mod macs;
pub mod onus;
mod optics;
mod outages;
mod path;
mod placements;
mod polling;
mod provisioning;
mod provisioning_actions;
mod splitters;
mod subscriber;
pub(crate) mod szo;
mod traffic;
mod vlans;
mod whoami;

pub use alarms::AlarmsQuery;
pub use audit::AuditQuery;
pub use configs::DiffQuery;
pub use events::EventsQuery;
pub use macs::MacLookup;
pub use nodes::NodesQuery;
pub use olts::OltsQuery;
pub use onus::{OnuFilterQuery, OnuSearchQuery};
pub use optics::{HistoryQuery, OpticsQuery};
pub use outages::OutagesQuery;
pub use provisioning::UnconfiguredQuery;
pub use splitters::SplittersQuery;
pub use szo::{PeriodQuery, RequiredPeriodQuery, SzoQuery, SzoStatusQuery};
pub use traffic::{TopQuery, TrafficHistoryQuery};
pub use vlans::VlansQuery;

use crate::http::BASE;
use crate::state::AppState;
use axum::Router;
use utoipa::openapi::OpenApi;
use utoipa::OpenApi as _;
use utoipa_axum::router::OpenApiRouter;

/// The API's routes together with their OpenAPI description: each resource module
/// registers its handlers with `utoipa_axum::routes!`, which adds a route and its
/// `#[utoipa::path]` at once, so the two cannot drift apart.
pub fn documented_api() -> (Router<AppState>, OpenApi) {
    let resources = OpenApiRouter::new()
        .merge(olts::router())
        .merge(nodes::router())
        .merge(cluster::router())
        .merge(inventory::router())
        .merge(onus::router())
        .merge(onu_downs::router())
        .merge(onu_profile::router())
        .merge(optics::router())
        .merge(traffic::router())
        .merge(macs::router())
        .merge(polling::router())
        .merge(vlans::router())
        .merge(provisioning::router())
        .merge(provisioning_actions::router())
        .merge(subscriber::router())
        .merge(szo::router())
        .merge(onu_actions::router())
        .merge(configs::router())
        .merge(audit::router())
        .merge(events::router())
        .merge(event_stream::router())
        .merge(webhooks::router())
        .merge(notifications::router())
        .merge(whoami::router())
        .merge(host_keys::router())
        .merge(splitters::router())
        .merge(placements::router())
        .merge(outages::router())
        .merge(alarms::router());
    OpenApiRouter::with_openapi(doc::ApiDoc::openapi())
        .nest(BASE, resources)
        .split_for_parts()
}
