//! ponkeeper over several processes (docs/scale-out.md): `[cluster]` joins this `serve`
//! to its peers with ractor_cluster (a `NodeServer` behind the gate on `listen`, the
//! cookie from an environment variable), and one member actor per process, in the
//! process group [`GROUP`], carries what crosses the link:
//!
//! - heartbeats ([`members`]): each member tells the others its name, whether it has
//!   polled its OLTs, and how many it runs; from them each member knows who is live, and
//!   runs the OLTs the rendezvous hash gives it ([`ownership`]);
//! - requests ([`forward`]): a question about one OLT or ONU, and every action, is
//!   answered by the member that runs it; a fleet-wide list is each member's share
//!   merged ([`merge`]); actions and every other write need a strict majority of the
//!   members heard within the quorum window, a few heartbeats ([`ownership`]);
//! - node counters, summed over every member for `GET /nodes`;
//! - questions about the records each member keeps ([`history`], [`questions`]): history
//!   points, config versions, ONU state changes, СЗО bindings and events, merged by the
//!   asker.
//!
//! A member that does not answer within [`ASK_TIMEOUT`] is left out of that answer and
//! logged; a member that goes away leaves the group when its link closes.

pub mod config;
mod gate;
pub mod history;
pub mod ids;
pub mod members;
pub mod merge;
pub mod ownership;
pub mod questions;
pub mod tls;
mod view;
pub mod wire;

pub use config::{ClusterConfig, Peer};
pub use view::{ClusterItem, MemberItem};

use anyhow::{bail, Context};
use ownership::Membership;
use ponkeeper_actors::domain::{NodeId, OltId};
use ponkeeper_actors::fleet_view::aggregate::NodeCounters;
use ponkeeper_actors::fleet_view::{FleetViewError, FleetViewHandle};
use ponkeeper_actors::inventory::Inventory;
use ractor::{Actor, ActorRef, RpcReplyPort};
use ractor_cluster::node::NodeConnectionMode;
use ractor_cluster::{NodeServer, NodeServerMessage, RactorClusterMessage};
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};

/// The process group every member's actor joins.
pub const GROUP: &str = "ponkeeper.fleet-members";

/// How long a remote member has to answer one question.
pub const ASK_TIMEOUT: Duration = Duration::from_secs(2);

/// How often a member missing peers tries to reach them.
const RECONNECT_EVERY: Duration = Duration::from_secs(1);

/// Node ids one question may carry (a page of `GET /nodes` holds at most `max_size`).
const MAX_NODES_ASKED: usize = 10_000;

/// The largest message a member takes from another once authenticated: a forwarded
/// page of the largest size is a few hundred kilobytes of JSON.
const MAX_FRAME_BYTES: u64 = 4 * 1024 * 1024;

/// Questions one member asks another. The derive gives each variant its wire form; the
/// payloads are JSON text.
#[derive(RactorClusterMessage)]
pub enum MemberMsg {
    /// Node ids (a JSON array) → their counters on this member (a JSON array of
    /// `[olt_count, onu_total, onu_online]`, in the same order).
    #[rpc]
    NodeCounters(String, RpcReplyPort<String>),
    /// The asker's [`members::Status`] → this member's.
    #[rpc]
    Status(String, RpcReplyPort<String>),
    /// A [`forward::WireRequest`] → the [`forward::WireResponse`] this member's API gives.
    #[rpc]
    Http(String, RpcReplyPort<String>),
    /// An [`ids::IdsAsked`] → this member's ONU id assignments in it.
    #[rpc]
    Ids(String, RpcReplyPort<String>),
    /// A [`questions::Question`] → this member's records it asks for.
    #[rpc]
    Ask(String, RpcReplyPort<String>),
}

/// This member's counters for the node ids in `ids` (JSON); an empty array when the
/// question is malformed or the view is down, which the asker reads as "nothing here".
pub(crate) async fn local_answer(view: &FleetViewHandle, ids: &str) -> String {
    let ids: Vec<NodeId> = match serde_json::from_str(ids) {
        Ok(ids) => ids,
        Err(_) => return "[]".into(),
    };
    if ids.len() > MAX_NODES_ASKED {
        return "[]".into();
    }
    let counters = view.node_counters(ids).await.unwrap_or_default();
    let rows: Vec<(u32, u64, u64)> = counters
        .iter()
        .map(|c| (c.olt_count, c.onu_total, c.onu_online))
        .collect();
    serde_json::to_string(&rows).unwrap_or_else(|_| "[]".into())
}

/// What the member actor, the heartbeat task and the request router share.
pub(crate) struct ClusterShared {
    config: ClusterConfig,
    membership: Mutex<Membership>,
    /// Whether every OLT this member runs has finished a poll since it began running it.
    ready: AtomicBool,
    /// How many OLT actors this member runs.
    olts: AtomicUsize,
    /// The other members' actors by name, as their heartbeat answers named them.
    by_name: Mutex<HashMap<String, ActorRef<MemberMsg>>>,
    /// This process's REST surface, for the shares of merged lists; dropped at stop (it
    /// holds the state that holds this).
    rest: Mutex<Option<axum::Router>>,
    /// Set by [`Cluster::stop`]: the heartbeat and the id copy end.
    stopped: AtomicBool,
}

impl ClusterShared {
    pub(crate) fn config(&self) -> &ClusterConfig {
        &self.config
    }

    pub(crate) fn membership(&self) -> MutexGuard<'_, Membership> {
        self.membership
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// This process's REST surface, while the member runs.
    pub(crate) fn rest(&self) -> Option<axum::Router> {
        self.rest
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub(crate) fn set_rest(&self, rest: axum::Router) {
        *self.rest.lock().unwrap_or_else(PoisonError::into_inner) = Some(rest);
    }

    /// Whether [`Cluster::stop`] ran: the member's loops end.
    pub(crate) fn stopped(&self) -> bool {
        self.stopped.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Says whether every OLT this member runs has polled, and how many it runs.
    pub(crate) fn set_progress(&self, ready: bool, olts: usize) {
        self.ready
            .store(ready, std::sync::atomic::Ordering::Release);
        self.olts.store(olts, std::sync::atomic::Ordering::Release);
    }

    /// The member actor of the peer `name`, as its heartbeat answer named it.
    pub(crate) fn remember(&self, name: String, member: ActorRef<MemberMsg>) {
        self.by_name
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(name, member);
    }
}

/// The actor of the member named `name`, when its heartbeat has answered and its link is
/// still in the group.
pub(crate) fn remote_member(shared: &ClusterShared, name: &str) -> Option<ActorRef<MemberMsg>> {
    let member = shared
        .by_name
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(name)
        .cloned()?;
    let in_group = ractor::pg::get_members(&GROUP.to_string())
        .iter()
        .any(|cell| cell.get_id() == member.get_id());
    in_group.then_some(member)
}

/// The cluster side of this process: nothing without `[cluster]`; with it, the membership
/// from the start, and the links once [`crate::member::start`] ran.
#[derive(Default)]
pub struct Cluster {
    shared: Option<Arc<ClusterShared>>,
    running: OnceLock<Running>,
}

struct Running {
    server: ActorRef<NodeServerMessage>,
    member: ActorRef<MemberMsg>,
}

impl Cluster {
    /// The membership of `config` (`None`: no cluster), with its silences measured
    /// against `status_interval`; refused when the section is not consistent.
    pub fn new(config: Option<&ClusterConfig>, status_interval: Duration) -> anyhow::Result<Self> {
        let Some(config) = config else {
            return Ok(Cluster::default());
        };
        config.check().map_err(anyhow::Error::msg)?;
        let membership = Membership::new(
            &config.name,
            config.peers.iter().map(|p| p.name.clone()),
            (
                config.takeover_after(status_interval),
                config.quorum_window(status_interval),
            ),
        );
        Ok(Cluster {
            shared: Some(Arc::new(ClusterShared {
                config: config.clone(),
                membership: Mutex::new(membership),
                ready: AtomicBool::new(false),
                olts: AtomicUsize::new(0),
                by_name: Mutex::new(HashMap::new()),
                rest: Mutex::new(None),
                stopped: AtomicBool::new(false),
            })),
            running: OnceLock::new(),
        })
    }

    /// This member's name, when the process is one.
    pub fn name(&self) -> Option<&str> {
        self.shared.as_ref().map(|s| s.config.name.as_str())
    }

    /// The id block this member allocates new ids in (0 without a cluster).
    pub fn id_block(&self) -> u16 {
        self.shared.as_ref().map_or(0, |s| s.config.id_block())
    }

    /// The part of `inventory` this member runs now: all of it without a cluster; else
    /// the OLTs the hash gives it, and those of `running` still to hand over.
    pub fn share(&self, inventory: &Inventory, running: &BTreeSet<OltId>) -> Inventory {
        let mut share = inventory.clone();
        if self.shared.is_some() {
            let keep = self.wanted(inventory, running);
            share.olts.retain(|o| keep.contains(&o.id));
        }
        share
    }

    /// The ids of [`Cluster::share`], without copying the inventory.
    pub fn wanted(&self, inventory: &Inventory, running: &BTreeSet<OltId>) -> BTreeSet<OltId> {
        let ids = inventory.olts.iter().map(|o| o.id);
        match &self.shared {
            None => ids.collect(),
            Some(shared) => shared.membership().to_run(ids, running, Instant::now()),
        }
    }

    /// Whether the links run ([`crate::member::start`] ran and [`Cluster::stop`] did not).
    pub fn is_running(&self) -> bool {
        self.running.get().is_some() && self.shared.as_ref().is_some_and(|s| s.rest().is_some())
    }

    /// What requests need of the membership, when this process is a member.
    pub(crate) fn shared(&self) -> Option<&Arc<ClusterShared>> {
        self.shared.as_ref()
    }

    /// Opens the cluster port: checks the cookie and TLS, starts ractor_cluster's node
    /// server behind the gate on `listen`, and the task that keeps the peers connected.
    /// `None` without `[cluster]`. [`crate::member::start`] then starts the member.
    pub async fn open_port(&self) -> anyhow::Result<Option<ActorRef<NodeServerMessage>>> {
        let Some(shared) = &self.shared else {
            return Ok(None);
        };
        let config = &shared.config;
        let cookie = std::env::var(&config.cookie_env).unwrap_or_default();
        if cookie.len() < 16 {
            bail!(
                "[cluster] needs a shared cookie of at least 16 characters in ${}",
                config.cookie_env
            );
        }
        let tls = match &config.tls {
            Some(files) => Some(tls::MemberTls::load(files).context("[cluster.tls]")?),
            None if config.insecure => None,
            None => bail!(
                "[cluster]: the link between members is not encrypted; give [cluster.tls] \
                 (cert, key, ca), or set `insecure = true` to run it anyway, with `listen` \
                 on a network only the members reach"
            ),
        };
        let listener = tokio::net::TcpListener::bind(config.listen)
            .await
            .with_context(|| format!("[cluster]: cannot listen on {}", config.listen))?;
        // The node server's own listener only on this host's loopback, on a port of its
        // own: the members reach it through the gate on `listen`.
        let server = NodeServer::new(
            0,
            cookie,
            config.name.clone(),
            config.listen.to_string(),
            None,
            Some(NodeConnectionMode::Isolated),
        )
        .with_listen_addr(std::net::Ipv4Addr::LOCALHOST.into())
        .with_max_inbound_frame_size(MAX_FRAME_BYTES);
        let (server, _) = Actor::spawn(None, server, ())
            .await
            .context("cannot start the cluster's node server")?;
        let limits = gate::GateLimits {
            max_handshakes: config.max_handshakes.max(1),
            handshake_timeout: config.handshake_timeout,
        };
        let members = gate::Members(config.peers.iter().map(|p| p.address.ip()).collect());
        let acceptor = tls.as_ref().map(|t| t.acceptor.clone());
        tokio::spawn(gate::serve(
            listener,
            server.clone(),
            limits,
            (members, acceptor),
        ));
        let link = Link {
            peers: config.peers.clone(),
            tls,
            timeout: config.handshake_timeout,
        };
        tokio::spawn(keep_connected(server.clone(), link));
        Ok(Some(server))
    }

    /// Records the running node server and member actor: from here on requests are
    /// routed across members ([`Cluster::is_running`]).
    pub fn set_running(&self, server: ActorRef<NodeServerMessage>, member: ActorRef<MemberMsg>) {
        let _ = self.running.set(Running { server, member });
    }

    /// Stops the member and the node server (its links close, so peers drop this member).
    pub fn stop(&self) {
        if let Some(running) = self.running.get() {
            running.member.stop(None);
            running.server.stop(None);
        }
        if let Some(shared) = &self.shared {
            shared
                .rest
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
        }
    }

    /// The counters of `nodes` on this member plus every other member that answers.
    pub async fn node_counters(
        &self,
        view: &FleetViewHandle,
        nodes: Vec<NodeId>,
    ) -> Result<Vec<NodeCounters>, FleetViewError> {
        let mut counters = view.node_counters(nodes.clone()).await?;
        if self.running.get().is_some() {
            for remote in remote_counters(&nodes).await {
                for (sum, add) in counters.iter_mut().zip(remote) {
                    sum.olt_count += add.olt_count;
                    sum.onu_total += add.onu_total;
                    sum.onu_online += add.onu_online;
                }
            }
        }
        Ok(counters)
    }
}

/// The other members' actors, as the process group knows them now.
pub(crate) fn remote_members() -> Vec<ActorRef<MemberMsg>> {
    ractor::pg::get_members(&GROUP.to_string())
        .into_iter()
        .filter(|cell| !cell.get_id().is_local())
        .map(ActorRef::from)
        .collect()
}

/// Each other member's counters of `nodes`, asked all at once.
async fn remote_counters(nodes: &[NodeId]) -> Vec<Vec<NodeCounters>> {
    let question = serde_json::to_string(nodes).unwrap_or_else(|_| "[]".into());
    let asks = remote_members().into_iter().map(|member| {
        let question = question.clone();
        async move {
            let id = member.get_id();
            let answer = member
                .call(
                    |reply| MemberMsg::NodeCounters(question, reply),
                    Some(ASK_TIMEOUT),
                )
                .await;
            match answer {
                Ok(ractor::rpc::CallResult::Success(text)) => parse_answer(&text, nodes.len()),
                other => {
                    let outcome = match other {
                        Ok(ractor::rpc::CallResult::Timeout) => "no answer in time".to_string(),
                        Ok(_) => "the link closed".to_string(),
                        Err(e) => e.to_string(),
                    };
                    tracing::warn!(member = %id, %outcome, "a cluster member's node counters are left out");
                    None
                }
            }
        }
    });
    futures::future::join_all(asks)
        .await
        .into_iter()
        .flatten()
        .collect()
}

/// A member's answer, when it has one row per node asked.
fn parse_answer(text: &str, nodes: usize) -> Option<Vec<NodeCounters>> {
    let rows: Vec<(u32, u64, u64)> = serde_json::from_str(text).ok()?;
    (rows.len() == nodes).then(|| {
        rows.into_iter()
            .map(|(olt_count, onu_total, onu_online)| NodeCounters {
                olt_count,
                onu_total,
                onu_online,
            })
            .collect()
    })
}

/// How this member reaches its peers.
struct Link {
    peers: Vec<Peer>,
    tls: Option<tls::MemberTls>,
    timeout: Duration,
}

/// Connects to the peers while fewer sessions are open than peers are configured: a
/// member that starts first waits for the others, and one that lost a peer reaches it
/// again when it is back. Over TLS when configured; a peer whose certificate does not
/// pass is logged and tried again.
async fn keep_connected(server: ActorRef<NodeServerMessage>, link: Link) {
    let mut tick = tokio::time::interval(RECONNECT_EVERY);
    loop {
        tick.tick().await;
        let sessions = match server
            .call(NodeServerMessage::GetSessions, Some(ASK_TIMEOUT))
            .await
        {
            Ok(ractor::rpc::CallResult::Success(sessions)) => sessions,
            Ok(_) => continue,
            Err(_) => return, // the node server stopped
        };
        if sessions.len() >= link.peers.len() {
            continue;
        }
        for peer in &link.peers {
            let address = peer.address.to_string();
            if sessions.values().any(|s| s.peer_addr == address) {
                continue;
            }
            let connected = match &link.tls {
                None => ractor_cluster::client_connect(&server, peer.address)
                    .await
                    .map_err(|e| e.to_string()),
                Some(tls) => match tls.connect(&peer.name, peer.address, link.timeout).await {
                    Ok(stream) => {
                        ractor_cluster::client_connect_external(&server, Box::new(stream))
                            .await
                            .map_err(|e| e.to_string())
                    }
                    Err(e) => Err(format!("{e:#}")),
                },
            };
            if let Err(error) = connected {
                tracing::debug!(peer = %peer.name, %address, %error, "cluster peer not reachable yet");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_with_a_row_per_node_or_nothing() {
        let rows = parse_answer("[[2,256,250],[0,0,0]]", 2).expect("two rows");
        assert_eq!(
            rows[0],
            NodeCounters {
                olt_count: 2,
                onu_total: 256,
                onu_online: 250
            }
        );
        assert_eq!(rows[1], NodeCounters::default());
        assert!(parse_answer("[[2,256,250]]", 2).is_none(), "a row short");
        assert!(parse_answer("not json", 1).is_none());
    }
}
