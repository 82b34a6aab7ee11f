//! The HTTP contract the REST API and the MCP tools share: where things are mounted
//! ([`BASE`], [`MCP_PATH`]), how big a body may be, the envelope every answer goes out in
//! ([`Single`], [`Paged`], [`WithMeta`], [`one`], [`page`]), a list's paging, query
//! parameters read with errors that name the parameter (a parameter given with an empty
//! value is refused, not taken as absent) and a JSON body refused in the envelope when it
//! does not parse. It sits above [`crate::error`] and the configuration and below every
//! router.

use crate::error::ApiError;
use axum::extract::{FromRequest, Request};
use axum::response::{IntoResponse, Response};
use axum::Json;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

pub mod library_errors;
mod query;
pub mod russian;

pub use query::{
    cut, echo, parse_query, Bounded, Flag, Id32, Id53, LocalDateTime, Query, TEXT_PATTERN,
};

/// Where the REST API is mounted.
pub const BASE: &str = "/api/v1/external";
/// The largest request body taken (413 above it; docs/api.md).
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// Where the MCP server's Streamable HTTP transport is mounted.
pub const MCP_PATH: &str = "/mcp";

/// The connection a request came on, as the access check tells the listener that a valid
/// key was presented on it ([`ConnectionProof::key_presented`]): a connection that never
/// presented one counts among the unauthenticated, which may hold only a share of the
/// connections ([`crate::config::Http`]).
#[derive(Clone)]
pub struct ConnectionProof(std::sync::Arc<dyn Fn() + Send + Sync>);

impl ConnectionProof {
    pub fn new(on_key: impl Fn() + Send + Sync + 'static) -> ConnectionProof {
        ConnectionProof(std::sync::Arc::new(on_key))
    }

    /// A request on this connection presented a valid key.
    pub fn key_presented(&self) {
        (self.0)()
    }
}

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

/// The success envelope of a list that is not paged but says something of its items in
/// `meta` (a history answer: their resolution and step).
#[derive(Debug, Serialize, ToSchema)]
pub struct WithMeta<T, M> {
    /// Always `true`.
    pub success: bool,
    pub data: Vec<T>,
    pub meta: M,
}

pub type ApiResult = Result<Response, ApiError>;

/// A single object in the envelope.
pub fn one<T: Serialize>(data: T) -> ApiResult {
    Ok(json(
        &Single {
            success: true,
            data,
        },
        BYTES_PER_ITEM,
    ))
}

/// What an item of a list takes in JSON, about: a buffer this size per item is written
/// into without growing (an OLT is ~250 bytes, an ONU row ~450).
const BYTES_PER_ITEM: usize = 512;

/// `body` as an `application/json` response, serialized into a buffer of `capacity`
/// bytes. axum's `Json` starts at 128 bytes and doubles, copying the page each time: a
/// fifth of the CPU of `GET /olts?size=100` was those copies.
fn json<T: Serialize>(body: &T, capacity: usize) -> Response {
    let mut buffer = Vec::with_capacity(capacity);
    match serde_json::to_writer(&mut buffer, body) {
        Ok(()) => json_response(buffer),
        Err(e) => {
            ApiError::Internal(format!("the answer could not be written: {e}")).into_response()
        }
    }
}

/// An answer already written as JSON, as an `application/json` response.
pub fn json_response(body: Vec<u8>) -> Response {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            axum::http::HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

/// `data` with its `meta` in the envelope.
pub fn with_meta<T: Serialize, M: Serialize>(data: Vec<T>, meta: M) -> ApiResult {
    let capacity = BYTES_PER_ITEM * (data.len() + 1);
    let body = WithMeta {
        success: true,
        data,
        meta,
    };
    Ok(json(&body, capacity))
}

/// One page whose items were cut already, with the total count of matches.
pub fn page_of<T: Serialize>(data: Vec<T>, total_count: usize, paging: Paging) -> ApiResult {
    let capacity = BYTES_PER_ITEM * (data.len() + 1);
    let body = Paged {
        success: true,
        data,
        meta: Meta {
            page: paging.page,
            size: paging.size,
            total_count,
        },
    };
    Ok(json(&body, capacity))
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

/// `page` and `size` of every list, read beside the list's own parameters.
#[derive(Debug, Default, Deserialize, Serialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// Zero-based page number; default 0.
    #[param(inline)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<Id32>,
    /// Items per page: the configuration's `paging.default_size` (20) unless given, at most
    /// its `paging.max_size` (500). `meta.totalCount` of the answer says how many match.
    #[param(inline)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<PageSize>,
}

/// `oltId` and `nodeId`: the part of the fleet a fleet-wide list looks at (unset: all).
#[derive(Debug, Default, Deserialize, Serialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ScopeQuery {
    /// Only this OLT (its id, from `GET /olts`).
    #[param(inline)]
    pub olt_id: Option<Id32>,
    /// Only OLTs of this communication node (its id, from `GET /nodes`).
    #[param(inline)]
    pub node_id: Option<Id32>,
}

impl ScopeQuery {
    /// The fleet view's search over this scope, with no other filter yet.
    pub fn search(&self) -> ponkeeper_actors::fleet_view::OnuSearch {
        ponkeeper_actors::fleet_view::OnuSearch {
            olt_id: self.olt_id.map(Id32::u32),
            node_id: self.node_id.map(Id32::u32),
            ..Default::default()
        }
    }
}

/// A page's size as a client asks it: any integer here, since its bounds are the running
/// configuration's (`1..=paging.max_size`), checked by [`PageQuery::paging`] and written
/// into the document by `apply_paging`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(transparent)]
pub struct PageSize(Bounded<{ i64::MIN }, { i64::MAX }>);

impl PageSize {
    pub fn get(self) -> i64 {
        self.0.get()
    }
}

impl utoipa::PartialSchema for PageSize {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        let mut schema = Bounded::<1, { i32::MAX as i64 }>::documented();
        schema.maximum = None;
        schema.into()
    }
}

impl ToSchema for PageSize {}

impl JsonSchema for PageSize {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "PageSize".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "integer", "minimum": 1 })
    }
}

impl PageQuery {
    /// The page asked for, within the configuration's limits.
    pub fn paging(&self, config: &crate::config::Paging) -> Result<Paging, ApiError> {
        let size = match self.size.map(PageSize::get) {
            None => config.default_size,
            Some(size) if (1..=i64::from(config.max_size)).contains(&size) => size as u32,
            Some(size) => {
                return Err(ApiError::InvalidParameter(format!(
                    "parameter `size`: must be between 1 and {}, got {size}",
                    config.max_size
                )))
            }
        };
        Ok(Paging {
            page: self.page.map_or(0, Id32::u32),
            size,
        })
    }
}

/// The envelope's answer to a path nothing is mounted at.
pub async fn no_route(uri: axum::http::Uri) -> ApiError {
    ApiError::NotFound(format!("no resource at {}", echo(uri.path())))
}

/// The envelope's answer to a method a path does not take.
pub async fn wrong_method(method: axum::http::Method, uri: axum::http::Uri) -> ApiError {
    ApiError::MethodNotAllowed(format!(
        "{} is not allowed on {}",
        echo(method.as_str()),
        echo(uri.path())
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_bounded_by_the_configuration_and_refusals_say_by_what() {
        let config = crate::config::Paging {
            default_size: 20,
            max_size: 500,
        };
        let paging = |raw: &str| parse_query::<PageQuery>(Some(raw))?.paging(&config);
        let asked = paging("page=3&size=500").expect("within bounds");
        assert_eq!((asked.page, asked.size), (3, 500));
        let default = paging("").expect("the defaults");
        assert_eq!((default.page, default.size), (0, 20));
        for (raw, got) in [("size=0", "0"), ("size=501", "501"), ("size=-7", "-7")] {
            match paging(raw) {
                Err(ApiError::InvalidParameter(message)) => assert_eq!(
                    message,
                    format!("parameter `size`: must be between 1 and 500, got {got}")
                ),
                other => panic!("{raw}: {other:?}"),
            }
        }
    }
}
