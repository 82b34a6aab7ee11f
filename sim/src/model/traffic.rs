//! The simulator's traffic model: each ONU's octet counters as a closed-form function of
//! the OLT's uptime, so the agent answers them at any instant without a ticker and a
//! restarted OLT starts them again from zero, as a real one does. Each ONU's mean rate
//! comes from its serial: most ONUs carry 0.5–5 Mb/s down on average and an eighth of
//! that up; one in [`HEAVY_ONE_IN`] is a heavy user at 60–100 Mb/s down and half of
//! that up. The rate follows a day-long curve ([`SWING`] either side of the mean), so
//! the counters never stall and never run backwards. 32-bit counters (the ZTE C320's)
//! wrap at 2^32, as the device's do; each starts near the top, as on an OLT up for long,
//! so that it first wraps 8–23 s after the simulator starts and a test sees it.

use std::f64::consts::TAU;

/// A day of the simulator's clock, in seconds.
const DAY: f64 = 86_400.0;
/// How far the day's curve swings either side of the mean (0.6: 40 % at night, 160 % at
/// the evening peak).
const SWING: f64 = 0.6;
/// One ONU in this many is a heavy user.
const HEAVY_ONE_IN: u64 = 16;

/// A 64-bit mix of an ONU's serial (SplitMix64's finaliser over its bytes).
fn mix(serial: &[u8; 8]) -> u64 {
    let mut z = u64::from_be_bytes(*serial).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The ONU's mean rates in octets a second: (upstream, downstream).
fn mean_rates(serial: &[u8; 8]) -> (f64, f64) {
    let hash = mix(serial);
    let unit = (hash >> 11) as f64 / (1u64 << 53) as f64;
    if hash % HEAVY_ONE_IN == 0 {
        let down = (60e6 + 40e6 * unit) / 8.0;
        (down / 2.0, down)
    } else {
        let down = (0.5e6 + 4.5e6 * unit) / 8.0;
        (down / 8.0, down)
    }
}

/// Seconds of mean-rate traffic in the first `t` seconds of uptime:
/// ∫₀ᵗ 1 + SWING·sin(2πs/DAY) ds.
fn curve(t: f64) -> f64 {
    let w = TAU / DAY;
    t + SWING / w * (1.0 - (w * t).cos())
}

/// Seconds of uptime at which the ONU's 32-bit counter first wraps: 8–23 s, its own
/// for each ONU and direction, so a poll sees a wrap soon after the simulator starts;
/// after that it wraps every 2^32 octets.
fn first_wrap(serial: &[u8; 8], inbound: bool) -> f64 {
    let shift = if inbound { 3 } else { 17 };
    8.0 + ((mix(serial) >> shift) % 16) as f64
}

/// The ONU's counter after `uptime` hundredths of a second: octets it sent (`inbound`,
/// what the OLT received) or received, as a `bits`-bit counter shows it.
pub(crate) fn counter(serial: &[u8; 8], uptime: u32, inbound: bool, bits: u32) -> u64 {
    let (up, down) = mean_rates(serial);
    let rate = if inbound { up } else { down };
    let octets = (rate * curve(f64::from(uptime) / 100.0)) as u64;
    match bits {
        32 => {
            let before_wrap = (rate * curve(first_wrap(serial, inbound))) as u64;
            let start = (1u64 << 32).wrapping_sub(before_wrap);
            octets.wrapping_add(start) & u64::from(u32::MAX)
        }
        _ => octets,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fastest mean rate an ONU has (down, bits a second); the curve's peak is
    /// `1 + SWING` times it.
    const MAX_MEAN_BPS: f64 = 100e6;

    #[test]
    fn counters_only_grow_and_rates_stay_within_the_model() {
        for n in 0..200u64 {
            let serial = (n * 7919).to_be_bytes();
            let mut last = 0;
            for step in 0..100u32 {
                let now = counter(&serial, step * 360_000, false, 64);
                assert!(now >= last);
                // An hour's mean rate stays within the curve's swing of the top mean.
                let bps = (now - last) as f64 * 8.0 / 3600.0;
                assert!(bps <= MAX_MEAN_BPS * (1.0 + SWING) * 1.001, "{bps}");
                last = now;
            }
        }
    }

    #[test]
    fn a_32_bit_counter_wraps_first_within_half_a_minute_then_every_2_pow_32() {
        for n in 0..200u64 {
            let serial = (n * 7919).to_be_bytes();
            for inbound in [true, false] {
                let at = |seconds: u32| counter(&serial, seconds * 100, inbound, 32);
                assert!(at(0) > at(30), "wrapped by 30 s");
                assert!(at(0) > u64::from(u32::MAX) / 2, "starts near the top");
                assert_eq!(counter(&serial, 0, inbound, 64), 0);
            }
        }
        let heavy = (0..10_000u64)
            .map(|n| (n * 7919).to_be_bytes())
            .find(|s| mix(s) % HEAVY_ONE_IN == 0)
            .expect("some heavy user");
        let values: Vec<u64> = (1..2_000u32)
            .map(|minute| counter(&heavy, minute * 6_000, false, 32))
            .collect();
        assert!(values.iter().all(|&v| v <= u64::from(u32::MAX)));
        assert!(
            values.windows(2).any(|w| w[1] < w[0]),
            "a heavy user wraps again"
        );
    }
}
