//! The cluster port as a member serves it: this listener accepts the other members'
//! connections and hands each to ractor_cluster's node server as an external stream, so
//! that nothing reaches the node server before these limits (docs/production.md,
//! "The cluster port"):
//!
//! - at most `max_handshakes` connections may be in their handshake at once, and one
//!   address at most a quarter of them (at least one); one past either is closed at once.
//!   Connections from the configured peers' addresses are not held to these, so clients
//!   that keep the slots full cannot keep the members from joining;
//! - a connection must authenticate (the cookie challenge) within `handshake_timeout`,
//!   and may send at most [`HANDSHAKE_BYTES`] before it has: a length prefix of 16 MiB
//!   and the bytes behind it end the connection, they are never buffered;
//! - a failed accept (out of descriptors) pauses accepting, longer each time up to a
//!   second, and is logged at most once per [`LOG_EVERY`].
//!
//! The node server tells the gate when a session authenticates (a subscription to its
//! events, by the peer label the stream carries); from then on the connection is a
//! member's and only the node server's frame limit applies.

use ractor::ActorRef;
use ractor_cluster::node::NodeServerSessionInformation;
use ractor_cluster::{
    BoxRead, BoxWrite, ClusterBidiStream, NodeEventSubscription, NodeServerMessage,
};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, ReadBuf};
use tokio::net::TcpListener;
use tokio::time::{Instant, Sleep};
use tokio_rustls::TlsAcceptor;

/// What a connection may send before it has authenticated: the handshake's messages (a
/// name, a client status, a challenge reply) are a few hundred bytes.
pub const HANDSHAKE_BYTES: u64 = 64 * 1024;

/// A failed accept is logged at most this often.
const LOG_EVERY: Duration = Duration::from_secs(10);

/// The limits of the cluster port.
#[derive(Debug, Clone, Copy)]
pub struct GateLimits {
    pub max_handshakes: usize,
    pub handshake_timeout: Duration,
}

/// Who may always begin a handshake: the addresses of the configured peers.
#[derive(Debug, Clone, Default)]
pub struct Members(pub Vec<std::net::IpAddr>);

impl GateLimits {
    /// Handshake slots one address may hold.
    fn per_address(&self) -> usize {
        (self.max_handshakes / 4).max(1)
    }
}

/// The connections in their handshake, by the label their stream carries.
#[derive(Default)]
struct Handshakes(Mutex<HashMap<String, Arc<AtomicBool>>>);

impl Handshakes {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Arc<AtomicBool>>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The session with this label authenticated: its connection leaves the handshakes.
    fn authenticated(&self, label: &str) {
        if let Some(done) = self.lock().remove(label) {
            done.store(true, Ordering::Release);
        }
    }
}

/// The node server's events, as far as the gate cares.
struct Authentications(Arc<Handshakes>);

impl NodeEventSubscription for Authentications {
    fn node_session_opened(&self, _ses: NodeServerSessionInformation) {}

    fn node_session_disconnected(&self, ses: NodeServerSessionInformation) {
        self.0.lock().remove(&ses.peer_addr);
    }

    fn node_session_authenticated(&self, ses: NodeServerSessionInformation) {
        self.0.authenticated(&ses.peer_addr);
    }
}

/// Listens on `listener` for the other members until the node server stops; with `tls`,
/// each admitted connection completes its TLS handshake (within `handshake_timeout`)
/// before the node server sees it, and one that fails is logged and closed.
pub async fn serve(
    listener: TcpListener,
    server: ActorRef<NodeServerMessage>,
    limits: GateLimits,
    (members, tls): (Members, Option<TlsAcceptor>),
) {
    let handshakes = Arc::new(Handshakes::default());
    let subscribed = server.cast(NodeServerMessage::SubscribeToEvents {
        id: "ponkeeper.cluster-gate".into(),
        subscription: Box::new(Authentications(handshakes.clone())),
    });
    if subscribed.is_err() {
        return;
    }
    let mut pause = Duration::ZERO;
    let mut last_logged: Option<Instant> = None;
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => {
                pause = Duration::ZERO;
                accepted
            }
            Err(error) => {
                pause = (pause * 2).clamp(Duration::from_millis(10), Duration::from_secs(1));
                if last_logged.is_none_or(|at| at.elapsed() >= LOG_EVERY) {
                    tracing::error!(%error, ?pause, "cluster port: cannot accept; pausing");
                    last_logged = Some(Instant::now());
                }
                tokio::time::sleep(pause).await;
                continue;
            }
        };
        let label = peer.to_string();
        let done = Arc::new(AtomicBool::new(false));
        {
            let mut pending = handshakes.lock();
            let member = members.0.contains(&peer.ip());
            let from_address = pending
                .keys()
                .filter(|label| {
                    label
                        .parse::<std::net::SocketAddr>()
                        .is_ok_and(|a| a.ip() == peer.ip())
                })
                .count();
            let full =
                pending.len() >= limits.max_handshakes || from_address >= limits.per_address();
            if full && !member {
                drop(pending);
                metrics::counter!("ponkeeper_cluster_connections_refused_total").increment(1);
                continue; // dropped: closed unanswered
            }
            pending.insert(label.clone(), done.clone());
        }
        let gated = Gated {
            read: Box::new(tokio::io::empty()),
            write: Box::new(tokio::io::sink()),
            local: stream.local_addr().ok().map(|a| a.to_string()),
            label,
            done,
            handshakes: handshakes.clone(),
            timeout: limits.handshake_timeout,
        };
        match &tls {
            None => {
                let (read, write) = stream.into_split();
                if !open(&server, gated.with(Box::new(read), Box::new(write))) {
                    return; // the node server stopped
                }
            }
            Some(acceptor) => {
                tokio::spawn(open_tls(acceptor.clone(), stream, server.clone(), gated));
            }
        }
    }
}

/// Completes the TLS handshake of an admitted connection within its handshake timeout,
/// then hands it to the node server; a failed one is logged, counted and closed.
async fn open_tls(
    acceptor: TlsAcceptor,
    stream: tokio::net::TcpStream,
    server: ActorRef<NodeServerMessage>,
    gated: Gated,
) {
    match tokio::time::timeout(gated.timeout, acceptor.accept(stream)).await {
        Ok(Ok(tls)) => {
            let (read, write) = tokio::io::split(tls);
            open(&server, gated.with(Box::new(read), Box::new(write)));
        }
        failed => {
            let why = match failed {
                Ok(Err(error)) => error.to_string(),
                _ => "no TLS handshake within the handshake timeout".into(),
            };
            metrics::counter!("ponkeeper_cluster_connections_refused_total").increment(1);
            tracing::warn!(peer = %gated.label, %why, "cluster port: TLS refused");
            gated.handshakes.lock().remove(&gated.label);
        }
    }
}

/// Hands `gated` to the node server; `false` when the node server has stopped.
fn open(server: &ActorRef<NodeServerMessage>, gated: Gated) -> bool {
    server
        .cast(NodeServerMessage::ConnectionOpenedExternal {
            stream: Box::new(gated),
            is_server: true,
        })
        .is_ok()
}

/// An accepted connection on its way to the node server: its halves (over TLS or not).
struct Gated {
    read: BoxRead,
    write: BoxWrite,
    local: Option<String>,
    label: String,
    done: Arc<AtomicBool>,
    handshakes: Arc<Handshakes>,
    timeout: Duration,
}

impl Gated {
    fn with(self, read: BoxRead, write: BoxWrite) -> Gated {
        Gated {
            read,
            write,
            ..self
        }
    }
}

impl ClusterBidiStream for Gated {
    fn split(self: Box<Self>) -> (BoxRead, BoxWrite) {
        let reader = Handshaking {
            read: self.read,
            done: self.done,
            read_so_far: 0,
            deadline: Box::pin(tokio::time::sleep(self.timeout)),
            label: self.label,
            handshakes: self.handshakes,
        };
        (Box::new(reader), self.write)
    }

    fn peer_label(&self) -> Option<String> {
        Some(self.label.clone())
    }

    fn local_label(&self) -> Option<String> {
        self.local.clone()
    }
}

/// The read half until the session authenticates: fails past the deadline or the byte
/// budget, which ends the session and closes the connection.
struct Handshaking {
    read: BoxRead,
    done: Arc<AtomicBool>,
    read_so_far: u64,
    deadline: Pin<Box<Sleep>>,
    label: String,
    handshakes: Arc<Handshakes>,
}

impl Drop for Handshaking {
    fn drop(&mut self) {
        self.handshakes.lock().remove(&self.label);
    }
}

fn refused(why: &'static str) -> Poll<std::io::Result<()>> {
    Poll::Ready(Err(std::io::Error::new(
        std::io::ErrorKind::PermissionDenied,
        why,
    )))
}

impl AsyncRead for Handshaking {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        if this.done.load(Ordering::Acquire) {
            return Pin::new(&mut this.read).poll_read(cx, buf);
        }
        if this.deadline.as_mut().poll(cx).is_ready() {
            return refused("no authentication within the cluster's handshake timeout");
        }
        // Never more than the handshake's budget into the node server's buffers.
        let room = (HANDSHAKE_BYTES - this.read_so_far).min(buf.remaining() as u64) as usize;
        if room == 0 {
            return refused("more than a handshake's bytes before authenticating");
        }
        let mut chunk = [0u8; 4096];
        let mut view = ReadBuf::new(&mut chunk[..room.min(4096)]);
        match Pin::new(&mut this.read).poll_read(cx, &mut view) {
            Poll::Ready(Ok(())) => {
                buf.put_slice(view.filled());
                this.read_so_far += view.filled().len() as u64;
                Poll::Ready(Ok(()))
            }
            other => other,
        }
    }
}
