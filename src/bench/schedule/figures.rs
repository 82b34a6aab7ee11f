//! The arithmetic of `bench poll --schedule` (docs/benchmarks.md S2 and S4), apart from
//! the runs so that it can be tested: how the default schedule is compressed in time
//! ([`Scale`]), how CPU measured over one compressed hour becomes CPU per real hour
//! ([`cpu_per_hour`]), and how many optics reads one ONU may get within a window
//! ([`optics_read_bounds`]), with the simulator's counters summed per vendor
//! ([`vendor_reads`]).

use ponkeeper_actors::domain::Vendor;
use ponkeeper_actors::inventory::{Inventory, PollOverrides};
use ponkeeper_actors::olt::PollSettings;
use ponkeeper_actors::profile::Profile;
use ponkeeper_sim::FleetStats;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Duration;

/// One hour, the unit S2 is reported in.
pub const HOUR: Duration = Duration::from_secs(3600);

/// The default schedule run `factor` times faster: every interval divided by it, every
/// rate multiplied by it. The number of reads in one compressed hour is then the number
/// of reads in a real hour, and each poll reads what it would read in real time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scale {
    pub factor: u32,
}

impl Scale {
    /// A real interval, compressed.
    pub fn interval(self, real: Duration) -> Duration {
        real / self.factor.max(1)
    }

    /// A real rate (requests a second), compressed.
    pub fn rate(self, real: u32) -> u32 {
        real.saturating_mul(self.factor.max(1))
    }

    /// `hours` real hours, compressed: how long the measured window runs.
    pub fn window(self, hours: u32) -> Duration {
        self.interval(HOUR * hours)
    }

    /// `[polling]` of the compressed schedule: the status, identity, `olt` and traffic
    /// intervals and the optics history step of the defaults, compressed. The request timeout,
    /// retries and deadline are not: they only matter when a device fails to answer,
    /// which the benchmark's simulator does not, and a 33 ms timeout would turn a loaded
    /// host's scheduling delays into failures. The deadline is the bench's 300 s, which
    /// also bounds how long the warm-up's `poll_now` waits at 10,000 OLTs.
    pub fn settings(self) -> PollSettings {
        let real = PollSettings::default();
        PollSettings {
            interval: self.interval(real.interval),
            identity_interval: self.interval(real.identity_interval),
            olt_interval: self.interval(real.olt_interval),
            traffic_interval: self.interval(real.traffic_interval),
            history_step: self.interval(real.history_step),
            deadline: Duration::from_secs(300),
            ..real
        }
    }

    /// One OLT's own `poll` table in the compressed schedule: its vendor's optics
    /// interval and request pace, compressed (they are per vendor, so they cannot go
    /// into `[polling]`).
    pub fn overrides(self, vendor: Vendor) -> PollOverrides {
        let defaults = Profile::for_vendor(vendor).polling;
        PollOverrides {
            optics: Some(self.interval(defaults.optics_interval)),
            max_requests_per_second: Some(self.rate(defaults.max_requests_per_second)),
            ..PollOverrides::default()
        }
    }

    /// `inventory` with every OLT's `poll` table compressed ([`Scale::overrides`]).
    pub fn inventory(self, inventory: &Inventory) -> anyhow::Result<Inventory> {
        let mut scaled = inventory.clone();
        for olt in &mut scaled.olts {
            let vendor = olt
                .vendor
                .fixed()
                .ok_or_else(|| anyhow::anyhow!("OLT {} has no fixed vendor", olt.id))?;
            olt.poll = self.overrides(vendor);
        }
        Ok(scaled)
    }
}

/// What S2's compressed run measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScaledRun {
    /// Real hours the window stands for.
    pub hours: u32,
    /// Wall seconds of the window.
    pub window_seconds: f64,
    /// Process CPU seconds over the window.
    pub cpu_seconds: f64,
    /// Status reads per ONU the window held (the simulator's count, mean over ONUs).
    pub status_reads_per_onu: f64,
    /// Status reads per ONU a schedule that polls every OLT exactly once per
    /// (compressed) status interval would have made in the window.
    pub status_reads_expected: f64,
    /// Process CPU seconds per second of the same fleet with nothing due.
    pub idle_cpu_per_second: f64,
}

impl ScaledRun {
    /// How far the run fell short of the status reads it should have made (1 when it
    /// kept up): its CPU is scaled up by this, as if it had kept up.
    pub fn keep_up_factor(&self) -> f64 {
        if self.status_reads_per_onu > 0.0 {
            (self.status_reads_expected / self.status_reads_per_onu).max(1.0)
        } else {
            1.0
        }
    }
}

/// S2: CPU seconds per real hour of the default schedule, from a compressed run.
///
/// The work of polling (requests, decoding, merging, storing) is counted in reads, and a
/// compressed hour makes a real hour's reads, so the CPU the window took is the CPU a real
/// hour takes for them; it is scaled up by [`ScaledRun::keep_up_factor`] if the run made
/// fewer status reads than it should have (it fell behind), which over-counts the rest
/// of the work a little. What does not shrink with the schedule is the cost of time
/// itself: each OLT actor's timer tick (once a second at the default interval) and the
/// runtime's housekeeping. A real hour pays it for 3,600 s, the window only for its own
/// length, so the idle rate is added for the rest of the hour. The window's own ticks
/// (more frequent when the status interval is under 4 s) are left in: an over-count.
pub fn cpu_per_hour(run: &ScaledRun) -> f64 {
    let real = HOUR.as_secs_f64() * f64::from(run.hours.max(1));
    let polling = run.cpu_seconds * run.keep_up_factor();
    let time = run.idle_cpu_per_second * (real - run.window_seconds).max(0.0);
    (polling + time) / f64::from(run.hours.max(1))
}

/// S4's bounds on one ONU's optics reads within a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadBounds {
    /// The target: read at least once per interval, so at least ⌊W / I⌋ times.
    pub min_required: u32,
    /// What the schedule promises: one read fewer (see [`optics_read_bounds`]).
    pub min_by_design: u32,
    /// Never read sooner than one interval after the last read: at most ⌊W / I⌋ + 1.
    pub max_allowed: u32,
}

/// The bounds on the optics reads of one ONU read every `interval` within a window of
/// `inner` to `outer` seconds (the counters were reset and read by requests that take
/// time, so the window is known only between the two).
///
/// The maximum: the schedule makes an ONU due one interval after its last read ended,
/// and reads it at the first poll that starts after that, so two reads are at least
/// `I` apart; n reads within W need (n − 1)·I ≤ W, so n ≤ ⌊W / I⌋ + 1. (That is ⌈W / I⌉
/// unless W is a whole number of intervals; ⌈W / I⌉ + 1 would allow one read too many.)
/// The outer window is used: the bound allows the most there.
///
/// The minimum: "at least once per interval" means ⌊W / I⌋ reads. But the read comes at
/// the first status poll after the ONU is due, so two reads are up to I + δ apart (δ:
/// up to a status interval plus the poll's time). An ONU read just before the window
/// opens gets its next read up to I + δ into it, and ⌊W / (I + δ)⌋ reads in all, which
/// is ⌊W / I⌋ − 1 when W is a whole number of intervals and the drift over the window
/// (δ·W / I) stays under one interval: the schedule's own bound, `min_by_design`. The
/// inner window is used for both.
pub fn optics_read_bounds(inner: f64, outer: f64, interval: Duration) -> ReadBounds {
    let interval = interval.as_secs_f64().max(f64::MIN_POSITIVE);
    let min_required = (inner / interval).floor() as u32;
    ReadBounds {
        min_required,
        min_by_design: min_required.saturating_sub(1),
        max_allowed: (outer / interval).floor() as u32 + 1,
    }
}

/// The simulator's optics and status counters over one vendor's OLTs.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VendorReads {
    pub olts: usize,
    pub onus: u64,
    pub optics_min: u32,
    pub optics_max: u32,
    pub optics_total: u64,
    pub status_min: u32,
    pub status_max: u32,
    pub status_total: u64,
    /// Requests any one OLT received within one wall-clock second, at most.
    pub peak_requests_per_second: u32,
}

/// `stats` summed per vendor (`vendor_of` an OLT id; OLTs it does not know are left out),
/// with `onus_per_olt` ONUs on each OLT.
pub fn vendor_reads(
    stats: &FleetStats,
    onus_per_olt: usize,
    vendor_of: impl Fn(u32) -> Option<Vendor>,
) -> BTreeMap<&'static str, VendorReads> {
    let mut by_vendor: BTreeMap<&'static str, VendorReads> = BTreeMap::new();
    for olt in &stats.olts {
        let Some(vendor) = vendor_of(olt.id) else {
            continue;
        };
        let first = !by_vendor.contains_key(vendor.as_str());
        let reads = by_vendor.entry(vendor.as_str()).or_default();
        let (optics, status) = (olt.onu_optics_reads, olt.onu_status_reads);
        if first {
            reads.optics_min = optics.min;
            reads.status_min = status.min;
        }
        reads.olts += 1;
        reads.onus += onus_per_olt as u64;
        reads.optics_min = reads.optics_min.min(optics.min);
        reads.optics_max = reads.optics_max.max(optics.max);
        reads.optics_total += optics.total;
        reads.status_min = reads.status_min.min(status.min);
        reads.status_max = reads.status_max.max(status.max);
        reads.status_total += status.total;
        reads.peak_requests_per_second = reads
            .peak_requests_per_second
            .max(olt.peak_requests_per_second);
    }
    by_vendor
}

#[cfg(test)]
mod tests {
    use super::*;
    use ponkeeper_sim::{OltStats, ReadSpread};

    #[test]
    fn a_compressed_schedule_divides_every_interval_and_multiplies_every_rate() {
        let scale = Scale { factor: 60 };
        let settings = scale.settings();
        assert_eq!(settings.interval, Duration::from_secs(1));
        assert_eq!(settings.identity_interval, Duration::from_secs(15));
        assert_eq!(settings.olt_interval, Duration::from_secs(15));
        assert_eq!(settings.history_step, Duration::from_secs(15));
        assert_eq!(settings.optics_interval, None);
        assert_eq!(settings.max_requests_per_second, None);
        let zte = scale.overrides(Vendor::Zte);
        assert_eq!(zte.optics, Some(Duration::from_secs(60)));
        assert_eq!(zte.max_requests_per_second, Some(1200));
        let huawei = scale.overrides(Vendor::Huawei);
        assert_eq!(huawei.optics, Some(Duration::from_secs(15)));
        assert_eq!(huawei.status, None);
        assert_eq!(scale.window(1), Duration::from_secs(60));
        assert_eq!(Scale { factor: 10 }.window(2), Duration::from_secs(720));
    }

    fn run(cpu_seconds: f64, status_reads_per_onu: f64) -> ScaledRun {
        ScaledRun {
            hours: 1,
            window_seconds: 60.0,
            cpu_seconds,
            status_reads_per_onu,
            status_reads_expected: 60.0,
            idle_cpu_per_second: 0.01,
        }
    }

    #[test]
    fn cpu_per_hour_adds_the_idle_rest_of_the_hour_and_makes_up_for_falling_behind() {
        // Kept up: the window's CPU plus 3,540 idle seconds at 10 ms a second.
        let kept_up = run(30.0, 60.0);
        assert_eq!(kept_up.keep_up_factor(), 1.0);
        assert!((cpu_per_hour(&kept_up) - 65.4).abs() < 1e-9);
        // Made more status reads than a perfect schedule (rounding): never scaled down.
        assert_eq!(run(30.0, 61.0).keep_up_factor(), 1.0);
        // Half the status reads it should have made: as if it had done them all.
        let behind = run(30.0, 30.0);
        assert_eq!(behind.keep_up_factor(), 2.0);
        assert!((cpu_per_hour(&behind) - 95.4).abs() < 1e-9);
        // Two real hours in the window: per hour.
        let two = ScaledRun {
            hours: 2,
            window_seconds: 120.0,
            ..kept_up
        };
        assert!((cpu_per_hour(&two) - (30.0 + 0.01 * 7080.0) / 2.0).abs() < 1e-9);
    }

    #[test]
    fn optics_bounds_allow_one_read_per_interval_and_one_at_the_window_edge() {
        let quarter = Duration::from_secs(15);
        // A 60 s window of 15 s intervals: reads at 0, 15, 30, 45, 60 at most.
        let bounds = optics_read_bounds(60.0, 60.2, quarter);
        assert_eq!(bounds.max_allowed, 5);
        assert_eq!(bounds.min_required, 4);
        assert_eq!(bounds.min_by_design, 3);
        // Not a whole number of intervals: ⌈W / I⌉, not one more.
        assert_eq!(optics_read_bounds(50.0, 50.0, quarter).max_allowed, 4);
        assert_eq!(optics_read_bounds(50.0, 50.0, quarter).min_required, 3);
        // The inner window sets the minimum, the outer one the maximum.
        let edge = optics_read_bounds(59.9, 60.1, quarter);
        assert_eq!((edge.min_required, edge.max_allowed), (3, 5));
        // ZTE's hour in a one-hour window: one read required, two allowed.
        let zte = optics_read_bounds(3600.0, 3600.0, Duration::from_secs(3600));
        assert_eq!(
            (zte.min_required, zte.min_by_design, zte.max_allowed),
            (1, 0, 2)
        );
    }

    fn olt(id: u32, optics: (u32, u32, u64), peak: u32) -> OltStats {
        OltStats {
            id,
            requests: 10,
            peak_requests_per_second: peak,
            onu_status_reads: ReadSpread {
                min: 60,
                max: 61,
                total: 60 * 4 + 1,
            },
            onu_optics_reads: ReadSpread {
                min: optics.0,
                max: optics.1,
                total: optics.2,
            },
        }
    }

    #[test]
    fn reads_are_summed_per_vendor_with_the_extremes_of_its_olts() {
        let stats = FleetStats {
            olts: vec![
                olt(1, (3, 5, 16), 7),
                olt(2, (1, 2, 6), 3),
                olt(3, (4, 4, 16), 9),
                olt(4, (0, 9, 9), 1),
            ],
        };
        let vendor_of = |id: u32| match id {
            1 | 3 => Some(Vendor::Huawei),
            2 => Some(Vendor::Zte),
            _ => None,
        };
        let reads = vendor_reads(&stats, 4, vendor_of);
        assert_eq!(reads.len(), 2);
        let huawei = reads["huawei"];
        assert_eq!((huawei.olts, huawei.onus), (2, 8));
        assert_eq!((huawei.optics_min, huawei.optics_max), (3, 5));
        assert_eq!(huawei.optics_total, 32);
        assert_eq!((huawei.status_min, huawei.status_max), (60, 61));
        assert_eq!(huawei.peak_requests_per_second, 9);
        assert_eq!(reads["zte"].optics_min, 1);
    }
}
