//! Realistic simulated history values, for the measurements of the series (block codecs,
//! rollups, `ponkeeper bench history`): an ONU's 5-minute traffic rates as the poll
//! computes them (octets × 8 / seconds, so whole multiples of 8/300 bit/s) with a
//! household's evening peak around 21:00 UTC, random bursts to 200 Mbit/s in one read of
//! twenty, and idle stretches of a few kbit/s of management traffic, one ONU in five idle
//! all day; and an ONU's optics Rx every 15 minutes, a fixed level between −20 and −27 dBm
//! with ±0.02 dB of jitter. Deterministic (xorshift, seeded by ONU), so every run of a
//! measurement sees the same values.

/// A small deterministic generator (xorshift), so the measurements need no crate.
#[derive(Debug, Clone)]
pub struct Noise(u64);

impl Noise {
    pub fn new(seed: u64) -> Noise {
        Noise(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// An ONU's 5-minute rates one way, read after read from a UTC midnight on (an endless
/// iterator: a year of them need not be held at once).
#[derive(Debug, Clone)]
pub struct Rates {
    noise: Noise,
    idle: bool,
    read: usize,
}

impl Rates {
    /// The rates of ONU `onu` (the seed: the other way of the same ONU takes another).
    pub fn new(onu: u64) -> Rates {
        Rates {
            noise: Noise::new(onu),
            idle: onu % 5 == 0,
            read: 0,
        }
    }
}

impl Iterator for Rates {
    type Item = f32;

    fn next(&mut self) -> Option<f32> {
        let hour = (self.read % 288) as f64 / 12.0;
        self.read += 1;
        let evening = (-(hour - 21.0).powi(2) / 8.0).exp();
        let busy = if self.idle { 0.0 } else { 2e6 + 60e6 * evening };
        let burst = if self.noise.unit() < 0.05 { 200e6 } else { 0.0 };
        let noise = &mut self.noise;
        let octets = ((busy + burst) * noise.unit() + 4_000.0 * noise.unit()) * 300.0 / 8.0;
        Some((octets.round() * 8.0 / 300.0) as f32)
    }
}

/// The first `points` of [`Rates`] of ONU `onu`.
pub fn realistic_rates(onu: u64, points: usize) -> Vec<f32> {
    Rates::new(onu).take(points).collect()
}

/// An ONU's optics Rx every 15 minutes, centi-dBm (an endless iterator).
#[derive(Debug, Clone)]
pub struct Rx {
    noise: Noise,
    level: i32,
}

impl Rx {
    pub fn new(onu: u64) -> Rx {
        Rx {
            noise: Noise::new(onu),
            level: -2_000 - (onu % 700) as i32,
        }
    }
}

impl Iterator for Rx {
    type Item = i32;

    fn next(&mut self) -> Option<i32> {
        Some(self.level + (self.noise.unit() * 5.0) as i32 - 2)
    }
}

/// The first `points` of [`Rx`] of ONU `onu`.
pub fn realistic_rx(onu: u64, points: usize) -> Vec<i32> {
    Rx::new(onu).take(points).collect()
}

/// An optics point at `at` as a poll records it, of Rx `rx` (centi-dBm): the other
/// readings steady (Tx 2.31 dBm, OLT Rx 2.5 dB above the ONU's, temperature stepping a
/// degree every 6 hours, voltage and bias fixed), level OK.
pub fn optics_point(at: chrono::DateTime<chrono::Utc>, rx: i32) -> crate::domain::OpticsPoint {
    use chrono::Timelike;
    crate::domain::OpticsPoint {
        at,
        rx_power: Some(f64::from(rx) / 100.0),
        tx_power: Some(2.31),
        olt_rx_power: Some(f64::from(rx + 250) / 100.0),
        temperature: Some(41.0 + f64::from(at.hour() / 6)),
        voltage: Some(3.28),
        bias_current: Some(12.5),
        level: crate::domain::OpticsLevel::Ok,
    }
}
