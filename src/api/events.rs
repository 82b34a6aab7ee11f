//! `GET /events` (SPEC §9): the event log newest first, filtered by `from`/`to` (local
//! date-times), `type` (repeatable), `severity`, `oltId`, `nodeId`, `onuId`, paged. The
//! log is written by the device side's event log actor ([`ponkeeper_actors::events`]);
//! this module reads it and writes each event as the API shows it ([`EventItem`]), as
//! the stream and webhooks do.

use super::doc::{BadParameter, LocalDateTime, PageParams, Refusals};
use crate::error::ApiError;
use crate::events::{item, EventItem};
use crate::http::{echo, page_of, ApiResult, Paged, Params};
use crate::state::AppState;
use axum::extract::{RawQuery, State};
use ponkeeper_actors::events::{EventFilter, EventType, Severity};
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list))
}

/// Filters of `GET /events` (and of the stream).
#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
#[allow(dead_code)] // documents the query that `filter_of` parses
pub struct EventFilters {
    /// Local date-time, e.g. `2026-11-21T19:15:03`: events at or after it.
    #[param(required = false, inline)]
    from: Option<LocalDateTime>,
    /// Local date-time: events at or before it.
    #[param(required = false, inline)]
    to: Option<LocalDateTime>,
    /// Event type; repeat the parameter for several (`type=ONU_DOWN&type=PON_OUTAGE`).
    #[param(required = false, inline, rename = "type", style = Form, explode)]
    kind: Vec<EventType>,
    #[param(required = false, inline)]
    severity: Severity,
    #[param(required = false, minimum = 0, maximum = 4294967295_u64)]
    olt_id: u64,
    #[param(required = false, minimum = 0, maximum = 4294967295_u64)]
    node_id: u64,
    #[param(required = false, minimum = 0, maximum = 9007199254740991_u64)]
    onu_id: u64,
}

/// Splits the repeatable `type` off a raw query; the rest goes to [`Params`].
pub fn split_types(raw: Option<&str>) -> Result<(Vec<EventType>, Params), ApiError> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(raw.unwrap_or(""))
        .map_err(|e| ApiError::InvalidParameter(format!("the query string is malformed: {e}")))?;
    let (types, rest): (Vec<_>, Vec<_>) = pairs.into_iter().partition(|(name, _)| name == "type");
    let mut kinds = Vec::new();
    for (_, value) in types {
        let kind = value.trim().parse::<EventType>().map_err(|allowed| {
            ApiError::InvalidParameter(format!(
                "parameter `type`: `{}` is not valid; {allowed}",
                echo(&value)
            ))
        })?;
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    let rest = serde_urlencoded::to_string(rest)
        .map_err(|e| ApiError::InvalidParameter(format!("the query string is malformed: {e}")))?;
    Ok((kinds, Params::parse(Some(&rest))?))
}

/// The filter a query names.
pub fn filter_of(
    app: &AppState,
    types: Vec<EventType>,
    params: &Params,
) -> Result<EventFilter, ApiError> {
    let id = |name| params.integer(name, 0, i64::from(u32::MAX));
    Ok(EventFilter {
        from: params.local_time("from", &app.clock)?,
        to: params.local_time("to", &app.clock)?,
        types,
        severity: params.enumeration::<Severity>("severity")?,
        olt_id: id("oltId")?.map(|n| n as u32),
        node_id: id("nodeId")?.map(|n| n as u32),
        onu_id: params
            .integer("onuId", 0, 9_007_199_254_740_991)?
            .map(|n| n as u64),
    })
}

#[utoipa::path(
    get,
    path = "/events",
    operation_id = "list_events",
    tag = "events",
    summary = "The event log",
    description = "Events newest first, filtered and paged (SPEC §9).",
    params(PageParams, EventFilters),
    responses((status = 200, description = "one page of events", body = Paged<EventItem>), BadParameter, Refusals)
)]
async fn list(State(app): State<AppState>, RawQuery(query): RawQuery) -> ApiResult {
    let (types, params) = split_types(query.as_deref())?;
    let paging = params.paging(&app.config.paging)?;
    let filter = filter_of(&app, types, &params)?;
    let log = app.events.clone();
    let (offset, size) = (paging.offset(), paging.size as usize);
    let (total, events) =
        tokio::task::spawn_blocking(move || log.page(&filter, offset, size)).await??;
    page_of(
        events.into_iter().map(|e| item(&app.clock, e)).collect(),
        total,
        paging,
    )
}
