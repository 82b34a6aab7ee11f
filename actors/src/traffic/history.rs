//! Stored traffic history, as the service reads it: one [`TrafficPoint`] per ONU per read
//! of the `traffic` group that gave a rate (the store keeps them as a series,
//! [`crate::store::traffic`]; buckets of a step and rollups are
//! [`crate::store::series::rollup`]'s).

use chrono::{DateTime, Utc};

/// One ONU's rates at one read of its counters, as stored: either may be `None` (a
/// layout with one counter only), never both.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TrafficPoint {
    pub at: DateTime<Utc>,
    /// Bits a second from the ONU (upstream) since the read before.
    pub in_bps: Option<f64>,
    /// Bits a second to the ONU (downstream).
    pub out_bps: Option<f64>,
}
