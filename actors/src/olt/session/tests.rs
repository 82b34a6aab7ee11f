//! The session machine's table, one test per move: each row gives a state and an event,
//! and the state and the effects the machine must answer, so a changed move fails its own
//! row. The rows follow the table in `session.rs` (and README's "OLT session states").

use super::*;
use SessionStatus::{Connecting, Degraded, Disabled, Offline, Online};

/// The error of a failed poll in these rows.
const ERROR: &str = "no answer within 300ms (1 attempts)";
/// The crash-loop reason in these rows.
const CRASH: &str = "stopped after a crash loop (boom); restart-session to try again";

fn failed() -> Event {
    Event::PollFailed {
        error: ERROR.into(),
        answers: false,
        offline_after: 3,
    }
}

/// A failed poll of a device that answers but matches no profile.
fn unknown_vendor() -> Event {
    Event::PollFailed {
        error: ERROR.into(),
        answers: true,
        offline_after: 3,
    }
}

fn stopped(enabled: bool) -> State {
    State::Stopped {
        reason: CRASH.into(),
        failures: 2,
        enabled,
    }
}

fn shutting_down(was: State) -> State {
    State::ShuttingDown(Box::new(was))
}

fn moved(to: SessionStatus, reason: &str) -> Effect {
    Effect::Move(to, reason.into())
}

/// What every finished poll ends with.
fn poll_done() -> Vec<Effect> {
    vec![Effect::Persist, Effect::Publish, Effect::AnswerPollWaiters]
}

fn succeeded() -> Vec<Effect> {
    let mut effects = vec![
        moved(Online, "poll succeeded"),
        Effect::NextPoll(NextPoll::Interval),
    ];
    effects.extend(poll_done());
    effects
}

fn degraded(failures: u32) -> Vec<Effect> {
    let mut effects = vec![
        moved(Degraded, &format!("poll failed: {ERROR}")),
        Effect::NextPoll(NextPoll::Backoff(failures)),
    ];
    effects.extend(poll_done());
    effects
}

fn offline(failures: u32) -> Vec<Effect> {
    let mut effects = vec![
        moved(
            Offline,
            &format!("{failures} failed polls in a row, last: {ERROR}"),
        ),
        Effect::NextPoll(NextPoll::Backoff(failures)),
    ];
    effects.extend(poll_done());
    effects
}

/// A restart of the session with `reason`, then `then`.
fn restarted(reason: &str, then: &[Effect]) -> Vec<Effect> {
    let mut effects = vec![
        Effect::AbandonPoll,
        Effect::DropSnmp,
        Effect::FailActions(Cancel::Restarted),
        Effect::Record(Connecting, reason.into()),
    ];
    effects.extend_from_slice(then);
    effects
}

fn on_request(reason: &str) -> Vec<Effect> {
    restarted(reason, &[Effect::Poll, Effect::AwaitPoll, Effect::Publish])
}

fn enabled_again() -> Vec<Effect> {
    restarted(
        "inventory changed",
        &[
            Effect::NextPoll(NextPoll::Now),
            Effect::Persist,
            Effect::Publish,
        ],
    )
}

fn disabled() -> Vec<Effect> {
    vec![
        Effect::AbandonPoll,
        Effect::DropSnmp,
        Effect::FailActions(Cancel::Disabled),
        moved(Disabled, "disabled in the inventory"),
        Effect::FailPollWaiters(Cancel::Disabled),
        Effect::Persist,
        Effect::Publish,
    ]
}

fn refused(refusal: Refusal) -> Vec<Effect> {
    vec![Effect::Refuse(refusal)]
}

fn cancelled(cancel: Cancel) -> Vec<Effect> {
    vec![
        Effect::AbandonPoll,
        Effect::FailPollWaiters(cancel),
        Effect::FailActions(cancel),
    ]
}

/// One `#[test]` per row: `name: from, event => to, effects;`.
macro_rules! moves {
    ($($name:ident: $from:expr, $event:expr => $to:expr, $effects:expr;)*) => {
        $(
            #[test]
            fn $name() {
                let (to, effects) = $from.next($event);
                assert_eq!(to, $to, "the state after the move");
                assert_eq!(effects, $effects, "the effects of the move");
            }
        )*
    };
}

// The first state of a new actor.

#[test]
fn an_enabled_actor_starts_connecting_with_the_stored_count() {
    assert_eq!(
        State::start(2, true, None),
        (
            State::Connecting { failures: 2 },
            vec![
                Effect::Record(Connecting, "actor started".into()),
                Effect::Publish
            ]
        )
    );
}

#[test]
fn a_disabled_actor_starts_disabled_even_when_restarted_stopped() {
    assert_eq!(
        State::start(1, false, Some(CRASH.into())),
        (
            State::Disabled { failures: 1 },
            vec![
                moved(Disabled, "disabled in the inventory"),
                Effect::Publish
            ]
        )
    );
}

#[test]
fn an_actor_restarted_after_a_crash_loop_starts_stopped_showing_offline() {
    let (state, effects) = State::start(2, true, Some(CRASH.into()));
    assert_eq!(state, stopped(true));
    assert_eq!(state.status(), Offline);
    assert_eq!(
        effects,
        vec![
            Effect::SetError(CRASH.into()),
            Effect::Record(Offline, CRASH.into()),
            Effect::Persist,
            Effect::Publish,
        ]
    );
}

moves! {
    // Polls.
    connecting_goes_online_on_a_good_poll:
        State::Connecting { failures: 0 }, Event::PollSucceeded => State::Online, succeeded();
    connecting_degrades_on_a_failed_poll:
        State::Connecting { failures: 0 }, failed() => State::Degraded { failures: 1 }, degraded(1);
    connecting_counts_on_from_the_stored_count:
        State::Connecting { failures: 2 }, failed() => State::Offline { failures: 3 }, offline(3);
    online_stays_online_on_a_good_poll:
        State::Online, Event::PollSucceeded => State::Online, succeeded();
    online_degrades_on_a_failed_poll:
        State::Online, failed() => State::Degraded { failures: 1 }, degraded(1);
    degraded_stays_degraded_below_offline_after:
        State::Degraded { failures: 1 }, failed() => State::Degraded { failures: 2 }, degraded(2);
    degraded_goes_offline_at_offline_after:
        State::Degraded { failures: 2 }, failed() => State::Offline { failures: 3 }, offline(3);
    degraded_goes_online_on_a_good_poll:
        State::Degraded { failures: 2 }, Event::PollSucceeded => State::Online, succeeded();
    offline_stays_offline_and_backs_off_further:
        State::Offline { failures: 3 }, failed() => State::Offline { failures: 4 }, offline(4);
    offline_goes_online_on_a_good_poll:
        State::Offline { failures: 5 }, Event::PollSucceeded => State::Online, succeeded();
    a_device_that_answers_but_matches_no_profile_stays_degraded:
        State::Degraded { failures: 2 }, unknown_vendor()
        => State::Degraded { failures: 3 }, degraded(3);
    a_report_reaching_a_disabled_olt_moves_nothing:
        State::Disabled { failures: 1 }, failed() => State::Disabled { failures: 1 }, poll_done();

    // Restart-session.
    online_restarts_connecting:
        State::Online, Event::RestartRequested
        => State::Connecting { failures: 0 }, on_request("session restarted on request");
    offline_restarts_connecting_with_the_count_cleared:
        State::Offline { failures: 4 }, Event::RestartRequested
        => State::Connecting { failures: 0 }, on_request("session restarted on request");
    stopped_is_revived_by_a_restart:
        stopped(true), Event::RestartRequested
        => State::Connecting { failures: 0 }, on_request("restarted on request after a crash loop");
    disabled_refuses_a_restart:
        State::Disabled { failures: 0 }, Event::RestartRequested
        => State::Disabled { failures: 0 }, refused(Refusal::Disabled);
    stopped_and_disabled_refuses_a_restart_as_disabled:
        stopped(false), Event::RestartRequested => stopped(false), refused(Refusal::Disabled);
    shutting_down_refuses_a_restart:
        shutting_down(State::Online), Event::RestartRequested
        => shutting_down(State::Online), refused(Refusal::ShuttingDown);

    // Poll-now.
    online_polls_now:
        State::Online, Event::PollNow => State::Online, vec![Effect::Poll, Effect::AwaitPoll];
    disabled_refuses_a_poll:
        State::Disabled { failures: 0 }, Event::PollNow
        => State::Disabled { failures: 0 }, refused(Refusal::Disabled);
    stopped_refuses_a_poll_with_its_reason:
        stopped(true), Event::PollNow => stopped(true), refused(Refusal::Stopped(CRASH.into()));
    shutting_down_refuses_a_poll:
        shutting_down(State::Offline { failures: 3 }), Event::PollNow
        => shutting_down(State::Offline { failures: 3 }), refused(Refusal::ShuttingDown);

    // Inventory changes.
    online_is_disabled_by_the_inventory:
        State::Online, Event::Reconfigured { enabled: false }
        => State::Disabled { failures: 0 }, disabled();
    degraded_keeps_its_count_when_disabled:
        State::Degraded { failures: 2 }, Event::Reconfigured { enabled: false }
        => State::Disabled { failures: 2 }, disabled();
    disabled_is_enabled_again_connecting:
        State::Disabled { failures: 2 }, Event::Reconfigured { enabled: true }
        => State::Connecting { failures: 0 }, enabled_again();
    online_restarts_on_an_inventory_change:
        State::Online, Event::Reconfigured { enabled: true }
        => State::Connecting { failures: 0 }, enabled_again();
    stopped_takes_the_entry_from_its_next_restart:
        stopped(true), Event::Reconfigured { enabled: false }
        => stopped(false), vec![Effect::Persist, Effect::Publish];
    an_inventory_change_still_moves_a_state_shutting_down:
        shutting_down(State::Online), Event::Reconfigured { enabled: true }
        => shutting_down(State::Connecting { failures: 0 }), enabled_again();

    // Shutdown and the actor's end.
    shutdown_wraps_the_state_and_cancels_what_is_in_flight:
        State::Degraded { failures: 1 }, Event::Shutdown
        => shutting_down(State::Degraded { failures: 1 }), cancelled(Cancel::Shutdown);
    a_second_shutdown_changes_nothing_more:
        shutting_down(State::Online), Event::Shutdown
        => shutting_down(State::Online), cancelled(Cancel::Shutdown);
    an_actor_stopping_in_a_shutdown_says_so:
        shutting_down(State::Online), Event::ActorStopping
        => shutting_down(State::Online), cancelled(Cancel::StoppedInShutdown);
    an_actor_stopping_otherwise_is_gone:
        State::Online, Event::ActorStopping => State::Online, cancelled(Cancel::Gone);

    // The timer.
    connecting_ticks_polls_only:
        State::Connecting { failures: 0 }, Event::Tick
        => State::Connecting { failures: 0 }, vec![Effect::PollIfDue];
    offline_ticks_polls_and_backups:
        State::Offline { failures: 3 }, Event::Tick
        => State::Offline { failures: 3 }, vec![Effect::PollIfDue, Effect::BackupIfDue];
    stopped_ticks_nothing:
        stopped(true), Event::Tick => stopped(true), vec![];
    disabled_ticks_nothing:
        State::Disabled { failures: 0 }, Event::Tick => State::Disabled { failures: 0 }, vec![];
}

#[test]
fn each_state_shows_its_status_and_count() {
    let rows = [
        (State::Connecting { failures: 2 }, Connecting, 2),
        (State::Online, Online, 0),
        (State::Degraded { failures: 1 }, Degraded, 1),
        (State::Offline { failures: 3 }, Offline, 3),
        (State::Disabled { failures: 1 }, Disabled, 1),
        (stopped(true), Offline, 2),
        (shutting_down(State::Degraded { failures: 2 }), Degraded, 2),
    ];
    for (state, status, failures) in rows {
        assert_eq!(
            (state.status(), state.failures()),
            (status, failures),
            "{state:?}"
        );
    }
}

#[test]
fn cli_actions_are_refused_disabled_stopped_offline_and_shutting_down() {
    let rows = [
        (State::Connecting { failures: 0 }, None),
        (State::Online, None),
        (State::Degraded { failures: 2 }, None),
        (State::Offline { failures: 3 }, Some(Refusal::Offline)),
        (State::Disabled { failures: 0 }, Some(Refusal::Disabled)),
        (stopped(true), Some(Refusal::Stopped(CRASH.into()))),
        (stopped(false), Some(Refusal::Disabled)),
        (
            shutting_down(State::Offline { failures: 3 }),
            Some(Refusal::ShuttingDown),
        ),
    ];
    for (state, refusal) in rows {
        assert_eq!(state.action_refusal(), refusal, "{state:?}");
    }
}

/// What the actor's timer counts on (`OltState::next_wake`): a new session ticks polls,
/// not backups, until a poll ends; then both; a disabled one neither.
#[test]
fn a_connecting_session_wakes_for_polls_only() {
    let (mut session, _) = Session::start(0, true, None);
    assert!(session.tick_starts(&Effect::PollIfDue));
    assert!(!session.tick_starts(&Effect::BackupIfDue));
    session.fire(Event::PollSucceeded);
    assert!(session.tick_starts(&Effect::PollIfDue));
    assert!(session.tick_starts(&Effect::BackupIfDue));
    let (disabled, _) = Session::start(0, false, None);
    assert!(!disabled.tick_starts(&Effect::PollIfDue));
    assert!(!disabled.tick_starts(&Effect::BackupIfDue));
}
