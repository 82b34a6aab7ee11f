//! Which connections the listener ([`super::connections`]) keeps, so that clients without
//! a key can never take the connections keyed clients need:
//!
//! - one client address holds at most `http.max_connections_per_address` connections (an
//!   IPv6 client is its /64, which one subscriber line usually gets whole); a further one
//!   is closed at once. A trusted proxy's connections are not counted: the proxy carries
//!   many clients.
//! - connections that have not yet presented a valid key hold at most
//!   `http.unauthenticated_share` of `max_connections`; a newcomer past that closes the
//!   oldest of them, so a flood of keyless connections churns among itself while a keyed
//!   client still gets in and, once its key is checked, is never closed for one.
//!
//! A refused request closing its connection is the access check's part
//! ([`crate::auth`]); this module only counts and closes.

use crate::config::Http;
use crate::http::ConnectionProof;
use ipnet::IpNet;
use std::collections::{BTreeMap, HashMap};
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::Notify;

/// What one client is counted as: its IPv4 address, or its IPv6 /64.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum ClientKey {
    V4(u32),
    V6Prefix(u64),
}

fn client_key(ip: IpAddr) -> ClientKey {
    match ip.to_canonical() {
        IpAddr::V4(v4) => ClientKey::V4(u32::from(v4)),
        IpAddr::V6(v6) => ClientKey::V6Prefix((u128::from(v6) >> 64) as u64),
    }
}

/// The listener's admission state, shared by every connection it serves.
pub struct Admission {
    per_address: u32,
    unauthenticated: usize,
    trusted: Vec<IpNet>,
    state: Mutex<Counts>,
}

#[derive(Default)]
struct Counts {
    by_client: HashMap<ClientKey, u32>,
    /// Connections that presented no valid key yet, oldest first, each with the signal
    /// that closes it.
    keyless: BTreeMap<u64, Arc<Notify>>,
    next_id: u64,
}

/// One admitted connection's place: given back when it is dropped.
pub struct Admitted {
    admission: Arc<Admission>,
    id: u64,
    client: Option<ClientKey>,
    /// Notified when the connection is to close to make room for a newcomer.
    pub evicted: Arc<Notify>,
}

impl Admission {
    pub fn new(limits: &Http, trusted: Vec<IpNet>) -> Arc<Admission> {
        Arc::new(Admission {
            per_address: limits.max_connections_per_address,
            unauthenticated: limits.max_unauthenticated(),
            trusted,
            state: Mutex::new(Counts::default()),
        })
    }

    fn counts(&self) -> MutexGuard<'_, Counts> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Admits a connection from `peer`, or `None` when its client holds its share
    /// already. Admitting past the keyless share closes the oldest keyless connection.
    pub fn admit(self: &Arc<Self>, peer: SocketAddr) -> Option<Admitted> {
        let ip = peer.ip().to_canonical();
        let counted = !self.trusted.iter().any(|net| net.contains(&ip));
        let client = counted.then(|| client_key(ip));
        let mut counts = self.counts();
        if let Some(client) = client {
            let held = counts.by_client.entry(client).or_default();
            if *held >= self.per_address {
                drop(counts);
                metrics::counter!("ponkeeper_http_connections_refused_total", "reason" => "per_address")
                    .increment(1);
                return None;
            }
            *held += 1;
        }
        let id = counts.next_id;
        counts.next_id += 1;
        let evicted = Arc::new(Notify::new());
        counts.keyless.insert(id, evicted.clone());
        if counts.keyless.len() > self.unauthenticated {
            if let Some((_, oldest)) = counts.keyless.pop_first() {
                // `notify_one` keeps the signal for a connection not yet waiting on it.
                oldest.notify_one();
                metrics::counter!("ponkeeper_http_connections_refused_total", "reason" => "unauthenticated_share")
                    .increment(1);
            }
        }
        Some(Admitted {
            admission: self.clone(),
            id,
            client,
            evicted,
        })
    }
}

impl Admitted {
    /// What the access check calls when a request on this connection presents a valid
    /// key: the connection leaves the keyless ones for good.
    pub fn proof(&self) -> ConnectionProof {
        let (admission, id) = (self.admission.clone(), self.id);
        ConnectionProof::new(move || {
            admission.counts().keyless.remove(&id);
        })
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut counts = self.admission.counts();
        counts.keyless.remove(&self.id);
        if let Some(client) = self.client {
            if let Some(held) = counts.by_client.get_mut(&client) {
                *held = held.saturating_sub(1);
                if *held == 0 {
                    counts.by_client.remove(&client);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(max: u32, per_address: u32, share: f64) -> Http {
        Http {
            max_connections: max,
            max_connections_per_address: per_address,
            unauthenticated_share: share,
            ..Http::default()
        }
    }

    fn at(text: &str) -> SocketAddr {
        text.parse().expect("address")
    }

    #[test]
    fn one_client_holds_its_share_and_an_ipv6_client_is_its_64() {
        let admission = Admission::new(
            &limits(100, 2, 1.0),
            vec!["10.9.0.0/16".parse().expect("net")],
        );
        let first = admission.admit(at("192.0.2.1:1000")).expect("first");
        let _second = admission.admit(at("192.0.2.1:1001")).expect("second");
        assert!(admission.admit(at("192.0.2.1:1002")).is_none());
        assert!(
            admission.admit(at("192.0.2.2:1000")).is_some(),
            "another address"
        );
        let _a = admission.admit(at("[2001:db8::1]:1")).expect("v6");
        let _b = admission
            .admit(at("[2001:db8::ffff:2]:1"))
            .expect("same /64");
        assert!(
            admission.admit(at("[2001:db8::3]:1")).is_none(),
            "the /64 is full"
        );
        assert!(
            admission.admit(at("[2001:db8:0:1::1]:1")).is_some(),
            "another /64"
        );
        for port in 0..5 {
            assert!(
                admission.admit(at(&format!("10.9.1.1:{port}"))).is_some(),
                "a proxy"
            );
        }
        drop(first);
        assert!(
            admission.admit(at("192.0.2.1:1003")).is_some(),
            "a place given back"
        );
    }

    #[tokio::test]
    async fn past_the_keyless_share_the_oldest_keyless_connection_is_closed() {
        let admission = Admission::new(&limits(4, 100, 0.5), Vec::new());
        let keyed = admission.admit(at("192.0.2.9:1")).expect("keyed");
        keyed.proof().key_presented();
        let oldest = admission.admit(at("192.0.2.1:1")).expect("first keyless");
        let _second = admission.admit(at("192.0.2.2:1")).expect("second keyless");
        let _third = admission.admit(at("192.0.2.3:1")).expect("third keyless");
        tokio::time::timeout(std::time::Duration::from_secs(1), oldest.evicted.notified())
            .await
            .expect("the oldest keyless connection is told to close");
        let not_signalled = tokio::time::timeout(
            std::time::Duration::from_millis(50),
            keyed.evicted.notified(),
        );
        assert!(
            not_signalled.await.is_err(),
            "a keyed connection is never closed for one"
        );
    }
}
