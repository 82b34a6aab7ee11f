//! The OLT's session state (SPEC §3) and its lifecycle: the status moves and their
//! recorded transitions ([`OltState::move_to`], [`OltState::record_move`]), the first
//! status of a new actor, restart-session (on request, after a crash loop, on an
//! inventory change), DISABLED and back through `Reconfigure`, the service's shutdown,
//! and writing the OLT record and ONU table to sled. The actor's handler calls these; the
//! poll and CLI lifecycles call `move_to` and the persistence methods.

use super::actor::OltState;
use super::handle::ActionError;
use super::msg::{OltMsg, PollReply};
use crate::domain::SessionStatus;
use crate::inventory::OltSpec;
use crate::store::Transition;
use chrono::Utc;
use ractor::{ActorRef, RpcReplyPort};
use std::time::Instant;

/// How many past state moves an OLT keeps.
const TRANSITIONS_KEPT: usize = 20;

impl OltState {
    /// The first move of a new actor: OFFLINE with the reason when it was restarted
    /// stopped after a crash loop, CONNECTING when enabled, else DISABLED.
    pub(super) fn open_session(&mut self) {
        if let Some(reason) = self.stopped.clone() {
            self.record.last_error = Some(reason.clone());
            self.record_move(SessionStatus::Offline, reason);
            self.persist_record();
        } else if self.spec.enabled {
            self.record_move(SessionStatus::Connecting, "actor started".to_string());
        } else {
            self.move_to(SessionStatus::Disabled, "disabled in the inventory");
        }
    }

    /// Moves to `to` unless already there.
    pub(super) fn move_to(&mut self, to: SessionStatus, reason: impl Into<String>) {
        if self.record.status != to || self.record.transitions.is_empty() {
            self.record_move(to, reason.into());
        }
    }

    /// Records a move even when the status stays (a session restart is always news).
    /// Every status change of the OLT passes here.
    pub(super) fn record_move(&mut self, to: SessionStatus, reason: String) {
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

    /// Drops the SNMP client, the SSH session and everything in flight (the actions'
    /// callers are told), clears the backoff's count and moves to CONNECTING.
    pub(super) fn restart_session(&mut self, reason: &str) {
        self.abort_poll();
        self.poll.client = None;
        self.drop_cli(ActionError::Unavailable(format!(
            "the session with OLT {} was restarted while the action waited or ran",
            self.spec.id
        )));
        self.record.failures_in_row = 0;
        self.record_move(SessionStatus::Connecting, reason.to_string());
    }

    /// `OltMsg::RestartSession`: restarts the session (reviving an OLT stopped after a
    /// crash loop), polls at once and answers after that poll.
    pub(super) fn restart_on_request(&mut self, myself: &ActorRef<OltMsg>, reply: PollReply) {
        if self.shutting_down {
            let _ = reply.send(Err(self.takes_nothing_new()));
            return;
        }
        if !self.spec.enabled {
            let _ = reply.send(Err(ActionError::Disabled(self.spec.id)));
            return;
        }
        match self.stopped.take() {
            Some(_) => self.restart_session("restarted on request after a crash loop"),
            None => self.restart_session("session restarted on request"),
        }
        self.start_poll(myself);
        self.poll.waiters.push(reply);
        self.publish();
    }

    /// `OltMsg::Reconfigure`: the inventory entry changed. An enabled OLT restarts its
    /// session and polls at the next tick; a disabled one drops everything and moves to
    /// DISABLED; a stopped one takes the entry from its next restart-session.
    pub(super) fn reconfigure(&mut self, spec: OltSpec) {
        self.spec = spec;
        self.record_dirty = true;
        if self.stopped.is_some() {
            // Still stopped: the new entry applies from the next restart-session.
        } else if self.spec.enabled {
            self.restart_session("inventory changed");
            self.poll.next_at = Instant::now();
        } else {
            let id = self.spec.id;
            self.abort_poll();
            self.poll.client = None;
            self.drop_cli(ActionError::Disabled(id));
            self.move_to(SessionStatus::Disabled, "disabled in the inventory");
            self.poll.answer_waiters(Err(ActionError::Disabled(id)));
        }
        self.persist_record();
        self.publish();
    }

    /// `OltMsg::Shutdown`: abandons the poll, cancels the actions with a clear error and
    /// from now on refuses anything new the same way; answers when done.
    pub(super) fn shutdown(&mut self, reply: RpcReplyPort<()>) {
        let id = self.spec.id;
        self.shutting_down = true;
        self.abort_poll();
        self.poll
            .answer_waiters(Err(ActionError::ShuttingDown(format!(
                "the poll of OLT {id} was abandoned"
            ))));
        self.cancel_actions_for_shutdown();
        let _ = reply.send(());
    }

    /// The refusal of a new poll, restart or action once the service is stopping.
    pub(super) fn takes_nothing_new(&self) -> ActionError {
        ActionError::ShuttingDown(format!("OLT {} takes no new actions", self.spec.id))
    }

    pub(super) fn persist_onus(&self) {
        if let Err(e) = self
            .store
            .save_onus(self.spec.id, &self.onus.all(), self.onus.polled_at())
        {
            tracing::error!(olt = self.spec.id, error = %e, "cannot persist the ONU table");
        }
    }

    /// Writes the OLT record: whole when it changed beyond its poll statistics, else
    /// only the statistics (a poll that changed nothing writes about 60 bytes).
    pub(super) fn persist_record(&mut self) {
        let saved = if self.record_dirty {
            self.store.save_olt(&self.record)
        } else {
            self.store.save_poll_stats(&self.record)
        };
        self.record_dirty &= saved.is_err();
        if let Err(e) = saved {
            tracing::error!(olt = self.spec.id, error = %e, "cannot persist the OLT record");
        }
    }
}
