//! The OLT's request budget and its back-off ([`Pacing`]): at most
//! `max_requests_per_second` (the vendor's default, `[polling]` or the OLT's own), one
//! request in flight (the poll task owns the only client). After each poll it looks at
//! the device's answers: a request that timed out, or cheap requests (not optics) whose
//! median round trip rose past three times the OLT's baseline, halve the pace; every
//! calm poll gives one request a second back (additive increase), so a distressed OLT is
//! eased at once and recovers slowly. Optics requests are left out of the latency test:
//! the OLT answers them over OMCI, slow by nature.

use crate::snmp::LoadFigures;
use std::time::Duration;

/// Below this the round trip is never called high, whatever the baseline: a LAN OLT that
/// answers in 2 ms instead of 0.5 ms is not in distress, only a busy host's scheduling.
const LATENCY_FLOOR: Duration = Duration::from_millis(20);
/// How many times its baseline the median round trip may rise before the pace halves.
const LATENCY_FACTOR: u32 = 3;
/// The slowest pace: four requests a second, so that even a throttled OLT's status poll
/// (a GET and a walk or two) ends within a second or so, well inside a poll's deadline.
const MIN_RATE: f64 = 4.0;

/// What the client's record said at the end of a poll.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct LoadSeen {
    /// The poll's own requests: all of them, and those that were not optics.
    pub(super) poll: LoadFigures,
    pub(super) cheap: LoadFigures,
    /// The requests of the last minute, and of the last five (the latency shown).
    pub(super) last_minute: LoadFigures,
    pub(super) recent: LoadFigures,
}

impl LoadSeen {
    /// Reads `load`'s record at the end of a poll that ran for `poll`.
    pub(super) fn of(load: &crate::snmp::DeviceLoad, poll: Duration) -> LoadSeen {
        LoadSeen {
            poll: load.figures(poll, false),
            cheap: load.figures(poll, true),
            last_minute: load.figures(Duration::from_secs(60), false),
            recent: load.figures(Duration::from_secs(300), false),
        }
    }
}

/// The pace of one OLT and why it is what it is.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Pacing {
    /// The configured most requests a second.
    ceiling: u32,
    /// The pace now, requests a second (≤ `ceiling`).
    rate: f64,
    /// The OLT's usual median round trip of cheap requests, learnt from calm polls.
    baseline: Option<Duration>,
    /// Why the pace is below the ceiling, while it is.
    reason: Option<String>,
}

impl Pacing {
    pub(super) fn new(ceiling: u32) -> Pacing {
        Pacing {
            ceiling,
            rate: f64::from(ceiling),
            baseline: None,
            reason: None,
        }
    }

    /// The pace now, requests a second.
    pub(super) fn rate(&self) -> f64 {
        self.rate
    }

    pub(super) fn ceiling(&self) -> u32 {
        self.ceiling
    }

    pub(super) fn baseline(&self) -> Option<Duration> {
        self.baseline
    }

    /// Why the OLT is throttled; `None` at full pace.
    pub(super) fn throttled(&self) -> Option<&str> {
        self.reason.as_deref()
    }

    /// A new ceiling (the inventory or the detected vendor changed).
    pub(super) fn set_ceiling(&mut self, ceiling: u32) {
        if ceiling != self.ceiling {
            self.ceiling = ceiling;
            self.rate = self.rate.min(f64::from(ceiling));
            if self.reason.is_none() {
                self.rate = f64::from(ceiling);
            }
        }
    }

    /// What the last poll's requests say.
    pub(super) fn after_poll(&mut self, seen: &LoadSeen) {
        self.judge(&seen.cheap, seen.poll.timeouts);
    }

    /// The pace after a poll whose cheap (non-optics) requests were `cheap` and which had
    /// `timeouts` requests without an answer.
    fn judge(&mut self, cheap: &LoadFigures, timeouts: u32) {
        let high = match (cheap.p50, self.baseline) {
            (Some(p50), Some(baseline)) => p50 > LATENCY_FLOOR && p50 > baseline * LATENCY_FACTOR,
            _ => false,
        };
        if timeouts > 0 {
            self.back_off(format!(
                "{timeouts} request{} timed out",
                if timeouts == 1 { "" } else { "s" }
            ));
        } else if high {
            let (p50, baseline) = (
                cheap.p50.unwrap_or_default(),
                self.baseline.unwrap_or_default(),
            );
            self.back_off(format!(
                "latency p50 {:.1} ms is {:.1}× its baseline of {:.1} ms",
                p50.as_secs_f64() * 1e3,
                p50.as_secs_f64() / baseline.as_secs_f64().max(1e-6),
                baseline.as_secs_f64() * 1e3
            ));
        } else {
            if let Some(p50) = cheap.p50 {
                // The baseline follows the calm round trips: down at once, up slowly.
                self.baseline = Some(match self.baseline {
                    Some(b) if p50 >= b => b.mul_f64(0.9) + p50.mul_f64(0.1),
                    _ => p50,
                });
            }
            self.rate = (self.rate + 1.0).min(f64::from(self.ceiling));
            if self.rate >= f64::from(self.ceiling) {
                self.reason = None;
            }
        }
    }

    /// The pace's gauges of OLT `olt` (and the latency of the last minutes, `load`).
    pub(super) fn publish(&self, olt: crate::domain::OltId, load: &LoadFigures) {
        let olt = olt.to_string();
        metrics::gauge!("ponkeeper_olt_requests_per_second", "olt" => olt.clone()).set(self.rate);
        metrics::gauge!("ponkeeper_olt_max_requests_per_second", "olt" => olt.clone())
            .set(f64::from(self.ceiling));
        metrics::gauge!("ponkeeper_olt_throttled", "olt" => olt.clone())
            .set(if self.reason.is_some() { 1.0 } else { 0.0 });
        if let (Some(p50), Some(p95)) = (load.p50, load.p95) {
            metrics::gauge!("ponkeeper_olt_latency_p50_seconds", "olt" => olt.clone())
                .set(p50.as_secs_f64());
            metrics::gauge!("ponkeeper_olt_latency_p95_seconds", "olt" => olt)
                .set(p95.as_secs_f64());
        }
    }

    fn back_off(&mut self, reason: String) {
        self.rate = (self.rate / 2.0).max(MIN_RATE);
        self.reason = Some(reason);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calm(p50_ms: u64) -> LoadFigures {
        LoadFigures {
            requests: 10,
            timeouts: 0,
            p50: Some(Duration::from_millis(p50_ms)),
            p95: Some(Duration::from_millis(p50_ms * 2)),
        }
    }

    #[test]
    fn slow_answers_halve_the_pace_and_calm_polls_give_it_back_slowly() {
        let mut pacing = Pacing::new(20);
        pacing.judge(&calm(10), 0);
        assert_eq!(pacing.baseline(), Some(Duration::from_millis(10)));
        assert_eq!(pacing.throttled(), None);
        // Five times the baseline and above the floor: halved, with the reason.
        pacing.judge(&calm(50), 0);
        assert_eq!(pacing.rate(), 10.0);
        let reason = pacing.throttled().expect("throttled");
        assert!(reason.contains("5.0×"), "{reason}");
        pacing.judge(&calm(50), 0);
        assert_eq!(pacing.rate(), 5.0);
        // The baseline did not learn the slow answers.
        assert_eq!(pacing.baseline(), Some(Duration::from_millis(10)));
        // A timeout halves too, down to the floor.
        pacing.judge(&calm(10), 1);
        assert_eq!(pacing.rate(), MIN_RATE);
        // One request a second back per calm poll until the ceiling.
        for _ in 0..15 {
            pacing.judge(&calm(10), 0);
            assert!(pacing.throttled().is_some());
        }
        pacing.judge(&calm(10), 0);
        assert_eq!(pacing.rate(), 20.0);
        assert_eq!(pacing.throttled(), None);
    }

    #[test]
    fn a_fast_olt_is_not_throttled_for_a_slower_but_quick_answer() {
        let mut pacing = Pacing::new(20);
        pacing.judge(&calm(1), 0);
        // Ten times a 1 ms baseline, but under the floor.
        pacing.judge(&calm(10), 0);
        assert_eq!(pacing.throttled(), None);
        assert_eq!(pacing.rate(), 20.0);
    }
}
