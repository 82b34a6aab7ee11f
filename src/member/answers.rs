//! What this member answers when another asks about the records it keeps: the
//! [`Question`]s of [`crate::cluster::questions`] ([`records`]): optics and traffic
//! points, config versions, ONU state history and coverage, СЗО bindings and events.
//! Every answer is JSON; a question that does not parse or asks for too much, or a read
//! that fails, answers `null`, which the asker leaves out and logs.

use crate::cluster::history::{PointKind, PointsAsked, MAX_POINTS};
use crate::cluster::questions::{EventsAnswer, Question, MAX_EVENT_WAIT};
use crate::error::ApiError;
use crate::history::{self, Plan, Resolution};
use crate::state::AppState;
use ponkeeper_actors::domain::OpticsPoint;
use ponkeeper_actors::events::{Event, EventFilter};
use ponkeeper_actors::traffic::TrafficPoint;
use std::time::Duration;

/// The most events one answer carries.
const MAX_EVENTS: usize = 256;

/// This member's stored points for `asked`, read as the asker plans.
async fn points(
    app: &AppState,
    asked: PointsAsked,
) -> Result<Result<String, serde_json::Error>, ApiError> {
    let limit = asked.limit.min(MAX_POINTS);
    let plan = Plan {
        resolution: asked.resolution.unwrap_or(Resolution::Raw),
        step: asked.step_seconds.filter(|s| *s > 0),
    };
    let period = (asked.from, asked.to);
    match asked.kind {
        PointKind::Optics => {
            history::local_series::<OpticsPoint>(app, asked.kind, asked.onu, period, plan, limit)
                .await
                .map(|points| serde_json::to_string(&points))
        }
        PointKind::Traffic => {
            history::local_series::<TrafficPoint>(app, asked.kind, asked.onu, period, plan, limit)
                .await
                .map(|points| serde_json::to_string(&points))
        }
    }
}

/// This member's answer to a [`Question`] (JSON in, JSON out).
pub(super) async fn records(app: &AppState, name: &str, asked: &str) -> String {
    let question = match serde_json::from_str::<Question>(asked) {
        Ok(question) if question.is_bounded() => question,
        _ => return "null".into(),
    };
    let answer = match question {
        Question::Points(asked) => points(app, asked).await,
        Question::Configs { olt, before, limit } => history::local_configs(app, olt, before, limit)
            .await
            .map(|a| serde_json::to_string(&a)),
        Question::Config { olt, id } => history::local_config(app, olt, id)
            .await
            .map(|a| serde_json::to_string(&a)),
        Question::StatesBefore { onus, at } => history::local_states_before(app, onus, at)
            .await
            .map(|a| serde_json::to_string(&a)),
        Question::OnuPeriod { olt, onu, from, to } => {
            history::local_onu_period(app, olt, onu, from, to)
                .await
                .map(|a| serde_json::to_string(&a))
        }
        Question::Bindings { serials } => crate::api::szo::bindings::local(app, serials)
            .await
            .map(|a| serde_json::to_string(&a)),
        Question::Events {
            filter,
            after,
            limit,
            wait_ms,
        } => {
            let wait = Duration::from_millis(wait_ms).min(MAX_EVENT_WAIT);
            events(app, name, filter, after, (limit.clamp(1, MAX_EVENTS), wait))
                .await
                .map(|a| serde_json::to_string(&a))
        }
    };
    match answer {
        Ok(Ok(text)) => text,
        Ok(Err(error)) => {
            tracing::warn!(%error, "an answer to another member does not serialise");
            "null".into()
        }
        Err(error) => {
            tracing::warn!(%error, "cannot answer another member's question");
            "null".into()
        }
    }
}

/// [`crate::events::wait_after`] as an answer naming this member.
async fn events(
    app: &AppState,
    name: &str,
    filter: EventFilter,
    after: Option<u64>,
    (limit, wait): (usize, Duration),
) -> Result<EventsAnswer<Event>, ApiError> {
    let (events, seen) = crate::events::wait_after(&app.events, &filter, after, (limit, wait))
        .await
        .map_err(ApiError::Internal)?;
    Ok(EventsAnswer {
        member: name.to_string(),
        events,
        seen,
    })
}
