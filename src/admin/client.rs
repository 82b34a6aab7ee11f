//! The commands' half of the admin socket: a connection to the running service, or
//! `None` when no service listens (the commands then open the store themselves).

use super::{socket_path, AdminRequest, AdminResponse, TakeLine};
use std::path::Path;
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::UnixStream;

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
