//! `GET /webhooks` (docs/events.md): the webhooks of the config in force and how far each has
//! delivered — its cursor, its lag behind the event log, its last attempt and the next
//! one while it retries — never the secret. The delivery tasks live in
//! [`crate::webhooks`]; this module reads their status.

use super::doc::{BadParameter, Refusals};
use crate::http::{page, ApiResult, PageQuery, Paged, Query};
use crate::state::AppState;
use axum::extract::State;
use ponkeeper_actors::events::EventType;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list))
}

/// One webhook and its delivery state.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookItem {
    pub name: String,
    /// The receiver's URL, a password in it replaced by `***`.
    pub url: String,
    /// The event types sent; empty: all.
    #[schema(inline)]
    pub types: Vec<EventType>,
    /// The last event id delivered (or passed over by `types`).
    pub delivered_up_to: u64,
    /// Events logged after `deliveredUpTo`.
    pub lag: u64,
    /// The HTTP status of the last attempt, if the receiver answered.
    pub last_status: Option<u16>,
    /// Why the last attempt failed; null after a success.
    pub last_error: Option<String>,
    /// Local date-time of the last attempt.
    pub last_attempt_at: Option<String>,
    /// Local date-time of the next attempt, while retrying.
    pub next_attempt_at: Option<String>,
    /// Failed attempts in a row.
    pub failures: u32,
}

#[utoipa::path(
    get,
    path = "/webhooks",
    operation_id = "list_webhooks",
    tag = "events",
    summary = "Webhooks and their delivery state",
    description = "The `[[webhooks]]` of the config in force, in config order, with how far \
        each has delivered. Secrets are never shown.",
    params(PageQuery),
    responses((status = 200, description = "one page of webhooks", body = Paged<WebhookItem>), BadParameter, Refusals)
)]
async fn list(State(app): State<AppState>, Query(page_query): Query<PageQuery>) -> ApiResult {
    let paging = page_query.paging(&app.config.paging)?;
    let newest = app.events.last_id();
    let items = app
        .webhooks
        .statuses()
        .into_iter()
        .map(|(config, status)| WebhookItem {
            url: shown_url(&config.url),
            name: config.name,
            types: config.types,
            delivered_up_to: status.delivered_up_to,
            lag: newest.saturating_sub(status.delivered_up_to),
            last_status: status.last_status,
            last_error: status.last_error,
            last_attempt_at: status.last_attempt_at.map(|at| app.clock.format(at)),
            next_attempt_at: status.next_attempt_at.map(|at| app.clock.format(at)),
            failures: status.failures,
        })
        .collect();
    page(items, paging)
}

/// `url` with any password replaced by `***`.
fn shown_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            let _ = parsed.set_password(Some("***"));
            parsed.to_string()
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_password_in_the_url_is_hidden() {
        assert_eq!(
            super::shown_url("https://hook:s3cret@billing.example/p"),
            "https://hook:***@billing.example/p"
        );
        assert_eq!(
            super::shown_url("http://127.0.0.1:9000/x"),
            "http://127.0.0.1:9000/x"
        );
    }
}
