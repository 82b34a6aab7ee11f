//! One webhook's delivery task: it reads the event log from the webhook's cursor (kept in
//! sled, tree `webhook_cursors`), POSTs each event its `types` admit, one at a time and
//! in order, and moves the cursor only after the receiver answered 2xx — so a restart or
//! `kill -9` resumes where delivery stopped and every event arrives at least once. A
//! failed attempt (an error status, a redirect, which is never followed, a timeout, a
//! refused connection) is retried after 1 s, 2 s, 4 s, … capped at 5 min; the task is
//! alone in waiting, so a bad receiver never delays another webhook. Its
//! [`DeliveryStatus`] is what `GET /webhooks` shows. [`super::Webhooks`] spawns it.

use super::Webhook;
use crate::clock::Clock;
use chrono::{DateTime, Utc};
use ponkeeper_actors::events::{Event, EventFilter, EventLog};
use ponkeeper_actors::store::Store;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The tree holding each webhook's cursor: name → the last event id delivered (u64 BE).
const CURSORS: &str = "webhook_cursors";
/// Events read from the log at once.
const BATCH: usize = 64;
/// The longest wait between two attempts.
pub const BACKOFF_CAP: Duration = Duration::from_secs(300);
/// Time to open a connection to a receiver.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Time a receiver has to answer a POST, from the start of the request.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// What `GET /webhooks` shows of one webhook's delivery.
#[derive(Debug, Clone, Default)]
pub struct DeliveryStatus {
    /// The last event id delivered (or skipped by `types`).
    pub delivered_up_to: u64,
    /// The HTTP status of the last attempt, if the receiver answered.
    pub last_status: Option<u16>,
    /// Why the last attempt failed; `None` after a success.
    pub last_error: Option<String>,
    pub last_attempt_at: Option<DateTime<Utc>>,
    /// When the next attempt is due, while retrying.
    pub next_attempt_at: Option<DateTime<Utc>>,
    /// Failed attempts in a row.
    pub failures: u32,
}

/// The webhooks' cursors in the store.
#[derive(Clone)]
pub struct Cursors(sled::Tree);

impl Cursors {
    pub fn open(store: &Store) -> anyhow::Result<Cursors> {
        Ok(Cursors(store.open_tree(CURSORS)?))
    }

    /// `name`'s cursor; a webhook seen for the first time starts after `newest`, so it
    /// gets the events from now on, not the whole retained log.
    pub fn get_or_start(&self, name: &str, newest: u64) -> anyhow::Result<u64> {
        if let Some(value) = self.0.get(name.as_bytes())? {
            let bytes: [u8; 8] = value
                .as_ref()
                .try_into()
                .map_err(|_| anyhow::anyhow!("the cursor of webhook `{name}` is corrupt"))?;
            return Ok(u64::from_be_bytes(bytes));
        }
        self.set(name, newest)?;
        Ok(newest)
    }

    pub fn set(&self, name: &str, id: u64) -> anyhow::Result<()> {
        self.0.insert(name.as_bytes(), &id.to_be_bytes())?;
        Ok(())
    }
}

/// The HTTP client every webhook posts with: no redirects, connect and request timeouts.
pub fn client() -> anyhow::Result<reqwest::Client> {
    Ok(reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(REQUEST_TIMEOUT)
        .user_agent(concat!("ponkeeper/", env!("CARGO_PKG_VERSION")))
        .build()?)
}

/// The wait after `failures` failed attempts in a row: 1 s, 2 s, 4 s, … at most 5 min.
pub fn backoff(failures: u32) -> Duration {
    let exponent = failures.saturating_sub(1).min(16);
    Duration::from_secs(1u64 << exponent).min(BACKOFF_CAP)
}

/// Delivers `webhook`'s events from `events`, their times in `clock`'s zone, until the
/// task is aborted.
pub async fn run(
    (events, clock): (EventLog, Clock),
    webhook: Webhook,
    cursors: Cursors,
    client: reqwest::Client,
    status: Arc<Mutex<DeliveryStatus>>,
) {
    let name = webhook.config.name.clone();
    let filter = EventFilter {
        types: webhook.config.types.clone(),
        ..EventFilter::default()
    };
    let mut cursor = match cursors.get_or_start(&name, events.last_id()) {
        Ok(cursor) => cursor,
        Err(error) => {
            tracing::error!(webhook = %name, %error, "cannot read the webhook's cursor; it delivers nothing");
            return;
        }
    };
    let mut last = events.subscribe();
    loop {
        crate::tasks::lock(&status).delivered_up_to = cursor;
        record_lag(&name, events.last_id(), cursor);
        last.borrow_and_update();
        let (batch, seen) = match events.after(cursor, &filter, BATCH) {
            Ok(read) => read,
            Err(error) => {
                tracing::error!(webhook = %name, %error, "cannot read the event log");
                tokio::time::sleep(Duration::from_secs(5)).await;
                continue;
            }
        };
        for event in &batch {
            deliver((&events, clock), &webhook, &client, &status, event).await;
            cursor = event.id;
            save(&cursors, &name, cursor);
            crate::tasks::lock(&status).delivered_up_to = cursor;
        }
        if seen > cursor {
            cursor = seen;
            save(&cursors, &name, cursor);
        }
        if batch.is_empty() && last.changed().await.is_err() {
            return; // the log is gone: the service is stopping
        }
    }
}

fn save(cursors: &Cursors, name: &str, cursor: u64) {
    if let Err(error) = cursors.set(name, cursor) {
        // Delivery goes on; a restart sends again from the last saved cursor.
        tracing::error!(webhook = %name, %error, "cannot save the webhook's cursor");
    }
}

fn record_lag(name: &str, newest: u64, cursor: u64) {
    metrics::gauge!("ponkeeper_webhook_lag", "webhook" => name.to_string())
        .set(newest.saturating_sub(cursor) as f64);
}

/// POSTs `event` until the receiver takes it, backing off between attempts.
async fn deliver(
    (events, clock): (&EventLog, Clock),
    webhook: &Webhook,
    client: &reqwest::Client,
    status: &Mutex<DeliveryStatus>,
    event: &Event,
) {
    let name = webhook.config.name.as_str();
    let body = match serde_json::to_vec(&crate::events::item(&clock, event.clone())) {
        Ok(body) => body,
        Err(error) => {
            tracing::error!(webhook = %name, event = event.id, %error, "cannot encode the event; skipped");
            return;
        }
    };
    let id = event.id.to_string();
    loop {
        let now = Utc::now();
        let outcome = attempt(client, webhook, &id, now.timestamp(), body.clone()).await;
        let wait = {
            let mut state = crate::tasks::lock(status);
            state.last_attempt_at = Some(now);
            match outcome {
                Ok(code) => {
                    metrics::counter!("ponkeeper_webhook_deliveries_total", "webhook" => name.to_string(), "outcome" => "delivered").increment(1);
                    state.last_status = Some(code);
                    state.last_error = None;
                    state.next_attempt_at = None;
                    state.failures = 0;
                    return;
                }
                Err((code, error)) => {
                    metrics::counter!("ponkeeper_webhook_deliveries_total", "webhook" => name.to_string(), "outcome" => "failed").increment(1);
                    state.failures = state.failures.saturating_add(1);
                    let wait = backoff(state.failures);
                    state.last_status = code;
                    state.next_attempt_at = Some(now + wait);
                    tracing::warn!(webhook = %name, event = event.id, failures = state.failures, retry_in = ?wait, %error, "webhook delivery failed");
                    state.last_error = Some(error);
                    wait
                }
            }
        };
        record_lag(name, events.last_id(), event.id.saturating_sub(1));
        tokio::time::sleep(wait).await;
    }
}

/// One signed POST of `body`; the status on a 2xx, else the status (if any) and why.
async fn attempt(
    client: &reqwest::Client,
    webhook: &Webhook,
    id: &str,
    timestamp: i64,
    body: Vec<u8>,
) -> Result<u16, (Option<u16>, String)> {
    let signature = webhook.secrets.sign(id, timestamp, &body);
    let response = client
        .post(webhook.url.clone())
        .header("content-type", "application/json")
        .header("webhook-id", id)
        .header("webhook-timestamp", timestamp.to_string())
        .header("webhook-signature", signature)
        .body(body)
        .send()
        .await
        .map_err(|e| (None, describe(&e)))?;
    let code = response.status();
    if code.is_success() {
        Ok(code.as_u16())
    } else if code.is_redirection() {
        Err((
            Some(code.as_u16()),
            format!("answered {code}; redirects are not followed"),
        ))
    } else {
        Err((Some(code.as_u16()), format!("answered {code}")))
    }
}

/// A reqwest error in a line, with its cause (the bare error says only "error sending
/// request").
pub fn describe(error: &reqwest::Error) -> String {
    let kind = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "cannot connect"
    } else {
        "request failed"
    };
    match std::error::Error::source(error) {
        Some(cause) => format!("{kind}: {cause}"),
        None => format!("{kind}: {error}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backs_off_exponentially_up_to_five_minutes() {
        let waits: Vec<u64> = (1..=12).map(|n| backoff(n).as_secs()).collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300]);
        assert_eq!(backoff(u32::MAX), BACKOFF_CAP);
    }

    /// An `https://` receiver gets a TLS handshake (rustls, the system's CA roots): a
    /// plain-HTTP listener behind an https URL fails the handshake, where a client built
    /// without TLS would refuse the scheme outright.
    #[tokio::test]
    async fn https_receivers_are_spoken_to_over_tls() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let first_bytes = tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.expect("accept");
            let mut hello = [0u8; 3];
            socket.read_exact(&mut hello).await.expect("read");
            let _ = socket.write_all(b"HTTP/1.1 200 OK\r\n\r\n").await;
            hello
        });
        let error = client()
            .expect("client")
            .post(format!("https://{addr}/hook"))
            .body("{}")
            .send()
            .await
            .expect_err("no TLS behind it");
        // A TLS ClientHello: handshake record (22), version 3.x.
        let hello = tokio::time::timeout(Duration::from_secs(5), first_bytes)
            .await
            .expect("the client connected")
            .expect("task");
        assert_eq!(hello[..2], [22, 3]);
        assert!(error.is_connect() || error.is_request(), "{error:?}");
    }
}
