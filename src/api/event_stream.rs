//! `GET /events/stream` (docs/events.md): the event log as Server-Sent Events, with the filters
//! of `GET /events`. Each event is one SSE message whose `id:` is the event id and whose
//! data is the event as `GET /events` shows it; a comment line every 15 s keeps proxies
//! from closing the connection.
//!
//! Every stream reads the log itself, from its own cursor: it starts after
//! `Last-Event-ID` (or `?after=`; without either, after the newest event), reads what is
//! on disk in batches, and waits on the log's watch of the last id when it has caught up.
//! So a subscriber never misses or repeats an event across a reconnect, a slow one only
//! falls behind (hyper stops polling its stream while its socket is full, and at most one
//! batch waits in memory) and catches up from the log, and no subscriber can slow the
//! polling or another subscriber. The key check, IP rules and rate limit run when the
//! stream opens ([`crate::auth`]); the key is checked again every few seconds, and a
//! revoked key ends the stream.
//!
//! In a cluster the stream carries every member's events ([`members`]): its `id:` is a
//! position in each member's log, which resumes the stream on any member.

mod members;

use super::doc::{BadParameter, Refusals};
use super::events::EventsQuery;
use crate::error::ApiError;
use crate::events::item;
use crate::http::{ApiResult, Id53, Query};
use crate::state::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::IntoResponse;
use futures::stream::{self, Stream};
use ponkeeper_actors::events::{Event, EventFilter};
use serde::Deserialize;
use std::collections::VecDeque;
use std::convert::Infallible;
use std::time::Duration;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Events read from the log at once, per subscriber.
const BATCH: usize = 256;
/// How often a waiting stream checks that its key is still valid.
const KEY_CHECK: Duration = Duration::from_secs(2);
/// The comment line that keeps proxies from closing an idle stream.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(stream_events))
}

/// Where the stream starts.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct Resume {
    /// Send events with a larger id than this (as the `Last-Event-ID` header does).
    #[param(inline)]
    after: Option<Id53>,
}

/// One subscriber's position in the log.
struct Cursor {
    app: AppState,
    key: String,
    filter: EventFilter,
    after: u64,
    ready: VecDeque<Event>,
}

#[utoipa::path(
    get,
    path = "/events/stream",
    operation_id = "stream_events",
    tag = "events",
    summary = "The event stream (Server-Sent Events)",
    description = "Events as they are logged, oldest first, one SSE message each (`id:` the \
        event id, `data:` the event as `GET /events` shows it), with the filters of \
        `GET /events`. Resumes after `Last-Event-ID` or `after`, from the log, without a gap \
        or a duplicate; without either it starts with the next event. A comment line every \
        15 s keeps the connection open. Revoking the key ends the stream. In a cluster the \
        stream carries every member's events, each naming its `member`, and `id:` is a \
        position in every member's log (`alpha:41,bravo:7`) that resumes the stream on any \
        member.",
    params(Resume, EventsQuery),
    responses(
        (status = 200, description = "the stream", content_type = "text/event-stream", body = String),
        BadParameter,
        Refusals
    )
)]
async fn stream_events(
    State(app): State<AppState>,
    headers: HeaderMap,
    Query(resume): Query<Resume>,
    Query(query): Query<EventsQuery>,
) -> ApiResult {
    let filter = query.filter(&app.clock);
    let key = headers
        .get(crate::auth::API_KEY_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    if let Some(shared) = app.cluster.shared().filter(|_| app.cluster.is_running()) {
        let start = members_start(&headers, resume.after, &shared.config().name)?;
        let messages = members::messages(app.clone(), shared.clone(), (key, filter), start);
        return Ok(Sse::new(messages)
            .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
            .into_response());
    }
    let from_header = match headers.get("last-event-id") {
        None => None,
        Some(value) => Some(
            value
                .to_str()
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .ok_or_else(|| {
                    ApiError::InvalidParameter(
                        "header `Last-Event-ID` must be an event id (an integer)".into(),
                    )
                })?,
        ),
    };
    let from_query = resume.after.map(Id53::u64);
    let after = from_header
        .or(from_query)
        .unwrap_or_else(|| app.events.last_id());
    let cursor = Cursor {
        app,
        key,
        filter,
        after,
        ready: VecDeque::new(),
    };
    Ok(Sse::new(messages(cursor))
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response())
}

/// Where a cluster's stream starts: `Last-Event-ID` (a position per member, or this
/// member's id), else `after` (this member's id), else the newest event of each member.
fn members_start(
    headers: &HeaderMap,
    after: Option<Id53>,
    this: &str,
) -> Result<members::Positions, ApiError> {
    match headers.get("last-event-id") {
        Some(value) => value
            .to_str()
            .ok()
            .and_then(|v| members::Positions::parse(v, this))
            .ok_or_else(|| {
                ApiError::InvalidParameter(
                    "header `Last-Event-ID` must be an event id (an integer) or a stream \
                     position (`member:id` pairs joined by commas)"
                        .into(),
                )
            }),
        None => Ok(after
            .and_then(|id| members::Positions::parse(&id.u64().to_string(), this))
            .unwrap_or_default()),
    }
}

/// The SSE messages of one subscriber; ends when its key is revoked or the log fails.
fn messages(cursor: Cursor) -> impl Stream<Item = Result<SseEvent, Infallible>> {
    stream::unfold(cursor, |mut cursor| async move {
        let event = cursor.next().await?;
        let id = event.id;
        let shown = crate::events::EventItem {
            member: cursor.app.cluster.name().map(String::from),
            ..item(&cursor.app.clock, event)
        };
        let body = serde_json::to_string(&shown).unwrap_or_default();
        let message = SseEvent::default().id(id.to_string()).data(body);
        Some((Ok(message), cursor))
    })
}

impl Cursor {
    /// The next event for this subscriber, waiting for it; `None` ends the stream. The
    /// key is checked again at least every [`KEY_CHECK`].
    async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(event) = self.ready.pop_front() {
                return Some(event);
            }
            if self.key.is_empty() || self.app.keys.find(&self.key).is_none() {
                tracing::info!("an event stream ends: its key was revoked");
                return None;
            }
            let log = &self.app.events;
            let wait = (BATCH, KEY_CHECK);
            match crate::events::wait_after(log, &self.filter, Some(self.after), wait).await {
                Ok((events, seen)) => {
                    self.after = seen;
                    self.ready.extend(events);
                }
                Err(error) => {
                    tracing::error!(%error, "an event stream cannot read the log; ending it");
                    return None;
                }
            }
        }
    }
}
