//! The changes scheduled polls publish, waiting beside the fleet view's mailbox so that a
//! question never queues behind a thousand of them. Every change takes a number from one
//! sequence when it is published. A change someone waits on (an action's result, a poll
//! a caller asked for, an inventory change) goes through the mailbox and is applied after
//! every change numbered before it; a scheduled poll's waits here ([`Backlog::push`]) and
//! the view takes it in batches between questions ([`FleetViewMsg::Drain`]), in number
//! order and never past a waited-on change still in the mailbox. So one OLT's changes
//! are applied in the order it made them, an acknowledged action's result is in every
//! answer given after the acknowledgement, and a fleet-wide question waits for one batch
//! at most (docs/architecture.md).
//!
//! [`FleetViewMsg::Drain`]: super::FleetViewMsg::Drain

use crate::published::FleetChange;
use std::collections::{BTreeSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

/// What waits, shared by the handle (publishers) and the view (which takes it in).
#[derive(Clone, Default)]
pub(super) struct Backlog(Arc<Mutex<Waiting>>);

#[derive(Default)]
struct Waiting {
    /// The next change's number.
    next: u64,
    /// Scheduled polls' changes, in number order.
    changes: VecDeque<(u64, FleetChange)>,
    /// Numbers of the mailbox's changes not applied yet: nothing numbered after the
    /// first of them is taken from here before it.
    in_mailbox: BTreeSet<u64>,
    /// A `Drain` is on its way to the view.
    drain_sent: bool,
}

/// What [`Backlog::push`] asks of the caller.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Nudge {
    /// Send the view a `Drain`: none is on its way.
    SendDrain,
    /// One is on its way already.
    None,
}

impl Backlog {
    fn lock(&self) -> MutexGuard<'_, Waiting> {
        // A panic while holding the lock leaves the queue as it was: go on with it.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Numbers a change that goes through the mailbox and sends it with `send`, under the
    /// lock: a change numbered before another is in the mailbox before it, and before
    /// any [`Backlog::barrier`] taken after it.
    pub(super) fn number_for_mailbox<E>(
        &self,
        send: impl FnOnce(u64) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut waiting = self.lock();
        let number = waiting.next;
        waiting.next += 1;
        let sent = send(number);
        if sent.is_ok() {
            waiting.in_mailbox.insert(number);
        }
        sent
    }

    /// The number the next change will take: everything published so far is before it
    /// (and, for the mailbox's, already in it).
    pub(super) fn barrier(&self) -> u64 {
        self.lock().next
    }

    /// Queues a scheduled poll's change.
    pub(super) fn push(&self, change: FleetChange) -> Nudge {
        let mut waiting = self.lock();
        let number = waiting.next;
        waiting.next += 1;
        waiting.changes.push_back((number, change));
        match std::mem::replace(&mut waiting.drain_sent, true) {
            false => Nudge::SendDrain,
            true => Nudge::None,
        }
    }

    /// The mailbox's change `number` is being applied: takes every queued change numbered
    /// before it, to apply first.
    pub(super) fn before_mailbox(&self, number: u64) -> Vec<FleetChange> {
        let mut waiting = self.lock();
        waiting.in_mailbox.remove(&number);
        take_before(&mut waiting.changes, number, usize::MAX)
    }

    /// Takes every queued change numbered before `barrier` (a question that must see
    /// everything published before it was asked).
    pub(super) fn before(&self, barrier: u64) -> Vec<FleetChange> {
        take_before(&mut self.lock().changes, barrier, usize::MAX)
    }

    /// For a `Drain`: the next queued change the view may apply now, if any — none past
    /// a change still in the mailbox. With `None`, no `Drain` is on its way any more.
    pub(super) fn next(&self) -> Option<FleetChange> {
        let mut waiting = self.lock();
        let limit = waiting.in_mailbox.first().copied().unwrap_or(u64::MAX);
        let taken = take_before(&mut waiting.changes, limit, 1).pop();
        if taken.is_none() {
            waiting.drain_sent = false;
        }
        taken
    }

    /// After a mailbox change: whether queued changes wait with no `Drain` on its way
    /// (those after the change, held back until it was applied). Marks one as sent.
    pub(super) fn needs_drain(&self) -> bool {
        let mut waiting = self.lock();
        let needed = !waiting.changes.is_empty() && !waiting.drain_sent;
        waiting.drain_sent |= needed;
        needed
    }

    /// How many changes wait.
    pub(super) fn len(&self) -> usize {
        self.lock().changes.len()
    }
}

/// Up to `most` of `changes` numbered before `limit`, from the front.
fn take_before(
    changes: &mut VecDeque<(u64, FleetChange)>,
    limit: u64,
    most: usize,
) -> Vec<FleetChange> {
    let mut taken = Vec::new();
    while taken.len() < most && changes.front().is_some_and(|(n, _)| *n < limit) {
        if let Some((_, change)) = changes.pop_front() {
            taken.push(change);
        }
    }
    taken
}

#[cfg(test)]
mod tests {
    use super::*;

    fn removed(olt: u32) -> FleetChange {
        FleetChange::Removed {
            olt,
            incarnation: 0,
        }
    }

    /// The number a change sent through the mailbox took.
    fn mailbox(backlog: &Backlog) -> u64 {
        let mut taken = 0;
        backlog
            .number_for_mailbox(|number| {
                taken = number;
                Ok::<(), ()>(())
            })
            .expect("sent");
        taken
    }

    fn olts(changes: &[FleetChange]) -> Vec<u32> {
        changes
            .iter()
            .map(|c| match c {
                FleetChange::Removed { olt, .. } => *olt,
                _ => 0,
            })
            .collect()
    }

    #[test]
    fn one_drain_is_asked_for_until_the_queue_runs_dry() {
        let backlog = Backlog::default();
        assert_eq!(backlog.push(removed(1)), Nudge::SendDrain);
        assert_eq!(backlog.push(removed(2)), Nudge::None);
        assert_eq!(backlog.len(), 2);
        assert_eq!(olts(&[backlog.next().expect("first")]), [1]);
        assert_eq!(olts(&[backlog.next().expect("second")]), [2]);
        assert!(backlog.next().is_none());
        assert_eq!(
            backlog.push(removed(3)),
            Nudge::SendDrain,
            "the drain ended"
        );
    }

    #[test]
    fn a_mailbox_change_comes_after_those_before_it_and_before_those_after_it() {
        let backlog = Backlog::default();
        backlog.push(removed(1));
        let action = mailbox(&backlog);
        backlog.push(removed(3));
        // A drain may not pass the change in the mailbox...
        assert_eq!(olts(&[backlog.next().expect("before it")]), [1]);
        assert!(backlog.next().is_none(), "held back behind the mailbox");
        // ...which, when applied, takes what came before it (nothing left) first.
        assert!(backlog.before_mailbox(action).is_empty());
        assert!(
            backlog.needs_drain(),
            "what came after it waits for a drain"
        );
        assert!(!backlog.needs_drain(), "asked for once");
        assert_eq!(olts(&[backlog.next().expect("after it")]), [3]);
    }

    #[test]
    fn a_barrier_takes_everything_published_before_it() {
        let backlog = Backlog::default();
        backlog.push(removed(1));
        backlog.push(removed(2));
        let barrier = backlog.barrier();
        backlog.push(removed(3));
        assert_eq!(olts(&backlog.before(barrier)), [1, 2]);
        assert_eq!(backlog.len(), 1);
        let action = mailbox(&backlog);
        backlog.push(removed(5));
        assert_eq!(olts(&backlog.before_mailbox(action)), [3]);
        assert_eq!(backlog.len(), 1);
    }
}
