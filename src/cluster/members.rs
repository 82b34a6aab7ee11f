//! The heartbeat: every `heartbeat`, this member asks each other member in the process
//! group for its [`Status`] (and tells its own in the question), so both sides know the
//! other is there. From what it has heard, the membership says who is live; the member
//! then runs exactly the OLTs the rendezvous hash gives it, plus those it still holds for
//! a returning owner that has not polled them yet, by reconciling its supervisor with
//! that share of the inventory, as a reload does.

use super::{remote_members, ClusterShared, MemberMsg};
use crate::state::AppState;
use ponkeeper_actors::domain::{OltId, SessionStatus};
use ractor::rpc::CallResult;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError};
use std::time::{Duration, Instant};

/// What a member says of itself at each heartbeat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub name: String,
    /// Every OLT it runs has finished a poll.
    pub ready: bool,
    /// OLT actors it runs.
    pub olts: usize,
    pub id_block: u16,
}

/// This member's status as JSON text.
pub(super) fn status_of(shared: &ClusterShared) -> String {
    let status = Status {
        name: shared.config.name.clone(),
        ready: shared.ready.load(Ordering::Acquire),
        olts: shared.olts.load(Ordering::Acquire),
        id_block: shared.config.id_block(),
    };
    serde_json::to_string(&status).unwrap_or_default()
}

/// Notes another member's status (JSON text), heard now, with the round trip when this
/// member asked, and says whose it was. A status that does not parse, or from a name not
/// configured, is logged and `None`.
pub(super) fn heard(
    shared: &ClusterShared,
    text: &str,
    round_trip: Option<Duration>,
) -> Option<String> {
    let Ok(status) = serde_json::from_str::<Status>(text) else {
        tracing::warn!("a cluster member sent a status that does not parse");
        return None;
    };
    if status.id_block == shared.config.id_block() && status.name != shared.config.name {
        tracing::error!(
            member = %status.name,
            id_block = status.id_block,
            "a cluster member allocates ids in this member's block; set `id_block` apart"
        );
    }
    let known = shared
        .membership()
        .seen(&status.name, Instant::now(), |peer| {
            peer.ready = status.ready;
            peer.olts = status.olts;
            peer.id_block = Some(status.id_block);
            if round_trip.is_some() {
                peer.round_trip = round_trip;
            }
        });
    if !known {
        tracing::warn!(member = %status.name, "a process not in [cluster] peers joined the group; ignored");
        return None;
    }
    Some(status.name)
}

/// Asks every other member for its status, once per `heartbeat`, and runs this member's
/// share of the inventory, until the cluster side stops.
pub(super) async fn heartbeat(shared: Arc<ClusterShared>, state: AppState) {
    let every = shared.config.heartbeat;
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut ready_for: Option<BTreeSet<OltId>> = None;
    // The ONU ids are copied beside the heartbeat, so a long copy never delays it.
    tokio::spawn(copy_ids(shared.clone(), state.clone()));
    while !shared.stopped.load(Ordering::Acquire) {
        tick.tick().await;
        let mine = status_of(&shared);
        let asks = remote_members().into_iter().map(|member| {
            let mine = mine.clone();
            async move {
                let asked = Instant::now();
                let answer = member
                    .call(|reply| MemberMsg::Status(mine, reply), Some(every))
                    .await;
                (member, answer, asked.elapsed())
            }
        });
        for (member, answer, took) in futures::future::join_all(asks).await {
            if let Ok(CallResult::Success(text)) = answer {
                if let Some(name) = heard(&shared, &text, Some(took)) {
                    shared
                        .by_name
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .insert(name, member);
                }
            }
        }
        let running: BTreeSet<OltId> = state.fleet.olts().iter().map(|h| h.id).collect();
        run_share(&shared, &state, &running).await;
        let running: BTreeSet<OltId> = state.fleet.olts().iter().map(|h| h.id).collect();
        shared.olts.store(running.len(), Ordering::Release);
        if ready_for.as_ref() != Some(&running) {
            // Ready once every OLT it runs has polled; asked again when the set changes.
            shared.ready.store(false, Ordering::Release);
            if all_polled(&state, &running).await {
                shared.ready.store(true, Ordering::Release);
                ready_for = Some(running);
            }
        }
    }
}

/// Reconciles the supervisor with this member's share when the share differs from what
/// runs, and logs the OLTs taken over and given back.
async fn run_share(shared: &ClusterShared, state: &AppState, running: &BTreeSet<OltId>) {
    let inventory = state.inventory();
    let share = state.cluster.share(&inventory, running);
    let wanted: BTreeSet<OltId> = share.olts.iter().map(|o| o.id).collect();
    if wanted == *running {
        return;
    }
    let taken: Vec<OltId> = wanted.difference(running).copied().collect();
    let given: Vec<OltId> = running.difference(&wanted).copied().collect();
    match state.fleet.reconcile(share).await {
        Ok(_) => {
            metrics::counter!("ponkeeper_cluster_olts_taken_total").increment(taken.len() as u64);
            metrics::counter!("ponkeeper_cluster_olts_given_total").increment(given.len() as u64);
            tracing::info!(
                member = %shared.config.name,
                taken = ?taken,
                given = ?given,
                "cluster: this member's OLTs changed"
            );
        }
        Err(error) => tracing::error!(%error, "cluster: the share could not be applied"),
    }
}

/// Whether every OLT of `running` has finished a poll (none is still connecting).
async fn all_polled(state: &AppState, running: &BTreeSet<OltId>) -> bool {
    match state.fleet.view().summaries(None).await {
        Ok(summaries) => {
            let polled = summaries
                .iter()
                .filter(|s| running.contains(&s.id) && s.status != SessionStatus::Connecting)
                .count();
            polled == running.len()
        }
        Err(_) => false,
    }
}

/// Copies the other members' ONU id assignments, once per heartbeat, until the cluster
/// side stops.
async fn copy_ids(shared: Arc<ClusterShared>, state: AppState) {
    let mut tick = tokio::time::interval(shared.config.heartbeat);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut cursors = super::ids::Cursors::default();
    while !shared.stopped.load(Ordering::Acquire) {
        tick.tick().await;
        cursors.copy(&shared, &state).await;
    }
}
