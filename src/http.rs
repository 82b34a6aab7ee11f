//! The HTTP contract the REST API and the MCP tools share: where things are mounted
//! ([`BASE`], [`MCP_PATH`]), how big a body may be, the envelope every answer goes out in
//! ([`Single`], [`Paged`], [`one`], [`page`]), a list's paging, query parameters read with
//! errors that name the parameter (a parameter given with an empty value is refused, not
//! taken as absent) and a JSON body refused in the envelope when it does not parse. It
//! sits above [`crate::error`] and the configuration and below every router.

use crate::error::ApiError;
use axum::extract::{FromRequest, Request};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::HashMap;
use utoipa::ToSchema;

pub mod library_errors;

/// Where the REST API is mounted.
pub const BASE: &str = "/api/v1/external";
/// The largest request body taken (413 above it; docs/api.md).
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// Where the MCP server's Streamable HTTP transport is mounted.
pub const MCP_PATH: &str = "/mcp";

/// Whether `path` is served by the MCP transport.
pub fn is_mcp_path(path: &str) -> bool {
    path == MCP_PATH
        || path
            .strip_prefix(MCP_PATH)
            .is_some_and(|rest| rest.starts_with('/'))
}

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

    /// The scope a fleet-wide list takes from `oltId` and `nodeId` (unset: everything).
    pub fn scope(&self) -> Result<ponkeeper_actors::fleet_view::OnuSearch, ApiError> {
        Ok(ponkeeper_actors::fleet_view::OnuSearch {
            olt_id: self
                .integer("oltId", 0, i64::from(u32::MAX))?
                .map(|n| n as u32),
            node_id: self
                .integer("nodeId", 0, i64::from(u32::MAX))?
                .map(|n| n as u32),
            ..Default::default()
        })
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

/// The envelope's answer to a path nothing is mounted at.
pub async fn no_route(uri: axum::http::Uri) -> ApiError {
    ApiError::NotFound(format!("no resource at {}", uri.path()))
}

/// The envelope's answer to a method a path does not take.
pub async fn wrong_method(method: axum::http::Method, uri: axum::http::Uri) -> ApiError {
    ApiError::MethodNotAllowed(format!("{method} is not allowed on {}", uri.path()))
}

#[cfg(test)]
mod tests {
    use super::*;

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
