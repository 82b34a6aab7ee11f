//! The service's background jobs, spawned by [`crate::app::App::serve`] and aborted at
//! shutdown: saving when each key was last used ([`save_key_use`]), pruning stored
//! history, audit entries and config versions past their retention and keeping the data files private ([`housekeeping`],
//! [`prune_history`]), and reloading the
//! inventory and the webhooks on SIGHUP ([`reload_on_sighup`]). Each reads the shared [`AppState`].

use crate::config::Config;
use crate::state::{AppState, ReloadError};
use chrono::{DateTime, Utc};
use ponkeeper_actors::store::series::tiers::Cutoffs;
use ponkeeper_actors::store::Store;

/// Saves when each key was last used, every minute (and at shutdown, in `serve`).
pub async fn save_key_use(state: AppState) {
    let mut every_minute = tokio::time::interval(std::time::Duration::from_secs(60));
    loop {
        every_minute.tick().await;
        if let Err(e) = state.records.record_key_use(&state.keys.last_used()) {
            tracing::error!(error = %e, "cannot save when keys were last used");
        }
    }
}

/// Prunes stored history past its retention, and makes the files the store created since
/// owner-only ([`crate::data_dir::restrict`]): at start, then hourly.
pub async fn housekeeping(state: AppState) {
    let mut hourly = tokio::time::interval(std::time::Duration::from_secs(3600));
    loop {
        hourly.tick().await;
        if let Err(e) = prune_history(&state).await {
            tracing::error!(error = %e, "cannot prune stored history");
        }
        let dir = state.config.data_dir.clone();
        match tokio::task::spawn_blocking(move || crate::data_dir::restrict(&dir)).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::error!(error = %e, "cannot make the data files owner-only"),
            Err(e) => tracing::error!(error = %e, "the data-file permission task failed"),
        }
    }
}

/// Seals finished days of optics and traffic history into blocks (with their hourly and
/// daily rollups); then drops each tier of optics and traffic history past its `[history]`
/// retention ([`crate::config::Config::traffic_history`]); MAC
/// sightings last seen before `macs.retention`; ONU
/// state changes past `szo.history_retention` for ONUs bound to a СЗО and
/// `onu.state_history_retention` for the rest; OLT coverage past the longer of the two.
pub async fn prune_history(state: &AppState) -> anyhow::Result<()> {
    let now = chrono::Utc::now();
    let ago = |retention| ago(now, retention);
    let macs_cutoff = ago(state.config.macs.retention);
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
                .filter(|o| bound_serials.contains(&o.serial.as_str().to_ascii_lowercase()))
                .map(|o| o.id),
        );
    }

    let app = state.clone();
    let (
        SeriesHousekeeping {
            sealed,
            optics,
            traffic,
        },
        (macs, changes, coverage),
    ) = tokio::task::spawn_blocking(move || {
        let series = seal_and_prune_series(&app.store, &app.config, now)?;
        let store = &app.store;
        anyhow::Ok((
            series,
            (
                store.prune_macs(macs_cutoff)?,
                store.prune_state_changes(|onu| {
                    if bound.contains(&onu) {
                        szo_cutoff
                    } else {
                        onu_cutoff
                    }
                })?,
                store.prune_coverage(szo_cutoff.min(onu_cutoff))?,
            ),
        ))
    })
    .await??;
    if sealed > 0 {
        tracing::debug!(sealed, "sealed finished days of history into blocks");
    }
    if optics + traffic + macs + changes + coverage > 0 {
        tracing::info!(
            optics,
            traffic,
            macs,
            changes,
            coverage,
            "pruned history past retention"
        );
    }
    prune_records(
        state,
        ago(state.config.audit.retention),
        now - YOUNG_CONFIGS,
    )
    .await
}

/// `now` less `retention`; the dawn of time for a retention past it.
fn ago(now: DateTime<Utc>, retention: std::time::Duration) -> DateTime<Utc> {
    chrono::Duration::from_std(retention)
        .ok()
        .and_then(|r| now.checked_sub_signed(r))
        .unwrap_or(DateTime::<Utc>::MIN_UTC)
}

/// What [`seal_and_prune_series`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SeriesHousekeeping {
    /// Blocks written.
    pub sealed: usize,
    /// Optics records dropped past retention.
    pub optics: usize,
    /// Traffic records dropped past retention.
    pub traffic: usize,
}

/// Housekeeping's part for the traffic and optics history at `now` (a blocking call):
/// finished days' open points into their blocks with their rollups first
/// (`store::series`: a day is rolled up before its raw points may go), then each tier
/// of optics and of traffic history past its `[history]` retention. `bench history`
/// runs it at each simulated hour.
pub fn seal_and_prune_series(
    store: &Store,
    config: &Config,
    now: DateTime<Utc>,
) -> anyhow::Result<SeriesHousekeeping> {
    let cutoffs = |history: crate::config::History| Cutoffs {
        raw: ago(now, history.raw_retention),
        hourly: ago(now, history.hourly_retention),
        daily: ago(now, history.daily_retention),
    };
    let sealed = store.seal_history(now)?;
    Ok(SeriesHousekeeping {
        sealed,
        optics: store.prune_optics(cutoffs(config.optics_history()))?,
        traffic: store.prune_traffic(cutoffs(config.traffic_history()))?,
    })
}

/// Config versions younger than this are kept whatever `backup.keep_versions` says.
const YOUNG_CONFIGS: chrono::Duration = chrono::Duration::days(30);

/// Audit entries past `audit.retention` (those before `audit_cutoff`), and config
/// versions beyond `backup.keep_versions` per OLT taken before `young_since`.
async fn prune_records(
    state: &AppState,
    audit_cutoff: chrono::DateTime<chrono::Utc>,
    young_since: chrono::DateTime<chrono::Utc>,
) -> anyhow::Result<()> {
    let (records, store) = (state.records.clone(), state.store.clone());
    let keep = state.config.backup.keep_versions as usize;
    let (audit, configs) = tokio::task::spawn_blocking(move || {
        anyhow::Ok((
            records.prune_audit(audit_cutoff)?,
            store.prune_configs(keep, young_since)?,
        ))
    })
    .await??;
    if audit + configs > 0 {
        tracing::info!(audit, configs, "pruned audit entries and config versions");
    }
    Ok(())
}

/// Reloads the inventory and the webhooks on SIGHUP (docs/operations.md, docs/events.md); a bad file is logged and
/// the old one stays.
pub async fn reload_on_sighup(state: AppState) {
    use tokio::signal::unix::{signal, SignalKind};
    let Ok(mut hangups) = signal(SignalKind::hangup()) else {
        return;
    };
    while hangups.recv().await.is_some() {
        tracing::info!("SIGHUP: reloading the inventory");
        match state.reload_inventory().await {
            // reload_inventory logs the outcome ("inventory reloaded") itself, once.
            Ok(_) => {}
            Err(ReloadError::Invalid(e) | ReloadError::Fleet(e)) => {
                tracing::error!(error = %e, "SIGHUP: inventory refused, the old one stays")
            }
        }
        match reload_webhooks(&state) {
            Ok(count) => tracing::info!(webhooks = count, "SIGHUP: webhooks reloaded"),
            Err(e) => tracing::error!(
                error = format!("{e:#}"),
                "SIGHUP: config refused, the webhooks stay as they were"
            ),
        }
    }
}

/// Reads the config file again and, if it is good, runs its webhooks; a bad file leaves
/// the running set as it was (SIGHUP, with the inventory).
fn reload_webhooks(app: &AppState) -> anyhow::Result<usize> {
    let Some(path) = app.config.source.as_deref() else {
        anyhow::bail!("the service was not started from a config file");
    };
    let config = crate::config::Config::load_to_serve(path)?;
    let hooks = crate::webhooks::resolve(&config.webhooks)?;
    let channels = crate::channels::resolve(&config.notify)?;
    let count = hooks.len();
    app.run_webhooks(hooks)?;
    app.run_notifiers(channels)?;
    Ok(count)
}
