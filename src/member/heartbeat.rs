//! The heartbeat: every `heartbeat`, this member asks each other member in the process
//! group for its status (and tells its own in the question), so both sides know the other
//! is there. From what it has heard, the membership says who is live; the member then runs
//! exactly the OLTs the rendezvous hash gives it, plus those it still holds for a
//! returning owner that has not polled them yet, by reconciling its supervisor with that
//! share of the inventory, as a reload does. Beside it, the copy of the other members'
//! ONU id assignments ([`crate::cluster::ids`]); and for the OLTs it takes, their latest
//! config versions ([`crate::history::adopt_latest`]), asked once every live peer answers.

use crate::cluster::members::{heard, status_of};
use crate::cluster::{remote_members, ClusterShared, MemberMsg};
use crate::state::AppState;
use ponkeeper_actors::domain::{OltId, SessionStatus};
use ractor::rpc::CallResult;
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Instant;

/// Asks every other member for its status, once per `heartbeat`, and runs this member's
/// share of the inventory, until the cluster side stops.
pub(super) async fn run(shared: Arc<ClusterShared>, state: AppState) {
    let every = shared.config().heartbeat;
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut ready_for: Option<BTreeSet<OltId>> = None;
    // OLTs taken whose latest config versions are still to be asked for: at first every
    // OLT this member started with.
    let mut adopting: BTreeSet<OltId> = state.fleet.olts().iter().map(|h| h.id).collect();
    // The ONU ids are copied beside the heartbeat, so a long copy never delays it.
    tokio::spawn(copy_ids(shared.clone(), state.clone()));
    while !shared.stopped() {
        tick.tick().await;
        let mine = status_of(&shared);
        let asks = remote_members().into_iter().map(|member| {
            let mine = mine.clone();
            async move {
                let asked = Instant::now();
                let answer = member
                    .call(|reply| MemberMsg::Status(mine, reply), Some(every))
                    .await;
                (member, answer, asked, asked.elapsed())
            }
        });
        for (member, answer, asked, took) in futures::future::join_all(asks).await {
            if let Ok(CallResult::Success(text)) = answer {
                if let Some(name) = heard(&shared, &text, Some((asked, took))) {
                    shared.remember(name, member);
                }
            }
        }
        let running: BTreeSet<OltId> = state.fleet.olts().iter().map(|h| h.id).collect();
        adopting.extend(run_share(&shared, &state, &running).await);
        if !adopting.is_empty() && shared.membership().live_in_sight(Instant::now()) {
            let (state, taken) = (state.clone(), std::mem::take(&mut adopting));
            tokio::spawn(async move {
                let taken: Vec<OltId> = taken.into_iter().collect();
                let adopted = crate::history::adopt_latest(&state, &taken).await;
                tracing::info!(adopted, "cluster: taken OLTs' latest config versions kept");
            });
        }
        let running: BTreeSet<OltId> = state.fleet.olts().iter().map(|h| h.id).collect();
        if ready_for.as_ref() != Some(&running) {
            // Ready once every OLT it runs has polled; asked again when the set changes.
            let ready = all_polled(&state, &running).await;
            shared.set_progress(ready, running.len());
            if ready {
                ready_for = Some(running);
            }
        }
    }
}

/// Reconciles the supervisor with this member's share when the share differs from what
/// runs, and logs the OLTs taken over and given back; returns those taken.
async fn run_share(
    shared: &ClusterShared,
    state: &AppState,
    running: &BTreeSet<OltId>,
) -> Vec<OltId> {
    let inventory = state.inventory();
    // Once a heartbeat: only the ids, and the inventory copied only when they differ.
    let wanted = state.cluster.wanted(&inventory, running);
    if wanted == *running {
        return Vec::new();
    }
    let share = state.cluster.share(&inventory, running);
    let taken: Vec<OltId> = wanted.difference(running).copied().collect();
    let given: Vec<OltId> = running.difference(&wanted).copied().collect();
    match state.fleet.reconcile(share).await {
        Ok(_) => {
            metrics::counter!("ponkeeper_cluster_olts_taken_total").increment(taken.len() as u64);
            metrics::counter!("ponkeeper_cluster_olts_given_total").increment(given.len() as u64);
            tracing::info!(
                member = %shared.config().name,
                taken = ?taken,
                given = ?given,
                "cluster: this member's OLTs changed"
            );
            taken
        }
        Err(error) => {
            tracing::error!(%error, "cluster: the share could not be applied");
            Vec::new()
        }
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
    let mut tick = tokio::time::interval(shared.config().heartbeat);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut cursors = crate::cluster::ids::Cursors::default();
    while !shared.stopped() {
        tick.tick().await;
        cursors.copy(&shared, &state.store).await;
    }
}
