//! Running-config backups of an OLT (SPEC §4): `POST /olts/{id}/configs/backup` fetches
//! the configuration over SSH through the OLT's actor and stores it; `GET
//! /olts/{id}/configs` lists the stored versions newest first; `GET .../{configId}`
//! adds the text; `GET .../{configId}/diff?against=ID` is a unified diff from version
//! `against` (default: the version before) to `configId`.
//!
//! A version is stored only when the text differs from the latest one. A backup that
//! finds the configuration unchanged answers with that latest version and `changed:
//! false`; stored versions always have `changed: true`.

use super::{one, page_of, path_id, ApiError, ApiResult, Params};
use crate::app::AppState;
use axum::extract::{Path, RawQuery, State};
use axum::routing::{get, post};
use axum::Router;
use ponkeeper_actors::olt::{ActionOutcome, CliAction};
use ponkeeper_actors::store::ConfigBackup;
use serde::Serialize;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/olts/{id}/configs", get(list))
        .route("/olts/{id}/configs/backup", post(backup))
        .route("/olts/{id}/configs/{config_id}", get(detail))
        .route("/olts/{id}/configs/{config_id}/diff", get(diff))
}

/// A config backup (SPEC §4); the detail adds `content`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigItem {
    pub id: u64,
    pub olt_id: u32,
    pub taken_at: String,
    pub size_bytes: u64,
    pub sha256: String,
    pub changed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffItem {
    /// The older version; `null` when `to` is the first one (diffed against nothing).
    pub from: Option<u64>,
    pub to: u64,
    pub diff: String,
}

fn item(app: &AppState, backup: ConfigBackup, content: Option<String>) -> ConfigItem {
    ConfigItem {
        id: backup.id,
        olt_id: backup.olt_id,
        taken_at: app.clock.format(backup.taken_at),
        size_bytes: backup.size_bytes,
        sha256: backup.sha256,
        changed: backup.changed,
        content,
    }
}

fn store_error(e: impl std::fmt::Display) -> ApiError {
    ApiError::Internal(e.to_string())
}

async fn backup(State(app): State<AppState>, Path(id): Path<String>) -> ApiResult {
    let handle = app.olt(path_id("id", &id)?)?;
    match handle.cli(CliAction::Backup).await? {
        ActionOutcome::Backup(backup) => one(item(&app, backup, None)),
        _ => Err(ApiError::Internal(
            "a backup answered with something else".into(),
        )),
    }
}

async fn list(
    State(app): State<AppState>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> ApiResult {
    let olt = app.olt(path_id("id", &id)?)?.id;
    let params = Params::parse(query.as_deref())?;
    let paging = params.paging(&app.config.paging)?;
    let (total, versions) = app
        .store
        .configs(olt, paging.offset(), paging.size as usize)
        .map_err(store_error)?;
    page_of(
        versions.into_iter().map(|b| item(&app, b, None)).collect(),
        total,
        paging,
    )
}

fn version(app: &AppState, olt: u32, id: u64) -> Result<(ConfigBackup, String), ApiError> {
    app.store
        .config(olt, id)
        .map_err(store_error)?
        .ok_or_else(|| ApiError::NotFound(format!("OLT {olt} has no config backup {id}")))
}

async fn detail(
    State(app): State<AppState>,
    Path((id, config_id)): Path<(String, String)>,
) -> ApiResult {
    let olt = app.olt(path_id("id", &id)?)?.id;
    let (backup, content) = version(&app, olt, path_id("configId", &config_id)?)?;
    one(item(&app, backup, Some(content)))
}

async fn diff(
    State(app): State<AppState>,
    Path((id, config_id)): Path<(String, String)>,
    RawQuery(query): RawQuery,
) -> ApiResult {
    let olt = app.olt(path_id("id", &id)?)?.id;
    let to: u64 = path_id("configId", &config_id)?;
    let params = Params::parse(query.as_deref())?;
    let (_, new_text) = version(&app, olt, to)?;
    let against = match params.integer("against", 1, i64::MAX)? {
        Some(against) => Some(against as u64),
        None => app.store.config_before(olt, to).map_err(store_error)?,
    };
    let old_text = match against {
        Some(from) => version(&app, olt, from)?.1,
        None => String::new(),
    };
    let from_name = against.map_or("(none)".to_string(), |id| format!("config {id}"));
    let diff = similar::TextDiff::from_lines(&old_text, &new_text)
        .unified_diff()
        .context_radius(3)
        .header(&from_name, &format!("config {to}"))
        .to_string();
    one(DiffItem {
        from: against,
        to,
        diff,
    })
}
