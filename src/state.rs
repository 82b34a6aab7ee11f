//! The state every handler shares ([`AppState`]): configuration, clock, store, the OLT
//! fleet, the key ring and rate limits, and the inventory in force, which a reload swaps.
//! Its query helpers are how the API and MCP reach the fleet: one OLT's handle, every
//! summary at once, the OLTs a list covers, the ONU fan-out across OLT actors, the owner
//! of one ONU. [`crate::app::App::start`] builds it; handlers, the admin socket and the
//! background jobs ([`crate::jobs`]) read it.

use crate::api::ApiError;
use crate::auth::KeyRing;
use crate::clock::Clock;
use crate::config::Config;
use crate::rate_limit::RateLimits;
use crate::records::Records;
use ponkeeper_actors::domain::{OltId, Onu, OnuId};
use ponkeeper_actors::inventory::Inventory;
use ponkeeper_actors::olt::{OltHandle, OltSummary};
use ponkeeper_actors::onu_table::OnuQuery;
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
        (store, records): (Store, Records),
        fleet: Fleet,
        keys: KeyRing,
        rate_limits: RateLimits,
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

    /// Every OLT's summary, asked of all actors at once, ordered by id.
    pub async fn summaries(&self) -> Result<Vec<OltSummary>, ApiError> {
        let handles = self.fleet.olts();
        let replies = futures::future::join_all(handles.iter().map(|h| h.summary())).await;
        replies
            .into_iter()
            .map(|r| r.map_err(ApiError::from))
            .collect()
    }

    /// The OLTs a list request covers: all, or those named by `oltId` and/or `nodeId`.
    pub fn olts_in_scope(&self, params: &crate::api::Params) -> Result<Vec<OltHandle>, ApiError> {
        let olt_id = params
            .integer("oltId", 0, i64::from(u32::MAX))?
            .map(|n| n as u32);
        let node_id = params
            .integer("nodeId", 0, i64::from(u32::MAX))?
            .map(|n| n as u32);
        let inventory = self.inventory();
        Ok(self
            .fleet
            .olts()
            .into_iter()
            .filter(|h| olt_id.is_none_or(|id| h.id == id))
            .filter(|h| {
                node_id.is_none_or(|node| {
                    inventory
                        .olts
                        .iter()
                        .any(|o| o.id == h.id && o.node == Some(node))
                })
            })
            .collect())
    }

    /// ONUs matching `query` across `olts`, merged in the query's order: the total count
    /// and the items of `paging`'s page. Each actor filters its own table and returns only
    /// its first `offset + size` matches.
    pub async fn find_onus(
        &self,
        olts: &[OltHandle],
        mut query: OnuQuery,
        paging: crate::api::Paging,
    ) -> Result<(usize, Vec<Onu>), ApiError> {
        query.limit = paging.offset() + paging.size as usize;
        let order = query.order;
        let pages =
            futures::future::join_all(olts.iter().map(|h| h.find_onus(query.clone()))).await;
        let mut total = 0;
        let mut merged = Vec::new();
        for page in pages {
            let page = page?;
            total += page.total;
            merged.extend(page.onus);
        }
        merged.sort_by(|a, b| order.compare(a, b));
        let items = merged
            .into_iter()
            .skip(paging.offset())
            .take(paging.size as usize)
            .collect();
        Ok((total, items))
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

    /// Re-reads the inventory file; on success the fleet is reconciled with it.
    pub async fn reload_inventory(&self) -> Result<(Arc<Inventory>, ReconcileReport), ReloadError> {
        let inventory = Inventory::load(&self.config.inventory)
            .map_err(|e| ReloadError::Invalid(e.to_string()))?;
        let report = self
            .fleet
            .reconcile(inventory.clone())
            .await
            .map_err(ReloadError::Fleet)?;
        let inventory = Arc::new(inventory);
        match self.inventory.write() {
            Ok(mut guard) => *guard = inventory.clone(),
            Err(poisoned) => *poisoned.into_inner() = inventory.clone(),
        }
        tracing::info!(?report, "inventory reloaded");
        Ok((inventory, report))
    }
}
