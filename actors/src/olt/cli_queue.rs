//! The OLT's queue of CLI actions: one runs at a time, in a task that borrows the SSH
//! session, the rest wait in order; the session is kept between actions; and the
//! scheduled config backups come due, retried sooner after a failure. The actions
//! themselves and what they achieve are in `actions.rs`.

use super::actions::CliAction;
use super::handle::ActionError;
use super::msg::ActionReply;
use crate::domain::OltId;
use crate::ssh::CliSession;
use std::collections::VecDeque;
use std::time::{Duration, Instant};
use tokio::task::JoinHandle;

/// A CLI action waiting or running; `reply` is `None` for a scheduled backup.
pub(super) struct CliJob {
    pub(super) action: CliAction,
    pub(super) reply: Option<ActionReply>,
}

/// The action whose task runs now.
pub(super) struct CliRunning {
    pub(super) generation: u64,
    pub(super) job: CliJob,
    pub(super) task: JoinHandle<()>,
}

/// How soon a scheduled backup that failed is first tried again (doubling with each
/// failure in a row, at most `backup_interval`).
pub(super) const BACKUP_RETRY: Duration = Duration::from_secs(10 * 60);

/// The CLI lifecycle's part of the OLT state.
pub(super) struct CliQueue {
    /// The SSH session while no action has it.
    session: Option<CliSession>,
    running: Option<CliRunning>,
    waiting: VecDeque<CliJob>,
    /// Counts the actions started; a report names the action it is about.
    generation: u64,
    next_backup_at: Instant,
    /// Scheduled backups that failed in a row.
    backup_failures: u32,
}

impl CliQueue {
    pub(super) fn new(next_backup_at: Instant) -> CliQueue {
        CliQueue {
            session: None,
            running: None,
            waiting: VecDeque::new(),
            backup_failures: 0,
            generation: 0,
            next_backup_at,
        }
    }

    /// How many CLI reads of MACs wait (a refresh's budget counts them).
    pub(super) fn waiting_mac_reads(&self) -> usize {
        let waiting = self.waiting.iter().map(|j| &j.action);
        waiting
            .filter(|a| matches!(a, CliAction::ReadMacs(_)))
            .count()
    }

    /// Whether the same action is already running or waiting.
    pub(super) fn is_busy(&self, action: &CliAction) -> bool {
        self.is_busy_with(action)
    }

    /// Whether the same action is already running or waiting.
    pub(super) fn is_busy_with(&self, action: &CliAction) -> bool {
        let running = self.running.as_ref().map(|r| &r.job);
        running
            .into_iter()
            .chain(self.waiting.iter())
            .any(|job| job.action.same_as(action))
    }

    /// Puts an action at the end of the queue; `reply` is `None` for a scheduled backup.
    pub(super) fn queue(&mut self, action: CliAction, reply: Option<ActionReply>) {
        self.waiting.push_back(CliJob { action, reply });
    }

    /// A scheduled backup ended: after a failure the next is due in [`BACKUP_RETRY`],
    /// doubling with each failure in a row, at most `interval`.
    pub(super) fn backup_done(&mut self, succeeded: bool, interval: Duration) {
        if succeeded {
            self.backup_failures = 0;
            return;
        }
        let retry = BACKUP_RETRY.saturating_mul(1 << self.backup_failures.min(16));
        self.backup_failures += 1;
        self.next_backup_at = Instant::now() + retry.min(interval);
    }

    /// When the next scheduled backup is due.
    pub(super) fn next_backup_at(&self) -> Instant {
        self.next_backup_at
    }

    /// Whether the scheduled backup is due at `now`; if it is, the next one is due
    /// `interval` later.
    pub(super) fn backup_due(&mut self, now: Instant, interval: Duration) -> bool {
        if now < self.next_backup_at {
            return false;
        }
        self.next_backup_at = now + interval;
        true
    }

    /// The next action to run, unless one is running.
    pub(super) fn next_job(&mut self) -> Option<CliJob> {
        if self.running.is_some() {
            return None;
        }
        self.waiting.pop_front()
    }

    /// Opens a run: its generation and the SSH session it borrows, if there is one.
    pub(super) fn begin(&mut self) -> (u64, Option<CliSession>) {
        self.generation += 1;
        (self.generation, self.session.take())
    }

    /// `job` runs as `generation` in `task`.
    pub(super) fn running(&mut self, generation: u64, job: CliJob, task: JoinHandle<()>) {
        self.running = Some(CliRunning {
            generation,
            job,
            task,
        });
    }

    /// Takes back the session a report of run `generation` returns, and answers its job;
    /// `None` for an action that a restart already abandoned.
    pub(super) fn finish(
        &mut self,
        generation: u64,
        session: Option<CliSession>,
    ) -> Option<CliJob> {
        let current = self.running.as_ref().map(|r| r.generation);
        if current != Some(generation) {
            return None;
        }
        self.session = session;
        self.running.take().map(|running| running.job)
    }

    /// Drops the SSH session and fails every CLI action running or waiting.
    pub(super) fn fail_all(&mut self, error: ActionError) {
        self.session = None;
        if let Some(running) = self.running.take() {
            running.task.abort();
            if let Some(reply) = running.job.reply {
                let _ = reply.send(Err(error.clone()));
            }
        }
        for job in self.waiting.drain(..) {
            if let Some(reply) = job.reply {
                let _ = reply.send(Err(error.clone()));
            }
        }
    }

    /// The service is stopping: the running action is interrupted and the waiting ones
    /// are not started, each caller told which.
    pub(super) fn cancel_for_shutdown(&mut self, olt: OltId) {
        if let Some(running) = self.running.take() {
            running.task.abort();
            let action = running.job.action.describe();
            tracing::warn!(olt, %action, "interrupted by the shutdown");
            if let Some(reply) = running.job.reply {
                let _ = reply.send(Err(ActionError::ShuttingDown(format!(
                    "{action} on OLT {olt} was interrupted; the device may have \
                     carried out part of it"
                ))));
            }
        }
        self.session = None;
        for job in self.waiting.drain(..) {
            if let Some(reply) = job.reply {
                let _ = reply.send(Err(ActionError::ShuttingDown(format!(
                    "{} on OLT {olt} was not started",
                    job.action.describe()
                ))));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn a_failed_scheduled_backup_is_retried_sooner_and_sooner_no_longer() {
        let day = Duration::from_secs(86_400);
        let mut queue = CliQueue::new(Instant::now());
        let due_in = |queue: &CliQueue| queue.next_backup_at.duration_since(Instant::now());
        queue.backup_done(false, day);
        assert!(due_in(&queue) <= BACKUP_RETRY && due_in(&queue) > BACKUP_RETRY / 2);
        queue.backup_done(false, day);
        assert!(due_in(&queue) > BACKUP_RETRY && due_in(&queue) <= BACKUP_RETRY * 2);
        for _ in 0..20 {
            queue.backup_done(false, day);
        }
        assert!(due_in(&queue) <= day && due_in(&queue) > day / 2);
        // A success starts the count again.
        queue.backup_done(true, day);
        queue.backup_done(false, day);
        assert!(due_in(&queue) <= BACKUP_RETRY);
    }
}
