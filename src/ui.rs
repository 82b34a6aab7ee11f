//! The operator page (README.md, "The operator page"): `/ui/` and its assets, compiled into the binary so the
//! page works offline, with no CDN and no build step. `GET /` redirects to it. The page
//! needs no key to load; it asks for one and reads everything through the REST API (its
//! calls say `X-Ponkeeper-Channel: UI`, so the audit log tells them apart). The page's
//! language is the first of English or Russian the browser's `Accept-Language` names
//! ([`Language::of`]); the page's own toggle overrides it, and the page sends its
//! language with every call, so the server's messages come in it too.
//!
//! The code of the page is plain JavaScript in `src/ui/` (`app.js` the helpers, `views.js`
//! the views, `onu.js` the ONU's view, `i18n.js` the words); its one library is uPlot
//! (MIT, vendored in `src/ui/vendor/`) for the optics and traffic charts.

use crate::error::ApiError;
use crate::http::russian::Language;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::Router;

/// Where the page lives.
pub const PATH: &str = "/ui/";

const INDEX: &str = include_str!("ui/index.html");

/// The page's files: path under `/ui/`, content type, bytes.
const ASSETS: &[(&str, &str, &str)] = &[
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("ui/app.js"),
    ),
    (
        "views.js",
        "text/javascript; charset=utf-8",
        include_str!("ui/views.js"),
    ),
    (
        "onu.js",
        "text/javascript; charset=utf-8",
        include_str!("ui/onu.js"),
    ),
    (
        "i18n.js",
        "text/javascript; charset=utf-8",
        include_str!("ui/i18n.js"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("ui/style.css"),
    ),
    (
        "vendor/uPlot.iife.min.js",
        "text/javascript; charset=utf-8",
        include_str!("ui/vendor/uPlot.iife.min.js"),
    ),
    (
        "vendor/uPlot.min.css",
        "text/css; charset=utf-8",
        include_str!("ui/vendor/uPlot.min.css"),
    ),
];

/// Only this origin's scripts and styles; uPlot sizes its canvas with inline styles.
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; \
     frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/// `/`, `/ui` and `/ui/*`, needing no key.
pub fn router<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/", get(|| async { Redirect::to(PATH) }))
        .route("/ui", get(|| async { Redirect::to(PATH) }))
        .route(PATH, get(index))
        .route("/ui/{*asset}", get(asset))
}

async fn index(headers: HeaderMap) -> Response {
    let lang = Language::of_headers(&headers).code();
    page(
        "text/html; charset=utf-8",
        INDEX.replace("{{LANG}}", lang).into_bytes(),
    )
}

async fn asset(axum::extract::Path(path): axum::extract::Path<String>) -> Response {
    match ASSETS.iter().find(|(name, _, _)| *name == path) {
        Some((_, content_type, body)) => page(content_type, body.as_bytes().to_vec()),
        None => {
            ApiError::NotFound(format!("no file /ui/{path} in the operator page")).into_response()
        }
    }
}

fn page(content_type: &'static str, body: Vec<u8>) -> Response {
    let mut response = (StatusCode::OK, body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    // Assets change with the binary; revalidating each load is cheap on loopback and LAN.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}
