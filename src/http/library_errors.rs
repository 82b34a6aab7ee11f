//! Refusals the service's libraries write on their own, put in the envelope: Swagger UI
//! answers an unknown asset with an empty 404, and the MCP transport (rmcp) answers a
//! wrong method, `Accept` or `Content-Type` with plain text (405, 406, 415). Any error
//! answer that is not JSON is rebuilt here as the error envelope with the same status and
//! headers (`Allow` above all), so every answer the service controls is the envelope.
//!
//! What hyper answers before a request reaches the router — 400 for a malformed request
//! line, 414 for a URI over its limit, 431 for a header block over its limits — never
//! passes through here; the README lists those. The router ([`super::router`]) mounts
//! this layer just inside the audit log, which so records the envelope's code.

use crate::error::ApiError;
use crate::http::{cut, echo};
use axum::extract::Request;
use axum::http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The most of a library's plain-text answer read for the envelope's message.
const TEXT_MAX_BYTES: usize = 4096;

/// Middleware: error answers that are not JSON become the error envelope.
pub async fn enveloped(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    // The path is read only for an answer that needs an envelope (the URI shares the
    // request's bytes; copying the path for every answer showed in `serve`'s profile).
    let uri = request.uri().clone();
    let response = next.run(request).await;
    let status = response.status();
    let json = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if json || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let path = uri.path();
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, TEXT_MAX_BYTES)
        .await
        .map(|bytes| String::from_utf8_lossy(&bytes).trim().to_string())
        .unwrap_or_default();
    let said = |otherwise: String| {
        if text.is_empty() {
            otherwise
        } else {
            cut(&text).into_owned()
        }
    };
    let error = match status {
        StatusCode::NOT_FOUND => ApiError::NotFound(format!("no resource at {}", echo(path))),
        StatusCode::METHOD_NOT_ALLOWED => ApiError::MethodNotAllowed(format!(
            "{} is not allowed on {}",
            echo(method.as_str()),
            echo(path)
        )),
        StatusCode::NOT_ACCEPTABLE => {
            ApiError::NotAcceptable(said(format!("{path} cannot answer in a type you accept")))
        }
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ApiError::UnsupportedMediaType(said(format!(
            "{path} does not take a body of this type"
        ))),
        StatusCode::PAYLOAD_TOO_LARGE => {
            ApiError::PayloadTooLarge(said("the body is too large".into()))
        }
        status if status.is_server_error() => ApiError::Internal(format!("{status}: {text}")),
        _ => ApiError::InvalidBody(said(format!("{path} refused the request ({status})"))),
    };
    let mut enveloped = error.into_response();
    for (name, value) in &parts.headers {
        if name != CONTENT_TYPE && name != CONTENT_LENGTH {
            enveloped.headers_mut().append(name, value.clone());
        }
    }
    enveloped
}
