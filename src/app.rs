//! Start-up and the shared application state. [`App::start`] opens the store, loads the
//! inventory and keys, and starts the OLT fleet; [`App::serve`] runs HTTP on an
//! already-bound listener until the shutdown future resolves, then stops the actors and
//! flushes sled — the one shutdown path. Tests start the same `App` on `127.0.0.1:0`.

use crate::api::ApiError;
use crate::auth::{ApiKey, KeyRing, KeySource};
use crate::clock::Clock;
use crate::config::Config;
use crate::records::Records;
use anyhow::Context;
use ponkeeper_actors::domain::{OltId, Onu, OnuId};
use ponkeeper_actors::inventory::Inventory;
use ponkeeper_actors::olt::{OltHandle, OltSummary, PollSettings};
use ponkeeper_actors::onu_table::OnuQuery;
use ponkeeper_actors::store::Store;
use ponkeeper_actors::supervisor::{Fleet, ReconcileReport};
use std::net::SocketAddr;
use std::sync::{Arc, RwLock};
use tokio::net::TcpListener;

/// State every handler sees; cheap to clone.
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Shared>,
}

pub struct Shared {
    pub config: Config,
    pub clock: Clock,
    pub store: Store,
    pub records: Records,
    pub fleet: Fleet,
    pub keys: KeyRing,
    pub rate_limits: crate::rate_limit::RateLimits,
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
        let owner = self
            .store
            .onu_owner(id)
            .map_err(|e| ApiError::Internal(e.to_string()))?
            .ok_or_else(not_found)?;
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

/// How long requests in flight may run on after a shutdown signal.
pub const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(3);
/// How long cancelled requests get to send their answer before connections are dropped.
pub const SHUTDOWN_CLOSE: std::time::Duration = std::time::Duration::from_secs(2);

/// A started service: store open, actors running, not yet serving HTTP.
pub struct App {
    pub state: AppState,
    /// Bound at start, so `ponkeeper keys` reaches the service as soon as it is up.
    admin: crate::admin::AdminSocket,
}

impl App {
    /// Opens the store, loads keys and the inventory, starts the fleet.
    pub async fn start(config: Config) -> anyhow::Result<App> {
        crate::metrics::install();
        let clock = Clock::from_config(&config.timezone)?;
        std::fs::create_dir_all(&config.data_dir)
            .with_context(|| format!("cannot create data_dir {}", config.data_dir.display()))?;
        let store = Store::open(&config.data_dir).with_context(|| {
            format!(
                "cannot open the store in {} (is another ponkeeper using it?)",
                config.data_dir.display()
            )
        })?;
        let records = Records::open(&store)?;
        let inventory = Inventory::load(&config.inventory)?;

        let keys = KeyRing::default();
        for record in records.api_keys()? {
            keys.insert_stored(&record);
        }
        for key in &config.api_keys {
            let level = key.level.parse().map_err(|e: String| anyhow::anyhow!(e))?;
            keys.insert_configured(
                ApiKey {
                    name: key.name.clone(),
                    level,
                    rate: key.rate.as_deref().and_then(|r| r.parse().ok()),
                    allow_ip: key.allow_ip.clone(),
                    source: KeySource::Config,
                },
                &key.sha256,
            );
        }

        let rate_limits = crate::rate_limit::RateLimits::new(config.default_rate()?);
        let p = &config.polling;
        let settings = PollSettings {
            interval: p.interval,
            timeout: p.timeout,
            retries: p.retries,
            deadline: p.deadline,
            offline_after: p.offline_after,
            bulk_varbinds: p.bulk_varbinds,
            concurrency: Arc::new(tokio::sync::Semaphore::new(p.concurrency as usize)),
            thresholds: config.optics_thresholds(),
            history_step: config.optics.history_step,
            // One CLI step may take as long as a whole poll, but never more than 10 s.
            cli_timeout: p.deadline.min(std::time::Duration::from_secs(10)),
            backup_interval: config.backup.interval,
        };
        let fleet = Fleet::start(store.clone(), settings, inventory.clone())
            .await
            .map_err(|e| anyhow::anyhow!(e))?;
        tracing::info!(
            olts = inventory.olts.len(),
            nodes = inventory.nodes.len(),
            "fleet started"
        );
        let state = AppState {
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
        };
        let admin = crate::admin::AdminSocket::bind(&state.config.data_dir, state.clone())?;
        Ok(App { state, admin })
    }

    /// Serves HTTP and the admin socket until `shutdown` resolves, then stops cleanly:
    /// no new connections; requests in flight get [`SHUTDOWN_GRACE`] to finish; then the
    /// OLT actors cancel what is still running (the waiting requests answer 503
    /// `DEVICE_UNAVAILABLE`, "cancelled: the service is shutting down"), connections still
    /// open after [`SHUTDOWN_CLOSE`] more are dropped, and the store is flushed.
    pub async fn serve(
        self,
        listener: TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        let App { state, admin } = self;
        let admin_task = tokio::spawn(admin.run());
        let reload_task = tokio::spawn(reload_on_sighup(state.clone()));
        let housekeeping_task = tokio::spawn(housekeeping(state.clone()));
        let key_use_task = tokio::spawn(save_key_use(state.clone()));

        let router = crate::api::router(state.clone());
        let (stop_accepting, stopped) = tokio::sync::oneshot::channel::<()>();
        let mut server = tokio::spawn(async move {
            axum::serve(
                listener,
                router.into_make_service_with_connect_info::<SocketAddr>(),
            )
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .await
        });
        tokio::select! {
            finished = &mut server => {
                // The server ended on its own: only an error does that.
                finished.context("HTTP server panicked")?.context("HTTP server failed")?;
            }
            () = shutdown => {}
        }
        let _ = stop_accepting.send(());
        if tokio::time::timeout(SHUTDOWN_GRACE, &mut server)
            .await
            .is_err()
        {
            tracing::warn!(
                "requests still running after {SHUTDOWN_GRACE:?}; cancelling the OLT actions"
            );
            state.fleet.shutdown().await;
            if tokio::time::timeout(SHUTDOWN_CLOSE, &mut server)
                .await
                .is_err()
            {
                tracing::warn!("connections still open after {SHUTDOWN_CLOSE:?}; dropping them");
                server.abort();
            }
        }

        // Abort, then await, so each task's state (a store handle among it) is gone
        // before the store is flushed and the caller may open it again.
        for task in [admin_task, reload_task, housekeeping_task, key_use_task] {
            task.abort();
            let _ = task.await;
        }
        crate::admin::AdminSocket::remove(&state.config.data_dir);
        state.fleet.shutdown().await;
        state.records.record_key_use(&state.keys.last_used())?;
        state.store.flush().await?;
        tracing::info!("stopped");
        Ok(())
    }
}

/// Saves when each key was last used, every minute (and at shutdown, in `serve`).
async fn save_key_use(state: AppState) {
    let mut every_minute = tokio::time::interval(std::time::Duration::from_secs(60));
    loop {
        every_minute.tick().await;
        if let Err(e) = state.records.record_key_use(&state.keys.last_used()) {
            tracing::error!(error = %e, "cannot save when keys were last used");
        }
    }
}

/// Prunes stored history past its retention: at start, then hourly.
async fn housekeeping(state: AppState) {
    let mut hourly = tokio::time::interval(std::time::Duration::from_secs(3600));
    loop {
        hourly.tick().await;
        if let Err(e) = prune_history(&state).await {
            tracing::error!(error = %e, "cannot prune stored history");
        }
    }
}

/// Optics past `optics.history_retention`; ONU state changes past
/// `szo.history_retention` for ONUs bound to a СЗО and `onu.state_history_retention` for
/// the rest; OLT coverage past the longer of the two.
pub async fn prune_history(state: &AppState) -> anyhow::Result<()> {
    let now = chrono::Utc::now();
    let ago = |retention: std::time::Duration| {
        chrono::Duration::from_std(retention)
            .map(|r| now - r)
            .unwrap_or(chrono::DateTime::<chrono::Utc>::MIN_UTC)
    };
    let optics_cutoff = ago(state.config.optics.history_retention);
    let szo_cutoff = ago(state.config.szo.history_retention);
    let onu_cutoff = ago(state.config.onu.state_history_retention);

    let bound_serials: std::collections::HashSet<String> = state
        .inventory()
        .szo
        .iter()
        .map(|o| o.onu_serial.to_ascii_lowercase())
        .collect();
    let mut bound = std::collections::HashSet::new();
    for handle in state.fleet.olts() {
        let onus = handle.onus().await.map_err(|e| anyhow::anyhow!(e))?;
        bound.extend(
            onus.iter()
                .filter(|o| bound_serials.contains(&o.serial.to_ascii_lowercase()))
                .map(|o| o.id),
        );
    }

    let store = state.store.clone();
    let (optics, changes, coverage) = tokio::task::spawn_blocking(move || {
        anyhow::Ok((
            store.prune_optics(optics_cutoff)?,
            store.prune_state_changes(|onu| {
                if bound.contains(&onu) {
                    szo_cutoff
                } else {
                    onu_cutoff
                }
            })?,
            store.prune_coverage(szo_cutoff.min(onu_cutoff))?,
        ))
    })
    .await??;
    if optics + changes + coverage > 0 {
        tracing::info!(optics, changes, coverage, "pruned history past retention");
    }
    Ok(())
}

/// Reloads the inventory on SIGHUP (SPEC §2); a bad file is logged and the old one stays.
async fn reload_on_sighup(state: AppState) {
    use tokio::signal::unix::{signal, SignalKind};
    let Ok(mut hangups) = signal(SignalKind::hangup()) else {
        return;
    };
    while hangups.recv().await.is_some() {
        match state.reload_inventory().await {
            Ok((_, report)) => tracing::info!(?report, "SIGHUP: inventory reloaded"),
            Err(ReloadError::Invalid(e) | ReloadError::Fleet(e)) => {
                tracing::error!(error = %e, "SIGHUP: inventory refused, the old one stays")
            }
        }
    }
}

/// Resolves on SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let terminate = async {
        match signal(SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate => {}
    }
    tracing::info!("shutdown requested");
}
