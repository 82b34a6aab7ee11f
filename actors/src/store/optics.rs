//! Optics history: a point per ONU every `optics.history_step` (OLT actors record them),
//! kept as a series ([`super::series`]): each poll's points are written open,
//! housekeeping seals each ONU's day into a block whose timestamps are delta-of-delta
//! varints and whose readings (Rx, Tx, OLT Rx in centi-dBm, the level, temperature,
//! voltage and bias in centi-units) are delta zigzag varints, about a byte each for a
//! reading that barely moves ([`super::series::block`]). The service reads one ONU's
//! history by period, or its hourly and daily rollups of each reading (and of the level,
//! by rank: its greatest is the worst level) for periods past the raw points' retention
//! ([`super::series::tiers`]); housekeeping drops each tier past its retention.
//!
//! Days written before the series are read through until they age out: day + ONU id +
//! format → that day's points appended in the `optics` tree, `POINT_BYTES` each, and
//! before the transceiver readings were kept, `LEGACY_POINT_BYTES` points under the
//! 12-byte key (day + ONU id), read ahead of the same day's newer points.

use super::series::rollup::{Codec, Pick, Rollup, Stat};
use super::series::tiers::{Cutoffs, Tier};
use super::series::{block, seconds_of, Sample};
use super::{Store, StoreError};
use crate::domain::{OltId, OnuId, OpticsLevel, OpticsPoint};
use chrono::{DateTime, Utc};

pub(super) const OPTICS: &str = "optics";

/// Bytes of one optics point: seconds (u32), Rx, Tx, OLT Rx (i16 centi-dBm), level (u8),
/// temperature (i16 centi-°C), voltage (i16 centi-V), bias current (i16 centi-mA).
const POINT_BYTES: usize = 17;
/// Points without the transceiver readings (the first 11 bytes of the above).
const LEGACY_POINT_BYTES: usize = 11;
/// Last key byte of records of `POINT_BYTES` points.
const FORMAT_TRANSCEIVER: u8 = 2;
const ABSENT_CENTI_DBM: i16 = i16::MIN;

impl Store {
    /// Writes the optics points of a poll of `olt`, as one record ([`super::series`]).
    pub fn record_optics(
        &self,
        olt: OltId,
        points: &[(OnuId, OpticsPoint)],
    ) -> Result<(), StoreError> {
        self.write_poll(olt, points)
    }

    /// Optics points of one ONU with `from <= at <= to`, oldest first, at most `limit`.
    pub fn optics_history(
        &self,
        onu: OnuId,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<OpticsPoint>, StoreError> {
        let mut points = Vec::new();
        if limit == 0 {
            return Ok(points);
        }
        self.read_points(onu, (from, to), |point| {
            points.push(point);
            points.len() < limit
        })?;
        Ok(points)
    }

    /// Hands ONU `onu`'s optics rows of `tier` overlapping `[from, to]` to `take`, oldest
    /// first, until `take` answers `false` or the period ends; each row's stats are those
    /// of [`OpticsPoint`]'s values ([`Sample::values`]).
    pub fn optics_rollups(
        &self,
        onu: OnuId,
        (from, to): (DateTime<Utc>, DateTime<Utc>),
        tier: Tier,
        take: impl FnMut(&Rollup) -> bool,
    ) -> Result<(), StoreError> {
        self.read_rollups::<OpticsPoint>(onu, (from, to), tier, take)
    }

    /// Drops each tier of optics history past its cutoff (raw days rolled up first);
    /// returns how many records went.
    pub fn prune_optics(&self, cutoffs: Cutoffs) -> Result<usize, StoreError> {
        let end = day_of(cutoffs.raw).to_be_bytes();
        let mut legacy = Vec::new();
        for key in self.optics.range(..&end[..]).keys() {
            let key = key?;
            let day = u32::from_be_bytes(key[..4].try_into().unwrap_or_default());
            let onu = key.get(4..12).and_then(|id| id.try_into().ok());
            legacy.push((key, onu.map(|id| (OnuId::from_be_bytes(id), day))));
        }
        let days: Vec<(OnuId, u32)> = legacy.iter().filter_map(|(_, day)| *day).collect();
        let removed = self.prune_tiers::<OpticsPoint>(cutoffs, &days)?;
        for (key, _) in &legacy {
            self.optics.remove(key)?;
        }
        Ok(removed + legacy.len())
    }

    /// ONU `onu`'s points of `day` in the `optics` tree of before the series.
    fn legacy_optics(&self, onu: OnuId, day: u32) -> Result<Vec<OpticsPoint>, StoreError> {
        let legacy = self.optics.get(legacy_key(day, onu))?;
        let current = self.optics.get(optics_key(day, onu))?;
        let chunks = legacy
            .iter()
            .flat_map(|record| record.chunks_exact(LEGACY_POINT_BYTES))
            .chain(
                current
                    .iter()
                    .flat_map(|record| record.chunks_exact(POINT_BYTES)),
            );
        Ok(chunks.filter_map(decode_point).collect())
    }
}

/// The columns of an optics block after the timestamps, each a scaled integer.
const COLUMNS: usize = 7;

fn columns_of(point: &OpticsPoint) -> [i32; COLUMNS] {
    [
        centi(point.rx_power),
        centi(point.tx_power),
        centi(point.olt_rx_power),
        i16::from(level_byte(point.level)),
        centi(point.temperature),
        centi(point.voltage),
        centi(point.bias_current),
    ]
    .map(i32::from)
}

impl Sample for OpticsPoint {
    const KIND: u8 = 2;
    const VALUES: usize = 7;
    const OPEN_BYTES: usize = POINT_BYTES;
    const CODEC: Codec = Codec::Centi;

    fn seconds(&self) -> u32 {
        seconds_of(self.at)
    }

    fn to_open(&self) -> Vec<u8> {
        encode_point(self).to_vec()
    }

    fn from_open(bytes: &[u8]) -> Option<OpticsPoint> {
        decode_point(bytes)
    }

    /// Count (varint), timestamps, then each column of [`columns_of`] in turn.
    fn to_block(points: &[OpticsPoint]) -> Vec<u8> {
        let mut out = Vec::with_capacity(16 + points.len() * 8);
        block::put_varint(&mut out, points.len() as u64);
        let times: Vec<u32> = points.iter().map(Sample::seconds).collect();
        block::put_times(&mut out, &times);
        let rows: Vec<[i32; COLUMNS]> = points.iter().map(columns_of).collect();
        for column in 0..COLUMNS {
            block::put_integers(&mut out, rows.iter().map(|row| row[column]));
        }
        out
    }

    fn from_block(bytes: &[u8]) -> Option<Vec<OpticsPoint>> {
        let mut reader = block::Reader::new(bytes);
        let count = usize::try_from(reader.varint()?).ok()?;
        if count > bytes.len() {
            return None;
        }
        let times = block::times(&mut reader, count)?;
        let mut columns = Vec::with_capacity(COLUMNS);
        for _ in 0..COLUMNS {
            columns.push(block::integers(&mut reader, count)?);
        }
        let reading = |column: usize, i: usize| -> Option<Option<f64>> {
            Some(from_centi(i16::try_from(columns[column][i]).ok()?))
        };
        (0..count)
            .map(|i| {
                Some(OpticsPoint {
                    at: DateTime::from_timestamp(i64::from(times[i]), 0)?,
                    rx_power: reading(0, i)?,
                    tx_power: reading(1, i)?,
                    olt_rx_power: reading(2, i)?,
                    level: level_of(u8::try_from(columns[3][i]).ok()?),
                    temperature: reading(4, i)?,
                    voltage: reading(5, i)?,
                    bias_current: reading(6, i)?,
                })
            })
            .collect()
    }

    /// Rx, Tx, OLT Rx, temperature, voltage, bias current, and the level's rank
    /// ([`level_rank`]).
    fn values(&self) -> Vec<Option<f64>> {
        vec![
            self.rx_power,
            self.tx_power,
            self.olt_rx_power,
            self.temperature,
            self.voltage,
            self.bias_current,
            level_rank(self.level),
        ]
    }

    /// The level of a mean is the worst of the period's: a mean of ranks names no level.
    fn from_stats(at: DateTime<Utc>, stats: &[Stat], pick: Pick) -> OpticsPoint {
        let value = |i: usize, pick: Pick| stats.get(i).and_then(|s| s.get(pick));
        let level_pick = if pick == Pick::Avg { Pick::Max } else { pick };
        OpticsPoint {
            at,
            rx_power: value(0, pick),
            tx_power: value(1, pick),
            olt_rx_power: value(2, pick),
            temperature: value(3, pick),
            voltage: value(4, pick),
            bias_current: value(5, pick),
            level: level_of_rank(value(6, level_pick)),
        }
    }

    fn legacy(store: &Store, onu: OnuId, day: u32) -> Result<Vec<OpticsPoint>, StoreError> {
        store.legacy_optics(onu, day)
    }
}

/// A level as a rollup value, worse higher; `UNKNOWN` (no reading) is none.
fn level_rank(level: OpticsLevel) -> Option<f64> {
    match level {
        OpticsLevel::Ok => Some(1.0),
        OpticsLevel::Warning => Some(2.0),
        OpticsLevel::Critical => Some(3.0),
        OpticsLevel::Unknown => None,
    }
}

fn level_of_rank(rank: Option<f64>) -> OpticsLevel {
    match rank.map(f64::round) {
        Some(r) if r >= 3.0 => OpticsLevel::Critical,
        Some(r) if r >= 2.0 => OpticsLevel::Warning,
        Some(_) => OpticsLevel::Ok,
        None => OpticsLevel::Unknown,
    }
}

/// Days since the Unix epoch (0 for earlier times).
pub(super) fn day_of(at: DateTime<Utc>) -> u32 {
    u32::try_from(at.timestamp().div_euclid(86_400)).unwrap_or(0)
}

fn legacy_key(day: u32, onu: OnuId) -> [u8; 12] {
    let mut key = [0u8; 12];
    key[..4].copy_from_slice(&day.to_be_bytes());
    key[4..].copy_from_slice(&onu.to_be_bytes());
    key
}

fn optics_key(day: u32, onu: OnuId) -> [u8; 13] {
    let mut key = [FORMAT_TRANSCEIVER; 13];
    key[..12].copy_from_slice(&legacy_key(day, onu));
    key
}

fn centi(dbm: Option<f64>) -> i16 {
    dbm.map(|v| (v * 100.0).round().clamp(-32_000.0, 32_000.0) as i16)
        .unwrap_or(ABSENT_CENTI_DBM)
}

fn from_centi(raw: i16) -> Option<f64> {
    (raw != ABSENT_CENTI_DBM).then(|| f64::from(raw) / 100.0)
}

fn encode_point(point: &OpticsPoint) -> [u8; POINT_BYTES] {
    let mut out = [0u8; POINT_BYTES];
    let seconds = u32::try_from(point.at.timestamp()).unwrap_or(0);
    out[..4].copy_from_slice(&seconds.to_be_bytes());
    out[4..6].copy_from_slice(&centi(point.rx_power).to_be_bytes());
    out[6..8].copy_from_slice(&centi(point.tx_power).to_be_bytes());
    out[8..10].copy_from_slice(&centi(point.olt_rx_power).to_be_bytes());
    out[10] = level_byte(point.level);
    out[11..13].copy_from_slice(&centi(point.temperature).to_be_bytes());
    out[13..15].copy_from_slice(&centi(point.voltage).to_be_bytes());
    out[15..17].copy_from_slice(&centi(point.bias_current).to_be_bytes());
    out
}

fn decode_point(bytes: &[u8]) -> Option<OpticsPoint> {
    let seconds = u32::from_be_bytes(bytes.get(..4)?.try_into().ok()?);
    let i16_at = |i: usize| -> Option<i16> {
        Some(i16::from_be_bytes(bytes.get(i..i + 2)?.try_into().ok()?))
    };
    Some(OpticsPoint {
        at: DateTime::from_timestamp(i64::from(seconds), 0)?,
        rx_power: from_centi(i16_at(4)?),
        tx_power: from_centi(i16_at(6)?),
        olt_rx_power: from_centi(i16_at(8)?),
        temperature: transceiver_at(bytes, 11),
        voltage: transceiver_at(bytes, 13),
        bias_current: transceiver_at(bytes, 15),
        level: level_of(*bytes.get(10)?),
    })
}

fn level_byte(level: OpticsLevel) -> u8 {
    match level {
        OpticsLevel::Ok => 0,
        OpticsLevel::Warning => 1,
        OpticsLevel::Critical => 2,
        OpticsLevel::Unknown => 3,
    }
}

fn level_of(byte: u8) -> OpticsLevel {
    match byte {
        0 => OpticsLevel::Ok,
        1 => OpticsLevel::Warning,
        2 => OpticsLevel::Critical,
        _ => OpticsLevel::Unknown,
    }
}

/// A transceiver reading at `i`, `None` in a legacy point (which ends before it).
fn transceiver_at(bytes: &[u8], i: usize) -> Option<f64> {
    let raw = i16::from_be_bytes(bytes.get(i..i + 2)?.try_into().ok()?);
    from_centi(raw)
}

/// sled merge operator of the optics tree: appends the new points to the day's record.
pub(super) fn append_points(_key: &[u8], old: Option<&[u8]>, new: &[u8]) -> Option<Vec<u8>> {
    let mut record = old.map(|o| o.to_vec()).unwrap_or_default();
    record.extend_from_slice(new);
    Some(record)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::series::tiers::raw_only;

    #[test]
    fn optics_history_is_stored_compactly_by_day_and_pruned() {
        use chrono::TimeZone;
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let day0 = Utc
            .with_ymd_and_hms(2026, 11, 20, 23, 50, 0)
            .single()
            .expect("time");
        let point = |minutes: i64, rx: Option<f64>| OpticsPoint {
            at: day0 + chrono::Duration::minutes(minutes),
            rx_power: rx,
            tx_power: Some(2.5),
            olt_rx_power: Some(-18.04),
            temperature: rx.map(|_| 41.0),
            voltage: Some(3.22),
            bias_current: rx.map(|_| 19.0),
            level: if rx.is_some() {
                OpticsLevel::Ok
            } else {
                OpticsLevel::Unknown
            },
        };
        let points = [
            point(0, Some(-21.37)),
            point(15, None),
            point(30, Some(-21.4)),
        ];
        for p in &points {
            store.record_test_poll(&[(7, *p), (8, *p)]);
        }
        let all = store
            .optics_history(
                7,
                day0 - chrono::Duration::days(1),
                day0 + chrono::Duration::days(1),
                100,
            )
            .expect("history");
        assert_eq!(all, points, "across midnight, absent readings kept as None");
        let limited = store
            .optics_history(7, day0, day0 + chrono::Duration::days(1), 2)
            .expect("history");
        assert_eq!(limited, points[..2]);
        let windowed = store
            .optics_history(
                7,
                day0 + chrono::Duration::minutes(10),
                day0 + chrono::Duration::minutes(20),
                100,
            )
            .expect("history");
        assert_eq!(windowed, points[1..2]);
        // Day 0 holds one record per ONU; pruning before day 1 removes both.
        assert_eq!(
            store
                .prune_optics(raw_only(day0 + chrono::Duration::minutes(10)))
                .expect("prune"),
            2
        );
        let rest = store
            .optics_history(7, day0, day0 + chrono::Duration::days(1), 100)
            .expect("history");
        assert_eq!(rest, points[1..]);
    }

    #[test]
    fn points_written_before_transceiver_readings_are_still_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let at = DateTime::from_timestamp(1_800_000_000, 0).expect("time");
        let old = OpticsPoint {
            at,
            rx_power: Some(-21.37),
            tx_power: Some(2.5),
            olt_rx_power: None,
            temperature: None,
            voltage: None,
            bias_current: None,
            level: OpticsLevel::Ok,
        };
        // What the previous version wrote: 11-byte points under the 12-byte key.
        let legacy = encode_point(&old);
        store
            .optics
            .merge(legacy_key(day_of(at), 9), &legacy[..LEGACY_POINT_BYTES])
            .expect("legacy point");
        let new = OpticsPoint {
            at: at + chrono::Duration::minutes(15),
            temperature: Some(41.0),
            voltage: Some(3.22),
            bias_current: Some(19.0),
            ..old
        };
        store.record_test_poll(&[(9, new)]);
        let history = store
            .optics_history(9, at, at + chrono::Duration::hours(1), 10)
            .expect("history");
        assert_eq!(history, vec![old, new]);
        assert_eq!(
            store
                .prune_optics(raw_only(at + chrono::Duration::days(1)))
                .expect("prune"),
            2
        );
    }
}
