//! Cross-origin access (docs/operations.md `cors_origins`): browsers on the configured origins may
//! call the API. [`allow`] wraps the whole HTTP surface; a request whose `Origin` is one
//! of them goes through tower-http's `CorsLayer`, which answers its preflight (`OPTIONS`
//! with `Access-Control-Request-Method`) itself, without a key, and adds the CORS headers
//! to the real request's answer. Every other request — no `Origin`, or one not listed —
//! reaches the surface untouched: no CORS headers, and its `OPTIONS` gets the usual 401.
//! Since the answers then differ by `Origin`, every one of them — listed origin, other
//! origin or none — says `Vary: Origin`, so that no shared cache hands one origin's
//! answer to another (docs/production.md, "Browsers on other origins"). With no origins
//! configured nothing is wrapped and nothing varies. [`crate::router`] applies it.

use axum::extract::Request;
use axum::http::{header, HeaderName, HeaderValue, Method};
use axum::Router;
use std::sync::Arc;
use std::time::Duration;
use tower::ServiceExt;
use tower_http::cors::{AllowOrigin, CorsLayer};

/// How long a browser may cache a preflight's answer.
const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(600);

/// An origin as `cors_origins` takes it: `scheme://host[:port]`, no path, no `*`.
pub fn parse_origin(origin: &str) -> anyhow::Result<HeaderValue> {
    let rest = origin
        .strip_prefix("https://")
        .or_else(|| origin.strip_prefix("http://"))
        .ok_or_else(|| anyhow::anyhow!("origin `{origin}` must start with https:// or http://"))?;
    if rest.is_empty() || rest.contains(['/', '*', '?', '#', ' ']) {
        anyhow::bail!("origin `{origin}` must be scheme://host[:port], without a path or wildcard");
    }
    HeaderValue::from_str(origin).map_err(|e| anyhow::anyhow!("origin `{origin}`: {e}"))
}

/// `surface` with CORS for `origins` (already validated by the config).
pub fn allow(surface: Router, origins: &[String]) -> Router {
    let allowed: Arc<Vec<HeaderValue>> = Arc::new(
        origins
            .iter()
            .filter_map(|o| parse_origin(o).ok())
            .collect(),
    );
    if allowed.is_empty() {
        return surface;
    }
    let layer = CorsLayer::new()
        .allow_origin(AllowOrigin::list(allowed.iter().cloned()))
        .allow_methods([
            Method::GET,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
        ])
        .allow_headers([HeaderName::from_static("x-api-key"), header::CONTENT_TYPE])
        .expose_headers([
            HeaderName::from_static("x-ratelimit-limit"),
            HeaderName::from_static("x-ratelimit-remaining"),
            header::RETRY_AFTER,
        ])
        .max_age(PREFLIGHT_MAX_AGE);
    let with_cors = surface.clone().layer(layer);
    Router::new().fallback_service(tower::service_fn(move |request: Request| {
        let listed = request
            .headers()
            .get(header::ORIGIN)
            .is_some_and(|origin| allowed.contains(origin));
        let target = if listed {
            with_cors.clone()
        } else {
            surface.clone()
        };
        let answer = target.oneshot(request);
        async move {
            let mut response = answer.await?;
            vary_by_origin(response.headers_mut());
            Ok::<_, std::convert::Infallible>(response)
        }
    }))
}

/// Adds `Vary: Origin` unless a `Vary` header already names it (or `*`).
fn vary_by_origin(headers: &mut header::HeaderMap) {
    let named = headers
        .get_all(header::VARY)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|name| {
            let name = name.trim();
            name == "*" || name.eq_ignore_ascii_case("origin")
        });
    if !named {
        headers.append(header::VARY, HeaderValue::from_static("origin"));
    }
}

#[cfg(test)]
mod tests {
    use super::{header, parse_origin, vary_by_origin, HeaderValue};

    #[test]
    fn vary_names_origin_once() {
        let mut headers = header::HeaderMap::new();
        vary_by_origin(&mut headers);
        assert_eq!(headers[header::VARY], "origin");
        vary_by_origin(&mut headers);
        assert_eq!(headers.get_all(header::VARY).iter().count(), 1);
        let mut listed = header::HeaderMap::new();
        let value = "origin, access-control-request-method";
        listed.insert(header::VARY, HeaderValue::from_static(value));
        vary_by_origin(&mut listed);
        assert_eq!(listed.get_all(header::VARY).iter().count(), 1);
        let mut other = header::HeaderMap::new();
        other.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
        vary_by_origin(&mut other);
        let all: Vec<_> = other.get_all(header::VARY).iter().collect();
        assert_eq!(all, ["accept-encoding", "origin"]);
    }

    #[test]
    fn origins_are_scheme_host_and_port_only() {
        for good in ["https://noc.example", "http://127.0.0.1:3000"] {
            assert_eq!(parse_origin(good).expect(good), good);
        }
        for bad in [
            "noc.example",
            "https://",
            "https://noc.example/",
            "https://*.example",
            "ftp://noc.example",
            "*",
        ] {
            assert!(parse_origin(bad).is_err(), "{bad} accepted");
        }
    }
}
