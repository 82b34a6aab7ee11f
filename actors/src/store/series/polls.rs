//! Open points as one record per OLT poll ([`super`]): a poll's points of one kind and
//! one UTC day are a single sled record under kind | [`POLL`] + OLT id (4 bytes) + the
//! poll's first second (4) + a sequence number (8, sled's id, so two polls in one second
//! stay two records). The record holds each ONU's point after its id, in id order, all
//! entries the same size, so one ONU's point is a binary search away. A record a poll, not
//! a record a point: at the national workload (10,000 OLTs × 128 ONUs, traffic every 5
//! minutes and optics every 15) that is 160,000 writes an hour instead of 20 million,
//! which is what the history's writes cost (docs/benchmarks.md, H3).
//!
//! One ONU's open points are found through its owner ([`Store::onu_owner`]): its OLT's
//! records of the day. Sealing visits each OLT that has records (one seek an OLT) and
//! takes its finished days, a day at a time, into each ONU's day block with the day's
//! rollups and the records' removal in one sled batch: a `kill -9` leaves the OLT's day
//! either open or sealed, never half. An ONU whose block does not decode keeps its points
//! as per-point open records ([`super::OPEN`]) in that batch, read and sealed as before.

use super::{day_start, open_key, Sample};
use crate::domain::{OltId, OnuId};
use crate::store::optics::day_of;
use crate::store::{Store, StoreError};
use chrono::{DateTime, Utc};
use std::collections::BTreeMap;

/// Added to a kind's key byte for its poll records.
pub(super) const POLL: u8 = 0x40;

fn poll_key(kind: u8, olt: OltId, seconds: u32, sequence: u64) -> [u8; 17] {
    let mut key = [kind | POLL; 17];
    key[1..5].copy_from_slice(&olt.to_be_bytes());
    key[5..9].copy_from_slice(&seconds.to_be_bytes());
    key[9..].copy_from_slice(&sequence.to_be_bytes());
    key
}

/// The keys of `olt`'s records of `day`, every sequence number.
fn day_keys(kind: u8, olt: OltId, day: u32) -> std::ops::RangeInclusive<[u8; 17]> {
    let last = day_start(day + 1).saturating_sub(1);
    poll_key(kind, olt, day_start(day), 0)..=poll_key(kind, olt, last, u64::MAX)
}

fn seconds_in(key: &[u8]) -> u32 {
    u32::from_be_bytes(
        key.get(5..9)
            .and_then(|b| b.try_into().ok())
            .unwrap_or_default(),
    )
}

/// Bytes of one entry: the ONU id, then its point as an open record.
pub(super) fn entry_bytes<S: Sample>() -> usize {
    8 + S::OPEN_BYTES
}

/// `points` (of one day) as a record: in ONU id order, the first point of an ONU kept.
fn encode<S: Sample>(points: &[(OnuId, S)]) -> Vec<u8> {
    let mut sorted: Vec<&(OnuId, S)> = points.iter().collect();
    sorted.sort_by_key(|(onu, _)| *onu);
    sorted.dedup_by_key(|(onu, _)| *onu);
    let mut out = Vec::with_capacity(sorted.len() * entry_bytes::<S>());
    for (onu, point) in sorted {
        out.extend_from_slice(&onu.to_be_bytes());
        out.extend_from_slice(&point.to_open());
    }
    out
}

/// The entries of a record, `None` if it is not a whole number of them.
fn entries<S: Sample>(record: &[u8]) -> Option<std::slice::ChunksExact<'_, u8>> {
    (record.len() % entry_bytes::<S>() == 0).then(|| record.chunks_exact(entry_bytes::<S>()))
}

fn onu_in(entry: &[u8]) -> OnuId {
    OnuId::from_be_bytes(entry[..8].try_into().unwrap_or_default())
}

/// ONU `onu`'s point in `record`, if it has one: a binary search over its entries.
fn find<S: Sample>(record: &[u8], onu: OnuId) -> Option<S> {
    let size = entry_bytes::<S>();
    if record.len() % size != 0 {
        return None;
    }
    let (mut low, mut high) = (0, record.len() / size);
    while low < high {
        let middle = low + (high - low) / 2;
        let entry = &record[middle * size..(middle + 1) * size];
        match onu_in(entry).cmp(&onu) {
            std::cmp::Ordering::Less => low = middle + 1,
            std::cmp::Ordering::Greater => high = middle,
            std::cmp::Ordering::Equal => return S::from_open(&entry[8..]),
        }
    }
    None
}

/// Every point of `record` by ONU, `None` if it does not decode.
fn decode<S: Sample>(record: &[u8]) -> Option<Vec<(OnuId, S)>> {
    entries::<S>(record)?
        .map(|entry| Some((onu_in(entry), S::from_open(&entry[8..])?)))
        .collect()
}

/// One OLT's records of one finished day: their keys and their points by ONU.
struct PollDay<S> {
    day: u32,
    keys: Vec<sled::IVec>,
    onus: BTreeMap<OnuId, Vec<S>>,
}

impl Store {
    /// Writes the points of a poll of `olt` as one record per day they fall on (one, but
    /// at midnight), in one batch.
    pub(crate) fn write_poll<S: Sample>(
        &self,
        olt: OltId,
        points: &[(OnuId, S)],
    ) -> Result<(), StoreError> {
        self.writable()?;
        let mut days: BTreeMap<u32, Vec<(OnuId, S)>> = BTreeMap::new();
        for &(onu, point) in points {
            days.entry(point.seconds() / 86_400)
                .or_default()
                .push((onu, point));
        }
        let mut batch = sled::Batch::default();
        for points in days.values() {
            let first = points.iter().map(|(_, p)| p.seconds()).min().unwrap_or(0);
            let sequence = self.noted(self.db.generate_id().map_err(StoreError::from))?;
            let key = poll_key(S::KIND, olt, first, sequence);
            batch.insert(&key[..], encode(points));
        }
        self.noted(self.series.apply_batch(batch).map_err(StoreError::from))
    }

    /// ONU `onu`'s points of `day` in its OLT's poll records, added to `into`.
    pub(super) fn polled_points<S: Sample>(
        &self,
        onu: OnuId,
        day: u32,
        into: &mut Vec<S>,
    ) -> Result<(), StoreError> {
        let Some(olt) = self.onu_owner(onu)? else {
            return Ok(());
        };
        for entry in self.series.range(day_keys(S::KIND, olt, day)) {
            into.extend(find::<S>(&entry?.1, onu));
        }
        Ok(())
    }

    /// Whether ONU `onu`'s OLT has poll records of `day` (the ONU's rollups of the day,
    /// if any, may then lack points).
    pub(super) fn has_polled<S: Sample>(&self, onu: OnuId, day: u32) -> Result<bool, StoreError> {
        let Some(olt) = self.onu_owner(onu)? else {
            return Ok(false);
        };
        let first = self.series.range(day_keys(S::KIND, olt, day)).next();
        Ok(first.transpose()?.is_some())
    }

    /// Seals every OLT's poll records of `S` of days before `before`'s into its ONUs'
    /// day blocks; returns how many blocks it wrote.
    pub(in crate::store) fn seal_polls<S: Sample>(
        &self,
        before: DateTime<Utc>,
    ) -> Result<usize, StoreError> {
        let stop = day_start(day_of(before));
        let mut sealed = 0;
        let mut cursor = poll_key(S::KIND, 0, 0, 0);
        while let Some(entry) = self.series.range(cursor..).next() {
            let (found, _) = entry?;
            if found.first() != Some(&(S::KIND | POLL)) || found.len() != 17 {
                break;
            }
            let olt = OltId::from_be_bytes(found[1..5].try_into().unwrap_or_default());
            for day in self.finished_days::<S>(olt, stop)? {
                sealed += self.seal_poll_day(olt, day)?;
            }
            let Some(next) = olt.checked_add(1) else {
                break;
            };
            cursor = poll_key(S::KIND, next, 0, 0);
        }
        Ok(sealed)
    }

    /// `olt`'s records of `S` before second `stop`, grouped by day, decoded; a record that
    /// does not decode is dropped with a warning (reads skip it as well).
    fn finished_days<S: Sample>(
        &self,
        olt: OltId,
        stop: u32,
    ) -> Result<Vec<PollDay<S>>, StoreError> {
        let mut days: Vec<PollDay<S>> = Vec::new();
        for entry in self
            .series
            .range(poll_key(S::KIND, olt, 0, 0)..poll_key(S::KIND, olt, stop, 0))
        {
            let (key, record) = entry?;
            let day = seconds_in(&key) / 86_400;
            if days.last().is_none_or(|d| d.day != day) {
                days.push(PollDay {
                    day,
                    keys: Vec::new(),
                    onus: BTreeMap::new(),
                });
            }
            let Some(current) = days.last_mut() else {
                continue;
            };
            match decode::<S>(&record) {
                Some(points) => {
                    for (onu, point) in points {
                        current.onus.entry(onu).or_default().push(point);
                    }
                }
                None => tracing::warn!(olt, day, "a history poll record is unreadable, dropped"),
            }
            current.keys.push(key);
        }
        Ok(days)
    }

    /// Seals one OLT's day: each ONU's points into its day block with its rollups, the
    /// records out, in one batch. Returns how many blocks it wrote.
    fn seal_poll_day<S: Sample>(&self, olt: OltId, day: PollDay<S>) -> Result<usize, StoreError> {
        let mut batch = sled::Batch::default();
        let mut sealed = 0;
        for (onu, points) in day.onus {
            if self.seal_into(&mut batch, onu, day.day, points.clone())? {
                sealed += 1;
            } else {
                for point in points {
                    batch.insert(
                        &open_key(S::KIND, onu, point.seconds())[..],
                        point.to_open(),
                    );
                }
            }
        }
        for key in day.keys {
            batch.remove(key);
        }
        self.series.apply_batch(batch)?;
        tracing::trace!(olt, day = day.day, sealed, "history poll records sealed");
        Ok(sealed)
    }
}

#[cfg(test)]
impl Store {
    /// Records `points` as a poll of OLT 1, which owns their ONUs from then on (the ONUs
    /// of unit tests have ids no OLT allocated).
    pub(crate) fn record_test_poll<S: Sample>(&self, points: &[(OnuId, S)]) {
        for (onu, _) in points {
            self.adopt_onu_id(1, &format!("TEST{onu:08}"), *onu)
                .expect("owner");
        }
        self.write_poll(1, points).expect("record");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traffic::TrafficPoint;

    fn point(seconds: i64, rate: f64) -> TrafficPoint {
        TrafficPoint {
            at: DateTime::from_timestamp(seconds, 0).expect("time"),
            in_bps: Some(rate),
            out_bps: None,
        }
    }

    #[test]
    fn a_record_finds_each_onu_and_nothing_else() {
        let points = [
            (9, point(60, 9.0)),
            (3, point(60, 3.0)),
            (5, point(60, 5.0)),
        ];
        let record = encode(&points);
        assert_eq!(record.len(), 3 * entry_bytes::<TrafficPoint>());
        for (onu, expected) in points {
            assert_eq!(find::<TrafficPoint>(&record, onu), Some(expected));
        }
        assert_eq!(find::<TrafficPoint>(&record, 4), None);
        let decoded = decode::<TrafficPoint>(&record).expect("decodes");
        let ids: Vec<OnuId> = decoded.iter().map(|(onu, _)| *onu).collect();
        assert_eq!(ids, [3, 5, 9]);
    }

    #[test]
    fn a_torn_record_does_not_decode() {
        let record = encode(&[(1, point(60, 1.0)), (2, point(60, 2.0))]);
        assert!(decode::<TrafficPoint>(&record[..record.len() - 1]).is_none());
        assert!(find::<TrafficPoint>(&record[..record.len() - 1], 1).is_none());
    }
}
