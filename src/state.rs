//! The state every handler shares ([`AppState`]): configuration, clock, store, the OLT
//! fleet, the key ring and rate limits, and the inventory in force, which a reload swaps.
//! Its query helpers are how the API and MCP reach the fleet: fleet-wide lists are one
//! question to the fleet view (every summary, ONUs across OLTs); one OLT's or one ONU's
//! questions go to that OLT's actor, found by its handle or the ONU's owner. [`crate::app::App::start`] builds it; handlers, the admin socket and the
//! background jobs ([`crate::jobs`]) read it.

use crate::clock::Clock;
use crate::config::Config;
use crate::error::ApiError;
use crate::keys::KeyRing;
use crate::rate_limit::RateLimits;
use crate::records::Records;
use ponkeeper_actors::domain::{OltId, Onu, OnuId, Subscriber};
use ponkeeper_actors::fleet_view::{BoundOnu, OnuSearch, Window};
use ponkeeper_actors::inventory::Inventory;
use ponkeeper_actors::olt::{OltHandle, OltSummary};
use ponkeeper_actors::onu_table::{OnuFilter, OnuOrder, OnuQuery};
use ponkeeper_actors::outages::{PlantChange, SplitterId};
use ponkeeper_actors::store::Store;
use ponkeeper_actors::supervisor::{Fleet, ReconcileReport};
use std::sync::{Arc, RwLock};

/// State every handler sees; cheap to clone.
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Shared>,
}

/// What an [`AppState`] derefs to.
pub struct Shared {
    pub config: Config,
    pub clock: Clock,
    pub store: Store,
    /// The service's own records (API keys, audit) in the store's database.
    pub records: Records,
    pub fleet: Fleet,
    pub keys: KeyRing,
    pub rate_limits: RateLimits,
    /// The event log (docs/events.md).
    pub events: ponkeeper_actors::events::EventLog,
    /// The running webhooks (docs/events.md), started by `App::start`, replaced on SIGHUP.
    pub webhooks: crate::webhooks::Webhooks,
    /// The other `serve` processes of `[cluster]` and this one's share of the OLTs;
    /// its links started by `App::start`.
    pub cluster: crate::cluster::Cluster,
    /// The active alarms and their history (docs/outages.md#alarms), started by `App::start`.
    pub alarms: crate::alarms::Alarms,
    /// The ONUs flapping now (docs/events.md, `ONU_FLAPPING`), started by `App::start`.
    pub flaps: crate::flapping::Flaps,
    /// The running notification channels (docs/outages.md#notifications), replaced on SIGHUP.
    pub notifiers: crate::notify::Notifiers,
    /// Where the traffic and optics history is kept (`[history] backend`).
    pub history: crate::history::HistoryBackend,
    inventory: RwLock<Arc<Inventory>>,
}

impl std::ops::Deref for AppState {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.inner
    }
}

/// Why an inventory reload was refused.
#[derive(Debug)]
pub enum ReloadError {
    Invalid(String),
    Fleet(String),
}

impl AppState {
    /// The state of a service whose fleet runs `inventory`.
    pub fn new(
        config: Config,
        clock: Clock,
        (store, records, history): (Store, Records, crate::history::HistoryBackend),
        (fleet, cluster): (Fleet, crate::cluster::Cluster),
        keys: KeyRing,
        (rate_limits, events): (RateLimits, ponkeeper_actors::events::EventLog),
        inventory: Inventory,
    ) -> AppState {
        AppState {
            inner: Arc::new(Shared {
                config,
                clock,
                store,
                records,
                fleet,
                keys,
                rate_limits,
                events,
                webhooks: crate::webhooks::Webhooks::default(),
                cluster,
                alarms: crate::alarms::Alarms::default(),
                flaps: crate::flapping::Flaps::default(),
                notifiers: crate::notify::Notifiers::default(),
                history,
                inventory: RwLock::new(Arc::new(inventory)),
            }),
        }
    }

    /// The inventory in force.
    pub fn inventory(&self) -> Arc<Inventory> {
        match self.inventory.read() {
            Ok(guard) => guard.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// The handle of OLT `id`, or 404.
    pub fn olt(&self, id: OltId) -> Result<OltHandle, ApiError> {
        self.fleet
            .olt(id)
            .ok_or_else(|| ApiError::NotFound(format!("no OLT with id {id}")))
    }

    /// Every OLT's summary, ordered by id: one question to the fleet view.
    pub async fn summaries(&self) -> Result<Vec<OltSummary>, ApiError> {
        Ok(self.fleet.view().summaries(None).await?)
    }

    /// ONUs across the fleet matching `search` in `order`: the total count and the items
    /// of `window`, answered by the fleet view from its indexes.
    pub async fn find_onus(
        &self,
        search: OnuSearch,
        order: OnuOrder,
        window: Window,
    ) -> Result<(usize, Vec<BoundOnu>), ApiError> {
        let page = self.fleet.view().onus(search, order, window).await?;
        Ok((page.total, page.items))
    }

    /// ONUs of one OLT matching `filter`, by id, asked of that OLT's actor.
    pub async fn onus_of(
        &self,
        olt: &OltHandle,
        filter: OnuFilter,
        window: Window,
    ) -> Result<(usize, Vec<Onu>), ApiError> {
        let query = OnuQuery {
            filter,
            order: OnuOrder::Id,
            limit: window.offset + window.limit,
            thresholds: self.config.optics_thresholds(),
        };
        let page = olt.find_onus(query).await?;
        let items = page
            .onus
            .into_iter()
            .skip(window.offset)
            .take(window.limit)
            .collect();
        Ok((page.total, items))
    }

    /// One ONU by its id, asked of the actor of the OLT that owns it.
    pub async fn onu(&self, id: OnuId) -> Result<Onu, ApiError> {
        let handle = self.onu_olt(id)?;
        handle
            .onu(id)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("no ONU with id {id}")))
    }

    /// The handle of the OLT that owns ONU `id`, or 404.
    pub fn onu_olt(&self, id: OnuId) -> Result<OltHandle, ApiError> {
        let not_found = || ApiError::NotFound(format!("no ONU with id {id}"));
        let owner = self.store.onu_owner(id)?.ok_or_else(not_found)?;
        self.fleet.olt(owner).ok_or_else(not_found)
    }

    /// Binds `subscriber` to ONU `id` (an empty one unbinds it): kept in the records,
    /// then held by the fleet view, whose lists show it and find ONUs by it.
    pub async fn bind_subscriber(
        &self,
        id: OnuId,
        subscriber: &Subscriber,
    ) -> Result<(), ApiError> {
        self.records.bind_subscriber(id, subscriber).await?;
        self.fleet.view().bind(vec![(id, Some(subscriber.clone()))]);
        Ok(())
    }

    /// Places ONUs under splitters (`None` takes one off): kept in the records, then held
    /// by the fleet view for the outage book and the splitter pages.
    pub async fn place(
        &self,
        placements: Vec<(OnuId, Option<SplitterId>)>,
    ) -> Result<(), ApiError> {
        if let Err(gone) = self.records.place(&placements).await? {
            return Err(ApiError::NotFound(format!("no splitter with id {gone}")));
        }
        self.fleet.view().plant(PlantChange::Place(placements));
        Ok(())
    }

    /// Makes the inventory's `[[splitters]]` real in the records and tells the fleet view;
    /// a store that refuses is logged (the OLTs of the reload are in force already).
    async fn declare_plant(&self, inventory: &Inventory) {
        match self.records.declare_splitters(&inventory.splitters).await {
            Ok(declared) if declared.is_empty() => {}
            Ok(declared) => {
                crate::outages::log_declared(&declared);
                let freed = declared.freed.iter().map(|onu| (*onu, None)).collect();
                self.fleet.view().plant(PlantChange::Place(freed));
                if let Err(error) = self.splitters_changed() {
                    tracing::error!(%error, "the fleet view keeps the splitters it had");
                }
            }
            Err(error) => {
                tracing::error!(%error, "inventory splitters not applied: the store refused")
            }
        }
    }

    /// Tells the fleet view every splitter the records now keep.
    pub fn splitters_changed(&self) -> Result<(), ApiError> {
        let splitters = self.records.splitters()?;
        self.fleet.view().plant(PlantChange::Splitters(splitters));
        Ok(())
    }

    /// Each ONU's subscriber binding, in the order of `ids`, as the fleet view holds them.
    pub async fn subscribers(&self, ids: Vec<OnuId>) -> Result<Vec<Option<Subscriber>>, ApiError> {
        Ok(self.fleet.view().subscribers(ids).await?)
    }

    /// Replaces the running webhooks with `hooks`, each delivering from the event log.
    pub fn run_webhooks(&self, hooks: Vec<crate::webhooks::Webhook>) -> anyhow::Result<()> {
        self.webhooks
            .apply((&self.store, &self.events, self.clock), hooks)
    }

    /// Replaces the running notification channels with `channels`, each reading the
    /// alarms' change log.
    pub fn run_notifiers(&self, channels: Vec<crate::channels::Channel>) -> anyhow::Result<()> {
        let state = self.clone();
        let facts = crate::notify::facts::Gatherer {
            fleet: self.fleet.clone(),
            records: self.records.clone(),
            inventory: Arc::new(move || state.inventory()),
        };
        self.notifiers
            .apply((&self.store, &self.alarms, self.clock), facts, channels)
    }

    /// Re-reads the inventory file; on success the fleet is reconciled with it.
    pub async fn reload_inventory(&self) -> Result<(Arc<Inventory>, ReconcileReport), ReloadError> {
        let inventory = Inventory::load(&self.config.inventory)
            .map_err(|e| ReloadError::Invalid(e.to_string()))?;
        let running = self.fleet.olts().iter().map(|h| h.id).collect();
        let report = self
            .fleet
            .reconcile(self.cluster.share(&inventory, &running))
            .await
            .map_err(ReloadError::Fleet)?;
        crate::events::bind_szo(&self.events, &inventory);
        self.declare_plant(&inventory).await;
        let inventory = Arc::new(inventory);
        match self.inventory.write() {
            Ok(mut guard) => *guard = inventory.clone(),
            Err(poisoned) => *poisoned.into_inner() = inventory.clone(),
        }
        tracing::info!(
            added = report.added,
            removed = report.removed,
            changed = report.changed,
            unchanged = report.unchanged,
            "inventory reloaded"
        );
        Ok((inventory, report))
    }
}
