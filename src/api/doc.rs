//! The OpenAPI 3.1 document of the REST API (docs/api.md, "OpenAPI") and the routes that
//! publish it. Each handler carries its own `#[utoipa::path]`; this module holds what
//! they share: the error envelope, the sets of error responses, the paging parameters,
//! and the `X-API-Key` scheme. [`crate::router`] collects the handlers with
//! `utoipa_axum`, so a route is registered only together with its description.
//!
//! With the `swagger` profile, [`docs_router`] serves Swagger UI (assets compiled in, no
//! CDN) at `/swagger-ui` and the JSON at `/v3/api-docs` and `/api-docs/openapi.json`, all
//! without a key; without it the same paths answer 404 in the envelope.

use crate::http::{no_route, wrong_method};
use axum::routing::{any, get};
use axum::{Json, Router};
use serde::Serialize;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityScheme};
use utoipa::openapi::{OpenApi, RefOr, Schema};
use utoipa::{IntoResponses, Modify, ToSchema};

/// Where the UI and the two copies of the document are served.
pub const SWAGGER_UI: &str = "/swagger-ui";
pub const API_DOCS: &str = "/v3/api-docs";
pub const API_DOCS_JSON: &str = "/api-docs/openapi.json";

/// The name of the security scheme in `components.securitySchemes` (and `security`).
const KEY_SCHEME: &str = "apiKey";

/// The root of the document; the paths come from the handlers via `utoipa_axum`.
#[derive(utoipa::OpenApi)]
#[openapi(
    info(
        title = "ponkeeper",
        description = "Manages and monitors an ISP's optical access network: OLTs, ONUs, \
            communication nodes and socially significant objects (СЗО). Every request carries \
            `X-API-Key`; every response, errors included, is the JSON envelope \
            `{success, data, meta}` or `{success: false, error: {code, message}}`. \
            Timestamps are local date-times without offset, e.g. `2026-11-21T19:15:03`.",
        license(name = "Apache-2.0", identifier = "Apache-2.0")
    ),
    security(("apiKey" = [])),
    modifiers(&KeyScheme),
    tags(
        (name = "olts", description = "OLTs, their sessions and polls"),
        (name = "nodes", description = "communication nodes"),
        (name = "cluster", description = "the members of a cluster of ponkeeper processes"),
        (name = "onus", description = "ONUs and the actions on them"),
        (name = "optics", description = "optical levels"),
        (name = "traffic", description = "per-ONU traffic counters and rates"),
        (name = "vlans", description = "VLANs of the OLTs"),
        (name = "provisioning", description = "unconfigured ONUs, authorisation and removal"),
        (name = "configs", description = "running-config backups of the OLTs"),
        (name = "szo", description = "socially significant objects and their availability"),
        (name = "inventory", description = "the inventory file"),
        (name = "audit", description = "the audit log"),
        (name = "events", description = "what changed in the fleet: the log, the stream, webhooks"),
    )
)]
pub struct ApiDoc;

/// Adds the `X-API-Key` header scheme the whole API requires.
struct KeyScheme;

impl Modify for KeyScheme {
    fn modify(&self, openapi: &mut OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            KEY_SCHEME,
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-API-Key",
                "An API key created with `ponkeeper keys create` (READ_ONLY or FULL).",
            ))),
        );
    }
}

/// Sets the bounds of every page's `size` parameter (one beside a `page` parameter) from
/// the running configuration, which the handlers enforce: `1..=paging.max_size`, default
/// `paging.default_size`; and every `page` parameter's default, 0. A `size` without a
/// `page` (`GET /traffic/top`'s) is no page size and keeps its own bounds.
pub fn apply_paging(openapi: &mut OpenApi, paging: &crate::config::Paging) {
    for item in openapi.paths.paths.values_mut() {
        let operations = [
            &mut item.get,
            &mut item.post,
            &mut item.put,
            &mut item.delete,
            &mut item.patch,
        ];
        for operation in operations.into_iter().flatten() {
            let paged = operation
                .parameters
                .iter()
                .flatten()
                .any(|p| matches!(p, RefOr::T(p) if p.name == "page"));
            for parameter in operation.parameters.iter_mut().flatten() {
                let RefOr::T(parameter) = parameter else {
                    continue;
                };
                let Some(RefOr::T(Schema::Object(schema))) = parameter.schema.as_mut() else {
                    continue;
                };
                match parameter.name.as_str() {
                    "page" => schema.default = Some(0.into()),
                    "size" if paged => {
                        schema.maximum = Some(paging.max_size.into());
                        schema.default = Some(paging.default_size.into());
                    }
                    _ => {}
                }
            }
        }
    }
}

/// States in the document what [`crate::http::Query`] enforces of every query parameter:
/// a free-text value that is given holds something besides spaces and no control
/// character (`minLength: 1` and [`crate::http::TEXT_PATTERN`]; the others are integers,
/// enumerations or patterns, none of which admits such a value).
pub fn apply_query_rules(openapi: &mut OpenApi) {
    use utoipa::openapi::path::ParameterIn;
    use utoipa::openapi::schema::{SchemaType, Type};
    for item in openapi.paths.paths.values_mut() {
        let operations = [
            &mut item.get,
            &mut item.post,
            &mut item.put,
            &mut item.delete,
            &mut item.patch,
        ];
        for operation in operations.into_iter().flatten() {
            for parameter in operation.parameters.iter_mut().flatten() {
                let RefOr::T(parameter) = parameter else {
                    continue;
                };
                if parameter.parameter_in != ParameterIn::Query {
                    continue;
                }
                if let Some(RefOr::T(Schema::Object(schema))) = parameter.schema.as_mut() {
                    let text = schema.schema_type == SchemaType::Type(Type::String);
                    if text && schema.enum_values.is_none() && schema.pattern.is_none() {
                        schema.min_length = Some(1);
                        schema.pattern = Some(crate::http::TEXT_PATTERN.to_string());
                    }
                }
            }
        }
    }
}

/// Every `error.code` the API answers with.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCodeName {
    InvalidParameter,
    InvalidBody,
    Unauthorized,
    IpNotAllowed,
    Forbidden,
    NotFound,
    MethodNotAllowed,
    NotAcceptable,
    Conflict,
    InvalidInventory,
    PayloadTooLarge,
    UnsupportedMediaType,
    RateLimited,
    DeviceError,
    DeviceUnavailable,
    DeviceTimeout,
    /// The OLT's family has no known command for the request (501).
    NotSupported,
    /// A cluster member that sees no strict majority of the members refuses an action (503).
    NoQuorum,
    InternalError,
    /// `GET /readyz` only: the service is not ready for traffic.
    NotReady,
}

/// The error of an error envelope.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    pub code: ErrorCodeName,
    /// What went wrong, for a person; names the parameter when one is at fault.
    pub message: String,
}

/// The envelope of every error response.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorEnvelope {
    /// Always `false`.
    pub success: bool,
    pub error: ErrorBody,
}

/// Refusals any endpoint can answer, before or beside its own work.
#[derive(IntoResponses)]
pub enum Refusals {
    /// `UNAUTHORIZED`: the key is missing, unknown or revoked.
    #[response(status = 401)]
    Unauthorized(ErrorEnvelope),
    /// `IP_NOT_ALLOWED`: the key has an IP whitelist without the client; `FORBIDDEN`: the
    /// key's level does not allow the request (READ_ONLY on an action).
    #[response(status = 403)]
    Forbidden(ErrorEnvelope),
    /// `RATE_LIMITED`: the key's rate is exceeded.
    #[response(status = 429, headers(("Retry-After" = u64, description = "seconds to wait")))]
    RateLimited(ErrorEnvelope),
    /// `INTERNAL_ERROR`: anything unexpected; details are in the service log only.
    #[response(status = 500)]
    Internal(ErrorEnvelope),
}

/// `INVALID_PARAMETER`: a path or query value is malformed or out of range; the message
/// names it.
#[derive(IntoResponses)]
#[response(status = 400)]
pub struct BadParameter(pub ErrorEnvelope);

/// `INVALID_PARAMETER` (a path value or body field out of range, named in the message)
/// or `INVALID_BODY` (the body is not the JSON this endpoint takes).
#[derive(IntoResponses)]
#[response(status = 400)]
pub struct BadInput(pub ErrorEnvelope);

/// `PAYLOAD_TOO_LARGE`: the request body is over 64 KiB — declared so in
/// `Content-Length` (answered before anything is read) or found so when read (every body
/// of a request that passed the key checks is read, even one the endpoint ignores, for the
/// audit log).
#[derive(IntoResponses)]
#[response(status = 413)]
pub struct TooLarge(pub ErrorEnvelope);

/// `UNSUPPORTED_MEDIA_TYPE`: the body is not of the type the route reads (a CSV import
/// sent as JSON, or with no type).
#[derive(IntoResponses)]
#[response(status = 415)]
pub struct WrongBodyType(pub ErrorEnvelope);

/// `NOT_FOUND`: no such resource.
#[derive(IntoResponses)]
#[response(status = 404)]
pub struct Missing(pub ErrorEnvelope);

/// `DEVICE_TIMEOUT`: an OLT's actor (or the device behind it) did not answer in time.
#[derive(IntoResponses)]
#[response(status = 504)]
pub struct ActorTimeout(pub ErrorEnvelope);

/// `NOT_SUPPORTED`: the OLT's family has no known command for the request; the message
/// names the family.
#[derive(IntoResponses)]
#[response(status = 501)]
pub struct NotSupported(pub ErrorEnvelope);

/// What an action on a device can meet besides a timeout.
#[derive(IntoResponses)]
pub enum DeviceFailures {
    /// `CONFLICT`: the OLT is DISABLED, or the same action is already running.
    #[response(status = 409)]
    Conflict(ErrorEnvelope),
    /// `DEVICE_ERROR`: the OLT rejected the command; its message is included.
    #[response(status = 502)]
    DeviceError(ErrorEnvelope),
    /// `DEVICE_UNAVAILABLE`: the OLT is OFFLINE or unreachable; `NO_QUORUM`: this cluster
    /// member sees no strict majority of the members, so it runs no action.
    #[response(status = 503)]
    Unavailable(ErrorEnvelope),
}

/// The routes of the documentation: served with the `swagger` profile, 404 in the
/// envelope without it. They take no key, so they are mounted outside the key check.
pub fn docs_router(openapi: Option<OpenApi>) -> Router {
    let router = match openapi {
        Some(openapi) => {
            let json = openapi.clone();
            Router::new()
                .merge(utoipa_swagger_ui::SwaggerUi::new(SWAGGER_UI).url(API_DOCS, openapi))
                .route(
                    API_DOCS_JSON,
                    get(move || {
                        let json = json.clone();
                        async move { Json(json) }
                    }),
                )
        }
        None => Router::new()
            .route(SWAGGER_UI, any(no_route))
            .route(&format!("{SWAGGER_UI}/"), any(no_route))
            .route(&format!("{SWAGGER_UI}/{{*rest}}"), any(no_route))
            .route(API_DOCS, any(no_route))
            .route(API_DOCS_JSON, any(no_route)),
    };
    router.method_not_allowed_fallback(wrong_method)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ApiError;
    use utoipa::PartialSchema;

    #[test]
    fn every_error_code_is_documented() {
        let errors = [
            ApiError::InvalidParameter(String::new()),
            ApiError::InvalidBody(String::new()),
            ApiError::Unauthorized(String::new()),
            ApiError::IpNotAllowed(String::new()),
            ApiError::Forbidden(String::new()),
            ApiError::NotFound(String::new()),
            ApiError::MethodNotAllowed(String::new()),
            ApiError::NotAcceptable(String::new()),
            ApiError::Conflict(String::new()),
            ApiError::InvalidInventory(String::new()),
            ApiError::RateLimited(String::new()),
            ApiError::PayloadTooLarge(String::new()),
            ApiError::UnsupportedMediaType(String::new()),
            ApiError::DeviceError(String::new()),
            ApiError::DeviceUnavailable(String::new()),
            ApiError::DeviceTimeout(String::new()),
            ApiError::NotSupported(String::new()),
            ApiError::NoQuorum(String::new()),
            ApiError::Internal(String::new()),
        ];
        let schema = serde_json::to_value(ErrorCodeName::schema()).expect("schema serializes");
        let documented = schema["enum"].as_array().cloned().unwrap_or_default();
        // Every ApiError's code, and NOT_READY, which only `GET /readyz` writes
        // (src/health.rs).
        assert_eq!(documented.len(), errors.len() + 1);
        assert!(documented.contains(&"NOT_READY".into()));
        for error in errors {
            let (_, code) = error.status_and_code();
            assert!(
                documented.contains(&code.into()),
                "{code} is not documented"
            );
        }
    }
}
