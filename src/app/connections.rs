//! The HTTP listener [`super::App::serve`] runs: an accept loop over hyper's HTTP/1
//! connections (what `axum::serve` ran before, which has no timeouts to set) that bounds
//! what a client can hold without using it, per `[http]` of the configuration:
//!
//! - at most `max_connections` connections are served at once; further ones wait in the
//!   kernel's accept queue until one closes;
//! - a connection must deliver a request's whole head within `header_read_timeout` —
//!   counted from connecting for its first request, from the request's first byte for the
//!   next ones — or it is closed without an answer;
//! - a keep-alive connection with no request in flight is closed after `idle_timeout`.
//!
//! A request in flight (its handler running, or its answer still being sent) is never
//! timed out here; its body has its own limit ([`crate::body`]). Every request carries its
//! peer as `ConnectInfo<SocketAddr>`, as `axum::serve` gave it. On shutdown the loop stops
//! accepting, asks each connection to close after its request in flight, and returns when
//! all have; dropping the loop (the caller's last resort) drops every connection with it.

use crate::config::Http;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::Router;
use http_body_util::BodyExt;
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::{pin, Pin};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;
use tokio::time::Instant;
use tower::ServiceExt;

/// Serves `router` on `listener` until `stop` resolves, then until every connection has
/// finished its request in flight.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Http,
    stop: impl std::future::Future<Output = ()>,
) {
    let permits = Arc::new(Semaphore::new(limits.max_connections as usize));
    let (closing, closing_seen) = watch::channel(false);
    let mut connections = JoinSet::new();
    let mut stop = pin!(stop);
    loop {
        let permit = tokio::select! {
            permit = permits.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
            Some(_) = connections.join_next() => continue,
            () = &mut stop => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    accept_failed(error).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let connection = Connection {
            router: router.clone(),
            peer,
            limits,
            closing: closing_seen.clone(),
            _permit: permit,
        };
        connections.spawn(connection.run(stream));
    }
    let _ = closing.send(true);
    while connections.join_next().await.is_some() {}
}

/// An accept that failed: a connection that went away before it was accepted is nothing;
/// anything else (out of file descriptors) is logged and the loop pauses a second, so it
/// does not spin.
async fn accept_failed(error: std::io::Error) {
    use std::io::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::ConnectionRefused | ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
    ) {
        return;
    }
    tracing::error!(%error, "cannot accept a connection; pausing accepts for 1 s");
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
}

/// One accepted connection and what it is served with.
struct Connection {
    router: Router,
    peer: SocketAddr,
    limits: Http,
    closing: watch::Receiver<bool>,
    /// Its place among `max_connections`, given back when it closes.
    _permit: OwnedSemaphorePermit,
}

impl Connection {
    async fn run(mut self, stream: TcpStream) {
        let activity = Arc::new(Activity::new());
        let io = TokioIo::new(Watched {
            stream,
            activity: activity.clone(),
        });
        let (router, peer) = (self.router.clone(), self.peer);
        let service_activity = activity.clone();
        let service = hyper::service::service_fn(move |request| {
            answer(router.clone(), peer, service_activity.clone(), request)
        });
        let mut conn = pin!(hyper::server::conn::http1::Builder::new()
            .serve_connection(io, service)
            .with_upgrades());
        let mut asked_to_close = false;
        loop {
            tokio::select! {
                result = conn.as_mut() => {
                    if let Err(error) = result {
                        tracing::trace!(%error, peer = %self.peer, "connection ended");
                    }
                    return;
                }
                _ = self.closing.changed(), if !asked_to_close => {
                    asked_to_close = true;
                    conn.as_mut().graceful_shutdown();
                }
                () = activity.expired(self.limits) => {
                    tracing::debug!(peer = %self.peer, "closing a connection idle or slow past its timeout");
                    return;
                }
            }
        }
    }
}

/// Runs one request through the router, with its peer as `ConnectInfo`; the connection
/// counts it in flight until its answer's body has been sent (or dropped).
async fn answer(
    router: Router,
    peer: SocketAddr,
    activity: Arc<Activity>,
    mut request: http::Request<hyper::body::Incoming>,
) -> Result<http::Response<Body>, Infallible> {
    let in_flight = activity.request_started();
    request.extensions_mut().insert(ConnectInfo(peer));
    let response = match router.oneshot(request.map(Body::new)).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    Ok(response.map(move |body| {
        Body::new(body.map_frame(move |frame| {
            let _sending = &in_flight;
            frame
        }))
    }))
}

/// What a connection is doing, for its timeouts.
struct Activity {
    state: Mutex<ActivityState>,
}

struct ActivityState {
    accepted: Instant,
    /// Requests whose answer is not sent yet.
    in_flight: usize,
    /// Requests answered.
    served: u64,
    /// Since when nothing is in flight.
    idle_since: Instant,
    /// When the first byte of the next request's head came.
    head_started: Option<Instant>,
}

impl Activity {
    fn new() -> Activity {
        let now = Instant::now();
        Activity {
            state: Mutex::new(ActivityState {
                accepted: now,
                in_flight: 0,
                served: 0,
                idle_since: now,
                head_started: None,
            }),
        }
    }

    fn with<T>(&self, f: impl FnOnce(&mut ActivityState) -> T) -> T {
        match self.state.lock() {
            Ok(mut state) => f(&mut state),
            Err(poisoned) => f(&mut poisoned.into_inner()),
        }
    }

    /// Bytes came from the client: with nothing in flight, a request's head has begun.
    fn bytes_received(&self) {
        self.with(|s| {
            if s.in_flight == 0 && s.head_started.is_none() {
                s.head_started = Some(Instant::now());
            }
        });
    }

    /// A request's head was read; it is in flight until the returned guard is dropped.
    fn request_started(self: &Arc<Self>) -> InFlight {
        self.with(|s| {
            s.in_flight += 1;
            s.head_started = None;
        });
        InFlight(self.clone())
    }

    /// When the connection is past its timeout, if nothing is in flight.
    fn deadline(&self, limits: Http) -> Option<Instant> {
        self.with(|s| {
            if s.in_flight > 0 {
                None
            } else if s.served == 0 {
                Some(s.accepted + limits.header_read_timeout)
            } else if let Some(started) = s.head_started {
                Some(started + limits.header_read_timeout)
            } else {
                Some(s.idle_since + limits.idle_timeout)
            }
        })
    }

    /// Resolves once the connection is past its timeout.
    async fn expired(&self, limits: Http) {
        let recheck = std::time::Duration::from_secs(1);
        loop {
            let now = Instant::now();
            match self.deadline(limits) {
                Some(deadline) if deadline <= now => return,
                Some(deadline) => tokio::time::sleep_until(deadline.min(now + recheck)).await,
                None => tokio::time::sleep(recheck).await,
            }
        }
    }
}

/// A request in flight on its connection.
struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.with(|s| {
            s.in_flight = s.in_flight.saturating_sub(1);
            s.served += 1;
            s.idle_since = Instant::now();
        });
    }
}

/// The connection's socket, telling its [`Activity`] when bytes arrive.
struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.bytes_received();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}
