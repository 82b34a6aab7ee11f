//! The HTTP listener [`super::App::serve`] runs: an accept loop over hyper's HTTP/1
//! connections (what `axum::serve` ran before, which has no timeouts to set) that bounds
//! what a client can hold without using it, per `[http]` of the configuration:
//!
//! - at most `max_connections` connections are served at once; further ones wait in the
//!   kernel's accept queue until one closes; one client's, and those that presented no
//!   valid key, are bounded further ([`super::admission`]);
//! - a connection must deliver a request's whole head within `header_read_timeout` —
//!   counted from connecting for its first request, from the request's first byte for the
//!   next ones — or it is closed without an answer;
//! - a keep-alive connection with no request in flight is closed after `idle_timeout`;
//! - a request's head may take at most [`MAX_HEAD_BYTES`] (431 past it), which bounds
//!   what a connection's read buffer grows to.
//!
//! A request in flight (its handler running, or its answer still being sent) is never
//! timed out here; its body has its own limit ([`crate::body`]). The deadlines are kept by
//! the connection's socket itself ([`Watched`]): hyper reads from it whenever it waits for
//! a head, and a read past the deadline fails, which ends the connection. No timer task
//! runs per connection. Every request carries its peer as `ConnectInfo<SocketAddr>`, as
//! `axum::serve` gave it. On shutdown the loop stops accepting, asks each connection to
//! close after its request in flight, and returns when all have; dropping the loop (the
//! caller's last resort) drops every connection with it.

use super::admission::{Admission, Admitted};
use crate::config::Http;
use crate::http::ConnectionProof;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::Router;
use http_body_util::BodyExt;
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::{pin, Pin};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;
use tokio::time::{Instant, Sleep};
use tower::ServiceExt;

/// The most a request's head (request line and headers) may take, and so what one
/// connection's read buffer may grow to while a head arrives: a head past it gets 431.
/// Queries and paths of 60 KB fit with room to spare; hyper's default (~400 KB) let 1,500
/// trickling heads hold a gigabyte.
pub const MAX_HEAD_BYTES: usize = 128 * 1024;

/// Serves `router` on `listener` until `stop` resolves, then until every connection has
/// finished its request in flight.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    (limits, trusted_proxies): (Http, Vec<ipnet::IpNet>),
    stop: impl std::future::Future<Output = ()>,
) {
    let permits = Arc::new(Semaphore::new(limits.max_connections as usize));
    let admission = Admission::new(&limits, trusted_proxies);
    let (closing, closing_seen) = watch::channel(false);
    let mut connections = JoinSet::new();
    let mut stop = pin!(stop);
    loop {
        // Finished connections leave the set before each accept, so it holds only the open
        // ones however the scheduler orders the branches below.
        while connections.try_join_next().is_some() {}
        let permit = tokio::select! {
            permit = permits.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
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
        // Past its client's share: closed unanswered, its place never taken.
        let Some(admitted) = admission.admit(peer) else {
            continue;
        };
        let connection = Connection {
            router: router.clone(),
            peer,
            limits,
            closing: closing_seen.clone(),
            admitted,
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
    /// Its place among its client's and the keyless connections, given back when it
    /// closes.
    admitted: Admitted,
    /// Its place among `max_connections`, given back when it closes.
    _permit: OwnedSemaphorePermit,
}

impl Connection {
    async fn run(mut self, stream: TcpStream) {
        let activity = Arc::new(Activity::new(self.limits));
        let io = TokioIo::new(Watched {
            stream,
            activity: activity.clone(),
            timer: Box::pin(tokio::time::sleep_until(Instant::now())),
        });
        let (router, peer, proof) = (self.router.clone(), self.peer, self.admitted.proof());
        let in_flight = activity.clone();
        let service = hyper::service::service_fn(move |request| {
            answer(
                router.clone(),
                (peer, proof.clone()),
                in_flight.clone(),
                request,
            )
        });
        let evicted = self.admitted.evicted.clone();
        let mut conn = pin!(hyper::server::conn::http1::Builder::new()
            .max_buf_size(MAX_HEAD_BYTES)
            .serve_connection(io, service));
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
                () = evicted.notified(), if !asked_to_close => {
                    // Made room for a newcomer: at once when idle, else after its answer.
                    if activity.idle() {
                        return;
                    }
                    asked_to_close = true;
                    conn.as_mut().graceful_shutdown();
                }
            }
        }
    }
}

/// Runs one request through the router, with its peer as `ConnectInfo`; the connection
/// counts it in flight until its answer's body has been sent (or dropped).
async fn answer(
    router: Router,
    (peer, proof): (SocketAddr, ConnectionProof),
    activity: Arc<Activity>,
    mut request: http::Request<hyper::body::Incoming>,
) -> Result<http::Response<Body>, Infallible> {
    let in_flight = activity.request_started();
    request.extensions_mut().insert(ConnectInfo(peer));
    request.extensions_mut().insert(proof);
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

/// What a connection is doing, for its deadlines; shared by its socket ([`Watched`]) and
/// its requests ([`InFlight`]).
struct Activity {
    limits: Http,
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
    /// The socket's reader, parked while a request was in flight: woken when the last one
    /// is answered, so the idle deadline starts to count.
    parked_reader: Option<Waker>,
}

impl Activity {
    fn new(limits: Http) -> Activity {
        let now = Instant::now();
        Activity {
            limits,
            state: Mutex::new(ActivityState {
                accepted: now,
                in_flight: 0,
                served: 0,
                idle_since: now,
                head_started: None,
                parked_reader: None,
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

    /// Whether nothing is in flight and no request's head has begun.
    fn idle(&self) -> bool {
        self.with(|s| s.in_flight == 0 && s.head_started.is_none())
    }

    /// A request's head was read; it is in flight until the returned guard is dropped.
    fn request_started(self: &Arc<Self>) -> InFlight {
        self.with(|s| {
            s.in_flight += 1;
            s.head_started = None;
        });
        InFlight(self.clone())
    }

    /// The connection's deadline as it stands, if nothing is in flight; with a request in
    /// flight, `None`, and `reader` is woken once the last one is answered.
    fn deadline(&self, reader: &Waker) -> Option<Instant> {
        let limits = self.limits;
        self.with(|s| {
            if s.in_flight > 0 {
                s.parked_reader = Some(reader.clone());
                None
            } else if let Some(started) = s.head_started {
                Some(started + limits.header_read_timeout)
            } else if s.served == 0 {
                Some(s.accepted + limits.header_read_timeout)
            } else {
                Some(s.idle_since + limits.idle_timeout)
            }
        })
    }
}

/// A request in flight on its connection.
struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        let reader = self.0.with(|s| {
            s.in_flight = s.in_flight.saturating_sub(1);
            s.served += 1;
            s.idle_since = Instant::now();
            if s.in_flight == 0 {
                s.parked_reader.take()
            } else {
                None
            }
        });
        if let Some(reader) = reader {
            reader.wake();
        }
    }
}

/// The connection's socket: tells its [`Activity`] when bytes arrive, and fails a read
/// that waits past the connection's deadline.
struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
    /// Set to the deadline each time a read has to wait.
    timer: Pin<Box<Sleep>>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let this = &mut *self;
        match Pin::new(&mut this.stream).poll_read(cx, buf) {
            Poll::Ready(result) => {
                if buf.filled().len() > before {
                    this.activity.bytes_received();
                }
                Poll::Ready(result)
            }
            Poll::Pending => {
                let Some(deadline) = this.activity.deadline(cx.waker()) else {
                    return Poll::Pending;
                };
                if this.timer.deadline() != deadline {
                    this.timer.as_mut().reset(deadline);
                }
                match this.timer.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "idle or slow past the connection's timeout",
                    ))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
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
