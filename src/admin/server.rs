//! The service's half of the admin socket ([`AdminSocket`]): it binds the socket, answers
//! key requests against the running key ring and the store's records, and streams a
//! snapshot of the store for `ponkeeper backup`. [`crate::app`] binds it at start and
//! removes it at shutdown. Binding also removes the spool files (`backup-<pid>.spool`) a
//! service killed while it streamed a backup left behind: the store's lock, held by then,
//! means no other service is writing one in this data directory.

use super::{socket_path, AdminRequest, AdminResponse, TakeLine};
use crate::keys;
use crate::state::AppState;
use anyhow::Context;
use ponkeeper_actors::store::{SnapshotSummary, Store};
use std::path::{Path, PathBuf};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};

pub struct AdminSocket {
    listener: UnixListener,
    state: AppState,
}

impl AdminSocket {
    /// Binds the socket (replacing a stale one) with mode 0600, and removes stale spool
    /// files. Call it with the store open (its lock held).
    pub fn bind(data_dir: &Path, state: AppState) -> anyhow::Result<AdminSocket> {
        use std::os::unix::fs::PermissionsExt;
        remove_stale_spools(data_dir);
        let path = socket_path(data_dir);
        let _ = std::fs::remove_file(&path);
        let listener = UnixListener::bind(&path)
            .map_err(|e| anyhow::anyhow!("cannot bind the admin socket {}: {e}", path.display()))?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
        Ok(AdminSocket { listener, state })
    }

    pub fn remove(data_dir: &Path) {
        let _ = std::fs::remove_file(socket_path(data_dir));
    }

    pub async fn run(self) {
        loop {
            let Ok((stream, _)) = self.listener.accept().await else {
                continue;
            };
            let state = self.state.clone();
            tokio::spawn(async move {
                if let Err(e) = serve_one(stream, state).await {
                    tracing::warn!(error = %e, "admin socket request failed");
                }
            });
        }
    }
}

async fn serve_one(stream: UnixStream, state: AppState) -> anyhow::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut line = String::new();
    BufReader::new(read).take_line(&mut line).await?;
    if let Ok(AdminRequest::Backup) = serde_json::from_str::<AdminRequest>(&line) {
        return stream_backup(&state.store, &state.config.data_dir, write).await;
    }
    let response = match serde_json::from_str::<AdminRequest>(&line) {
        Err(e) => AdminResponse {
            error: Some(format!("malformed admin request: {e}")),
            ..Default::default()
        },
        Ok(request) => execute(&state, request).await,
    };
    let mut body = serde_json::to_vec(&response)?;
    body.push(b'\n');
    write.write_all(&body).await?;
    Ok(())
}

async fn execute(state: &AppState, request: AdminRequest) -> AdminResponse {
    let configured = &state.config.api_keys;
    let result = match request {
        AdminRequest::Create(new_key) => {
            let name = new_key.name.clone();
            keys::create(&state.records, Some(&state.keys), configured, new_key)
                .await
                .map(|key| {
                    tracing::info!(key_name = %name, "API key created");
                    AdminResponse {
                        key: Some(key),
                        ..Default::default()
                    }
                })
        }
        AdminRequest::List => state
            .records
            .record_key_use(&state.keys.last_used())
            .map_err(|e| e.to_string())
            .and_then(|()| keys::list(&state.records, configured))
            .map(|keys| AdminResponse {
                keys: Some(keys),
                ..Default::default()
            }),
        AdminRequest::Backup => Err("a backup is streamed, not answered".to_string()),
        AdminRequest::Revoke { name } => {
            keys::revoke(&state.records, Some(&state.keys), configured, &name)
                .await
                .map(|()| {
                    tracing::info!(key_name = %name, "API key revoked");
                    AdminResponse::default()
                })
        }
    };
    result.unwrap_or_else(|error| AdminResponse {
        error: Some(error),
        ..Default::default()
    })
}

/// The snapshot file a running service writes before streaming it (in its data dir).
fn spool_path(data_dir: &Path) -> PathBuf {
    data_dir.join(format!("backup-{}.spool", std::process::id()))
}

/// Removes every `backup-<pid>.spool` in `data_dir`: a snapshot a killed service was
/// streaming (a live one is only ever written by the service holding the store).
fn remove_stale_spools(data_dir: &Path) {
    let Ok(entries) = std::fs::read_dir(data_dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !(name.starts_with("backup-") && name.ends_with(".spool")) {
            continue;
        }
        match std::fs::remove_file(entry.path()) {
            Ok(()) => {
                tracing::info!(file = %name, "removed a backup spool file left by a killed service")
            }
            Err(e) => {
                tracing::warn!(file = %name, error = %e, "cannot remove a stale backup spool file")
            }
        }
    }
}

/// Serves one admin `backup` request: snapshot to the spool file, then the JSON line,
/// then the file's bytes, then the spool file is removed.
async fn stream_backup(
    store: &Store,
    data_dir: &Path,
    mut write: impl tokio::io::AsyncWrite + Unpin,
) -> anyhow::Result<()> {
    let spool = spool_path(data_dir);
    let (snapshot_store, snapshot_path) = (store.clone(), spool.clone());
    let written = tokio::task::spawn_blocking(move || -> anyhow::Result<SnapshotSummary> {
        let file = crate::data_dir::create_private(&snapshot_path)?;
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        let summary = snapshot_store.write_snapshot(&mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        Ok(summary)
    })
    .await
    .map_err(anyhow::Error::from)
    .and_then(|result| result);
    let header = match &written {
        Ok(summary) => AdminResponse {
            backup_entries: Some(summary.entries),
            ..Default::default()
        },
        Err(error) => AdminResponse {
            error: Some(format!("the snapshot failed: {error:#}")),
            ..Default::default()
        },
    };
    let mut line = serde_json::to_vec(&header)?;
    line.push(b'\n');
    let streamed = async {
        write.write_all(&line).await?;
        if written.is_ok() {
            let mut file = tokio::fs::File::open(&spool).await?;
            tokio::io::copy(&mut file, &mut write).await?;
        }
        write.shutdown().await
    }
    .await;
    let _ = tokio::fs::remove_file(&spool).await;
    if let Ok(summary) = &written {
        tracing::info!(
            entries = summary.entries,
            trees = summary.trees,
            "backup streamed"
        );
    }
    streamed.context("cannot send the backup")
}
