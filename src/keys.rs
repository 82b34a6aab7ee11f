//! API keys: the [`KeyRing`] the access check reads ([`ring`]), and key management
//! (`ponkeeper keys create|list|revoke`). The same operations run in the
//! service (reached through the admin socket, so they take effect at once) and directly on
//! the store's records ([`crate::records`]) when no service is running. A key is shown
//! once, at creation; only its SHA-256 is stored.

mod ring;

pub use ring::{
    canonical_net, check_format, generate_key, parse_net, sha256_hex, ApiKey, KeyRing, KeySource,
};

use crate::config::ConfiguredKey;
use crate::records::{AccessLevel, ApiKeyRecord, Records};
use chrono::Utc;
use serde::{Deserialize, Serialize};

/// What `keys create` asks for.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NewKey {
    pub name: String,
    pub level: AccessLevel,
    pub rate: Option<String>,
    pub allow_ip: Vec<String>,
    /// The key itself, when it was made elsewhere (another cluster member's `keys
    /// create`, so one key works on every member); `None` makes a new one.
    #[serde(default)]
    pub key: Option<String>,
}

/// One line of `keys list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeyListing {
    pub name: String,
    pub level: AccessLevel,
    pub rate: Option<String>,
    pub allow_ip: Vec<String>,
    pub created_at: Option<String>,
    /// Stored keys only: the last request made with the key.
    pub last_used_at: Option<String>,
    /// `stored` or `config`.
    pub source: String,
}

fn validate_name(name: &str) -> Result<(), String> {
    let valid = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    if valid {
        Ok(())
    } else {
        Err(format!(
            "key name `{name}` must be 1 to 64 characters of letters, digits, `-`, `_` or `.`"
        ))
    }
}

/// Creates a key; returns the key itself (the only time it is seen).
pub async fn create(
    records: &Records,
    ring: Option<&KeyRing>,
    configured: &[ConfiguredKey],
    request: NewKey,
) -> Result<String, String> {
    validate_name(&request.name)?;
    if let Some(rate) = &request.rate {
        rate.parse::<crate::rate_limit::Rate>()
            .map_err(|e| format!("--rate: {e}"))?;
    }
    for net in &request.allow_ip {
        parse_net(net).map_err(|e| format!("--allow-ip: {e}"))?;
    }
    if configured.iter().any(|k| k.name == request.name) {
        return Err(format!(
            "a key named `{}` is declared in the config",
            request.name
        ));
    }
    let key = match request.key {
        Some(given) => {
            check_format(&given)?;
            given
        }
        None => generate_key(),
    };
    let record = ApiKeyRecord {
        name: request.name.clone(),
        sha256: sha256_hex(&key),
        level: request.level,
        rate: request.rate,
        allow_ip: request.allow_ip,
        created_at: Utc::now(),
        last_used_at: None,
    };
    if !records
        .insert_api_key(&record)
        .await
        .map_err(|e| e.to_string())?
    {
        return Err(format!("a key named `{}` exists already", request.name));
    }
    if let Some(ring) = ring {
        ring.insert_stored(&record);
    }
    Ok(key)
}

/// Revokes the stored key `name` if there is one and creates it anew (the demo's keys).
pub async fn replace(
    records: &Records,
    ring: &KeyRing,
    name: &str,
    level: AccessLevel,
) -> Result<String, String> {
    let _ = revoke(records, Some(ring), &[], name).await;
    create(
        records,
        Some(ring),
        &[],
        NewKey {
            name: name.into(),
            level,
            rate: None,
            allow_ip: vec![],
            key: None,
        },
    )
    .await
}

/// Stored and configured keys, by name.
pub fn list(records: &Records, configured: &[ConfiguredKey]) -> Result<Vec<KeyListing>, String> {
    let mut listing: Vec<KeyListing> = records
        .api_keys()
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|r| KeyListing {
            name: r.name,
            level: r.level,
            rate: r.rate,
            allow_ip: r.allow_ip,
            created_at: Some(r.created_at.format("%Y-%m-%dT%H:%M:%SZ").to_string()),
            last_used_at: r
                .last_used_at
                .map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string()),
            source: "stored".into(),
        })
        .collect();
    for key in configured {
        listing.push(KeyListing {
            name: key.name.clone(),
            level: key.level.parse().unwrap_or(AccessLevel::ReadOnly),
            rate: key.rate.clone(),
            allow_ip: key.allow_ip.iter().map(|n| n.to_string()).collect(),
            created_at: None,
            last_used_at: None,
            source: "config".into(),
        });
    }
    listing.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(listing)
}

/// Revokes a stored key; configured keys are changed in the config.
pub async fn revoke(
    records: &Records,
    ring: Option<&KeyRing>,
    configured: &[ConfiguredKey],
    name: &str,
) -> Result<(), String> {
    if configured.iter().any(|k| k.name == name) {
        return Err(format!(
            "key `{name}` is declared in the config; remove it there and restart"
        ));
    }
    if !records
        .remove_api_key(name)
        .await
        .map_err(|e| e.to_string())?
    {
        return Err(format!("no key named `{name}`"));
    }
    if let Some(ring) = ring {
        ring.remove_named(name);
    }
    Ok(())
}

/// `keys list` as a table: times in the API's zone (as the API shows them, no `Z`), and
/// the rate each key really gets (the configured default where the key names none).
pub fn render(listing: &[KeyListing], clock: &crate::clock::Clock, default_rate: &str) -> String {
    let local = |utc: &str| {
        chrono::DateTime::parse_from_rfc3339(utc)
            .map(|t| clock.format(t.with_timezone(&chrono::Utc)))
            .unwrap_or_else(|_| utc.to_string())
    };
    let mut out = format!(
        "{:<24} {:<10} {:<8} {:<22} {:<21} {:<21} {}\n",
        "NAME", "LEVEL", "RATE", "ALLOW_IP", "CREATED", "LAST_USED", "SOURCE"
    );
    for key in listing {
        let allow = if key.allow_ip.is_empty() {
            "any".to_string()
        } else {
            key.allow_ip.join(",")
        };
        out.push_str(&format!(
            "{:<24} {:<10} {:<8} {:<22} {:<21} {:<21} {}\n",
            key.name,
            key.level.as_str(),
            key.rate.as_deref().unwrap_or(default_rate),
            allow,
            key.created_at.as_deref().map_or("-".to_string(), local),
            key.last_used_at
                .as_deref()
                .map_or("never".to_string(), local),
            key.source
        ));
    }
    out
}
