//! Stored traffic history, as the service reads it: one [`TrafficPoint`] per ONU per read
//! of the `traffic` group that gave a rate (the store keeps them in its `traffic` tree,
//! [`crate::store::traffic`]), and [`Buckets`], which averages the points of a period
//! into buckets of a step as they are read, so that a year at a daily step reads its
//! points once and keeps only the buckets.

use chrono::{DateTime, Duration, Utc};

/// One ONU's rates at one read of its counters, as stored: either may be `None` (a
/// layout with one counter only), never both.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TrafficPoint {
    pub at: DateTime<Utc>,
    /// Bits a second from the ONU (upstream) since the read before.
    pub in_bps: Option<f64>,
    /// Bits a second to the ONU (downstream).
    pub out_bps: Option<f64>,
}

/// The points of a period (taken oldest first), each as stored or averaged into buckets
/// of `step`: bucket `i` holds the points with `from + i·step <= at < from + (i+1)·step`
/// and is dated at its start. A bucket's rate is the mean of its points' rates in that
/// direction (`None` when none of them had one); a bucket without points is left out.
#[derive(Debug)]
pub struct Buckets {
    from: DateTime<Utc>,
    /// `None`: every point as stored.
    step: Option<Duration>,
    limit: usize,
    done: Vec<TrafficPoint>,
    open: Option<Open>,
}

/// The bucket being filled.
#[derive(Debug)]
struct Open {
    index: i64,
    inbound: Mean,
    outbound: Mean,
}

#[derive(Debug, Default)]
struct Mean {
    sum: f64,
    count: u32,
}

impl Mean {
    fn add(&mut self, value: Option<f64>) {
        if let Some(value) = value {
            self.sum += value;
            self.count += 1;
        }
    }

    fn get(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum / f64::from(self.count))
    }
}

impl Buckets {
    /// At most `limit` points (or buckets) of a period starting at `from`.
    pub fn new(from: DateTime<Utc>, step: Option<Duration>, limit: usize) -> Buckets {
        Buckets {
            from,
            step: step.filter(|s| s.num_seconds() > 0),
            limit,
            done: Vec::new(),
            open: None,
        }
    }

    /// Takes the next point of the period; `false` once `limit` points are complete, when
    /// the rest need not be read (this one is not taken then).
    pub fn push(&mut self, point: TrafficPoint) -> bool {
        if self.done.len() >= self.limit {
            return false;
        }
        let Some(step) = self.step else {
            self.done.push(point);
            return self.done.len() < self.limit;
        };
        let index = (point.at - self.from)
            .num_seconds()
            .div_euclid(step.num_seconds());
        if self.open.as_ref().is_some_and(|open| open.index != index) {
            self.close(step);
            if self.done.len() >= self.limit {
                return false;
            }
        }
        let open = self.open.get_or_insert_with(|| Open {
            index,
            inbound: Mean::default(),
            outbound: Mean::default(),
        });
        open.inbound.add(point.in_bps);
        open.outbound.add(point.out_bps);
        true
    }

    /// The points (or complete buckets, the last one with what it was given), oldest first.
    pub fn finish(mut self) -> Vec<TrafficPoint> {
        if let Some(step) = self.step {
            self.close(step);
        }
        self.done
    }

    fn close(&mut self, step: Duration) {
        if let Some(open) = self.open.take() {
            self.done.push(TrafficPoint {
                at: self.from + Duration::seconds(step.num_seconds().saturating_mul(open.index)),
                in_bps: open.inbound.get(),
                out_bps: open.outbound.get(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(from: DateTime<Utc>, minutes: i64, rates: (Option<f64>, Option<f64>)) -> TrafficPoint {
        TrafficPoint {
            at: from + Duration::minutes(minutes),
            in_bps: rates.0,
            out_bps: rates.1,
        }
    }

    #[test]
    fn points_are_averaged_into_buckets_dated_at_their_start() {
        let from = DateTime::from_timestamp(1_800_000_000, 0).expect("time");
        let mut buckets = Buckets::new(from, Some(Duration::hours(1)), 10);
        for p in [
            point(from, 0, (Some(100.0), Some(1_000.0))),
            point(from, 5, (Some(300.0), None)),
            point(from, 55, (Some(200.0), Some(3_000.0))),
            // No point in the second hour: no bucket for it.
            point(from, 125, (None, Some(7.0))),
        ] {
            assert!(buckets.push(p));
        }
        let got = buckets.finish();
        assert_eq!(
            got,
            [
                point(from, 0, (Some(200.0), Some(2_000.0))),
                point(from, 120, (None, Some(7.0))),
            ]
        );
    }

    #[test]
    fn the_limit_counts_complete_buckets_and_stops_the_read() {
        let from = DateTime::from_timestamp(1_800_000_000, 0).expect("time");
        let mut buckets = Buckets::new(from, Some(Duration::minutes(10)), 2);
        assert!(buckets.push(point(from, 1, (Some(1.0), None))));
        assert!(buckets.push(point(from, 11, (Some(2.0), None))));
        assert!(buckets.push(point(from, 12, (Some(4.0), None))));
        // The third bucket's first point closes the second: the limit is reached.
        assert!(!buckets.push(point(from, 21, (Some(8.0), None))));
        let got = buckets.finish();
        assert_eq!(
            got,
            [
                point(from, 0, (Some(1.0), None)),
                point(from, 10, (Some(3.0), None)),
            ]
        );
        // Without a step every point is its own, up to the limit.
        let mut raw = Buckets::new(from, None, 2);
        assert!(raw.push(point(from, 1, (Some(1.0), None))));
        assert!(!raw.push(point(from, 2, (Some(2.0), None))));
        assert!(!raw.push(point(from, 3, (Some(3.0), None))));
        assert_eq!(raw.finish().len(), 2);
    }
}
