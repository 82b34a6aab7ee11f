//! Where MCP tools send their REST requests. Every tool is one REST call, so the one
//! implementation serves both transports: in process (`/mcp`), the call goes through the
//! service's own REST [`Router`] carrying the MCP request's `X-API-Key`,
//! `X-Forwarded-For` and client address, so key checks, IP rules, levels and the audit
//! log apply exactly as they do for REST; over stdio (`ponkeeper mcp`), it goes over HTTP
//! to a running service with the key given on the command line.

use crate::auth::{RateAlreadyCounted, API_KEY_HEADER};
use crate::http::BASE;
use crate::records::{AccessLevel, Channel};
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::Router;
use http::request::Parts;
use http::Method;
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use serde_json::Value;
use std::net::SocketAddr;
use tower::ServiceExt;

/// The largest REST answer a tool takes (a page of 500 ONUs is about 200 KiB).
const MAX_REPLY_BYTES: usize = 16 * 1024 * 1024;

/// A REST answer: the HTTP status and the JSON envelope.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub body: Value,
}

/// The REST API the tools call.
pub enum Backend {
    /// This service's own REST router; the caller is the HTTP request of the MCP message.
    InProcess { rest: Router },
    /// A running service at `api` (its URL with the API base), called with `key`, whose
    /// level the service reported at start (`GET /whoami`).
    Remote {
        client: reqwest::Client,
        api: String,
        key: String,
        level: AccessLevel,
    },
}

impl Backend {
    /// A backend for the service at `url` (e.g. `http://127.0.0.1:8080`) with `key`: asks
    /// the service who the key is, so that a wrong URL or key fails at start.
    pub async fn remote(url: &str, key: &str) -> anyhow::Result<(Backend, String)> {
        let client = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(120))
            .build()?;
        let api = format!("{}{BASE}", url.trim_end_matches('/'));
        let response = client
            .get(format!("{api}/whoami"))
            .header(API_KEY_HEADER, key)
            .send()
            .await
            .map_err(|e| anyhow::anyhow!("cannot reach ponkeeper at {url}: {e}"))?;
        let status = response.status();
        let body: Value = response
            .json()
            .await
            .map_err(|e| anyhow::anyhow!("{url} did not answer like ponkeeper: {e}"))?;
        if !status.is_success() {
            anyhow::bail!(
                "{url} refused the key: {} {}",
                body["error"]["code"].as_str().unwrap_or("?"),
                body["error"]["message"].as_str().unwrap_or("")
            );
        }
        let level: AccessLevel = body["data"]["level"]
            .as_str()
            .unwrap_or_default()
            .parse()
            .map_err(|e: String| anyhow::anyhow!("{url}/whoami: {e}"))?;
        let name = body["data"]["keyName"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        Ok((
            Backend::Remote {
                client,
                api,
                key: key.to_string(),
                level,
            },
            name,
        ))
    }

    /// The level of the key behind `ctx`; `None` if unknown (then only reads are listed).
    pub fn level(&self, ctx: &RequestContext<RoleServer>) -> Option<AccessLevel> {
        match self {
            Backend::InProcess { .. } => ctx
                .extensions
                .get::<Parts>()
                .and_then(|parts| parts.extensions.get::<crate::auth::Caller>())
                .map(|caller| caller.level),
            Backend::Remote { level, .. } => Some(*level),
        }
    }

    /// Sends `method path` (relative to the API base, query included) with an optional
    /// JSON body; `Err` only when no REST answer came at all.
    pub async fn call(
        &self,
        ctx: &RequestContext<RoleServer>,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Reply, String> {
        match self {
            Backend::InProcess { rest } => {
                let parts = ctx
                    .extensions
                    .get::<Parts>()
                    .ok_or("the MCP request carries no HTTP request")?;
                in_process(rest, parts, method, path, body).await
            }
            Backend::Remote {
                client, api, key, ..
            } => {
                let mut request = client
                    .request(method, format!("{api}{path}"))
                    .header(API_KEY_HEADER, key)
                    .header(crate::audit::CHANNEL_HEADER, "MCP");
                if let Some(body) = body {
                    request = request.json(&body);
                }
                let response = request
                    .send()
                    .await
                    .map_err(|e| format!("cannot reach ponkeeper: {e}"))?;
                let status = response.status().as_u16();
                let body = response
                    .json()
                    .await
                    .map_err(|e| format!("ponkeeper answered HTTP {status} without JSON: {e}"))?;
                Ok(Reply { status, body })
            }
        }
    }
}

async fn in_process(
    rest: &Router,
    parts: &Parts,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> Result<Reply, String> {
    let mut builder = http::Request::builder()
        .method(method)
        .uri(format!("{BASE}{path}"));
    for name in [API_KEY_HEADER, "x-forwarded-for"] {
        for value in parts.headers.get_all(name) {
            builder = builder.header(name, value.clone());
        }
    }
    let body = match body {
        Some(value) => {
            builder = builder.header(http::header::CONTENT_TYPE, "application/json");
            Body::from(value.to_string())
        }
        None => Body::empty(),
    };
    let mut request = builder
        .body(body)
        .map_err(|e| format!("cannot build the REST request: {e}"))?;
    if let Some(peer) = parts.extensions.get::<ConnectInfo<SocketAddr>>() {
        request.extensions_mut().insert(*peer);
    }
    // The MCP request itself was counted against the key's rate; its tool call is not
    // counted a second time.
    request.extensions_mut().insert(RateAlreadyCounted);
    request.extensions_mut().insert(Channel::Mcp);
    let response = match rest.clone().oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    let status = response.status().as_u16();
    let bytes = axum::body::to_bytes(response.into_body(), MAX_REPLY_BYTES)
        .await
        .map_err(|e| format!("cannot read the REST answer: {e}"))?;
    let body = serde_json::from_slice(&bytes)
        .map_err(|e| format!("the REST answer (HTTP {status}) is not JSON: {e}"))?;
    Ok(Reply { status, body })
}
