//! How hard one OLT is being asked, seen from its client ([`DeviceLoad`]): the pace
//! every request waits for (at most one request in flight, and at most `rate` requests in
//! any one second: a status poll of a few requests goes at wire speed, a sweep of many is
//! spread instead of piled onto the OLT's CPU), and the
//! round trip of each request over the last minutes, from which the OLT actor reads the
//! device's latency and decides whether to back off (`olt/pacing.rs`). Requests for
//! optics are marked costly: the OLT answers them over OMCI, so their time says little
//! about how loaded it is, and they are kept apart when judging that.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// How far back the round trips are kept.
const WINDOW: Duration = Duration::from_secs(300);
/// At most this many round trips are kept, whatever the window.
const MAX_SAMPLES: usize = 2048;

/// One request sent to the device.
#[derive(Debug, Clone, Copy)]
struct Sample {
    at: Instant,
    /// The round trip, `None` when no answer came in time.
    took: Option<Duration>,
    costly: bool,
}

/// The client's pace and its record of round trips.
#[derive(Debug, Default)]
pub struct DeviceLoad {
    /// Most requests in any one second; zero sends at once.
    per_second: usize,
    /// When the requests of the last second were sent, oldest first.
    sent: VecDeque<Instant>,
    samples: VecDeque<Sample>,
    /// Whether the requests sent now read optics.
    costly: bool,
}

/// What the round trips of a stretch of time say.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LoadFigures {
    /// Requests sent (answered or not).
    pub requests: u32,
    /// Requests that got no answer in time.
    pub timeouts: u32,
    /// Median and 95th percentile round trip of the answered requests.
    pub p50: Option<Duration>,
    pub p95: Option<Duration>,
}

impl DeviceLoad {
    /// At most `per_second` requests in any one second from now on (0 means no limit; a
    /// fraction rounds down, but never below one).
    pub fn set_rate(&mut self, per_second: f64) {
        self.per_second = if per_second > 0.0 {
            (per_second.floor() as usize).max(1)
        } else {
            0
        };
    }

    /// Marks the next requests as reads of optics (`true`) or of cheap tables.
    pub fn set_costly(&mut self, costly: bool) {
        self.costly = costly;
    }

    /// Waits until the pace lets the next request go: until fewer than `per_second`
    /// requests were sent in the last second.
    pub(super) async fn pace(&mut self) {
        if self.per_second == 0 {
            return;
        }
        // Only the last second's requests are kept: however high the rate, the record
        // holds no more than the requests actually sent in a second.
        let now = Instant::now();
        while self
            .sent
            .front()
            .is_some_and(|&at| now.duration_since(at) >= Duration::from_secs(1))
        {
            self.sent.pop_front();
        }
        if self.sent.len() >= self.per_second {
            if let Some(oldest) = self.sent.pop_front() {
                tokio::time::sleep_until((oldest + Duration::from_secs(1)).into()).await;
            }
            while self.sent.len() >= self.per_second {
                self.sent.pop_front();
            }
        }
        self.sent.push_back(Instant::now());
    }

    /// Records a request answered after `took`.
    pub(super) fn answered(&mut self, took: Duration) {
        self.push(Some(took));
    }

    /// Records a request that got no answer in time.
    pub(super) fn timed_out(&mut self) {
        self.push(None);
    }

    fn push(&mut self, took: Option<Duration>) {
        let at = Instant::now();
        while self.samples.len() >= MAX_SAMPLES
            || self
                .samples
                .front()
                .is_some_and(|s| at.duration_since(s.at) > WINDOW)
        {
            self.samples.pop_front();
        }
        self.samples.push_back(Sample {
            at,
            took,
            costly: self.costly,
        });
    }

    /// The figures of the requests sent in the last `span` (all of them, or only the
    /// cheap ones).
    pub fn figures(&self, span: Duration, cheap_only: bool) -> LoadFigures {
        let now = Instant::now();
        let recent = self
            .samples
            .iter()
            .rev()
            .take_while(|s| now.duration_since(s.at) <= span)
            .filter(|s| !(cheap_only && s.costly));
        let mut figures = LoadFigures::default();
        let mut times = Vec::new();
        for sample in recent {
            figures.requests += 1;
            match sample.took {
                Some(took) => times.push(took),
                None => figures.timeouts += 1,
            }
        }
        times.sort_unstable();
        figures.p50 = percentile(&times, 50);
        figures.p95 = percentile(&times, 95);
        figures
    }
}

/// The `pct`th percentile of sorted `times` (nearest rank).
fn percentile(times: &[Duration], pct: usize) -> Option<Duration> {
    let last = times.len().checked_sub(1)?;
    Some(times[(last * pct).div_ceil(100).min(last)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_pace_spreads_requests_and_figures_count_them() {
        let mut load = DeviceLoad::default();
        load.set_rate(4.5);
        let started = Instant::now();
        for ms in [1, 2, 3, 4] {
            load.pace().await;
            load.answered(Duration::from_millis(ms));
        }
        // Four a second (4.5 rounds down): the first four go at once...
        assert!(started.elapsed() < Duration::from_millis(500));
        load.pace().await;
        load.answered(Duration::from_millis(50));
        // ...and the fifth waits until the first is a second old.
        assert!(started.elapsed() >= Duration::from_secs(1));
        load.set_costly(true);
        load.pace().await;
        load.timed_out();
        let all = load.figures(Duration::from_secs(60), false);
        assert_eq!((all.requests, all.timeouts), (6, 1));
        assert_eq!(all.p50, Some(Duration::from_millis(3)));
        assert_eq!(all.p95, Some(Duration::from_millis(50)));
        let cheap = load.figures(Duration::from_secs(60), true);
        assert_eq!((cheap.requests, cheap.timeouts), (5, 0));
    }
}
