//! ponkeeper over several processes, the first step of docs/scale-out.md: `[cluster]`
//! joins this `serve` to its peers with ractor_cluster (a `NodeServer` on `listen`, the
//! peers' cookie from an environment variable), and a member actor, one per process in
//! the process group [`GROUP`], answers the fleet view's node counters over the link.
//! `GET /nodes` and `GET /nodes/{id}` add every other member's counters to this one's:
//! each process polls its own share of the OLTs (its inventory) and the node list counts
//! them all. A member that does not answer within [`ASK_TIMEOUT`] is left out of that
//! answer and logged; a member that goes away leaves the group when its link closes.
//! Nothing else crosses the link yet: ONU lists, history and events stay per process.

mod gate;

use anyhow::{bail, Context};
use ponkeeper_actors::domain::NodeId;
use ponkeeper_actors::fleet_view::aggregate::NodeCounters;
use ponkeeper_actors::fleet_view::{FleetViewError, FleetViewHandle};
use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use ractor_cluster::node::NodeConnectionMode;
use ractor_cluster::{NodeServer, NodeServerMessage, RactorClusterMessage};
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::sync::OnceLock;
use std::time::Duration;

/// The process group every member's actor joins.
pub const GROUP: &str = "ponkeeper.fleet-members";

/// How long a remote member has to answer one question.
pub const ASK_TIMEOUT: Duration = Duration::from_secs(2);

/// How often a member missing peers tries to reach them.
const RECONNECT_EVERY: Duration = Duration::from_secs(1);

/// Node ids one question may carry (a page of `GET /nodes` holds at most `max_size`).
const MAX_NODES_ASKED: usize = 10_000;

/// The largest message a member takes from another once authenticated: the members'
/// questions and answers are a few kilobytes of JSON.
const MAX_FRAME_BYTES: u64 = 1024 * 1024;

/// `[cluster]`: this process's name among its peers, where it listens for them, where
/// they listen, the variable holding the cookie they share, and the limits of the port.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterConfig {
    pub name: String,
    pub listen: SocketAddr,
    #[serde(default)]
    pub peers: Vec<SocketAddr>,
    /// The variable holding the cookie (not one of `PONKEEPER_*`, which are settings).
    pub cookie_env: String,
    /// The link between members is not encrypted yet: a member starts only when the
    /// operator says so, with `listen` on a management network (docs/scale-out.md).
    #[serde(default)]
    pub insecure: bool,
    /// Time a connecting member has to pass the cookie challenge.
    #[serde(default = "default_handshake_timeout", with = "humantime_serde")]
    pub handshake_timeout: Duration,
    /// Connections that may be in their handshake at once; one more is closed at once.
    #[serde(default = "default_max_handshakes")]
    pub max_handshakes: usize,
}

fn default_handshake_timeout() -> Duration {
    Duration::from_secs(5)
}

fn default_max_handshakes() -> usize {
    16
}

/// Questions one member asks another. The derive gives each variant its wire form; the
/// payloads are JSON text.
#[derive(RactorClusterMessage)]
pub enum MemberMsg {
    /// Node ids (a JSON array) → their counters on this member (a JSON array of
    /// `[olt_count, onu_total, onu_online]`, in the same order).
    #[rpc]
    NodeCounters(String, RpcReplyPort<String>),
}

/// The member actor: answers from this process's fleet view.
struct Member;

impl Actor for Member {
    type Msg = MemberMsg;
    type State = FleetViewHandle;
    type Arguments = FleetViewHandle;

    async fn pre_start(
        &self,
        myself: ActorRef<MemberMsg>,
        view: FleetViewHandle,
    ) -> Result<FleetViewHandle, ActorProcessingErr> {
        ractor::pg::join(GROUP.to_string(), vec![myself.get_cell()]);
        Ok(view)
    }

    async fn handle(
        &self,
        _myself: ActorRef<MemberMsg>,
        message: MemberMsg,
        view: &mut FleetViewHandle,
    ) -> Result<(), ActorProcessingErr> {
        match message {
            MemberMsg::NodeCounters(ids, reply) => {
                // Answered from a task: the view's answer is awaited outside the handler.
                let view = view.clone();
                tokio::spawn(async move {
                    let _ = reply.send(local_answer(&view, &ids).await);
                });
            }
        }
        Ok(())
    }
}

/// This member's counters for the node ids in `ids` (JSON); an empty array when the
/// question is malformed or the view is down, which the asker reads as "nothing here".
async fn local_answer(view: &FleetViewHandle, ids: &str) -> String {
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

/// The running cluster side of this process, if `[cluster]` is configured.
#[derive(Default)]
pub struct Cluster {
    running: OnceLock<Running>,
}

struct Running {
    server: ActorRef<NodeServerMessage>,
    member: ActorRef<MemberMsg>,
}

impl Cluster {
    /// Starts the node server, the member actor and the task that keeps the peers
    /// connected. Nothing when `config` is `None`.
    pub async fn start(
        &self,
        config: Option<&ClusterConfig>,
        view: FleetViewHandle,
    ) -> anyhow::Result<()> {
        let Some(config) = config else {
            return Ok(());
        };
        let cookie = std::env::var(&config.cookie_env).unwrap_or_default();
        if cookie.len() < 16 {
            bail!(
                "[cluster] needs a shared cookie of at least 16 characters in ${}",
                config.cookie_env
            );
        }
        if !config.insecure {
            bail!(
                "[cluster]: the link between members is not encrypted; set `insecure = true` \
                 to run it anyway, with `listen` on a network only the members reach"
            );
        }
        let listener = tokio::net::TcpListener::bind(config.listen)
            .await
            .with_context(|| format!("[cluster]: cannot listen on {}", config.listen))?;
        // The node server's own listener only on this host's loopback, on a port of its
        // own: the members reach it through the gate on `listen`. Its name carries
        // `listen` whole, which is how the members tell each other apart.
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
        let members = gate::Members(config.peers.iter().map(|peer| peer.ip()).collect());
        tokio::spawn(gate::serve(listener, server.clone(), limits, members));
        let (member, _) = Actor::spawn(None, Member, view)
            .await
            .context("cannot start the cluster member")?;
        tokio::spawn(keep_connected(server.clone(), config.peers.clone()));
        tracing::info!(name = %config.name, listen = %config.listen, peers = ?config.peers, "cluster member started");
        let _ = self.running.set(Running { server, member });
        Ok(())
    }

    /// Stops the member and the node server (its links close, so peers drop this member).
    pub fn stop(&self) {
        if let Some(running) = self.running.get() {
            running.member.stop(None);
            running.server.stop(None);
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

/// Each other member's counters of `nodes`, asked all at once.
async fn remote_counters(nodes: &[NodeId]) -> Vec<Vec<NodeCounters>> {
    let question = serde_json::to_string(nodes).unwrap_or_else(|_| "[]".into());
    let members: Vec<ActorRef<MemberMsg>> = ractor::pg::get_members(&GROUP.to_string())
        .into_iter()
        .filter(|cell| !cell.get_id().is_local())
        .map(ActorRef::from)
        .collect();
    let asks = members.into_iter().map(|member| {
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

/// Connects to the peers while fewer sessions are open than peers are configured: a
/// member that starts first waits for the others, and one that lost a peer reaches it
/// again when it is back.
async fn keep_connected(server: ActorRef<NodeServerMessage>, peers: Vec<SocketAddr>) {
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
        if sessions.len() >= peers.len() {
            continue;
        }
        for peer in &peers {
            let known = sessions.values().any(|s| s.peer_addr == peer.to_string());
            if !known {
                if let Err(e) = ractor_cluster::client_connect(&server, *peer).await {
                    tracing::debug!(%peer, error = %e, "cluster peer not reachable yet");
                }
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
