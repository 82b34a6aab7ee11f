//! API keys and the access check every request passes (seed §5, SPEC §4), in the order
//! the spec fixes: key (401 `UNAUTHORIZED`), IP whitelist (403 `IP_NOT_ALLOWED`), rate
//! (429 `RATE_LIMITED` with `Retry-After`), level (403 `FORBIDDEN`), then the request.
//! Only a key's SHA-256 is kept; the ring is keyed by it and the final comparison is
//! constant-time. Keys come from the store (created with `ponkeeper keys`) and from
//! `[[api_keys]]` in the config; the admin socket updates the ring of a running service.
//! The client address is the socket peer, or — when the peer is a trusted proxy — the
//! right-most `X-Forwarded-For` entry that is not itself a trusted proxy.

use crate::api::ApiError;
use crate::rate_limit::{Decision, Rate};
use crate::records::{AccessLevel, ApiKeyRecord};
use crate::state::AppState;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use dashmap::DashMap;
use ipnet::IpNet;
use sha2::{Digest, Sha256};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use subtle::ConstantTimeEq;

/// Header that carries the key.
pub const API_KEY_HEADER: &str = "x-api-key";

/// Where a key is declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeySource {
    /// Created with `ponkeeper keys create`, kept in the store ([`crate::records`]).
    Stored,
    /// Declared in `[[api_keys]]` of the config.
    Config,
}

/// A key as the ring knows it.
#[derive(Debug, Clone)]
pub struct ApiKey {
    pub name: String,
    pub level: AccessLevel,
    /// `None`: the configured default rate.
    pub rate: Option<Rate>,
    pub allow_ip: Vec<IpNet>,
    pub source: KeySource,
}

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

struct RingEntry {
    digest: [u8; 32],
    key: ApiKey,
}

/// Every valid key, by the hex SHA-256 of the key, and when each was last used.
#[derive(Clone, Default)]
pub struct KeyRing {
    by_hash: Arc<DashMap<String, RingEntry>>,
    last_used: Arc<DashMap<String, DateTime<Utc>>>,
}

impl KeyRing {
    fn insert(&self, sha256: &str, key: ApiKey) {
        let mut digest = [0u8; 32];
        if hex::decode_to_slice(sha256, &mut digest).is_err() {
            tracing::error!(key_name = %key.name, "a stored key hash is not 64 hex digits; key ignored");
            return;
        }
        self.by_hash
            .insert(sha256.to_ascii_lowercase(), RingEntry { digest, key });
    }

    pub fn insert_stored(&self, record: &ApiKeyRecord) {
        let allow_ip = record
            .allow_ip
            .iter()
            .filter_map(|c| parse_net(c).ok())
            .collect();
        self.insert(
            &record.sha256,
            ApiKey {
                name: record.name.clone(),
                level: record.level,
                rate: record.rate.as_deref().and_then(|r| r.parse().ok()),
                allow_ip,
                source: KeySource::Stored,
            },
        );
    }

    pub fn insert_configured(&self, key: ApiKey, sha256: &str) {
        self.insert(sha256, key);
    }

    /// Removes the key named `name`; `true` if there was one.
    pub fn remove_named(&self, name: &str) -> bool {
        let before = self.by_hash.len();
        self.by_hash.retain(|_, entry| entry.key.name != name);
        self.by_hash.len() != before
    }

    /// The key whose SHA-256 matches `presented`'s.
    pub fn find(&self, presented: &str) -> Option<ApiKey> {
        let digest: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
        let entry = self.by_hash.get(&hex::encode(digest))?;
        bool::from(entry.digest.ct_eq(&digest)).then(|| entry.key.clone())
    }

    pub fn mark_used(&self, name: &str, at: DateTime<Utc>) {
        self.last_used.insert(name.to_string(), at);
    }

    /// When each key was last used since the service started.
    pub fn last_used(&self) -> Vec<(String, DateTime<Utc>)> {
        self.last_used
            .iter()
            .map(|e| (e.key().clone(), *e.value()))
            .collect()
    }
}

pub fn sha256_hex(key: &str) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

/// A new key: `pk_` and 48 hex digits (192 random bits).
pub fn generate_key() -> String {
    let bytes: [u8; 24] = rand::random();
    format!("pk_{}", hex::encode(bytes))
}

/// Parses an address or CIDR (`10.0.0.0/8`, `127.0.0.1`, `::1`).
pub fn parse_net(text: &str) -> anyhow::Result<IpNet> {
    if let Ok(net) = text.parse::<IpNet>() {
        return Ok(net);
    }
    text.parse::<IpAddr>()
        .map(IpNet::from)
        .map_err(|_| anyhow::anyhow!("`{text}` is neither an IP address nor a CIDR"))
}

/// The client's address: the peer, or from a trusted proxy the right-most
/// `X-Forwarded-For` entry that is not a trusted proxy (the left-most if all are).
pub fn client_ip(peer: IpAddr, headers: &HeaderMap, trusted: &[IpNet]) -> IpAddr {
    let peer = peer.to_canonical();
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|net| net.contains(ip));
    if !is_trusted(&peer) {
        return peer;
    }
    let forwarded: Vec<IpAddr> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|entry| entry.trim().parse::<IpAddr>().ok())
        .map(|ip| ip.to_canonical())
        .collect();
    forwarded
        .iter()
        .rev()
        .find(|ip| !is_trusted(ip))
        .or(forwarded.first())
        .copied()
        .unwrap_or(peer)
}

fn rate_headers(response: &mut Response, limit: u32, remaining: u32) {
    let headers = response.headers_mut();
    headers.insert("x-ratelimit-limit", HeaderValue::from(limit));
    headers.insert("x-ratelimit-remaining", HeaderValue::from(remaining));
}

/// Middleware: key, IP whitelist, rate, level — in that order.
pub async fn authenticate(
    State(app): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    mut request: Request,
    next: Next,
) -> Response {
    let presented = match request.headers().get(API_KEY_HEADER).map(|v| v.to_str()) {
        None => {
            return ApiError::Unauthorized("the X-API-Key header is missing".into()).into_response()
        }
        Some(Err(_)) => {
            return ApiError::Unauthorized("the X-API-Key header is not valid text".into())
                .into_response()
        }
        Some(Ok(value)) => value.trim().to_string(),
    };
    let Some(key) = app.keys.find(&presented) else {
        return ApiError::Unauthorized("the API key is unknown or revoked".into()).into_response();
    };
    let ip = client_ip(peer.ip(), request.headers(), &app.config.trusted_proxies);
    if !key.allow_ip.is_empty() && !key.allow_ip.iter().any(|net| net.contains(&ip)) {
        return ApiError::IpNotAllowed(format!("key `{}` may not be used from {ip}", key.name))
            .into_response();
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
    let mcp = crate::mcp::is_mcp_path(request.uri().path());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_long_and_found_by_hash() {
        let key = generate_key();
        assert_eq!(key.len(), 51);
        let ring = KeyRing::default();
        ring.insert_stored(&ApiKeyRecord {
            name: "ops".into(),
            sha256: sha256_hex(&key),
            level: AccessLevel::Full,
            rate: Some("5/s".into()),
            allow_ip: vec!["10.0.0.0/8".into()],
            created_at: Utc::now(),
            last_used_at: None,
        });
        let found = ring.find(&key).expect("found");
        assert_eq!(found.name, "ops");
        assert_eq!(found.rate, Some("5/s".parse().expect("rate")));
        assert_eq!(found.allow_ip, vec![parse_net("10.0.0.0/8").expect("net")]);
        assert!(ring.find("pk_wrong").is_none());
        assert!(ring.remove_named("ops"));
        assert!(ring.find(&key).is_none());
    }

    #[test]
    fn client_ip_believes_only_trusted_proxies() {
        let trusted = vec![
            parse_net("127.0.0.1").expect("net"),
            parse_net("192.0.2.0/24").expect("net"),
        ];
        let headers = |value: &str| {
            let mut map = HeaderMap::new();
            map.insert(
                "x-forwarded-for",
                HeaderValue::from_str(value).expect("header"),
            );
            map
        };
        let local: IpAddr = "127.0.0.1".parse().expect("ip");
        let stranger: IpAddr = "203.0.113.9".parse().expect("ip");
        let forged = headers("6.6.6.6, 10.1.2.3");
        assert_eq!(
            client_ip(stranger, &forged, &trusted),
            stranger,
            "untrusted peer: header ignored"
        );
        assert_eq!(
            client_ip(local, &forged, &trusted),
            "10.1.2.3".parse::<IpAddr>().expect("ip")
        );
        let chained = headers("10.1.2.3, 192.0.2.7");
        assert_eq!(
            client_ip(local, &chained, &trusted),
            "10.1.2.3".parse::<IpAddr>().expect("ip"),
            "the right-most untrusted entry"
        );
        assert_eq!(client_ip(local, &HeaderMap::new(), &trusted), local);
        assert_eq!(client_ip(local, &headers("garbage"), &trusted), local);
        let mapped: IpAddr = "::ffff:127.0.0.1".parse().expect("ip");
        assert_eq!(
            client_ip(mapped, &HeaderMap::new(), &[]),
            local,
            "IPv4-mapped peers are IPv4"
        );
    }
}
