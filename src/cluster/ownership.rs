//! Who serves an OLT: rendezvous (highest random weight) hashing. Each OLT goes to the
//! live member with the highest weight of (member name, OLT id), so every member computes
//! the same owner from the same list of members with no coordinator, and when a member
//! leaves or returns only its own OLTs move. [`Membership`] is one member's view of the
//! others: when each last answered, whether it has polled its own OLTs yet, and from that
//! two things on two clocks. Ownership is patient: a peer is in sight, and live, while it
//! has answered within `takeover_after`, so a member's OLTs do not move on a short
//! silence. The quorum is what is heard now: a peer counts toward it only while its
//! heartbeats arrive, within the quorum window (a few heartbeats,
//! [`super::config::ClusterConfig::quorum_window`]), so a member that loses its peers
//! stops acting and writing within seconds, not after `takeover_after`.

use ponkeeper_actors::domain::OltId;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

/// The weight of `member` for `olt`: the first 8 bytes of SHA-256 over the name, a zero
/// byte and the id. Stable across versions and platforms, which the members rely on.
pub fn weight(member: &str, olt: OltId) -> u64 {
    let mut hash = Sha256::new();
    hash.update(member.as_bytes());
    hash.update([0]);
    hash.update(olt.to_be_bytes());
    let digest = hash.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
}

/// The member of `members` with the highest weight for `olt` (ties, never seen in
/// practice, go to the greater name).
pub fn owner<'a>(members: impl IntoIterator<Item = &'a str>, olt: OltId) -> Option<&'a str> {
    members
        .into_iter()
        .max_by_key(|member| (weight(member, olt), *member))
}

/// What this member knows of another.
#[derive(Debug, Clone, Default)]
pub struct PeerState {
    /// When it last answered a heartbeat or sent one.
    pub last_seen: Option<Instant>,
    /// Whether every OLT it runs has finished a poll (so others may hand it its own).
    pub ready: bool,
    /// How many OLT actors it runs.
    pub olts: usize,
    /// Its id block, as it reports it.
    pub id_block: Option<u16>,
    /// The round trip of the last heartbeat this member asked it.
    pub round_trip: Option<Duration>,
}

/// One member's view of the cluster.
#[derive(Debug)]
pub struct Membership {
    me: String,
    started: Instant,
    takeover_after: Duration,
    /// How recent a peer's last answer must be for it to count toward the quorum.
    quorum_window: Duration,
    peers: BTreeMap<String, PeerState>,
}

impl Membership {
    /// `me` among `peers`; a silent peer loses its OLTs after `takeover_after`, and
    /// counts toward the quorum only while it answered within `quorum_window`.
    pub fn new(
        me: &str,
        peers: impl IntoIterator<Item = String>,
        (takeover_after, quorum_window): (Duration, Duration),
    ) -> Self {
        Membership {
            me: me.to_string(),
            started: Instant::now(),
            takeover_after,
            quorum_window,
            peers: peers
                .into_iter()
                .map(|p| (p, PeerState::default()))
                .collect(),
        }
    }

    pub fn me(&self) -> &str {
        &self.me
    }

    pub fn takeover_after(&self) -> Duration {
        self.takeover_after
    }

    pub fn quorum_window(&self) -> Duration {
        self.quorum_window
    }

    /// Every configured member but this one, by name.
    pub fn peers(&self) -> &BTreeMap<String, PeerState> {
        &self.peers
    }

    /// `name` was alive at `at` (it answered a question sent then); a name not configured
    /// is ignored (and `false`). A sighting older than the last one keeps the last.
    pub fn seen(&mut self, name: &str, at: Instant, update: impl FnOnce(&mut PeerState)) -> bool {
        self.update(name, |peer| {
            peer.last_seen = Some(peer.last_seen.map_or(at, |last| last.max(at)));
            update(peer);
        })
    }

    /// What `name` says of itself, without counting it as a sighting; a name not
    /// configured is ignored (and `false`).
    pub fn update(&mut self, name: &str, update: impl FnOnce(&mut PeerState)) -> bool {
        match self.peers.get_mut(name) {
            Some(peer) => {
                update(peer);
                true
            }
            None => false,
        }
    }

    /// Whether `peer` has answered within `takeover_after` (for ownership).
    fn in_sight(&self, peer: &PeerState, now: Instant) -> bool {
        answered_within(peer, now, self.takeover_after)
    }

    /// Whether `peer` has answered within the quorum window: its heartbeats arrive now.
    fn heard(&self, peer: &PeerState, now: Instant) -> bool {
        answered_within(peer, now, self.quorum_window)
    }

    /// Whether `peer` counts for ownership: in sight, or never seen while this member is
    /// younger than `takeover_after` (a member starting does not take its peers' OLTs
    /// before they had the time to say they are there).
    fn live(&self, peer: &PeerState, now: Instant) -> bool {
        self.in_sight(peer, now)
            || (peer.last_seen.is_none()
                && now.saturating_duration_since(self.started) < self.takeover_after)
    }

    /// The members OLTs are shared among now: this one and the live peers.
    pub fn live_members(&self, now: Instant) -> Vec<&str> {
        let mut live: Vec<&str> = self
            .peers
            .iter()
            .filter(|(_, p)| self.live(p, now))
            .map(|(n, _)| n.as_str())
            .collect();
        live.push(&self.me);
        live
    }

    /// Whether every peer that counts for ownership has answered: what this member
    /// can ask of the cluster now is all there is to ask.
    pub fn live_in_sight(&self, now: Instant) -> bool {
        self.peers
            .values()
            .all(|p| !self.live(p, now) || self.in_sight(p, now))
    }

    /// Whether the peer named `name` is in sight now (for ownership).
    pub fn peer_in_sight(&self, name: &str, now: Instant) -> bool {
        self.peers.get(name).is_some_and(|p| self.in_sight(p, now))
    }

    /// Whether the peer named `name` counts toward the quorum now.
    pub fn peer_heard(&self, name: &str, now: Instant) -> bool {
        self.peers.get(name).is_some_and(|p| self.heard(p, now))
    }

    /// `Ok` when this member hears a strict majority of the configured members (itself
    /// included) within the quorum window, else the peers it does not hear.
    pub fn quorum(&self, now: Instant) -> Result<(), Vec<String>> {
        let members = self.peers.len() + 1;
        let heard = 1 + self.peers.values().filter(|p| self.heard(p, now)).count();
        if heard * 2 > members {
            return Ok(());
        }
        Err(self
            .peers
            .iter()
            .filter(|(_, p)| !self.heard(p, now))
            .map(|(n, _)| n.clone())
            .collect())
    }

    /// The member that owns `olt` now.
    pub fn owner_of(&self, olt: OltId, now: Instant) -> String {
        owner(self.live_members(now), olt)
            .unwrap_or(&self.me)
            .to_string()
    }

    /// The OLTs of `inventory` this member should run: its own, and any it runs whose new
    /// owner has not polled its OLTs yet (hand-over: the old owner stops only after).
    pub fn to_run(
        &self,
        inventory: impl IntoIterator<Item = OltId>,
        running: &BTreeSet<OltId>,
        now: Instant,
    ) -> BTreeSet<OltId> {
        let live = self.live_members(now);
        inventory
            .into_iter()
            .filter(|&olt| {
                let owner = owner(live.iter().copied(), olt).unwrap_or(&self.me);
                owner == self.me
                    || (running.contains(&olt) && self.peers.get(owner).is_some_and(|p| !p.ready))
            })
            .collect()
    }
}

/// Whether `peer` answered a question sent less than `window` before `now`.
fn answered_within(peer: &PeerState, now: Instant, window: Duration) -> bool {
    peer.last_seen
        .is_some_and(|seen| now.saturating_duration_since(seen) < window)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `me` of a, b and c: OLTs move after 2 s of silence, the quorum hears 500 ms back.
    fn three(me: &str) -> Membership {
        let peers = ["a", "b", "c"]
            .into_iter()
            .filter(|n| *n != me)
            .map(String::from);
        let times = (Duration::from_secs(2), Duration::from_millis(500));
        Membership::new(me, peers, times)
    }

    #[test]
    fn every_member_computes_the_same_owner_and_shares_are_even() {
        let members = ["a", "b", "c"];
        let mut counts = BTreeMap::new();
        for olt in 0..3000 {
            let first = owner(members, olt).expect("an owner");
            let reversed = owner(members.iter().rev().copied(), olt).expect("an owner");
            assert_eq!(first, reversed, "the order of members does not matter");
            *counts.entry(first).or_insert(0) += 1;
        }
        for (member, count) in counts {
            assert!(
                (800..1200).contains(&count),
                "{member} owns {count} of 3000"
            );
        }
    }

    #[test]
    fn a_member_leaving_moves_only_its_own_olts() {
        for olt in 0..2000 {
            let before = owner(["a", "b", "c"], olt).expect("owner");
            let after = owner(["a", "b"], olt).expect("owner");
            if before != "c" {
                assert_eq!(before, after, "OLT {olt} moved though its owner stayed");
            }
        }
    }

    #[test]
    fn only_sightings_count_and_an_older_one_keeps_the_last() {
        let mut view = three("a");
        let start = Instant::now();
        let later = start + Duration::from_secs(3);
        assert!(view.update("b", |p| p.ready = true));
        assert!(view.update("c", |p| p.ready = true));
        assert!(
            view.quorum(start).is_err(),
            "what a peer says is no sighting"
        );
        assert!(view.peers()["b"].ready, "but what it says is kept");
        view.seen("b", later, |_| {});
        // An answer read late, to a question sent before the last sighting.
        view.seen("b", start, |_| {});
        assert!(view.peer_in_sight("b", later + Duration::from_secs(1)));
        assert!(!view.update("z", |_| {}), "not a configured member");
    }

    #[test]
    fn a_silent_peer_loses_its_olts_after_takeover_and_quorum_needs_a_majority() {
        let mut view = three("a");
        let start = Instant::now();
        assert_eq!(
            view.live_members(start).len(),
            3,
            "unseen peers count at first"
        );
        assert!(view.quorum(start).is_err(), "but they are not in sight");
        view.seen("b", start, |p| p.ready = true);
        view.seen("c", start, |p| p.ready = true);
        assert!(view.quorum(start).is_ok());
        let later = start + Duration::from_secs(3);
        view.seen("b", later, |_| {});
        assert_eq!(view.live_members(later), vec!["b", "a"]);
        assert!(view.quorum(later).is_ok(), "two of three in sight");
        let c_olts: Vec<OltId> = (0..100)
            .filter(|&o| owner(["a", "b", "c"], o) == Some("c"))
            .collect();
        assert!(!c_olts.is_empty());
        for olt in &c_olts {
            assert_ne!(view.owner_of(*olt, later), "c");
        }
        let alone = later + Duration::from_secs(3);
        assert_eq!(view.quorum(alone), Err(vec!["b".into(), "c".into()]));
        assert!(
            !view.seen("z", alone, |_| {}),
            "an unknown name is not a member"
        );
    }

    #[test]
    fn the_quorum_hears_only_recent_answers_while_ownership_waits_for_takeover() {
        let mut view = three("a");
        let start = Instant::now();
        view.seen("b", start, |p| p.ready = true);
        view.seen("c", start, |p| p.ready = true);
        assert!(view.quorum(start).is_ok());
        // Both silent past the quorum window, well within `takeover_after`.
        let quiet = start + Duration::from_millis(800);
        assert_eq!(view.quorum(quiet), Err(vec!["b".into(), "c".into()]));
        assert!(!view.peer_heard("b", quiet));
        assert!(view.peer_in_sight("b", quiet), "in sight for ownership");
        assert_eq!(view.live_members(quiet).len(), 3, "no OLT moves yet");
        let c_olt = (0..100)
            .find(|&o| owner(["a", "b", "c"], o) == Some("c"))
            .expect("an OLT of c");
        assert_eq!(view.owner_of(c_olt, quiet), "c");
        // b answers again: two of three heard, until b falls silent in turn.
        view.seen("b", quiet, |_| {});
        assert!(view.quorum(quiet + Duration::from_millis(400)).is_ok());
        assert!(view.peer_heard("b", quiet + Duration::from_millis(400)));
        assert_eq!(
            view.quorum(quiet + Duration::from_millis(600)),
            Err(vec!["b".into(), "c".into()])
        );
    }

    #[test]
    fn one_of_two_has_no_quorum_once_the_other_is_not_heard() {
        let mut view = Membership::new(
            "a",
            ["b".to_string()],
            (Duration::from_secs(120), Duration::from_secs(3)),
        );
        let start = Instant::now();
        view.seen("b", start, |p| p.ready = true);
        assert!(view.quorum(start).is_ok(), "two of two");
        let later = start + Duration::from_secs(4);
        assert_eq!(view.quorum(later), Err(vec!["b".into()]));
        assert_eq!(view.live_members(later), vec!["b", "a"], "b keeps its OLTs");
    }

    #[test]
    fn olts_go_back_only_when_their_owner_has_polled() {
        let mut view = three("a");
        let start = Instant::now();
        let later = start + Duration::from_secs(3);
        view.seen("b", later, |p| p.ready = true);
        let all: Vec<OltId> = (0..60).collect();
        // c silent: a runs its own and some of c's.
        let running = view.to_run(all.clone(), &BTreeSet::new(), later);
        let c_olts: BTreeSet<OltId> = all
            .iter()
            .copied()
            .filter(|&o| owner(["a", "b", "c"], o) == Some("c"))
            .collect();
        let adopted: BTreeSet<OltId> = running.intersection(&c_olts).copied().collect();
        assert!(!adopted.is_empty(), "a took over some of c's OLTs");
        // c is back but has not polled yet: a keeps them.
        view.seen("c", later, |p| p.ready = false);
        let kept = view.to_run(all.clone(), &running, later);
        assert!(adopted.is_subset(&kept));
        // c has polled: a lets them go and keeps exactly its own.
        view.seen("c", later, |p| p.ready = true);
        let own = view.to_run(all.clone(), &running, later);
        assert!(own.is_disjoint(&c_olts));
        assert!(own.iter().all(|&o| owner(["a", "b", "c"], o) == Some("a")));
    }
}
