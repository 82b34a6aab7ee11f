//! Snapshots of the whole database, for `ponkeeper backup` and `ponkeeper restore`: every
//! tree (the device side's and the service's records alike) with every key and value,
//! and the id sequence, in one file whose last 32 bytes are the SHA-256 of the rest.
//!
//! Format: `PONKEEPER-SNAPSHOT 1\n`; per tree `T`, name length (u32 BE), name; per entry
//! `E`, key length (u32 BE), key, value length (u32 BE), value; then `Z` and the next id
//! (u64 BE); then the checksum. Each tree is read with one sled iterator, so everything
//! written before [`Store::write_snapshot`] began is in it; a write that lands while it
//! runs is in it or not, record by record. A restore ([`Store::restore_snapshot`]) goes
//! into a new database only, and raises the id sequence past every id it brought back.

use super::{Store, StoreError};
use sha2::{Digest, Sha256};
use std::io::{Read, Write};

const MAGIC: &[u8] = b"PONKEEPER-SNAPSHOT 1\n";
/// Where a restored database keeps the floor of its id sequence (default tree).
pub(super) const ID_BASE: &[u8] = b"ponkeeper.id_base";

/// What a snapshot holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SnapshotSummary {
    pub trees: usize,
    pub entries: u64,
    pub next_id: u64,
}

/// A writer that hashes what passes through it.
struct Hashing<W> {
    inner: W,
    hash: Sha256,
}

impl<W: Write> Hashing<W> {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.hash.update(bytes);
        self.inner.write_all(bytes)
    }

    fn put_chunk(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let len =
            u32::try_from(bytes.len()).map_err(|_| std::io::Error::other("a record over 4 GiB"))?;
        self.put(&len.to_be_bytes())?;
        self.put(bytes)
    }
}

fn io(error: std::io::Error) -> StoreError {
    StoreError::Sled(sled::Error::Io(error))
}

fn corrupt(reason: impl Into<String>) -> StoreError {
    StoreError::Corrupt {
        tree: "snapshot",
        key: String::new(),
        reason: reason.into(),
    }
}

impl Store {
    /// Writes a snapshot of every tree to `out`.
    pub fn write_snapshot(&self, out: impl Write) -> Result<SnapshotSummary, StoreError> {
        let mut out = Hashing {
            inner: out,
            hash: Sha256::new(),
        };
        out.put(MAGIC).map_err(io)?;
        let mut summary = SnapshotSummary::default();
        for name in self.db.tree_names() {
            let tree = self.db.open_tree(&name)?;
            out.put(b"T").map_err(io)?;
            out.put_chunk(&name).map_err(io)?;
            summary.trees += 1;
            for item in tree.iter() {
                let (key, value) = item?;
                out.put(b"E").map_err(io)?;
                out.put_chunk(&key).map_err(io)?;
                out.put_chunk(&value).map_err(io)?;
                summary.entries += 1;
            }
        }
        // Taken after every tree was read: above every id the snapshot holds.
        summary.next_id = self.next_id()?;
        out.put(b"Z").map_err(io)?;
        out.put(&summary.next_id.to_be_bytes()).map_err(io)?;
        let digest = out.hash.finalize();
        out.inner.write_all(&digest).map_err(io)?;
        out.inner.flush().map_err(io)?;
        Ok(summary)
    }

    /// Checks a snapshot's checksum and framing without writing anything.
    pub fn check_snapshot(input: impl Read) -> Result<SnapshotSummary, StoreError> {
        read_snapshot(input, |_, _, _| Ok(()))
    }

    /// Loads a snapshot (checked first with [`Store::check_snapshot`]) into this store,
    /// which must be new and empty, and flushes it.
    pub async fn restore_snapshot(&self, input: impl Read) -> Result<SnapshotSummary, StoreError> {
        let mut current: Option<sled::Tree> = None;
        let summary = read_snapshot(input, |name, key, value| {
            if current.as_ref().is_none_or(|t| &*t.name() != name) {
                current = Some(self.db.open_tree(name)?);
            }
            if let Some(tree) = &current {
                tree.insert(key, value)?;
            }
            Ok(())
        })?;
        self.db.insert(ID_BASE, &summary.next_id.to_be_bytes())?;
        self.flush().await?;
        Ok(summary)
    }
}

/// A reader that hashes what it reads.
struct Hashed<R> {
    input: R,
    hash: Sha256,
}

impl<R: Read> Hashed<R> {
    fn bytes(&mut self, len: usize) -> Result<Vec<u8>, StoreError> {
        let mut bytes = vec![0u8; len];
        self.input
            .read_exact(&mut bytes)
            .map_err(|_| corrupt("the file ends inside a record (truncated?)"))?;
        self.hash.update(&bytes);
        Ok(bytes)
    }

    fn chunk(&mut self) -> Result<Vec<u8>, StoreError> {
        let len = self.bytes(4)?;
        self.bytes(u32::from_be_bytes([len[0], len[1], len[2], len[3]]) as usize)
    }
}

/// Reads a snapshot, handing each entry (tree name, key, value) to `take`; fails on a
/// wrong magic, a truncated record or a checksum that does not match. Entries are handed
/// over as they are read: callers that must not act on a bad file check it first.
fn read_snapshot(
    input: impl Read,
    mut take: impl FnMut(&[u8], &[u8], &[u8]) -> Result<(), StoreError>,
) -> Result<SnapshotSummary, StoreError> {
    let mut r = Hashed {
        input: std::io::BufReader::with_capacity(1 << 20, input),
        hash: Sha256::new(),
    };
    if r.bytes(MAGIC.len())? != MAGIC {
        return Err(corrupt("not a ponkeeper snapshot (wrong header)"));
    }
    let mut summary = SnapshotSummary::default();
    let mut tree: Option<Vec<u8>> = None;
    loop {
        match r.bytes(1)?[0] {
            b'T' => {
                tree = Some(r.chunk()?);
                summary.trees += 1;
            }
            b'E' => {
                let name = tree
                    .as_deref()
                    .ok_or_else(|| corrupt("an entry before any tree"))?;
                let key = r.chunk()?;
                let value = r.chunk()?;
                take(name, &key, &value)?;
                summary.entries += 1;
            }
            b'Z' => {
                let id = r.bytes(8)?;
                summary.next_id = u64::from_be_bytes(id.try_into().unwrap_or_default());
                break;
            }
            other => return Err(corrupt(format!("unknown record tag {other}"))),
        }
    }
    let expected = r.hash.finalize();
    let mut digest = [0u8; 32];
    r.input
        .read_exact(&mut digest)
        .map_err(|_| corrupt("the checksum is missing (truncated?)"))?;
    if digest[..] != expected[..] {
        return Err(corrupt("the checksum does not match: the file is damaged"));
    }
    if r.input.read(&mut [0u8; 1]).map_err(io)? != 0 {
        return Err(corrupt("bytes after the checksum"));
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_snapshot_round_trips_and_damage_is_caught() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("a")).expect("open");
        let records = store.open_tree("records").expect("tree");
        for n in 0u32..100 {
            records
                .insert(n.to_be_bytes(), vec![n as u8; 10])
                .expect("insert");
        }
        store
            .save_config(1, "sysname x", chrono::Utc::now())
            .await
            .expect("config");
        let mut bytes = Vec::new();
        let written = store.write_snapshot(&mut bytes).expect("snapshot");
        assert_eq!(
            Store::check_snapshot(bytes.as_slice()).expect("check"),
            written
        );

        let copy = Store::open(&dir.path().join("b")).expect("open");
        let restored = copy
            .restore_snapshot(bytes.as_slice())
            .await
            .expect("restore");
        assert_eq!(restored, written);
        let tree = copy.open_tree("records").expect("tree");
        assert_eq!(tree.len(), 100);
        assert_eq!(
            tree.get(7u32.to_be_bytes()).expect("get").expect("there"),
            vec![7u8; 10]
        );
        assert_eq!(
            copy.latest_config(1)
                .expect("read")
                .expect("one")
                .size_bytes,
            9
        );

        let mut damaged = bytes.clone();
        damaged[40] ^= 1;
        assert!(Store::check_snapshot(damaged.as_slice()).is_err());
        let truncated = &bytes[..bytes.len() - 5];
        assert!(Store::check_snapshot(truncated).is_err());
        assert!(Store::check_snapshot(&b"hello"[..]).is_err());
    }
}
