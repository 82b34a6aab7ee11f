//! What `GET /cluster` shows: the members as this one sees them, from the membership
//! its heartbeat keeps ([`super::ownership::Membership`]): who shares the OLTs (`live`,
//! `inSight`, over `takeoverAfterSeconds`) and who counts toward the quorum now
//! (`heard`, over the few heartbeats of `quorumWindowSeconds`).

use super::Cluster;
use serde::Serialize;
use std::time::Instant;
use utoipa::ToSchema;

/// The cluster as this member sees it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterItem {
    /// Whether this process is a member of a cluster (`[cluster]`); without one it serves
    /// every OLT of the inventory alone and `members` is empty.
    pub clustered: bool,
    /// This member's name.
    pub name: Option<String>,
    /// Whether this member hears a strict majority of the members (itself included)
    /// within `quorumWindowSeconds`: it runs actions and takes writes only then.
    pub quorum: bool,
    /// The silence after which a member's OLTs go to the others, in seconds.
    pub takeover_after_seconds: Option<f64>,
    /// How recently a member must have answered to count toward the quorum, in seconds:
    /// a few heartbeats.
    pub quorum_window_seconds: Option<f64>,
    /// Every configured member, this one included, by name.
    pub members: Vec<MemberItem>,
}

/// One member.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MemberItem {
    pub name: String,
    /// The member answering this request.
    pub this: bool,
    /// Counted in the OLTs' ownership now.
    pub live: bool,
    /// Heard within `takeoverAfterSeconds` (for ownership).
    pub in_sight: bool,
    /// Heard within `quorumWindowSeconds`: counts toward the quorum now.
    pub heard: bool,
    /// Every OLT it runs has finished a poll.
    pub ready: bool,
    /// OLT actors it runs, as it last said.
    pub olts: usize,
    /// The block it allocates ids in.
    pub id_block: Option<u16>,
    /// Seconds since it was last heard (`null`: never, or this member).
    pub last_seen_seconds_ago: Option<f64>,
    /// The round trip of the last heartbeat to it, in milliseconds.
    pub round_trip_ms: Option<f64>,
}

impl Cluster {
    /// The cluster as `GET /cluster` shows it; `running` is how many OLT actors this
    /// member runs.
    pub fn describe(&self, running: usize) -> ClusterItem {
        let Some(shared) = &self.shared else {
            return ClusterItem {
                clustered: false,
                name: None,
                quorum: true,
                takeover_after_seconds: None,
                quorum_window_seconds: None,
                members: Vec::new(),
            };
        };
        let now = Instant::now();
        let view = shared.membership();
        let live = view.live_members(now);
        let mut members: Vec<MemberItem> = view
            .peers()
            .iter()
            .map(|(name, peer)| MemberItem {
                name: name.clone(),
                this: false,
                live: live.contains(&name.as_str()),
                in_sight: view.peer_in_sight(name, now),
                heard: view.peer_heard(name, now),
                ready: peer.ready,
                olts: peer.olts,
                id_block: peer.id_block,
                last_seen_seconds_ago: peer
                    .last_seen
                    .map(|t| now.saturating_duration_since(t).as_secs_f64()),
                round_trip_ms: peer.round_trip.map(|d| d.as_secs_f64() * 1e3),
            })
            .collect();
        members.push(MemberItem {
            name: view.me().to_string(),
            this: true,
            live: true,
            in_sight: true,
            heard: true,
            ready: shared.ready.load(std::sync::atomic::Ordering::Acquire),
            olts: running,
            id_block: Some(shared.config.id_block()),
            last_seen_seconds_ago: None,
            round_trip_ms: None,
        });
        members.sort_by(|a, b| a.name.cmp(&b.name));
        ClusterItem {
            clustered: true,
            name: Some(view.me().to_string()),
            quorum: view.quorum(now).is_ok(),
            takeover_after_seconds: Some(view.takeover_after().as_secs_f64()),
            quorum_window_seconds: Some(view.quorum_window().as_secs_f64()),
            members,
        }
    }
}
