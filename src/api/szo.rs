//! СЗО — socially significant objects (docs/api.md, "СЗО"): the registry from the inventory, each
//! object's live status from its ONU and OLT, its outages, and availability reports
//! against the SLA. Objects are bound to ONUs by serial at request time, so a binding
//! whose ONU has not been seen yet is simply `UNBOUND` until it is.

pub(crate) mod bindings;

use super::doc::{ActorTimeout, BadParameter, Missing, Refusals};
use super::path::SzoPath;
use crate::error::ApiError;
use crate::history;
use crate::http::{ApiResult, Id32, LocalDateTime, Meta, PageQuery, Paged, Paging, Query, Single};
use crate::state::AppState;
use axum::extract::State;
use axum::response::IntoResponse;
use axum::Json;
use bindings::Binding;
use chrono::{DateTime, Utc};
use ponkeeper_actors::domain::{NodeId, OltId, Onu, OnuId, OnuStatus, SessionStatus};

use ponkeeper_actors::inventory::{SzoSpec, SzoType};
use ponkeeper_actors::szo::{self, Availability, OutageCause};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(availability))
        .routes(routes!(detail))
        .routes(routes!(outages))
}

/// Filters of the registry (`GET /szo`, `GET /szo/availability` and their MCP tools).
#[derive(Debug, Default, Deserialize, Serialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct SzoQuery {
    /// Only objects of this kind.
    #[serde(rename = "type")]
    #[param(inline)]
    pub kind: Option<SzoType>,
    /// City, matched case-insensitively.
    pub city: Option<String>,
    /// Communication node of the object's OLT.
    #[param(inline)]
    pub node_id: Option<Id32>,
}

/// `status` of `GET /szo`.
#[derive(Debug, Default, Deserialize, Serialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
pub struct SzoStatusQuery {
    /// Only objects in this state: `DOWN` for those without service now.
    #[param(inline)]
    pub status: Option<SzoStatus>,
}

/// An optional period; default: the last 30 days up to `to` (default now).
#[derive(Debug, Default, Deserialize, Serialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
pub struct PeriodQuery {
    /// Local date-time, e.g. `2026-11-01T00:00:00`; not after `to`, within `szo.history_retention`.
    #[param(inline)]
    pub from: Option<LocalDateTime>,
    /// Local date-time.
    #[param(inline)]
    pub to: Option<LocalDateTime>,
}

/// The period of a report, both ends required.
#[derive(Debug, Deserialize, Serialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
pub struct RequiredPeriodQuery {
    /// Local date-time, e.g. `2026-11-01T00:00:00`; not after `to`, within `szo.history_retention`.
    #[param(inline)]
    pub from: LocalDateTime,
    /// Local date-time.
    #[param(inline)]
    pub to: LocalDateTime,
}

/// Live status of an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SzoStatus {
    Up,
    Down,
    Unknown,
    Unbound,
}

/// An object (docs/api.md, "СЗО").
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SzoItem {
    pub id: u32,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: SzoType,
    pub city: String,
    pub address: String,
    pub bandwidth_mbps: u32,
    pub connected_at: String,
    pub sla_percent: f64,
    pub onu_id: Option<OnuId>,
    pub olt_id: Option<OltId>,
    pub node_id: Option<NodeId>,
    pub status: SzoStatus,
    pub since: Option<String>,
    pub rx_power: Option<f64>,
    pub last_update: Option<String>,
}

/// Each object's binding by lower-case serial ([`bindings`]) and, when asked for, the
/// last state change before now of each bound ONU whose OLT is online.
struct Bindings {
    by_serial: HashMap<String, Binding>,
    since: HashMap<OnuId, DateTime<Utc>>,
}

impl Bindings {
    /// The registry's bindings across the cluster, with the ONUs' last changes when
    /// `with_since` (one batched read of every member's state history).
    async fn gather(app: &AppState, with_since: bool) -> Result<Bindings, ApiError> {
        let serials: Vec<String> = app
            .inventory()
            .szo
            .iter()
            .map(|o| o.onu_serial.to_ascii_lowercase())
            .collect();
        let by_serial = bindings::gather(app, serials).await?;
        let mut since = HashMap::new();
        if with_since {
            let onus: Vec<OnuId> = by_serial
                .values()
                .filter(|b| b.olt_status == SessionStatus::Online)
                .map(|b| b.onu.id)
                .collect();
            let now = Utc::now() + chrono::Duration::milliseconds(1);
            let last = history::states_before(app, onus.clone(), now).await?;
            since = onus
                .into_iter()
                .zip(last)
                .filter_map(|(onu, change)| Some((onu, change?.at)))
                .collect();
        }
        Ok(Bindings { by_serial, since })
    }

    fn of(&self, object: &SzoSpec) -> Option<&Binding> {
        self.by_serial.get(&object.onu_serial.to_ascii_lowercase())
    }

    fn onu(&self, object: &SzoSpec) -> Option<&Onu> {
        self.of(object).map(|b| &b.onu)
    }
}

fn item(app: &AppState, object: &SzoSpec, bindings: &Bindings) -> SzoItem {
    let bound = bindings.of(object);
    let (status, since) = match bound {
        Some(b) => match b.olt_status {
            SessionStatus::Online => {
                let status = match b.onu.status {
                    OnuStatus::Online => SzoStatus::Up,
                    OnuStatus::Offline => SzoStatus::Down,
                };
                (status, bindings.since.get(&b.onu.id).copied())
            }
            SessionStatus::Degraded | SessionStatus::Offline => {
                (SzoStatus::Down, Some(b.olt_since))
            }
            SessionStatus::Connecting | SessionStatus::Disabled => {
                (SzoStatus::Unknown, Some(b.olt_since))
            }
        },
        None => (SzoStatus::Unbound, None),
    };
    let onu = bound.map(|b| &b.onu);
    SzoItem {
        id: object.id,
        name: object.name.clone(),
        kind: object.kind,
        city: object.city.clone(),
        address: object.address.clone(),
        bandwidth_mbps: object.bandwidth_mbps,
        connected_at: object.connected_at.to_string(),
        sla_percent: object.sla_percent,
        onu_id: onu.map(|o| o.id),
        olt_id: onu.map(|o| o.olt_id),
        node_id: bound.and_then(|b| b.node),
        status,
        since: since.map(|at| app.clock.format(at)),
        rx_power: onu.and_then(|o| o.rx_power.get()),
        last_update: onu.map(|o| app.clock.format(o.last_update)),
    }
}

/// The registry filtered by `type`, `city` and `nodeId` (and `status` where given).
fn select<'a>(objects: &'a [SzoSpec], bindings: &Bindings, query: &SzoQuery) -> Vec<&'a SzoSpec> {
    let kind = query.kind;
    let city = query.city.as_deref();
    let node = query.node_id.map(Id32::u32);
    let mut selected: Vec<&SzoSpec> = objects
        .iter()
        .filter(|o| kind.is_none_or(|k| o.kind == k))
        .filter(|o| city.is_none_or(|c| o.city.eq_ignore_ascii_case(c)))
        .filter(|o| node.is_none_or(|n| bindings.of(o).is_some_and(|b| b.node == Some(n))))
        .collect();
    selected.sort_by_key(|o| o.id);
    selected
}

#[utoipa::path(
    get,
    path = "/szo",
    operation_id = "list_szo",
    tag = "szo",
    summary = "List socially significant objects",
    description = "Objects ordered by id with their live status, filtered and paged.",
    params(PageQuery, SzoQuery, SzoStatusQuery),
    responses((status = 200, description = "one page of objects", body = Paged<SzoItem>), BadParameter, ActorTimeout, Refusals)
)]
async fn list(
    State(app): State<AppState>,
    Query(page_query): Query<PageQuery>,
    Query(query): Query<SzoQuery>,
    Query(SzoStatusQuery { status }): Query<SzoStatusQuery>,
) -> ApiResult {
    let paging = page_query.paging(&app.config.paging)?;
    let inventory = app.inventory();
    let bindings = Bindings::gather(&app, true).await?;
    let items: Vec<SzoItem> = select(&inventory.szo, &bindings, &query)
        .into_iter()
        .map(|object| item(&app, object, &bindings))
        .filter(|item| status.is_none_or(|s| item.status == s))
        .collect();
    crate::http::page(items, paging)
}

fn object(
    inventory: &ponkeeper_actors::inventory::Inventory,
    id: u32,
) -> Result<&SzoSpec, ApiError> {
    inventory
        .szo
        .iter()
        .find(|o| o.id == id)
        .ok_or_else(|| ApiError::NotFound(format!("no СЗО with id {id}")))
}

#[utoipa::path(
    get,
    path = "/szo/{id}",
    operation_id = "get_szo",
    tag = "szo",
    summary = "One socially significant object",
    params(("id" = u32, Path, description = "object id")),
    responses((status = 200, description = "the object", body = Single<SzoItem>), BadParameter, Missing, ActorTimeout, Refusals)
)]
async fn detail(State(app): State<AppState>, SzoPath(id): SzoPath) -> ApiResult {
    let inventory = app.inventory();
    let object = object(&inventory, id)?;
    let bindings = Bindings::gather(&app, true).await?;
    crate::http::one(item(&app, object, &bindings))
}

/// `from` and `to` of a report (by default the 30 days up to `to`, by default now),
/// checked against each other and the history kept.
fn period(
    app: &AppState,
    (from, to): (Option<&LocalDateTime>, Option<&LocalDateTime>),
) -> Result<(DateTime<Utc>, DateTime<Utc>), ApiError> {
    let now = Utc::now();
    let to = to.map_or(now, |at| at.instant(&app.clock));
    let from = from.map_or(to - chrono::Duration::days(30), |at| at.instant(&app.clock));
    // `from == to` is an empty period: no time in it, nothing to refuse.
    if from > to {
        return Err(ApiError::InvalidParameter(
            "parameter `from` must not be after `to`".into(),
        ));
    }
    let retention = app.config.szo.history_retention;
    if let Ok(kept) = chrono::Duration::from_std(retention) {
        if from < now - kept {
            return Err(ApiError::InvalidParameter(format!(
                "parameter `from`: the period starts before the history kept (szo.history_retention = {})",
                humantime::format_duration(retention)
            )));
        }
    }
    Ok((from, to))
}

/// Availability of one object over `[from, to)`.
async fn report(
    app: &AppState,
    object: &SzoSpec,
    onu: Option<&Onu>,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Result<Availability, ApiError> {
    let now = Utc::now();
    let connected = app
        .clock
        .parse(&object.connected_at.to_string())
        .unwrap_or(DateTime::<Utc>::MIN_UTC);
    let from = from.max(connected);
    let to = to.min(now);
    if from >= to {
        return Ok(szo::availability(&[], now));
    }
    let Some(onu) = onu else {
        return Ok(szo::availability(
            &szo::timeline(from, to, &[], None, &[]),
            now,
        ));
    };
    let history::OnuPeriod {
        mut coverage,
        baseline,
        changes,
    } = history::onu_period(app, onu.olt_id, onu.id, from, to).await?;
    // The live stretch reaches to the present while polls keep coming.
    let tolerance = chrono::Duration::from_std(app.fleet.coverage_tolerance())
        .unwrap_or(chrono::Duration::zero());
    if let Some(last) = coverage.last_mut() {
        if to == now && now - last.end <= tolerance {
            last.end = now;
        }
    }
    let spans = szo::timeline(from, to, &coverage, baseline.as_ref(), &changes);
    Ok(szo::availability(&spans, now))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct OutageItem {
    start: String,
    end: Option<String>,
    duration_seconds: i64,
    cause: OutageCause,
}

#[utoipa::path(
    get,
    path = "/szo/{id}/outages",
    operation_id = "list_szo_outages",
    tag = "szo",
    summary = "Outages of one object",
    description = "Outages within the period, oldest first; an open outage has `end: null`.",
    params(("id" = u32, Path, description = "object id"), PeriodQuery),
    responses((status = 200, description = "the outages", body = Single<Vec<OutageItem>>), BadParameter, Missing, ActorTimeout, Refusals)
)]
async fn outages(
    State(app): State<AppState>,
    SzoPath(id): SzoPath,
    Query(asked): Query<PeriodQuery>,
) -> ApiResult {
    let inventory = app.inventory();
    let object = object(&inventory, id)?;
    let (from, to) = period(&app, (asked.from.as_ref(), asked.to.as_ref()))?;
    let bindings = Bindings::gather(&app, false).await?;
    let now = Utc::now();
    let report = report(&app, object, bindings.onu(object), from, to).await?;
    let items: Vec<OutageItem> = report
        .outages
        .iter()
        .map(|o| OutageItem {
            start: app.clock.format(o.start),
            end: o.end.map(|e| app.clock.format(e)),
            duration_seconds: (o.end.unwrap_or(now) - o.start).num_seconds(),
            cause: o.cause,
        })
        .collect();
    crate::http::one(items)
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct AvailabilityItem {
    id: u32,
    name: String,
    up_seconds: u64,
    down_seconds: u64,
    unknown_seconds: u64,
    availability_percent: Option<f64>,
    outages: usize,
    sla_met: Option<bool>,
}

#[derive(Debug, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct TypeSummary {
    objects: usize,
    up_seconds: u64,
    down_seconds: u64,
    unknown_seconds: u64,
    availability_percent: Option<f64>,
    outages: usize,
    sla_met: usize,
    sla_missed: usize,
}

/// A page of the availability report, with totals per object type over all pages.
#[derive(Debug, Serialize, ToSchema)]
struct AvailabilityPage {
    /// Always `true`.
    success: bool,
    data: Vec<AvailabilityItem>,
    meta: Meta,
    /// Totals by object type (`SCHOOL`, `HOSPITAL`, ...).
    summary: BTreeMap<&'static str, TypeSummary>,
}

#[utoipa::path(
    get,
    path = "/szo/availability",
    operation_id = "get_szo_availability",
    tag = "szo",
    summary = "Availability report of the СЗО against their SLA",
    description = "Up, down and unknown time of each object over `[from, to)`, with totals per type; paged.",
    params(PageQuery, RequiredPeriodQuery, SzoQuery),
    responses((status = 200, description = "one page of the report", body = AvailabilityPage), BadParameter, ActorTimeout, Refusals)
)]
async fn availability(
    State(app): State<AppState>,
    Query(page_query): Query<PageQuery>,
    Query(asked): Query<RequiredPeriodQuery>,
    Query(query): Query<SzoQuery>,
) -> ApiResult {
    let paging: Paging = page_query.paging(&app.config.paging)?;
    let (from, to) = period(&app, (Some(&asked.from), Some(&asked.to)))?;
    let inventory = app.inventory();
    let bindings = Bindings::gather(&app, false).await?;
    let mut items = Vec::new();
    let mut summary: BTreeMap<&'static str, TypeSummary> = BTreeMap::new();
    for object in select(&inventory.szo, &bindings, &query) {
        let report = report(&app, object, bindings.onu(object), from, to).await?;
        let percent = report.percent();
        let sla_met = percent.map(|p| p >= object.sla_percent);
        let entry = summary.entry(object.kind.as_str()).or_default();
        entry.objects += 1;
        entry.up_seconds += report.up_seconds;
        entry.down_seconds += report.down_seconds;
        entry.unknown_seconds += report.unknown_seconds;
        entry.outages += report.outages.len();
        match sla_met {
            Some(true) => entry.sla_met += 1,
            Some(false) => entry.sla_missed += 1,
            None => {}
        }
        items.push(AvailabilityItem {
            id: object.id,
            name: object.name.clone(),
            up_seconds: report.up_seconds,
            down_seconds: report.down_seconds,
            unknown_seconds: report.unknown_seconds,
            availability_percent: percent,
            outages: report.outages.len(),
            sla_met,
        });
    }
    for entry in summary.values_mut() {
        let known = entry.up_seconds + entry.down_seconds;
        entry.availability_percent = (known > 0)
            .then(|| (entry.up_seconds as f64 / known as f64 * 10_000.0).round() / 100.0);
    }
    let total_count = items.len();
    let data: Vec<AvailabilityItem> = items
        .into_iter()
        .skip(paging.offset())
        .take(paging.size as usize)
        .collect();
    Ok(Json(AvailabilityPage {
        success: true,
        data,
        meta: Meta {
            page: paging.page,
            size: paging.size,
            total_count,
        },
        summary,
    })
    .into_response())
}
