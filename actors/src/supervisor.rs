//! The supervisor: spawns one linked OLT actor per inventory OLT, reconciles the set when
//! the inventory changes, and restarts an OLT actor that fails (it reloads its last state
//! from sled), within a bounded restart intensity so a crash loop stops and is reported.
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

/// Restarts allowed to one OLT actor within [`RESTART_WINDOW`] before it is given up.
const MAX_RESTARTS: usize = 5;
const RESTART_WINDOW: Duration = Duration::from_secs(60);

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

struct SupervisorActor;

struct SupervisorArgs {
    store: Store,
    settings: Arc<PollSettings>,
    registry: Arc<DashMap<OltId, OltHandle>>,
}

struct SupervisorState {
    store: Store,
    settings: Arc<PollSettings>,
    registry: Arc<DashMap<OltId, OltHandle>>,
    specs: HashMap<OltId, OltSpec>,
    by_actor: HashMap<ActorId, OltId>,
    restarts: HashMap<OltId, VecDeque<Instant>>,
}

impl SupervisorState {
    async fn spawn_olt(
        &mut self,
        myself: &ActorRef<SupervisorMsg>,
        spec: OltSpec,
    ) -> Result<(), ActorProcessingErr> {
        let id = spec.id;
        let args = OltArgs {
            spec,
            store: self.store.clone(),
            settings: self.settings.clone(),
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
    }

    /// Whether the OLT may be restarted once more (restart intensity).
    fn may_restart(&mut self, id: OltId) -> bool {
        let now = Instant::now();
        let history = self.restarts.entry(id).or_default();
        while history
            .front()
            .is_some_and(|t| now.duration_since(*t) > RESTART_WINDOW)
        {
            history.pop_front();
        }
        if history.len() >= MAX_RESTARTS {
            return false;
        }
        history.push_back(now);
        true
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
                for id in ids {
                    let Some(spec) = wanted.get(&id) else {
                        continue;
                    };
                    match state.specs.get(&id) {
                        Some(current) if current == spec => report.unchanged += 1,
                        Some(_) => {
                            if let Some(handle) = state.registry.get(&id) {
                                let _ = handle
                                    .actor()
                                    .send_message(OltMsg::Reconfigure(Box::new(spec.clone())));
                            }
                            report.changed += 1;
                        }
                        None => {
                            if let Err(e) = state.spawn_olt(&myself, spec.clone()).await {
                                let _ = reply
                                    .send(Err(format!("cannot start the actor of OLT {id}: {e}")));
                                return Ok(());
                            }
                            report.added += 1;
                        }
                    }
                    state.specs.insert(id, spec.clone());
                }
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
    if !state.may_restart(id) {
        tracing::error!(
            olt = id,
            %error,
            "OLT actor failed {MAX_RESTARTS} times within {RESTART_WINDOW:?}; not restarting it"
        );
        return;
    }
    tracing::warn!(olt = id, %error, "OLT actor failed; restarting it from its stored state");
    if let Err(e) = state.spawn_olt(myself, spec).await {
        tracing::error!(olt = id, error = %e, "cannot restart the OLT actor");
    }
}

/// The service's handle on the OLT fleet: the supervisor plus the registry of OLT actors.
#[derive(Clone)]
pub struct Fleet {
    supervisor: ActorRef<SupervisorMsg>,
    registry: Arc<DashMap<OltId, OltHandle>>,
    settings: Arc<PollSettings>,
}

impl Fleet {
    /// Starts the supervisor and one actor per OLT of `inventory`.
    pub async fn start(
        store: Store,
        settings: PollSettings,
        inventory: Inventory,
    ) -> Result<Fleet, String> {
        let registry = Arc::new(DashMap::new());
        let settings = Arc::new(settings);
        let args = SupervisorArgs {
            store,
            settings: settings.clone(),
            registry: registry.clone(),
        };
        let (supervisor, _) = Actor::spawn(None, SupervisorActor, args)
            .await
            .map_err(|e| format!("cannot start the supervisor: {e}"))?;
        let fleet = Fleet {
            supervisor,
            registry,
            settings,
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

    /// Handles of every running OLT, ordered by id.
    pub fn olts(&self) -> Vec<OltHandle> {
        let mut handles: Vec<OltHandle> = self.registry.iter().map(|h| h.clone()).collect();
        handles.sort_by_key(|h| h.id);
        handles
    }

    /// Stops every OLT actor and the supervisor, waiting for them to finish.
    /// ractor does not stop a supervisor's children with it, so the OLT actors (and the
    /// store handles they hold) are stopped and awaited first.
    pub async fn shutdown(&self) {
        let reason = Some("service shutting down".to_string());
        self.supervisor
            .stop_children_and_wait(reason.clone(), Some(Duration::from_secs(10)))
            .await;
        self.registry.clear();
        self.supervisor
            .stop_and_wait(reason, Some(Duration::from_secs(10)))
            .await
            .ok();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{SessionStatus, Vendor};
    use crate::inventory::SnmpSpec;

    fn one_disabled_olt() -> Inventory {
        Inventory {
            szo: Vec::new(),
            nodes: vec![],
            olts: vec![OltSpec {
                id: 7,
                ip: [127, 0, 0, 1].into(),
                vendor: Vendor::Huawei,
                model: "MA5800-X7".into(),
                city: "Kazan".into(),
                node: None,
                enabled: false,
                snmp: SnmpSpec::default(),
                ssh: None,
            }],
        }
    }

    fn settings() -> PollSettings {
        PollSettings {
            interval: Duration::from_secs(60),
            timeout: Duration::from_secs(1),
            retries: 0,
            deadline: Duration::from_secs(5),
            offline_after: 3,
            bulk_varbinds: 64,
            concurrency: Arc::new(tokio::sync::Semaphore::new(4)),
            ..PollSettings::default()
        }
    }

    /// Crashes the current actor of OLT 7 and waits for the registry to change.
    async fn crash(fleet: &Fleet) -> Option<OltHandle> {
        let before = fleet.olt(7).expect("running").actor().get_id();
        fleet
            .olt(7)
            .expect("running")
            .actor()
            .send_message(OltMsg::Crash)
            .expect("send");
        for _ in 0..200 {
            tokio::time::sleep(Duration::from_millis(10)).await;
            match fleet.olt(7) {
                Some(handle) if handle.actor().get_id() != before => return Some(handle),
                _ => {}
            }
        }
        None
    }

    #[tokio::test]
    async fn shutdown_stops_every_olt_actor() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("store");
        let fleet = Fleet::start(store, settings(), one_disabled_olt())
            .await
            .expect("fleet");
        let handle = fleet.olt(7).expect("running");
        assert!(handle.summary().await.is_ok());
        fleet.shutdown().await;
        assert!(fleet.olt(7).is_none());
        assert_eq!(
            handle.summary().await,
            Err(crate::olt::ActionError::Gone(7))
        );
        // Every store handle is gone with the actors: the directory opens again.
        Store::open(dir.path()).expect("the store is free again");
    }

    #[tokio::test]
    async fn a_crashed_olt_actor_is_restarted_until_the_intensity_is_spent() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("store");
        let fleet = Fleet::start(store, settings(), one_disabled_olt())
            .await
            .expect("fleet");

        for _ in 0..MAX_RESTARTS {
            let restarted = crash(&fleet).await.expect("restarted");
            let summary = restarted.summary().await.expect("answers after restart");
            assert_eq!(summary.status, SessionStatus::Disabled);
        }
        // One crash too many within the window: the supervisor gives up on this OLT.
        assert!(crash(&fleet).await.is_none());
        assert!(fleet.olt(7).is_none());
        fleet.shutdown().await;
    }
}
