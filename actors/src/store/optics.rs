//! Optics history: day + ONU id → that day's optics points in the `optics` tree, each
//! point in `POINT_BYTES` bytes, appended with a merge operator (`append_points`).
//! OLT actors record a point per ONU every `optics.history_step`; the service reads one
//! ONU's history by period; housekeeping drops whole days past retention.

use super::{Store, StoreError};
use crate::domain::{OnuId, OpticsLevel, OpticsPoint};
use chrono::{DateTime, Utc};

pub(super) const OPTICS: &str = "optics";

/// Bytes of one optics point: seconds (u32), Rx, Tx, OLT Rx (i16 centi-dBm), level (u8).
const POINT_BYTES: usize = 11;
const ABSENT_CENTI_DBM: i16 = i16::MIN;

impl Store {
    /// Appends optics points in one batch (each to its day's record).
    pub fn record_optics(&self, points: &[(OnuId, OpticsPoint)]) -> Result<(), StoreError> {
        for (onu, point) in points {
            self.optics
                .merge(optics_key(day_of(point.at), *onu), encode_point(point))?;
        }
        Ok(())
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
        for day in day_of(from)..=day_of(to) {
            let Some(record) = self.optics.get(optics_key(day, onu))? else {
                continue;
            };
            for chunk in record.chunks_exact(POINT_BYTES) {
                let Some(point) = decode_point(chunk) else {
                    continue;
                };
                if point.at >= from && point.at <= to {
                    points.push(point);
                    if points.len() == limit {
                        return Ok(points);
                    }
                }
            }
        }
        Ok(points)
    }

    /// Drops optics days entirely before `before`; returns how many records went.
    pub fn prune_optics(&self, before: DateTime<Utc>) -> Result<usize, StoreError> {
        let end = (day_of(before)).to_be_bytes();
        let mut removed = 0;
        for key in self.optics.range(..&end[..]).keys() {
            self.optics.remove(key?)?;
            removed += 1;
        }
        Ok(removed)
    }
}

/// Days since the Unix epoch (0 for earlier times).
fn day_of(at: DateTime<Utc>) -> u32 {
    u32::try_from(at.timestamp().div_euclid(86_400)).unwrap_or(0)
}

fn optics_key(day: u32, onu: OnuId) -> [u8; 12] {
    let mut key = [0u8; 12];
    key[..4].copy_from_slice(&day.to_be_bytes());
    key[4..].copy_from_slice(&onu.to_be_bytes());
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
    out[10] = match point.level {
        OpticsLevel::Ok => 0,
        OpticsLevel::Warning => 1,
        OpticsLevel::Critical => 2,
        OpticsLevel::Unknown => 3,
    };
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
        level: match bytes.get(10)? {
            0 => OpticsLevel::Ok,
            1 => OpticsLevel::Warning,
            2 => OpticsLevel::Critical,
            _ => OpticsLevel::Unknown,
        },
    })
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
            store.record_optics(&[(7, *p), (8, *p)]).expect("record");
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
                .prune_optics(day0 + chrono::Duration::minutes(10))
                .expect("prune"),
            2
        );
        let rest = store
            .optics_history(7, day0, day0 + chrono::Duration::days(1), 100)
            .expect("history");
        assert_eq!(rest, points[1..]);
    }
}
