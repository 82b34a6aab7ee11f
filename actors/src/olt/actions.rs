//! The OLT's CLI lifecycle: the actions callers ask for ([`CliAction`]) and what they
//! achieve ([`ActionOutcome`]); admission (refused while DISABLED, stopped, OFFLINE,
//! without SSH, or busy with the same action), the queue (one action runs at a time, in
//! a task that borrows the SSH session and reports with [`OltMsg::CliFinished`]), the
//! vendor's script rendered for the ONU, what a finished action changes in the ONU table,
//! the scheduled config backups, and cancelling everything on restart or shutdown.

use super::actor::OltState;
use super::handle::ActionError;
use super::merge::TableEdit;
use super::msg::{ActionReply, CliDone, CliReport, OltMsg};
use crate::domain::{OltId, Onu, OnuId};
use crate::profile::commands::{port_values, render, service_vlans, CliProfile};
use crate::ssh::{CliError, CliSession, CliTarget};
use crate::store::{ConfigBackup, Store};
use chrono::Utc;
use ractor::ActorRef;
use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::task::JoinHandle;

/// An action carried out over the OLT's CLI.
#[derive(Debug, Clone, PartialEq)]
pub enum CliAction {
    Reboot(OnuId),
    SetVlan(OnuId, u16),
    SetDescription(OnuId, String),
    Backup,
    /// Provisioning ([`crate::provision::cli`]).
    Provision(crate::provision::cli::ProvisionJob),
    /// Read the MACs behind ONUs on the CLI ([`super::mac_reads`]).
    ReadMacs(super::mac_reads::MacScope),
}

impl CliAction {
    /// Whether two actions are "the same action" for the busy check: the same kind on
    /// the same ONU (any two backups of one OLT).
    fn same_as(&self, other: &CliAction) -> bool {
        match (self, other) {
            (CliAction::Reboot(a), CliAction::Reboot(b)) => a == b,
            (CliAction::SetVlan(a, _), CliAction::SetVlan(b, _)) => a == b,
            (CliAction::SetDescription(a, _), CliAction::SetDescription(b, _)) => a == b,
            (CliAction::Backup, CliAction::Backup) => true,
            (CliAction::ReadMacs(a), CliAction::ReadMacs(b)) => a == b,
            _ => false,
        }
    }

    fn describe(&self) -> String {
        match self {
            CliAction::Reboot(onu) => format!("a reboot of ONU {onu}"),
            CliAction::SetVlan(onu, _) => format!("a VLAN change of ONU {onu}"),
            CliAction::SetDescription(onu, _) => format!("a description change of ONU {onu}"),
            CliAction::Backup => "a config backup".to_string(),
            CliAction::Provision(job) => job.describe(),
            CliAction::ReadMacs(super::mac_reads::MacScope::Olt) => "a read of the MACs".into(),
            CliAction::ReadMacs(super::mac_reads::MacScope::Onu(onu)) => {
                format!("a read of the MACs behind ONU {onu}")
            }
        }
    }
}

/// What a CLI action achieved.
#[derive(Debug, Clone, PartialEq)]
pub enum ActionOutcome {
    /// The device accepted the reboot.
    Rebooted(OnuId),
    /// The ONU as it is after the change.
    Onu(Box<Onu>),
    /// The version holding the configuration just fetched.
    Backup(ConfigBackup),
    /// What a provisioning job found or did.
    Provisioned(crate::provision::cli::ProvisionDone),
    /// The MACs were read and recorded.
    MacsRead,
}

/// A CLI action waiting or running; `reply` is `None` for a scheduled backup.
struct CliJob {
    action: CliAction,
    reply: Option<ActionReply>,
}

/// The action whose task runs now.
struct CliRunning {
    generation: u64,
    job: CliJob,
    task: JoinHandle<()>,
}

/// How soon a scheduled backup that failed is first tried again (doubling with each
/// failure in a row, at most `backup_interval`).
const BACKUP_RETRY: Duration = Duration::from_secs(10 * 60);

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
    fn is_busy_with(&self, action: &CliAction) -> bool {
        let running = self.running.as_ref().map(|r| &r.job);
        running
            .into_iter()
            .chain(self.waiting.iter())
            .any(|job| job.action.same_as(action))
    }

    /// Puts an action at the end of the queue; `reply` is `None` for a scheduled backup.
    fn queue(&mut self, action: CliAction, reply: Option<ActionReply>) {
        self.waiting.push_back(CliJob { action, reply });
    }

    /// A scheduled backup ended: after a failure the next is due in [`BACKUP_RETRY`],
    /// doubling with each failure in a row, at most `interval`.
    fn backup_done(&mut self, succeeded: bool, interval: Duration) {
        if succeeded {
            self.backup_failures = 0;
            return;
        }
        let retry = BACKUP_RETRY.saturating_mul(1 << self.backup_failures.min(16));
        self.backup_failures += 1;
        self.next_backup_at = Instant::now() + retry.min(interval);
    }

    /// Whether the scheduled backup is due at `now`; if it is, the next one is due
    /// `interval` later.
    fn backup_due(&mut self, now: Instant, interval: Duration) -> bool {
        if now < self.next_backup_at {
            return false;
        }
        self.next_backup_at = now + interval;
        true
    }

    /// The next action to run, unless one is running.
    fn next_job(&mut self) -> Option<CliJob> {
        if self.running.is_some() {
            return None;
        }
        self.waiting.pop_front()
    }

    /// Opens a run: its generation and the SSH session it borrows, if there is one.
    fn begin(&mut self) -> (u64, Option<CliSession>) {
        self.generation += 1;
        (self.generation, self.session.take())
    }

    /// `job` runs as `generation` in `task`.
    fn running(&mut self, generation: u64, job: CliJob, task: JoinHandle<()>) {
        self.running = Some(CliRunning {
            generation,
            job,
            task,
        });
    }

    /// Takes back the session a report of run `generation` returns, and answers its job;
    /// `None` for an action that a restart already abandoned.
    fn finish(&mut self, generation: u64, session: Option<CliSession>) -> Option<CliJob> {
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

/// What a CLI task runs.
enum Script {
    Lines(&'static CliProfile, Vec<String>),
    Backup(&'static CliProfile),
    Provision(
        &'static CliProfile,
        &'static crate::profile::provisioning::Provisioning,
        crate::provision::cli::ProvisionJob,
    ),
    Macs(&'static CliProfile, super::mac_reads::MacScript),
}

impl OltState {
    /// `OltMsg::Cli`: queues the action if it is admitted, else refuses it at once.
    pub(super) fn queue_action(
        &mut self,
        myself: &ActorRef<OltMsg>,
        action: CliAction,
        reply: ActionReply,
    ) {
        match self.admit(&action) {
            Err(error) => {
                let _ = reply.send(Err(error));
            }
            Ok(()) => {
                self.cli.queue(action, Some(reply));
                self.start_cli(myself);
            }
        }
    }

    /// Whether an action may be queued now.
    fn admit(&self, action: &CliAction) -> Result<(), ActionError> {
        let id = self.spec.id;
        if let Some(refusal) = self.session.action_refusal() {
            return Err(refusal.error(id));
        }
        self.cli_target()?;
        if let CliAction::Reboot(onu)
        | CliAction::SetVlan(onu, _)
        | CliAction::SetDescription(onu, _) = action
        {
            self.onus.get(*onu).ok_or(ActionError::OnuNotFound(*onu))?;
        }
        if self.cli.is_busy_with(action) {
            return Err(ActionError::Busy(format!(
                "{} on OLT {id} is already running",
                action.describe()
            )));
        }
        Ok(())
    }

    /// The SSH target of this OLT, or why there is none. Reads the password from the
    /// environment variable the inventory names.
    fn cli_target(&self) -> Result<CliTarget, ActionError> {
        let id = self.spec.id;
        let ssh = self.spec.ssh.as_ref().ok_or_else(|| {
            ActionError::Unavailable(format!("OLT {id} has no `ssh` in the inventory"))
        })?;
        let password = std::env::var(&ssh.password_env).map_err(|_| {
            ActionError::Unavailable(format!(
                "the SSH password of OLT {id} is missing: environment variable {} is not set",
                ssh.password_env
            ))
        })?;
        Ok(CliTarget {
            addr: SocketAddr::new(self.spec.ip, ssh.port),
            username: ssh.username.clone(),
            password,
            host_key: ssh
                .host_key
                .as_ref()
                .map(|pin| pin.fingerprint().to_string()),
        })
    }

    /// Queues an action nobody waits for (a scheduled backup or MAC read).
    pub(super) fn queue_scheduled(&mut self, myself: &ActorRef<OltMsg>, action: CliAction) {
        match self.admit(&action) {
            Ok(()) => {
                self.cli.queue(action, None);
                self.start_cli(myself);
            }
            Err(error) => {
                tracing::warn!(olt = self.spec.id, %error, "scheduled {} skipped", action.describe());
            }
        }
    }

    /// Queues the scheduled backup when it is due (the timer's tick, in the session
    /// states that take backups: after the first poll, not disabled or stopped).
    pub(super) fn schedule_backup(&mut self, myself: &ActorRef<OltMsg>) {
        // An OLT without `ssh` in the inventory has no backups to take (not worth a
        // warning a day each).
        if self.spec.ssh.is_none() {
            return;
        }
        if !self
            .cli
            .backup_due(Instant::now(), self.settings.backup_interval)
        {
            return;
        }
        self.queue_scheduled(myself, CliAction::Backup);
    }

    /// Starts the next queued action unless one is running.
    fn start_cli(&mut self, myself: &ActorRef<OltMsg>) {
        let Some(job) = self.cli.next_job() else {
            return;
        };
        let prepared = self
            .cli_target()
            .and_then(|target| Ok((target, self.script(&job.action)?)));
        let (target, script) = match prepared {
            Ok(prepared) => prepared,
            Err(error) => {
                if let Some(reply) = job.reply {
                    let _ = reply.send(Err(error));
                }
                return self.start_cli(myself);
            }
        };
        let (generation, session) = self.cli.begin();
        let step = self.settings.cli_timeout;
        let deadline = self.settings.deadline.max(step);
        let store = self.store.clone();
        let olt = self.spec.id;
        let myself = myself.clone();
        let task = tokio::spawn(async move {
            let run = run_script(session, &target, script, step, store, olt);
            let (session, result) = match tokio::time::timeout(deadline, run).await {
                Ok(done) => done,
                Err(_) => (
                    None,
                    Err(ActionError::Timeout(format!(
                        "OLT {olt} did not finish the action within {deadline:?}"
                    ))),
                ),
            };
            let _ = myself.send_message(OltMsg::CliFinished(Box::new(CliReport {
                generation,
                session,
                result,
            })));
        });
        self.cli.running(generation, job, task);
    }

    /// The CLI lines of an action, rendered for its ONU.
    fn script(&self, action: &CliAction) -> Result<Script, ActionError> {
        let layout = self
            .profile()
            .ok_or_else(|| ActionError::Unavailable(super::VENDOR_NOT_DETECTED.into()))?;
        let profile = layout.cli;
        let (onu, lines) = match action {
            CliAction::Backup => return Ok(Script::Backup(profile)),
            CliAction::ReadMacs(scope) => {
                return Ok(Script::Macs(profile, self.mac_script(*scope)?))
            }
            CliAction::Provision(job) => {
                // The layout's own table: a C620 is not provisioned with a C320's commands.
                let table = crate::profile::provisioning::Provisioning::for_profile(layout);
                if *job == crate::provision::cli::ProvisionJob::ListProfiles
                    && table.profiles.is_none()
                {
                    return Err(ActionError::NotSupported(format!(
                        "listing the ONU profiles of OLT {} is not supported on the {} family \
                         ({}): no source settles the command; the device checks the ONU type \
                         an authorisation names",
                        self.spec.id, layout.layout, layout.family
                    )));
                }
                return Ok(Script::Provision(profile, table, job.clone()));
            }
            CliAction::Reboot(onu) => (onu, profile.reboot),
            CliAction::SetVlan(onu, _) => (onu, profile.set_vlan),
            CliAction::SetDescription(onu, _) => (onu, profile.set_description),
        };
        let onu = self.onus.get(*onu).ok_or(ActionError::OnuNotFound(*onu))?;
        let mut values: HashMap<&str, String> = port_values(&onu.pon_port).into_iter().collect();
        values.insert("onu", onu.onu_index.to_string());
        match action {
            CliAction::SetVlan(_, vlan) => {
                values.insert("vlan", vlan.to_string());
            }
            CliAction::SetDescription(_, description) => {
                values.insert("description", description.clone());
            }
            _ => {}
        }
        Ok(Script::Lines(
            profile,
            lines.iter().map(|line| render(line, &values)).collect(),
        ))
    }

    /// `OltMsg::CliFinished`: takes the session back, applies what the action changed,
    /// answers its caller, and starts the next action. A report of an action that a
    /// restart abandoned changes nothing.
    pub(super) fn finish_cli(&mut self, myself: &ActorRef<OltMsg>, report: CliReport) {
        // `None`: an action that a restart already abandoned.
        if let Some(job) = self.cli.finish(report.generation, report.session) {
            let outcome = report
                .result
                .and_then(|done| self.action_done(&job.action, done));
            // An ONU's VLAN or description is now as the action left it: the fleet view
            // hears of it before the caller.
            self.publish();
            if job.reply.is_none() && job.action == CliAction::Backup {
                // A scheduled backup that failed (the device, or a full disk) is tried
                // again soon, then less and less often, never later than the interval.
                self.cli
                    .backup_done(outcome.is_ok(), self.settings.backup_interval);
            }
            self.report_action(outcome, job.reply);
        }
        self.start_cli(myself);
    }

    /// Applies to the ONU table (and sled) what a script that ran has changed.
    fn action_done(
        &mut self,
        action: &CliAction,
        done: CliDone,
    ) -> Result<ActionOutcome, ActionError> {
        match (action, done) {
            (CliAction::ReadMacs(_), CliDone::Macs(moves)) => Ok(self.macs_read(moves)),
            (CliAction::ReadMacs(_), _) => {
                Err(ActionError::Device("the MAC read reported nothing".into()))
            }
            (CliAction::Backup, CliDone::Backup(backup, vlans)) => {
                if backup.changed {
                    self.publish_config(backup.id, backup.taken_at);
                }
                self.vlan_map = vlans;
                self.poll.note_edit(TableEdit::Vlans);
                if self.onus.set_vlans(&self.vlan_map) {
                    self.persist_onus();
                }
                Ok(ActionOutcome::Backup(backup))
            }
            (CliAction::Backup, _) => Err(ActionError::Device(
                "the device printed no running configuration".into(),
            )),
            (CliAction::Provision(job), CliDone::Provisioned(done)) => {
                self.provisioned(job);
                Ok(ActionOutcome::Provisioned(done))
            }
            (CliAction::Provision(_), _) => Err(ActionError::Device(
                "the provisioning job reported nothing".into(),
            )),
            (CliAction::Reboot(onu), _) => Ok(ActionOutcome::Rebooted(*onu)),
            (CliAction::SetVlan(onu, vlan), _) => {
                let updated = self.onus.update(*onu, |o| o.vlan = Some(*vlan));
                self.poll.note_edit(TableEdit::Vlan(*onu, *vlan));
                if let Some(o) = &updated {
                    self.vlan_map
                        .insert((o.pon_port.clone(), o.onu_index), *vlan);
                }
                self.persist_onus();
                onu_outcome(*onu, updated)
            }
            (CliAction::SetDescription(onu, description), _) => {
                let updated = self
                    .onus
                    .update(*onu, |o| o.description = description.clone());
                self.poll
                    .note_edit(TableEdit::Description(*onu, description.clone()));
                self.persist_onus();
                onu_outcome(*onu, updated)
            }
        }
    }

    /// Counts the action, logs a scheduled backup's result and answers the caller.
    fn report_action(
        &self,
        outcome: Result<ActionOutcome, ActionError>,
        reply: Option<ActionReply>,
    ) {
        let olt = self.spec.id;
        match (&outcome, &reply) {
            (Err(error), None) => {
                tracing::warn!(olt, %error, "a scheduled CLI action failed");
            }
            (Ok(ActionOutcome::Backup(b)), None) => {
                tracing::info!(
                    olt,
                    id = b.id,
                    changed = b.changed,
                    "scheduled config backup"
                );
            }
            _ => {}
        }
        let result = if outcome.is_ok() {
            "success"
        } else {
            "failure"
        };
        metrics::counter!("ponkeeper_cli_actions_total", "result" => result).increment(1);
        if let Some(reply) = reply {
            let _ = reply.send(outcome);
        }
    }
}

fn onu_outcome(id: OnuId, updated: Option<Onu>) -> Result<ActionOutcome, ActionError> {
    updated
        .map(|onu| ActionOutcome::Onu(Box::new(onu)))
        .ok_or(ActionError::OnuNotFound(id))
}

/// Runs a script on the session (opened first if there is none or it closed); returns
/// the session while it is still usable. A refused line ends the script and the session
/// goes back to privileged mode; a timeout or a closed connection drops it.
async fn run_script(
    session: Option<CliSession>,
    target: &CliTarget,
    script: Script,
    step: Duration,
    store: Store,
    olt: OltId,
) -> (Option<CliSession>, Result<CliDone, ActionError>) {
    let profile = match &script {
        Script::Lines(profile, _)
        | Script::Backup(profile)
        | Script::Provision(profile, ..)
        | Script::Macs(profile, _) => *profile,
    };
    let mut session = match session.filter(|s| !s.is_closed()) {
        Some(session) => session,
        None => match crate::host_keys::open_session(&store, olt, target, profile, step).await {
            Ok(session) => session,
            Err(error) => return (None, Err(cli_error(olt, error))),
        },
    };
    let script = match script {
        Script::Macs(_, read) => return super::mac_reads::run(session, read, step, store).await,
        other => other,
    };
    let lines = match &script {
        Script::Lines(_, lines) => lines.clone(),
        Script::Macs(..) => Vec::new(),
        Script::Backup(profile) => vec![profile.running_config.to_string()],
        Script::Provision(_, table, job) => {
            let done = crate::provision::cli::run(&mut session, table, profile, job, step).await;
            return match done {
                Ok(done) => (Some(session), Ok(CliDone::Provisioned(done))),
                Err(error @ CliError::Rejected { .. }) => {
                    let usable = session.leave(step).await.is_ok();
                    (usable.then_some(session), Err(cli_error(olt, error)))
                }
                Err(error) => (None, Err(cli_error(olt, error))),
            };
        }
    };
    let mut output = String::new();
    for line in &lines {
        match session.run(line, step).await {
            Ok(text) => output = text,
            Err(error @ CliError::Rejected { .. }) => {
                let usable = session.leave(step).await.is_ok();
                return (usable.then_some(session), Err(cli_error(olt, error)));
            }
            Err(error) => return (None, Err(cli_error(olt, error))),
        }
    }
    match script {
        Script::Lines(..) | Script::Provision(..) | Script::Macs(..) => {
            (Some(session), Ok(CliDone::Ran))
        }
        Script::Backup(profile) => {
            let content = normalise_config(&output);
            match store.save_config(olt, &content, Utc::now()).await {
                Ok(backup) => {
                    let vlans = service_vlans(profile, &content);
                    (Some(session), Ok(CliDone::Backup(backup, vlans)))
                }
                Err(e) => (
                    Some(session),
                    Err(ActionError::Unavailable(format!(
                        "cannot store the backup: {e}"
                    ))),
                ),
            }
        }
    }
}

/// The configuration text as stored: lines without trailing spaces, one final newline.
fn normalise_config(output: &str) -> String {
    let mut text: String = output
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n");
    text.push('\n');
    text
}

fn cli_error(olt: OltId, error: CliError) -> ActionError {
    match error {
        CliError::Rejected { .. } => ActionError::Device(error.to_string()),
        CliError::Timeout { .. } => ActionError::Timeout(format!("OLT {olt}: {error}")),
        CliError::Connect(..)
        | CliError::Login(_)
        | CliError::Closed
        | CliError::ClosedDuring(_)
        | CliError::HostKeyRefused { .. }
        | CliError::HostKeyMismatch { .. } => {
            ActionError::Unavailable(format!("OLT {olt}: {error}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_scheduled_backup_is_retried_sooner_and_sooner_no_longer() {
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
