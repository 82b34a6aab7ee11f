//! API keys (seed §5): the in-memory key ring every request is checked against, and the
//! middleware that enforces the check order of SPEC §4 — key (401), IP whitelist (403
//! `IP_NOT_ALLOWED`), level (403 `FORBIDDEN`). Only a key's SHA-256 is ever stored; the
//! ring is keyed by that hash. Keys come from sled (created with `ponkeeper keys`) and from
//! `[[api_keys]]` in the config; the admin socket updates the ring of a running service.

use crate::api::ApiError;
use crate::app::AppState;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use dashmap::DashMap;
use ipnet::IpNet;
use ponkeeper_actors::store::{AccessLevel, ApiKeyRecord};
use sha2::{Digest, Sha256};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// Header that carries the key.
pub const API_KEY_HEADER: &str = "x-api-key";

/// Where a key is declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeySource {
    /// Created with `ponkeeper keys create`, stored in sled.
    Stored,
    /// Declared in `[[api_keys]]` of the config.
    Config,
}

/// A key as the ring knows it.
#[derive(Debug, Clone)]
pub struct ApiKey {
    pub name: String,
    pub level: AccessLevel,
    pub rate: Option<String>,
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

/// Every valid key, by the hex SHA-256 of the key.
#[derive(Clone, Default)]
pub struct KeyRing {
    by_hash: Arc<DashMap<String, ApiKey>>,
}

impl KeyRing {
    pub fn insert_stored(&self, record: &ApiKeyRecord) {
        let allow_ip = record
            .allow_ip
            .iter()
            .filter_map(|c| parse_net(c).ok())
            .collect();
        self.by_hash.insert(
            record.sha256.to_ascii_lowercase(),
            ApiKey {
                name: record.name.clone(),
                level: record.level,
                rate: record.rate.clone(),
                allow_ip,
                source: KeySource::Stored,
            },
        );
    }

    pub fn insert_configured(&self, key: ApiKey, sha256: &str) {
        self.by_hash.insert(sha256.to_ascii_lowercase(), key);
    }

    /// Removes the key named `name`; `true` if there was one.
    pub fn remove_named(&self, name: &str) -> bool {
        let before = self.by_hash.len();
        self.by_hash.retain(|_, key| key.name != name);
        self.by_hash.len() != before
    }

    pub fn find(&self, presented: &str) -> Option<ApiKey> {
        self.by_hash.get(&sha256_hex(presented)).map(|k| k.clone())
    }

    pub fn configured(&self) -> Vec<ApiKey> {
        self.by_hash
            .iter()
            .filter(|k| k.source == KeySource::Config)
            .map(|k| k.clone())
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

/// Parses a rate such as `100/s` or `600/m` into (requests, seconds per window).
pub fn parse_rate(text: &str) -> anyhow::Result<(u32, u64)> {
    let (count, unit) = text
        .split_once('/')
        .ok_or_else(|| anyhow::anyhow!("`{text}` is not a rate like `100/s` or `600/m`"))?;
    let count: u32 = count
        .trim()
        .parse()
        .ok()
        .filter(|c| *c > 0)
        .ok_or_else(|| anyhow::anyhow!("`{text}`: the count must be a whole number above zero"))?;
    let seconds = match unit.trim() {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        other => anyhow::bail!("`{text}`: unknown unit `{other}` (s, m or h)"),
    };
    Ok((count, seconds))
}

/// The client's address: the socket peer (X-Forwarded-For from trusted proxies is
/// handled with rate limits and whitelists in the access-control work).
pub fn client_ip(peer: SocketAddr) -> IpAddr {
    peer.ip()
}

/// Middleware: authenticates the key, checks the whitelist and the level.
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
    let ip = client_ip(peer);
    if !key.allow_ip.is_empty() && !key.allow_ip.iter().any(|net| net.contains(&ip)) {
        return ApiError::IpNotAllowed(format!("key `{}` may not be used from {ip}", key.name))
            .into_response();
    }
    let reads_only = matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    );
    if !reads_only && key.level != AccessLevel::Full {
        return ApiError::Forbidden(format!(
            "key `{}` is READ_ONLY; {} needs a FULL key",
            key.name,
            request.method()
        ))
        .into_response();
    }
    request.extensions_mut().insert(Caller {
        key_name: key.name,
        level: key.level,
        ip,
    });
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_parse() {
        assert_eq!(parse_rate("100/s").expect("rate"), (100, 1));
        assert_eq!(parse_rate("600/m").expect("rate"), (600, 60));
        assert!(parse_rate("0/s").is_err());
        assert!(parse_rate("fast").is_err());
    }

    #[test]
    fn keys_are_long_and_found_by_hash() {
        let key = generate_key();
        assert_eq!(key.len(), 51);
        let ring = KeyRing::default();
        ring.insert_stored(&ApiKeyRecord {
            name: "ops".into(),
            sha256: sha256_hex(&key),
            level: AccessLevel::Full,
            rate: None,
            allow_ip: vec!["10.0.0.0/8".into()],
            created_at: chrono::Utc::now(),
        });
        let found = ring.find(&key).expect("found");
        assert_eq!(found.name, "ops");
        assert_eq!(found.allow_ip, vec![parse_net("10.0.0.0/8").expect("net")]);
        assert!(ring.find("pk_wrong").is_none());
        assert!(ring.remove_named("ops"));
        assert!(ring.find(&key).is_none());
    }
}
