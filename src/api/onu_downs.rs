//! `GET /onus/{id}/downs`: an ONU's down history — each time it went offline, why (the
//! cause the OLT gave), when it came back and how long it was gone — newest first, with
//! whether it is flapping now (docs/api.md, "Flapping"). Read from the ONU state changes
//! every poll records (`onu.state_history_retention`, 30 days by default).

use super::doc::{ActorTimeout, BadParameter, Missing, Refusals};
use super::path::OnuPath;
use crate::error::ApiError;
use crate::history::onu_period;
use crate::http::{one, ApiResult, LocalDateTime, Query};
use crate::state::AppState;
use axum::extract::State;
use chrono::{DateTime, Utc};
use ponkeeper_actors::domain::{DownCause, OnuStateChange, OnuStatus};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(downs))
}

/// The period looked at.
#[derive(Debug, Default, Deserialize, Serialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
pub struct DownsQuery {
    /// Local date-time, e.g. `2026-11-01T00:00:00`; default: 7 days before `to`. Not
    /// before the state history kept (`onu.state_history_retention`).
    #[param(inline)]
    pub from: Option<LocalDateTime>,
    /// Local date-time; default: now.
    #[param(inline)]
    pub to: Option<LocalDateTime>,
}

/// One time the ONU was offline.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Down {
    pub went_down_at: String,
    /// Why, as the OLT said; null where the vendor gives no cause.
    pub cause: Option<DownCause>,
    /// When it was seen online again; null while it is still down.
    pub back_up_at: Option<String>,
    /// Seconds it was offline (up to now while it is still down).
    pub seconds: i64,
}

/// An ONU's down history.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OnuDowns {
    pub onu_id: u64,
    pub from: String,
    pub to: String,
    /// Newest first.
    pub downs: Vec<Down>,
    /// Since when it has been flapping (`ONU_FLAPPING`); null when it is not.
    pub flapping_since: Option<String>,
}

#[utoipa::path(
    get,
    path = "/onus/{id}/downs",
    operation_id = "get_onu_downs",
    tag = "onus",
    summary = "An ONU's down history",
    description = "Each time the ONU went offline within the period, with the cause the OLT gave, when it came back and how long it was gone, newest first; and whether it is flapping now.",
    params(("id" = u64, Path, description = "ONU id"), DownsQuery),
    responses((status = 200, description = "the down history", body = crate::http::Single<OnuDowns>), BadParameter, Missing, ActorTimeout, Refusals)
)]
async fn downs(
    State(app): State<AppState>,
    OnuPath(id): OnuPath,
    Query(asked): Query<DownsQuery>,
) -> ApiResult {
    let onu = app.onu(id).await?;
    let (from, to) = period(&app, &asked)?;
    let history = onu_period(&app, onu.olt_id, id, from, to).await?;
    let mut changes = history.baseline.into_iter().collect::<Vec<_>>();
    changes.extend(history.changes);
    let downs = down_spans(&changes, from, to.min(Utc::now()))
        .into_iter()
        .rev()
        .map(|(down, up)| Down {
            went_down_at: app.clock.format(down.at),
            cause: down.cause,
            back_up_at: up.map(|at| app.clock.format(at)),
            seconds: (up.unwrap_or(to.min(Utc::now())) - down.at).num_seconds(),
        })
        .collect();
    one(OnuDowns {
        onu_id: id,
        from: app.clock.format(from),
        to: app.clock.format(to),
        downs,
        flapping_since: app.flaps.since(id).map(|at| app.clock.format(at)),
    })
}

/// `from` and `to` (7 days before `to` by default, `to` now), checked.
fn period(app: &AppState, asked: &DownsQuery) -> Result<(DateTime<Utc>, DateTime<Utc>), ApiError> {
    let now = Utc::now();
    let to = asked.to.as_ref().map_or(now, |at| at.instant(&app.clock));
    let from = asked
        .from
        .as_ref()
        .map_or(to - chrono::Duration::days(7), |at| at.instant(&app.clock));
    if from > to {
        return Err(ApiError::InvalidParameter(
            "parameter `from` must not be after `to`".into(),
        ));
    }
    let kept = app.config.onu.state_history_retention;
    if chrono::Duration::from_std(kept).is_ok_and(|kept| from < now - kept) {
        return Err(ApiError::InvalidParameter(format!(
            "parameter `from`: the period starts before the history kept (onu.state_history_retention = {})",
            humantime::format_duration(kept)
        )));
    }
    Ok((from, to))
}

/// Each stretch offline that overlaps `[from, to]` in `changes` (oldest first, the first
/// maybe before `from`): the change that took the ONU down and when it came back.
fn down_spans(
    changes: &[OnuStateChange],
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Vec<(OnuStateChange, Option<DateTime<Utc>>)> {
    let mut spans: Vec<(OnuStateChange, Option<DateTime<Utc>>)> = Vec::new();
    let mut down: Option<&OnuStateChange> = None;
    for change in changes {
        match (change.status, down) {
            (OnuStatus::Offline, None) => down = Some(change),
            (OnuStatus::Online, Some(went)) => {
                if change.at >= from {
                    spans.push((went.clone(), Some(change.at)));
                }
                down = None;
            }
            _ => {}
        }
    }
    if let Some(went) = down.filter(|d| d.at <= to) {
        spans.push((went.clone(), None));
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(minute: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 2, 10, 0, 0).unwrap() + chrono::Duration::minutes(minute)
    }

    fn change(minute: i64, online: bool) -> OnuStateChange {
        OnuStateChange {
            at: at(minute),
            status: if online {
                OnuStatus::Online
            } else {
                OnuStatus::Offline
            },
            cause: (!online).then_some(DownCause::Los),
        }
    }

    #[test]
    fn each_stretch_offline_in_the_period_with_its_return() {
        let changes = [
            change(-30, false), // down before the period, back within it
            change(5, true),
            change(10, false),
            change(12, false), // a second reading of the same stretch
            change(20, true),
            change(40, false), // still down
        ];
        let spans = down_spans(&changes, at(0), at(60));
        let got: Vec<(DateTime<Utc>, Option<DateTime<Utc>>)> =
            spans.iter().map(|(d, up)| (d.at, *up)).collect();
        assert_eq!(
            got,
            [
                (at(-30), Some(at(5))),
                (at(10), Some(at(20))),
                (at(40), None)
            ]
        );
        assert_eq!(spans[0].0.cause, Some(DownCause::Los));
        // A stretch that ended before the period is not in it.
        assert!(down_spans(&changes[..2], at(6), at(60)).is_empty());
    }
}
