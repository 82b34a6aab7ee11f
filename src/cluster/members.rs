//! What members say of themselves at each heartbeat ([`Status`]), and how a member notes
//! what another said into its membership. The heartbeat itself is
//! [`crate::member`]'s.

use super::ownership::PeerState;
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

/// Notes another member's status (JSON text) and says whose it was. `answer` is when this
/// member asked and how long the answer took, for a status that answers its own
/// question: only that counts as a sighting, dated when the question was sent. A question
/// from the other member proves nothing about when it was alive: one read after this
/// member was paused (a stopped process, a stalled VM) may have waited in the socket
/// while its sender died. A status that does not parse, or from a name not configured,
/// is logged and `None`.
pub(crate) fn heard(
    shared: &ClusterShared,
    text: &str,
    answer: Option<(Instant, Duration)>,
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
    let says = |peer: &mut PeerState| {
        peer.ready = status.ready;
        peer.olts = status.olts;
        peer.id_block = Some(status.id_block);
    };
    let known = match answer {
        Some((asked, took)) => shared.membership().seen(&status.name, asked, |peer| {
            says(peer);
            peer.round_trip = Some(took);
        }),
        None => shared.membership().update(&status.name, says),
    };
    if !known {
        tracing::warn!(member = %status.name, "a process not in [cluster] peers joined the group; ignored");
        return None;
    }
    Some(status.name)
}
