//! What this process does as a cluster member (docs/scale-out.md), above the state it
//! serves: the member actor that answers the other members (node counters, status, ONU
//! id assignments, the records of [`answers`], forwarded requests), the heartbeat that keeps the
//! membership and runs this member's share of the OLTs ([`heartbeat`]), and the layer
//! that routes each request to the member that can answer it ([`forward`]). The links,
//! the membership and the wire forms are [`crate::cluster`]'s, which knows nothing of
//! the service.

mod answers;
pub mod forward;
mod heartbeat;

use crate::cluster::{self, ids, members, ClusterShared, MemberMsg};
use crate::state::AppState;
use anyhow::Context;
use ponkeeper_actors::fleet_view::FleetViewHandle;
use ractor::{Actor, ActorProcessingErr, ActorRef};
use std::sync::Arc;

/// Starts the member: the member actor, answering from `state` and through `rest` (this
/// process's REST surface), and the heartbeat. Nothing without `[cluster]`.
pub async fn start(state: &AppState, rest: axum::Router) -> anyhow::Result<()> {
    let Some(shared) = state.cluster.shared().cloned() else {
        return Ok(());
    };
    let Some(server) = state.cluster.open_port().await? else {
        return Ok(());
    };
    shared.set_rest(rest.clone());
    let member_state = MemberState {
        view: state.fleet.view().clone(),
        store: state.store.clone(),
        app: state.clone(),
        shared: shared.clone(),
        rest,
    };
    let (member, _) = Actor::spawn(None, Member, member_state)
        .await
        .context("cannot start the cluster member")?;
    tokio::spawn(heartbeat::run(shared.clone(), state.clone()));
    let config = shared.config();
    tracing::info!(
        name = %config.name,
        listen = %config.listen,
        peers = ?config.peers.iter().map(|p| &p.name).collect::<Vec<_>>(),
        id_block = config.id_block(),
        "cluster member started"
    );
    state.cluster.set_running(server, member);
    Ok(())
}

/// What the member actor answers from.
struct MemberState {
    view: FleetViewHandle,
    store: ponkeeper_actors::store::Store,
    /// The service, for its history reads.
    app: AppState,
    shared: Arc<ClusterShared>,
    /// This process's REST surface, for requests other members forward.
    rest: axum::Router,
}

/// The member actor: answers from this process's fleet view, membership and API.
struct Member;

impl Actor for Member {
    type Msg = MemberMsg;
    type State = MemberState;
    type Arguments = MemberState;

    async fn pre_start(
        &self,
        myself: ActorRef<MemberMsg>,
        state: MemberState,
    ) -> Result<MemberState, ActorProcessingErr> {
        ractor::pg::join(cluster::GROUP.to_string(), vec![myself.get_cell()]);
        Ok(state)
    }

    async fn handle(
        &self,
        _myself: ActorRef<MemberMsg>,
        message: MemberMsg,
        state: &mut MemberState,
    ) -> Result<(), ActorProcessingErr> {
        // Each answer comes from a task: nothing is awaited inside the handler.
        match message {
            MemberMsg::NodeCounters(ids, reply) => {
                let view = state.view.clone();
                tokio::spawn(async move {
                    let _ = reply.send(cluster::local_answer(&view, &ids).await);
                });
            }
            MemberMsg::Status(theirs, reply) => {
                members::heard(&state.shared, &theirs, None);
                let _ = reply.send(members::status_of(&state.shared));
            }
            MemberMsg::Ids(asked, reply) => {
                let (store, block) = (state.store.clone(), state.shared.config().id_block());
                tokio::spawn(async move {
                    let _ = reply.send(ids::answer(store, block, &asked).await);
                });
            }
            MemberMsg::Ask(asked, reply) => {
                let app = state.app.clone();
                let name = state.shared.config().name.clone();
                tokio::spawn(async move {
                    let _ = reply.send(answers::records(&app, &name, &asked).await);
                });
            }
            MemberMsg::Http(request, reply) => {
                let rest = state.rest.clone();
                tokio::spawn(async move {
                    let _ = reply.send(forward::answer_here(rest, &request).await);
                });
            }
        }
        Ok(())
    }
}
