//! Rollups of a history series ([`super`]): each value of a kind's points (a traffic
//! rate, an optics reading) summarised over a UTC hour or day as how many points gave it,
//! their least, mean and greatest ([`Stat`]), one [`Rollup`] row a period. Housekeeping
//! computes them from the raw points when it seals a day and keeps them in blocks of the
//! `series` tree beside the raw ones ([`super::tiers`]); the service reads them for
//! periods past the raw points' retention, and combines rows (or raw points, each a row
//! of one) into the buckets of a step ([`Buckets`]): the mean weighted by the count, the
//! least of the least, the greatest of the greatest.
//!
//! A stored row holds its mean at the precision of the raw points ([`Codec`]): f32 for
//! rates, hundredths for optics. Rows computed on the fly (the current day) are rounded
//! the same way, so a row reads the same whether it was stored or computed.
//!
//! Block (one a period of rows: a day of hourly rows, a month of daily ones): the row
//! count and the values a row holds (varints), the rows' starts (delta-of-delta, as raw
//! timestamps), the points of each row, then per value its counts and its least, mean and
//! greatest, each a column in the kind's codec, or written once when every row holds the
//! same ([`SAME`]). Every decoder takes untrusted bytes: it answers `None` for anything it
//! cannot read and never panics.

use super::block::{self, Reader};
use super::Sample;

/// How a kind's values are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// f32 bits as a Gorilla XOR stream (rates).
    Float,
    /// Hundredths as delta zigzag varints (optics: centi-dBm, °C, V, mA, the level).
    Centi,
}

impl Codec {
    /// `value` at the precision this codec keeps.
    pub fn stored(self, value: f64) -> f64 {
        match self {
            Codec::Float => f64::from(value as f32),
            Codec::Centi => f64::from(centi(value)) / 100.0,
        }
    }
}

fn centi(value: f64) -> i32 {
    (value * 100.0)
        .round()
        .clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32
}

/// Which figure of a [`Stat`] a point is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    Min,
    Avg,
    Max,
}

/// One value over a period: how many points gave it, their least, mean and greatest
/// (meaningless when `count` is 0: no point gave the value).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Stat {
    pub count: u32,
    pub min: f64,
    pub avg: f64,
    pub max: f64,
}

impl Stat {
    /// The figure `pick`, `None` when no point gave the value.
    pub fn get(&self, pick: Pick) -> Option<f64> {
        (self.count > 0).then_some(match pick {
            Pick::Min => self.min,
            Pick::Avg => self.avg,
            Pick::Max => self.max,
        })
    }
}

/// One period of a series: when it starts (seconds since the epoch), how many points it
/// summarises, and a [`Stat`] per value of the kind ([`Sample::values`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Rollup {
    pub start: u32,
    pub count: u32,
    pub stats: Vec<Stat>,
}

impl Rollup {
    /// The row of one point: a count of one per value it gave.
    pub fn of_point<S: Sample>(point: &S) -> Rollup {
        let mut sums = Sums::new(S::VALUES);
        sums.add_point(point);
        sums.finish(point.seconds(), None)
    }
}

/// Sums of a bucket being filled.
#[derive(Debug, Clone)]
struct Sums {
    count: u32,
    values: Vec<Sum>,
}

#[derive(Debug, Clone, Copy)]
struct Sum {
    count: u32,
    total: f64,
    min: f64,
    max: f64,
    /// The mean of the only part added so far, kept as it was (a bucket of one row is
    /// that row, not its mean times its count divided by it again).
    only: Option<f64>,
}

impl Sum {
    const EMPTY: Sum = Sum {
        count: 0,
        total: 0.0,
        min: f64::INFINITY,
        max: f64::NEG_INFINITY,
        only: None,
    };

    fn add(&mut self, count: u32, mean: f64, min: f64, max: f64) {
        self.only = (self.count == 0).then_some(mean);
        self.count = self.count.saturating_add(count);
        self.total += mean * f64::from(count);
        self.min = self.min.min(min);
        self.max = self.max.max(max);
    }

    fn stat(&self, codec: Option<Codec>) -> Stat {
        if self.count == 0 {
            return Stat::default();
        }
        let avg = self.only.unwrap_or(self.total / f64::from(self.count));
        Stat {
            count: self.count,
            min: self.min,
            avg: codec.map_or(avg, |c| c.stored(avg)),
            max: self.max,
        }
    }
}

impl Sums {
    fn new(values: usize) -> Sums {
        Sums {
            count: 0,
            values: vec![Sum::EMPTY; values],
        }
    }

    fn add_point<S: Sample>(&mut self, point: &S) {
        self.count = self.count.saturating_add(1);
        for (sum, value) in self.values.iter_mut().zip(point.values()) {
            if let Some(v) = value.filter(|v| !v.is_nan()) {
                sum.add(1, v, v, v);
            }
        }
    }

    fn add_row(&mut self, row: &Rollup) {
        self.count = self.count.saturating_add(row.count);
        for (sum, stat) in self.values.iter_mut().zip(&row.stats) {
            if stat.count > 0 {
                sum.add(stat.count, stat.avg, stat.min, stat.max);
            }
        }
    }

    /// The row starting at `start`; means rounded to `codec` when given (a stored row).
    fn finish(&self, start: u32, codec: Option<Codec>) -> Rollup {
        Rollup {
            start,
            count: self.count,
            stats: self.values.iter().map(|sum| sum.stat(codec)).collect(),
        }
    }
}

/// The rows of `points` (in time order) over periods of `period` seconds aligned on the
/// epoch (UTC hours, days), means rounded as the kind stores them.
pub fn summarise<S: Sample>(points: &[S], period: u32) -> Vec<Rollup> {
    let mut rows = Vec::new();
    let mut open: Option<(u32, Sums)> = None;
    for point in points {
        let start = point.seconds() - point.seconds() % period;
        if open.as_ref().is_some_and(|(at, _)| *at != start) {
            if let Some((at, sums)) = open.take() {
                rows.push(sums.finish(at, Some(S::CODEC)));
            }
        }
        let (_, sums) = open.get_or_insert_with(|| (start, Sums::new(S::VALUES)));
        sums.add_point(point);
    }
    if let Some((at, sums)) = open {
        rows.push(sums.finish(at, Some(S::CODEC)));
    }
    rows
}

/// Rows (or raw points as rows of one) of a period, taken oldest first, combined into
/// buckets of `step` seconds from `origin`: bucket `i` holds the rows starting in
/// `[origin + i·step, origin + (i+1)·step)` and starts there. A bucket without rows is
/// left out.
#[derive(Debug)]
pub struct Buckets {
    origin: i64,
    step: i64,
    limit: usize,
    values: usize,
    done: Vec<Rollup>,
    open: Option<(i64, Sums)>,
}

impl Buckets {
    /// At most `limit` buckets of `step` seconds (at least 1) from `origin` (seconds),
    /// of rows of `values` values.
    pub fn new(origin: i64, step: i64, limit: usize, values: usize) -> Buckets {
        Buckets {
            origin,
            step: step.max(1),
            limit,
            values,
            done: Vec::new(),
            open: None,
        }
    }

    /// Takes the next row; `false` once `limit` buckets are complete, when the rest need
    /// not be read (this row is not taken then).
    pub fn push(&mut self, row: &Rollup) -> bool {
        if self.done.len() >= self.limit {
            return false;
        }
        let index = (i64::from(row.start) - self.origin).div_euclid(self.step);
        if self.open.as_ref().is_some_and(|(open, _)| *open != index) {
            self.close();
            if self.done.len() >= self.limit {
                return false;
            }
        }
        let values = self.values;
        let (_, sums) = self.open.get_or_insert_with(|| (index, Sums::new(values)));
        sums.add_row(row);
        true
    }

    /// The complete buckets and the last one with what it was given, oldest first.
    pub fn finish(mut self) -> Vec<Rollup> {
        self.close();
        self.done
    }

    fn close(&mut self) {
        if let Some((index, sums)) = self.open.take() {
            let start = self.origin.saturating_add(self.step.saturating_mul(index));
            let start = u32::try_from(start.max(0)).unwrap_or(u32::MAX);
            self.done.push(sums.finish(start, None));
        }
    }
}

/// A block of `rows` (in time order) of `values` values each, in `codec`.
pub fn to_block(rows: &[Rollup], values: usize, codec: Codec) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + rows.len() * (2 + values * 6));
    block::put_varint(&mut out, rows.len() as u64);
    block::put_varint(&mut out, values as u64);
    let starts: Vec<u32> = rows.iter().map(|r| r.start).collect();
    block::put_times(&mut out, &starts);
    put_integers(
        &mut out,
        rows.iter().map(|r| count_column(r.count)).collect(),
    );
    for value in 0..values {
        let stats: Vec<Stat> = rows
            .iter()
            .map(|r| r.stats.get(value).copied().unwrap_or_default())
            .collect();
        put_integers(
            &mut out,
            stats.iter().map(|s| count_column(s.count)).collect(),
        );
        for pick in [Pick::Min, Pick::Avg, Pick::Max] {
            let figures = stats.iter().map(|s| s.get(pick).unwrap_or(0.0));
            match codec {
                Codec::Float => put_floats(&mut out, figures.map(|v| v as f32).collect()),
                Codec::Centi => put_integers(&mut out, figures.map(centi).collect()),
            }
        }
    }
    out
}

fn count_column(count: u32) -> i32 {
    i32::try_from(count).unwrap_or(i32::MAX)
}

/// The first byte of a column: every row holds the same value, written once...
const SAME: u8 = 1;
/// ... or each row's value is written, in the column's codec.
const EACH: u8 = 0;

/// A column of integers: [`SAME`] and the value, or [`EACH`] and their deltas. A rollup
/// repeats far more than raw points do (counts of a steady read, a reading that never
/// moves, an absent one), and a byte a row is what a repeat costs otherwise.
fn put_integers(out: &mut Vec<u8>, column: Vec<i32>) {
    match column.first() {
        Some(&first) if column.iter().all(|&v| v == first) => {
            out.push(SAME);
            block::put_integers(out, [first]);
        }
        _ => {
            out.push(EACH);
            block::put_integers(out, column);
        }
    }
}

/// A column of f32: [`SAME`] and the value, or [`EACH`] and their XOR stream.
fn put_floats(out: &mut Vec<u8>, column: Vec<f32>) {
    match column.first() {
        Some(&first) if column.iter().all(|v| v.to_bits() == first.to_bits()) => {
            out.push(SAME);
            block::put_floats(out, [first]);
        }
        _ => {
            out.push(EACH);
            block::put_floats(out, column);
        }
    }
}

/// `count` values of a column written by [`put_integers`] or [`put_floats`], as f64
/// (integers in hundredths for [`Codec::Centi`]).
fn column(reader: &mut Reader, count: usize, codec: Codec) -> Option<Vec<f64>> {
    let written = match reader.byte()? {
        SAME => 1,
        EACH => count,
        _ => return None,
    };
    let values: Vec<f64> = match codec {
        Codec::Float => block::floats(reader, written)?
            .into_iter()
            .map(f64::from)
            .collect(),
        Codec::Centi => block::integers(reader, written)?
            .into_iter()
            .map(|c| f64::from(c) / 100.0)
            .collect(),
    };
    match values.as_slice() {
        [same] if written < count => Some(vec![*same; count]),
        _ => Some(values),
    }
}

/// `count` counts written by [`put_integers`].
fn counts(reader: &mut Reader, count: usize) -> Option<Vec<u32>> {
    let values = match reader.byte()? {
        SAME => vec![*block::integers(reader, 1)?.first()?; count],
        EACH => block::integers(reader, count)?,
        _ => return None,
    };
    values.into_iter().map(|c| u32::try_from(c).ok()).collect()
}

/// The rows of a block written by [`to_block`] with `values` values a row, if it is one.
pub fn from_block(bytes: &[u8], values: usize, codec: Codec) -> Option<Vec<Rollup>> {
    let mut reader = Reader::new(bytes);
    let count = usize::try_from(reader.varint()?).ok()?;
    if count > bytes.len() || reader.varint()? != values as u64 {
        return None;
    }
    let starts = block::times(&mut reader, count)?;
    let mut rows: Vec<Rollup> = starts
        .iter()
        .zip(counts(&mut reader, count)?)
        .map(|(&start, count)| Rollup {
            start,
            count,
            stats: Vec::with_capacity(values),
        })
        .collect();
    for _ in 0..values {
        let counts = counts(&mut reader, count)?;
        let (min, avg) = (
            column(&mut reader, count, codec)?,
            column(&mut reader, count, codec)?,
        );
        let max = column(&mut reader, count, codec)?;
        for (i, row) in rows.iter_mut().enumerate() {
            row.stats.push(match counts[i] {
                0 => Stat::default(),
                count => Stat {
                    count,
                    min: min[i],
                    avg: avg[i],
                    max: max[i],
                },
            });
        }
    }
    Some(rows)
}

#[cfg(test)]
mod tests;
