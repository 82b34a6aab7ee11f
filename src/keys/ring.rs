//! API keys as the service knows them: the [`KeyRing`] of every valid key by the SHA-256
//! of the key (only the hash is ever kept; the final comparison is constant-time), how a
//! key is made ([`generate_key`], [`sha256_hex`]), and the address rules of a key's IP
//! whitelist ([`parse_net`], [`canonical_net`]). The ring is filled at start from the
//! store and the config ([`crate::app`]) and changed by the admin socket; the access check
//! ([`crate::auth::authenticate`]) reads it.

use crate::rate_limit::Rate;
use crate::records::{AccessLevel, ApiKeyRecord};
use chrono::{DateTime, Utc};
use dashmap::DashMap;
use ipnet::{IpNet, Ipv4Net};
use sha2::{Digest, Sha256};
use std::net::IpAddr;
use std::sync::Arc;
use subtle::ConstantTimeEq;

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

/// Every valid key, by the SHA-256 of the key, and when each was last used.
#[derive(Clone, Default)]
pub struct KeyRing {
    by_hash: Arc<DashMap<[u8; 32], ApiKey>>,
    last_used: Arc<DashMap<String, DateTime<Utc>>>,
}

impl KeyRing {
    fn insert(&self, sha256: &str, mut key: ApiKey) {
        key.allow_ip = key.allow_ip.into_iter().map(canonical_net).collect();
        let mut digest = [0u8; 32];
        if hex::decode_to_slice(sha256, &mut digest).is_err() {
            tracing::error!(key_name = %key.name, "a stored key hash is not 64 hex digits; key ignored");
            return;
        }
        self.by_hash.insert(digest, key);
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
        self.by_hash.retain(|_, key| key.name != name);
        self.by_hash.len() != before
    }

    /// The key whose SHA-256 matches `presented`'s.
    pub fn find(&self, presented: &str) -> Option<ApiKey> {
        let digest: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
        let entry = self.by_hash.get(&digest)?;
        bool::from(entry.key().ct_eq(&digest)).then(|| entry.value().clone())
    }

    pub fn mark_used(&self, name: &str, at: DateTime<Utc>) {
        // Every request marks its key: the name is copied only the first time.
        if let Some(mut last) = self.last_used.get_mut(name) {
            *last = at;
            return;
        }
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

/// `Ok` when `key` has the form [`generate_key`] makes, so a key given to `keys create`
/// is as hard to guess as one made here.
pub fn check_format(key: &str) -> Result<(), String> {
    let digits = key.strip_prefix("pk_").unwrap_or_default();
    if digits.len() == 48
        && digits
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    {
        Ok(())
    } else {
        Err(
            "the key given must be one `keys create` made: `pk_` and 48 lower-case hex digits"
                .into(),
        )
    }
}

/// Parses an address or CIDR (`10.0.0.0/8`, `127.0.0.1`, `::1`), IPv4-mapped ones
/// (`::ffff:127.0.0.1`) as the IPv4 they are.
pub fn parse_net(text: &str) -> anyhow::Result<IpNet> {
    let net = match text.parse::<IpNet>() {
        Ok(net) => net,
        Err(_) => text
            .parse::<IpAddr>()
            .map(IpNet::from)
            .map_err(|_| anyhow::anyhow!("`{text}` is neither an IP address nor a CIDR"))?,
    };
    Ok(canonical_net(net))
}

/// `net` as client addresses are compared with it: an IPv4-mapped IPv6 network
/// (`::ffff:a.b.c.d/96+n`) is the IPv4 network `a.b.c.d/n`, since every client address is
/// canonical (an IPv4 client arriving on an IPv6 socket is its IPv4 address).
pub fn canonical_net(net: IpNet) -> IpNet {
    let IpNet::V6(v6) = net else {
        return net;
    };
    match (
        v6.network().to_ipv4_mapped(),
        v6.prefix_len().checked_sub(96),
    ) {
        (Some(v4), Some(prefix)) => Ipv4Net::new(v4, prefix).map_or(net, IpNet::V4),
        _ => net,
    }
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
        assert_eq!(check_format(&key), Ok(()));
        for bad in [
            "pk_wrong",
            "",
            "pk_",
            &key.to_uppercase(),
            &format!("{key}0"),
        ] {
            assert!(check_format(bad).is_err(), "{bad}");
        }
        assert!(ring.remove_named("ops"));
        assert!(ring.find(&key).is_none());
    }

    #[test]
    fn ipv4_mapped_networks_are_their_ipv4_networks() {
        let net = |text: &str| parse_net(text).expect("net");
        assert_eq!(net("::ffff:127.0.0.1"), net("127.0.0.1/32"));
        assert_eq!(net("::ffff:10.0.0.0/104"), net("10.0.0.0/8"));
        assert_eq!(net("::ffff:0:0/96"), net("0.0.0.0/0"));
        // Wider than the mapped block, or not mapped at all: IPv6 as written.
        assert_eq!(net("::/0").to_string(), "::/0");
        assert_eq!(net("2001:db8::/32").to_string(), "2001:db8::/32");
        let ring = KeyRing::default();
        ring.insert_configured(
            ApiKey {
                name: "mapped".into(),
                level: AccessLevel::ReadOnly,
                rate: None,
                allow_ip: vec!["::ffff:192.0.2.0/120".parse().expect("net")],
                source: KeySource::Config,
            },
            &sha256_hex("pk_mapped"),
        );
        let key = ring.find("pk_mapped").expect("found");
        assert_eq!(key.allow_ip, vec![net("192.0.2.0/24")]);
    }
}
