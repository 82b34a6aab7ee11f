//! `[cluster]` of `ponkeeper.toml`: this member's name and cluster port, every other
//! member by name and address, the cookie's variable, how soon a silent member's OLTs are
//! taken over (and, from the heartbeat, how soon it stops counting toward the quorum),
//! and the id block this member allocates ONU ids from (docs/scale-out.md).

use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::time::Duration;

/// Heartbeats a peer may miss in a row and still count toward the quorum: its last
/// answer must be younger than this many heartbeats.
pub const QUORUM_HEARTBEATS: u32 = 3;

/// The shortest quorum window: a sub-second heartbeat does not make the quorum flicker
/// on one slow answer.
pub const QUORUM_WINDOW_FLOOR: Duration = Duration::from_secs(1);

/// The most members a cluster may configure: each allocates ids in a block of its own,
/// and 32 blocks of 2⁴⁸ keep every id below 2⁵³, exact in a JSON client's number.
pub const MAX_MEMBERS: usize = 32;

/// `[cluster]`: this process's name among its peers, where it listens for them, who they
/// are and where they listen, the variable holding the cookie they share, the limits of
/// the port and the times of membership.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterConfig {
    pub name: String,
    pub listen: SocketAddr,
    /// Every other member: its `name` (what the rendezvous hash is computed over) and its
    /// `listen` address.
    #[serde(default)]
    pub peers: Vec<Peer>,
    /// The variable holding the cookie (not one of `PONKEEPER_*`, which are settings).
    pub cookie_env: String,
    /// TLS between members ([`super::tls`]): this member's certificate and key and the
    /// cluster's CA.
    #[serde(default)]
    pub tls: Option<super::tls::TlsFiles>,
    /// Without `tls` the link is not encrypted: a member starts so only when the operator
    /// says so, with `listen` on a network only the members reach.
    #[serde(default)]
    pub insecure: bool,
    /// Time a connecting member has to pass the cookie challenge.
    #[serde(default = "default_handshake_timeout", with = "humantime_serde")]
    pub handshake_timeout: Duration,
    /// Connections that may be in their handshake at once; one more is closed at once.
    #[serde(default = "default_max_handshakes")]
    pub max_handshakes: usize,
    /// How often members tell each other their state (and so how soon one is missed: it
    /// counts toward the quorum only while its answers arrive, [`Self::quorum_window`]).
    #[serde(default = "default_heartbeat", with = "humantime_serde")]
    pub heartbeat: Duration,
    /// A member silent this long loses its OLTs to the others; unset: twice
    /// `polling.status_interval`.
    #[serde(default, with = "humantime_serde")]
    pub takeover_after: Option<Duration>,
    /// The block this member allocates new ids in (ONU ids, backups, audit entries):
    /// `block × 2⁴⁸` plus its own sequence. Unset: this member's place among all the
    /// members' names in order. Ids already in a store keep their values.
    #[serde(default)]
    pub id_block: Option<u16>,
}

/// Another member as this one's configuration names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Peer {
    pub name: String,
    pub address: SocketAddr,
}

fn default_handshake_timeout() -> Duration {
    Duration::from_secs(5)
}

fn default_max_handshakes() -> usize {
    16
}

fn default_heartbeat() -> Duration {
    Duration::from_secs(1)
}

impl ClusterConfig {
    /// Every member's name, this one's included, in order.
    pub fn member_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.peers.iter().map(|p| p.name.clone()).collect();
        names.push(self.name.clone());
        names.sort();
        names
    }

    /// The id block in force: the configured one, or this member's place by name.
    pub fn id_block(&self) -> u16 {
        self.id_block.unwrap_or_else(|| {
            let names = self.member_names();
            names.iter().position(|n| *n == self.name).unwrap_or(0) as u16
        })
    }

    /// The silence after which a member's OLTs go to the others.
    pub fn takeover_after(&self, status_interval: Duration) -> Duration {
        self.takeover_after.unwrap_or(status_interval * 2)
    }

    /// How recent a peer's last answer must be for it to count toward the quorum:
    /// [`QUORUM_HEARTBEATS`] heartbeats, at least [`QUORUM_WINDOW_FLOOR`], and never
    /// longer than [`Self::takeover_after`] (a peer that owns nothing counts for nothing).
    pub fn quorum_window(&self, status_interval: Duration) -> Duration {
        (self.heartbeat * QUORUM_HEARTBEATS)
            .max(QUORUM_WINDOW_FLOOR)
            .min(self.takeover_after(status_interval))
    }

    /// What is wrong with the section, if anything: names repeated or empty, too many
    /// members, an id block past the last.
    pub fn check(&self) -> Result<(), String> {
        let names = self.member_names();
        if names.iter().any(|n| n.trim().is_empty()) {
            return Err("[cluster]: every member needs a name".into());
        }
        if names.windows(2).any(|w| w[0] == w[1]) {
            return Err(format!(
                "[cluster]: member names must differ: {}",
                names.join(", ")
            ));
        }
        if names.len() > MAX_MEMBERS {
            return Err(format!(
                "[cluster]: at most {MAX_MEMBERS} members, not {}",
                names.len()
            ));
        }
        if usize::from(self.id_block()) >= MAX_MEMBERS {
            return Err(format!(
                "[cluster]: id_block is 0 to {}, not {}",
                MAX_MEMBERS - 1,
                self.id_block()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(name: &str, peers: &[&str]) -> ClusterConfig {
        ClusterConfig {
            name: name.into(),
            listen: "127.0.0.1:4697".parse().expect("address"),
            peers: peers
                .iter()
                .map(|p| Peer {
                    name: (*p).into(),
                    address: "127.0.0.1:4698".parse().expect("address"),
                })
                .collect(),
            cookie_env: "COOKIE".into(),
            tls: None,
            insecure: true,
            handshake_timeout: default_handshake_timeout(),
            max_handshakes: 16,
            heartbeat: default_heartbeat(),
            takeover_after: None,
            id_block: None,
        }
    }

    #[test]
    fn the_id_block_is_the_place_among_names_unless_given() {
        assert_eq!(config("b", &["c", "a"]).id_block(), 1);
        assert_eq!(config("a", &["c", "b"]).id_block(), 0);
        let mut given = config("a", &["b"]);
        given.id_block = Some(7);
        assert_eq!(given.id_block(), 7);
    }

    #[test]
    fn repeated_names_and_blocks_past_the_last_are_refused() {
        assert!(config("a", &["b", "c"]).check().is_ok());
        assert!(config("a", &["a"]).check().is_err());
        assert!(config("a", &[" "]).check().is_err());
        let mut far = config("a", &[]);
        far.id_block = Some(MAX_MEMBERS as u16);
        assert!(far.check().is_err());
    }

    #[test]
    fn the_quorum_window_is_a_few_heartbeats_not_the_takeover() {
        let mut c = config("a", &["b"]);
        let status = Duration::from_secs(60);
        assert_eq!(c.quorum_window(status), Duration::from_secs(3));
        c.heartbeat = Duration::from_millis(200);
        assert_eq!(c.quorum_window(status), QUORUM_WINDOW_FLOOR);
        c.heartbeat = Duration::from_secs(10);
        c.takeover_after = Some(Duration::from_secs(20));
        assert_eq!(c.quorum_window(status), Duration::from_secs(20));
    }

    #[test]
    fn takeover_defaults_to_two_status_intervals() {
        let c = config("a", &[]);
        assert_eq!(
            c.takeover_after(Duration::from_secs(60)),
            Duration::from_secs(120)
        );
    }
}
