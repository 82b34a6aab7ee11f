//! `ponkeeper backup --out FILE` and `ponkeeper restore --from FILE` (docs/operations.md). A backup
//! is a snapshot of the whole store ([`ponkeeper_actors::store::Store::write_snapshot`]:
//! every tree, the id sequence, a SHA-256 trailer). With `serve` running, the command
//! asks it over the admin socket ([`crate::admin`]); the service writes the snapshot to a
//! private file in its data directory and streams it back after one JSON line, so the
//! command may write where the service may not. With no service, the command opens the
//! store itself. Either way the file is written beside `FILE`, checked, then renamed into
//! place: a `FILE` that exists is whole. The file holds key hashes, subscribers, the audit
//! log and running configs, so it is created new (never through a file or link already
//! there) with mode 0600, and a directory every local user may write is refused unless
//! `--force` says the operator meant it (docs/production.md, "Backup and restore"). A
//! restore goes into an empty (or absent) data directory only, checks the whole file
//! before writing anything, and the service started on it afterwards gives ids past every
//! restored one.

use crate::admin::{self, AdminRequest, AdminResponse};
use crate::config::Config;
use anyhow::{bail, Context};
use ponkeeper_actors::store::{SnapshotSummary, Store};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// `ponkeeper backup --out FILE [--force]`: `force` allows a directory every local user
/// may write.
pub async fn backup(config: &Config, out: &Path, force: bool) -> anyhow::Result<SnapshotSummary> {
    if !force {
        refuse_shared_directory(out)?;
    }
    let partial = partial_path(out);
    let taken = match admin::connect(&config.data_dir).await {
        Some(stream) => from_service(stream, &partial).await,
        None => offline(config, &partial).await,
    };
    let summary = taken.and_then(|_| check(&partial));
    match summary {
        Ok(summary) => {
            std::fs::rename(&partial, out)
                .with_context(|| format!("cannot move the backup to {}", out.display()))?;
            Ok(summary)
        }
        Err(error) => {
            let _ = std::fs::remove_file(&partial);
            Err(error)
        }
    }
}

/// Refuses `out` in a directory others may write: there, any local user can watch for the
/// file, or put a file or link in its place before it is written.
fn refuse_shared_directory(out: &Path) -> anyhow::Result<()> {
    let dir = match out.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mode = std::fs::metadata(dir)
        .with_context(|| format!("cannot read the directory {}", dir.display()))?
        .permissions()
        .mode();
    if mode & 0o002 != 0 {
        bail!(
            "{} is writable by every local user (mode {:o}): a backup holds key hashes, \
             subscribers, the audit log and running configs, and there anyone could replace \
             or watch for it; write it to a directory of the service's user, or pass --force \
             (the file is still created new, mode 0600)",
            dir.display(),
            mode & 0o7777
        );
    }
    Ok(())
}

fn partial_path(out: &Path) -> PathBuf {
    let mut name = out.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    out.with_file_name(name)
}

/// Asks the running service for a snapshot and writes what it streams to `partial`.
async fn from_service(stream: tokio::net::UnixStream, partial: &Path) -> anyhow::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut body = serde_json::to_vec(&AdminRequest::Backup)?;
    body.push(b'\n');
    write.write_all(&body).await?;
    let mut read = tokio::io::BufReader::new(read);
    let mut line = Vec::new();
    loop {
        let byte = read
            .read_u8()
            .await
            .context("the service closed the socket")?;
        if byte == b'\n' {
            break;
        }
        line.push(byte);
        if line.len() > 64 * 1024 {
            bail!("the service's answer is not an admin response");
        }
    }
    let header: AdminResponse = serde_json::from_slice(&line)?;
    if let Some(error) = header.error {
        bail!("the service refused the backup: {error}");
    }
    let mut file = tokio::fs::File::from_std(crate::data_dir::create_private(partial)?);
    tokio::io::copy(&mut read, &mut file).await?;
    file.sync_all().await?;
    Ok(())
}

/// No service runs: open the store (owner-only, [`crate::data_dir::open_store`]) and write
/// the snapshot ourselves.
async fn offline(config: &Config, partial: &Path) -> anyhow::Result<()> {
    let store = crate::data_dir::open_store(&config.data_dir)?;
    let partial = partial.to_path_buf();
    tokio::task::spawn_blocking(move || -> anyhow::Result<()> {
        let file = crate::data_dir::create_private(&partial)?;
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        store.write_snapshot(&mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        Ok(())
    })
    .await?
}

/// Reads a snapshot file through, checking framing and checksum.
fn check(path: &Path) -> anyhow::Result<SnapshotSummary> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    Store::check_snapshot(file).with_context(|| format!("{} is not a whole backup", path.display()))
}

/// `ponkeeper restore --from FILE`: into `data_dir`, which must be empty or absent.
pub async fn restore(config: &Config, from: &Path) -> anyhow::Result<SnapshotSummary> {
    let dir = &config.data_dir;
    if dir.exists() {
        let mut entries = std::fs::read_dir(dir)
            .with_context(|| format!("cannot read data_dir {}", dir.display()))?;
        if entries.next().is_some() {
            bail!(
                "data_dir {} is not empty: restore only into an empty directory (stop the service, move the old directory aside)",
                dir.display()
            );
        }
    }
    let summary = check(from)?;
    crate::data_dir::prepare(dir)?;
    let store = Store::open(dir)
        .with_context(|| format!("cannot create the store in {}", dir.display()))?;
    let file = std::fs::File::open(from)?;
    let restored = store.restore_snapshot(file).await?;
    if restored != summary {
        bail!("{} changed while it was being restored", from.display());
    }
    drop(store);
    crate::data_dir::restrict(dir)?;
    Ok(restored)
}
