//! When each ONU of an OLT is next due an optics reading (the optics group is read per ONU,
//! a share of the table each poll: docs/polling.md). A turn is kept as milliseconds after
//! the first time the schedule was asked, eight bytes where an `Instant` takes sixteen:
//! 10 MB of a national fleet's 1.28 M ONUs. Every time handed in is the caller's `now` or
//! later, and `now` only moves forward, so no turn falls before the origin.

use crate::domain::OnuId;
use crate::sorted_map::OnuMap;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Default)]
pub(super) struct OpticsTurns {
    origin: Option<Instant>,
    /// Milliseconds after `origin`, by ONU.
    turns: OnuMap<u64>,
}

impl OpticsTurns {
    /// `at` in milliseconds after the origin, which the first `now` sets.
    fn millis(&mut self, now: Instant, at: Instant) -> u64 {
        let origin = *self.origin.get_or_insert(now);
        let millis = at.saturating_duration_since(origin).as_millis();
        u64::try_from(millis).unwrap_or(u64::MAX)
    }

    fn instant(&self, millis: u64) -> Option<Instant> {
        Some(self.origin? + Duration::from_millis(millis))
    }

    /// Gives ONU `id` the turn `first` makes, unless it has one.
    pub(super) fn get_or_insert_with(
        &mut self,
        id: OnuId,
        now: Instant,
        first: impl FnOnce() -> Instant,
    ) {
        if self.turns.get(id).is_none() {
            let at = self.millis(now, first());
            self.turns.insert(id, at);
        }
    }

    pub(super) fn contains(&self, id: OnuId) -> bool {
        self.turns.get(id).is_some()
    }

    pub(super) fn set(&mut self, id: OnuId, now: Instant, at: Instant) {
        let at = self.millis(now, at);
        self.turns.insert(id, at);
    }

    /// The ONUs due at `now`, soonest first (then by id), those `skip` names left out.
    pub(super) fn due(&mut self, now: Instant, skip: &[OnuId]) -> Vec<OnuId> {
        let now = self.millis(now, now);
        let mut due: Vec<(u64, OnuId)> = self
            .turns
            .iter()
            .filter(|(id, at)| **at <= now && !skip.contains(id))
            .map(|(id, at)| (*at, id))
            .collect();
        due.sort_unstable();
        due.into_iter().map(|(_, id)| id).collect()
    }

    /// The soonest turn.
    pub(super) fn next(&self) -> Option<Instant> {
        self.instant(*self.turns.values().min()?)
    }

    pub(super) fn retain(&mut self, keep: impl FnMut(OnuId, &u64) -> bool) {
        self.turns.retain(keep);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_come_due_in_order_and_keep_their_first_time() {
        let now = Instant::now();
        let mut turns = OpticsTurns::default();
        assert_eq!(turns.next(), None);
        turns.get_or_insert_with(1, now, || now + Duration::from_secs(30));
        turns.get_or_insert_with(2, now, || now + Duration::from_secs(10));
        turns.get_or_insert_with(1, now, || now);
        assert_eq!(turns.next(), Some(now + Duration::from_secs(10)));
        assert!(turns.due(now, &[]).is_empty());
        let later = now + Duration::from_secs(31);
        assert_eq!(turns.due(later, &[]), [2, 1]);
        assert_eq!(turns.due(later, &[2]), [1]);
        turns.set(2, later, later + Duration::from_millis(1500));
        assert_eq!(turns.due(later, &[]), [1]);
        assert_eq!(turns.next(), Some(now + Duration::from_secs(30)));
        turns.retain(|id, _| id == 2);
        assert!(!turns.contains(1));
        assert_eq!(turns.next(), Some(later + Duration::from_millis(1500)));
    }
}
