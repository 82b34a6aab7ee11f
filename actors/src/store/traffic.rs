//! Traffic history: one point per ONU per read of the `traffic` group that gave a rate
//! ([`crate::olt`]'s merge, on the blocking pool), kept as a series ([`super::series`]):
//! each poll's points are written open, housekeeping seals each ONU's day into a block
//! whose timestamps are delta-of-delta varints and whose in and out rates are Gorilla XOR
//! streams of f32 ([`super::series::block`]). The service reads one ONU's history by
//! period, or its hourly and daily rollups (in and out rates, f32) for periods past the
//! raw points' retention ([`super::series::tiers`]); housekeeping drops each tier past its
//! retention (`[history]`). Days written before the series (a record per day and ONU id
//! holding that day's points, appended in the `traffic` tree) are read through until they
//! age out, and rolled up before they go.

use super::optics::day_of;
use super::series::rollup::{Codec, Pick, Rollup, Stat};
use super::series::tiers::{Cutoffs, Tier};
use super::series::{block, seconds_of, Sample};
use super::{Store, StoreError};
use crate::domain::{OltId, OnuId};
use crate::traffic::TrafficPoint;
use chrono::{DateTime, Utc};

pub(super) const TRAFFIC: &str = "traffic";

/// Bytes of one traffic point: seconds since the epoch (u32), then the in and out rates
/// in bits a second (f32 each: 24 bits of mantissa, a relative error under 10⁻⁷ at any
/// rate an ONU carries), NaN for a rate the read did not give.
pub const POINT_BYTES: usize = 12;

impl Store {
    /// Writes the traffic points of a poll of `olt`, as one record ([`super::series`]).
    pub fn record_traffic(
        &self,
        olt: OltId,
        points: &[(OnuId, TrafficPoint)],
    ) -> Result<(), StoreError> {
        self.write_poll(olt, points)
    }

    /// Hands ONU `onu`'s traffic points with `from <= at <= to` to `take`, oldest first,
    /// until `take` answers `false` or the period ends.
    pub fn traffic_history(
        &self,
        onu: OnuId,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        take: impl FnMut(TrafficPoint) -> bool,
    ) -> Result<(), StoreError> {
        self.read_points(onu, (from, to), take)
    }

    /// Hands ONU `onu`'s traffic rows of `tier` overlapping `[from, to]` to `take`, oldest
    /// first, until `take` answers `false` or the period ends; each row's stats are the in
    /// and the out rate.
    pub fn traffic_rollups(
        &self,
        onu: OnuId,
        (from, to): (DateTime<Utc>, DateTime<Utc>),
        tier: Tier,
        take: impl FnMut(&Rollup) -> bool,
    ) -> Result<(), StoreError> {
        self.read_rollups::<TrafficPoint>(onu, (from, to), tier, take)
    }

    /// Drops each tier of traffic history past its cutoff (raw days rolled up first);
    /// returns how many records went.
    pub fn prune_traffic(&self, cutoffs: Cutoffs) -> Result<usize, StoreError> {
        let end = day_of(cutoffs.raw).to_be_bytes();
        let mut legacy = Vec::new();
        for key in self.traffic.range(..&end[..]).keys() {
            let key = key?;
            let day = u32::from_be_bytes(key[..4].try_into().unwrap_or_default());
            let onu = key.get(4..12).and_then(|id| id.try_into().ok());
            legacy.push((key, onu.map(|id| (OnuId::from_be_bytes(id), day))));
        }
        let days: Vec<(OnuId, u32)> = legacy.iter().filter_map(|(_, day)| *day).collect();
        let removed = self.prune_tiers::<TrafficPoint>(cutoffs, &days)?;
        for (key, _) in &legacy {
            self.traffic.remove(key)?;
        }
        Ok(removed + legacy.len())
    }

    /// ONU `onu`'s points of `day` in the `traffic` tree of before the series.
    fn legacy_traffic(&self, onu: OnuId, day: u32) -> Result<Vec<TrafficPoint>, StoreError> {
        let record = self.traffic.get(traffic_key(day, onu))?;
        Ok(record
            .iter()
            .flat_map(|r| r.chunks_exact(POINT_BYTES))
            .filter_map(decode_point)
            .collect())
    }
}

impl Sample for TrafficPoint {
    const KIND: u8 = 1;
    const VALUES: usize = 2;
    const OPEN_BYTES: usize = POINT_BYTES;
    const CODEC: Codec = Codec::Float;

    fn seconds(&self) -> u32 {
        seconds_of(self.at)
    }

    fn to_open(&self) -> Vec<u8> {
        encode_point(self).to_vec()
    }

    fn from_open(bytes: &[u8]) -> Option<TrafficPoint> {
        decode_point(bytes)
    }

    /// Count (varint), timestamps, then the in and the out rates as XOR streams.
    fn to_block(points: &[TrafficPoint]) -> Vec<u8> {
        let mut out = Vec::with_capacity(16 + points.len() * 6);
        block::put_varint(&mut out, points.len() as u64);
        let times: Vec<u32> = points.iter().map(Sample::seconds).collect();
        block::put_times(&mut out, &times);
        block::put_floats(&mut out, points.iter().map(|p| rate_f32(p.in_bps)));
        block::put_floats(&mut out, points.iter().map(|p| rate_f32(p.out_bps)));
        out
    }

    fn from_block(bytes: &[u8]) -> Option<Vec<TrafficPoint>> {
        let mut reader = block::Reader::new(bytes);
        let count = usize::try_from(reader.varint()?).ok()?;
        if count > bytes.len() {
            return None;
        }
        let times = block::times(&mut reader, count)?;
        let inbound = block::floats(&mut reader, count)?;
        let outbound = block::floats(&mut reader, count)?;
        times
            .iter()
            .zip(inbound.iter().zip(&outbound))
            .map(|(&seconds, (&i, &o))| {
                Some(TrafficPoint {
                    at: DateTime::from_timestamp(i64::from(seconds), 0)?,
                    in_bps: rate_of(i),
                    out_bps: rate_of(o),
                })
            })
            .collect()
    }

    /// The in and the out rate.
    fn values(&self) -> Vec<Option<f64>> {
        vec![self.in_bps, self.out_bps]
    }

    fn from_stats(at: DateTime<Utc>, stats: &[Stat], pick: Pick) -> TrafficPoint {
        let value = |i: usize| stats.get(i).and_then(|s| s.get(pick));
        TrafficPoint {
            at,
            in_bps: value(0),
            out_bps: value(1),
        }
    }

    fn legacy(store: &Store, onu: OnuId, day: u32) -> Result<Vec<TrafficPoint>, StoreError> {
        store.legacy_traffic(onu, day)
    }
}

/// Day (u32 BE) then ONU id (u64 BE): a day's records together, pruned as one range.
fn traffic_key(day: u32, onu: OnuId) -> [u8; 12] {
    let mut key = [0u8; 12];
    key[..4].copy_from_slice(&day.to_be_bytes());
    key[4..].copy_from_slice(&onu.to_be_bytes());
    key
}

/// A rate as stored: f32, NaN for none.
fn rate_f32(bps: Option<f64>) -> f32 {
    bps.map_or(f32::NAN, |v| v as f32)
}

fn rate_of(raw: f32) -> Option<f64> {
    (!raw.is_nan()).then_some(f64::from(raw))
}

fn encode_rate(bps: Option<f64>) -> [u8; 4] {
    rate_f32(bps).to_be_bytes()
}

fn decode_rate(bytes: &[u8]) -> Option<f64> {
    rate_of(f32::from_be_bytes(bytes.try_into().ok()?))
}

pub(super) fn encode_point(point: &TrafficPoint) -> [u8; POINT_BYTES] {
    let mut out = [0u8; POINT_BYTES];
    let seconds = u32::try_from(point.at.timestamp()).unwrap_or(0);
    out[..4].copy_from_slice(&seconds.to_be_bytes());
    out[4..8].copy_from_slice(&encode_rate(point.in_bps));
    out[8..12].copy_from_slice(&encode_rate(point.out_bps));
    out
}

fn decode_point(bytes: &[u8]) -> Option<TrafficPoint> {
    let seconds = u32::from_be_bytes(bytes.get(..4)?.try_into().ok()?);
    Some(TrafficPoint {
        at: DateTime::from_timestamp(i64::from(seconds), 0)?,
        in_bps: decode_rate(bytes.get(4..8)?),
        out_bps: decode_rate(bytes.get(8..12)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::series::tiers::raw_only;
    use chrono::{Duration, TimeZone};

    fn all(store: &Store, onu: OnuId, from: DateTime<Utc>, to: DateTime<Utc>) -> Vec<TrafficPoint> {
        let mut points = Vec::new();
        store
            .traffic_history(onu, from, to, |p| {
                points.push(p);
                true
            })
            .expect("history");
        points
    }

    #[test]
    fn a_point_is_twelve_bytes_and_keeps_its_rates_or_their_absence() {
        let at = DateTime::from_timestamp(1_800_000_123, 0).expect("time");
        let point = TrafficPoint {
            at,
            in_bps: Some(93_456_789.0),
            out_bps: None,
        };
        let bytes = encode_point(&point);
        assert_eq!(bytes.len(), 12);
        assert_eq!(bytes[..4], 1_800_000_123u32.to_be_bytes());
        let back = decode_point(&bytes).expect("decodes");
        assert_eq!(back.at, at);
        assert_eq!(back.out_bps, None);
        let rate = back.in_bps.expect("in rate");
        assert!((rate - 93_456_789.0).abs() / 93_456_789.0 < 1e-7, "{rate}");
        // A rate of 0 is a rate, not an absence.
        let idle = TrafficPoint {
            in_bps: Some(0.0),
            out_bps: Some(0.0),
            ..point
        };
        assert_eq!(decode_point(&encode_point(&idle)), Some(idle));
    }

    #[test]
    fn traffic_history_is_stored_by_day_read_by_period_and_pruned() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let day0 = Utc
            .with_ymd_and_hms(2026, 11, 20, 23, 50, 0)
            .single()
            .expect("time");
        let point = |minutes: i64, bps: f64| TrafficPoint {
            at: day0 + Duration::minutes(minutes),
            in_bps: Some(bps),
            out_bps: Some(bps * 4.0),
        };
        let points = [point(0, 1_000.0), point(5, 2_000.0), point(15, 3_000.0)];
        for p in &points {
            store.record_test_poll(&[(7, *p), (8, *p)]);
        }
        let (before, after) = (day0 - Duration::days(1), day0 + Duration::days(1));
        assert_eq!(all(&store, 7, before, after), points, "across midnight");
        assert_eq!(
            all(
                &store,
                7,
                day0 + Duration::minutes(5),
                day0 + Duration::minutes(10)
            ),
            points[1..2]
        );
        assert!(all(&store, 9, before, after).is_empty(), "another ONU's");
        // `take` stops the read.
        let mut taken = 0;
        store
            .traffic_history(7, before, after, |_| {
                taken += 1;
                taken < 2
            })
            .expect("history");
        assert_eq!(taken, 2);
        // Sealed, day 0 is one block per ONU, read as the open points were; pruning
        // before day 1 removes both.
        assert_eq!(
            store.seal_history(day0 + Duration::days(1)).expect("seal"),
            2
        );
        assert_eq!(all(&store, 7, before, after), points, "sealed and open");
        assert_eq!(
            store
                .prune_traffic(raw_only(day0 + Duration::minutes(10)))
                .expect("prune"),
            2
        );
        assert_eq!(all(&store, 7, before, after), points[2..]);
        assert_eq!(all(&store, 8, before, after), points[2..]);
        assert_eq!(store.prune_traffic(raw_only(day0)).expect("prune"), 0);
    }
}
