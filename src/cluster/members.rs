//! What members say of themselves at each heartbeat ([`Status`]), and how a member notes
//! what another said into its membership. The heartbeat itself is
//! [`crate::member`]'s.

use super::ClusterShared;
use serde::{Deserialize, Serialize};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// What a member says of itself at each heartbeat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub name: String,
    /// Every OLT it runs has finished a poll.
    pub ready: bool,
    /// OLT actors it runs.
    pub olts: usize,
    pub id_block: u16,
}

/// This member's status as JSON text.
pub(crate) fn status_of(shared: &ClusterShared) -> String {
    let status = Status {
        name: shared.config.name.clone(),
        ready: shared.ready.load(Ordering::Acquire),
        olts: shared.olts.load(Ordering::Acquire),
        id_block: shared.config.id_block(),
    };
    serde_json::to_string(&status).unwrap_or_default()
}

/// Notes another member's status (JSON text), heard now, with the round trip when this
/// member asked, and says whose it was. A status that does not parse, or from a name not
/// configured, is logged and `None`.
pub(crate) fn heard(
    shared: &ClusterShared,
    text: &str,
    round_trip: Option<Duration>,
) -> Option<String> {
    let Ok(status) = serde_json::from_str::<Status>(text) else {
        tracing::warn!("a cluster member sent a status that does not parse");
        return None;
    };
    if status.id_block == shared.config.id_block() && status.name != shared.config.name {
        tracing::error!(
            member = %status.name,
            id_block = status.id_block,
            "a cluster member allocates ids in this member's block; set `id_block` apart"
        );
    }
    let known = shared
        .membership()
        .seen(&status.name, Instant::now(), |peer| {
            peer.ready = status.ready;
            peer.olts = status.olts;
            peer.id_block = Some(status.id_block);
            if round_trip.is_some() {
                peer.round_trip = round_trip;
            }
        });
    if !known {
        tracing::warn!(member = %status.name, "a process not in [cluster] peers joined the group; ignored");
        return None;
    }
    Some(status.name)
}
