//! The tiers of a history series ([`super`]): raw points, hourly rollups and daily
//! rollups ([`super::rollup`]), each kept as long as its own retention ([`Cutoffs`]).
//!
//! Keys, beside the raw ones: a day's hourly rows (up to 24) are one block under kind |
//! [`HOURLY`] + ONU id + day, like the day's raw block; a month's daily rows (up to 31)
//! are one block under kind | [`DAILY`] + ONU id + the month's first day. A month, not a
//! year: sealing a day rewrites its month's block, and a month is at most 31 rows to
//! rewrite where a year would be 366; a 5-year chart still reads only 60 keys.
//!
//! Housekeeping writes a day's rollups in the very sled batch that seals the day (the raw
//! block in, the open points out), so a `kill -9` leaves the day either open with no
//! rollups or sealed with them. Both are computed from every raw point of the day, so a
//! late point merged at the next seal replaces the day's rows rather than adding to them.
//! Days sealed before rollups existed (and days of the trees of before the series) are
//! rolled up when their raw points age out, before they are dropped, in a batch of their
//! own: a crash between the two leaves the rollups written and the raw points still
//! there, and the next prune drops them. The hourly block of a day is the mark that the
//! day is rolled up.

use super::rollup::{self, Buckets, Rollup};
use super::{day_start, key, open_key, Sample, OPEN};
use crate::domain::OnuId;
use crate::store::optics::day_of;
use crate::store::{Store, StoreError};
use chrono::{DateTime, Datelike, Utc};

/// Added to a kind's key byte for its hourly rollups.
pub const HOURLY: u8 = 0x10;
/// Added to a kind's key byte for its daily rollups.
pub const DAILY: u8 = 0x20;

/// A tier of rollups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    Hourly,
    Daily,
}

impl Tier {
    /// Seconds a row covers.
    pub fn period(self) -> u32 {
        match self {
            Tier::Hourly => 3_600,
            Tier::Daily => 86_400,
        }
    }
}

/// What each tier keeps: its days before these go (pruned by whole days).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cutoffs {
    pub raw: DateTime<Utc>,
    pub hourly: DateTime<Utc>,
    pub daily: DateTime<Utc>,
}

/// Cutoffs that drop raw points before `at` and keep every rollup (tests of the raw tier).
#[cfg(test)]
pub(crate) fn raw_only(at: DateTime<Utc>) -> Cutoffs {
    Cutoffs {
        raw: at,
        hourly: DateTime::<Utc>::MIN_UTC,
        daily: DateTime::<Utc>::MIN_UTC,
    }
}

/// The first day of `day`'s UTC month.
fn month_of(day: u32) -> u32 {
    let date = DateTime::from_timestamp(i64::from(day_start(day)), 0).map(|at| at.date_naive());
    date.map_or(day, |d| day - d.day0())
}

fn hourly_key(kind: u8, onu: OnuId, day: u32) -> [u8; 13] {
    key(kind | HOURLY, onu, day)
}

fn daily_key(kind: u8, onu: OnuId, day: u32) -> [u8; 13] {
    key(kind | DAILY, onu, month_of(day))
}

impl Store {
    /// Adds to `batch` the rollups of ONU `onu`'s `day` made of `points` (every raw point
    /// of the day, in time order): the day's hourly block, and its row in its month's
    /// daily block. A month block that does not decode is left alone (warned): the day has
    /// no daily row then, and reads make one from its raw points while they last.
    pub(super) fn rollups_into<S: Sample>(
        &self,
        batch: &mut sled::Batch,
        onu: OnuId,
        day: u32,
        points: &[S],
    ) -> Result<(), StoreError> {
        let hourly = rollup::summarise(points, Tier::Hourly.period());
        let hourly_block = rollup::to_block(&hourly, S::VALUES, S::CODEC);
        batch.insert(&hourly_key(S::KIND, onu, day)[..], hourly_block);
        let month = daily_key(S::KIND, onu, day);
        let mut rows = match self.series.get(month)? {
            None => Vec::new(),
            Some(block) => match rollup::from_block(&block, S::VALUES, S::CODEC) {
                Some(rows) => rows,
                None => {
                    tracing::warn!(onu, day, "a daily rollup block is unreadable, left alone");
                    return Ok(());
                }
            },
        };
        rows.retain(|row| row.start / 86_400 != day);
        rows.extend(rollup::summarise(points, Tier::Daily.period()));
        rows.sort_by_key(|row| row.start);
        batch.insert(&month[..], rollup::to_block(&rows, S::VALUES, S::CODEC));
        Ok(())
    }

    /// Rolls up ONU `onu`'s `day` from its raw points unless it is already (its hourly
    /// block is there), in a batch of its own: before the day's raw points are dropped.
    fn ensure_rolled_up<S: Sample>(&self, onu: OnuId, day: u32) -> Result<(), StoreError> {
        if self.series.contains_key(hourly_key(S::KIND, onu, day))? {
            return Ok(());
        }
        let points = self.points_of_day::<S>(onu, day, None)?;
        if points.is_empty() {
            return Ok(());
        }
        let mut batch = sled::Batch::default();
        self.rollups_into(&mut batch, onu, day, &points)?;
        Ok(self.series.apply_batch(batch)?)
    }

    /// Drops `S`'s raw points of days before `cutoffs.raw`'s (rolling each day up first
    /// if it is not yet), hourly rows of days before `cutoffs.hourly`'s and daily rows of
    /// days before `cutoffs.daily`'s; returns how many records went. Once a day: a prune
    /// to the days of the last one (housekeeping runs hourly) visits nothing. A point
    /// written late for a day past a cutoff waits for the next day's prune. `legacy_days` are
    /// the (ONU, day) pairs of the trees of before the series about to be dropped by the
    /// caller: they are rolled up here first.
    pub(crate) fn prune_tiers<S: Sample>(
        &self,
        cutoffs: Cutoffs,
        legacy_days: &[(OnuId, u32)],
    ) -> Result<usize, StoreError> {
        let days = [cutoffs.raw, cutoffs.hourly, cutoffs.daily].map(day_of);
        if legacy_days.is_empty() && self.pruned_to(S::KIND, None) == Some(days) {
            return Ok(0);
        }
        for &(onu, day) in legacy_days {
            self.ensure_rolled_up::<S>(onu, day)?;
        }
        // Poll records of those days, had housekeeping not sealed them, go as blocks.
        self.seal_polls::<S>(cutoffs.raw)?;
        let raw = day_of(cutoffs.raw);
        let mut removed = 0;
        for (first, last) in [(S::KIND, raw), (S::KIND | OPEN, day_start(raw))] {
            self.each_onu(first, |onu| {
                let mut batch = sled::Batch::default();
                let mut rolled = None;
                for entry in self.series.range(key(first, onu, 0)..key(first, onu, last)) {
                    let (found, _) = entry?;
                    let at = u32::from_be_bytes(found[9..13].try_into().unwrap_or_default());
                    let day = if first & OPEN == 0 { at } else { at / 86_400 };
                    if rolled != Some(day) {
                        self.ensure_rolled_up::<S>(onu, day)?;
                        rolled = Some(day);
                    }
                    batch.remove(found);
                    removed += 1;
                }
                Ok(self.series.apply_batch(batch)?)
            })?;
        }
        let hourly = day_of(cutoffs.hourly);
        self.each_onu(S::KIND | HOURLY, |onu| {
            let mut batch = sled::Batch::default();
            let first = S::KIND | HOURLY;
            for entry in self
                .series
                .range(key(first, onu, 0)..key(first, onu, hourly))
            {
                batch.remove(entry?.0);
                removed += 1;
            }
            Ok(self.series.apply_batch(batch)?)
        })?;
        removed += self.prune_daily::<S>(day_of(cutoffs.daily))?;
        self.pruned_to(S::KIND, Some(days));
        Ok(removed)
    }

    /// The days `kind` was last pruned to; with `now`, records them first.
    fn pruned_to(&self, kind: u8, now: Option<[u32; 3]>) -> Option<[u32; 3]> {
        let mut pruned = self.series_pruned.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(days) = now {
            pruned.insert(kind, days);
        }
        pruned.get(&kind).copied()
    }

    /// Drops `S`'s daily rows of days before `day`: whole month blocks, and the rows of
    /// `day`'s month before it. Returns how many rows went.
    fn prune_daily<S: Sample>(&self, day: u32) -> Result<usize, StoreError> {
        let first = S::KIND | DAILY;
        let mut removed = 0;
        self.each_onu(first, |onu| {
            let mut batch = sled::Batch::default();
            for entry in self
                .series
                .range(key(first, onu, 0)..key(first, onu, month_of(day)))
            {
                let (found, block) = entry?;
                removed += rollup::from_block(&block, S::VALUES, S::CODEC).map_or(1, |r| r.len());
                batch.remove(found);
            }
            let month = daily_key(S::KIND, onu, day);
            let rows = self.series.get(month)?;
            let rows = rows.and_then(|b| rollup::from_block(&b, S::VALUES, S::CODEC));
            if let Some(mut rows) = rows {
                let before = rows.len();
                rows.retain(|row| row.start >= day_start(day));
                removed += before - rows.len();
                if rows.is_empty() {
                    batch.remove(&month[..]);
                } else if rows.len() < before {
                    batch.insert(&month[..], rollup::to_block(&rows, S::VALUES, S::CODEC));
                }
            }
            Ok(self.series.apply_batch(batch)?)
        })?;
        Ok(removed)
    }

    /// Hands ONU `onu`'s `tier` rows that overlap `[from, to]` to `take`, oldest first,
    /// until it answers `false`. A day (hourly) or a day's row (daily) not rolled up yet
    /// (the current day, a day sealed before rollups, a day with a late point waiting for
    /// the next seal: any day with open points) is made from the day's raw points as they
    /// are read.
    pub fn read_rollups<S: Sample>(
        &self,
        onu: OnuId,
        (from, to): (DateTime<Utc>, DateTime<Utc>),
        tier: Tier,
        mut take: impl FnMut(&Rollup) -> bool,
    ) -> Result<(), StoreError> {
        let (first, last) = (super::seconds_of(from), super::seconds_of(to));
        let period = tier.period();
        let overlaps = |row: &Rollup| row.start <= last && row.start.saturating_add(period) > first;
        let mut month: Option<(u32, Vec<Rollup>)> = None;
        for day in day_of(from)..=day_of(to) {
            let rows = match tier {
                Tier::Hourly => self.hourly_rows::<S>(onu, day)?,
                Tier::Daily => {
                    let row = self.daily_row::<S>(onu, day, &mut month)?;
                    row.into_iter().collect()
                }
            };
            for row in rows.iter().filter(|row| overlaps(row)) {
                if !take(row) {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// ONU `onu`'s hourly rows of `day`: its stored block, unless the day has open points
    /// (not sealed yet, or a late point) or no block; then made from its raw points.
    fn hourly_rows<S: Sample>(&self, onu: OnuId, day: u32) -> Result<Vec<Rollup>, StoreError> {
        if !self.has_open::<S>(onu, day)? {
            if let Some(block) = self.series.get(hourly_key(S::KIND, onu, day))? {
                match rollup::from_block(&block, S::VALUES, S::CODEC) {
                    Some(rows) => return Ok(rows),
                    None => tracing::warn!(onu, day, "an hourly rollup block is unreadable"),
                }
            }
        }
        let points = self.points_of_day::<S>(onu, day, None)?;
        Ok(rollup::summarise(&points, Tier::Hourly.period()))
    }

    /// `day`'s daily row: the one its month's block holds (the block read once a month,
    /// kept in `month`), unless the day has open points or the block lacks it: then
    /// [`Store::day_row`]'s.
    fn daily_row<S: Sample>(
        &self,
        onu: OnuId,
        day: u32,
        month: &mut Option<(u32, Vec<Rollup>)>,
    ) -> Result<Option<Rollup>, StoreError> {
        let first_day = month_of(day);
        if month.as_ref().is_none_or(|(m, _)| *m != first_day) {
            *month = Some((first_day, self.month_rows::<S>(onu, day)?));
        }
        let stored = month
            .as_ref()
            .and_then(|(_, rows)| rows.iter().find(|row| row.start == day_start(day)));
        match stored {
            Some(row) if !self.has_open::<S>(onu, day)? => Ok(Some(row.clone())),
            _ => self.day_row::<S>(onu, day),
        }
    }

    /// Whether ONU `onu` has open points of `day`: its rollups, if any, lack them.
    fn has_open<S: Sample>(&self, onu: OnuId, day: u32) -> Result<bool, StoreError> {
        let open = open_key(S::KIND, onu, day_start(day))
            ..=open_key(S::KIND, onu, day_start(day + 1).saturating_sub(1));
        Ok(self.series.range(open).next().transpose()?.is_some()
            || self.has_polled::<S>(onu, day)?)
    }

    /// The daily rows of `day`'s month, none if its block does not decode (warned).
    fn month_rows<S: Sample>(&self, onu: OnuId, day: u32) -> Result<Vec<Rollup>, StoreError> {
        let Some(block) = self.series.get(daily_key(S::KIND, onu, day))? else {
            return Ok(Vec::new());
        };
        let rows = rollup::from_block(&block, S::VALUES, S::CODEC);
        if rows.is_none() {
            tracing::warn!(onu, day, "a daily rollup block is unreadable");
        }
        Ok(rows.unwrap_or_default())
    }

    /// `day`'s daily row when its month block lacks it: made from its raw points, or if
    /// they are gone, from its hourly rows.
    fn day_row<S: Sample>(&self, onu: OnuId, day: u32) -> Result<Option<Rollup>, StoreError> {
        let points = self.points_of_day::<S>(onu, day, None)?;
        if !points.is_empty() {
            return Ok(rollup::summarise(&points, Tier::Daily.period()).pop());
        }
        let hourly = self.series.get(hourly_key(S::KIND, onu, day))?;
        let Some(rows) = hourly.and_then(|b| rollup::from_block(&b, S::VALUES, S::CODEC)) else {
            return Ok(None);
        };
        let mut day_bucket = Buckets::new(i64::from(day_start(day)), 86_400, 1, S::VALUES);
        for row in &rows {
            day_bucket.push(row);
        }
        Ok(day_bucket.finish().pop())
    }
}

#[cfg(test)]
mod tests;
