//! What an ONU table remembers of each ONU's last stored optics point, to store the next
//! only when it is due (the history step passed, or the level changed).

use crate::domain::OpticsLevel;
use chrono::{DateTime, Utc};

/// An ONU's last stored optics point, packed in eight bytes: its time in Unix milliseconds
/// (from 1970 on) times four, plus its level. A `(DateTime, OpticsLevel)` made each pair
/// of `OnuTable::last_point` 24 bytes instead of 16: 10 MB of a national fleet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct LastPoint(u64);

impl LastPoint {
    const LEVELS: [OpticsLevel; 4] = [
        OpticsLevel::Ok,
        OpticsLevel::Warning,
        OpticsLevel::Critical,
        OpticsLevel::Unknown,
    ];

    pub(super) fn new(at: DateTime<Utc>, level: OpticsLevel) -> LastPoint {
        let millis = u64::try_from(at.timestamp_millis()).unwrap_or(0);
        let bits = Self::LEVELS.iter().position(|l| *l == level).unwrap_or(3) as u64;
        LastPoint(millis << 2 | bits)
    }

    pub(super) fn at_millis(self) -> i64 {
        i64::try_from(self.0 >> 2).unwrap_or(i64::MAX)
    }

    pub(super) fn level(self) -> OpticsLevel {
        Self::LEVELS[(self.0 & 3) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn keeps_the_millisecond_and_the_level() {
        let at = Utc
            .timestamp_millis_opt(1_800_000_123_456)
            .single()
            .expect("time");
        for level in LastPoint::LEVELS {
            let point = LastPoint::new(at, level);
            assert_eq!(
                (point.at_millis(), point.level()),
                (1_800_000_123_456, level)
            );
        }
    }
}
