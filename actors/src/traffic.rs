//! Per-ONU traffic: the octet counters the `traffic` poll group reads
//! ([`crate::profile::TrafficColumns`]) and the rates computed between two reads. A rate
//! is bits a second over the time between the two reads. A 32-bit counter that went
//! backwards by no more than a plausible wrap is taken as wrapped once; any other counter
//! that went backwards, an OLT whose sysUpTime went backwards (it restarted) and an ONU
//! that came back online since the last read are resets: that read gives no rate
//! (`None`, never a negative number or a spike) and becomes the baseline of the next.
//! The book ([`TrafficBook`]) lives in the OLT actor, in memory: only the latest reading
//! of each ONU is kept, and the busiest ONUs are ranked from it ([`TrafficBook::busiest`]).
//! Each read's rates are also stored as history points ([`history`],
//! [`crate::store::traffic`]), written where the poll is merged, off the actor.

use crate::domain::OnuId;
use chrono::{DateTime, Utc};
use std::collections::HashSet;

mod history;
pub mod saturation;
pub use history::TrafficPoint;

/// The fastest an ONU's traffic can be (10 Gb/s, XGS-PON's line rate): a 32-bit counter
/// that went backwards is taken as wrapped only if the wrap gives a rate at most this.
pub const MAX_BPS: f64 = 10e9;

/// One ONU's counters as one read found them; `None` where the device has no instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counters {
    /// Octets received by the OLT from the ONU (upstream).
    pub in_octets: Option<u64>,
    /// Octets the OLT sent to the ONU (downstream).
    pub out_octets: Option<u64>,
}

/// An ONU's latest traffic reading: the counters as read and the rates since the read
/// before (`None` for the first read, after a reset, or without a counter).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrafficReading {
    pub in_bps: Option<f64>,
    pub out_bps: Option<f64>,
    pub in_octets: Option<u64>,
    pub out_octets: Option<u64>,
    /// When the counters were read.
    pub at: DateTime<Utc>,
}

/// The rate of a counter that went from `before` to `after` in `seconds`, counted in
/// `bits`-bit arithmetic (32 or 64). `None` for a reset (see the module's comment), a
/// missing value or no time between the reads.
pub fn rate(before: Option<u64>, after: Option<u64>, seconds: f64, bits: u32) -> Option<f64> {
    let (before, after) = (before?, after?);
    if seconds.is_nan() || seconds <= 0.0 {
        return None;
    }
    let octets = if after >= before {
        after - before
    } else {
        // A value above 2^32 - 1 is no 32-bit counter whatever the profile says.
        let wraps_at = 1u64 << 32;
        if bits != 32 || before >= wraps_at {
            return None;
        }
        after.checked_add(wraps_at - before)?
    };
    let bps = octets as f64 * 8.0 / seconds;
    // A forward jump faster than any ONU is a counter reset to a larger value (a
    // different ONU in the row, a replaced board): no spike either.
    (bps <= MAX_BPS).then_some(bps)
}

/// One OLT's latest traffic reading of each ONU. A poll that reads the `traffic` group
/// takes a copy along and records its read into it off the actor; the actor swaps the
/// copy in with the merged poll. Every reading of the book comes from one read, so the
/// read's time is kept once and each ONU's reading in 40 bytes, sorted by id (a map of
/// [`TrafficReading`]s took about 170 bytes an ONU: at 10,000 OLTs × 128, 210 MB).
#[derive(Debug, Default, Clone)]
pub struct TrafficBook {
    readings: Vec<KeptReading>,
    /// When the read the readings come from was made.
    read_at: Option<DateTime<Utc>>,
    /// sysUpTime (seconds) at the last read: one smaller now means the OLT restarted.
    uptime: Option<u64>,
}

/// One ONU's reading as the book keeps it, in 40 bytes: a counter the read did not give is
/// `ABSENT_OCTETS` (no Counter64 reaches it in the life of a device), a rate it could not
/// work out is NaN (a rate is a finite quotient). A flags byte beside them took 48 bytes,
/// 10 MB of a national fleet's books (docs/benchmarks.md, issue 31, seventh pass).
#[derive(Debug, Clone, Copy)]
struct KeptReading {
    id: OnuId,
    in_octets: u64,
    out_octets: u64,
    in_bps: f64,
    out_bps: f64,
}

const ABSENT_OCTETS: u64 = u64::MAX;
const _: () = assert!(std::mem::size_of::<KeptReading>() == 40);

impl KeptReading {
    fn of(id: OnuId, r: &TrafficReading) -> KeptReading {
        // A counter read as the sentinel itself is kept as no counter: one read, once in
        // 2^64 octets.
        KeptReading {
            id,
            in_octets: r.in_octets.unwrap_or(ABSENT_OCTETS),
            out_octets: r.out_octets.unwrap_or(ABSENT_OCTETS),
            in_bps: r.in_bps.unwrap_or(f64::NAN),
            out_bps: r.out_bps.unwrap_or(f64::NAN),
        }
    }

    fn reading(&self, at: DateTime<Utc>) -> TrafficReading {
        let octets = |value: u64| (value != ABSENT_OCTETS).then_some(value);
        let rate = |value: f64| (!value.is_nan()).then_some(value);
        TrafficReading {
            in_bps: rate(self.in_bps),
            out_bps: rate(self.out_bps),
            in_octets: octets(self.in_octets),
            out_octets: octets(self.out_octets),
            at,
        }
    }
}

/// One read of the `traffic` group, the rows already put down to their ONUs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TrafficRead {
    pub counters: Vec<(OnuId, Counters)>,
    /// The counters' width in the layout's MIB (32 or 64).
    pub bits: u32,
}

impl TrafficBook {
    /// Takes a read made at `at`, on an OLT up `uptime` seconds; `came_online` are the
    /// ONUs that came back since the last poll (their counters started again).
    pub fn record(
        &mut self,
        read: TrafficRead,
        at: DateTime<Utc>,
        uptime: Option<u64>,
        came_online: &[OnuId],
    ) {
        let restarted = matches!((self.uptime, uptime), (Some(was), Some(now)) if now < was);
        self.uptime = uptime.or(self.uptime);
        let reset: HashSet<OnuId> = came_online.iter().copied().collect();
        let mut readings = Vec::with_capacity(read.counters.len());
        for (id, counters) in read.counters {
            let before = self.get(id).filter(|_| !restarted && !reset.contains(&id));
            let seconds = before.map_or(0.0, |b| (at - b.at).num_milliseconds() as f64 / 1000.0);
            let rate_of = |pick: fn(&TrafficReading) -> Option<u64>, now: Option<u64>| {
                rate(before.as_ref().and_then(pick), now, seconds, read.bits)
            };
            let reading = TrafficReading {
                in_bps: rate_of(|r| r.in_octets, counters.in_octets),
                out_bps: rate_of(|r| r.out_octets, counters.out_octets),
                in_octets: counters.in_octets,
                out_octets: counters.out_octets,
                at,
            };
            readings.push(KeptReading::of(id, &reading));
        }
        readings.sort_unstable_by_key(|r| r.id);
        readings.dedup_by_key(|r| r.id);
        readings.shrink_to_fit();
        self.readings = readings;
        self.read_at = Some(at);
    }

    /// ONU `id`'s latest reading, if the last read found it.
    pub fn get(&self, id: OnuId) -> Option<TrafficReading> {
        let at = self.read_at?;
        Some(self.readings[self.position(id)?].reading(at))
    }

    /// Where ONU `id`'s reading is kept, if the last read found it.
    fn position(&self, id: OnuId) -> Option<usize> {
        self.readings.binary_search_by_key(&id, |r| r.id).ok()
    }

    /// Every ONU's latest reading, by id.
    fn all(&self) -> impl Iterator<Item = (OnuId, TrafficReading)> + '_ {
        let at = self.read_at.unwrap_or_default();
        self.readings.iter().map(move |r| (r.id, r.reading(at)))
    }

    /// The history points of the latest read: one per ONU that has a rate either way,
    /// by ONU id.
    pub fn points(&self) -> Vec<(OnuId, TrafficPoint)> {
        self.all()
            .filter(|(_, r)| r.in_bps.is_some() || r.out_bps.is_some())
            .map(|(id, r)| {
                let point = TrafficPoint {
                    at: r.at,
                    in_bps: r.in_bps,
                    out_bps: r.out_bps,
                };
                (id, point)
            })
            .collect()
    }

    /// The `limit` ONUs with the highest latest rate `by` direction, highest first (ties
    /// by id); ONUs without a rate that way are not ranked.
    pub fn busiest(&self, by: Direction, limit: usize) -> Vec<(OnuId, TrafficReading)> {
        let entries = self.all().map(|(id, r)| (id, (), r));
        rank(entries, by, limit)
            .into_iter()
            .map(|(id, (), r)| (id, r))
            .collect()
    }

    /// Each port's traffic: the sum of its ONUs' latest rates (`onus` names each ONU's
    /// port), against the port's capacity on `technology`. A port none of whose ONUs has
    /// a rate yet has none either.
    pub fn by_port<'a>(
        &self,
        onus: impl Iterator<Item = (OnuId, &'a str)>,
        technology: PonTechnology,
    ) -> Vec<PortTraffic> {
        let mut ports: Vec<PortTraffic> = Vec::new();
        // A table lists each port's ONUs together: look a port up only when it changes.
        let mut current = usize::MAX;
        let mut next = 0;
        for (id, port) in onus {
            if ports.get(current).is_none_or(|p| p.port != port) {
                current = match ports.iter().position(|p| p.port == port) {
                    Some(at) => at,
                    None => {
                        ports.push(PortTraffic {
                            port: port.to_string(),
                            in_bps: None,
                            out_bps: None,
                            in_capacity_bps: technology.up_bps(),
                            out_capacity_bps: technology.down_bps(),
                        });
                        ports.len() - 1
                    }
                };
            }
            let entry = &mut ports[current];
            // The kept reading itself: `GET /olts/{id}` sums every ONU's on each request.
            // A table lists its ONUs mostly in id order (ids are handed out as rows are
            // first seen), so the reading after the last one found is tried first.
            let kept = if self.read_at.is_none() {
                None
            } else if self.readings.get(next).is_some_and(|r| r.id == id) {
                Some(next)
            } else {
                self.position(id)
            };
            if let Some(at) = kept {
                next = at + 1;
            }
            if let Some(kept) = kept.map(|at| &self.readings[at]) {
                let add = |sum: Option<f64>, rate: f64| match rate.is_nan() {
                    true => sum,
                    false => Some(sum.unwrap_or(0.0) + rate),
                };
                entry.in_bps = add(entry.in_bps, kept.in_bps);
                entry.out_bps = add(entry.out_bps, kept.out_bps);
            }
        }
        ports.sort_unstable_by(|a, b| a.port.cmp(&b.port));
        ports
    }
}

/// The `limit` entries with the highest rate `by` direction, highest first, ties by ONU
/// id; entries without a rate that way are left out. One OLT's book ranks its ONUs with
/// it, and the service merges the OLTs' rankings with it.
pub fn rank<T>(
    entries: impl IntoIterator<Item = (OnuId, T, TrafficReading)>,
    by: Direction,
    limit: usize,
) -> Vec<(OnuId, T, TrafficReading)> {
    let mut ranked: Vec<(f64, (OnuId, T, TrafficReading))> = entries
        .into_iter()
        .filter_map(|entry| Some((by.rate(&entry.2)?, entry)))
        .collect();
    ranked.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1 .0.cmp(&b.1 .0)));
    ranked
        .into_iter()
        .take(limit)
        .map(|(_, entry)| entry)
        .collect()
}

/// A direction of traffic: `In` from the ONU (upstream), `Out` to it (downstream).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    In,
    Out,
}

impl Direction {
    /// The reading's rate this way.
    pub fn rate(self, reading: &TrafficReading) -> Option<f64> {
        match self {
            Direction::In => reading.in_bps,
            Direction::Out => reading.out_bps,
        }
    }
}

/// What a PON port carries, for its capacity: GPON (ITU-T G.984: 2.488 Gb/s down, 1.244
/// up) or EPON (IEEE 802.3ah: 1 Gb/s each way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PonTechnology {
    Gpon,
    Epon,
}

impl PonTechnology {
    /// Towards the ONUs.
    pub fn down_bps(self) -> f64 {
        match self {
            PonTechnology::Gpon => 2.488_32e9,
            PonTechnology::Epon => 1e9,
        }
    }

    /// From the ONUs.
    pub fn up_bps(self) -> f64 {
        match self {
            PonTechnology::Gpon => 1.244_16e9,
            PonTechnology::Epon => 1e9,
        }
    }
}

/// One PON port's traffic now: its ONUs' rates summed, and its capacity each way.
#[derive(Debug, Clone, PartialEq)]
pub struct PortTraffic {
    pub port: String,
    /// From the ONUs (upstream) and to them (downstream), bits a second.
    pub in_bps: Option<f64>,
    pub out_bps: Option<f64>,
    pub in_capacity_bps: f64,
    pub out_capacity_bps: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    fn read(id: OnuId, in_octets: u64, out_octets: u64, bits: u32) -> TrafficRead {
        TrafficRead {
            counters: vec![(
                id,
                Counters {
                    in_octets: Some(in_octets),
                    out_octets: Some(out_octets),
                },
            )],
            bits,
        }
    }

    #[test]
    fn a_rate_is_bits_a_second_between_two_reads() {
        assert_eq!(rate(Some(1_000), Some(76_000), 300.0, 64), Some(2_000.0));
        assert_eq!(rate(Some(5), Some(5), 300.0, 64), Some(0.0));
        assert_eq!(rate(None, Some(5), 300.0, 64), None);
        assert_eq!(rate(Some(5), None, 300.0, 64), None);
        assert_eq!(rate(Some(5), Some(9), 0.0, 64), None);
    }

    #[test]
    fn a_32_bit_counter_that_wrapped_gives_the_rate_across_the_wrap() {
        // 2^32 - 1000 → 2000: 3000 octets in 10 s = 2400 b/s.
        let before = (1u64 << 32) - 1_000;
        assert_eq!(rate(Some(before), Some(2_000), 10.0, 32), Some(2_400.0));
        // Without the wrap this would be negative; a 64-bit counter never wraps in practice:
        // going backwards is a reset there.
        assert_eq!(rate(Some(before), Some(2_000), 10.0, 64), None);
    }

    #[test]
    fn a_counter_that_went_backwards_is_a_reset_not_a_negative_or_a_spike() {
        // 64-bit: backwards is always a reset.
        assert_eq!(rate(Some(9_000_000_000), Some(10), 300.0, 64), None);
        // 32-bit: a "wrap" that would mean more than 10 Gb/s over 1 s is a reset.
        assert_eq!(rate(Some(10), Some(5), 1.0, 32), None);
        // A forward jump faster than any ONU (a reset to a larger value) is no rate.
        assert_eq!(rate(Some(0), Some(1 << 40), 1.0, 64), None);
    }

    #[test]
    fn the_book_handles_a_wrap_and_an_olt_restart_without_a_spike() {
        let t0 = Utc::now();
        let at = |s: i64| t0 + Duration::seconds(s);
        let mut book = TrafficBook::default();
        let near_top = (1u64 << 32) - 4_000;
        book.record(read(7, near_top, 1_000, 32), at(0), Some(1_000), &[]);
        let first = book.get(7).expect("read");
        assert_eq!((first.in_bps, first.out_bps), (None, None), "a baseline");
        assert_eq!(first.in_octets, Some(near_top));
        // 300 s later the in counter wrapped: 4000 + 296000 octets = 8000 b/s.
        book.record(read(7, 296_000, 301_000, 32), at(300), Some(1_300), &[]);
        let wrapped = book.get(7).expect("read");
        assert_eq!(wrapped.in_bps, Some(8_000.0));
        assert_eq!(wrapped.out_bps, Some(8_000.0));
        // The OLT restarted (sysUpTime went back): its counters start again, and even a
        // counter now above the last one gives no rate.
        book.record(read(7, 400_000, 100, 32), at(600), Some(20), &[]);
        let restarted = book.get(7).expect("read");
        assert_eq!((restarted.in_bps, restarted.out_bps), (None, None));
        // The read after a reset gives a rate again.
        book.record(read(7, 430_000, 30_100, 32), at(900), Some(320), &[]);
        let after = book.get(7).expect("read");
        assert_eq!(after.in_bps, Some(800.0));
        assert_eq!(after.out_bps, Some(800.0));
    }

    #[test]
    fn an_onu_back_online_starts_again_and_a_vanished_one_is_dropped() {
        let t0 = Utc::now();
        let mut book = TrafficBook::default();
        book.record(read(3, 1_000, 1_000, 64), t0, None, &[]);
        let later = t0 + Duration::seconds(60);
        book.record(read(3, 9_000, 9_000, 64), later, None, &[3]);
        assert_eq!(book.get(3).expect("read").in_bps, None);
        book.record(TrafficRead::default(), later, None, &[]);
        assert_eq!(book.get(3), None);
    }

    #[test]
    fn the_busiest_are_ranked_by_the_asked_direction_and_points_need_a_rate() {
        let t0 = Utc::now();
        let mut book = TrafficBook::default();
        let three = |a: u64, b: u64, c: u64| TrafficRead {
            counters: [(1, a, c), (2, b, b), (3, c, a), (4, 0, 0)]
                .into_iter()
                .map(|(id, i, o)| {
                    let counters = Counters {
                        in_octets: Some(i),
                        out_octets: (id != 4).then_some(o),
                    };
                    (id, counters)
                })
                .collect(),
            bits: 64,
        };
        book.record(three(0, 0, 0), t0, None, &[]);
        assert!(book.points().is_empty(), "a baseline has no rate");
        assert!(book.busiest(Direction::In, 10).is_empty());
        book.record(three(100, 200, 300), t0 + Duration::seconds(8), None, &[]);
        let ids = |ranked: Vec<(OnuId, TrafficReading)>| -> Vec<OnuId> {
            ranked.into_iter().map(|(id, _)| id).collect()
        };
        // In: 1 → 100 B, 2 → 200, 3 → 300, 4 → 0 (a rate of 0 is still ranked).
        assert_eq!(ids(book.busiest(Direction::In, 10)), [3, 2, 1, 4]);
        // Out: 1 → 300, 2 → 200, 3 → 100; 4 has no out counter.
        assert_eq!(ids(book.busiest(Direction::Out, 2)), [1, 2]);
        let points = book.points();
        assert_eq!(points.len(), 4);
        assert_eq!(points[0].1.in_bps, Some(100.0));
        assert_eq!(points[0].1.out_bps, Some(300.0));
        assert_eq!(points[3].1.out_bps, None);
    }

    #[test]
    fn a_port_carries_its_onus_rates_summed_and_none_until_one_has_a_rate() {
        let t0 = Utc::now();
        let mut book = TrafficBook::default();
        let both = |a: u64, b: u64| TrafficRead {
            counters: vec![
                (
                    1,
                    Counters {
                        in_octets: Some(a),
                        out_octets: Some(a),
                    },
                ),
                (
                    2,
                    Counters {
                        in_octets: Some(b),
                        out_octets: Some(b),
                    },
                ),
            ],
            bits: 64,
        };
        book.record(both(0, 0), t0, None, &[]);
        // Out of port order, and a port's ONUs not together: the answer is sorted by port.
        let onus = [(3, "0/1/1"), (1, "0/1/0"), (4, "0/1/1"), (2, "0/1/0")];
        let first = book.by_port(onus.into_iter(), PonTechnology::Epon);
        assert!(first.iter().all(|p| p.in_bps.is_none()), "{first:?}");
        book.record(both(1_000, 3_000), t0 + Duration::seconds(8), None, &[]);
        let ports = book.by_port(onus.into_iter(), PonTechnology::Gpon);
        assert_eq!(ports.len(), 2);
        assert_eq!(
            (ports[0].in_bps, ports[0].out_bps),
            (Some(4_000.0), Some(4_000.0))
        );
        assert_eq!(
            (ports[0].in_capacity_bps, ports[0].out_capacity_bps),
            (1.244_16e9, 2.488_32e9)
        );
        assert_eq!(ports[1].in_bps, None, "ONU 3 was in no read");
    }

    proptest::proptest! {
        /// Whatever order the table lists its ONUs in, and whichever of them the reads
        /// found, each port carries the sum of its ONUs' rates (none without one).
        #[test]
        fn a_port_sums_its_onus_in_any_order(
            onus in proptest::collection::vec((0u64..40, 0usize..3), 0..30),
            read in proptest::collection::vec((0u64..40, 0u64..1_000_000), 0..30),
        ) {
            let t0 = Utc::now();
            let mut book = TrafficBook::default();
            let counters = |scale: u64| TrafficRead {
                counters: read.iter().map(|&(id, n)| (id, Counters {
                    in_octets: Some(n * scale),
                    out_octets: (id % 2 == 0).then_some(n * scale),
                })).collect(),
                bits: 64,
            };
            book.record(counters(1), t0, None, &[]);
            book.record(counters(2), t0 + Duration::seconds(10), None, &[]);
            let names = ["0/1/0", "0/1/1", "0/1/2"];
            let listed: Vec<(OnuId, &str)> = onus.iter().map(|&(id, port)| (id, names[port])).collect();
            let ports = book.by_port(listed.iter().copied(), PonTechnology::Gpon);
            for port in &ports {
                let rates: Vec<TrafficReading> = listed.iter()
                    .filter(|(_, name)| *name == port.port)
                    .filter_map(|&(id, _)| book.get(id))
                    .collect();
                let sum = |pick: fn(&TrafficReading) -> Option<f64>| {
                    let known: Vec<f64> = rates.iter().filter_map(pick).collect();
                    (!known.is_empty()).then(|| known.iter().sum::<f64>())
                };
                proptest::prop_assert_eq!(port.in_bps, sum(|r| r.in_bps));
                proptest::prop_assert_eq!(port.out_bps, sum(|r| r.out_bps));
            }
        }
    }

    proptest::proptest! {
        /// What the book keeps of a reading is the reading, whichever values it lacks.
        #[test]
        fn a_kept_reading_is_the_reading(
            in_octets in proptest::option::of(0..ABSENT_OCTETS),
            out_octets in proptest::option::of(0..ABSENT_OCTETS),
            in_bps in proptest::option::of(0.0..MAX_BPS),
            out_bps in proptest::option::of(0.0..MAX_BPS),
        ) {
            let at = DateTime::from_timestamp(1_790_000_000, 0).expect("a time");
            let reading = TrafficReading { in_bps, out_bps, in_octets, out_octets, at };
            proptest::prop_assert_eq!(KeptReading::of(7, &reading).reading(at), reading);
        }
    }
}
