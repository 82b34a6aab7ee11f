//! The external REST API under `/api/v1/external/` (SPEC §4): the response envelope of
//! seed §2.4, the one [`ApiError`] every failure goes through, query-parameter parsing
//! with errors that name the parameter (a parameter given with an empty value is refused,
//! not taken as absent), and the router that merges the resource modules. Unknown routes,
//! wrong methods and malformed input all answer in the envelope.

mod audit;
mod configs;
pub mod doc;
mod event_stream;
pub mod events;
mod host_keys;
mod inventory;
mod library_errors;
mod nodes;
mod olts;
mod onu_actions;
pub mod webhooks;
// Public for benches/envelope.rs, which serialises its real page type.
pub mod onus;
mod optics;
mod path;
mod provisioning;
mod provisioning_actions;
mod subscriber;
mod szo;
mod vlans;
mod whoami;

use crate::audit::refusals::RefusalCounts;
use crate::state::AppState;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{middleware, Json, Router};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::json;
use std::collections::HashMap;
use std::sync::Arc;
use utoipa::openapi::OpenApi;
use utoipa::{OpenApi as _, ToSchema};
use utoipa_axum::router::OpenApiRouter;

pub const BASE: &str = "/api/v1/external";
/// The largest request body taken (SPEC §4: 413 above it).
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// Every way a request can fail, with its HTTP status and `error.code`.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    InvalidParameter(String),
    #[error("{0}")]
    InvalidBody(String),
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    IpNotAllowed(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    MethodNotAllowed(String),
    #[error("{0}")]
    NotAcceptable(String),
    #[error("{0}")]
    Conflict(String),
    /// The request was fine but a file it acts on is not (an invalid inventory on reload).
    #[error("{0}")]
    InvalidInventory(String),
    #[error("{0}")]
    RateLimited(String),
    #[error("{0}")]
    PayloadTooLarge(String),
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// The device refused the command; the message carries the device's own words.
    #[error("{0}")]
    DeviceError(String),
    #[error("{0}")]
    DeviceUnavailable(String),
    #[error("{0}")]
    DeviceTimeout(String),
    /// Logged in full; the client sees a generic message.
    #[error("{0}")]
    Internal(String),
}

impl ApiError {
    fn status_and_code(&self) -> (StatusCode, &'static str) {
        match self {
            ApiError::InvalidParameter(_) => (StatusCode::BAD_REQUEST, "INVALID_PARAMETER"),
            ApiError::InvalidBody(_) => (StatusCode::BAD_REQUEST, "INVALID_BODY"),
            ApiError::PayloadTooLarge(_) => (StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE"),
            ApiError::DeviceError(_) => (StatusCode::BAD_GATEWAY, "DEVICE_ERROR"),
            ApiError::DeviceUnavailable(_) => {
                (StatusCode::SERVICE_UNAVAILABLE, "DEVICE_UNAVAILABLE")
            }
            ApiError::Unauthorized(_) => (StatusCode::UNAUTHORIZED, "UNAUTHORIZED"),
            ApiError::IpNotAllowed(_) => (StatusCode::FORBIDDEN, "IP_NOT_ALLOWED"),
            ApiError::Forbidden(_) => (StatusCode::FORBIDDEN, "FORBIDDEN"),
            ApiError::NotFound(_) => (StatusCode::NOT_FOUND, "NOT_FOUND"),
            ApiError::MethodNotAllowed(_) => (StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED"),
            ApiError::NotAcceptable(_) => (StatusCode::NOT_ACCEPTABLE, "NOT_ACCEPTABLE"),
            ApiError::UnsupportedMediaType(_) => {
                (StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE")
            }
            ApiError::Conflict(_) => (StatusCode::CONFLICT, "CONFLICT"),
            ApiError::InvalidInventory(_) => {
                (StatusCode::UNPROCESSABLE_ENTITY, "INVALID_INVENTORY")
            }
            ApiError::RateLimited(_) => (StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED"),
            ApiError::DeviceTimeout(_) => (StatusCode::GATEWAY_TIMEOUT, "DEVICE_TIMEOUT"),
            ApiError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL_ERROR"),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, code) = self.status_and_code();
        let message = match &self {
            ApiError::Internal(detail) => {
                tracing::error!(%detail, "internal error");
                "internal error; see the service log".to_string()
            }
            other => other.to_string(),
        };
        let body = json!({ "success": false, "error": { "code": code, "message": message } });
        let mut response = (status, Json(body)).into_response();
        response.extensions_mut().insert(ErrorCode(code));
        response
    }
}

/// The `error.code` of an error response, for the audit log.
#[derive(Debug, Clone, Copy)]
pub struct ErrorCode(pub &'static str);

/// A JSON request body; anything else (malformed JSON, a wrong shape, a missing
/// `Content-Type`) is refused with `INVALID_BODY` in the envelope.
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        use axum::extract::rejection::JsonRejection;
        match Json::<T>::from_request(request, state).await {
            Ok(Json(value)) => Ok(JsonBody(value)),
            Err(JsonRejection::BytesRejection(e)) => Err(ApiError::PayloadTooLarge(format!(
                "the body cannot be read (at most {MAX_BODY_BYTES} bytes): {e}"
            ))),
            Err(rejection) => Err(ApiError::InvalidBody(format!(
                "the body is not the JSON this endpoint takes: {}",
                rejection.body_text()
            ))),
        }
    }
}

impl From<ponkeeper_actors::olt::ActionError> for ApiError {
    fn from(error: ponkeeper_actors::olt::ActionError) -> Self {
        use ponkeeper_actors::olt::ActionError;
        match error {
            ActionError::Disabled(_) | ActionError::Busy(_) => {
                ApiError::Conflict(error.to_string())
            }
            ActionError::NoReply(_) | ActionError::Timeout(_) => {
                ApiError::DeviceTimeout(error.to_string())
            }
            ActionError::Gone(_) => ApiError::Internal(error.to_string()),
            ActionError::OnuNotFound(_) => ApiError::NotFound(error.to_string()),
            ActionError::Unavailable(_) | ActionError::ShuttingDown(_) => {
                ApiError::DeviceUnavailable(error.to_string())
            }
            ActionError::Device(_) => ApiError::DeviceError(error.to_string()),
        }
    }
}

/// The fleet view answers from memory: no answer in time is a timeout (504, as an OLT
/// actor's), a view that is gone the service's failure (500).
impl From<ponkeeper_actors::fleet_view::FleetViewError> for ApiError {
    fn from(error: ponkeeper_actors::fleet_view::FleetViewError) -> Self {
        use ponkeeper_actors::fleet_view::FleetViewError;
        match error {
            FleetViewError::NoReply(_) => ApiError::DeviceTimeout(error.to_string()),
            FleetViewError::Gone => ApiError::Internal(error.to_string()),
        }
    }
}

/// A store that cannot be read or written is the service's failure, not the client's:
/// 500 `INTERNAL_ERROR`, the details in the log.
impl From<ponkeeper_actors::store::StoreError> for ApiError {
    fn from(error: ponkeeper_actors::store::StoreError) -> Self {
        ApiError::Internal(error.to_string())
    }
}

/// A blocking task that panicked or was cancelled: 500, the details in the log.
impl From<tokio::task::JoinError> for ApiError {
    fn from(error: tokio::task::JoinError) -> Self {
        ApiError::Internal(error.to_string())
    }
}

/// `meta` of a paged list.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    /// The page returned, zero-based.
    pub page: u32,
    /// The page size asked for.
    pub size: u32,
    /// Matches over all pages.
    pub total_count: usize,
}

/// The success envelope of one object.
#[derive(Debug, Serialize, ToSchema)]
pub struct Single<T> {
    /// Always `true`.
    pub success: bool,
    pub data: T,
}

/// The success envelope of one page of a list.
#[derive(Debug, Serialize, ToSchema)]
pub struct Paged<T> {
    /// Always `true`.
    pub success: bool,
    pub data: Vec<T>,
    pub meta: Meta,
}

pub type ApiResult = Result<Response, ApiError>;

/// A single object in the envelope.
pub fn one<T: Serialize>(data: T) -> ApiResult {
    Ok(Json(Single {
        success: true,
        data,
    })
    .into_response())
}

/// One page whose items were cut already, with the total count of matches.
pub fn page_of<T: Serialize>(data: Vec<T>, total_count: usize, paging: Paging) -> ApiResult {
    Ok(Json(Paged {
        success: true,
        data,
        meta: Meta {
            page: paging.page,
            size: paging.size,
            total_count,
        },
    })
    .into_response())
}

/// One page of `items` (already filtered and ordered) in the envelope.
pub fn page<T: Serialize>(items: Vec<T>, paging: Paging) -> ApiResult {
    let total_count = items.len();
    let data: Vec<T> = items
        .into_iter()
        .skip(paging.offset())
        .take(paging.size as usize)
        .collect();
    page_of(data, total_count, paging)
}

/// `page` and `size` of a list request.
#[derive(Debug, Clone, Copy)]
pub struct Paging {
    pub page: u32,
    pub size: u32,
}

impl Paging {
    /// Items before this page.
    pub fn offset(&self) -> usize {
        self.page as usize * self.size as usize
    }

    /// The page as the fleet view takes it.
    pub fn window(&self) -> ponkeeper_actors::fleet_view::Window {
        ponkeeper_actors::fleet_view::Window {
            offset: self.offset(),
            limit: self.size as usize,
        }
    }
}

/// Query parameters of a request, parsed with errors that name the parameter.
pub struct Params(HashMap<String, String>);

impl Params {
    pub fn parse(raw: Option<&str>) -> Result<Params, ApiError> {
        let pairs: Vec<(String, String)> =
            serde_urlencoded::from_str(raw.unwrap_or("")).map_err(|e| {
                ApiError::InvalidParameter(format!("the query string is malformed: {e}"))
            })?;
        let mut map = HashMap::new();
        for (name, value) in pairs {
            if map.contains_key(&name) {
                return Err(ApiError::InvalidParameter(format!(
                    "parameter `{name}` is given more than once"
                )));
            }
            // `size=` is a mistake, not a default: a parameter is given a value or left out.
            if value.is_empty() {
                return Err(ApiError::InvalidParameter(format!(
                    "parameter `{}` is empty; give it a value or leave it out",
                    echo(&name)
                )));
            }
            map.insert(name, value);
        }
        Ok(Params(map))
    }

    /// A text filter, trimmed; only spaces count as absent.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(|v| v.trim()).filter(|v| !v.is_empty())
    }

    /// An integer parameter within `min..=max`.
    pub fn integer(&self, name: &str, min: i64, max: i64) -> Result<Option<i64>, ApiError> {
        let Some(text) = self.text(name) else {
            return Ok(None);
        };
        let value: i64 = text.parse().map_err(|_| {
            ApiError::InvalidParameter(format!(
                "parameter `{name}` must be an integer, got `{}`",
                echo(text)
            ))
        })?;
        if value < min || value > max {
            return Err(ApiError::InvalidParameter(format!(
                "parameter `{name}` must be between {min} and {max}, got {value}"
            )));
        }
        Ok(Some(value))
    }

    /// A value of a closed set, e.g. a status.
    pub fn enumeration<T: std::str::FromStr<Err = String>>(
        &self,
        name: &str,
    ) -> Result<Option<T>, ApiError> {
        self.text(name)
            .map(|text| {
                text.parse::<T>().map_err(|allowed| {
                    ApiError::InvalidParameter(format!(
                        "parameter `{name}`: `{}` is not valid; {allowed}",
                        echo(text)
                    ))
                })
            })
            .transpose()
    }

    /// A local date-time parameter in the configured zone.
    pub fn local_time(
        &self,
        name: &str,
        clock: &crate::clock::Clock,
    ) -> Result<Option<chrono::DateTime<chrono::Utc>>, ApiError> {
        self.text(name)
            .map(|text| {
                clock.parse(text).ok_or_else(|| {
                    ApiError::InvalidParameter(format!(
                        "parameter `{name}` must be a local date-time like 2026-11-21T19:15:03, got `{}`",
                        echo(text)
                    ))
                })
            })
            .transpose()
    }

    pub fn paging(&self, config: &crate::config::Paging) -> Result<Paging, ApiError> {
        let page = self.integer("page", 0, i64::from(u32::MAX))?.unwrap_or(0) as u32;
        let size = self
            .integer("size", 1, i64::from(config.max_size))?
            .map(|s| s as u32)
            .unwrap_or(config.default_size);
        Ok(Paging { page, size })
    }
}

/// A client's text as an error message quotes it: at most 64 characters.
pub fn echo(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(64) {
        Some((end, _)) => format!("{}…", &text[..end]).into(),
        None => text.into(),
    }
}

async fn no_route(uri: axum::http::Uri) -> ApiError {
    ApiError::NotFound(format!("no resource at {}", uri.path()))
}

async fn wrong_method(method: axum::http::Method, uri: axum::http::Uri) -> ApiError {
    ApiError::MethodNotAllowed(format!("{method} is not allowed on {}", uri.path()))
}

/// The API's routes together with their OpenAPI description: each resource module
/// registers its handlers with `utoipa_axum::routes!`, which adds a route and its
/// `#[utoipa::path]` at once, so the two cannot drift apart.
fn documented_api() -> (Router<AppState>, OpenApi) {
    let resources = OpenApiRouter::new()
        .merge(olts::router())
        .merge(nodes::router())
        .merge(inventory::router())
        .merge(onus::router())
        .merge(optics::router())
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
        .merge(whoami::router())
        .merge(host_keys::router());
    let (api, mut openapi) = OpenApiRouter::with_openapi(doc::ApiDoc::openapi())
        .nest(BASE, resources)
        .split_for_parts();
    // The operations endpoints are documented here but mounted before the key check.
    openapi.merge(crate::health::router().split_for_parts().1);
    (api, openapi)
}

/// The OpenAPI document of the API as a service with `paging` serves it.
pub fn openapi(paging: &crate::config::Paging) -> OpenApi {
    let (_, mut openapi) = documented_api();
    doc::apply_paging(&mut openapi, paging);
    doc::apply_query_rules(&mut openapi);
    openapi
}

/// The whole HTTP surface: the REST API and MCP at `/mcp` behind key authentication, the
/// documentation (no key) in front of them, the audit log around everything, envelope
/// fallbacks for the rest. The MCP tools call [`rest_router`] in process; both count
/// failed authentications for the audit log together.
pub fn router(state: AppState) -> Router {
    let refusals = Arc::new(RefusalCounts::default());
    let rest = surface(state.clone(), None, refusals.clone());
    let mcp = crate::mcp::http_service(rest);
    let origins = state.config.cors_origins.clone();
    crate::cors::allow(surface(state, Some(mcp), refusals), &origins)
}

/// The same surface without `/mcp`: what MCP tools call.
pub fn rest_router(state: AppState) -> Router {
    surface(state, None, Arc::default())
}

/// The layers, outermost first: the audit log; library answers put in the envelope
/// ([`library_errors`]); the documentation, or else the access check ([`crate::auth`]),
/// then the body read ([`crate::body`]), then the route.
fn surface(
    state: AppState,
    mcp: Option<crate::mcp::HttpService>,
    refusals: Arc<RefusalCounts>,
) -> Router {
    let (mut api, mut openapi) = documented_api();
    doc::apply_paging(&mut openapi, &state.config.paging);
    doc::apply_query_rules(&mut openapi);
    if let Some(mcp) = mcp {
        api = api.nest_service(crate::mcp::PATH, crate::mcp::single_messages(mcp));
    }
    // Without a key: the operations endpoints, and /metrics when `metrics.public`.
    let mut open = crate::health::router().split_for_parts().0;
    if state.config.metrics.public {
        open = open.route("/metrics", axum::routing::get(crate::metrics::endpoint));
    } else {
        api = api.route("/metrics", axum::routing::get(crate::metrics::endpoint));
    }
    let open = open
        .method_not_allowed_fallback(wrong_method)
        .with_state(state.clone());
    let api = api
        .fallback(no_route)
        .method_not_allowed_fallback(wrong_method)
        .layer(middleware::from_fn(crate::body::read))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            crate::auth::authenticate,
        ))
        .with_state(state.clone());
    doc::docs_router(state.config.swagger().then_some(openapi))
        .merge(open)
        .merge(crate::ui::router())
        // Anything that is not documentation, an open endpoint or the operator page goes
        // through the key check.
        .fallback_service(api)
        .layer(middleware::from_fn(library_errors::enveloped))
        // Outermost: sees every answer, the key checks' refusals included.
        .layer(middleware::from_fn_with_state(
            (state, refusals),
            crate::audit::record,
        ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ponkeeper_actors::olt::ActionError;

    #[test]
    fn device_refusals_are_502_with_the_devices_words() {
        let error = ApiError::from(ActionError::Device("% Unknown command.".into()));
        assert_eq!(
            error.status_and_code(),
            (StatusCode::BAD_GATEWAY, "DEVICE_ERROR")
        );
        assert_eq!(error.to_string(), "% Unknown command.");
    }

    #[tokio::test]
    async fn store_failures_are_500_without_their_details() {
        let error = ApiError::from(ponkeeper_actors::store::StoreError::Corrupt {
            tree: "onu_owner",
            key: "42".into(),
            reason: "truncated".into(),
        });
        let response = error.into_response();
        assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let body = axum::body::to_bytes(response.into_body(), 4096)
            .await
            .expect("body");
        let body: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
        assert_eq!(
            body,
            json!({
                "success": false,
                "error": { "code": "INTERNAL_ERROR", "message": "internal error; see the service log" }
            })
        );
    }

    fn is_invalid_parameter(error: &ApiError) -> bool {
        matches!(error, ApiError::InvalidParameter(m) if !m.is_empty() && m.len() < 512)
    }

    #[test]
    fn an_empty_value_is_refused_naming_its_parameter() {
        for raw in ["size=", "status=&page=1", "page=1&to=", "q"] {
            match Params::parse(Some(raw)) {
                Err(ApiError::InvalidParameter(message)) => {
                    let name = raw
                        .split('&')
                        .find(|pair| pair.split('=').nth(1).unwrap_or("").is_empty())
                        .and_then(|pair| pair.split('=').next())
                        .expect("the empty one");
                    assert!(message.contains(&format!("`{name}`")), "{raw}: {message}");
                }
                other => panic!("{raw}: {:?}", other.map(|p| p.0)),
            }
        }
        let params = Params::parse(Some("q=%20abc%20&size=5")).expect("parsed");
        assert_eq!(params.text("q"), Some("abc"));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1024))]

        /// Any query string parses or is refused as INVALID_PARAMETER with a short
        /// message; every typed read of it does the same, and numbers stay in range.
        #[test]
        fn any_query_string_is_parsed_or_refused(
            raw in proptest::prop_oneof![
                "\\PC{0,200}",
                "((page|size|status|q|from|to|vlan)=[-+0-9a-zA-Z%:.T]{0,24}&?){0,8}",
            ],
        ) {
            let clock = crate::clock::Clock::from_config("Europe/Moscow").expect("zone");
            let paging_config = crate::config::Paging { default_size: 20, max_size: 500 };
            match Params::parse(Some(&raw)) {
                Err(error) => proptest::prop_assert!(is_invalid_parameter(&error), "{error:?}"),
                Ok(params) => {
                    match params.paging(&paging_config) {
                        Ok(paging) => proptest::prop_assert!((1..=500).contains(&paging.size)),
                        Err(error) => proptest::prop_assert!(is_invalid_parameter(&error)),
                    }
                    match params.integer("vlan", 1, 4094) {
                        Ok(Some(vlan)) => proptest::prop_assert!((1..=4094).contains(&vlan)),
                        Ok(None) => {}
                        Err(error) => proptest::prop_assert!(is_invalid_parameter(&error)),
                    }
                    for name in ["from", "to"] {
                        if let Err(error) = params.local_time(name, &clock) {
                            proptest::prop_assert!(is_invalid_parameter(&error));
                        }
                    }
                    let status = params.enumeration::<ponkeeper_actors::domain::SessionStatus>("status");
                    if let Err(error) = status {
                        proptest::prop_assert!(is_invalid_parameter(&error));
                    }
                }
            }
        }

        #[test]
        fn echoed_text_is_short_and_whole(text in "\\PC{0,300}") {
            let echoed = echo(&text);
            proptest::prop_assert!(echoed.chars().count() <= 65);
            proptest::prop_assert!(text.starts_with(echoed.trim_end_matches('…')));
        }
    }
}
