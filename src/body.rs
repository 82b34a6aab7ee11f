//! The request body, read once and only after the access check ([`crate::auth`]): a
//! request refused for its key, address, rate or level is answered without a byte of its
//! body read, so a keyless client cannot make the service wait for, or buffer, what it
//! sends. A `Content-Length` over [`MAX_BODY_BYTES`] ([`BULK_BODY_BYTES`] for the bulk
//! import of placements) is answered 413 at once; otherwise the body is read up to that
//! many bytes (413 above) within [`BODY_TIMEOUT`] (400 when a
//! client promises more than it sends), and the request runs on with the bytes read.
//!
//! The audit log ([`crate::audit`]) puts a [`BodyCapture`] in the request's extensions;
//! what this layer read is left there for the log's entry, as [`crate::audit::params_of`]
//! keeps it. The router ([`crate::router`]) mounts this layer inside the access check.

use crate::error::ApiError;
use crate::http::MAX_BODY_BYTES;
use axum::body::{Body, Bytes, HttpBody};
use axum::extract::Request;
use axum::http::header::CONTENT_LENGTH;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::{Arc, Mutex};

/// Time a client has to send its whole body.
pub const BODY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Where the body a request carried is left for its audit entry.
#[derive(Debug, Clone, Default)]
pub struct BodyCapture(Arc<Mutex<Option<Bytes>>>);

impl BodyCapture {
    fn keep(&self, bytes: Bytes) {
        match self.0.lock() {
            Ok(mut slot) => *slot = Some(bytes),
            Err(poisoned) => *poisoned.into_inner() = Some(bytes),
        }
    }

    /// The body read, if the request got as far as having it read.
    pub fn take(&self) -> Option<Bytes> {
        match self.0.lock() {
            Ok(mut slot) => slot.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        }
    }
}

/// Middleware: reads the body within the limits, then runs the rest of the stack on the
/// request rebuilt from it. A body that cannot be read is answered here, in the envelope.
pub async fn read(request: Request, next: Next) -> Response {
    let declared = request
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let limit = limit_of(request.uri().path());
    if declared.is_some_and(|length| length > limit as u64) {
        return too_large(limit).into_response();
    }
    let (parts, body) = request.into_parts();
    // A request that has no body (a GET without `Content-Length`, say) has nothing to
    // wait for: no timer, no copy.
    if body.is_end_stream() {
        return next.run(Request::from_parts(parts, body)).await;
    }
    let read = tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, limit));
    let bytes = match read.await {
        Err(_) => {
            return ApiError::InvalidBody(format!(
                "the body did not arrive in full within {BODY_TIMEOUT:?}"
            ))
            .into_response()
        }
        Ok(Err(error)) if is_over_limit(&error) => return too_large(limit).into_response(),
        Ok(Err(error)) => {
            return ApiError::InvalidBody(format!("the body cannot be read: {error}"))
                .into_response()
        }
        Ok(Ok(bytes)) => bytes,
    };
    if let Some(capture) = parts.extensions.get::<BodyCapture>() {
        capture.keep(bytes.clone());
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

fn too_large(limit: usize) -> ApiError {
    ApiError::PayloadTooLarge(format!("the body exceeds {limit} bytes"))
}

/// The largest body a path takes: [`MAX_BODY_BYTES`], but [`BULK_BODY_BYTES`] for a
/// bulk import (10,000 placements of serials and splitter names are ~400 KB). Only keyed
/// requests get here, each within its key's rate and the connection caps.
fn limit_of(path: &str) -> usize {
    if path.ends_with(BULK_PATH) {
        BULK_BODY_BYTES
    } else {
        MAX_BODY_BYTES
    }
}

/// A bulk import's path and the largest body it takes.
pub const BULK_PATH: &str = "/placements/import";
pub const BULK_BODY_BYTES: usize = 1024 * 1024;

/// Whether reading a body failed because it is longer than [`MAX_BODY_BYTES`].
fn is_over_limit(error: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(error) = source {
        if error.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        source = error.source();
    }
    false
}
