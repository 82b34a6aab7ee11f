//! `GET /alarms`, `GET /alarms/{id}` and `POST /alarms/{id}/ack` (docs/outages.md#alarms):
//! what is wrong now and what was, unacknowledged first, and an operator's
//! acknowledgement — FULL keys, once per alarm, recorded with the key's name, the time
//! and a comment (and, like every POST, in the audit log). The book is
//! [`crate::alarms`]'s; an alarm's message is in the reader's language.

use super::doc::{BadInput, BadParameter, Missing, Refusals, TooLarge};
use super::path::AlarmPath;
use crate::alarms::{AckRefusal, Alarm, AlarmFilter, AlarmType};
use crate::auth::Caller;
use crate::error::ApiError;
use crate::http::russian::Language;
use crate::http::{one, page_of, ApiResult, Flag, Id32, JsonBody, PageQuery, Paged, Query, Single};
use crate::state::AppState;
use axum::extract::State;
use axum::Extension;
use ponkeeper_actors::events::Severity;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The longest an acknowledgement's comment may be, in characters.
const COMMENT_MAX: usize = 512;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(detail))
        .routes(routes!(acknowledge))
}

/// Filters of `GET /alarms` and of the MCP tool `list_alarms`.
#[derive(Debug, Default, Deserialize, Serialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct AlarmsQuery {
    /// `true`: only alarms going on; `false`: only cleared ones.
    #[param(inline)]
    pub active: Option<Flag>,
    #[serde(rename = "type")]
    #[param(inline)]
    pub kind: Option<AlarmType>,
    #[param(inline)]
    pub severity: Option<Severity>,
    #[param(inline)]
    pub olt_id: Option<Id32>,
    /// `false`: only those nobody acknowledged yet.
    #[param(inline)]
    pub acknowledged: Option<Flag>,
}

/// An alarm (docs/outages.md#alarms).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlarmItem {
    pub id: u64,
    #[serde(rename = "type")]
    #[schema(inline)]
    pub kind: AlarmType,
    #[schema(inline)]
    pub severity: Severity,
    /// `olt:3`, `outage:2000311`, `onu:2000049`.
    pub object: String,
    pub olt_id: Option<u32>,
    pub onu_id: Option<u64>,
    pub outage_id: Option<u64>,
    pub message: String,
    /// Local date-times; `clearedAt` null while it goes on.
    pub started_at: String,
    pub cleared_at: Option<String>,
    /// The key that acknowledged it, when, and its comment.
    pub acknowledged_by: Option<String>,
    pub acknowledged_at: Option<String>,
    pub comment: Option<String>,
}

fn item(app: &AppState, alarm: Alarm, language: Language) -> AlarmItem {
    let time = |at| app.clock.format(at);
    AlarmItem {
        id: alarm.id,
        kind: alarm.kind,
        severity: alarm.severity,
        object: alarm.object,
        olt_id: alarm.olt_id,
        onu_id: alarm.onu_id,
        outage_id: alarm.outage_id,
        message: language.say(&alarm.message),
        started_at: time(alarm.started_at),
        cleared_at: alarm.cleared_at.map(time),
        acknowledged_by: alarm.acknowledged_by,
        acknowledged_at: alarm.acknowledged_at.map(time),
        comment: alarm.comment,
    }
}

#[utoipa::path(
    get,
    path = "/alarms",
    operation_id = "list_alarms",
    tag = "outages",
    summary = "Alarms: what is wrong now",
    description = "Unacknowledged first, then those going on, the most severe, the newest. An OLT offline or degraded, each outage, an ONU down no outage explains, an ONU's signal CRITICAL (docs/outages.md#alarms).",
    params(PageQuery, AlarmsQuery),
    responses((status = 200, description = "one page of alarms", body = Paged<AlarmItem>), BadParameter, Refusals)
)]
async fn list(
    State(app): State<AppState>,
    Query(page_query): Query<PageQuery>,
    Query(query): Query<AlarmsQuery>,
    language: Language,
) -> ApiResult {
    let paging = page_query.paging(&app.config.paging)?;
    let filter = AlarmFilter {
        active: query.active.map(Flag::yes),
        kind: query.kind,
        severity: query.severity,
        olt_id: query.olt_id.map(Id32::u32),
        acknowledged: query.acknowledged.map(Flag::yes),
    };
    let (total, alarms) = app
        .alarms
        .list(&filter, paging.offset(), paging.size as usize);
    let items = alarms
        .into_iter()
        .map(|a| item(&app, a, language))
        .collect();
    page_of(items, total, paging)
}

fn missing(id: u64) -> ApiError {
    ApiError::NotFound(format!("no alarm with id {id}"))
}

#[utoipa::path(
    get,
    path = "/alarms/{id}",
    operation_id = "get_alarm",
    tag = "outages",
    summary = "One alarm",
    params(("id" = u64, Path, description = "alarm id (the id of the event that raised it)")),
    responses((status = 200, description = "the alarm", body = Single<AlarmItem>), BadParameter, Missing, Refusals)
)]
async fn detail(
    State(app): State<AppState>,
    AlarmPath(id): AlarmPath,
    language: Language,
) -> ApiResult {
    let alarm = app.alarms.get(id).ok_or_else(|| missing(id))?;
    one(item(&app, alarm, language))
}

/// An acknowledgement.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AckBody {
    /// What the operator is doing about it (at most 512 characters, any language).
    #[schema(
        example = "бригада выехала",
        max_length = 512,
        pattern = r"^[^\u0000-\u001F\u007F-\u009F\u00AD\u0600-\u0605\u061C\u06DD\u070F\u0890\u0891\u08E2\u180E\u200B-\u200F\u2028-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\uFFF9-\uFFFB]*$"
    )]
    comment: Option<String>,
}

#[utoipa::path(
    post,
    path = "/alarms/{id}/ack",
    operation_id = "acknowledge_alarm",
    tag = "outages",
    summary = "Acknowledge an alarm",
    description = "FULL keys only. Records who (the key's name), when and an optional comment, once: a second acknowledgement is 409 CONFLICT naming the first. Also in the audit log.",
    params(("id" = u64, Path, description = "alarm id")),
    request_body = AckBody,
    responses((status = 200, description = "the alarm, acknowledged", body = Single<AlarmItem>), BadInput, Missing, (status = 409, description = "`CONFLICT`: already acknowledged"), TooLarge, Refusals)
)]
async fn acknowledge(
    State(app): State<AppState>,
    AlarmPath(id): AlarmPath,
    caller: Option<Extension<Caller>>,
    language: Language,
    JsonBody(body): JsonBody<AckBody>,
) -> ApiResult {
    let comment = match body
        .comment
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
    {
        Some(c) if c.chars().count() > COMMENT_MAX => {
            return Err(ApiError::InvalidParameter(format!(
                "field `comment` must have at most {COMMENT_MAX} characters, got {}",
                c.chars().count()
            )))
        }
        other => other,
    };
    if let Some(why) = comment.as_deref().and_then(crate::text::first_unwelcome) {
        return Err(ApiError::InvalidParameter(format!("field `comment` {why}")));
    }
    let by = caller.map_or_else(|| "unknown".to_string(), |Extension(c)| c.key_name);
    match app.alarms.acknowledge(id, &by, comment) {
        Ok(alarm) => one(item(&app, alarm, language)),
        Err(AckRefusal::NoSuchAlarm) => Err(missing(id)),
        Err(AckRefusal::Already { by, at }) => Err(ApiError::Conflict(format!(
            "alarm {id} was acknowledged by `{by}` at {}",
            app.clock.format(at)
        ))),
        Err(AckRefusal::Store(error)) => Err(ApiError::Internal(error)),
    }
}
