//! History reads: every read of stored history a REST handler makes (and with it every MCP
//! tool, which reaches the same handlers), by name: config backups ([`configs`],
//! [`config`], [`config_before`]), ONU state changes and OLT coverage for the СЗО
//! ([`state_before`], [`onu_period`]), optics history ([`optics`]) and the audit log
//! ([`audit_entries`]).
//!
//! A store read blocks its thread (a page may come from disk), so each function runs it on
//! tokio's blocking pool and never on an async worker, where it would hold up every other
//! request scheduled there. A failed read answers 500 `INTERNAL` with the store's message,
//! as handlers answered before these reads moved here.

use crate::api::ApiError;
use crate::records::{AuditEntry, AuditFilter};
use crate::state::AppState;
use chrono::{DateTime, Utc};
use ponkeeper_actors::domain::{OltId, OnuId, OnuStateChange, OpticsPoint};
use ponkeeper_actors::store::{ConfigBackup, Coverage, StoreError};

/// Runs `read` on tokio's blocking pool.
async fn blocking<T: Send + 'static>(
    read: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(read)
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?
        .map_err(|e| ApiError::Internal(e.to_string()))
}

/// A page of OLT `olt`'s config versions, newest first, and how many there are.
pub async fn configs(
    app: &AppState,
    olt: OltId,
    offset: usize,
    limit: usize,
) -> Result<(usize, Vec<ConfigBackup>), ApiError> {
    let store = app.store.clone();
    blocking(move || store.configs(olt, offset, limit)).await
}

/// Config version `id` of OLT `olt` with its text, if there is one.
pub async fn config(
    app: &AppState,
    olt: OltId,
    id: u64,
) -> Result<Option<(ConfigBackup, String)>, ApiError> {
    let store = app.store.clone();
    blocking(move || store.config(olt, id)).await
}

/// The config version of OLT `olt` stored just before version `id`.
pub async fn config_before(app: &AppState, olt: OltId, id: u64) -> Result<Option<u64>, ApiError> {
    let store = app.store.clone();
    blocking(move || store.config_before(olt, id)).await
}

/// The last state change of ONU `onu` before `at`, if any.
pub async fn state_before(
    app: &AppState,
    onu: OnuId,
    at: DateTime<Utc>,
) -> Result<Option<OnuStateChange>, ApiError> {
    let store = app.store.clone();
    blocking(move || store.state_before(onu, at)).await
}

/// What an ONU's availability over a period is made of.
#[derive(Debug, Clone, PartialEq)]
pub struct OnuPeriod {
    /// The stretches in which its OLT was polled, clipped to the period.
    pub coverage: Vec<Coverage>,
    /// Its last state change before the period.
    pub baseline: Option<OnuStateChange>,
    /// Its state changes within the period, oldest first.
    pub changes: Vec<OnuStateChange>,
}

/// The coverage of OLT `olt` over `[from, to]` and the state changes of its ONU `onu`
/// around `[from, to)`, read in one trip to the blocking pool.
pub async fn onu_period(
    app: &AppState,
    olt: OltId,
    onu: OnuId,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Result<OnuPeriod, ApiError> {
    let store = app.store.clone();
    blocking(move || {
        Ok(OnuPeriod {
            coverage: store.coverage(olt, from, to)?,
            baseline: store.state_before(onu, from)?,
            changes: store.state_changes(onu, from, to)?,
        })
    })
    .await
}

/// Optics points of ONU `onu` with `from <= at <= to`, oldest first, at most `limit`.
pub async fn optics(
    app: &AppState,
    onu: OnuId,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
    limit: usize,
) -> Result<Vec<OpticsPoint>, ApiError> {
    let store = app.store.clone();
    blocking(move || store.optics_history(onu, from, to, limit)).await
}

/// A page of the audit entries `filter` admits, newest first, and how many it admits.
pub async fn audit_entries(
    app: &AppState,
    filter: AuditFilter,
    offset: usize,
    limit: usize,
) -> Result<(usize, Vec<AuditEntry>), ApiError> {
    let records = app.records.clone();
    blocking(move || records.audit_entries(&filter, offset, limit)).await
}
