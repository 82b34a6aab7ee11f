//! The supervisor: spawns one linked OLT actor per inventory OLT, reconciles the set when
//! the inventory changes, and restarts an OLT actor that fails (it reloads its last state
//! from sled), within a bounded restart intensity so a crash loop stops and is reported.
//!
//! Restart intensity: [`MAX_RESTARTS`] failures of one OLT's actor within
//! [`RESTART_WINDOW`] and the next restart is a *stopped* one: the actor serves its stored
//! state, shows OFFLINE with a `lastError` saying why, and does no device I/O until an
//! operator's `restart-session`. Should even the stopped actor keep failing, the OLT is
//! given up entirely (logged, gone from the registry) rather than restarted forever.
//!
//! ```text
//!   Supervisor ──┬── OltActor(1) ── poll task ── SnmpClient ── UDP ── OLT 1
//!                ├── OltActor(2) ── poll task ── ...
//!                └── OltActor(n)
//!   Fleet (handle): registry OltId → OltHandle (dashmap), read by API handlers directly
//! ```
//!
//! Handlers reach an OLT through the [`Fleet`] registry, never through the supervisor's
//! mailbox, so the supervisor is never a bottleneck for queries.

use crate::domain::OltId;
use crate::fleet_view::{FleetChange, FleetViewHandle};
use crate::inventory::{Inventory, OltSpec};
use crate::olt::{OltActor, OltArgs, OltHandle, OltMsg, PollSettings};
use crate::store::Store;
use dashmap::DashMap;
use ractor::rpc::CallResult;
use ractor::{
    Actor, ActorCell, ActorId, ActorProcessingErr, ActorRef, RpcReplyPort, SupervisionEvent,
};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a reload waits for the changed OLT actors to apply their new entries.
const RECONFIGURE_WAIT: Duration = Duration::from_secs(2);

/// Restarts allowed to one OLT actor within [`RESTART_WINDOW`] before it is stopped.
/// Public so that the crash-loop test in `actors/tests/supervisor.rs` crashes an OLT
/// exactly this many times.
pub const MAX_RESTARTS: usize = 5;
const RESTART_WINDOW: Duration = Duration::from_secs(60);
/// Failures within [`RESTART_WINDOW`] after which even the stopped actor is given up.
pub const MAX_FAILURES: usize = MAX_RESTARTS * 2;

/// What the supervisor does with a failed OLT actor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Restart {
    /// Restart it as usual: it reloads from sled and polls.
    Normal,
    /// Restart it stopped: stored state only, no device I/O until restart-session.
    Stopped,
    /// Leave it down.
    GiveUp,
}

/// Result of reconciling the running actors with an inventory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReconcileReport {
    pub added: usize,
    pub removed: usize,
    pub changed: usize,
    pub unchanged: usize,
}

pub enum SupervisorMsg {
    Reconcile(Inventory, RpcReplyPort<Result<ReconcileReport, String>>),
}

// Local only: ractor's `cluster` feature (ponkeeper's members, src/cluster.rs) asks
// every message type to say whether it crosses the network; this one does not.
impl ractor::Message for SupervisorMsg {}

struct SupervisorActor;

struct SupervisorArgs {
    store: Store,
    settings: Arc<PollSettings>,
    registry: Arc<DashMap<OltId, OltHandle>>,
    view: FleetViewHandle,
}

struct SupervisorState {
    store: Store,
    settings: Arc<PollSettings>,
    registry: Arc<DashMap<OltId, OltHandle>>,
    /// Where OLT actors publish; told here when an OLT leaves.
    view: FleetViewHandle,
    /// The incarnation of each OLT's current actor; every spawn takes the next number.
    incarnations: HashMap<OltId, u64>,
    last_incarnation: u64,
    specs: HashMap<OltId, OltSpec>,
    by_actor: HashMap<ActorId, OltId>,
    restarts: HashMap<OltId, VecDeque<Instant>>,
}

impl SupervisorState {
    async fn spawn_olt(
        &mut self,
        myself: &ActorRef<SupervisorMsg>,
        spec: OltSpec,
        stopped: Option<String>,
    ) -> Result<(), ActorProcessingErr> {
        let id = spec.id;
        self.last_incarnation += 1;
        let incarnation = self.last_incarnation;
        self.incarnations.insert(id, incarnation);
        let args = OltArgs {
            spec,
            store: self.store.clone(),
            settings: self.settings.clone(),
            stopped,
            view: self.view.clone(),
            incarnation,
        };
        let (actor, _) = Actor::spawn_linked(None, OltActor, args, myself.get_cell()).await?;
        self.by_actor.insert(actor.get_id(), id);
        self.registry
            .insert(id, OltHandle::new(id, actor, &self.settings));
        Ok(())
    }

    fn stop_olt(&mut self, id: OltId) {
        if let Some((_, handle)) = self.registry.remove(&id) {
            self.by_actor.remove(&handle.actor().get_id());
            handle
                .actor()
                .stop(Some("removed from the inventory".into()));
        }
        self.unpublish(id);
    }

    /// Takes an OLT that no longer runs out of the fleet view (its actor's late messages
    /// are ignored there).
    fn unpublish(&mut self, id: OltId) {
        if let Some(incarnation) = self.incarnations.remove(&id) {
            self.view.publish(FleetChange::Removed {
                olt: id,
                incarnation,
            });
        }
    }

    /// Records a failure of the OLT's actor and says how to restart it (restart intensity).
    fn restart_after_failure(&mut self, id: OltId) -> Restart {
        let now = Instant::now();
        let history = self.restarts.entry(id).or_default();
        while history
            .front()
            .is_some_and(|t| now.duration_since(*t) > RESTART_WINDOW)
        {
            history.pop_front();
        }
        history.push_back(now);
        match history.len() {
            n if n <= MAX_RESTARTS => Restart::Normal,
            n if n < MAX_FAILURES => Restart::Stopped,
            _ => Restart::GiveUp,
        }
    }
}

impl Actor for SupervisorActor {
    type Msg = SupervisorMsg;
    type State = SupervisorState;
    type Arguments = SupervisorArgs;

    async fn pre_start(
        &self,
        _myself: ActorRef<SupervisorMsg>,
        args: SupervisorArgs,
    ) -> Result<SupervisorState, ActorProcessingErr> {
        Ok(SupervisorState {
            store: args.store,
            settings: args.settings,
            registry: args.registry,
            view: args.view,
            incarnations: HashMap::new(),
            last_incarnation: 0,
            specs: HashMap::new(),
            by_actor: HashMap::new(),
            restarts: HashMap::new(),
        })
    }

    async fn handle(
        &self,
        myself: ActorRef<SupervisorMsg>,
        message: SupervisorMsg,
        state: &mut SupervisorState,
    ) -> Result<(), ActorProcessingErr> {
        match message {
            SupervisorMsg::Reconcile(inventory, reply) => {
                let mut report = ReconcileReport::default();
                let wanted: HashMap<OltId, OltSpec> =
                    inventory.olts.into_iter().map(|o| (o.id, o)).collect();
                let removed: Vec<OltId> = state
                    .specs
                    .keys()
                    .filter(|id| !wanted.contains_key(id))
                    .copied()
                    .collect();
                for id in removed {
                    state.stop_olt(id);
                    state.specs.remove(&id);
                    report.removed += 1;
                }
                let mut ids: Vec<OltId> = wanted.keys().copied().collect();
                ids.sort_unstable();
                let mut applied = Vec::new();
                for id in ids {
                    let Some(spec) = wanted.get(&id) else {
                        continue;
                    };
                    match state.specs.get(&id) {
                        Some(current) if current == spec => report.unchanged += 1,
                        Some(_) => {
                            if let Some(handle) = state.registry.get(&id) {
                                let (done, applying) = ractor::concurrency::oneshot();
                                let message =
                                    OltMsg::Reconfigure(Box::new(spec.clone()), Some(done.into()));
                                if handle.actor().send_message(message).is_ok() {
                                    applied.push(applying);
                                }
                            }
                            report.changed += 1;
                        }
                        None => {
                            // A new entry (or one given up before): a fresh restart budget.
                            state.restarts.remove(&id);
                            if let Err(e) = state.spawn_olt(&myself, spec.clone(), None).await {
                                let _ = reply
                                    .send(Err(format!("cannot start the actor of OLT {id}: {e}")));
                                return Ok(());
                            }
                            report.added += 1;
                        }
                    }
                    state.specs.insert(id, spec.clone());
                }
                // The changed OLTs have told the fleet view before the reload answers (a
                // wedged actor is not waited for long: its change still comes).
                let all_applied = async {
                    for applying in applied {
                        let _ = applying.await;
                    }
                };
                let _ = tokio::time::timeout(RECONFIGURE_WAIT, all_applied).await;
                let _ = reply.send(Ok(report));
            }
        }
        Ok(())
    }

    async fn handle_supervisor_evt(
        &self,
        myself: ActorRef<SupervisorMsg>,
        event: SupervisionEvent,
        state: &mut SupervisorState,
    ) -> Result<(), ActorProcessingErr> {
        if let SupervisionEvent::ActorFailed(cell, error) = event {
            restart_failed(&myself, state, &cell, &error.to_string()).await;
        }
        Ok(())
    }
}

async fn restart_failed(
    myself: &ActorRef<SupervisorMsg>,
    state: &mut SupervisorState,
    cell: &ActorCell,
    error: &str,
) {
    let Some(id) = state.by_actor.remove(&cell.get_id()) else {
        return;
    };
    state.registry.remove(&id);
    let Some(spec) = state.specs.get(&id).cloned() else {
        return;
    };
    let restart = state.restart_after_failure(id);
    let outcome = match restart {
        Restart::Normal => "restarted",
        Restart::Stopped => "stopped",
        Restart::GiveUp => "given_up",
    };
    metrics::counter!("ponkeeper_olt_actor_failures_total", "outcome" => outcome).increment(1);
    let stopped = match restart {
        Restart::Normal => {
            tracing::warn!(olt = id, %error, "OLT actor failed; restarting it from its stored state");
            None
        }
        Restart::Stopped => {
            let reason = format!(
                "stopped after a crash loop: the OLT's actor failed more than {MAX_RESTARTS} \
                 times within {}s (last: {error}); POST /olts/{id}/restart-session to try again",
                RESTART_WINDOW.as_secs()
            );
            tracing::error!(olt = id, %error, "OLT actor in a crash loop; restarting it stopped");
            Some(reason)
        }
        Restart::GiveUp => {
            tracing::error!(
                olt = id,
                %error,
                "OLT actor failed {MAX_FAILURES} times within {RESTART_WINDOW:?}, even stopped; \
                 giving it up until the inventory is reloaded"
            );
            state.specs.remove(&id);
            state.unpublish(id);
            return;
        }
    };
    if let Err(e) = state.spawn_olt(myself, spec, stopped).await {
        tracing::error!(olt = id, error = %e, "cannot restart the OLT actor");
        state.unpublish(id);
    }
}

/// The service's handle on the OLT fleet: the supervisor plus the registry of OLT actors.
#[derive(Clone)]
pub struct Fleet {
    supervisor: ActorRef<SupervisorMsg>,
    registry: Arc<DashMap<OltId, OltHandle>>,
    settings: Arc<PollSettings>,
    view: FleetViewHandle,
}

impl Fleet {
    /// Starts the supervisor and one actor per OLT of `inventory`.
    pub async fn start(
        store: Store,
        settings: PollSettings,
        inventory: Inventory,
    ) -> Result<Fleet, String> {
        let registry = Arc::new(DashMap::new());
        let view = FleetViewHandle::start(settings.thresholds).await?;
        let settings = Arc::new(settings);
        let args = SupervisorArgs {
            store,
            settings: settings.clone(),
            registry: registry.clone(),
            view: view.clone(),
        };
        let (supervisor, _) = Actor::spawn(None, SupervisorActor, args)
            .await
            .map_err(|e| format!("cannot start the supervisor: {e}"))?;
        let fleet = Fleet {
            supervisor,
            registry,
            settings,
            view,
        };
        fleet.reconcile(inventory).await?;
        Ok(fleet)
    }

    /// Brings the running actors in line with `inventory`.
    pub async fn reconcile(&self, inventory: Inventory) -> Result<ReconcileReport, String> {
        match self
            .supervisor
            .call(
                |reply| SupervisorMsg::Reconcile(inventory, reply),
                Some(Duration::from_secs(30)),
            )
            .await
        {
            Ok(CallResult::Success(result)) => result,
            Ok(_) | Err(_) => Err("the supervisor did not answer".into()),
        }
    }

    /// See [`PollSettings::coverage_tolerance`].
    pub fn coverage_tolerance(&self) -> Duration {
        self.settings.coverage_tolerance()
    }

    /// The handle of one OLT, if it runs.
    pub fn olt(&self, id: OltId) -> Option<OltHandle> {
        self.registry.get(&id).map(|h| h.clone())
    }

    /// The fleet view: every fleet-wide question in one message.
    pub fn view(&self) -> &FleetViewHandle {
        &self.view
    }

    /// Handles of every running OLT, ordered by id.
    pub fn olts(&self) -> Vec<OltHandle> {
        let mut handles: Vec<OltHandle> = self.registry.iter().map(|h| h.clone()).collect();
        handles.sort_by_key(|h| h.id);
        handles
    }

    /// Stops every OLT actor and the supervisor, waiting for them to finish. Each OLT
    /// actor first fails what it has in flight with [`ActionError::ShuttingDown`].
    /// ractor does not stop a supervisor's children with it, so the OLT actors (and the
    /// store handles they hold) are stopped and awaited first.
    ///
    /// [`ActionError::ShuttingDown`]: crate::olt::ActionError::ShuttingDown
    pub async fn shutdown(&self) {
        let mut cancelling = tokio::task::JoinSet::new();
        for handle in self.olts() {
            cancelling.spawn(async move {
                let _ = handle
                    .actor()
                    .call(OltMsg::Shutdown, Some(Duration::from_secs(2)))
                    .await;
            });
        }
        cancelling.join_all().await;
        let reason = Some("service shutting down".to_string());
        self.supervisor
            .stop_children_and_wait(reason.clone(), Some(Duration::from_secs(10)))
            .await;
        self.registry.clear();
        self.supervisor
            .stop_and_wait(reason, Some(Duration::from_secs(10)))
            .await
            .ok();
        self.view.stop();
    }
}
