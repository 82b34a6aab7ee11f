//! The audit log's writer: an outermost HTTP middleware that records, in the store, every
//! action (any outcome), every refusal of the key checks (401/403, from [`crate::auth`]
//! without that module doing anything but answer) and, with `[audit] reads = true`,
//! every read. Each entry is flushed to disk before the response leaves, so a killed
//! process keeps every entry whose request was answered; if the entry cannot be written
//! the client gets 500 instead of the action's answer.
//!
//! What an entry keeps is bounded, so that no client can fill the disk through it:
//!
//! - `params` is the request body as [`crate::body`] read it (after the key checks: a
//!   refused request has none), kept whole up to [`PARAMS_MAX_BYTES`] of JSON and
//!   otherwise cut to that much text and marked `{"cut": true, "bytes", "text"}`
//!   ([`params_of`]);
//! - failed authentications (401, and 403 `IP_NOT_ALLOWED`, which no rate limit covers)
//!   are entries one by one only for the first [`refusals::SINGLE_PER_MINUTE`] from an
//!   address in a minute; the rest of that minute are counted in one entry per address;
//!   and all addresses together make at most `audit.refusals_per_minute` entries a
//!   minute, the rest counted in one summary entry ([`refusals`]).
//!
//! An action's name and target come from its path ([`classify`]); the error code from the
//! response ([`ErrorCode`]).

pub mod held;
pub mod refusals;

use crate::auth::API_KEY_HEADER;
use crate::body::BodyCapture;
use crate::error::{ApiError, ErrorCode};
use crate::http::BASE;
use crate::records::{AuditEntry, AuditResult, Channel};
use crate::state::AppState;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use refusals::RefusalCounts;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

/// The most of a body an entry keeps: its JSON up to this many bytes, or this many bytes
/// of its text, marked as cut.
pub const PARAMS_MAX_BYTES: usize = 1024;

/// The header a client names its channel in ([`Channel::declared`]): the operator page
/// sends `UI`, `ponkeeper mcp` over stdio sends `MCP`.
pub const CHANNEL_HEADER: &str = "x-ponkeeper-channel";

/// What the audit middleware works with: the service's state and the failed
/// authentications counted this minute.
pub type AuditState = (AppState, Arc<RefusalCounts>);

/// The action name and target of a request path under the API base, for the mutating
/// endpoints; `None` for anything else.
pub fn classify(method: &Method, path: &str) -> Option<(&'static str, String)> {
    if *method != Method::POST && *method != Method::DELETE {
        return None;
    }
    let segments: Vec<&str> = path
        .strip_prefix(BASE)?
        .trim_matches('/')
        .split('/')
        .collect();
    if *method == Method::DELETE {
        return match segments.as_slice() {
            ["splitters", id] => Some(("splitter.delete", format!("splitter:{id}"))),
            _ => None,
        };
    }
    let action = match segments.as_slice() {
        ["olts", id, "restart-session"] => ("olt.restart_session", format!("olt:{id}")),
        ["olts", id, "poll"] => ("olt.poll", format!("olt:{id}")),
        ["olts", id, "ssh", "trust-host-key"] => ("olt.trust_host_key", format!("olt:{id}")),
        ["olts", id, "configs", "backup"] => ("olt.config_backup", format!("olt:{id}")),
        ["onus", id, "reboot"] => ("onu.reboot", format!("onu:{id}")),
        ["onus", id, "vlan"] => ("onu.set_vlan", format!("onu:{id}")),
        ["onus", id, "description"] => ("onu.set_description", format!("onu:{id}")),
        ["onus", id, "profile"] => ("onu.set_profile", format!("onu:{id}")),
        ["onus", id, "optics", "refresh"] => ("onu.optics_refresh", format!("onu:{id}")),
        ["onus", id, "macs", "refresh"] => ("onu.macs_refresh", format!("onu:{id}")),
        ["olts", id, "onus", "authorize"] => ("onu.authorize", format!("olt:{id}")),
        ["onus", id, "deauthorize"] => ("onu.deauthorize", format!("onu:{id}")),
        ["onus", id, "subscriber"] => ("onu.bind_subscriber", format!("onu:{id}")),
        ["inventory", "reload"] => ("inventory.reload", "inventory".to_string()),
        ["alarms", id, "ack"] => ("alarm.acknowledge", format!("alarm:{id}")),
        ["splitters"] => ("splitter.create", "splitters".to_string()),
        ["onus", id, "placement"] => ("onu.place", format!("onu:{id}")),
        ["placements", "import"] => ("placements.import", "placements".to_string()),
        _ => return None,
    };
    Some(action)
}

/// Middleware: records the request in the audit log when it must be, after it ran.
pub async fn record(
    State((app, refusals)): State<AuditState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    mut request: Request,
    next: Next,
) -> Response {
    // Forwarded by another cluster member: that member, which the client asked, logs it.
    if request
        .extensions()
        .get::<crate::cluster::wire::Forwarded>()
        .is_some()
    {
        return next.run(request).await;
    }
    let started = Instant::now();
    let at = chrono::Utc::now();
    let method = request.method().clone();
    // What an entry needs from the request is kept cheaply (the URI and the headers
    // share the request's bytes); the key is looked up and the path copied only for a
    // request that gets an entry, which most reads do not.
    let uri = request.uri().clone();
    let key_header = request.headers().get(API_KEY_HEADER).cloned();
    let client_ip =
        crate::auth::client_ip(peer.ip(), request.headers(), &app.config.trusted_proxies);
    let action = classify(&method, uri.path());
    let channel = channel_of(&request);
    let body = BodyCapture::default();
    request.extensions_mut().insert(body.clone());
    let response = next.run(request).await;
    refusals.write_pending(&app.records); // whatever the request: see RefusalCounts
    let status = response.status();
    count(&method, status, started);
    let refused = status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN;
    let read = method == Method::GET && uri.path().starts_with(BASE);
    if action.is_none() && !refused && !(read && app.config.audit.reads) {
        return response;
    }
    let error_code = response
        .extensions()
        .get::<ErrorCode>()
        .map(|code| code.0.to_string());
    let (action, target) = match action {
        Some((name, target)) => (name.to_string(), Some(target)),
        None if method == Method::GET => ("read".to_string(), None),
        None => ("request".to_string(), None),
    };
    let failed_authentication =
        status == StatusCode::UNAUTHORIZED || error_code.as_deref() == Some("IP_NOT_ALLOWED");
    let entry = AuditEntry {
        id: 0,
        at,
        key_name: key_name(&app, key_header.as_ref()),
        client_ip: client_ip.to_string(),
        method: method.to_string(),
        path: uri.path().to_string(),
        action,
        target,
        params: body.take().and_then(|bytes| params_of(&bytes)),
        result: if status.is_success() {
            AuditResult::Success
        } else {
            AuditResult::Failure
        },
        http_status: status.as_u16(),
        error_code,
        duration_ms: started.elapsed().as_millis() as u64,
        channel,
    };
    if failed_authentication {
        refusals.record(&app.records, client_ip, entry).await;
        return response;
    }
    match app.records.append_audit(entry).await {
        Ok(_) => response,
        Err(e) => ApiError::Internal(format!("cannot write the audit log: {e}")).into_response(),
    }
}

/// The name of the key a request presented, if it is one of the ring's.
fn key_name(app: &AppState, presented: Option<&axum::http::HeaderValue>) -> Option<String> {
    let presented = presented?.to_str().ok()?;
    app.keys.find(presented.trim()).map(|key| key.name)
}

/// The channel a request came by: as an in-process caller marked it, else as its header
/// declares.
fn channel_of(request: &Request) -> Channel {
    match request.extensions().get::<Channel>() {
        Some(channel) => *channel,
        None => Channel::declared(
            request
                .headers()
                .get(CHANNEL_HEADER)
                .and_then(|v| v.to_str().ok()),
        ),
    }
}

/// Counts the request in the HTTP metrics: by method and status, and its duration.
fn count(method: &Method, status: StatusCode, started: Instant) {
    let metrics = HTTP_METRICS.get_or_init(HttpMetrics::default);
    metrics.count(method_label(method), status);
    metrics.duration.record(started.elapsed().as_secs_f64());
}

/// The HTTP metrics' handles, each registered with the recorder once: looking a labelled
/// counter up by name on every request (its labels built, hashed and compared) was 1.7 %
/// of `serve`'s CPU under wrk on `GET /olts/{id}`.
static HTTP_METRICS: std::sync::OnceLock<HttpMetrics> = std::sync::OnceLock::new();

struct HttpMetrics {
    /// `ponkeeper_http_requests_total` by method label and status.
    requests: dashmap::DashMap<(&'static str, u16), metrics::Counter>,
    duration: metrics::Histogram,
}

impl Default for HttpMetrics {
    fn default() -> HttpMetrics {
        // The handles are bound to the recorder there is when they are made.
        crate::metrics::install();
        HttpMetrics {
            requests: dashmap::DashMap::new(),
            duration: metrics::histogram!("ponkeeper_http_request_duration_seconds"),
        }
    }
}

impl HttpMetrics {
    /// Counts one request of `method` and `status`; the label set is bounded (eight
    /// method labels, HTTP's status codes).
    fn count(&self, method: &'static str, status: StatusCode) {
        if let Some(counter) = self.requests.get(&(method, status.as_u16())) {
            counter.increment(1);
            return;
        }
        self.requests
            .entry((method, status.as_u16()))
            .or_insert_with(|| {
                metrics::counter!(
                    "ponkeeper_http_requests_total",
                    "method" => method,
                    "status" => status.as_str().to_string()
                )
            })
            .increment(1);
    }
}

/// The method as a metric label; anything unusual counts as `OTHER`, so a client cannot
/// grow the label set.
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::PATCH => "PATCH",
        _ => "OTHER",
    }
}

/// A body as an entry's `params`: its JSON, or its text, when that takes at most
/// [`PARAMS_MAX_BYTES`]; otherwise `{"cut": true, "bytes": <its length>, "text": <its first
/// PARAMS_MAX_BYTES bytes as text>}`. An empty body is no params.
pub fn params_of(bytes: &[u8]) -> Option<serde_json::Value> {
    if bytes.is_empty() {
        return None;
    }
    let text = String::from_utf8_lossy(bytes);
    let value = serde_json::from_slice(bytes)
        .unwrap_or_else(|_| serde_json::Value::String(text.to_string()));
    if value.to_string().len() <= PARAMS_MAX_BYTES {
        return Some(value);
    }
    let mut end = PARAMS_MAX_BYTES.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Some(serde_json::json!({ "cut": true, "bytes": bytes.len(), "text": &text[..end] }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_are_named_from_their_paths() {
        let post = Method::POST;
        assert_eq!(
            classify(&post, "/api/v1/external/onus/17/vlan"),
            Some(("onu.set_vlan", "onu:17".to_string()))
        );
        assert_eq!(
            classify(&post, "/api/v1/external/olts/3/configs/backup"),
            Some(("olt.config_backup", "olt:3".to_string()))
        );
        assert_eq!(
            classify(&post, "/api/v1/external/olts/4/ssh/trust-host-key"),
            Some(("olt.trust_host_key", "olt:4".to_string()))
        );
        assert_eq!(classify(&Method::GET, "/api/v1/external/onus/17"), None);
        assert_eq!(classify(&post, "/api/v1/external/onus/17"), None);
    }

    #[test]
    fn params_keep_at_most_1_kib_and_say_when_they_were_cut() {
        assert_eq!(params_of(b""), None);
        assert_eq!(
            params_of(br#"{"vlan": 300}"#),
            Some(serde_json::json!({"vlan": 300}))
        );
        assert_eq!(params_of(b"not json"), Some("not json".into()));
        let long = serde_json::json!({ "description": "d".repeat(2000) }).to_string();
        let cut = params_of(long.as_bytes()).expect("params");
        assert_eq!(cut["cut"], true);
        assert_eq!(cut["bytes"], long.len());
        assert_eq!(cut["text"].as_str(), Some(&long[..1024]));
        // Cut on a character boundary: "ж" is two bytes.
        let cyrillic = "ж".repeat(600);
        let cut = params_of(cyrillic.as_bytes()).expect("params");
        assert_eq!(cut["text"].as_str().map(str::len), Some(1024));
        assert_eq!(cut["bytes"], 1200);
    }
}
