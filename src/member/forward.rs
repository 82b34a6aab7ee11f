//! Any member answers any request. This layer sits inside the access check, so the
//! member a client asked has authenticated it; then, by what the request names:
//!
//! - one OLT (`/olts/{id}…`): answered here when this member runs the OLT, else by the
//!   member the hash gives it, over the link;
//! - one ONU (`/onus/{id}…`): here when this member runs its OLT, else by the first other
//!   member that knows the ONU;
//! - one alarm or outage (`/alarms/{id}…`, `/outages/{id}`): the member whose id block
//!   holds the id, which recorded it;
//! - a merged list ([`crate::cluster::merge::MERGED`]): each member's share, merged;
//! - anything else: here.
//!
//! Every write needs the quorum: it runs only on a member that hears a strict majority
//! of the configured members within the quorum window (a few heartbeats,
//! [`crate::cluster::ownership`]), else `503 NO_QUORUM` naming the members it does not
//! hear. A write is any request but GET, HEAD, OPTIONS and TRACE ([`writes`]): an action
//! on an OLT or an ONU, and every request that writes records (splitters, placements and
//! their import, subscriber bindings, alarm acknowledgements, backups). Two are exempt:
//! `/mcp`, whose tools each make a REST request that passes this check on its own; and
//! `POST /inventory/reload`, which applies this host's own inventory file as a restart
//! would (no quorum can refuse a restart, and a member without one goes on polling
//! anyway). API keys are managed through the admin socket, outside this API. Both the
//! member asked and the member that answers check.
//!
//! A forwarded request travels as a [`WireRequest`] with the caller it was authenticated
//! as, and runs through the other member's own REST surface marked [`Forwarded`], which
//! its access check takes in place of a key and this layer answers locally.

use crate::auth::{Caller, RateAlreadyCounted};
use crate::cluster::merge::{Item, MergedList, Share};
use crate::cluster::wire::{target, unframe, Forwarded, Target, WireRequest, WireResponse};
use crate::cluster::{remote_member, remote_members, ClusterShared, MemberMsg, ASK_TIMEOUT};
use crate::error::ApiError;
use crate::http::{is_mcp_path, BASE};
use crate::state::AppState;
use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use ractor::rpc::CallResult;
use ractor::ActorRef;
use serde_json::json;
use std::net::SocketAddr;
use std::time::Instant;
use tower::ServiceExt;

/// The largest answer a member sends back for a forwarded request, below the link's
/// frame limit.
const MAX_ANSWER_BYTES: usize = 3 * 1024 * 1024;

/// Where `POST /inventory/reload` is, under the API base.
const RELOAD: &str = "/inventory/reload";

/// Middleware: routes a request as the module says.
pub async fn route(State(app): State<AppState>, request: Request, next: Next) -> Response {
    let Some(shared) = app.cluster.shared().filter(|_| app.cluster.is_running()) else {
        return next.run(request).await;
    };
    if writes(request.method(), request.uri().path()) {
        if let Err(refused) = quorum(shared) {
            return refused.into_response();
        }
    }
    let path = request.uri().path().strip_prefix(BASE).unwrap_or_default();
    let target = target(request.method(), path);
    if request.extensions().get::<Forwarded>().is_some() {
        return next.run(request).await;
    }
    match target {
        Target::Olt(id) if app.fleet.olt(id).is_none() => {
            let owner = shared.membership().owner_of(id, Instant::now());
            match remote_member(shared, &owner) {
                Some(member) => to_member(&member, &owner, request).await,
                // Its owner is another member this one has not reached (yet): say so,
                // rather than that the OLT does not exist.
                None if owner != shared.config().name && app.inventory().olt(id).is_some() => {
                    ApiError::DeviceUnavailable(format!(
                        "OLT {id} is served by cluster member `{owner}`, which this member \
                         cannot reach now"
                    ))
                    .into_response()
                }
                None => next.run(request).await,
            }
        }
        Target::Onu(id) if app.onu_olt(id).is_err() => to_whoever_knows(request, next).await,
        Target::Record(id) => to_record_keeper(shared, id, (request, next)).await,
        Target::List(list) => merged(&app, shared, list, (request, next)).await,
        _ => next.run(request).await,
    }
}

/// Whether a request of `method` on `path` (from the server's root) writes, so needs
/// the quorum: any method but the safe ones, except on the paths the module names.
fn writes(method: &Method, path: &str) -> bool {
    !method.is_safe() && !is_mcp_path(path) && path.strip_prefix(BASE) != Some(RELOAD)
}

/// `Ok` while this member hears a majority; else the `503 NO_QUORUM` that names the
/// members it does not hear (the message, and its Russian, say "cannot reach").
fn quorum(shared: &ClusterShared) -> Result<(), ApiError> {
    let (quorum, members) = {
        let view = shared.membership();
        (view.quorum(Instant::now()), view.peers().len() + 1)
    };
    quorum.map_err(|unheard| {
        ApiError::NoQuorum(format!(
            "this member sees no majority of the {members} cluster members; cannot reach: {}",
            unheard.join(", ")
        ))
    })
}

/// An alarm or an outage: answered by the member whose id block holds its id (here, when
/// that is this member or no member's).
async fn to_record_keeper(
    shared: &ClusterShared,
    id: u64,
    (request, next): (Request, Next),
) -> Response {
    let block = (id >> ponkeeper_actors::store::ID_BLOCK_BITS) as u16;
    if block == shared.config().id_block() {
        return next.run(request).await;
    }
    let keeper = shared
        .membership()
        .peers()
        .iter()
        .find(|(_, peer)| peer.id_block == Some(block))
        .map(|(name, _)| name.clone());
    let Some(keeper) = keeper else {
        return next.run(request).await;
    };
    match remote_member(shared, &keeper) {
        Some(member) => to_member(&member, &keeper, request).await,
        None => ApiError::DeviceUnavailable(format!(
            "record {id} is kept by cluster member `{keeper}`, which this member cannot reach now"
        ))
        .into_response(),
    }
}

/// The request as a [`WireRequest`], or the answer to give when it cannot travel.
async fn wire(request: Request) -> Result<WireRequest, Response> {
    let caller = request
        .extensions()
        .get::<Caller>()
        .cloned()
        .ok_or_else(|| {
            ApiError::Internal("a routed request without its caller".into()).into_response()
        })?;
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX).await.map_err(|e| {
        ApiError::InvalidBody(format!("the body could not be read: {e}")).into_response()
    })?;
    let header = |name: header::HeaderName| {
        parts
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(String::from)
    };
    Ok(WireRequest {
        method: parts.method.to_string(),
        uri: parts
            .uri
            .path_and_query()
            .map_or("/", |p| p.as_str())
            .to_string(),
        content_type: header(header::CONTENT_TYPE),
        accept_language: header(header::ACCEPT_LANGUAGE),
        body: String::from_utf8_lossy(&bytes).into_owned(),
        key_name: caller.key_name,
        level: caller.level,
        ip: caller.ip,
    })
}

/// Asks `member` (named `name`) to answer `request`.
async fn to_member(member: &ActorRef<MemberMsg>, name: &str, request: Request) -> Response {
    let wired = match wire(request).await {
        Ok(wired) => wired,
        Err(answer) => return answer,
    };
    match ask(member, &wired).await {
        Some(answer) => into_response(answer),
        None => ApiError::DeviceUnavailable(format!(
            "cluster member `{name}`, which serves this, did not answer within {}s",
            ASK_TIMEOUT.as_secs()
        ))
        .into_response(),
    }
}

/// An ONU this member does not run: the first other member's answer that is not 404,
/// else this member's own (a 404).
async fn to_whoever_knows(request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let rebuild = || Request::from_parts(parts.clone(), Body::from(bytes.clone()));
    let wired = match wire(rebuild()).await {
        Ok(wired) => wired,
        Err(answer) => return answer,
    };
    let asks = remote_members().into_iter().map(|member| {
        let wired = wired.clone();
        async move { ask(&member, &wired).await }
    });
    for answer in futures::future::join_all(asks).await.into_iter().flatten() {
        if answer.status != StatusCode::NOT_FOUND.as_u16() {
            return into_response(answer);
        }
    }
    next.run(rebuild()).await
}

/// One RPC of `wired` to `member`; `None` when it does not answer in time or the link
/// closed.
async fn ask(member: &ActorRef<MemberMsg>, wired: &WireRequest) -> Option<WireResponse> {
    let text = wired.framed();
    match member
        .call(|reply| MemberMsg::Http(text, reply), Some(ASK_TIMEOUT))
        .await
    {
        Ok(CallResult::Success(answer)) => {
            unframe::<WireResponse>(&answer).map(|(head, body)| WireResponse { body, ..head })
        }
        other => {
            tracing::warn!(member = %member.get_id(), outcome = ?other.map(|_| ()), "a forwarded request got no answer");
            None
        }
    }
}

fn into_response(answer: WireResponse) -> Response {
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::BAD_GATEWAY);
    let mut response = (status, answer.body).into_response();
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_TYPE, answer.content_type),
        (header::RETRY_AFTER, answer.retry_after),
    ] {
        if let Some(value) = value.and_then(|v| HeaderValue::from_str(&v).ok()) {
            headers.insert(name, value);
        }
    }
    response
}

/// Runs a request another member forwarded through this member's REST surface and
/// answers it as JSON text.
pub(super) async fn answer_here(rest: axum::Router, text: &str) -> String {
    let answer = match unframe::<WireRequest>(text) {
        Some((head, body)) => run_here(rest, WireRequest { body, ..head }).await,
        None => wire_error(ApiError::InvalidBody(
            "a forwarded request that does not parse".into(),
        )),
    };
    answer.framed()
}

async fn run_here(rest: axum::Router, wired: WireRequest) -> WireResponse {
    let mut builder = Request::builder()
        .method(wired.method.as_str())
        .uri(wired.uri.as_str());
    for (name, value) in [
        (header::CONTENT_TYPE, &wired.content_type),
        (header::ACCEPT_LANGUAGE, &wired.accept_language),
    ] {
        if let Some(value) = value {
            builder = builder.header(name, value.as_str());
        }
    }
    let Ok(mut request) = builder.body(Body::from(wired.body)) else {
        return wire_error(ApiError::InvalidParameter(
            "a forwarded request that is not HTTP".into(),
        ));
    };
    let extensions = request.extensions_mut();
    extensions.insert(ConnectInfo(SocketAddr::new(wired.ip, 0)));
    extensions.insert(Forwarded {
        key_name: wired.key_name,
        level: wired.level,
        ip: wired.ip,
    });
    extensions.insert(RateAlreadyCounted);
    let response = match rest.oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    let (parts, body) = response.into_parts();
    let header = |name| {
        parts
            .headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
            .map(String::from)
    };
    match axum::body::to_bytes(body, MAX_ANSWER_BYTES).await {
        Ok(bytes) => WireResponse {
            status: parts.status.as_u16(),
            content_type: header(header::CONTENT_TYPE),
            retry_after: header(header::RETRY_AFTER),
            body: String::from_utf8_lossy(&bytes).into_owned(),
        },
        Err(_) => wire_error(ApiError::Internal(format!(
            "an answer over {MAX_ANSWER_BYTES} bytes cannot cross the cluster link"
        ))),
    }
}

fn wire_error(error: ApiError) -> WireResponse {
    let (status, code) = error.status_and_code();
    WireResponse {
        status: status.as_u16(),
        content_type: Some("application/json".into()),
        retry_after: None,
        body: json!({"success": false, "error": {"code": code, "message": error.to_string()}})
            .to_string(),
    }
}

/// A merged list: every member's first `offset + size` items, merged. This member's
/// share comes from the rest of its own stack (`next`), the others' over the link.
async fn merged(
    app: &AppState,
    shared: &ClusterShared,
    list: &MergedList,
    (request, next): (Request, Next),
) -> Response {
    let query = request.uri().query().unwrap_or_default().to_string();
    let Some((page, size)) = paging(app, &query) else {
        // Not a page this layer can read: the handler answers (its 400).
        return next.run(request).await;
    };
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let wired = match wire(Request::from_parts(
        parts.clone(),
        Body::from(bytes.clone()),
    ))
    .await
    {
        Ok(wired) => wired,
        Err(answer) => return answer,
    };
    let need = (page + 1) * size;
    let max = app.config.paging.max_size as usize;
    let remotes = remote_members();
    let remote_shares = remotes
        .iter()
        .map(|member| fetch_share((list, Asked::There(member)), &wired, &query, need, max));
    let local_share = async {
        if need > max {
            return fetch_share((list, Asked::Here(shared)), &wired, &query, need, max)
                .await
                .map_err(|e| e.map(into_response));
        }
        let mut local = Request::from_parts(parts, Body::from(bytes));
        let path = local.uri().path().to_string();
        if let Ok(uri) = format!("{path}?{}", with_paging(&query, 0, need)).parse() {
            *local.uri_mut() = uri;
        }
        let response = next.run(local).await;
        if response.status() != StatusCode::OK {
            return Err(Some(response));
        }
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap_or_default();
        list.share_of(&body).ok_or(None)
    };
    let (local, remote) =
        futures::future::join(local_share, futures::future::join_all(remote_shares)).await;
    let mut shares = Vec::new();
    match local {
        Ok(share) => shares.push(share),
        Err(Some(answer)) => return answer,
        Err(None) => {}
    }
    for fetched in remote {
        match fetched {
            Ok(share) => shares.push(share),
            Err(Some(answer)) => return into_response(answer),
            Err(None) => {}
        }
    }
    let (data, total) = list.merge(shares, page * size, size);
    let body = page_body(&data, (page, size), total);
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

/// A page of `items` as their members wrote them, in the envelope every page has.
fn page_body(items: &[Item], (page, size): (usize, usize), total: u64) -> String {
    let mut body = String::from(r#"{"success":true,"data":["#);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            body.push(',');
        }
        body.push_str(item.raw().get());
    }
    body.push_str(&format!(
        r#"],"meta":{{"page":{page},"size":{size},"totalCount":{total}}}}}"#
    ));
    body
}

enum Asked<'a> {
    Here(&'a ClusterShared),
    There(&'a ActorRef<MemberMsg>),
}

/// One member's first `need` items of the list, read in pages of at most `max`; `Err`
/// with the answer when the member refused the request (a bad filter: the client's
/// error), `Err(None)` when it could not be asked.
async fn fetch_share(
    (list, asked): (&MergedList, Asked<'_>),
    wired: &WireRequest,
    query: &str,
    need: usize,
    max: usize,
) -> Result<Share, Option<WireResponse>> {
    let size = need.min(max).max(1);
    let path = wired.uri.split('?').next().unwrap_or_default().to_string();
    let mut share = Share::default();
    for page in 0.. {
        let mut one = wired.clone();
        one.uri = format!("{path}?{}", with_paging(query, page, size));
        let answer = match &asked {
            Asked::Here(shared) => match shared.rest() {
                Some(rest) => Some(run_here(rest, one).await),
                None => None,
            },
            Asked::There(member) => ask(member, &one).await,
        };
        let answer = answer.ok_or(None)?;
        if answer.status != 200 {
            return Err(Some(answer));
        }
        let page = list.share_of(answer.body.as_bytes()).ok_or(None)?;
        share.total = page.total;
        let short = page.items.len() < size;
        share.items.extend(page.items);
        if short || share.items.len() >= need {
            break;
        }
    }
    share.items.truncate(need);
    Ok(share)
}

/// `page` and `size` of `query` when both are absent or plain numbers in range.
fn paging(app: &AppState, query: &str) -> Option<(usize, usize)> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query).ok()?;
    let get = |name: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let page = match get("page") {
        None => 0,
        Some(v) => v.parse::<u32>().ok()? as usize,
    };
    let size = match get("size") {
        None => app.config.paging.default_size as usize,
        Some(v) => v
            .parse::<u32>()
            .ok()
            .filter(|s| (1..=app.config.paging.max_size).contains(s))? as usize,
    };
    Some((page, size))
}

/// `query` with its `page` and `size` replaced.
fn with_paging(query: &str, page: usize, size: usize) -> String {
    let mut pairs: Vec<(String, String)> = serde_urlencoded::from_str(query).unwrap_or_default();
    pairs.retain(|(k, _)| k != "page" && k != "size");
    pairs.push(("page".into(), page.to_string()));
    pairs.push(("size".into(), size.to_string()));
    serde_urlencoded::to_string(pairs).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_merged_page_is_the_envelope_around_the_items_as_written() {
        let olts = crate::cluster::merge::list_at("/olts").expect("merged");
        let share = olts
            .share_of(br#"{"data":[{"id":1,"name":"a"},{"id":2}],"meta":{"totalCount":2}}"#)
            .expect("a page");
        let body = page_body(&share.items, (0, 20), 2);
        assert_eq!(
            body,
            r#"{"success":true,"data":[{"id":1,"name":"a"},{"id":2}],"meta":{"page":0,"size":20,"totalCount":2}}"#
        );
        assert!(serde_json::from_str::<serde_json::Value>(&body).is_ok());
    }

    #[test]
    fn every_request_but_a_read_writes_save_mcp_and_the_reload() {
        let api = |path: &str| format!("{BASE}{path}");
        for (method, path) in [
            (Method::POST, api("/olts/1/poll")),
            (Method::POST, api("/splitters")),
            (Method::DELETE, api("/splitters/3")),
            (Method::POST, api("/onus/7/placement")),
            (Method::POST, api("/placements/import")),
            (Method::POST, api("/alarms/9/ack")),
            (Method::PUT, api("/anything")),
            (Method::PATCH, api("/splitters/3")),
        ] {
            assert!(writes(&method, &path), "{method} {path}");
        }
        for (method, path) in [
            (Method::GET, api("/splitters")),
            (Method::HEAD, api("/olts")),
            (Method::OPTIONS, api("/splitters")),
            (Method::POST, "/mcp".to_string()),
            (Method::POST, api("/inventory/reload")),
        ] {
            assert!(!writes(&method, &path), "{method} {path}");
        }
    }

    #[test]
    fn paging_is_replaced_and_the_filters_kept() {
        let q = with_paging("q=HWTC&page=3&size=5&status=ONLINE", 0, 20);
        assert_eq!(q, "q=HWTC&status=ONLINE&page=0&size=20");
    }
}
