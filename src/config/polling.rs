//! `[polling]`: the intervals of the poll groups (docs/polling.md) and how hard one OLT
//! and the fleet are polled, with the checks that refuse a zero interval or count.

use anyhow::bail;
use serde::{Deserialize, Serialize};
use std::time::Duration;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Polling {
    /// The status group (ONU run state): every poll reads it (docs/polling.md).
    #[serde(with = "humantime_serde")]
    pub status_interval: Duration,
    /// Serials, descriptions, distances.
    #[serde(with = "humantime_serde")]
    pub identity_interval: Duration,
    /// Each ONU's optics (an OMCI query per ONU); unset takes the vendor's default.
    #[serde(
        default,
        with = "humantime_serde",
        skip_serializing_if = "Option::is_none"
    )]
    pub optics_interval: Option<Duration>,
    /// The OLT's ports and VLANs.
    #[serde(with = "humantime_serde")]
    pub olt_interval: Duration,
    /// Per-ONU traffic counters, from which the rates are computed.
    #[serde(with = "humantime_serde")]
    pub traffic_interval: Duration,
    /// The MACs behind each ONU (docs/polling.md, the `macs` group).
    #[serde(with = "humantime_serde", default = "default_macs_interval")]
    pub macs_interval: Duration,
    /// Requests a second one OLT is sent at most; unset takes the vendor's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_requests_per_second: Option<u32>,
    /// Deprecated: the old name of `status_interval`, still read.
    #[serde(
        default,
        with = "humantime_serde",
        skip_serializing_if = "Option::is_none"
    )]
    pub interval: Option<Duration>,
    /// One SNMP request.
    #[serde(with = "humantime_serde")]
    pub timeout: Duration,
    pub retries: u32,
    /// A whole poll; past it the poll is aborted and fails.
    #[serde(with = "humantime_serde")]
    pub deadline: Duration,
    pub offline_after: u32,
    /// Polls in flight across all OLTs.
    pub concurrency: u32,
    /// Varbinds asked for in one GETBULK (split across the columns walked together).
    pub bulk_varbinds: u32,
    /// How much lower than the API's the priority of the poll threads is (a nice value
    /// added to theirs, 0–19; 0 polls on the API's own threads).
    pub worker_nice: i32,
}

impl Polling {
    /// Checks `[polling]`: intervals above zero, counts at least one.
    pub(super) fn validate(&self) -> anyhow::Result<()> {
        let p = self;
        let intervals = [
            ("status_interval", Some(p.status_interval)),
            ("identity_interval", Some(p.identity_interval)),
            ("optics_interval", p.optics_interval),
            ("olt_interval", Some(p.olt_interval)),
            ("traffic_interval", Some(p.traffic_interval)),
            ("macs_interval", Some(p.macs_interval)),
            ("timeout", Some(p.timeout)),
            ("deadline", Some(p.deadline)),
        ];
        for (key, value) in intervals {
            if value.is_some_and(|v| v.is_zero()) {
                bail!("key `polling.{key}`: must be above zero");
            }
        }
        if p.max_requests_per_second == Some(0) {
            bail!("key `polling.max_requests_per_second`: must be at least 1");
        }
        if p.offline_after == 0 {
            bail!("key `polling.offline_after`: must be at least 1");
        }
        if p.concurrency == 0 {
            bail!("key `polling.concurrency`: must be at least 1");
        }
        if p.bulk_varbinds == 0 || p.bulk_varbinds > 2000 {
            bail!("key `polling.bulk_varbinds`: must be between 1 and 2000");
        }
        if !(0..=19).contains(&p.worker_nice) {
            bail!("key `polling.worker_nice`: must be between 0 and 19");
        }
        Ok(())
    }
}

impl Default for Polling {
    fn default() -> Self {
        Polling {
            status_interval: Duration::from_secs(60),
            identity_interval: Duration::from_secs(15 * 60),
            optics_interval: None,
            olt_interval: Duration::from_secs(15 * 60),
            traffic_interval: Duration::from_secs(5 * 60),
            macs_interval: default_macs_interval(),
            max_requests_per_second: None,
            interval: None,
            timeout: Duration::from_secs(2),
            retries: 1,
            deadline: Duration::from_secs(30),
            offline_after: 3,
            concurrency: 256,
            bulk_varbinds: 256,
            worker_nice: 10,
        }
    }
}

/// The `macs` group's interval when `[polling]` names none: 15 minutes.
fn default_macs_interval() -> Duration {
    Duration::from_secs(15 * 60)
}
