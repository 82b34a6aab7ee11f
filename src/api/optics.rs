//! Optics: an ONU's latest reading and its stored history, and `GET /optics` — the latest
//! readings across the network, worst Rx first, with the level set by `[optics]`
//! thresholds. History points are read from the store through [`crate::history`]: as
//! stored, or as summaries (mean, min, max, the worst level) of buckets of a step or of
//! the hourly and daily rollups kept past the raw points.

use super::doc::{ActorTimeout, BadParameter, Missing, Refusals};
use super::path::OnuPath;
use crate::api::traffic::{HistoryMeta, HistoryStep};
use crate::error::ApiError;
use crate::history::Summary;
use crate::http::{
    one, page_of, with_meta, ApiResult, Bounded, LocalDateTime, PageQuery, Paged, Query,
    ScopeQuery, Single, WithMeta,
};
use crate::state::AppState;
use axum::extract::State;
use chrono::{DateTime, Utc};
use ponkeeper_actors::domain::{Onu, OnuId, OpticsLevel, OpticsPoint};
use ponkeeper_actors::fleet_view::OnuSearch;
use ponkeeper_actors::onu_table::OnuOrder;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Points one history request returns at most.
const MAX_HISTORY_POINTS: i64 = 10_000;
const DEFAULT_HISTORY_POINTS: i64 = 1_000;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(latest))
        .routes(routes!(history))
        .routes(routes!(list))
}

/// The period, step and size of `GET /onus/{id}/optics/history` and of the MCP tool
/// `get_onu_optics_history`.
#[derive(Debug, Default, Deserialize, Serialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
pub struct HistoryQuery {
    /// Local date-time, e.g. `2026-11-21T19:15:03`; default: a day before `to`. Not after `to`.
    #[param(inline)]
    pub from: Option<LocalDateTime>,
    /// Local date-time; default: now.
    #[param(inline)]
    pub to: Option<LocalDateTime>,
    #[param(inline)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<HistoryStep>,
    /// Most readings returned (the oldest of the period).
    #[param(schema_with = history_limit)]
    pub limit: Option<HistoryLimit>,
}

/// How many readings one history answer holds at most.
type HistoryLimit = Bounded<1, MAX_HISTORY_POINTS>;

/// `limit`'s schema, with its default (a `schema_with` function, so the doc comment of
/// the field does not reach the document: the schema carries it).
fn history_limit() -> utoipa::openapi::schema::Object {
    let mut schema = HistoryLimit::documented_with_default(DEFAULT_HISTORY_POINTS);
    schema.description = Some("Most readings returned (the oldest of the period).".into());
    schema
}

/// Filters of `GET /optics` and of the MCP tool `list_low_signal_onus`.
#[derive(Debug, Default, Deserialize, Serialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
pub struct OpticsQuery {
    /// Only readings of this level.
    #[param(inline)]
    pub level: Option<OpticsLevel>,
}

/// An optics reading (docs/api.md). Temperature, voltage and bias current come from the ONU
/// transceiver where the vendor reports them (Huawei and BDCOM EPON); ZTE's tables have
/// none of them, so they are `null` there (see docs/devices.md).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpticsItem {
    pub onu_id: OnuId,
    /// The ONU's OLT, port, serial and description, so a list names whom it is about.
    pub olt_id: u32,
    /// `frame/slot/port`, e.g. `0/1/3`.
    pub pon_port: String,
    pub serial: String,
    pub description: String,
    /// Received at the ONU, dBm.
    pub rx_power: Option<f64>,
    /// Sent by the ONU, dBm.
    pub tx_power: Option<f64>,
    /// Received from this ONU at the OLT, dBm.
    pub olt_rx_power: Option<f64>,
    /// °C.
    pub temperature: Option<f64>,
    /// Volts.
    pub voltage: Option<f64>,
    /// Milliamperes.
    pub bias_current: Option<f64>,
    pub level: OpticsLevel,
    /// When the reading was taken from the device.
    pub measured_at: String,
    /// The ONU's latest reading only: when its run state was last read (the status group,
    /// every poll) and when its optics were (the optics sweep, far rarer; null before the
    /// first). Null on stored history points.
    pub status_at: Option<String>,
    pub optics_at: Option<String>,
    /// The latest reading only: the `[optics]` thresholds its `level` was set by, for a
    /// chart to draw beside the readings. Null on stored history points.
    pub thresholds: Option<OpticsThresholds>,
}

/// Rx at or below `warningDbm` is WARNING, at or below `criticalDbm` CRITICAL (dBm).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpticsThresholds {
    pub warning_dbm: f64,
    pub critical_dbm: f64,
}

fn reading(app: &AppState, onu: &Onu, point: &OpticsPoint) -> OpticsItem {
    OpticsItem {
        onu_id: onu.id,
        olt_id: onu.olt_id,
        pon_port: onu.pon_port.to_string(),
        serial: onu.serial.to_string(),
        description: onu.description.to_string(),
        rx_power: point.rx_power,
        tx_power: point.tx_power,
        olt_rx_power: point.olt_rx_power,
        temperature: point.temperature,
        voltage: point.voltage,
        bias_current: point.bias_current,
        level: point.level,
        measured_at: app.clock.format(point.at),
        status_at: None,
        optics_at: None,
        thresholds: None,
    }
}

pub fn latest_of(app: &AppState, onu: &Onu) -> OpticsItem {
    let thresholds = app.config.optics_thresholds();
    let point = OpticsPoint::of(
        onu,
        onu.optics_at.unwrap_or(onu.last_update),
        thresholds.level(onu.rx_power.get()),
    );
    OpticsItem {
        thresholds: Some(OpticsThresholds {
            warning_dbm: thresholds.warning_dbm,
            critical_dbm: thresholds.critical_dbm,
        }),
        status_at: Some(app.clock.format(onu.last_update)),
        optics_at: onu.optics_at.map(|at| app.clock.format(at)),
        ..reading(app, onu, &point)
    }
}

#[utoipa::path(
    get,
    path = "/onus/{id}/optics",
    operation_id = "get_onu_optics",
    tag = "optics",
    summary = "Latest optics reading of an ONU",
    params(("id" = u64, Path, description = "ONU id")),
    responses((status = 200, description = "the latest reading", body = Single<OpticsItem>), BadParameter, Missing, ActorTimeout, Refusals)
)]
async fn latest(State(app): State<AppState>, OnuPath(id): OnuPath) -> ApiResult {
    let onu = app.onu(id).await?;
    one(latest_of(&app, &onu))
}

/// One point of an ONU's optics history: a reading as stored, or a summary of the
/// readings of a bucket (of `step`, or an hourly or daily rollup): each value the mean of
/// the readings that gave it, `level` the worst of them.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpticsHistoryItem {
    #[serde(flatten)]
    pub reading: OpticsItem,
    /// Of a summary, the least of each value; null on a reading as stored.
    pub min: Option<OpticsValues>,
    /// Of a summary, the greatest of each value; null on a reading as stored.
    pub max: Option<OpticsValues>,
    /// How many readings the point stands for (1: a reading as stored).
    pub count: u32,
}

/// The values of a reading: dBm, °C, volts and milliamperes, as on a reading.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpticsValues {
    pub rx_power: Option<f64>,
    pub tx_power: Option<f64>,
    pub olt_rx_power: Option<f64>,
    pub temperature: Option<f64>,
    pub voltage: Option<f64>,
    pub bias_current: Option<f64>,
}

/// A value as answered: hundredths, as the readings are stored (a mean may have more).
fn hundredths(value: Option<f64>) -> Option<f64> {
    value.map(|v| (v * 100.0).round() / 100.0)
}

fn values(point: &OpticsPoint) -> OpticsValues {
    OpticsValues {
        rx_power: hundredths(point.rx_power),
        tx_power: hundredths(point.tx_power),
        olt_rx_power: hundredths(point.olt_rx_power),
        temperature: hundredths(point.temperature),
        voltage: hundredths(point.voltage),
        bias_current: hundredths(point.bias_current),
    }
}

fn history_item(app: &AppState, onu: &Onu, summary: &Summary<OpticsPoint>) -> OpticsHistoryItem {
    let mean = values(&summary.point);
    let point = OpticsPoint {
        rx_power: mean.rx_power,
        tx_power: mean.tx_power,
        olt_rx_power: mean.olt_rx_power,
        temperature: mean.temperature,
        voltage: mean.voltage,
        bias_current: mean.bias_current,
        ..summary.point
    };
    OpticsHistoryItem {
        reading: reading(app, onu, &point),
        min: summary.min.as_ref().map(values),
        max: summary.max.as_ref().map(values),
        count: summary.count,
    }
}

#[utoipa::path(
    get,
    path = "/onus/{id}/optics/history",
    operation_id = "get_onu_optics_history",
    tag = "optics",
    summary = "Stored optics readings of an ONU",
    description = "Readings in `[from, to]`, oldest first, or with `step` summaries of buckets \
        of that length from `from` (the mean, `min` and `max` of each value, the worst level; a \
        bucket without readings is left out). Readings are kept `history.raw_retention` (7 days \
        by default); a period that starts before that, or a step of whole hours or days, is \
        answered from hourly rollups (kept `history.hourly_retention`, 90 days) or daily ones \
        (`history.daily_retention`, 5 years): `meta` says the resolution and the step of the \
        points.",
    params(("id" = u64, Path, description = "ONU id"), HistoryQuery),
    responses((status = 200, description = "the readings, oldest first", body = WithMeta<OpticsHistoryItem, HistoryMeta>), BadParameter, Missing, ActorTimeout, Refusals)
)]
async fn history(
    State(app): State<AppState>,
    OnuPath(id): OnuPath,
    Query(query): Query<HistoryQuery>,
) -> ApiResult {
    let onu = app.onu(id).await?;
    let now = Utc::now();
    let to: DateTime<Utc> = query.to.map_or(now, |at| at.instant(&app.clock));
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
    let (plan, points) = crate::history::optics(&app, onu.id, (from, to), step, limit).await?;
    with_meta(
        points.iter().map(|p| history_item(&app, &onu, p)).collect(),
        HistoryMeta::of(plan),
    )
}

#[utoipa::path(
    get,
    path = "/optics",
    operation_id = "list_optics",
    tag = "optics",
    summary = "Latest optics readings across the network",
    description = "Latest readings, worst `rxPower` first, paged.",
    params(PageQuery, ScopeQuery, OpticsQuery),
    responses((status = 200, description = "one page of readings", body = Paged<OpticsItem>), BadParameter, ActorTimeout, Refusals)
)]
async fn list(
    State(app): State<AppState>,
    Query(page_query): Query<PageQuery>,
    Query(scope): Query<ScopeQuery>,
    Query(query): Query<OpticsQuery>,
) -> ApiResult {
    let paging = page_query.paging(&app.config.paging)?;
    let search = OnuSearch {
        level: query.level,
        ..scope.search()
    };
    let (total, onus) = app
        .find_onus(search, OnuOrder::WorstRx, paging.window())
        .await?;
    page_of(
        onus.iter().map(|o| latest_of(&app, &o.onu)).collect(),
        total,
        paging,
    )
}
