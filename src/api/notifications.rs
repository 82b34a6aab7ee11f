//! `GET /notifications` (docs/outages.md#notifications): the `[[notify]]` channels of the
//! config in force and how far each has sent — the event of its last change, messages
//! sent, its last error and next attempt while it retries — never a token or a password.
//! The delivery tasks live in [`crate::notify`]; this module reads their status.

use super::doc::{BadParameter, Refusals};
use crate::alarms::AlarmType;
use crate::channels::ChannelKind;
use crate::http::{page, ApiResult, PageQuery, Paged, Query};
use crate::state::AppState;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list))
}

/// One channel and its delivery state.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChannelItem {
    pub name: String,
    /// `telegram` or `email`.
    #[schema(value_type = String)]
    pub kind: ChannelKind,
    /// The alarm types sent; empty: all.
    #[schema(inline)]
    pub types: Vec<AlarmType>,
    /// The event id of the last alarm change sent (or passed over by the filter).
    pub delivered_up_to: u64,
    /// Messages sent since the service started (a digest counts once).
    pub sent: u64,
    /// Why the last attempt failed; null after a success.
    pub last_error: Option<String>,
    /// Local date-time of the last message sent.
    pub last_sent_at: Option<String>,
    /// Local date-time of the next attempt, while retrying.
    pub next_attempt_at: Option<String>,
    /// Failed attempts in a row.
    pub failures: u32,
}

#[utoipa::path(
    get,
    path = "/notifications",
    operation_id = "list_notification_channels",
    tag = "outages",
    summary = "Notification channels and their delivery state",
    description = "The `[[notify]]` channels (Telegram, e-mail) of the config in force, in \
        config order, with how far each has sent. Tokens and passwords are never shown.",
    params(PageQuery),
    responses((status = 200, description = "one page of channels", body = Paged<ChannelItem>), BadParameter, Refusals)
)]
async fn list(State(app): State<AppState>, Query(page_query): Query<PageQuery>) -> ApiResult {
    let paging = page_query.paging(&app.config.paging)?;
    let items = app
        .notifiers
        .statuses()
        .into_iter()
        .map(|(config, status)| ChannelItem {
            name: config.name,
            kind: config.kind,
            types: config.types,
            delivered_up_to: status.delivered_up_to,
            sent: status.sent,
            last_error: status.last_error,
            last_sent_at: status.last_sent_at.map(|at| app.clock.format(at)),
            next_attempt_at: status.next_attempt_at.map(|at| app.clock.format(at)),
            failures: status.failures,
        })
        .collect();
    page(items, paging)
}
