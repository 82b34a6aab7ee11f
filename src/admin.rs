//! The admin socket: a Unix socket in the data directory (owner-only permissions) through
//! which `ponkeeper keys …` reaches a running service, since only one process at a time
//! may open the store. One JSON request per connection, one JSON answer; changes take effect
//! in the running key ring at once. `ponkeeper backup` asks here too: its answer line is
//! followed by the snapshot's bytes ([`crate::backup`]).

use crate::keys::{self, KeyListing, NewKey};
use crate::state::AppState;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};

const SOCKET_NAME: &str = "admin.sock";

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum AdminRequest {
    Create(NewKey),
    List,
    Revoke {
        name: String,
    },
    /// A snapshot of the store: the answer line is followed by its bytes ([`crate::backup`]).
    Backup,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct AdminResponse {
    pub error: Option<String>,
    pub key: Option<String>,
    pub keys: Option<Vec<KeyListing>>,
    /// Entries in the snapshot that follows this line (`backup` only).
    pub backup_entries: Option<u64>,
}

pub struct AdminSocket {
    listener: UnixListener,
    state: AppState,
}

fn socket_path(data_dir: &Path) -> PathBuf {
    data_dir.join(SOCKET_NAME)
}

impl AdminSocket {
    /// Binds the socket (replacing a stale one) with mode 0600.
    pub fn bind(data_dir: &Path, state: AppState) -> anyhow::Result<AdminSocket> {
        use std::os::unix::fs::PermissionsExt;
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
        return crate::backup::serve(&state.store, &state.config.data_dir, write).await;
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

/// A connection to the running service's socket; `None` if no service listens.
pub async fn connect(data_dir: &Path) -> Option<UnixStream> {
    UnixStream::connect(socket_path(data_dir)).await.ok()
}

/// Sends a request to the running service; `None` if no service listens.
pub async fn request(
    data_dir: &Path,
    request: &AdminRequest,
) -> anyhow::Result<Option<AdminResponse>> {
    let Ok(stream) = UnixStream::connect(socket_path(data_dir)).await else {
        return Ok(None);
    };
    let (read, mut write) = stream.into_split();
    let mut body = serde_json::to_vec(request)?;
    body.push(b'\n');
    write.write_all(&body).await?;
    let mut line = String::new();
    BufReader::new(read).take_line(&mut line).await?;
    Ok(Some(serde_json::from_str(&line)?))
}

trait TakeLine {
    async fn take_line(&mut self, line: &mut String) -> std::io::Result<()>;
}

impl<R: tokio::io::AsyncRead + Unpin> TakeLine for BufReader<R> {
    /// Reads one line of at most 64 KiB.
    async fn take_line(&mut self, line: &mut String) -> std::io::Result<()> {
        use tokio::io::AsyncReadExt;
        let mut limited = (&mut *self).take(64 * 1024);
        limited.read_line(line).await?;
        Ok(())
    }
}
