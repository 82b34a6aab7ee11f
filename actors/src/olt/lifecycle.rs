//! How the OLT actor carries out its session machine ([`super::session`]): it feeds the
//! machine the event of a message ([`OltState::fire`]) and applies the effects in the
//! order given: records each move in the OLT record with its reason (the `session`
//! block of `GET /olts/{id}`), abandons and starts polls, fails the CLI actions and poll
//! callers a move cancels, schedules the next poll, refuses callers, persists the record
//! and the ONU table to sled, and publishes to the fleet view. The actor's handler and
//! the poll and CLI lifecycles call these; nothing else changes the session.

use super::actor::OltState;
use super::handle::ActionError;
use super::msg::{OltMsg, PollReply};
use super::session::{Cancel, Effect, Event, NextPoll, Refusal};
use super::view::OltSummary;
use crate::domain::{OltId, SessionStatus};
use crate::inventory::OltSpec;
use crate::store::Transition;
use chrono::Utc;
use ractor::ActorRef;
use std::time::Instant;

/// How many past state moves an OLT keeps.
const TRANSITIONS_KEPT: usize = 20;

impl OltState {
    /// Moves the session on `event` and carries out what the move asks. `reply` is the
    /// caller of poll-now or restart-session: refused, or answered after the poll.
    pub(super) fn fire(
        &mut self,
        myself: &ActorRef<OltMsg>,
        event: Event,
        reply: Option<PollReply>,
    ) {
        let effects = self.session.fire(event);
        self.apply(myself, effects, reply);
    }

    /// Carries out `effects` in order. The record's failure count follows the session's
    /// first, so a poll started here probes as the new count says.
    pub(super) fn apply(
        &mut self,
        myself: &ActorRef<OltMsg>,
        effects: Vec<Effect>,
        mut reply: Option<PollReply>,
    ) {
        self.record.failures_in_row = self.session.failures();
        let id = self.spec.id;
        let mut published: Option<OltSummary> = None;
        for effect in effects {
            match effect {
                Effect::Move(to, reason) => self.move_to(to, reason),
                Effect::Record(to, reason) => self.record_move(to, reason),
                Effect::SetError(error) => {
                    self.record_dirty |= self.record.last_error.as_ref() != Some(&error);
                    self.record.last_error = Some(error);
                }
                Effect::AbandonPoll => self.poll.abandon(),
                Effect::DropSnmp => {
                    // A new session reads every group again.
                    self.poll.drop_client();
                    self.schedule.forget();
                }
                Effect::FailActions(Cancel::Shutdown) => self.cli.cancel_for_shutdown(id),
                Effect::FailActions(cancel) => self.cli.fail_all(cancel.error(id)),
                Effect::FailPollWaiters(cancel) => self.poll.fail_waiters(cancel.error(id)),
                Effect::Poll => {
                    if self.poll.in_flight() {
                        if reply.is_some() {
                            self.poll.asked_during_flight();
                        }
                    } else {
                        self.start_poll(myself);
                    }
                }
                Effect::AwaitPoll => {
                    if let Some(reply) = reply.take() {
                        self.poll.wait(reply);
                    }
                }
                Effect::PollIfDue => {
                    if self.poll.is_due() {
                        self.start_poll(myself);
                    }
                }
                Effect::BackupIfDue => self.schedule_backup(myself),
                Effect::NextPoll(next) => self.poll.schedule(self.next_poll_at(next)),
                Effect::Refuse(refusal) => {
                    if let Some(reply) = reply.take() {
                        let _ = reply.send(Err(refusal.error(id)));
                    }
                }
                Effect::Persist => self.persist_record(),
                Effect::Publish => published = Some(self.publish()),
                Effect::AnswerPollWaiters => {
                    let summary = published.take().unwrap_or_else(|| self.summary());
                    self.poll.answer_waiters(Ok(summary));
                    // Asked while that poll ran: the next starts at once.
                    if self.poll.waits_for_next() && !self.poll.in_flight() {
                        self.start_poll(myself);
                    }
                }
            }
        }
        debug_assert_eq!(
            self.record.status,
            self.session.status(),
            "the recorded status follows the session's"
        );
    }

    /// `OltMsg::Reconfigure`: the inventory entry changed; the session moves as the new
    /// entry says (see [`super::session`]).
    pub(super) fn reconfigure(&mut self, myself: &ActorRef<OltMsg>, spec: OltSpec) {
        self.spec = spec;
        self.record_dirty = true;
        let enabled = self.spec.enabled;
        self.fire(myself, Event::Reconfigured { enabled }, None);
    }

    fn next_poll_at(&self, next: NextPoll) -> Instant {
        let now = Instant::now();
        match next {
            NextPoll::Now => now,
            NextPoll::Interval => now + self.intervals().status,
            NextPoll::Backoff(failures) => now + self.settings.backoff(failures),
        }
    }

    /// Shows `to`, recording the move unless `to` is already shown (the first move is
    /// always recorded).
    fn move_to(&mut self, to: SessionStatus, reason: String) {
        if self.record.status != to || self.record.transitions.is_empty() {
            self.record_move(to, reason);
        }
    }

    /// Records a move even when the status stays (a session restart is always news).
    /// Every status change of the OLT passes here.
    fn record_move(&mut self, to: SessionStatus, reason: String) {
        let from = self.record.transitions.last().map(|t| t.to);
        // `from` as the API spells it (`CONNECTING`), `new` for the first state.
        let from_name = from.map_or_else(|| "new".to_string(), |f| f.to_string());
        tracing::info!(olt = self.spec.id, from = %from_name, %to, %reason, "session state");
        self.record_dirty = true;
        self.record.status = to;
        self.record.since = Utc::now();
        self.record.transitions.push(Transition {
            at: self.record.since,
            from,
            to,
            reason,
        });
        let excess = self
            .record
            .transitions
            .len()
            .saturating_sub(TRANSITIONS_KEPT);
        self.record.transitions.drain(..excess);
    }

    pub(super) fn persist_onus(&mut self) {
        let saved = self
            .store
            .save_onus(self.spec.id, &self.onus.all(), self.onus.polled_at());
        // A table that could not be written is written again after the next poll.
        self.onus_unsaved = saved.is_err();
        if let Err(e) = saved {
            crate::store::log_write_error("cannot persist the ONU table", Some(self.spec.id), &e);
        }
    }

    /// Writes the OLT record: whole when it changed beyond its poll statistics, else
    /// only the statistics (a poll that changed nothing writes about 60 bytes).
    fn persist_record(&mut self) {
        let saved = if self.record_dirty {
            self.store.save_olt(&self.record)
        } else {
            self.store.save_poll_stats(&self.record)
        };
        self.record_dirty &= saved.is_err();
        if let Err(e) = saved {
            crate::store::log_write_error("cannot persist the OLT record", Some(self.spec.id), &e);
        }
    }
}

impl Refusal {
    /// What the refused caller is told.
    pub(super) fn error(self, olt: OltId) -> ActionError {
        match self {
            Refusal::ShuttingDown => {
                ActionError::ShuttingDown(format!("OLT {olt} takes no new actions"))
            }
            Refusal::Disabled => ActionError::Disabled(olt),
            Refusal::Stopped(reason) => ActionError::Unavailable(reason),
            Refusal::Offline => ActionError::Unavailable(format!("OLT {olt} is OFFLINE")),
        }
    }
}

impl Cancel {
    /// What a cancelled caller is told. CLI actions cancelled by a shutdown are told
    /// which action was interrupted or not started instead
    /// ([`super::cli_queue::CliQueue::cancel_for_shutdown`]).
    fn error(self, olt: OltId) -> ActionError {
        match self {
            Cancel::Restarted => ActionError::Unavailable(format!(
                "the session with OLT {olt} was restarted while the action waited or ran"
            )),
            Cancel::Disabled => ActionError::Disabled(olt),
            Cancel::Shutdown => {
                ActionError::ShuttingDown(format!("the poll of OLT {olt} was abandoned"))
            }
            Cancel::StoppedInShutdown => ActionError::ShuttingDown(format!("OLT {olt} stopped")),
            Cancel::Gone => ActionError::Gone(olt),
        }
    }
}
