//! Reading the MACs behind ONUs (`macs` group, `POST /onus/{id}/macs/refresh`). BDCOM's
//! forwarding table is read by the poll itself ([`crate::poller`]); a refresh there asks
//! the next poll for it and is answered when that poll is merged. Huawei and ZTE show
//! their MACs on the command line: the poll group queues one CLI read of every PON port
//! after the poll that found it due, and a refresh queues the ONU's own command; both
//! run in the CLI queue's task on the OLT's SSH session, one at a time, and are recorded
//! on the blocking pool before anyone is answered. A refresh is refused with a time to
//! come back once as many wait as the OLT's budget allows in a second.

use super::actions::{ActionOutcome, CliAction};
use super::actor::OltState;
use super::handle::ActionError;
use super::msg::{ActionReply, CliDone, OltMsg};
use crate::domain::{OltId, Onu, OnuId, SessionStatus};
use crate::macs::{cli, MacMove, MacRead, MacSource};
use crate::profile::commands::{is_safe_port, port_values, render, CliMacs};
use crate::ssh::{CliError, CliSession};
use crate::store::Store;
use chrono::Utc;
use ractor::ActorRef;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Which ONUs a CLI read of MACs covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MacScope {
    /// Every ONU, one command per PON port (the poll group).
    Olt,
    /// One ONU (a refresh).
    Onu(OnuId),
}

/// A CLI read, ready for the task: the commands and the ONUs they cover.
pub(super) struct MacScript {
    pub(super) olt: OltId,
    pub(super) macs: &'static CliMacs,
    pub(super) scope: MacScope,
    /// Each command with the PON port it reads.
    pub(super) commands: Vec<(String, String)>,
    pub(super) onus: Vec<Onu>,
}

/// A caller waiting for a poll to read the forwarding table.
pub(super) struct MacWaiter {
    after: u64,
    reply: ActionReply,
}

impl OltState {
    /// `OltMsg::RefreshMacs`: reads ONU `onu`'s MACs now, or refuses at once.
    pub(super) fn refresh_macs(
        &mut self,
        myself: &ActorRef<OltMsg>,
        onu: OnuId,
        reply: ActionReply,
    ) {
        if let Err(refusal) = self.macs_admitted(onu) {
            let _ = reply.send(Err(refusal));
            return;
        }
        match self.profile().map(MacSource::of) {
            Some(MacSource::Fdb) => {
                self.schedule.hurry_macs();
                let after = self.poll.generation();
                self.mac_waiters.push(MacWaiter { after, reply });
                if !self.poll.in_flight() {
                    self.poll.schedule(Instant::now());
                    self.fire(myself, super::session::Event::Tick, None);
                }
            }
            Some(MacSource::Cli(_)) => {
                self.queue_action(myself, CliAction::ReadMacs(MacScope::Onu(onu)), reply)
            }
            _ => {
                let _ = reply.send(Ok(ActionOutcome::MacsRead));
            }
        }
    }

    /// Why ONU `onu`'s MACs cannot be read now, if they cannot.
    fn macs_admitted(&self, onu: OnuId) -> Result<(), ActionError> {
        if self.onus.get_ref(onu).is_none() {
            return Err(ActionError::OnuNotFound(onu));
        }
        if !matches!(
            self.record.status,
            SessionStatus::Online | SessionStatus::Degraded
        ) {
            return Err(ActionError::Unavailable(format!(
                "OLT {} is {}: its ONUs cannot be read now",
                self.spec.id, self.record.status
            )));
        }
        let waiting = self.mac_waiters.len() + self.cli.waiting_mac_reads();
        let rate = self.pacing.rate();
        if waiting >= rate.floor().max(1.0) as usize {
            let seconds = (waiting as f64 / rate.max(1.0)).ceil().max(1.0);
            return Err(ActionError::RateLimited {
                retry_after: Duration::from_secs_f64(seconds),
                reason: format!(
                    "OLT {} already has {waiting} MAC reads waiting, as many as its budget of {rate:.0} requests a second allows",
                    self.spec.id
                ),
            });
        }
        Ok(())
    }

    /// Answers the callers waiting for the forwarding table that poll `generation`
    /// served (those waiting since before it started).
    pub(super) fn answer_mac_waiters(&mut self, generation: u64, failure: Option<&str>) {
        let (served, waiting) = std::mem::take(&mut self.mac_waiters)
            .into_iter()
            .partition::<Vec<_>, _>(|w| w.after < generation);
        self.mac_waiters = waiting;
        for waiter in served {
            let answer = match failure {
                Some(error) => Err(ActionError::Unavailable(format!(
                    "the OLT did not answer the read: {error}"
                ))),
                None => Ok(ActionOutcome::MacsRead),
            };
            let _ = waiter.reply.send(answer);
        }
    }

    /// After a good poll whose plan had the `macs` group: for a layout that shows its
    /// MACs on the CLI, one read of every port is queued (unless one already waits).
    pub(super) fn queue_mac_read(&mut self, myself: &ActorRef<OltMsg>) {
        if !matches!(self.profile().map(MacSource::of), Some(MacSource::Cli(_))) {
            return;
        }
        let action = CliAction::ReadMacs(MacScope::Olt);
        if self.spec.ssh.is_none() || self.cli.is_busy(&action) {
            return;
        }
        self.queue_scheduled(myself, action);
    }

    /// The commands of a CLI read of `scope`.
    pub(super) fn mac_script(&self, scope: MacScope) -> Result<MacScript, ActionError> {
        let layout = self
            .profile()
            .ok_or_else(|| ActionError::Unavailable(super::VENDOR_NOT_DETECTED.into()))?;
        let MacSource::Cli(macs) = MacSource::of(layout) else {
            return Err(ActionError::NotSupported(format!(
                "OLT {} does not show its MACs on the command line",
                self.spec.id
            )));
        };
        let onus: Vec<Onu> = match scope {
            MacScope::Olt => self.onus.all().iter().cloned().collect(),
            MacScope::Onu(id) => vec![self.onus.get(id).ok_or(ActionError::OnuNotFound(id))?],
        };
        let mut commands: Vec<(String, String)> = Vec::new();
        for onu in onus.iter().filter(|o| is_safe_port(&o.pon_port)) {
            let mut values: HashMap<&str, String> =
                port_values(&onu.pon_port).into_iter().collect();
            values.insert("onu", onu.onu_index.to_string());
            let template = match scope {
                MacScope::Olt => macs.port,
                MacScope::Onu(_) => macs.onu,
            };
            let command = render(template, &values);
            if !commands.iter().any(|(_, c)| *c == command) {
                commands.push((onu.pon_port.to_string(), command));
            }
        }
        Ok(MacScript {
            olt: self.spec.id,
            macs,
            scope,
            commands,
            onus,
        })
    }

    /// A finished CLI read: its moves go to the fleet view; a sweep's ports that could
    /// not be read are the OLT's warnings until the next sweep.
    pub(super) fn macs_read(&mut self, done: MacsDone) -> ActionOutcome {
        self.publisher.macs_moved(self.spec.id, done.moves);
        if done.scope == MacScope::Olt && self.mac_warnings != done.warnings {
            let old = std::mem::replace(&mut self.mac_warnings, done.warnings);
            self.record.warnings.retain(|w| !old.contains(w));
            self.record
                .warnings
                .extend(self.mac_warnings.iter().cloned());
            self.record_dirty = true;
        }
        ActionOutcome::MacsRead
    }
}

/// A recorded CLI read of MACs.
#[derive(Debug)]
pub struct MacsDone {
    pub(super) scope: MacScope,
    /// The MACs it saw move.
    pub moves: Vec<MacMove>,
    /// The ports of a sweep the device refused, each named with its answer.
    pub warnings: Vec<String>,
}

/// Runs a CLI read's commands, parses what they print and records it (on the blocking
/// pool); the session back while usable. In a sweep of every port, a port the device
/// refuses costs that port alone: its ONUs keep the MACs they had, and the refusal is
/// a warning; a read of one ONU that is refused is the read's failure.
pub(super) async fn run(
    mut session: CliSession,
    script: MacScript,
    step: Duration,
    store: Store,
) -> (Option<CliSession>, Result<CliDone, ActionError>) {
    let olt = script.olt;
    let mut sightings = Vec::new();
    let mut warnings = Vec::new();
    let mut unread: Vec<&str> = Vec::new();
    for (port, command) in &script.commands {
        match session.run(command, step).await {
            Ok(text) => sightings.extend(cli::parse(script.macs.format, &text)),
            Err(CliError::Rejected { message, .. }) if script.scope == MacScope::Olt => {
                warnings.push(format!(
                    "the MACs of PON port {port} were not read: the device answered `{message}`"
                ));
                unread.push(port);
            }
            Err(error @ CliError::Rejected { .. }) => {
                let usable = session.leave(step).await.is_ok();
                let error = ActionError::Device(error.to_string());
                return (usable.then_some(session), Err(error));
            }
            Err(error) => {
                let error = ActionError::Unavailable(format!("OLT {olt}: {error}"));
                return (None, Err(error));
            }
        }
    }
    let unread: Vec<String> = unread.into_iter().map(str::to_string).collect();
    let scope = script.scope;
    let recorded = tokio::task::spawn_blocking(move || {
        let onus: Vec<&Onu> = script
            .onus
            .iter()
            .filter(|onu| !unread.iter().any(|port| **port == *onu.pon_port))
            .collect();
        let read = MacRead::place(olt, &onus, &sightings, Utc::now());
        store.record_macs(&read)
    })
    .await;
    match recorded {
        Ok(Ok(moves)) => (
            Some(session),
            Ok(CliDone::Macs(MacsDone {
                scope,
                moves,
                warnings,
            })),
        ),
        Ok(Err(e)) => (
            Some(session),
            Err(ActionError::Unavailable(format!(
                "cannot record the MACs: {e}"
            ))),
        ),
        Err(e) => (
            Some(session),
            Err(ActionError::Unavailable(format!(
                "cannot record the MACs: {e}"
            ))),
        ),
    }
}
