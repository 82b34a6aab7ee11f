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
use crate::profile::Profile;
use crate::ssh::{CliError, CliSession, CliTarget};
use crate::store::{ConfigBackup, Store};
use chrono::Utc;
use ractor::ActorRef;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// The profiles an ONU is given: at least one of the two.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileChange {
    pub line: Option<String>,
    pub service: Option<String>,
}

/// An action carried out over the OLT's CLI.
#[derive(Debug, Clone, PartialEq)]
pub enum CliAction {
    Reboot(OnuId),
    SetVlan(OnuId, u16),
    SetDescription(OnuId, String),
    /// Another line and/or service profile, by the id the OLT's listing gives.
    SetProfiles(OnuId, ProfileChange),
    Backup,
    /// Provisioning ([`crate::provision::cli`]).
    Provision(crate::provision::cli::ProvisionJob),
    /// Read the MACs behind ONUs on the CLI ([`super::mac_reads`]).
    ReadMacs(super::mac_reads::MacScope),
}

impl CliAction {
    /// Whether two actions are "the same action" for the busy check: the same kind on
    /// the same ONU (any two backups of one OLT).
    pub(super) fn same_as(&self, other: &CliAction) -> bool {
        match (self, other) {
            (CliAction::Reboot(a), CliAction::Reboot(b)) => a == b,
            (CliAction::SetVlan(a, _), CliAction::SetVlan(b, _)) => a == b,
            (CliAction::SetDescription(a, _), CliAction::SetDescription(b, _)) => a == b,
            (CliAction::SetProfiles(a, _), CliAction::SetProfiles(b, _)) => a == b,
            (CliAction::Backup, CliAction::Backup) => true,
            (CliAction::ReadMacs(a), CliAction::ReadMacs(b)) => a == b,
            _ => false,
        }
    }

    pub(super) fn describe(&self) -> String {
        match self {
            CliAction::Reboot(onu) => format!("a reboot of ONU {onu}"),
            CliAction::SetVlan(onu, _) => format!("a VLAN change of ONU {onu}"),
            CliAction::SetDescription(onu, _) => format!("a description change of ONU {onu}"),
            CliAction::SetProfiles(onu, _) => format!("a profile change of ONU {onu}"),
            CliAction::Backup => "a config backup".to_string(),
            CliAction::Provision(job) => job.describe(),
            CliAction::ReadMacs(super::mac_reads::MacScope::Olt) => "a read of the MACs".into(),
            CliAction::ReadMacs(super::mac_reads::MacScope::Onu(onu)) => {
                format!("a read of the MACs behind ONU {onu}")
            }
        }
    }
}

/// The lines of a profile change: the line profile's script, then the service
/// profile's, for what the change names; none where either is unknown (501).
fn profile_scripts(profile: &'static CliProfile, change: &ProfileChange) -> Vec<&'static str> {
    let parts = [
        (change.line.is_some(), profile.set_line_profile),
        (change.service.is_some(), profile.set_service_profile),
    ];
    if parts
        .iter()
        .any(|(wanted, script)| *wanted && script.is_empty())
    {
        return Vec::new();
    }
    parts
        .iter()
        .filter(|(wanted, _)| *wanted)
        .flat_map(|(_, script)| script.iter().copied())
        .collect()
}

/// The refusal of an action whose command the OLT's family has none of (SNR's CLI, an
/// Eltex VLAN): 501 naming the family, never a guess sent to the device.
fn unknown_command(olt: OltId, layout: &Profile, action: &CliAction) -> ActionError {
    ActionError::NotSupported(format!(
        "OLT {olt} is of the {} family ({}), for which no public source gives the command \
         for {}; ponkeeper does not guess one",
        layout.layout,
        layout.family,
        action.describe()
    ))
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
        | CliAction::SetDescription(onu, _)
        | CliAction::SetProfiles(onu, _) = action
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
        let enable_password = match &ssh.enable_password_env {
            None => None,
            Some(variable) => Some(std::env::var(variable).map_err(|_| {
                ActionError::Unavailable(format!(
                    "the enable password of OLT {id} is missing: environment variable {variable} is not set"
                ))
            })?),
        };
        Ok(CliTarget {
            addr: SocketAddr::new(self.spec.ip, ssh.port),
            username: ssh.username.clone(),
            password,
            enable_password,
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
        if !self.takes_backups() {
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

    /// Whether this OLT has scheduled backups. One without `ssh` in the inventory has
    /// none to take (not worth a warning a day each), nor one of a family whose running
    /// configuration no source shows (SNR).
    pub(super) fn takes_backups(&self) -> bool {
        self.spec.ssh.is_some()
            && !self
                .profile()
                .is_some_and(|layout| layout.cli.running_config.is_empty())
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
            CliAction::Backup if profile.running_config.is_empty() => {
                return Err(unknown_command(self.spec.id, layout, action))
            }
            CliAction::Backup => return Ok(Script::Backup(profile)),
            CliAction::ReadMacs(scope) => {
                return Ok(Script::Macs(profile, self.mac_script(*scope)?))
            }
            CliAction::Provision(job) => {
                // The layout's own table: a C620 is not provisioned with a C320's commands.
                let table = crate::profile::provisioning::Provisioning::for_profile(layout)
                    .ok_or_else(|| {
                        ActionError::NotSupported(format!(
                            "provisioning ONUs on OLT {} is not supported on the {} family \
                             ({}): no public source gives its commands",
                            self.spec.id, layout.layout, layout.family
                        ))
                    })?;
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
            CliAction::Reboot(onu) => (onu, profile.reboot.to_vec()),
            CliAction::SetVlan(onu, _) => (onu, profile.set_vlan.to_vec()),
            CliAction::SetDescription(onu, _) => (onu, profile.set_description.to_vec()),
            CliAction::SetProfiles(onu, change) => (onu, profile_scripts(profile, change)),
        };
        if lines.is_empty() {
            return Err(unknown_command(self.spec.id, layout, action));
        }
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
            CliAction::SetProfiles(_, change) => {
                values.extend(change.line.clone().map(|line| ("line", line)));
                values.extend(change.service.clone().map(|s| ("service", s)));
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
            (CliAction::ReadMacs(_), CliDone::Macs(done)) => Ok(self.macs_read(done)),
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
                        .insert((o.pon_port.to_string(), o.onu_index), *vlan);
                }
                self.persist_onus();
                onu_outcome(*onu, updated)
            }
            (CliAction::SetProfiles(onu, _), _) => onu_outcome(*onu, self.onus.get(*onu)),
            (CliAction::SetDescription(onu, description), _) => {
                let updated = self
                    .onus
                    .update(*onu, |o| o.description = description.into());
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
