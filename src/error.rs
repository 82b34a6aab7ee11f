//! The one error every request can end in ([`ApiError`]): each variant is an HTTP status
//! and an `error.code` of the envelope, for the REST API and the MCP tools alike (a tool
//! error carries the same code). The device side's errors (an OLT actor's
//! [`ActionError`](ponkeeper_actors::olt::ActionError), the fleet view's, the store's) map
//! here once. A leaf: it knows no handler, no state and no route.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

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
    /// An OLT's request budget has no room now (429 `RATE_LIMITED` with `Retry-After`).
    #[error("{message}")]
    DeviceBusy {
        message: String,
        retry_after_seconds: u64,
    },
    #[error("{0}")]
    PayloadTooLarge(String),
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// The device refused the command; the message carries the device's own words.
    #[error("{0}")]
    DeviceError(String),
    /// The OLT's family has no known command for what was asked (501 `NOT_SUPPORTED`,
    /// naming the family): ponkeeper does not guess a device's commands.
    #[error("{0}")]
    NotSupported(String),
    #[error("{0}")]
    DeviceUnavailable(String),
    #[error("{0}")]
    DeviceTimeout(String),
    /// A cluster member that sees no strict majority of the members refuses actions
    /// (503 `NO_QUORUM`, naming the members it cannot reach).
    #[error("{0}")]
    NoQuorum(String),
    /// Logged in full; the client sees a generic message.
    #[error("{0}")]
    Internal(String),
}

impl ApiError {
    pub(crate) fn status_and_code(&self) -> (StatusCode, &'static str) {
        match self {
            ApiError::InvalidParameter(_) => (StatusCode::BAD_REQUEST, "INVALID_PARAMETER"),
            ApiError::InvalidBody(_) => (StatusCode::BAD_REQUEST, "INVALID_BODY"),
            ApiError::PayloadTooLarge(_) => (StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE"),
            ApiError::DeviceError(_) => (StatusCode::BAD_GATEWAY, "DEVICE_ERROR"),
            ApiError::NotSupported(_) => (StatusCode::NOT_IMPLEMENTED, "NOT_SUPPORTED"),
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
            ApiError::RateLimited(_) | ApiError::DeviceBusy { .. } => {
                (StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED")
            }
            ApiError::DeviceTimeout(_) => (StatusCode::GATEWAY_TIMEOUT, "DEVICE_TIMEOUT"),
            ApiError::NoQuorum(_) => (StatusCode::SERVICE_UNAVAILABLE, "NO_QUORUM"),
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
        if let ApiError::DeviceBusy {
            retry_after_seconds,
            ..
        } = &self
        {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from(*retry_after_seconds),
            );
        }
        response.extensions_mut().insert(ErrorCode(code));
        response
    }
}

/// The `error.code` of an error response, for the audit log.
#[derive(Debug, Clone, Copy)]
pub struct ErrorCode(pub &'static str);

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
            ActionError::NotSupported(_) => ApiError::NotSupported(error.to_string()),
            ActionError::RateLimited {
                retry_after,
                reason,
            } => ApiError::DeviceBusy {
                message: reason,
                retry_after_seconds: retry_after.as_secs_f64().ceil().max(1.0) as u64,
            },
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
}
