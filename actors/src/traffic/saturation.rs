//! Saturated PON ports: a port whose traffic stays at or above a share of its capacity
//! (either way) for a while is saturated — its subscribers share a full line, whatever
//! their own plans say — and is so until a read finds it below the share again. The OLT
//! actor keeps a [`SaturationWatch`] and feeds it each port's traffic after every
//! `traffic` read; what changes becomes `PON_PORT_SATURATED` and
//! `PON_PORT_SATURATION_CLEARED` events (docs/events.md), and the first an alarm.

use super::PortTraffic;
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::time::Duration;

/// When a port is saturated (`[events] port_saturation_share` and `port_saturation_for`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SaturationRule {
    /// The share of the port's capacity, either way, that counts as full.
    pub share: f64,
    /// How long it must stay so.
    pub after: Duration,
}

impl Default for SaturationRule {
    fn default() -> Self {
        SaturationRule {
            share: 0.9,
            after: Duration::from_secs(15 * 60),
        }
    }
}

/// A port that became saturated, or stopped being so.
#[derive(Debug, Clone, PartialEq)]
pub struct SaturationChange {
    pub port: String,
    pub saturated: bool,
    /// The busier direction's share of its capacity at this read (0 when the read gave
    /// no rate).
    pub utilisation: f64,
    /// `in` (from the ONUs) or `out` (to them): the busier way.
    pub direction: &'static str,
    /// Since when it has been at or above the share (for a clear: when that began).
    pub since: DateTime<Utc>,
}

#[derive(Debug, Clone, Default)]
struct PortState {
    above_since: Option<DateTime<Utc>>,
    saturated: bool,
}

/// Each port's way towards saturation, by port name.
#[derive(Debug, Clone, Default)]
pub struct SaturationWatch {
    ports: HashMap<String, PortState>,
}

impl SaturationWatch {
    /// Folds in the ports' traffic of a read made at `at`; answers what changed.
    pub fn observe(
        &mut self,
        ports: &[PortTraffic],
        rule: &SaturationRule,
        at: DateTime<Utc>,
    ) -> Vec<SaturationChange> {
        let after = chrono::Duration::from_std(rule.after).unwrap_or(chrono::Duration::MAX);
        let mut changes = Vec::new();
        for port in ports {
            let (utilisation, direction) = busier(port);
            let state = self.ports.entry(port.port.clone()).or_default();
            let change = |saturated, since| SaturationChange {
                port: port.port.clone(),
                saturated,
                utilisation,
                direction,
                since,
            };
            if utilisation >= rule.share {
                let since = *state.above_since.get_or_insert(at);
                if !state.saturated && at - since >= after {
                    state.saturated = true;
                    changes.push(change(true, since));
                }
            } else {
                let since = state.above_since.take();
                if std::mem::take(&mut state.saturated) {
                    changes.push(change(false, since.unwrap_or(at)));
                }
            }
        }
        changes
    }
}

/// The busier direction's share of its capacity, and which it is.
fn busier(port: &PortTraffic) -> (f64, &'static str) {
    let share = |bps: Option<f64>, capacity: f64| match (bps, capacity > 0.0) {
        (Some(bps), true) => bps / capacity,
        _ => 0.0,
    };
    let up = share(port.in_bps, port.in_capacity_bps);
    let down = share(port.out_bps, port.out_capacity_bps);
    if up > down {
        (up, "in")
    } else {
        (down, "out")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn port(out_bps: Option<f64>) -> PortTraffic {
        PortTraffic {
            port: "0/1/0".into(),
            in_bps: Some(1e6),
            out_bps,
            in_capacity_bps: 1.24416e9,
            out_capacity_bps: 2.48832e9,
        }
    }

    fn minute(n: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 26, 20, 0, 0)
            .single()
            .expect("time")
            + chrono::Duration::minutes(n)
    }

    #[test]
    fn a_port_full_for_the_rule_time_is_saturated_once_and_cleared_once() {
        let rule = SaturationRule::default();
        let mut watch = SaturationWatch::default();
        let full = port(Some(2.4e9));
        // Full at 0, 5 and 10 minutes: not yet fifteen.
        for n in [0, 5, 10] {
            assert!(watch
                .observe(std::slice::from_ref(&full), &rule, minute(n))
                .is_empty());
        }
        let changes = watch.observe(std::slice::from_ref(&full), &rule, minute(15));
        assert_eq!(changes.len(), 1);
        let change = &changes[0];
        assert!(change.saturated && change.direction == "out" && change.since == minute(0));
        assert!((change.utilisation - 2.4e9 / 2.48832e9).abs() < 1e-9);
        // Still full: nothing new.
        assert!(watch
            .observe(std::slice::from_ref(&full), &rule, minute(20))
            .is_empty());
        // A read without a rate is below the share: cleared, naming when it began.
        let cleared = watch.observe(&[port(None)], &rule, minute(25));
        assert_eq!(cleared.len(), 1);
        assert!(!cleared[0].saturated && cleared[0].since == minute(0));
        assert!(watch.observe(&[port(None)], &rule, minute(30)).is_empty());
    }

    #[test]
    fn a_dip_below_the_share_starts_the_time_again() {
        let rule = SaturationRule::default();
        let mut watch = SaturationWatch::default();
        let full = [port(Some(2.4e9))];
        watch.observe(&full, &rule, minute(0));
        watch.observe(&full, &rule, minute(10));
        assert!(watch
            .observe(&[port(Some(1e9))], &rule, minute(12))
            .is_empty());
        assert!(
            watch.observe(&full, &rule, minute(15)).is_empty(),
            "restarted at 15"
        );
        assert!(watch.observe(&full, &rule, minute(29)).is_empty());
        assert_eq!(watch.observe(&full, &rule, minute(30)).len(), 1);
    }
}
