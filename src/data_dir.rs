//! The data directory is its owner's alone: it holds the store (config backups, the audit
//! log, key hashes), the admin socket and, for the demo, an inventory with SNMP
//! communities. [`prepare`] creates it mode 0700, refuses to use one that group or others
//! may write (whoever can write there can replace the store or the admin socket), and
//! makes an existing one 0700; [`restrict`] makes every file in it 0600 and every
//! directory 0700, for files the store creates as it goes (sled creates them as the
//! umask says). [`crate::app::App::start`] calls both, and the housekeeping job
//! ([`crate::jobs`]) repeats [`restrict`]. The commands that open the store without a
//! running service (`ponkeeper keys`, `backup`, `restore`) go through [`open_store`] and
//! [`restrict`] once they have closed it, so that the first command to create a store —
//! `keys create` before any `serve` — already leaves every file of it 0600 and every
//! directory 0700. [`write_private`] writes a file 0600, for inventories with
//! communities in them, and [`create_private`] creates one 0600 for backups and their
//! spool files.

use anyhow::{bail, Context};
use ponkeeper_actors::store::Store;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Creates `dir` (0700) or checks an existing one: refused if group or others may write
/// it, made 0700 otherwise.
pub fn prepare(dir: &Path) -> anyhow::Result<()> {
    let shown = dir.display();
    if !dir.exists() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .with_context(|| format!("cannot create data_dir {shown}"))?;
    }
    let mode = std::fs::metadata(dir)
        .with_context(|| format!("cannot read data_dir {shown}"))?
        .permissions()
        .mode();
    if mode & 0o022 != 0 {
        bail!(
            "data_dir {shown} is writable by group or others (mode {:o}): it holds the store, \
             the audit log and the key hashes; make it the owner's alone (chmod 700 {shown})",
            mode & 0o777
        );
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .with_context(|| format!("cannot make data_dir {shown} owner-only"))?;
    Ok(())
}

/// The store in `dir` for a command that runs without the service: the directory
/// [`prepare`]d, the store opened (created if need be) and its files made owner-only at
/// once. Files the store creates after this (as it writes) are the caller's to
/// [`restrict`] once it has closed the store.
pub fn open_store(dir: &Path) -> anyhow::Result<Store> {
    prepare(dir)?;
    let store = Store::open(dir).with_context(|| {
        format!(
            "cannot open the store in {} and no service answers on its admin socket",
            dir.display()
        )
    })?;
    restrict(dir).with_context(|| {
        format!(
            "cannot make the files in data_dir {} owner-only",
            dir.display()
        )
    })?;
    Ok(store)
}

/// Makes every file under `dir` 0600 and every directory 0700 (symbolic links are left
/// alone: permissions would follow them out of the directory).
pub fn restrict(dir: &Path) -> std::io::Result<()> {
    let mut pending = vec![dir.to_path_buf()];
    while let Some(directory) = pending.pop() {
        for entry in std::fs::read_dir(&directory)? {
            let path = entry?.path();
            let kind = std::fs::symlink_metadata(&path)?.file_type();
            let mode = if kind.is_dir() {
                pending.push(path.clone());
                0o700
            } else if kind.is_symlink() {
                continue;
            } else {
                0o600
            };
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))?;
        }
    }
    Ok(())
}

/// Writes `contents` to `path`, readable and writable by the owner only (also when the
/// file was there before with wider permissions).
pub fn write_private(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    file.write_all(contents)
}

/// Creates `path` new with mode 0600, never opening a file or link already there (a stale
/// `.partial` of ours is removed first; one that comes back in between is an error).
pub fn create_private(path: &Path) -> anyhow::Result<std::fs::File> {
    if std::fs::symlink_metadata(path).is_ok() {
        std::fs::remove_file(path)
            .with_context(|| format!("cannot remove the stale {}", path.display()))?;
    }
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> String {
        let mode = std::fs::metadata(path)
            .expect("metadata")
            .permissions()
            .mode();
        format!("{:o}", mode & 0o777)
    }

    #[test]
    fn a_data_directory_is_made_private_and_a_writable_one_refused() {
        let root = tempfile::tempdir().expect("tempdir");
        let fresh = root.path().join("a/b");
        prepare(&fresh).expect("created");
        assert_eq!(mode(&fresh), "700");

        let open = root.path().join("open");
        std::fs::create_dir(&open).expect("mkdir");
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o775)).expect("chmod");
        let error = format!("{:#}", prepare(&open).expect_err("refused"));
        assert!(
            error.contains("writable by group or others (mode 775)"),
            "{error}"
        );

        let readable = root.path().join("readable");
        std::fs::create_dir(&readable).expect("mkdir");
        std::fs::set_permissions(&readable, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        std::fs::create_dir(readable.join("blobs")).expect("mkdir");
        std::fs::write(readable.join("db"), "x").expect("write");
        std::os::unix::fs::symlink("/etc/hostname", readable.join("link")).expect("symlink");
        prepare(&readable).expect("prepared");
        restrict(&readable).expect("restricted");
        assert_eq!(mode(&readable), "700");
        assert_eq!(mode(&readable.join("blobs")), "700");
        assert_eq!(mode(&readable.join("db")), "600");
    }

    #[test]
    fn a_private_file_is_written_0600_even_over_a_readable_one() {
        let root = tempfile::tempdir().expect("tempdir");
        let path = root.path().join("inventory.toml");
        std::fs::write(&path, "old").expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        write_private(&path, b"community = \"secret\"").expect("written");
        assert_eq!(mode(&path), "600");
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            "community = \"secret\""
        );
    }
}
