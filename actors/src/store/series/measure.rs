//! What the history takes and costs, measured on a real store (issue 53, H1–H3:
//! `ponkeeper bench history`, and the footprint tests beside the series): `du` of a
//! directory ([`du`]); `du` of a fresh database holding a copy of a store's records, the
//! size a snapshot restore leaves, without the copies sled's log keeps until it cleans
//! its segments ([`Store::compacted`]); the bytes of keys and values sled is asked to keep
//! ([`Store::logical`]), and those of each part of the `series` tree — each kind's raw
//! blocks, open points, hourly and daily rollup blocks, with how many points or rows
//! they hold ([`Store::series_parts`]); and the CPU time of the process ([`cpu_seconds`]).

use super::polls::POLL;
use super::rollup::{self, Codec};
use super::tiers::{DAILY, HOURLY};
use super::{Sample, OPEN};
use crate::domain::OpticsPoint;
use crate::store::{Store, StoreError};
use crate::traffic::TrafficPoint;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Allocated bytes of every file under `dir`.
pub fn du(dir: &Path) -> std::io::Result<u64> {
    let mut allocated = 0u64;
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(at) = dirs.pop() {
        for entry in std::fs::read_dir(&at)? {
            let entry = entry?;
            let meta = entry.metadata()?;
            if meta.is_dir() {
                dirs.push(entry.path());
            } else {
                allocated += meta.blocks() * 512;
            }
        }
    }
    Ok(allocated)
}

/// CPU seconds (user and system, every thread) this process has used so far.
pub fn cpu_seconds() -> f64 {
    let spent = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    spent.tv_sec as f64 + spent.tv_nsec as f64 / 1e9
}

/// The part of the `series` tree a key belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    /// Points written by a poll and not sealed yet.
    Open,
    /// Sealed days of raw points.
    Raw,
    Hourly,
    Daily,
}

/// What one part of the `series` tree holds: a kind's records of one tier.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Part {
    /// Records (keys).
    pub records: u64,
    /// Bytes of their keys and values.
    pub bytes: u64,
    /// Bytes of their values alone (the blocks).
    pub value_bytes: u64,
    /// Points (raw, open) or rows (rollups) they hold.
    pub items: u64,
}

/// Each part of the `series` tree, by kind (its key byte) and tier.
pub type Parts = Vec<((u8, Tier), Part)>;

/// The name of a kind's key byte.
pub fn kind_name(kind: u8) -> &'static str {
    match kind {
        TrafficPoint::KIND => "traffic",
        OpticsPoint::KIND => "optics",
        _ => "other",
    }
}

/// The kind and tier of a `series` key.
pub fn part_of(key: &[u8]) -> Option<(u8, Tier)> {
    let first = *key.first()?;
    let tier = match first & 0xF0 {
        OPEN | POLL => Tier::Open,
        HOURLY => Tier::Hourly,
        DAILY => Tier::Daily,
        0 => Tier::Raw,
        _ => return None,
    };
    Some((first & 0x0F, tier))
}

/// Points or rows a `series` record of `kind` and `tier` holds.
fn items(kind: u8, tier: Tier, value: &[u8]) -> u64 {
    let rows =
        |values, codec: Codec| rollup::from_block(value, values, codec).map_or(0, |r| r.len());
    let count = match (kind, tier) {
        (TrafficPoint::KIND, Tier::Open) => open_points::<TrafficPoint>(value.len()),
        (OpticsPoint::KIND, Tier::Open) => open_points::<OpticsPoint>(value.len()),
        (TrafficPoint::KIND, Tier::Raw) => TrafficPoint::from_block(value).map_or(0, |p| p.len()),
        (OpticsPoint::KIND, Tier::Raw) => OpticsPoint::from_block(value).map_or(0, |p| p.len()),
        (TrafficPoint::KIND, _) => rows(TrafficPoint::VALUES, TrafficPoint::CODEC),
        (OpticsPoint::KIND, _) => rows(OpticsPoint::VALUES, OpticsPoint::CODEC),
        _ => 0,
    };
    count as u64
}

/// Points of an open record of `bytes`: one a point of before poll records, else one an
/// entry of ONU id and point ([`super::polls`]).
fn open_points<S: Sample>(bytes: usize) -> usize {
    if bytes == S::OPEN_BYTES {
        1
    } else {
        bytes / super::polls::entry_bytes::<S>()
    }
}

impl Store {
    /// `du` of a fresh database made in `scratch` (an empty directory) of the records of
    /// every tree for which `keep(tree, key)` holds; the database is left there.
    pub fn compacted(
        &self,
        scratch: &Path,
        keep: impl Fn(&[u8], &[u8]) -> bool,
    ) -> Result<u64, StoreError> {
        let db = sled::Config::new()
            .path(scratch.join("ponkeeper.sled"))
            .open()?;
        for name in self.db.tree_names() {
            let (from, to) = (self.db.open_tree(&name)?, db.open_tree(&name)?);
            for entry in from.iter() {
                let (key, value) = entry?;
                if keep(&name, &key) {
                    to.insert(key, value)?;
                }
            }
        }
        db.flush()?;
        drop(db);
        du(scratch).map_err(|e| StoreError::Sled(sled::Error::Io(e)))
    }

    /// Bytes of keys and values in every tree: what sled is asked to keep.
    pub fn logical(&self) -> Result<u64, StoreError> {
        let mut bytes = 0;
        for name in self.db.tree_names() {
            for entry in self.db.open_tree(&name)?.iter() {
                let (key, value) = entry?;
                bytes += (key.len() + value.len()) as u64;
            }
        }
        Ok(bytes)
    }

    /// Each part of the `series` tree (by kind and tier, in that order) and what it holds.
    pub fn series_parts(&self) -> Result<Parts, StoreError> {
        let mut parts: std::collections::BTreeMap<(u8, Tier), Part> = Default::default();
        for entry in self.series.iter() {
            let (key, value) = entry?;
            let Some((kind, tier)) = part_of(&key) else {
                continue;
            };
            let part = parts.entry((kind, tier)).or_default();
            part.records += 1;
            part.bytes += (key.len() + value.len()) as u64;
            part.value_bytes += value.len() as u64;
            part.items += items(kind, tier, &value);
        }
        Ok(parts.into_iter().collect())
    }
}
