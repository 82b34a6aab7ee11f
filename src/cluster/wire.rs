//! What crosses the link when one member asks another to answer a request: the request
//! and its answer ([`WireRequest`], [`WireResponse`]), each a line of JSON and then the
//! body as it is; what a request names, for routing ([`Target`]); and the mark a
//! forwarded request carries in the answering member ([`Forwarded`]). The routing
//! itself is [`crate::member`]'s.

use super::merge::{list_at, MergedList};
use crate::records::api_keys::AccessLevel;
use axum::http::Method;
use serde::{Deserialize, Serialize};
use std::net::IpAddr;

/// Put in a request's extensions when a member runs it for another (never by the
/// network): the caller the asking member authenticated.
#[derive(Debug, Clone)]
pub struct Forwarded {
    pub key_name: String,
    pub level: AccessLevel,
    pub ip: IpAddr,
}

/// A request as it crosses the link.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WireRequest {
    pub method: String,
    /// Path and query.
    pub uri: String,
    pub content_type: Option<String>,
    pub accept_language: Option<String>,
    /// Sent after the header line as it is, not inside the JSON.
    #[serde(skip)]
    pub body: String,
    pub key_name: String,
    pub level: AccessLevel,
    pub ip: IpAddr,
}

/// An answer as it crosses the link.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WireResponse {
    pub status: u16,
    pub content_type: Option<String>,
    pub retry_after: Option<String>,
    /// Sent after the header line as it is, not inside the JSON.
    #[serde(skip)]
    pub body: String,
}

/// One line of JSON (`head`, whose body field is skipped), a newline, then `body` as it
/// is: a page of JSON crosses the link without being escaped into a string and back.
pub fn frame<T: Serialize>(head: &T, body: &str) -> String {
    let mut text = serde_json::to_string(head).unwrap_or_default();
    text.push('\n');
    text.push_str(body);
    text
}

/// The head and body of a [`frame`]d message.
pub fn unframe<T: serde::de::DeserializeOwned>(text: &str) -> Option<(T, String)> {
    let (head, body) = text.split_once('\n')?;
    Some((serde_json::from_str(head).ok()?, body.to_string()))
}

impl WireRequest {
    pub fn framed(&self) -> String {
        frame(self, &self.body)
    }
}

impl WireResponse {
    pub fn framed(&self) -> String {
        frame(self, &self.body)
    }
}

/// What a request names, for routing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Olt(u32),
    Onu(u64),
    /// An alarm or an outage, by its id: the member whose id block holds it keeps it.
    Record(u64),
    List(&'static MergedList),
    Here,
}

/// What the API path `path` (under the base) names for `method`.
pub fn target(method: &Method, path: &str) -> Target {
    let mut parts = path.trim_start_matches('/').split('/');
    let (first, second) = (parts.next().unwrap_or_default(), parts.next());
    match (first, second) {
        (_, None) if method == Method::GET => list_at(path).map_or(Target::Here, Target::List),
        ("olts", Some(id)) => id.parse().map_or(Target::Here, Target::Olt),
        ("onus", Some(id)) => id.parse().map_or(Target::Here, Target::Onu),
        ("alarms" | "outages", Some(id)) => id.parse().map_or(Target::Here, Target::Record),
        _ => Target::Here,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_routed_by_what_they_name() {
        assert_eq!(target(&Method::GET, "/olts/7/onus"), Target::Olt(7));
        assert_eq!(target(&Method::POST, "/olts/7/poll"), Target::Olt(7));
        assert_eq!(target(&Method::GET, "/onus/42"), Target::Onu(42));
        assert!(matches!(target(&Method::GET, "/olts"), Target::List(l) if l.path == "/olts"));
        assert_eq!(target(&Method::POST, "/olts"), Target::Here);
        assert_eq!(target(&Method::GET, "/events/stream"), Target::Here);
        assert!(matches!(target(&Method::GET, "/alarms"), Target::List(l) if l.path == "/alarms"));
        assert_eq!(target(&Method::POST, "/alarms/7/ack"), Target::Record(7));
        assert_eq!(target(&Method::GET, "/outages/9"), Target::Record(9));
        assert_eq!(target(&Method::GET, "/olts/x"), Target::Here);
    }

    #[test]
    fn a_frame_carries_its_body_as_it_is() {
        let head = WireResponse {
            status: 200,
            content_type: Some("application/json".into()),
            retry_after: None,
            body: String::new(),
        };
        let text = frame(&head, "{\"data\":[\"a\nb\"]}");
        let (back, body): (WireResponse, String) = unframe(&text).expect("unframed");
        assert_eq!((back.status, body.as_str()), (200, "{\"data\":[\"a\nb\"]}"));
    }
}
