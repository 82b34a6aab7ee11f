//! The OLT's session as a state machine: the states of the session ([`State`]), what
//! can happen to it ([`Event`]) and what the actor must do when it does ([`Effect`]).
//! [`State::start`] gives the first state and [`State::next`] every move after it; both
//! are pure (no clock, no I/O, no actor), so the table of moves is tested on its own
//! (`session/tests.rs`). The OLT actor holds the state in [`Session`], feeds it the
//! events of its messages and carries out the effects in order (`lifecycle.rs`): it
//! records the moves in the OLT record, starts and abandons polls, fails CLI actions,
//! persists and publishes.
//!
//! The statuses the API shows are README's "OLT session states": CONNECTING, ONLINE,
//! DEGRADED, OFFLINE, DISABLED. Two more states show one of those: an OLT the supervisor
//! restarted *stopped* after a crash loop shows OFFLINE with the crash as its reason and
//! does no device I/O until `restart-session`; an OLT whose service is shutting down
//! keeps showing what it showed and starts nothing new. The count of failed polls in a
//! row lives in the states that keep it.
//!
//! | from | event | to | recorded reason |
//! |---|---|---|---|
//! | (new actor) | start, enabled | CONNECTING | `actor started` |
//! | (new actor) | start, disabled | DISABLED | `disabled in the inventory` |
//! | (new actor) | start, stopped by the supervisor | STOPPED (OFFLINE) | the crash loop |
//! | CONNECTING, DEGRADED, OFFLINE | poll succeeded | ONLINE | `poll succeeded` |
//! | any polling state | poll failed, fewer than `offline_after` in a row, or the device answers but matches no profile | DEGRADED | `poll failed: …` |
//! | any polling state | poll failed, `offline_after` or more in a row | OFFLINE | `N failed polls in a row, last: …` |
//! | any polling state, STOPPED | restart-session | CONNECTING, count cleared | `session restarted on request` / `restarted on request after a crash loop` |
//! | any polling state, DISABLED | inventory change, enabled | CONNECTING, count cleared | `inventory changed` |
//! | any polling state, DISABLED | inventory change, disabled | DISABLED | `disabled in the inventory` |
//! | STOPPED | inventory change | STOPPED | (none: applies from the next restart) |
//! | any | shutdown | SHUTTING DOWN (shows the state it wraps) | (none) |
//!
//! The polling states are CONNECTING, ONLINE, DEGRADED and OFFLINE. A poll that
//! succeeds schedules the next one an interval later, one that fails after the backoff
//! of its count. A move to the status already shown records nothing (a second failed
//! poll while DEGRADED), except a restart, which is always recorded. DISABLED, STOPPED
//! and SHUTTING DOWN refuse polls and restarts (a restart revives STOPPED); OFFLINE also
//! refuses CLI actions. The timer polls in the polling states when a poll is due, and
//! takes the scheduled backup in all of them but CONNECTING.

use crate::domain::SessionStatus;

#[cfg(test)]
mod tests;

/// The states of an OLT's session. Private: only [`State::next`] moves it, through
/// [`Session::fire`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// CONNECTING: the actor started or the session restarted; no poll has finished
    /// yet. `failures` is the count a start of the service found stored (a restart of
    /// the session clears it).
    Connecting { failures: u32 },
    /// ONLINE: the last poll succeeded.
    Online,
    /// DEGRADED: the last `failures` polls failed; fewer than `offline_after`, or the
    /// device answers but matches no profile.
    Degraded { failures: u32 },
    /// OFFLINE: `failures` (at least `offline_after`) polls in a row failed; the poll is
    /// retried after a backoff and CLI actions are refused.
    Offline { failures: u32 },
    /// DISABLED: `enabled = false` in the inventory; no device traffic. The count of
    /// the last session is kept for the API.
    Disabled { failures: u32 },
    /// Restarted by the supervisor after a crash loop: shows OFFLINE with `reason`,
    /// does no device I/O and refuses polls and actions with `reason` until a
    /// restart-session. `enabled` follows the inventory meanwhile; a new entry applies
    /// from that restart.
    Stopped {
        reason: String,
        failures: u32,
        enabled: bool,
    },
    /// The service is stopping: nothing new starts. Shows the state it came from, which
    /// an inventory change still moves.
    ShuttingDown(Box<State>),
}

/// The session part of the OLT actor's state: the machine's state, which only events
/// change.
#[derive(Debug)]
pub(super) struct Session {
    state: State,
}

impl Session {
    /// The first state of a new actor and what to do for it (see [`State::start`]).
    pub(super) fn start(
        failures: u32,
        enabled: bool,
        stopped: Option<String>,
    ) -> (Session, Vec<Effect>) {
        let (state, effects) = State::start(failures, enabled, stopped);
        (Session { state }, effects)
    }

    /// Moves the session on `event`; answers what the actor must do, in order.
    pub(super) fn fire(&mut self, event: Event) -> Vec<Effect> {
        // A placeholder for the moment `next` owns the state.
        let state = std::mem::replace(&mut self.state, State::Online);
        let (next, effects) = state.next(event);
        self.state = next;
        effects
    }

    /// The status the API shows.
    pub(super) fn status(&self) -> SessionStatus {
        self.state.status()
    }

    /// Failed polls in a row (the API's `failuresInRow`; a poll after a failure probes
    /// first).
    pub(super) fn failures(&self) -> u32 {
        self.state.failures()
    }

    /// Why a CLI action is refused now, if it is.
    pub(super) fn action_refusal(&self) -> Option<Refusal> {
        self.state.action_refusal()
    }

    /// Whether a tick in this state would start `effect` (`PollIfDue` or
    /// `BackupIfDue`) once it is due.
    pub(super) fn tick_starts(&self, effect: &Effect) -> bool {
        self.state.tick().contains(effect)
    }
}

/// What happens to a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Event {
    /// The timer ticked.
    Tick,
    /// A caller asks for a poll now (`POST /olts/{id}/poll`).
    PollNow,
    /// The poll in flight succeeded.
    PollSucceeded,
    /// The poll in flight failed with `error`. `answers`: the device answered but
    /// matches no profile, so it is not unreachable. `offline_after` is `[polling]`'s.
    PollFailed {
        error: String,
        answers: bool,
        offline_after: u32,
    },
    /// A caller asks for `restart-session`.
    RestartRequested,
    /// The OLT's inventory entry changed; `enabled` is the new entry's.
    Reconfigured { enabled: bool },
    /// The service is stopping.
    Shutdown,
    /// The actor is stopping (removed, crashed or shut down).
    ActorStopping,
}

/// What the actor does for a move, in the order given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Effect {
    /// Show `status`; recorded as a move with the reason when it differs from the status
    /// shown, or when no move is recorded yet.
    Move(SessionStatus, String),
    /// Record a move to `status` even if it is the status shown (a restart is news).
    Record(SessionStatus, String),
    /// The OLT's last error becomes this text.
    SetError(String),
    /// Abort the poll in flight; its late report changes nothing.
    AbandonPoll,
    /// Drop the SNMP client; the next poll opens a fresh socket.
    DropSnmp,
    /// Drop the SSH session and fail every CLI action running or waiting.
    FailActions(Cancel),
    /// Answer every caller waiting for the poll with an error.
    FailPollWaiters(Cancel),
    /// Start a poll unless one is in flight.
    Poll,
    /// The caller waits for the poll in flight.
    AwaitPoll,
    /// Start a poll if one is due and none is in flight.
    PollIfDue,
    /// Queue the scheduled config backup if it is due.
    BackupIfDue,
    /// When the timer starts the next poll.
    NextPoll(NextPoll),
    /// Refuse the caller.
    Refuse(Refusal),
    /// Write the OLT record to sled.
    Persist,
    /// Tell the fleet view what changed.
    Publish,
    /// Answer every caller waiting for the poll with the summary just published.
    AnswerPollWaiters,
}

/// When the next poll is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NextPoll {
    /// Now: the actor wakes for it at once.
    Now,
    /// One `[polling] interval` from now.
    Interval,
    /// After the backoff of this many failures in a row (doubling from `timeout`,
    /// capped at `interval`).
    Backoff(u32),
}

/// Why a caller's request is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Refusal {
    /// The service is stopping.
    ShuttingDown,
    /// `enabled = false` in the inventory.
    Disabled,
    /// Stopped after a crash loop, for this reason.
    Stopped(String),
    /// OFFLINE: no CLI actions.
    Offline,
}

/// Why what is in flight (the poll's callers, CLI actions) is cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cancel {
    /// The session was restarted.
    Restarted,
    /// The OLT was disabled in the inventory.
    Disabled,
    /// The service is shutting down.
    Shutdown,
    /// The actor stopped while the service shuts down.
    StoppedInShutdown,
    /// The actor stopped (removed from the inventory, or given up).
    Gone,
}

/// The effects of a session restart: the device sessions and everything in flight go,
/// and CONNECTING is recorded with `reason`.
fn restart(reason: &str) -> Vec<Effect> {
    vec![
        Effect::AbandonPoll,
        Effect::DropSnmp,
        Effect::FailActions(Cancel::Restarted),
        Effect::Record(SessionStatus::Connecting, reason.to_string()),
    ]
}

/// The last effects of every finished poll, whatever the state.
const POLL_DONE: [Effect; 3] = [Effect::Persist, Effect::Publish, Effect::AnswerPollWaiters];

impl State {
    /// The first state of a new actor, from the failure count stored by the last one,
    /// whether the inventory enables the OLT, and the reason the supervisor restarted it
    /// stopped (after a crash loop), if it did. A disabled OLT is not stopped: it does no
    /// device I/O anyway and shows DISABLED.
    pub(super) fn start(
        failures: u32,
        enabled: bool,
        stopped: Option<String>,
    ) -> (State, Vec<Effect>) {
        match (enabled, stopped) {
            (true, Some(reason)) => (
                State::Stopped {
                    reason: reason.clone(),
                    failures,
                    enabled,
                },
                vec![
                    Effect::SetError(reason.clone()),
                    Effect::Record(SessionStatus::Offline, reason),
                    Effect::Persist,
                    Effect::Publish,
                ],
            ),
            (true, None) => (
                State::Connecting { failures },
                vec![
                    Effect::Record(SessionStatus::Connecting, "actor started".into()),
                    Effect::Publish,
                ],
            ),
            (false, _) => (
                State::Disabled { failures },
                vec![
                    Effect::Move(SessionStatus::Disabled, DISABLED.into()),
                    Effect::Publish,
                ],
            ),
        }
    }

    /// The state after `event`, and what the actor must do.
    pub(super) fn next(self, event: Event) -> (State, Vec<Effect>) {
        match event {
            Event::Tick => {
                let effects = self.tick();
                (self, effects)
            }
            Event::PollNow => match self.refusal() {
                Some(refusal) => (self, vec![Effect::Refuse(refusal)]),
                None => (self, vec![Effect::Poll, Effect::AwaitPoll]),
            },
            Event::PollSucceeded => self.poll_succeeded(),
            Event::PollFailed {
                error,
                answers,
                offline_after,
            } => self.poll_failed(&error, answers, offline_after),
            Event::RestartRequested => self.restart_requested(),
            Event::Reconfigured { enabled } => self.reconfigured(enabled),
            Event::Shutdown => {
                let effects = vec![
                    Effect::AbandonPoll,
                    Effect::FailPollWaiters(Cancel::Shutdown),
                    Effect::FailActions(Cancel::Shutdown),
                ];
                match self {
                    State::ShuttingDown(_) => (self, effects),
                    other => (State::ShuttingDown(Box::new(other)), effects),
                }
            }
            Event::ActorStopping => {
                let cancel = match self {
                    State::ShuttingDown(_) => Cancel::StoppedInShutdown,
                    _ => Cancel::Gone,
                };
                let effects = vec![
                    Effect::AbandonPoll,
                    Effect::FailPollWaiters(cancel),
                    Effect::FailActions(cancel),
                ];
                (self, effects)
            }
        }
    }

    /// The status the API shows.
    pub(super) fn status(&self) -> SessionStatus {
        match self {
            State::Connecting { .. } => SessionStatus::Connecting,
            State::Online => SessionStatus::Online,
            State::Degraded { .. } => SessionStatus::Degraded,
            State::Offline { .. } | State::Stopped { .. } => SessionStatus::Offline,
            State::Disabled { .. } => SessionStatus::Disabled,
            State::ShuttingDown(was) => was.status(),
        }
    }

    /// Failed polls in a row.
    pub(super) fn failures(&self) -> u32 {
        match self {
            State::Online => 0,
            State::Connecting { failures }
            | State::Degraded { failures }
            | State::Offline { failures }
            | State::Disabled { failures }
            | State::Stopped { failures, .. } => *failures,
            State::ShuttingDown(was) => was.failures(),
        }
    }

    /// Why a CLI action is refused in this state, if it is.
    pub(super) fn action_refusal(&self) -> Option<Refusal> {
        match self {
            State::Offline { .. } => Some(Refusal::Offline),
            other => other.refusal(),
        }
    }

    /// Why a poll or a restart is refused in this state, if it is: the service is
    /// stopping, the OLT is disabled, or it is stopped after a crash loop (polls only;
    /// a restart revives it).
    fn refusal(&self) -> Option<Refusal> {
        match self {
            State::ShuttingDown(_) => Some(Refusal::ShuttingDown),
            State::Disabled { .. } | State::Stopped { enabled: false, .. } => {
                Some(Refusal::Disabled)
            }
            State::Stopped { reason, .. } => Some(Refusal::Stopped(reason.clone())),
            _ => None,
        }
    }

    /// What a tick may start: a poll while the session runs, and the scheduled backup
    /// once a poll has finished.
    fn tick(&self) -> Vec<Effect> {
        match self {
            State::Connecting { .. } => vec![Effect::PollIfDue],
            State::Online | State::Degraded { .. } | State::Offline { .. } => {
                vec![Effect::PollIfDue, Effect::BackupIfDue]
            }
            State::Disabled { .. } | State::Stopped { .. } | State::ShuttingDown(_) => Vec::new(),
        }
    }

    /// The failed polls in a row of a state that polls; `None` for one that does not
    /// (its poll was abandoned on the way in, so no report reaches it).
    fn polling_failures(&self) -> Option<u32> {
        match self {
            State::Online => Some(0),
            State::Connecting { failures }
            | State::Degraded { failures }
            | State::Offline { failures } => Some(*failures),
            _ => None,
        }
    }

    /// ONLINE; next poll one interval later.
    fn poll_succeeded(self) -> (State, Vec<Effect>) {
        if self.polling_failures().is_none() {
            return (self, POLL_DONE.to_vec());
        }
        let mut effects = vec![
            Effect::Move(SessionStatus::Online, "poll succeeded".into()),
            Effect::NextPoll(NextPoll::Interval),
        ];
        effects.extend(POLL_DONE);
        (State::Online, effects)
    }

    /// DEGRADED, or OFFLINE at `offline_after` failures in a row unless the device
    /// answers; next attempt after the backoff.
    fn poll_failed(self, error: &str, answers: bool, offline_after: u32) -> (State, Vec<Effect>) {
        let Some(before) = self.polling_failures() else {
            return (self, POLL_DONE.to_vec());
        };
        let failures = before + 1;
        let (next, moved) = if failures >= offline_after && !answers {
            (
                State::Offline { failures },
                Effect::Move(
                    SessionStatus::Offline,
                    format!("{failures} failed polls in a row, last: {error}"),
                ),
            )
        } else {
            (
                State::Degraded { failures },
                Effect::Move(SessionStatus::Degraded, format!("poll failed: {error}")),
            )
        };
        let mut effects = vec![moved, Effect::NextPoll(NextPoll::Backoff(failures))];
        effects.extend(POLL_DONE);
        (next, effects)
    }

    /// CONNECTING with a new session and its first poll at once (reviving an OLT stopped
    /// after a crash loop); the caller waits for that poll.
    fn restart_requested(self) -> (State, Vec<Effect>) {
        if let Some(refusal) = self.refusal().filter(|r| !matches!(r, Refusal::Stopped(_))) {
            return (self, vec![Effect::Refuse(refusal)]);
        }
        let reason = match self {
            State::Stopped { .. } => "restarted on request after a crash loop",
            _ => "session restarted on request",
        };
        let mut effects = restart(reason);
        effects.extend([Effect::Poll, Effect::AwaitPoll, Effect::Publish]);
        (State::Connecting { failures: 0 }, effects)
    }

    /// An enabled OLT restarts its session and polls at the next tick; a disabled one
    /// drops everything and shows DISABLED; a stopped one takes the entry from its next
    /// restart-session. During a shutdown the state it came from moves the same way.
    fn reconfigured(self, enabled: bool) -> (State, Vec<Effect>) {
        let done = [Effect::Persist, Effect::Publish];
        match self {
            State::ShuttingDown(was) => {
                let (next, effects) = was.reconfigured(enabled);
                (State::ShuttingDown(Box::new(next)), effects)
            }
            State::Stopped {
                reason, failures, ..
            } => (
                State::Stopped {
                    reason,
                    failures,
                    enabled,
                },
                done.to_vec(),
            ),
            _ if enabled => {
                let mut effects = restart("inventory changed");
                effects.push(Effect::NextPoll(NextPoll::Now));
                effects.extend(done);
                (State::Connecting { failures: 0 }, effects)
            }
            other => {
                let mut effects = vec![
                    Effect::AbandonPoll,
                    Effect::DropSnmp,
                    Effect::FailActions(Cancel::Disabled),
                    Effect::Move(SessionStatus::Disabled, DISABLED.into()),
                    Effect::FailPollWaiters(Cancel::Disabled),
                ];
                effects.extend(done);
                let failures = other.failures();
                (State::Disabled { failures }, effects)
            }
        }
    }
}

/// The reason of every move to DISABLED.
const DISABLED: &str = "disabled in the inventory";
