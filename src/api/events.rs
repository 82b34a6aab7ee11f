//! `GET /events` (docs/events.md): the event log newest first, filtered by `from`/`to` (local
//! date-times), `type` (repeatable), `severity`, `oltId`, `nodeId`, `onuId`, paged. The
//! log is written by the device side's event log actor ([`ponkeeper_actors::events`]);
//! this module reads it and writes each event as the API shows it ([`EventItem`]), as
//! the stream and webhooks do.

use super::doc::{BadParameter, Refusals};
use crate::clock::Clock;
use crate::events::{item, EventItem};
use crate::http::russian::Language;
use crate::http::{page_of, ApiResult, Id32, Id53, LocalDateTime, PageQuery, Paged, Query};
use crate::state::AppState;
use axum::extract::State;
use ponkeeper_actors::events::{EventFilter, EventType, Severity};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list))
}

/// Filters of `GET /events`, of the stream and of the MCP tool `list_events`.
#[derive(Debug, Default, Deserialize, Serialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct EventsQuery {
    /// Local date-time, e.g. `2026-11-21T19:15:03`: events at or after it.
    #[param(inline)]
    pub from: Option<LocalDateTime>,
    /// Local date-time: events at or before it.
    #[param(inline)]
    pub to: Option<LocalDateTime>,
    /// Event type; repeat the parameter for several (`type=ONU_DOWN&type=PON_OUTAGE`).
    #[serde(rename = "type", default, skip_serializing_if = "Vec::is_empty")]
    #[param(required = false, inline, style = Form, explode)]
    pub types: Vec<EventType>,
    /// Only events of this severity.
    #[param(inline)]
    pub severity: Option<Severity>,
    /// Only events of this OLT.
    #[param(inline)]
    pub olt_id: Option<Id32>,
    /// Only events of OLTs of this communication node.
    #[param(inline)]
    pub node_id: Option<Id32>,
    /// Only events of this ONU.
    #[param(inline)]
    pub onu_id: Option<Id53>,
}

impl EventsQuery {
    /// The event log's filter this query names, its times in `clock`'s zone.
    pub fn filter(self, clock: &Clock) -> EventFilter {
        let mut types: Vec<EventType> = Vec::with_capacity(self.types.len());
        for kind in self.types {
            if !types.contains(&kind) {
                types.push(kind);
            }
        }
        EventFilter {
            from: self.from.map(|at| at.instant(clock)),
            to: self.to.map(|at| at.instant(clock)),
            types,
            severity: self.severity,
            olt_id: self.olt_id.map(Id32::u32),
            node_id: self.node_id.map(Id32::u32),
            onu_id: self.onu_id.map(Id53::u64),
        }
    }
}

#[utoipa::path(
    get,
    path = "/events",
    operation_id = "list_events",
    tag = "events",
    summary = "The event log",
    description = "Events newest first, filtered and paged (docs/events.md).",
    params(PageQuery, EventsQuery),
    responses((status = 200, description = "one page of events", body = Paged<EventItem>), BadParameter, Refusals)
)]
async fn list(
    State(app): State<AppState>,
    Query(page_query): Query<PageQuery>,
    Query(query): Query<EventsQuery>,
    language: Language,
) -> ApiResult {
    let paging = page_query.paging(&app.config.paging)?;
    let filter = query.filter(&app.clock);
    let log = app.events.clone();
    let (offset, size) = (paging.offset(), paging.size as usize);
    let (total, events) =
        tokio::task::spawn_blocking(move || log.page(&filter, offset, size)).await??;
    page_of(
        events
            .into_iter()
            .map(|mut e| {
                e.message = language.say(&e.message);
                EventItem {
                    member: app.cluster.name().map(String::from),
                    ..item(&app.clock, e)
                }
            })
            .collect(),
        total,
        paging,
    )
}
