//! How hard the fleet is being polled: per OLT, the SNMP requests it received and the
//! busiest second, and per ONU how often its status and its optics were read, since the
//! fleet started or since the last reset. A poller that reads optics rarely and spread
//! out ("device-safe polling") shows it here: many status reads, few optics reads.
//!
//! The request counters live beside each OLT's state ([`RequestCounter`] in
//! [`super::agent::OltShared`]); the ONU counters live in each ONU ([`OnuReads`] in
//! [`super::model::SimOnu`]), so they move with the ONU when provisioning adds or removes
//! rows: 24 bytes per ONU (two `u32` counters and when its optics were last read), about
//! 30 MB for 10,000 OLTs × 128 ONUs. The agent counts
//! ([`super::omci`] decides what a read is); [`super::SimFleet::stats`] and the control
//! socket's `stats` ([`super::control`]) report them as [`FleetStats`].

use super::agent::OltShared;
use super::model::SimOlt;
use ponkeeper_actors::domain::OltId;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// How often one ONU was read since the counters were last reset.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct OnuReads {
    /// Varbinds of the Status column for this ONU's row.
    pub status: u32,
    /// Requests whose answer held any optics column of this ONU's row (one each,
    /// however many optics columns it held).
    pub optics: u32,
    /// When its optics were last read (kept across resets: it is the device's history,
    /// not a counter), for `--max-optics-per-hour`.
    pub last_optics: Option<Instant>,
}

/// The requests one OLT received: how many, and the most within one whole wall-clock
/// second (UNIX time truncated to the second, not a sliding window).
#[derive(Debug, Default)]
pub(crate) struct RequestCounter(Mutex<RequestRate>);

#[derive(Debug, Default)]
struct RequestRate {
    requests: u64,
    /// The wall-clock second (UNIX seconds) `in_second` counts.
    second: u64,
    in_second: u32,
    peak: u32,
}

impl RequestCounter {
    /// Counts one received request, now.
    pub fn note(&self) {
        let second = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        let mut rate = self.rate();
        if rate.second != second {
            rate.second = second;
            rate.in_second = 0;
        }
        rate.requests += 1;
        rate.in_second = rate.in_second.saturating_add(1);
        rate.peak = rate.peak.max(rate.in_second);
    }

    /// (requests, peak requests per second).
    fn read(&self) -> (u64, u32) {
        let rate = self.rate();
        (rate.requests, rate.peak)
    }

    fn reset(&self) {
        *self.rate() = RequestRate::default();
    }

    fn rate(&self) -> MutexGuard<'_, RequestRate> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Every OLT's counters, in id order, as [`super::SimFleet::stats`] and the control
/// socket's `stats` report them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FleetStats {
    pub olts: Vec<OltStats>,
}

/// One OLT's counters since the fleet started or the last reset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OltStats {
    /// The OLT's id in the simulator's inventory.
    pub id: OltId,
    /// SNMP requests received for this OLT, answered or not.
    pub requests: u64,
    /// The most requests within one whole wall-clock second (not a sliding window).
    pub peak_requests_per_second: u32,
    /// Status reads (Status column varbinds) per ONU.
    pub onu_status_reads: ReadSpread,
    /// Optics reads (requests holding any optics column of the ONU's row) per ONU.
    pub onu_optics_reads: ReadSpread,
}

/// A count over one OLT's ONUs: the least and most of any ONU, and their sum (all 0 for
/// an OLT without ONUs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadSpread {
    pub min: u32,
    pub max: u32,
    pub total: u64,
}

impl ReadSpread {
    fn over(counts: impl Iterator<Item = u32>) -> ReadSpread {
        let mut spread: Option<ReadSpread> = None;
        for count in counts {
            let s = spread.get_or_insert(ReadSpread {
                min: count,
                max: count,
                total: 0,
            });
            s.min = s.min.min(count);
            s.max = s.max.max(count);
            s.total += u64::from(count);
        }
        spread.unwrap_or_default()
    }
}

/// The OLTs whose counters the fleet and its control socket read and reset.
pub(crate) struct StatsBoard {
    /// Ascending by id.
    olts: Vec<(OltId, Arc<OltShared>)>,
}

impl StatsBoard {
    pub fn new(olts: Vec<(OltId, Arc<OltShared>)>) -> StatsBoard {
        StatsBoard { olts }
    }

    /// Every OLT's counters now, in id order.
    pub fn stats(&self) -> FleetStats {
        let olts = self
            .olts
            .iter()
            .map(|(id, olt)| {
                let (requests, peak) = olt.requests.read();
                let state = lock(olt);
                OltStats {
                    id: *id,
                    requests,
                    peak_requests_per_second: peak,
                    onu_status_reads: ReadSpread::over(state.onus.iter().map(|o| o.reads.status)),
                    onu_optics_reads: ReadSpread::over(state.onus.iter().map(|o| o.reads.optics)),
                }
            })
            .collect();
        FleetStats { olts }
    }

    /// Zeroes every counter of every OLT.
    pub fn reset(&self) {
        for (_, olt) in &self.olts {
            olt.requests.reset();
            for onu in &mut lock(olt).onus {
                onu.reads.status = 0;
                onu.reads.optics = 0;
            }
        }
    }
}

fn lock(olt: &OltShared) -> MutexGuard<'_, SimOlt> {
    olt.state.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spread_is_min_max_and_sum() {
        let spread = ReadSpread::over([3, 1, 4, 1, 5].into_iter());
        assert_eq!(
            spread,
            ReadSpread {
                min: 1,
                max: 5,
                total: 14
            }
        );
        assert_eq!(ReadSpread::over(std::iter::empty()), ReadSpread::default());
    }

    #[test]
    fn the_peak_is_the_busiest_second_and_reset_zeroes_it() {
        let counter = RequestCounter::default();
        for _ in 0..5 {
            counter.note();
        }
        let (requests, peak) = counter.read();
        assert_eq!(requests, 5);
        // Five requests within microseconds: all in one second, or split by a second's
        // edge into two seconds holding at least three.
        assert!((3..=5).contains(&peak), "{peak}");
        counter.reset();
        assert_eq!(counter.read(), (0, 0));
    }
}
