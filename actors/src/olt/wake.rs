//! The OLT actor's own timer. The actor wakes itself (`OltMsg::Tick`) once, at the next
//! thing due — its next poll while none is in flight, or its next scheduled backup — and
//! not on a fixed beat: at 10,000 OLTs a beat of a quarter interval was 10,000–40,000
//! messages a second on the runtime that answers the API, for a poll each OLT starts
//! once an interval. After every message the actor names what is due next
//! ([`Wake::arm`]); the timer is set again only when that changed. A wake that finds
//! nothing it can start (a poll due on a session that does not poll now) retries at the
//! old beat, so nothing waits longer than it did.

use super::actor::OltState;
use super::msg::OltMsg;
use super::session::Effect;
use ractor::{ActorRef, MessagingErr};
use std::time::{Duration, Instant};
use tokio::task::JoinHandle;

/// The timer's task, which sends the `Tick`.
type TimerTask = JoinHandle<Result<(), MessagingErr<OltMsg>>>;

/// The one timer of an OLT actor.
#[derive(Default)]
pub(super) struct Wake {
    /// What the timer set now is for, and its task.
    armed: Option<(Instant, TimerTask)>,
}

impl Wake {
    /// The timer sent its `Tick`: nothing is set any more.
    pub(super) fn fired(&mut self) {
        self.armed = None;
    }

    /// Sets the timer for `due` unless it is set for it already; `None` stops it. A
    /// `due` already past wakes at once, or one `retry` later when this is the wake
    /// that found it past (`just_fired`) and could not start it.
    pub(super) fn arm(
        &mut self,
        myself: &ActorRef<OltMsg>,
        due: Option<Instant>,
        retry: Duration,
        just_fired: bool,
    ) {
        if self.armed.as_ref().map(|(at, _)| *at) == due {
            return;
        }
        self.stop();
        let Some(due) = due else {
            return;
        };
        let now = Instant::now();
        let delay = match due.checked_duration_since(now) {
            Some(ahead) if !ahead.is_zero() => ahead,
            _ if just_fired => retry,
            _ => Duration::ZERO,
        };
        let task = myself.send_after(delay, || OltMsg::Tick);
        self.armed = Some((due, task));
    }

    /// Stops the timer.
    pub(super) fn stop(&mut self) {
        if let Some((_, task)) = self.armed.take() {
            task.abort();
        }
    }
}

impl OltState {
    /// When the actor must wake by itself next: its next poll while none is in flight,
    /// or its next scheduled backup — each only in a state whose tick starts it (a
    /// CONNECTING session starts polls, not backups, so an overdue backup must not wake
    /// it at every retry); `None` when a tick would start nothing.
    fn next_wake(&self) -> Option<Instant> {
        let poll = (self.session.tick_starts(&Effect::PollIfDue) && !self.poll.in_flight())
            .then(|| self.poll.next_at());
        let backup = (self.session.tick_starts(&Effect::BackupIfDue) && self.takes_backups())
            .then(|| self.cli.next_backup_at());
        poll.into_iter().chain(backup).min()
    }

    /// Sets the timer for what is due next (after every message; `just_fired` after
    /// the timer's own).
    pub(super) fn arm_wake(&mut self, myself: &ActorRef<OltMsg>, just_fired: bool) {
        let due = self.next_wake();
        let retry = self.settings.tick();
        self.wake.arm(myself, due, retry, just_fired);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ractor::{Actor, ActorProcessingErr};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// An actor of the OLT's message type that counts the ticks it gets.
    struct Counter;

    impl Actor for Counter {
        type Msg = OltMsg;
        type State = Arc<AtomicUsize>;
        type Arguments = Arc<AtomicUsize>;

        async fn pre_start(
            &self,
            _: ActorRef<OltMsg>,
            ticks: Arc<AtomicUsize>,
        ) -> Result<Self::State, ActorProcessingErr> {
            Ok(ticks)
        }

        async fn handle(
            &self,
            _: ActorRef<OltMsg>,
            message: OltMsg,
            ticks: &mut Arc<AtomicUsize>,
        ) -> Result<(), ActorProcessingErr> {
            if matches!(message, OltMsg::Tick) {
                ticks.fetch_add(1, Ordering::SeqCst);
            }
            Ok(())
        }
    }

    async fn counter() -> (ActorRef<OltMsg>, Arc<AtomicUsize>) {
        let ticks = Arc::new(AtomicUsize::new(0));
        let (actor, _) = Actor::spawn(None, Counter, ticks.clone())
            .await
            .expect("the counter starts");
        (actor, ticks)
    }

    const RETRY: Duration = Duration::from_millis(300);

    #[tokio::test]
    async fn one_wake_for_what_is_due_however_often_it_is_named() {
        let (actor, ticks) = counter().await;
        let mut wake = Wake::default();
        let due = Instant::now() + Duration::from_millis(100);
        for _ in 0..5 {
            wake.arm(&actor, Some(due), RETRY, false);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(ticks.load(Ordering::SeqCst), 0, "not before it is due");
        tokio::time::sleep(Duration::from_millis(600)).await;
        assert_eq!(ticks.load(Ordering::SeqCst), 1);
        actor.stop(None);
    }

    #[tokio::test]
    async fn a_new_due_time_replaces_the_old_and_none_stops_the_timer() {
        let (actor, ticks) = counter().await;
        let mut wake = Wake::default();
        wake.arm(
            &actor,
            Some(Instant::now() + Duration::from_millis(80)),
            RETRY,
            false,
        );
        wake.arm(
            &actor,
            Some(Instant::now() + Duration::from_millis(400)),
            RETRY,
            false,
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(
            ticks.load(Ordering::SeqCst),
            0,
            "the earlier time was replaced"
        );
        wake.arm(&actor, None, RETRY, false);
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert_eq!(ticks.load(Ordering::SeqCst), 0, "stopped");
        actor.stop(None);
    }

    #[tokio::test]
    async fn a_past_due_time_wakes_at_once_but_after_a_wake_only_at_the_retry() {
        let (actor, ticks) = counter().await;
        let mut wake = Wake::default();
        let past = Instant::now();
        wake.arm(&actor, Some(past), RETRY, false);
        tokio::time::sleep(Duration::from_millis(250)).await;
        assert_eq!(ticks.load(Ordering::SeqCst), 1, "at once");
        // The wake found the poll it was for still due and could not start it.
        wake.fired();
        wake.arm(&actor, Some(past), RETRY, true);
        tokio::time::sleep(Duration::from_millis(150)).await;
        assert_eq!(ticks.load(Ordering::SeqCst), 1, "not again at once");
        tokio::time::sleep(Duration::from_millis(650)).await;
        assert_eq!(ticks.load(Ordering::SeqCst), 2, "one retry later");
        actor.stop(None);
    }
}
