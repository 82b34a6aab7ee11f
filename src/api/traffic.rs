//! Traffic: an ONU's latest octet counters and the rates computed between its last two
//! reads of the `traffic` poll group, its stored rate history, and the busiest ONUs now
//! ([`top`]) (docs/api.md, "Traffic"). The OLT's actor keeps the latest readings in
//! memory ([`ponkeeper_actors::traffic`]); each read's rates are also stored, one point
//! per ONU, read back through [`crate::history::traffic`] as stored, or as summaries
//! (mean, min, max) of buckets of a [`step::HistoryStep`] or of the hourly and daily
//! rollups kept past the raw points ([`step::HistoryMeta`] says which). A layout without per-ONU counters, an ONU the last
//! read did not find, a first read and a read after a reset (the OLT or the ONU
//! restarted) answer `null`, never 0.

use super::doc::{ActorTimeout, BadParameter, Missing, Refusals};
use super::path::OnuPath;
use crate::error::ApiError;
use crate::history::Summary;
use crate::http::{one, with_meta, ApiResult, Bounded, LocalDateTime, Query, Single, WithMeta};
use crate::state::AppState;
use axum::extract::State;
use chrono::{DateTime, Utc};
use ponkeeper_actors::traffic::{TrafficPoint, TrafficReading};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

mod step;
mod top;

pub use step::{HistoryMeta, HistoryStep};
pub use top::TopQuery;

/// Points one history request returns at most, and unless told.
const MAX_HISTORY_POINTS: i64 = 10_000;
const DEFAULT_HISTORY_POINTS: i64 = 1_000;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(latest))
        .routes(routes!(history))
        .merge(top::router())
}

/// A rate as answered: whole bits a second.
fn round(bps: Option<f64>) -> Option<f64> {
    bps.map(f64::round)
}

/// An ONU's latest traffic reading (docs/api.md). `in` is what the OLT received from the
/// ONU (the subscriber's upload), `out` what it sent to the ONU (the download).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrafficItem {
    /// Bits a second received from the ONU between the last two reads; null for the
    /// first read, after a reset, or where the layout has no counter.
    pub in_bps: Option<f64>,
    /// Bits a second sent to the ONU between the last two reads; null as `inBps`.
    pub out_bps: Option<f64>,
    /// The counters as last read (the device's own, which may wrap or restart).
    pub in_octets: Option<u64>,
    pub out_octets: Option<u64>,
    /// When the counters were last read; null before the first read.
    pub at: Option<String>,
}

/// The item of `reading`, or the all-null item when there is none.
fn item(app: &AppState, reading: Option<TrafficReading>) -> TrafficItem {
    TrafficItem {
        in_bps: round(reading.and_then(|r| r.in_bps)),
        out_bps: round(reading.and_then(|r| r.out_bps)),
        in_octets: reading.and_then(|r| r.in_octets),
        out_octets: reading.and_then(|r| r.out_octets),
        at: reading.map(|r| app.clock.format(r.at)),
    }
}

#[utoipa::path(
    get,
    path = "/onus/{id}/traffic",
    operation_id = "get_onu_traffic",
    tag = "traffic",
    summary = "Latest traffic rates of an ONU",
    description = "The ONU's octet counters as the `traffic` poll group last read them \
        (`[polling] traffic_interval`, default 5 minutes) and the rates between that read and \
        the one before, in bits a second. Null where the OLT's layout has no per-ONU counter \
        (docs/devices.md), before the second read, and for the first read after the OLT or \
        the ONU restarted.",
    params(("id" = u64, Path, description = "ONU id")),
    responses((status = 200, description = "the latest reading", body = Single<TrafficItem>), BadParameter, Missing, ActorTimeout, Refusals)
)]
async fn latest(State(app): State<AppState>, OnuPath(id): OnuPath) -> ApiResult {
    let owner = app.onu_olt(id)?;
    // 404 for an ONU its OLT no longer has, as the other ONU sub-resources answer.
    app.onu(id).await?;
    let reading = owner.traffic(id).await?;
    one(item(&app, reading))
}

/// The period, step and size of `GET /onus/{id}/traffic/history` and of the MCP tool
/// `get_onu_traffic_history`.
#[derive(Debug, Default, Deserialize, Serialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
pub struct TrafficHistoryQuery {
    /// Local date-time, e.g. `2026-11-21T19:15:03`; default: a day before `to`. Not after `to`.
    #[param(inline)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<LocalDateTime>,
    /// Local date-time; default: now.
    #[param(inline)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<LocalDateTime>,
    #[param(inline)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<HistoryStep>,
    /// Most points returned (the oldest of the period).
    #[param(schema_with = history_limit)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<HistoryLimit>,
}

/// How many points one history answer holds at most.
type HistoryLimit = Bounded<1, MAX_HISTORY_POINTS>;

/// `limit`'s schema, with its default.
fn history_limit() -> utoipa::openapi::schema::Object {
    let mut schema = HistoryLimit::documented_with_default(DEFAULT_HISTORY_POINTS);
    schema.description = Some("Most points returned (the oldest of the period).".into());
    schema
}

/// One point of an ONU's traffic history: its rates at one read, or a summary of the
/// reads of a bucket (of `step`, or an hourly or daily rollup).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrafficPointItem {
    /// When the counters were read; of a summary, the start of its bucket.
    pub at: String,
    /// Bits a second received from the ONU (of a summary, the mean of its reads); null
    /// where the read (or every read of the bucket) gave no rate this way.
    pub in_bps: Option<f64>,
    /// Bits a second sent to the ONU; null as `inBps`.
    pub out_bps: Option<f64>,
    /// Of a summary, the lowest rates of its reads; null on a read as stored.
    pub min: Option<TrafficRates>,
    /// Of a summary, the highest rates of its reads; null on a read as stored.
    pub max: Option<TrafficRates>,
    /// How many reads the point stands for (1: a read as stored).
    pub count: u32,
}

/// Rates each way, bits a second (null: no read of the bucket gave one that way).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrafficRates {
    pub in_bps: Option<f64>,
    pub out_bps: Option<f64>,
}

fn rates(point: &TrafficPoint) -> TrafficRates {
    TrafficRates {
        in_bps: round(point.in_bps),
        out_bps: round(point.out_bps),
    }
}

fn history_item(app: &AppState, summary: &Summary<TrafficPoint>) -> TrafficPointItem {
    TrafficPointItem {
        at: app.clock.format(summary.point.at),
        in_bps: round(summary.point.in_bps),
        out_bps: round(summary.point.out_bps),
        min: summary.min.as_ref().map(rates),
        max: summary.max.as_ref().map(rates),
        count: summary.count,
    }
}

#[utoipa::path(
    get,
    path = "/onus/{id}/traffic/history",
    operation_id = "get_onu_traffic_history",
    tag = "traffic",
    summary = "Stored traffic rates of an ONU",
    description = "The ONU's rates in `[from, to]`, oldest first: one point per read of the \
        `traffic` poll group that gave a rate, or with `step` summaries of buckets of that \
        length from `from` (the mean, `min` and `max` of their reads; a bucket without reads is \
        left out). Reads are kept `history.raw_retention` (7 days by default); a period that \
        starts before that, or a step of whole hours or days, is answered from hourly rollups \
        (kept `history.hourly_retention`, 90 days) or daily ones (`history.daily_retention`, 5 \
        years): `meta` says the resolution and the step of the points.",
    params(("id" = u64, Path, description = "ONU id"), TrafficHistoryQuery),
    responses((status = 200, description = "the points, oldest first", body = WithMeta<TrafficPointItem, HistoryMeta>), BadParameter, Missing, ActorTimeout, Refusals)
)]
async fn history(
    State(app): State<AppState>,
    OnuPath(id): OnuPath,
    Query(query): Query<TrafficHistoryQuery>,
) -> ApiResult {
    let onu = app.onu(id).await?;
    let to: DateTime<Utc> = query.to.map_or(Utc::now(), |at| at.instant(&app.clock));
    let from = query
        .from
        .map_or(to - chrono::Duration::days(1), |at| at.instant(&app.clock));
    if from > to {
        return Err(ApiError::InvalidParameter(
            "parameter `from` must not be after `to`".into(),
        ));
    }
    let limit = query.limit.map_or(DEFAULT_HISTORY_POINTS, Bounded::get) as usize;
    let step = query.step.as_ref().map(|s| s.duration().num_seconds());
    let (plan, points) = crate::history::traffic(&app, onu.id, (from, to), step, limit).await?;
    with_meta(
        points.iter().map(|p| history_item(&app, p)).collect(),
        HistoryMeta::of(plan),
    )
}
