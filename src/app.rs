//! Start-up and serving. [`App::start`] makes the data directory private
//! ([`crate::data_dir`]), opens the store, loads the inventory and keys, and starts the
//! OLT fleet; [`App::serve`] runs HTTP on an already-bound listener until
//! the shutdown future resolves, then stops the actors and flushes sled — the one
//! shutdown path. Tests start the same `App` on `127.0.0.1:0`. The state handlers share
//! lives in [`crate::state`]; the background jobs `serve` spawns, in [`crate::jobs`].

use crate::clock::Clock;
use crate::config::Config;
use crate::jobs::{housekeeping, reload_on_sighup, save_key_use};
use crate::keys::{ApiKey, KeyRing, KeySource};
use crate::records::Records;
use crate::state::AppState;
use anyhow::Context;
use ponkeeper_actors::inventory::Inventory;
use ponkeeper_actors::olt::PollSettings;
use ponkeeper_actors::poll_workers::PollWorkers;
use ponkeeper_actors::store::{Store, StoreError};
use ponkeeper_actors::supervisor::Fleet;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

mod admission;
mod connections;

/// How long requests in flight may run on after a shutdown signal.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);
/// How long cancelled requests get to send their answer before connections are dropped.
pub const SHUTDOWN_CLOSE: Duration = Duration::from_secs(2);

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
        // The inventory is read before anything is created: a wrong path leaves no
        // empty data directory behind.
        let inventory = Inventory::load(&config.inventory)?;
        crate::data_dir::prepare(&config.data_dir)?;
        let store = open_store(&config.data_dir).await.with_context(|| {
            format!(
                "cannot open the store in {} (is another ponkeeper using it?)",
                config.data_dir.display()
            )
        })?;
        store
            .space()
            .set_min_free(config.storage.min_free_mb.saturating_mul(1024 * 1024));
        for deprecation in &config.deprecations {
            tracing::warn!("{deprecation}");
        }
        // A cluster member runs its share of the inventory and allocates ids in its block.
        let cluster =
            crate::cluster::Cluster::new(config.cluster.as_ref(), config.polling.status_interval)
                .with_context(|| format!("config {}", config_name(&config)))?;
        let store = store.with_id_block(cluster.id_block());
        let records = Records::open(&store)?;
        let keys = load_keys(&config, &records)?;
        let rate_limits = crate::rate_limit::RateLimits::new(config.default_rate()?);
        let share = cluster.share(&inventory, &Default::default());
        let (history, export) = crate::history::HistoryBackend::start(&config)
            .with_context(|| format!("config {}", config_name(&config)))?;
        let fleet = Fleet::start(store.clone(), poll_settings(&config, export)?, share)
            .await
            .map_err(|e| anyhow::anyhow!(e))?;
        tracing::info!(
            olts = inventory.olts.len(),
            nodes = inventory.nodes.len(),
            "fleet started"
        );
        let outage_rules = config.outages.rules(config.events.pon_outage_min);
        crate::outages::start(outage_rules, &store, (&records, &inventory), &fleet).await?;
        let events = crate::events::start(&config.events, &store, &fleet, &inventory).await?;
        let state = AppState::new(
            config,
            clock,
            (store, records, history),
            (fleet, cluster),
            keys,
            (rate_limits, events),
            inventory,
        );
        // The fleet view answers every subscriber question from here on.
        state.fleet.view().bind(state.records.subscribers()?);
        let webhooks = crate::webhooks::resolve(&state.config.webhooks)
            .with_context(|| format!("config {}", config_name(&state.config)))?;
        state.run_webhooks(webhooks)?;
        state
            .alarms
            .start(&state.store, state.events.clone(), &state.config.alarms)?;
        state.flaps.start(
            state.events.clone(),
            (state.config.onu.flap_count, state.config.onu.flap_window),
            state.alarms.flapping_now(),
        );
        let channels = crate::channels::resolve(&state.config.notify)
            .with_context(|| format!("config {}", config_name(&state.config)))?;
        state.run_notifiers(channels)?;
        crate::member::start(&state, crate::router::rest_router(state.clone())).await?;
        let admin = crate::admin::AdminSocket::bind(&state.config.data_dir, state.clone())?;
        crate::data_dir::restrict(&state.config.data_dir).with_context(|| {
            format!(
                "cannot make the files in data_dir {} owner-only",
                state.config.data_dir.display()
            )
        })?;
        Ok(App { state, admin })
    }

    /// Serves HTTP (through `app/connections.rs`, with the timeouts and connection cap of
    /// `[http]`) and the admin socket until `shutdown` resolves, then stops cleanly: no new
    /// connections; requests in flight get [`SHUTDOWN_GRACE`] to finish; then the
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
        let trap_task = crate::traps::start(&state).await?;

        let router = crate::router::router(state.clone());
        let (stop_accepting, stopped) = tokio::sync::oneshot::channel::<()>();
        let mut server = tokio::spawn(connections::serve(
            listener,
            router,
            (state.config.http, state.config.trusted_proxies.clone()),
            async {
                let _ = stopped.await;
            },
        ));
        tokio::select! {
            finished = &mut server => {
                // The accept loop ends on its own only if it panicked.
                finished.context("HTTP server panicked")?;
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
        if let Some(task) = trap_task {
            task.abort();
        }
        for task in [admin_task, reload_task, housekeeping_task, key_use_task] {
            task.abort();
            let _ = task.await;
        }
        crate::admin::AdminSocket::remove(&state.config.data_dir);
        state.cluster.stop();
        state.fleet.shutdown().await;
        state.history.stop();
        state.webhooks.stop();
        state.notifiers.stop();
        state.events.stop().await;
        state.records.record_key_use(&state.keys.last_used())?;
        state.store.flush().await?;
        tracing::info!("stopped");
        Ok(())
    }
}

/// How long start-up waits for the store's lock held by a ponkeeper that is finishing.
const STORE_LOCK_WAIT: Duration = Duration::from_secs(5);

/// Opens the store, waiting up to [`STORE_LOCK_WAIT`] while its lock is held: a service
/// stopped in this process (tests, a restart) may still have a blocking store call of an
/// abandoned poll or backup finishing, and sled frees the lock when the last one returns.
/// A lock still held after that is another running ponkeeper, and an error.
async fn open_store(dir: &std::path::Path) -> Result<Store, StoreError> {
    let started = std::time::Instant::now();
    loop {
        match Store::open(dir) {
            Err(StoreError::Sled(sled::Error::Io(io)))
                if is_lock_held(&io) && started.elapsed() < STORE_LOCK_WAIT =>
            {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            opened => return opened,
        }
    }
}

/// sled 0.34 reports a held lock as an `Other` error with this text (the OS's
/// `WouldBlock` is only in its message).
fn is_lock_held(error: &std::io::Error) -> bool {
    error.kind() == std::io::ErrorKind::WouldBlock
        || error.to_string().contains("could not acquire lock")
}

/// The key ring: the keys stored in the service's records (made with `ponkeeper keys`),
/// then those of the config's `[[api_keys]]`.
fn load_keys(config: &Config, records: &Records) -> anyhow::Result<KeyRing> {
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
    Ok(keys)
}

/// The config file's name for messages, or `(built in)`.
fn config_name(config: &Config) -> String {
    config
        .source
        .as_ref()
        .map_or_else(|| "(built in)".into(), |p| p.display().to_string())
}

/// What every OLT actor polls with, from `[polling]`, `[optics]` and `[backup]`.
fn poll_settings(
    config: &Config,
    history_export: Option<ponkeeper_actors::history_export::HistoryExport>,
) -> anyhow::Result<PollSettings> {
    let p = &config.polling;
    let workers = PollWorkers::start(p.worker_nice).context("cannot start the poll threads")?;
    Ok(PollSettings {
        interval: p.status_interval,
        identity_interval: p.identity_interval,
        optics_interval: p.optics_interval,
        olt_interval: p.olt_interval,
        traffic_interval: p.traffic_interval,
        macs_interval: p.macs_interval,
        max_requests_per_second: p.max_requests_per_second,
        timeout: p.timeout,
        retries: p.retries,
        deadline: p.deadline,
        offline_after: p.offline_after,
        bulk_varbinds: p.bulk_varbinds,
        concurrency: Arc::new(tokio::sync::Semaphore::new(p.concurrency as usize)),
        // As many probes as polls, in a budget of their own (actors/src/olt/probe.rs).
        probes: Arc::new(tokio::sync::Semaphore::new(p.concurrency as usize)),
        merges: Arc::new(tokio::sync::Semaphore::new(
            ponkeeper_actors::olt::default_merges(),
        )),
        workers,
        thresholds: config.optics_thresholds(),
        history_step: config.optics.history_step,
        // One CLI step may take as long as a whole poll, but never more than 10 s.
        cli_timeout: p.deadline.min(std::time::Duration::from_secs(10)),
        backup_interval: config.backup.interval,
        saturation: config.events.saturation(),
        history_export,
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn start_up_waits_for_a_store_lock_that_is_being_released() {
        let dir = tempfile::tempdir().expect("tempdir");
        let held = Store::open(dir.path()).expect("first open");
        let release = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            drop(held);
        });
        let started = std::time::Instant::now();
        let store = open_store(dir.path()).await.expect("opened once released");
        assert!(started.elapsed() >= Duration::from_millis(250));
        release.await.expect("release");
        drop(store);
    }

    #[tokio::test]
    async fn a_missing_inventory_is_reported_once_and_creates_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = Config {
            data_dir: dir.path().join("data"),
            inventory: dir.path().join("missing.toml"),
            ..Config::default()
        };
        let error = App::start(config).await.err().expect("no inventory");
        let text = format!("{error:#}");
        assert_eq!(text.matches("No such file").count(), 1, "{text}");
        assert!(!dir.path().join("data").exists(), "{text}");
    }

    #[test]
    fn only_a_held_lock_is_waited_for() {
        let held = std::io::Error::other(
            "could not acquire lock on \"/x/db\": Os { code: 11, kind: WouldBlock }",
        );
        assert!(is_lock_held(&held));
        assert!(!is_lock_held(&std::io::Error::other("disk full")));
    }
}
