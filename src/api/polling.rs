//! How ponkeeper reads an OLT (docs/polling.md), as the API shows it: the `polling` block
//! of `GET /olts/{id}` (each poll group's last read, its duration and when it is next
//! due, the device's latency, the OLT's pace and why it is throttled), and
//! `POST /onus/{id}/optics/refresh` (FULL keys, audited), which reads one ONU's optics
//! now within the OLT's request budget, for the NOC checking a signal while the customer
//! is on the phone. A budget with no room answers 429 `RATE_LIMITED` with `Retry-After`.

use super::doc::{ActorTimeout, BadParameter, DeviceFailures, Missing, Refusals, TooLarge};
use super::optics::{latest_of, OpticsItem};
use super::path::OnuPath;
use crate::http::{one, ApiResult, Single};
use crate::state::AppState;
use axum::extract::State;
use ponkeeper_actors::olt::{GroupInfo, PollingInfo};
use serde::Serialize;
use std::time::Duration;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(refresh_optics))
}

/// How the OLT is being read.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PollingItem {
    /// `status`, `identity`, `optics`, `olt` and `traffic`, in that order.
    pub groups: Vec<GroupItem>,
    /// Requests the last poll sent, and how many of them got no answer in time.
    pub last_poll_requests: u32,
    pub last_poll_timeouts: u32,
    /// Requests the OLT was sent in the last minute.
    pub requests_last_minute: u32,
    /// The device's round trip over the last five minutes' requests, milliseconds.
    pub latency_p50_ms: Option<f64>,
    pub latency_p95_ms: Option<f64>,
    /// The OLT's usual round trip of cheap (non-optics) requests, milliseconds.
    pub baseline_ms: Option<f64>,
    /// The pace now and at most, requests a second.
    pub requests_per_second: f64,
    pub max_requests_per_second: u32,
    /// Whether the pace is below its maximum, and why (timeouts, latency past three times
    /// the baseline); it recovers by one request a second per calm poll.
    pub throttled: bool,
    pub throttle_reason: Option<String>,
}

/// One poll group of an OLT.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GroupItem {
    /// `status`, `identity`, `optics`, `olt` or `traffic`.
    pub group: &'static str,
    pub interval_seconds: f64,
    /// When it was last read, how long that poll talked to the device, and how many ONUs
    /// it read; null before the first read.
    pub last_read_at: Option<String>,
    pub last_duration_ms: Option<u64>,
    pub last_onus: Option<usize>,
    /// When it is next read (optics: the next ONU's turn in the sweep).
    pub next_due_at: Option<String>,
}

fn millis(duration: Option<Duration>) -> Option<f64> {
    duration.map(|d| (d.as_secs_f64() * 1e6).round() / 1e3)
}

/// The `polling` block of an OLT.
pub fn item(app: &AppState, polling: PollingInfo) -> PollingItem {
    let group = |g: GroupInfo| GroupItem {
        group: g.group.name(),
        interval_seconds: g.interval.as_secs_f64(),
        last_read_at: g.last.map(|read| app.clock.format(read.at)),
        last_duration_ms: g.last.map(|read| read.took.as_millis() as u64),
        last_onus: g.last.map(|read| read.onus),
        next_due_at: g.next_at.map(|at| app.clock.format(at)),
    };
    PollingItem {
        groups: polling.groups.into_iter().map(group).collect(),
        last_poll_requests: polling.last_poll_requests,
        last_poll_timeouts: polling.last_poll_timeouts,
        requests_last_minute: polling.requests_last_minute,
        latency_p50_ms: millis(polling.latency_p50),
        latency_p95_ms: millis(polling.latency_p95),
        baseline_ms: millis(polling.baseline),
        requests_per_second: (polling.requests_per_second * 10.0).round() / 10.0,
        max_requests_per_second: polling.max_requests_per_second,
        throttled: polling.throttled.is_some(),
        throttle_reason: polling.throttled,
    }
}

#[utoipa::path(
    post,
    path = "/onus/{id}/optics/refresh",
    operation_id = "refresh_onu_optics",
    tag = "optics",
    summary = "Read an ONU's optics now",
    description = "FULL keys only. Reads the ONU's optics from its OLT at once (ahead of the \
        optics sweep, within the OLT's request budget) and answers the fresh reading, whose \
        `opticsAt` is the time it was read. When the OLT's budget has no room, 429 \
        `RATE_LIMITED` with `Retry-After`; an OLT that is OFFLINE answers 503.",
    params(("id" = u64, Path, description = "ONU id")),
    responses((status = 200, description = "the reading just taken", body = Single<OpticsItem>), BadParameter, Missing, DeviceFailures, ActorTimeout, TooLarge, Refusals)
)]
async fn refresh_optics(State(app): State<AppState>, OnuPath(id): OnuPath) -> ApiResult {
    let owner = app.onu_olt(id)?;
    let onu = owner.refresh_optics(id).await?;
    one(latest_of(&app, &onu))
}
