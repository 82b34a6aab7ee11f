//! Questions about what one member holds, asked of every other member: optics and
//! traffic points, config versions, ONU state history and coverage, what the СЗО registry is bound to, and the events each
//! member logged. Each member keeps the records it made; the asker merges the answers
//! with its own, so a record made before a takeover reads as one with those after it.
//! A [`Question`] crosses the link as JSON ([`MemberMsg::Ask`]) and the answer comes back
//! as JSON; what each answer holds is the asker's business ([`crate::history`],
//! [`crate::member`] answers).

use super::{remote_member, remote_members, ClusterShared, MemberMsg, ASK_TIMEOUT};
use chrono::{DateTime, Utc};
use ponkeeper_actors::domain::{OltId, OnuId};
use ponkeeper_actors::events::EventFilter;
use ractor::rpc::CallResult;
use ractor::ActorRef;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Items one question may name (ONUs, serials), and versions one answer may carry.
pub const MAX_ASKED: usize = 10_000;

/// The longest an events question waits for an event before it answers with none.
pub const MAX_EVENT_WAIT: Duration = Duration::from_secs(10);

/// A question about the records one member holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "ask", rename_all = "camelCase")]
pub enum Question {
    /// An ONU's optics or traffic points in a period. Answer: `[OpticsPoint]` or
    /// `[TrafficPoint]`.
    Points(super::history::PointsAsked),
    /// An OLT's config versions, newest first (by when they were taken, then id), those
    /// strictly older than `before` when given; at most `limit`. Answer: `(total, [ConfigBackup])`.
    #[serde(rename_all = "camelCase")]
    Configs {
        olt: OltId,
        before: Option<(DateTime<Utc>, u64)>,
        limit: usize,
    },
    /// One config version with its text. Answer: `(ConfigBackup, text)` or `null`.
    Config { olt: OltId, id: u64 },
    /// Each ONU's last state change before `at`. Answer: `[OnuStateChange | null]`, in order.
    StatesBefore { onus: Vec<OnuId>, at: DateTime<Utc> },
    /// An OLT's coverage and one of its ONUs' state changes over `[from, to]`, with the
    /// last change before. Answer: `OnuPeriod`.
    OnuPeriod {
        olt: OltId,
        onu: OnuId,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    },
    /// The ONU with each serial (lower case) this member runs, with its OLT's state.
    /// Answer: `[SzoBinding | null]`, in order.
    Bindings { serials: Vec<String> },
    /// Events the filter admits after `after` (after the newest when `null`), at most
    /// `limit`, waiting up to `wait_ms` for one. Answer: [`EventsAnswer`].
    #[serde(rename_all = "camelCase")]
    Events {
        filter: EventFilter,
        after: Option<u64>,
        limit: usize,
        wait_ms: u64,
    },
}

/// What a member answers to [`Question::Events`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventsAnswer<E> {
    /// The answering member's name.
    pub member: String,
    pub events: Vec<E>,
    /// The last id of its log it looked at: where its next question starts.
    pub seen: u64,
}

impl Question {
    /// How long the asker waits for an answer.
    pub fn timeout(&self) -> Duration {
        match self {
            Question::Events { wait_ms, .. } => {
                Duration::from_millis(*wait_ms).min(MAX_EVENT_WAIT) + ASK_TIMEOUT
            }
            _ => ASK_TIMEOUT,
        }
    }

    /// Whether the question stays within what a member answers ([`MAX_ASKED`]).
    pub fn is_bounded(&self) -> bool {
        match self {
            Question::Configs { limit, .. } | Question::Events { limit, .. } => *limit <= MAX_ASKED,
            Question::Points(asked) => asked.limit <= super::history::MAX_POINTS,
            Question::Config { .. } | Question::OnuPeriod { .. } => true,
            Question::StatesBefore { onus, .. } => onus.len() <= MAX_ASKED,
            Question::Bindings { serials } => serials.len() <= MAX_ASKED,
        }
    }
}

/// Every other member's answer to `question`, as each answered; a member that does not
/// answer in time, or answers what does not parse, is left out and logged.
pub async fn ask_each<T: DeserializeOwned>(question: &Question) -> Vec<T> {
    let text = serde_json::to_string(question).unwrap_or_default();
    let asks = remote_members().into_iter().map(|member| {
        let text = text.clone();
        async move { ask(&member, text, question.timeout()).await }
    });
    futures::future::join_all(asks)
        .await
        .into_iter()
        .flatten()
        .collect()
}

/// The answer of the member named `name` to `question`; `None` while it is out of reach,
/// silent or answering what does not parse.
pub(crate) async fn ask_member<T: DeserializeOwned>(
    shared: &ClusterShared,
    name: &str,
    question: &Question,
) -> Option<T> {
    let member = remote_member(shared, name)?;
    let text = serde_json::to_string(question).ok()?;
    ask(&member, text, question.timeout()).await
}

async fn ask<T: DeserializeOwned>(
    member: &ActorRef<MemberMsg>,
    text: String,
    timeout: Duration,
) -> Option<T> {
    let answer = member
        .call(|reply| MemberMsg::Ask(text, reply), Some(timeout))
        .await;
    match answer {
        Ok(CallResult::Success(text)) => match serde_json::from_str(&text) {
            Ok(answer) => Some(answer),
            Err(error) => {
                tracing::warn!(member = %member.get_id(), %error, "a cluster member's answer does not parse; left out");
                None
            }
        },
        _ => {
            tracing::warn!(member = %member.get_id(), "a cluster member did not answer in time; left out");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_crosses_as_tagged_json() {
        let asked = Question::Configs {
            olt: 7,
            before: None,
            limit: 20,
        };
        let text = serde_json::to_string(&asked).expect("json");
        assert!(text.starts_with("{\"ask\":\"configs\""), "{text}");
        assert_eq!(
            serde_json::from_str::<Question>(&text).expect("back"),
            asked
        );
        let waiting = Question::Events {
            filter: EventFilter::default(),
            after: Some(3),
            limit: 256,
            wait_ms: 60_000,
        };
        assert_eq!(waiting.timeout(), MAX_EVENT_WAIT + ASK_TIMEOUT);
        let too_many = Question::Bindings {
            serials: vec![String::new(); MAX_ASKED + 1],
        };
        assert!(!too_many.is_bounded() && waiting.is_bounded());
    }
}
