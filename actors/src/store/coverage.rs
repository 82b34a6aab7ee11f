//! OLT coverage: OLT id + start → end and reachability of a stretch of polls in the
//! `olt_coverage` tree. OLT actors extend it after every poll; the СЗО reports read it to
//! tell known time from unknown; housekeeping drops stretches past retention.

use super::{Store, StoreError};
use crate::domain::OltId;
use chrono::{DateTime, Utc};

pub(super) const COVERAGE: &str = "olt_coverage";

/// A stretch of time in which an OLT was polled closely enough that its state is known,
/// and whether it answered. Time outside every stretch is unknown: the service was not
/// running, or the OLT was not polled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Coverage {
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
    pub reachable: bool,
}

impl Store {
    /// Records a poll of `olt` that finished at `at`: it extends the current stretch when
    /// it follows within `tolerance` (a change of reachability starts a new stretch at
    /// `at`), and starts a new stretch after a longer gap.
    pub fn extend_coverage(
        &self,
        olt: OltId,
        at: DateTime<Utc>,
        reachable: bool,
        tolerance: std::time::Duration,
    ) -> Result<(), StoreError> {
        self.writable()?;
        let tolerance = chrono::Duration::from_std(tolerance).unwrap_or(chrono::Duration::zero());
        let last = self
            .coverage
            .range(
                coverage_key(olt, DateTime::<Utc>::MIN_UTC)
                    ..=coverage_key(olt, DateTime::<Utc>::MAX_UTC),
            )
            .next_back()
            .transpose()?
            .and_then(|(key, value)| decode_coverage(&key, &value));
        // Inserts, not a batch: see record_state_changes. Should the process die between
        // the two, the stretch is extended and the next poll starts the new one.
        match last {
            Some(last) if at >= last.end && at - last.end <= tolerance => {
                self.coverage.insert(
                    coverage_key(olt, last.start),
                    encode_coverage(at, last.reachable).to_vec(),
                )?;
                if last.reachable != reachable {
                    self.coverage.insert(
                        coverage_key(olt, at),
                        encode_coverage(at, reachable).to_vec(),
                    )?;
                }
            }
            Some(last) if at < last.end => return Ok(()), // the clock went back
            _ => {
                self.coverage.insert(
                    coverage_key(olt, at),
                    encode_coverage(at, reachable).to_vec(),
                )?;
            }
        }
        Ok(())
    }

    /// The stretches of `olt` overlapping `[from, to]`, clipped to it, in time order.
    pub fn coverage(
        &self,
        olt: OltId,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> Result<Vec<Coverage>, StoreError> {
        let mut stretches = Vec::new();
        // The stretch that started before `from` may still reach into the period.
        let before = self
            .coverage
            .range(coverage_key(olt, DateTime::<Utc>::MIN_UTC)..coverage_key(olt, from))
            .next_back()
            .transpose()?;
        let within = self
            .coverage
            .range(coverage_key(olt, from)..=coverage_key(olt, to));
        for entry in before.into_iter().map(Ok).chain(within) {
            let (key, value) = entry?;
            let Some(stretch) = decode_coverage(&key, &value) else {
                continue;
            };
            if stretch.end < from || stretch.start > to {
                continue;
            }
            stretches.push(Coverage {
                start: stretch.start.max(from),
                end: stretch.end.min(to),
                reachable: stretch.reachable,
            });
        }
        Ok(stretches)
    }

    /// Drops stretches that ended before `before`.
    pub fn prune_coverage(&self, before: DateTime<Utc>) -> Result<usize, StoreError> {
        let mut removed = 0;
        for entry in self.coverage.iter() {
            let (key, value) = entry?;
            if decode_coverage(&key, &value).is_some_and(|c| c.end < before) {
                self.coverage.remove(key)?;
                removed += 1;
            }
        }
        Ok(removed)
    }
}

fn coverage_key(olt: OltId, start: DateTime<Utc>) -> [u8; 12] {
    let mut key = [0u8; 12];
    key[..4].copy_from_slice(&olt.to_be_bytes());
    let millis = (start.timestamp_millis() as u64) ^ (1 << 63);
    key[4..].copy_from_slice(&millis.to_be_bytes());
    key
}

fn encode_coverage(end: DateTime<Utc>, reachable: bool) -> [u8; 9] {
    let mut value = [0u8; 9];
    value[..8].copy_from_slice(&end.timestamp_millis().to_be_bytes());
    value[8] = u8::from(reachable);
    value
}

fn decode_coverage(key: &[u8], value: &[u8]) -> Option<Coverage> {
    let millis = u64::from_be_bytes(key.get(4..12)?.try_into().ok()?) ^ (1 << 63);
    Some(Coverage {
        start: DateTime::from_timestamp_millis(millis as i64)?,
        end: DateTime::from_timestamp_millis(i64::from_be_bytes(value.get(..8)?.try_into().ok()?))?,
        reachable: *value.get(8)? == 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coverage_stretches_follow_polls_and_gaps() {
        use chrono::TimeZone;
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let t = |s: i64| {
            Utc.with_ymd_and_hms(2026, 11, 21, 10, 0, 0)
                .single()
                .expect("time")
                + chrono::Duration::seconds(s)
        };
        let tolerance = std::time::Duration::from_secs(30);
        for (at, reachable) in [
            (0, true),
            (20, true),
            (40, true),
            (60, false),
            (80, false),
            (100, true),
            (300, true),
            (320, true),
        ] {
            store
                .extend_coverage(7, t(at), reachable, tolerance)
                .expect("extend");
        }
        store
            .extend_coverage(8, t(10), true, tolerance)
            .expect("another OLT");
        let stretch = |a: i64, b: i64, reachable: bool| Coverage {
            start: t(a),
            end: t(b),
            reachable,
        };
        assert_eq!(
            store.coverage(7, t(-100), t(1000)).expect("coverage"),
            [
                stretch(0, 60, true),
                stretch(60, 100, false),
                stretch(100, 100, true),
                stretch(300, 320, true)
            ],
            "reachability changes split at the poll; a gap over the tolerance is left out"
        );
        assert_eq!(
            store.coverage(7, t(30), t(70)).expect("coverage"),
            [stretch(30, 60, true), stretch(60, 70, false)],
            "clipped to the period"
        );
        // OLT 7's first stretch and OLT 8's only one ended before 90 s.
        assert_eq!(store.prune_coverage(t(90)).expect("prune"), 2);
        assert!(store
            .coverage(8, t(-100), t(1000))
            .expect("coverage")
            .is_empty());
        assert_eq!(
            store.coverage(7, t(-100), t(1000)).expect("coverage").len(),
            3
        );
    }
}
