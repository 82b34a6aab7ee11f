//! The ids in the API's paths, parsed before a handler runs: [`OltPath`], [`OnuPath`],
//! [`NodePath`], [`SzoPath`], [`SplitterPath`], [`OutagePath`] and [`AlarmPath`] read the
//! `{id}` segment, [`ConfigPath`] the `{configId}`
//! one. A handler receives a typed id, never the text. A segment that is not a number in
//! the id's range is `INVALID_PARAMETER` naming the segment; one that is not UTF-8 after
//! percent-decoding is `INVALID_PARAMETER` too, in the envelope rather than axum's
//! plain-text 400. The resource modules under `src/api/` use them as extractors.

use crate::error::ApiError;
use crate::http::{cut, echo};
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use ponkeeper_actors::domain::{NodeId, OltId, OnuId};
use std::collections::HashMap;

/// `{id}` of `/olts/{id}…`: an OLT id.
pub struct OltPath(pub OltId);

/// `{id}` of `/onus/{id}…`: an ONU id.
pub struct OnuPath(pub OnuId);

/// `{id}` of `/nodes/{id}`: a communication node's id.
pub struct NodePath(pub NodeId);

/// `{id}` of `/szo/{id}…`: a socially significant object's id.
pub struct SzoPath(pub u32);

/// `{id}` of `/splitters/{id}`: a splitter's id.
pub struct SplitterPath(pub u32);

/// `{id}` of `/outages/{id}`: an outage's id.
pub struct OutagePath(pub u64);

/// `{id}` of `/alarms/{id}…`: an alarm's id.
pub struct AlarmPath(pub u64);

/// `{configId}` of `/olts/{id}/configs/{configId}…`: a config backup's id.
pub struct ConfigPath(pub u64);

/// Each path type reads its segment of the matched route as its id.
macro_rules! from_segment {
    ($($path:ident from $segment:literal),+ $(,)?) => {$(
        impl<S: Send + Sync> FromRequestParts<S> for $path {
            type Rejection = ApiError;

            async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
                segment(parts, $segment).await.map($path)
            }
        }
    )+};
}

from_segment!(
    OltPath from "id",
    OnuPath from "id",
    NodePath from "id",
    SzoPath from "id",
    SplitterPath from "id",
    OutagePath from "id",
    AlarmPath from "id",
    ConfigPath from "configId",
);

/// The segment `name` of the matched route, parsed as `T`.
async fn segment<T: std::str::FromStr>(parts: &mut Parts, name: &str) -> Result<T, ApiError> {
    let segments = match axum::extract::Path::<HashMap<String, String>>::from_request_parts(
        parts,
        &(),
    )
    .await
    {
        Ok(axum::extract::Path(segments)) => segments,
        Err(rejection) => {
            return Err(ApiError::InvalidParameter(format!(
                "the path is not valid: {}",
                cut(&rejection.body_text())
            )))
        }
    };
    // Only a route without the segment gets here: the service's mistake, not the client's.
    let text = segments
        .get(name)
        .ok_or_else(|| ApiError::Internal(format!("the route has no `{{{name}}}` segment")))?;
    parse(name, text)
}

/// Parses the text of the path segment `name`.
fn parse<T: std::str::FromStr>(name: &str, text: &str) -> Result<T, ApiError> {
    text.parse().map_err(|_| {
        ApiError::InvalidParameter(format!(
            "path parameter `{name}` must be a positive integer, got `{}`",
            echo(text)
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::routing::get;
    use axum::Router;
    use tower::ServiceExt;

    fn is_invalid_parameter(error: &ApiError) -> bool {
        matches!(error, ApiError::InvalidParameter(m) if !m.is_empty() && m.len() < 512)
    }

    /// What `GET uri` answers on routes that echo their typed ids: status and body.
    async fn answer(uri: &[u8]) -> (u16, serde_json::Value) {
        async fn olt(OltPath(id): OltPath) -> String {
            format!("olt {id}")
        }
        async fn onu(OnuPath(id): OnuPath) -> String {
            format!("onu {id}")
        }
        async fn config(OltPath(olt): OltPath, ConfigPath(config): ConfigPath) -> String {
            format!("olt {olt} config {config}")
        }
        async fn unnamed(OltPath(id): OltPath) -> String {
            format!("olt {id}")
        }
        let router = Router::new()
            .route("/olts/{id}", get(olt))
            .route("/onus/{id}", get(onu))
            .route("/olts/{id}/configs/{configId}", get(config))
            .route("/other/{olt}", get(unnamed));
        let request = axum::http::Request::builder()
            .uri(axum::http::Uri::try_from(uri).expect("uri"))
            .body(Body::empty())
            .expect("request");
        let response = router.oneshot(request).await.expect("answer");
        let status = response.status().as_u16();
        let body = axum::body::to_bytes(response.into_body(), 4096)
            .await
            .expect("body");
        let body = serde_json::from_slice(&body)
            .unwrap_or_else(|_| serde_json::Value::String(String::from_utf8_lossy(&body).into()));
        (status, body)
    }

    fn refusal(code: &str, message: &str) -> serde_json::Value {
        serde_json::json!({ "success": false, "error": { "code": code, "message": message } })
    }

    #[tokio::test]
    async fn ids_reach_the_handler_typed() {
        assert_eq!(answer(b"/olts/7").await, (200, "olt 7".into()));
        assert_eq!(
            answer(b"/onus/4294967296").await,
            (200, "onu 4294967296".into())
        );
        assert_eq!(
            answer(b"/olts/3/configs/12").await,
            (200, "olt 3 config 12".into())
        );
    }

    #[tokio::test]
    async fn a_bad_segment_is_refused_in_the_envelope_naming_it() {
        assert_eq!(
            answer(b"/olts/abc").await,
            (
                400,
                refusal(
                    "INVALID_PARAMETER",
                    "path parameter `id` must be a positive integer, got `abc`"
                )
            )
        );
        // An OLT id is a u32: one past its range is refused, not wrapped.
        assert_eq!(
            answer(b"/olts/4294967296").await,
            (
                400,
                refusal(
                    "INVALID_PARAMETER",
                    "path parameter `id` must be a positive integer, got `4294967296`"
                )
            )
        );
        assert_eq!(
            answer(b"/olts/3/configs/-1").await,
            (
                400,
                refusal(
                    "INVALID_PARAMETER",
                    "path parameter `configId` must be a positive integer, got `-1`"
                )
            )
        );
        // Both wrong: the OLT id, first in the path, is the one named.
        assert_eq!(
            answer(b"/olts/x/configs/y").await,
            (
                400,
                refusal(
                    "INVALID_PARAMETER",
                    "path parameter `id` must be a positive integer, got `x`"
                )
            )
        );
    }

    #[tokio::test]
    async fn a_segment_that_is_not_utf8_is_refused_in_the_envelope() {
        assert_eq!(
            answer(b"/olts/%FF%FE").await,
            (
                400,
                refusal(
                    "INVALID_PARAMETER",
                    "the path is not valid: Invalid URL: Invalid UTF-8 in `id`"
                )
            )
        );
    }

    #[tokio::test]
    async fn a_route_without_the_segment_is_the_services_fault() {
        assert_eq!(
            answer(b"/other/7").await,
            (
                500,
                refusal("INTERNAL_ERROR", "internal error; see the service log")
            )
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1024))]

        #[test]
        fn any_path_id_parses_or_is_refused(text in "\\PC{0,40}") {
            if let Err(error) = parse::<u32>("id", &text) {
                proptest::prop_assert!(is_invalid_parameter(&error));
            }
        }
    }
}
