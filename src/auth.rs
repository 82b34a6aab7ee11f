//! The access check every request passes (docs/api.md, "Access control"), in the order the spec fixes:
//! key (401 `UNAUTHORIZED`), IP whitelist (403 `IP_NOT_ALLOWED`), rate (429
//! `RATE_LIMITED` with `Retry-After`), level (403 `FORBIDDEN`), then the request — and all
//! of it before a byte of the request's body is read ([`crate::body`] reads it after).
//! The keys are in the [`KeyRing`](crate::keys::KeyRing): only a key's SHA-256 is kept, the ring is keyed by it
//! and the final comparison is constant-time; they come from the store (created with
//! `ponkeeper keys`) and from `[[api_keys]]` in the config, and the admin socket updates
//! the ring of a running service. The client address is [`client_ip`]'s: the socket peer,
//! or through a trusted proxy the address `X-Forwarded-For` names for the hop before it.
//! A refused key closes its connection, and a valid one marks the connection as a keyed
//! client's, which the listener never closes to make room ([`crate::http::ConnectionProof`]).

mod client_ip;

pub use client_ip::client_ip;

use crate::error::ApiError;
use crate::http::ConnectionProof;
use crate::keys::ApiKey;
use crate::rate_limit::Decision;
use crate::records::AccessLevel;
use crate::state::AppState;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use std::net::{IpAddr, SocketAddr};

/// Header that carries the key.
pub const API_KEY_HEADER: &str = "x-api-key";

/// The identity a request was authenticated as, put in the request's extensions.
#[derive(Debug, Clone)]
pub struct Caller {
    pub key_name: String,
    pub level: AccessLevel,
    pub ip: IpAddr,
}

/// Put in a request's extensions by the MCP tools' in-process REST calls (never by the
/// network): the MCP request that carries the call was counted against the key's rate
/// already, so the call is not counted again.
#[derive(Debug, Clone, Copy)]
pub struct RateAlreadyCounted;

fn rate_headers(response: &mut Response, limit: u32, remaining: u32) {
    const LIMIT: header::HeaderName = header::HeaderName::from_static("x-ratelimit-limit");
    const REMAINING: header::HeaderName = header::HeaderName::from_static("x-ratelimit-remaining");
    let headers = response.headers_mut();
    headers.insert(LIMIT, HeaderValue::from(limit));
    headers.insert(REMAINING, HeaderValue::from(remaining));
}

/// A refusal of the key itself, which also closes the connection: a client without a
/// valid key cannot hold a connection open by asking again and again.
fn refused(error: ApiError) -> Response {
    let mut response = error.into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// The request's key, if it is valid and may be used from the client's address, and
/// that address; else why not.
fn key_and_address(
    app: &AppState,
    peer: SocketAddr,
    request: &Request,
) -> Result<(ApiKey, IpAddr), ApiError> {
    let presented = match request.headers().get(API_KEY_HEADER).map(|v| v.to_str()) {
        None => {
            return Err(ApiError::Unauthorized(
                "the X-API-Key header is missing".into(),
            ))
        }
        Some(Err(_)) => {
            return Err(ApiError::Unauthorized(
                "the X-API-Key header is not valid text".into(),
            ))
        }
        Some(Ok(value)) => value.trim().to_string(),
    };
    let Some(key) = app.keys.find(&presented) else {
        return Err(ApiError::Unauthorized(
            "the API key is unknown or revoked".into(),
        ));
    };
    let ip = client_ip(peer.ip(), request.headers(), &app.config.trusted_proxies);
    if !key.allow_ip.is_empty() && !key.allow_ip.iter().any(|net| net.contains(&ip)) {
        return Err(ApiError::IpNotAllowed(format!(
            "key `{}` may not be used from {ip}",
            key.name
        )));
    }
    Ok((key, ip))
}

/// Middleware: key, IP whitelist, rate, level — in that order.
pub async fn authenticate(
    State(app): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    mut request: Request,
    next: Next,
) -> Response {
    // A request another cluster member authenticated and forwarded (in process only).
    if let Some(forwarded) = request
        .extensions()
        .get::<crate::cluster::wire::Forwarded>()
        .cloned()
    {
        request.extensions_mut().insert(Caller {
            key_name: forwarded.key_name,
            level: forwarded.level,
            ip: forwarded.ip,
        });
        return next.run(request).await;
    }
    let (key, ip) = match key_and_address(&app, peer, &request) {
        Ok(found) => found,
        Err(refusal) => return refused(refusal),
    };
    // A valid key on an allowed address: the connection is a keyed client's for good.
    if let Some(proof) = request.extensions().get::<ConnectionProof>() {
        proof.key_presented();
    }
    let counted = request.extensions().get::<RateAlreadyCounted>().is_some();
    let decision = (!counted).then(|| app.rate_limits.check(&key.name, key.rate));
    let rate = match decision {
        None => None,
        Some(Decision::Allowed { limit, remaining }) => Some((limit, remaining)),
        Some(Decision::Refused {
            limit,
            retry_after_seconds,
        }) => {
            let mut response = ApiError::RateLimited(format!(
                "key `{}` is over its rate of {}; retry after {retry_after_seconds} s",
                key.name,
                key.rate
                    .map_or_else(|| app.config.rate_limit.default.clone(), |r| r.to_string())
            ))
            .into_response();
            rate_headers(&mut response, limit, 0);
            response
                .headers_mut()
                .insert("retry-after", HeaderValue::from(retry_after_seconds));
            return response;
        }
    };
    app.keys.mark_used(&key.name, Utc::now());
    let reads_only = matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    );
    // MCP messages are all POSTs: the level is checked per tool call, by this same
    // middleware on the REST request each tool makes (see `crate::mcp`).
    let mcp = crate::http::is_mcp_path(request.uri().path());
    let mut response = if !reads_only && !mcp && key.level != AccessLevel::Full {
        ApiError::Forbidden(format!(
            "key `{}` is READ_ONLY; {} needs a FULL key",
            key.name,
            request.method()
        ))
        .into_response()
    } else {
        request.extensions_mut().insert(Caller {
            key_name: key.name,
            level: key.level,
            ip,
        });
        next.run(request).await
    };
    if let Some((limit, remaining)) = rate {
        rate_headers(&mut response, limit, remaining);
    }
    response
}
