//! The fleet view: one actor that answers every fleet-wide question in one message.
//! OLT actors ask nobody; they *tell* it: whenever something an OLT actor owns changes
//! (its summary and counters, ports, VLANs, an ONU row), the actor sends the change here
//! before it answers whoever caused it, so a read after an acknowledged action sees the
//! action's result. The view folds the changes into indexes ([`aggregate`]) and answers
//! the OLT list, node counters, ONU search, the optics worst-first list, VLANs across OLTs
//! and the rows that `/metrics` and the СЗО registry need. A question about one OLT or one
//! ONU still goes to its OLT actor.
//!
//! ```text
//!   OltActor(1) ──┐ FleetChange (cast)
//!   OltActor(2) ──┼──────────────────▶ FleetViewActor ◀── FleetViewHandle::olts(..) (call)
//!   Supervisor  ──┘ (Removed)              │
//!                                          └─ FleetAggregate: indexes over the OLT
//!                                             actors' own tables (Arc, not copies)
//! ```
//!
//! Start-up and restarts: each OLT actor publishes a snapshot of its whole state in
//! `pre_start`, tagged with the incarnation the supervisor gave that spawn; the snapshot
//! replaces whatever an earlier incarnation published, and messages from an older
//! incarnation are ignored ([`crate::published`]).
//!
//! Events: once the service hands it the event log ([`FleetViewHandle::feed_events`]),
//! the view derives event drafts from each change against the rows it held, before
//! folding the change in, and sends them to the log if the change was applied
//! ([`crate::events`]).

pub mod aggregate;
mod bindings;
mod id_pages;
mod serials;
#[cfg(test)]
mod tests;
pub mod text_index;

pub use crate::published::{diff_onus, FleetChange, OltUpdate, OnuChange};
pub use aggregate::{
    FleetAggregate, FleetVlan, NodeCounters, OltFilter, OltGauges, OnuSearch, Page, Window,
};

use crate::domain::{NodeId, OltId, Onu, OnuId, OpticsThresholds, Subscriber};
use crate::events::EventLog;
use crate::onu_table::OnuOrder;
use crate::outages::{
    Outage, OutageArchive, OutageBook, OutageFilter, OutageId, OutageRules, Plant, PlantChange,
    SplitterId,
};
use crate::published::OltSummary;
use ractor::rpc::CallResult;
use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use std::time::{Duration, Instant};

/// An ONU id as its high and low 32-bit halves: the view's serial index and optics order
/// keep ids this way so that their entries align to four bytes, not eight. The halves
/// compare as the id does.
fn id_halves(id: OnuId) -> [u32; 2] {
    [(id >> 32) as u32, id as u32]
}

fn id_of_halves([high, low]: [u32; 2]) -> OnuId {
    u64::from(high) << 32 | u64::from(low)
}

/// Time allowed to a question; the view answers from memory.
const QUERY_TIMEOUT: Duration = Duration::from_secs(5);

/// Messages of the fleet view.
pub enum FleetViewMsg {
    /// A change an OLT actor (or the supervisor) published.
    Publish(FleetChange),
    Olts(OltFilter, Window, RpcReplyPort<Page<OltSummary>>),
    Summaries(Option<Vec<OltId>>, RpcReplyPort<Vec<OltSummary>>),
    Gauges(RpcReplyPort<Vec<OltGauges>>),
    NodeCounters(Vec<NodeId>, RpcReplyPort<Vec<NodeCounters>>),
    Onus(
        Box<OnuSearch>,
        OnuOrder,
        Window,
        RpcReplyPort<Page<BoundOnu>>,
    ),
    /// Each ONU's subscriber binding, in the order asked.
    Subscribers(Vec<OnuId>, RpcReplyPort<Vec<Option<Subscriber>>>),
    /// ONUs bound to subscribers (`None`: unbound), as the records now keep them.
    Bind(Vec<(OnuId, Option<Subscriber>)>),
    OnusBySerial(Vec<String>, RpcReplyPort<Vec<Option<Onu>>>),
    /// Each ONU's row with its binding, in the order asked.
    OnusById(Vec<OnuId>, RpcReplyPort<Vec<Option<BoundOnu>>>),
    Vlans(Box<OnuSearch>, Option<u16>, RpcReplyPort<Vec<FleetVlan>>),
    /// From now on, derive events and send them to this log.
    FeedEvents(EventLog),
    /// From now on, keep outages by these rules in this archive, starting from these.
    FeedOutages(OutageRules, Option<OutageArchive>, Vec<Outage>),
    /// Splitters or placements the records now keep.
    Plant(PlantChange),
    /// The outages a filter admits, newest first.
    Outages(OutageFilter, RpcReplyPort<Vec<Outage>>),
    /// One outage, going on or ended within the retention.
    Outage(OutageId, RpcReplyPort<Option<Outage>>),
    /// The ONUs placed directly under a splitter, with their bindings.
    PlacedUnder(SplitterId, RpcReplyPort<Vec<BoundOnu>>),
    /// Post a batch of the search keys snapshots left for later (see `post_text`).
    PostText,
}

// Local only: ractor's `cluster` feature (ponkeeper's members, src/cluster.rs) asks
// every message type to say whether it crosses the network; this one does not.
impl ractor::Message for FleetViewMsg {}

/// Snapshots keep the text index's posting for later until none came for this long (a
/// start sends 10,000 of them back to back)...
const POST_QUIET: Duration = Duration::from_millis(100);
/// ...and then it posts this many keys a message (~50 ms), so questions queued meanwhile
/// are answered between batches.
const POST_BATCH: usize = 16_384;
/// Snapshots that never stop (actors restarting in a loop) delay it no longer than this.
const POST_AT_LATEST: Duration = Duration::from_secs(10);

struct FleetViewActor;

/// The row of ONU `id` with its binding, if the view holds it.
fn bound(view: &FleetAggregate, id: OnuId) -> Option<BoundOnu> {
    view.known_onu(id).map(|onu| BoundOnu {
        onu: onu.clone(),
        subscriber: view.subscriber(id).cloned(),
    })
}

impl FleetViewState {
    /// `Publish`: derives the change's events against the rows held before it, folds it
    /// in, lets the outage book read the events against the rows after it, and sends
    /// them all to the log; a snapshot's search keys are posted once snapshots stop.
    fn publish(&mut self, change: FleetChange, myself: &ActorRef<FleetViewMsg>) {
        let view = &mut self.view;
        let snapshot = matches!(&change, FleetChange::Olt(update) if update.snapshot);
        let olt = match &change {
            FleetChange::Olt(update) => Some(update.olt),
            _ => None,
        };
        let drafts = self
            .events
            .as_ref()
            .map(|_| crate::events::derive(view, &change));
        if view.apply(change) {
            if let (Some(log), Some(drafts)) = (&self.events, drafts) {
                let now = chrono::Utc::now();
                log.send(self.outages.observe(olt, drafts, view, &self.plant, now));
            }
        }
        if snapshot && view.text_behind() {
            self.last_snapshot = Instant::now();
            if !self.posting {
                self.posting = true;
                self.behind_since = self.last_snapshot;
                myself.send_after(POST_QUIET, || FleetViewMsg::PostText);
            }
        }
    }

    /// `PostText`: once snapshots stopped coming (or after `POST_AT_LATEST` of them),
    /// posts a batch of search keys and sends itself the next, behind whatever is queued
    /// by then.
    fn post_text(&mut self, myself: &ActorRef<FleetViewMsg>) {
        let quiet_for = self.last_snapshot.elapsed();
        if quiet_for < POST_QUIET && self.behind_since.elapsed() < POST_AT_LATEST {
            myself.send_after(POST_QUIET - quiet_for, || FleetViewMsg::PostText);
            return;
        }
        if self.view.post_text(POST_BATCH) {
            let _ = myself.send_message(FleetViewMsg::PostText);
        } else {
            self.posting = false;
        }
    }
}

/// The aggregate, the plant and the outage book, and once fed, the event log.
struct FleetViewState {
    view: FleetAggregate,
    events: Option<EventLog>,
    plant: Plant,
    outages: OutageBook,
    /// When the last snapshot came, and since when search keys wait to be posted.
    last_snapshot: Instant,
    behind_since: Instant,
    /// A `PostText` is on its way.
    posting: bool,
}

impl Actor for FleetViewActor {
    type Msg = FleetViewMsg;
    type State = FleetViewState;
    type Arguments = OpticsThresholds;

    async fn pre_start(
        &self,
        _myself: ActorRef<FleetViewMsg>,
        thresholds: OpticsThresholds,
    ) -> Result<FleetViewState, ActorProcessingErr> {
        Ok(FleetViewState {
            view: FleetAggregate::new(thresholds),
            events: None,
            plant: Plant::default(),
            outages: OutageBook::new(OutageRules::default(), None, Vec::new()),
            last_snapshot: Instant::now(),
            behind_since: Instant::now(),
            posting: false,
        })
    }

    async fn handle(
        &self,
        myself: ActorRef<FleetViewMsg>,
        message: FleetViewMsg,
        state: &mut FleetViewState,
    ) -> Result<(), ActorProcessingErr> {
        let view = &mut state.view;
        match message {
            FleetViewMsg::Publish(change) => state.publish(change, &myself),
            FleetViewMsg::PostText => state.post_text(&myself),
            FleetViewMsg::FeedEvents(log) => state.events = Some(log),
            FleetViewMsg::FeedOutages(rules, archive, kept) => {
                state.outages = OutageBook::new(rules, archive, kept);
            }
            FleetViewMsg::Plant(change) => state.plant.apply(change),
            FleetViewMsg::Outages(filter, reply) => {
                let _ = reply.send(state.outages.list(&filter));
            }
            FleetViewMsg::Outage(id, reply) => {
                let _ = reply.send(state.outages.get(id).cloned());
            }
            FleetViewMsg::PlacedUnder(splitter, reply) => {
                let placed = state.plant.placed_under(splitter).into_iter();
                let _ = reply.send(placed.filter_map(|id| bound(view, id)).collect());
            }
            FleetViewMsg::Olts(filter, window, reply) => {
                let _ = reply.send(view.olts(&filter, window));
            }
            FleetViewMsg::Summaries(only, reply) => {
                let _ = reply.send(view.summaries(only.as_deref()));
            }
            FleetViewMsg::Gauges(reply) => {
                let _ = reply.send(view.gauges());
            }
            FleetViewMsg::NodeCounters(nodes, reply) => {
                let _ = reply.send(view.node_counters(&nodes));
            }
            FleetViewMsg::Onus(search, order, window, reply) => {
                let page = view.onus(&search, order, window);
                let _ = reply.send(Page {
                    total: page.total,
                    items: page
                        .items
                        .into_iter()
                        .map(|onu| BoundOnu {
                            subscriber: view.subscriber(onu.id).cloned(),
                            onu,
                        })
                        .collect(),
                });
            }
            FleetViewMsg::Subscribers(ids, reply) => {
                let bound = ids.iter().map(|id| view.subscriber(*id).cloned());
                let _ = reply.send(bound.collect());
            }
            FleetViewMsg::Bind(bindings) => {
                for (id, subscriber) in bindings {
                    view.bind(id, subscriber);
                }
            }
            FleetViewMsg::OnusById(ids, reply) => {
                let _ = reply.send(ids.iter().map(|id| bound(view, *id)).collect());
            }
            FleetViewMsg::OnusBySerial(serials, reply) => {
                let _ = reply.send(view.onus_by_serial(&serials));
            }
            FleetViewMsg::Vlans(scope, vlan_id, reply) => {
                let _ = reply.send(view.vlans(&scope, vlan_id));
            }
        }
        Ok(())
    }
}

/// An ONU's row with its subscriber binding, as fleet-wide lists answer.
#[derive(Debug, Clone, PartialEq)]
pub struct BoundOnu {
    pub onu: Onu,
    pub subscriber: Option<Subscriber>,
}

/// Why the fleet view did not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FleetViewError {
    #[error("the fleet view did not answer within {0:?}")]
    NoReply(Duration),
    #[error("the fleet view is not running")]
    Gone,
}

/// The handle publishers and readers share; cheap to clone.
#[derive(Clone)]
pub struct FleetViewHandle {
    actor: ActorRef<FleetViewMsg>,
}

impl FleetViewHandle {
    /// Starts the view, empty until the OLT actors publish.
    pub async fn start(thresholds: OpticsThresholds) -> Result<FleetViewHandle, String> {
        let (actor, _) = Actor::spawn(None, FleetViewActor, thresholds)
            .await
            .map_err(|e| format!("cannot start the fleet view: {e}"))?;
        Ok(FleetViewHandle { actor })
    }

    /// Stops the view (after the OLT actors, at shutdown).
    pub fn stop(&self) {
        self.actor.stop(Some("the service is stopping".into()));
    }

    /// Hands the view the event log: changes published after this become events.
    pub fn feed_events(&self, log: EventLog) {
        if let Err(error) = self.actor.send_message(FleetViewMsg::FeedEvents(log)) {
            tracing::warn!(%error, "the fleet view is gone; no events will be derived");
        }
    }

    /// Tells the view of a change. Never waits: the message is queued before the caller
    /// goes on, so a question asked after it is answered after it is applied.
    pub fn publish(&self, change: FleetChange) {
        if let Err(error) = self.actor.send_message(FleetViewMsg::Publish(change)) {
            tracing::warn!(%error, "the fleet view is gone; a change was not published");
        }
    }

    async fn ask<T: Send + 'static>(
        &self,
        message: impl FnOnce(RpcReplyPort<T>) -> FleetViewMsg,
    ) -> Result<T, FleetViewError> {
        match self.actor.call(message, Some(QUERY_TIMEOUT)).await {
            Ok(CallResult::Success(answer)) => Ok(answer),
            Ok(CallResult::Timeout) => Err(FleetViewError::NoReply(QUERY_TIMEOUT)),
            Ok(CallResult::SenderError) | Err(_) => Err(FleetViewError::Gone),
        }
    }

    /// `GET /olts`: the OLTs matching `filter`, by id.
    pub async fn olts(
        &self,
        filter: OltFilter,
        window: Window,
    ) -> Result<Page<OltSummary>, FleetViewError> {
        self.ask(|reply| FleetViewMsg::Olts(filter, window, reply))
            .await
    }

    /// Every OLT's summary, or those of `only`, by id.
    pub async fn summaries(
        &self,
        only: Option<Vec<OltId>>,
    ) -> Result<Vec<OltSummary>, FleetViewError> {
        self.ask(|reply| FleetViewMsg::Summaries(only, reply)).await
    }

    /// Each OLT's summary and ports (for `/metrics`).
    pub async fn gauges(&self) -> Result<Vec<OltGauges>, FleetViewError> {
        self.ask(FleetViewMsg::Gauges).await
    }

    /// The counters of each node in `nodes`, in that order.
    pub async fn node_counters(
        &self,
        nodes: Vec<NodeId>,
    ) -> Result<Vec<NodeCounters>, FleetViewError> {
        self.ask(|reply| FleetViewMsg::NodeCounters(nodes, reply))
            .await
    }

    /// ONUs across the fleet matching `search`, in `order`, each with its binding.
    pub async fn onus(
        &self,
        search: OnuSearch,
        order: OnuOrder,
        window: Window,
    ) -> Result<Page<BoundOnu>, FleetViewError> {
        self.ask(|reply| FleetViewMsg::Onus(Box::new(search), order, window, reply))
            .await
    }

    /// Each ONU's subscriber binding, in the order of `ids`.
    pub async fn subscribers(
        &self,
        ids: Vec<OnuId>,
    ) -> Result<Vec<Option<Subscriber>>, FleetViewError> {
        self.ask(|reply| FleetViewMsg::Subscribers(ids, reply))
            .await
    }

    /// Tells the view the bindings the records now keep (`None`: unbound). Answers
    /// asked after this see them.
    pub fn bind(&self, bindings: Vec<(OnuId, Option<Subscriber>)>) {
        let _ = self.actor.send_message(FleetViewMsg::Bind(bindings));
    }

    /// Hands the view the outage book's rules, archive and kept outages (at start).
    pub fn feed_outages(&self, rules: OutageRules, archive: OutageArchive, kept: Vec<Outage>) {
        let _ = self
            .actor
            .send_message(FleetViewMsg::FeedOutages(rules, Some(archive), kept));
    }

    /// Tells the view the splitters or placements the records now keep.
    pub fn plant(&self, change: PlantChange) {
        let _ = self.actor.send_message(FleetViewMsg::Plant(change));
    }

    /// The outages `filter` admits, newest first.
    pub async fn outages(&self, filter: OutageFilter) -> Result<Vec<Outage>, FleetViewError> {
        self.ask(|reply| FleetViewMsg::Outages(filter, reply)).await
    }

    /// One outage, going on or ended within the retention.
    pub async fn outage(&self, id: OutageId) -> Result<Option<Outage>, FleetViewError> {
        self.ask(|reply| FleetViewMsg::Outage(id, reply)).await
    }

    /// The ONUs placed directly under `splitter`, with their bindings, by id.
    pub async fn placed_under(
        &self,
        splitter: SplitterId,
    ) -> Result<Vec<BoundOnu>, FleetViewError> {
        self.ask(|reply| FleetViewMsg::PlacedUnder(splitter, reply))
            .await
    }

    /// Each ONU's row and binding, in the order of `ids` (`None`: not held).
    pub async fn onus_by_id(
        &self,
        ids: Vec<OnuId>,
    ) -> Result<Vec<Option<BoundOnu>>, FleetViewError> {
        self.ask(|reply| FleetViewMsg::OnusById(ids, reply)).await
    }

    /// The ONU holding each serial, in the same order.
    pub async fn onus_by_serial(
        &self,
        serials: Vec<String>,
    ) -> Result<Vec<Option<Onu>>, FleetViewError> {
        self.ask(|reply| FleetViewMsg::OnusBySerial(serials, reply))
            .await
    }

    /// VLANs of the OLTs `scope` names (its `olt_id` and `node_id`), by OLT.
    pub async fn vlans(
        &self,
        scope: OnuSearch,
        vlan_id: Option<u16>,
    ) -> Result<Vec<FleetVlan>, FleetViewError> {
        self.ask(|reply| FleetViewMsg::Vlans(Box::new(scope), vlan_id, reply))
            .await
    }
}
