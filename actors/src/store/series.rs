//! Per-ONU history series (traffic rates, optics readings) in the `series` tree, kept as
//! one compressed block per ONU, kind and UTC day ([`block`] holds the column codecs; each
//! kind says how its points fill the columns, [`Sample`]). A poll writes its points as one
//! *poll record* per OLT ([`polls`]); housekeeping later *seals* an OLT's records of a
//! finished day into each ONU's block of that day, inserting the blocks and removing the
//! records in one sled batch, so a `kill -9` at any moment leaves every point either open
//! or sealed, never lost and never twice. What a crash may lose is what sled had not
//! flushed yet: at most `flush_every_ms` (500 ms) of writes, as for every record of the
//! store. The same batch writes the day's hourly and daily rollups ([`rollup`],
//! [`tiers`]), which outlive the raw points: each tier is pruned past its own retention.
//!
//! Keys (big-endian, so a range scan reads one ONU's days in order): a block is
//! kind (1 byte) + ONU id (8) + day since the epoch (4); rollups are kind | 0x10 (hourly)
//! or | 0x20 (daily) + ONU id + day ([`tiers`]); a poll record is kind | 0x40 + OLT id +
//! second + sequence ([`polls`]). One ONU's chart reads one key per day plus, for days not
//! sealed yet, its OLT's poll records of the day. Open points of one record each (kind |
//! 0x80 + ONU id + second), which the store wrote before poll records, are still read and
//! sealed. Records of the day-keyed trees the store kept before the series (`traffic`,
//! `optics`) are read through with the blocks until they age out ([`Sample::legacy`]).

pub mod block;
pub mod measure;
mod polls;
pub mod realistic;
pub mod rollup;
pub mod tiers;

use super::optics::day_of;
use super::{Store, StoreError};
use crate::domain::OnuId;
use chrono::{DateTime, Utc};
use rollup::{Codec, Pick, Stat};

/// The tree the series are kept in.
pub const SERIES: &str = "series";

/// Added to a kind's key byte for its open points.
const OPEN: u8 = 0x80;

/// A kind of point kept as a series: how one point is written alone (an open record),
/// how a day's points fill a block, and which values its rollups summarise.
pub trait Sample: Copy {
    /// The key byte of this kind's blocks (below [`tiers::HOURLY`]).
    const KIND: u8;
    /// How many values a point gives a rollup ([`Sample::values`]).
    const VALUES: usize;
    /// How its rollups store those values.
    const CODEC: Codec;
    /// Bytes of [`Sample::to_open`]'s record, the same for every point.
    const OPEN_BYTES: usize;
    /// Seconds since the epoch.
    fn seconds(&self) -> u32;
    fn to_open(&self) -> Vec<u8>;
    fn from_open(bytes: &[u8]) -> Option<Self>;
    /// A block of `points` (in time order, at most one a second).
    fn to_block(points: &[Self]) -> Vec<u8>;
    fn from_block(bytes: &[u8]) -> Option<Vec<Self>>;
    /// The values a rollup summarises, [`Sample::VALUES`] of them in column order; `None`
    /// for one the point lacks.
    fn values(&self) -> Vec<Option<f64>>;
    /// A point dated `at` made of the figure `pick` of each of `stats` (one per value).
    fn from_stats(at: DateTime<Utc>, stats: &[Stat], pick: Pick) -> Self;
    /// ONU `onu`'s points of `day` in the day-keyed trees of before the series.
    fn legacy(store: &Store, onu: OnuId, day: u32) -> Result<Vec<Self>, StoreError>;
}

/// Seconds of a point's time, 0 before the epoch (as the records always kept them).
pub fn seconds_of(at: DateTime<Utc>) -> u32 {
    u32::try_from(at.timestamp()).unwrap_or(0)
}

fn day_start(day: u32) -> u32 {
    u32::try_from(u64::from(day) * 86_400).unwrap_or(u32::MAX)
}

fn block_key(kind: u8, onu: OnuId, day: u32) -> [u8; 13] {
    key(kind, onu, day)
}

fn open_key(kind: u8, onu: OnuId, seconds: u32) -> [u8; 13] {
    key(kind | OPEN, onu, seconds)
}

fn key(first: u8, onu: OnuId, last: u32) -> [u8; 13] {
    let mut key = [first; 13];
    key[1..9].copy_from_slice(&onu.to_be_bytes());
    key[9..].copy_from_slice(&last.to_be_bytes());
    key
}

fn onu_of(key: &[u8]) -> Option<OnuId> {
    Some(OnuId::from_be_bytes(key.get(1..9)?.try_into().ok()?))
}

/// `points` in time order, one a second (the first given of a second stays).
fn in_order<S: Sample>(mut points: Vec<S>) -> Vec<S> {
    points.sort_by_key(S::seconds);
    points.dedup_by_key(|p| p.seconds());
    points
}

impl Store {
    /// Writes `points` as per-point open records, in one batch: what the store wrote
    /// before poll records ([`polls`]); tests make such a data directory with it.
    #[cfg(test)]
    pub(super) fn write_open_points<S: Sample>(
        &self,
        points: &[(OnuId, S)],
    ) -> Result<(), StoreError> {
        let mut batch = sled::Batch::default();
        for (onu, point) in points {
            let key = open_key(S::KIND, *onu, point.seconds());
            batch.insert(&key[..], point.to_open());
        }
        Ok(self.series.apply_batch(batch)?)
    }

    /// Hands ONU `onu`'s points with `from <= at <= to` to `take`, oldest first, until
    /// `take` answers `false`: per day, the points of the trees of before the series, of
    /// the day's block and its open points, merged by time.
    pub fn read_points<S: Sample>(
        &self,
        onu: OnuId,
        (from, to): (DateTime<Utc>, DateTime<Utc>),
        mut take: impl FnMut(S) -> bool,
    ) -> Result<(), StoreError> {
        let (first, last) = (seconds_of(from), seconds_of(to));
        for day in day_of(from)..=day_of(to) {
            for point in self.points_of_day::<S>(onu, day, Some((first, last)))? {
                if (first..=last).contains(&point.seconds()) && !take(point) {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// ONU `onu`'s raw points of `day` in time order, one a second: those of the trees of
    /// before the series, of the day's block, its open points and its OLT's poll records
    /// (when `within` is given, points outside it may be left in or out).
    fn points_of_day<S: Sample>(
        &self,
        onu: OnuId,
        day: u32,
        within: Option<(u32, u32)>,
    ) -> Result<Vec<S>, StoreError> {
        let mut points = S::legacy(self, onu, day)?;
        if let Some(block) = self.series.get(block_key(S::KIND, onu, day))? {
            match S::from_block(&block) {
                Some(sealed) => points.extend(sealed),
                None => tracing::warn!(onu, day, "a history block is unreadable, skipped"),
            }
        }
        let (first, last) = within.unwrap_or((0, u32::MAX));
        let (low, high) = (
            day_start(day).max(first),
            day_start(day + 1).saturating_sub(1).min(last),
        );
        if low <= high {
            let open = open_key(S::KIND, onu, low)..=open_key(S::KIND, onu, high);
            for entry in self.series.range(open) {
                points.extend(S::from_open(&entry?.1));
            }
            self.polled_points(onu, day, &mut points)?;
        }
        Ok(in_order(points))
    }

    /// Seals every ONU's open points of `S` of days before `before`'s into their days'
    /// blocks (merged with a block the day already has), with the day's rollups in the
    /// same batch; returns how many blocks it wrote.
    pub(super) fn seal_points<S: Sample>(
        &self,
        before: DateTime<Utc>,
    ) -> Result<usize, StoreError> {
        let stop = day_start(day_of(before));
        let mut sealed = 0;
        self.each_onu(S::KIND | OPEN, |onu| {
            let mut days: Vec<(u32, Vec<sled::IVec>, Vec<S>)> = Vec::new();
            let open = open_key(S::KIND, onu, 0)..open_key(S::KIND, onu, stop);
            for entry in self.series.range(open) {
                let (key, value) = entry?;
                let seconds = u32::from_be_bytes(key[9..13].try_into().unwrap_or_default());
                let day = seconds / 86_400;
                if days.last().is_none_or(|(d, ..)| *d != day) {
                    days.push((day, Vec::new(), Vec::new()));
                }
                if let Some((_, keys, points)) = days.last_mut() {
                    keys.push(key);
                    points.extend(S::from_open(&value));
                }
            }
            for (day, keys, open_points) in days {
                let mut batch = sled::Batch::default();
                if !self.seal_into(&mut batch, onu, day, open_points)? {
                    continue;
                }
                for key in keys {
                    batch.remove(key);
                }
                self.series.apply_batch(batch)?;
                sealed += 1;
            }
            Ok(())
        })?;
        Ok(sealed)
    }

    /// Adds to `batch` ONU `onu`'s block of `day` with `points` merged into the block the
    /// day has, and the day's rollups; `false` (nothing added) when the day's block does
    /// not decode: it is not overwritten, and the points must wait beside it.
    fn seal_into<S: Sample>(
        &self,
        batch: &mut sled::Batch,
        onu: OnuId,
        day: u32,
        points: Vec<S>,
    ) -> Result<bool, StoreError> {
        let key = block_key(S::KIND, onu, day);
        let mut merged = match self.series.get(key)? {
            None => Vec::new(),
            Some(block) => match S::from_block(&block) {
                Some(sealed) => sealed,
                None => {
                    tracing::warn!(onu, day, "a history block is unreadable, not sealed into");
                    return Ok(false);
                }
            },
        };
        merged.extend(points);
        let merged = in_order(merged);
        let mut every = S::legacy(self, onu, day)?;
        every.extend_from_slice(&merged);
        batch.insert(&key[..], S::to_block(&merged));
        self.rollups_into(batch, onu, day, &in_order(every))?;
        Ok(true)
    }

    /// Calls `per_onu` once for each ONU with a key starting `first`, in id order: one
    /// seek an ONU, however many records it has.
    fn each_onu(
        &self,
        first: u8,
        mut per_onu: impl FnMut(OnuId) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut cursor = key(first, 0, 0);
        while let Some(entry) = self.series.range(cursor..).next() {
            let (found, _) = entry?;
            let Some(onu) = onu_of(&found).filter(|_| found.first() == Some(&first)) else {
                break;
            };
            per_onu(onu)?;
            let Some(next) = onu.checked_add(1) else {
                break;
            };
            cursor = key(first, next, 0);
        }
        Ok(())
    }

    /// Seals the open points of every kind of days before `before`'s into blocks
    /// (housekeeping, hourly); returns how many blocks it wrote.
    pub fn seal_history(&self, before: DateTime<Utc>) -> Result<usize, StoreError> {
        use crate::domain::OpticsPoint;
        use crate::traffic::TrafficPoint;
        Ok(self.seal_points::<TrafficPoint>(before)?
            + self.seal_polls::<TrafficPoint>(before)?
            + self.seal_points::<OpticsPoint>(before)?
            + self.seal_polls::<OpticsPoint>(before)?)
    }
}

#[cfg(test)]
mod footprint;
#[cfg(test)]
mod tests;
