//! An OLT's own polling (`poll = { optics = "30m" }` in its `[[olts]]` entry): the
//! intervals of its poll groups and its request rate, where they differ from `[polling]`
//! and the vendor's defaults (docs/polling.md). A fragile OLT gets a slower pace here
//! without slowing the fleet.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The `poll` table of an OLT; every key is optional.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PollOverrides {
    #[serde(
        default,
        with = "humantime_serde",
        skip_serializing_if = "Option::is_none"
    )]
    pub status: Option<Duration>,
    #[serde(
        default,
        with = "humantime_serde",
        skip_serializing_if = "Option::is_none"
    )]
    pub identity: Option<Duration>,
    #[serde(
        default,
        with = "humantime_serde",
        skip_serializing_if = "Option::is_none"
    )]
    pub optics: Option<Duration>,
    #[serde(
        default,
        with = "humantime_serde",
        skip_serializing_if = "Option::is_none"
    )]
    pub olt: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_requests_per_second: Option<u32>,
}

impl PollOverrides {
    /// Whether the table sets nothing (it is then left out of the written inventory).
    pub fn is_empty(&self) -> bool {
        *self == PollOverrides::default()
    }

    /// Why the table cannot be used: a zero interval or rate.
    pub fn check(&self) -> Result<(), String> {
        let intervals = [
            ("status", self.status),
            ("identity", self.identity),
            ("optics", self.optics),
            ("olt", self.olt),
        ];
        for (key, interval) in intervals {
            if interval.is_some_and(|i| i.is_zero()) {
                return Err(format!("field `poll.{key}`: must be above zero"));
            }
        }
        if self.max_requests_per_second == Some(0) {
            return Err("field `poll.max_requests_per_second`: must be above zero".into());
        }
        Ok(())
    }
}
