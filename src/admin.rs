//! The admin socket: a Unix socket in the data directory (owner-only permissions) through
//! which `ponkeeper keys …` and `ponkeeper backup` reach a running service, since only one
//! process at a time may open the store. One JSON request per connection, one JSON answer
//! line; key changes take effect in the running key ring at once, and a backup's answer
//! line is followed by the snapshot's bytes. This module is the protocol both halves
//! speak; [`client`] is what the commands call, [`server`] what `serve` runs.

mod client;
mod server;

pub use client::{connect, request};
pub use server::AdminSocket;

use crate::keys::{KeyListing, NewKey};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use tokio::io::BufReader;

const SOCKET_NAME: &str = "admin.sock";

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum AdminRequest {
    Create(NewKey),
    List,
    Revoke {
        name: String,
    },
    /// A snapshot of the store: the answer line is followed by its bytes
    /// ([`crate::backup`] asks; [`server`] streams it).
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

/// Where the socket is in `data_dir`.
fn socket_path(data_dir: &Path) -> PathBuf {
    data_dir.join(SOCKET_NAME)
}

trait TakeLine {
    async fn take_line(&mut self, line: &mut String) -> std::io::Result<()>;
}

impl<R: tokio::io::AsyncRead + Unpin> TakeLine for BufReader<R> {
    /// Reads one line of at most 64 KiB.
    async fn take_line(&mut self, line: &mut String) -> std::io::Result<()> {
        use tokio::io::{AsyncBufReadExt, AsyncReadExt};
        let mut limited = (&mut *self).take(64 * 1024);
        limited.read_line(line).await?;
        Ok(())
    }
}
