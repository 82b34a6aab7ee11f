//! Running-config backups of an OLT (docs/api.md): `POST /olts/{id}/configs/backup` fetches
//! the configuration over SSH through the OLT's actor and stores it; `GET
//! /olts/{id}/configs` lists the stored versions newest first; `GET .../{configId}`
//! adds the text; `GET .../{configId}/diff?against=ID` is a unified diff from version
//! `against` (default: the version before) to `configId`.
//!
//! A version is stored only when the text differs from the latest one. A backup that
//! finds the configuration unchanged answers with that latest version and `changed:
//! false`; stored versions always have `changed: true`.

use super::doc::{
    ActorTimeout, BadParameter, DeviceFailures, Missing, NotSupported, Refusals, TooLarge,
};
use super::path::{ConfigPath, OltPath};
use crate::error::ApiError;
use crate::history;
use crate::http::{one, page_of, ApiResult, Bounded, PageQuery, Paged, Query, Single};
use crate::state::AppState;
use axum::extract::State;
use ponkeeper_actors::olt::{ActionOutcome, CliAction};
use ponkeeper_actors::store::ConfigBackup;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(backup))
        .routes(routes!(detail))
        .routes(routes!(diff))
}

/// `against` of a diff, of `GET .../diff` and of the MCP tool `diff_olt_config`.
#[derive(Debug, Default, Deserialize, Serialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
pub struct DiffQuery {
    /// The older version's id; default: the version before `configId`.
    #[param(inline)]
    pub against: Option<Bounded<1, { i64::MAX }>>,
}

/// A config backup (docs/api.md); the detail adds `content`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfigItem {
    pub id: u64,
    pub olt_id: u32,
    pub taken_at: String,
    pub size_bytes: u64,
    pub sha256: String,
    pub changed: bool,
    /// The configuration text; in the detail only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub content: Option<String>,
}

/// A unified diff between two versions.
#[derive(Debug, Serialize, ToSchema)]
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

#[utoipa::path(
    post,
    path = "/olts/{id}/configs/backup",
    operation_id = "backup_olt_config",
    tag = "configs",
    summary = "Back up the OLT's running config",
    description = "FULL keys only. Fetches the running configuration over SSH and stores it when it changed; answers the backup (`changed: false` when it did not).",
    params(("id" = u32, Path, description = "OLT id")),
    responses((status = 200, description = "the backup", body = Single<ConfigItem>), BadParameter, Missing, DeviceFailures, ActorTimeout, NotSupported, TooLarge, Refusals)
)]
async fn backup(State(app): State<AppState>, OltPath(id): OltPath) -> ApiResult {
    let handle = app.olt(id)?;
    match handle.cli(CliAction::Backup).await? {
        ActionOutcome::Backup(backup) => one(item(&app, backup, None)),
        _ => Err(ApiError::Internal(
            "a backup answered with something else".into(),
        )),
    }
}

#[utoipa::path(
    get,
    path = "/olts/{id}/configs",
    operation_id = "list_olt_configs",
    tag = "configs",
    summary = "Config backups of an OLT",
    description = "Stored versions, newest first, without their text; paged.",
    params(("id" = u32, Path, description = "OLT id"), PageQuery),
    responses((status = 200, description = "one page of backups", body = Paged<ConfigItem>), BadParameter, Missing, Refusals)
)]
async fn list(
    State(app): State<AppState>,
    OltPath(id): OltPath,
    Query(page_query): Query<PageQuery>,
) -> ApiResult {
    let olt = app.olt(id)?.id;
    let paging = page_query.paging(&app.config.paging)?;
    let (total, versions) =
        history::configs(&app, olt, paging.offset(), paging.size as usize).await?;
    page_of(
        versions.into_iter().map(|b| item(&app, b, None)).collect(),
        total,
        paging,
    )
}

async fn version(app: &AppState, olt: u32, id: u64) -> Result<(ConfigBackup, String), ApiError> {
    history::config(app, olt, id)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("OLT {olt} has no config backup {id}")))
}

#[utoipa::path(
    get,
    path = "/olts/{id}/configs/{configId}",
    operation_id = "get_olt_config",
    tag = "configs",
    summary = "One config backup with its text",
    params(("id" = u32, Path, description = "OLT id"), ("configId" = u64, Path, description = "config backup id")),
    responses((status = 200, description = "the backup with `content`", body = Single<ConfigItem>), BadParameter, Missing, Refusals)
)]
async fn detail(
    State(app): State<AppState>,
    OltPath(id): OltPath,
    ConfigPath(config_id): ConfigPath,
) -> ApiResult {
    let olt = app.olt(id)?.id;
    let (backup, content) = version(&app, olt, config_id).await?;
    one(item(&app, backup, Some(content)))
}

#[utoipa::path(
    get,
    path = "/olts/{id}/configs/{configId}/diff",
    operation_id = "diff_olt_config",
    tag = "configs",
    summary = "Unified diff between two config backups",
    params(("id" = u32, Path, description = "OLT id"), ("configId" = u64, Path, description = "config backup id"), DiffQuery),
    responses((status = 200, description = "the diff from `against` to `configId`", body = Single<DiffItem>), BadParameter, Missing, Refusals)
)]
async fn diff(
    State(app): State<AppState>,
    OltPath(id): OltPath,
    ConfigPath(to): ConfigPath,
    Query(query): Query<DiffQuery>,
) -> ApiResult {
    let olt = app.olt(id)?.id;
    let (newer, new_text) = version(&app, olt, to).await?;
    let against = match query.against {
        Some(against) => Some(against.get() as u64),
        None => history::config_before(&app, &newer).await?,
    };
    let old_text = match against {
        Some(from) => version(&app, olt, from).await?.1,
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
