//! One actor per OLT. It owns the OLT's SNMP client, its SSH CLI session, its ONU table
//! and its session state (SPEC §3), persists them to sled after every poll, and answers
//! queries from memory. Device I/O never runs in a message handler: a poll is a task the
//! actor spawns, which takes the SNMP client with it and sends it back inside
//! [`OltMsg::PollFinished`]. A hung device therefore never delays an answer;
//! `restart_session` aborts the task, drops the client and polls again at once.
//!
//! CLI actions (ONU reboot, VLAN, description, config backup) follow the same pattern:
//! one [`CliAction`] runs at a time per OLT, in a task that borrows the SSH session
//! ([`crate::ssh::CliSession`], opened on first need) and returns it in
//! [`OltMsg::CliFinished`]; further actions wait in a queue, and one equal to an action
//! already running or queued is refused as busy. Every step has a timeout and the whole
//! action a deadline. `restart_session` drops the SSH session and fails the actions in
//! flight. Backups are also scheduled here (`backup_interval`), and each ONU's VLAN comes
//! from the latest stored running configuration.
//!
//! The outside talks to it through [`OltHandle`], whose methods carry their own timeouts.

use crate::domain::{
    NodeId, OltId, Onu, OnuId, OnuStatus, OpticsThresholds, PonPortStats, SessionStatus, Vendor,
};
use crate::inventory::OltSpec;
use crate::onu_table::{OnuPage, OnuQuery, OnuTable};
use crate::poller::{self, PollOutcome};
use crate::profile::commands::{port_values, render, service_vlans, CliProfile};
use crate::profile::Profile;
use crate::snmp::{ClientSettings, DeviceError, SnmpClient};
use crate::ssh::{CliError, CliSession, CliTarget};
use crate::store::{ConfigBackup, OltRecord, Store, SystemInfo, Transition};
use chrono::{DateTime, Utc};
use ractor::rpc::CallResult;
use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use std::collections::{HashMap, VecDeque};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;

/// How many past state moves an OLT keeps.
const TRANSITIONS_KEPT: usize = 20;
/// Time allowed to a query answered from memory.
const QUERY_TIMEOUT: Duration = Duration::from_secs(2);

/// Polling settings shared by every OLT actor (`[polling]`).
#[derive(Debug, Clone)]
pub struct PollSettings {
    pub interval: Duration,
    pub timeout: Duration,
    pub retries: u32,
    pub deadline: Duration,
    pub offline_after: u32,
    pub bulk_varbinds: u32,
    /// Polls in flight across all OLTs.
    pub concurrency: Arc<Semaphore>,
    /// Rx thresholds that set each ONU's optics level (`[optics]`).
    pub thresholds: OpticsThresholds,
    /// At most one stored optics point per ONU per step, plus one at each level change.
    pub history_step: Duration,
    /// Time allowed to one CLI step (login, one command); a whole action gets
    /// `deadline.max(cli_timeout)`.
    pub cli_timeout: Duration,
    /// Scheduled running-config backups (`[backup] interval`).
    pub backup_interval: Duration,
}

impl Default for PollSettings {
    /// The defaults of `config/ponkeeper.toml`.
    fn default() -> Self {
        PollSettings {
            interval: Duration::from_secs(60),
            timeout: Duration::from_secs(2),
            retries: 1,
            deadline: Duration::from_secs(30),
            offline_after: 3,
            bulk_varbinds: 256,
            concurrency: Arc::new(Semaphore::new(256)),
            thresholds: OpticsThresholds {
                warning_dbm: -25.0,
                critical_dbm: -27.0,
            },
            history_step: Duration::from_secs(15 * 60),
            cli_timeout: Duration::from_secs(10),
            backup_interval: Duration::from_secs(86_400),
        }
    }
}

impl PollSettings {
    fn client_settings(&self) -> ClientSettings {
        ClientSettings {
            timeout: self.timeout,
            retries: self.retries,
            bulk_varbinds: self.bulk_varbinds,
        }
    }

    /// How often the actor checks whether a poll is due.
    fn tick(&self) -> Duration {
        (self.interval / 4).clamp(Duration::from_millis(50), Duration::from_secs(1))
    }

    /// Longest gap between two polls over which an OLT's state still counts as known:
    /// two intervals and a poll's deadline (a failing OLT is retried sooner than that).
    pub fn coverage_tolerance(&self) -> Duration {
        self.interval * 2 + self.deadline
    }

    /// Delay before the next attempt after `failures` failed polls in a row.
    fn backoff(&self, failures: u32) -> Duration {
        let exponent = failures.saturating_sub(1).min(16);
        self.timeout
            .saturating_mul(1 << exponent)
            .min(self.interval)
    }
}

/// Everything an OLT list item shows (seed §2.1), plus what node counters need.
#[derive(Debug, Clone, PartialEq)]
pub struct OltSummary {
    pub id: OltId,
    pub ip: IpAddr,
    pub vendor: Vendor,
    pub model: String,
    pub city: String,
    pub node: Option<NodeId>,
    pub status: SessionStatus,
    /// When the OLT entered its current status.
    pub status_since: DateTime<Utc>,
    pub total_ports: u32,
    pub total_onu: u32,
    pub onu_online: u32,
    pub last_update: DateTime<Utc>,
}

/// The session block of the OLT detail.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionInfo {
    pub status: SessionStatus,
    pub since: DateTime<Utc>,
    pub last_poll_at: Option<DateTime<Utc>>,
    pub last_poll_ms: Option<u64>,
    /// Varbinds the last poll received (good or failed).
    pub last_poll_varbinds: u64,
    pub last_error: Option<String>,
    pub failures_in_row: u32,
    pub transitions: Vec<Transition>,
}

/// OLT detail: the summary, what the device says about itself, ports and session.
#[derive(Debug, Clone, PartialEq)]
pub struct OltDetail {
    pub summary: OltSummary,
    pub system: SystemInfo,
    pub ports: Vec<PonPortStats>,
    pub session: SessionInfo,
}

/// A VLAN of an OLT and how many of its ONUs use it as their service VLAN.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VlanInfo {
    pub vlan_id: u16,
    pub name: String,
    pub onu_count: u32,
}

/// Why an action on an OLT could not be carried out.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ActionError {
    #[error("OLT {0} is DISABLED in the inventory")]
    Disabled(OltId),
    #[error("OLT {0} did not answer in time")]
    NoReply(OltId),
    #[error("OLT {0} is not running")]
    Gone(OltId),
    /// The service stopped before the action finished; one that was running may have
    /// been partly carried out by the device.
    #[error("cancelled: the service is shutting down ({0})")]
    ShuttingDown(String),
    #[error("no ONU with id {0} on this OLT")]
    OnuNotFound(OnuId),
    /// The same action is already running or waiting.
    #[error("{0}")]
    Busy(String),
    /// The device cannot be reached for this action (OFFLINE, no SSH, no password).
    #[error("{0}")]
    Unavailable(String),
    /// The device refused the command; the message is the device's.
    #[error("{0}")]
    Device(String),
    #[error("{0}")]
    Timeout(String),
}

/// An action carried out over the OLT's CLI.
#[derive(Debug, Clone, PartialEq)]
pub enum CliAction {
    Reboot(OnuId),
    SetVlan(OnuId, u16),
    SetDescription(OnuId, String),
    Backup,
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
            _ => false,
        }
    }

    fn describe(&self) -> String {
        match self {
            CliAction::Reboot(onu) => format!("a reboot of ONU {onu}"),
            CliAction::SetVlan(onu, _) => format!("a VLAN change of ONU {onu}"),
            CliAction::SetDescription(onu, _) => format!("a description change of ONU {onu}"),
            CliAction::Backup => "a config backup".to_string(),
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
}

type ActionReply = RpcReplyPort<Result<ActionOutcome, ActionError>>;

/// Messages of the OLT actor.
pub enum OltMsg {
    Summary(RpcReplyPort<OltSummary>),
    Detail(RpcReplyPort<OltDetail>),
    Onus(RpcReplyPort<Arc<Vec<Onu>>>),
    /// ONUs matching a query: the count and the first `limit` in the query's order.
    FindOnus(Box<OnuQuery>, RpcReplyPort<OnuPage>),
    Onu(OnuId, RpcReplyPort<Option<Onu>>),
    Vlans(RpcReplyPort<Vec<VlanInfo>>),
    /// Timer: start a poll if one is due.
    Tick,
    /// Poll now and answer when it finished.
    PollNow(RpcReplyPort<Result<OltSummary, ActionError>>),
    /// Drop the session and everything in flight, poll at once, answer when done.
    RestartSession(RpcReplyPort<Result<OltSummary, ActionError>>),
    /// The inventory entry changed.
    Reconfigure(Box<OltSpec>),
    /// A poll task's report.
    PollFinished(Box<PollReport>),
    /// Run an action over the CLI (queued behind the one running).
    Cli(CliAction, ActionReply),
    /// A CLI task's report.
    CliFinished(Box<CliReport>),
    /// The service is stopping: cancel what is in flight with a clear error and refuse
    /// anything new the same way; answers when done (the supervisor stops the actor).
    Shutdown(RpcReplyPort<()>),
    /// Test builds only: panic in the handler, as a poisoned reply would.
    #[cfg(test)]
    Crash,
}

/// What a poll task sends back.
pub struct PollReport {
    generation: u64,
    started_at: DateTime<Utc>,
    elapsed: Duration,
    /// Varbinds the poll received.
    varbinds: u64,
    result: Result<PollOutcome, DeviceError>,
    client: Option<SnmpClient>,
}

/// What a CLI task sends back: the session (if still usable) and the result.
pub struct CliReport {
    generation: u64,
    session: Option<CliSession>,
    result: Result<CliDone, ActionError>,
}

enum CliDone {
    Ran,
    Backup(ConfigBackup, HashMap<(String, u32), u16>),
}

/// A CLI action waiting or running; `reply` is `None` for a scheduled backup.
struct CliJob {
    action: CliAction,
    reply: Option<ActionReply>,
}

struct CliRunning {
    generation: u64,
    job: CliJob,
    task: JoinHandle<()>,
}

/// Arguments of an OLT actor.
pub struct OltArgs {
    pub spec: OltSpec,
    pub store: Store,
    pub settings: Arc<PollSettings>,
    /// Set when the supervisor restarts the actor after a crash loop: the actor then
    /// serves its stored state, reports OFFLINE with this reason and does no device I/O
    /// until `restart-session` (see [`OltState::stopped`]).
    pub stopped: Option<String>,
}

pub(crate) struct OltActor;

struct InFlight {
    generation: u64,
    task: JoinHandle<()>,
}

pub(crate) struct OltState {
    spec: OltSpec,
    store: Store,
    settings: Arc<PollSettings>,
    record: OltRecord,
    /// Whether `record` changed in more than its poll statistics since it was last
    /// written whole (the statistics alone are written after every poll).
    record_dirty: bool,
    onus: OnuTable,
    client: Option<SnmpClient>,
    in_flight: Option<InFlight>,
    generation: u64,
    next_poll_at: Instant,
    waiters: Vec<RpcReplyPort<Result<OltSummary, ActionError>>>,
    ticker: Option<JoinHandle<()>>,
    /// The SSH CLI session while no action has it.
    cli: Option<CliSession>,
    cli_running: Option<CliRunning>,
    cli_queue: VecDeque<CliJob>,
    cli_generation: u64,
    /// (port, ONU number) → service VLAN, from the latest running configuration.
    vlan_map: HashMap<(String, u32), u16>,
    next_backup_at: Instant,
    /// Why the OLT is stopped after a crash loop; no polls or actions run until an
    /// operator restarts its session.
    stopped: Option<String>,
    /// The service is stopping: nothing new starts.
    shutting_down: bool,
}

impl Actor for OltActor {
    type Msg = OltMsg;
    type State = OltState;
    type Arguments = OltArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<OltMsg>,
        args: OltArgs,
    ) -> Result<OltState, ActorProcessingErr> {
        let OltArgs {
            spec,
            store,
            settings,
            stopped,
        } = args;
        let now = Utc::now();
        let spec_enabled = spec.enabled;
        let record = store.load_olt(spec.id)?.unwrap_or_else(|| OltRecord {
            id: spec.id,
            status: SessionStatus::Connecting,
            since: now,
            last_poll_at: None,
            last_poll_ms: None,
            last_poll_varbinds: 0,
            last_success_at: None,
            last_error: None,
            failures_in_row: 0,
            system: SystemInfo::default(),
            ports: Vec::new(),
            transitions: Vec::new(),
            vlans: Vec::new(),
        });
        let mut onus = OnuTable::new(store.load_onus(spec.id, record.last_success_at)?);
        let latest = store.latest_config(spec.id)?;
        let vlan_map = match &latest {
            Some(latest) => store
                .config(spec.id, latest.id)?
                .map(|(_, content)| service_vlans(Profile::for_vendor(spec.vendor).cli, &content))
                .unwrap_or_default(),
            None => HashMap::new(),
        };
        if !vlan_map.is_empty() {
            onus.set_vlans(&vlan_map);
        }
        // A backup is due one interval after the latest; without one, soon after start.
        let next_backup_at = latest
            .and_then(|b| (Utc::now() - b.taken_at).to_std().ok())
            .map_or(Instant::now() + Duration::from_secs(2), |age| {
                Instant::now() + settings.backup_interval.saturating_sub(age)
            });
        let mut state = OltState {
            spec,
            store,
            settings,
            record,
            record_dirty: true,
            onus,
            client: None,
            in_flight: None,
            generation: 0,
            next_poll_at: Instant::now(),
            waiters: Vec::new(),
            ticker: None,
            cli: None,
            cli_running: None,
            cli_queue: VecDeque::new(),
            cli_generation: 0,
            vlan_map,
            next_backup_at,
            // A disabled OLT does no device I/O anyway and shows DISABLED.
            stopped: stopped.filter(|_| spec_enabled),
            shutting_down: false,
        };
        if let Some(reason) = state.stopped.clone() {
            state.record.last_error = Some(reason.clone());
            state.record_move(SessionStatus::Offline, reason);
            state.persist_record();
        } else if state.spec.enabled {
            state.record_move(SessionStatus::Connecting, "actor started".to_string());
        } else {
            state.move_to(SessionStatus::Disabled, "disabled in the inventory");
        }
        let tick = state.settings.tick();
        state.ticker = Some(myself.send_interval(tick, || OltMsg::Tick));
        Ok(state)
    }

    async fn post_stop(
        &self,
        _myself: ActorRef<OltMsg>,
        state: &mut OltState,
    ) -> Result<(), ActorProcessingErr> {
        if let Some(ticker) = state.ticker.take() {
            ticker.abort();
        }
        state.abort_poll();
        let id = state.spec.id;
        let error = if state.shutting_down {
            ActionError::ShuttingDown(format!("OLT {id} stopped"))
        } else {
            ActionError::Gone(id)
        };
        for waiter in state.waiters.drain(..) {
            let _ = waiter.send(Err(error.clone()));
        }
        state.drop_cli(error);
        Ok(())
    }

    async fn handle(
        &self,
        myself: ActorRef<OltMsg>,
        message: OltMsg,
        state: &mut OltState,
    ) -> Result<(), ActorProcessingErr> {
        match message {
            OltMsg::Summary(reply) => {
                let _ = reply.send(state.summary());
            }
            OltMsg::Detail(reply) => {
                let _ = reply.send(state.detail());
            }
            OltMsg::Onus(reply) => {
                let _ = reply.send(state.onus.all());
            }
            OltMsg::FindOnus(query, reply) => {
                let _ = reply.send(state.onus.query(&query));
            }
            OltMsg::Onu(id, reply) => {
                let _ = reply.send(state.onus.get(id));
            }
            OltMsg::Vlans(reply) => {
                let _ = reply.send(state.vlans());
            }
            OltMsg::Tick => {
                if state.stopped.is_some() || state.shutting_down {
                    return Ok(());
                }
                if state.spec.enabled
                    && state.in_flight.is_none()
                    && Instant::now() >= state.next_poll_at
                {
                    state.start_poll(&myself);
                }
                state.schedule_backup(&myself);
            }
            OltMsg::Cli(action, reply) => match state.admit(&action) {
                Err(error) => {
                    let _ = reply.send(Err(error));
                }
                Ok(()) => {
                    state.cli_queue.push_back(CliJob {
                        action,
                        reply: Some(reply),
                    });
                    state.start_cli(&myself);
                }
            },
            OltMsg::CliFinished(report) => {
                state.finish_cli(*report);
                state.start_cli(&myself);
            }
            OltMsg::PollNow(reply) | OltMsg::RestartSession(reply) if state.shutting_down => {
                let _ = reply.send(Err(ActionError::ShuttingDown(format!(
                    "OLT {} takes no new actions",
                    state.spec.id
                ))));
            }
            OltMsg::PollNow(reply) => {
                if !state.spec.enabled {
                    let _ = reply.send(Err(ActionError::Disabled(state.spec.id)));
                    return Ok(());
                }
                if let Some(reason) = &state.stopped {
                    let _ = reply.send(Err(ActionError::Unavailable(reason.clone())));
                    return Ok(());
                }
                if state.in_flight.is_none() {
                    state.start_poll(&myself);
                }
                state.waiters.push(reply);
            }
            OltMsg::RestartSession(reply) => {
                if !state.spec.enabled {
                    let _ = reply.send(Err(ActionError::Disabled(state.spec.id)));
                    return Ok(());
                }
                match state.stopped.take() {
                    Some(_) => state.restart_session("restarted on request after a crash loop"),
                    None => state.restart_session("session restarted on request"),
                }
                state.start_poll(&myself);
                state.waiters.push(reply);
            }
            OltMsg::Reconfigure(spec) => {
                state.spec = *spec;
                state.record_dirty = true;
                if state.stopped.is_some() {
                    // Still stopped: the new entry applies from the next restart-session.
                } else if state.spec.enabled {
                    state.restart_session("inventory changed");
                    state.next_poll_at = Instant::now();
                } else {
                    state.abort_poll();
                    state.client = None;
                    state.drop_cli(ActionError::Disabled(state.spec.id));
                    state.move_to(SessionStatus::Disabled, "disabled in the inventory");
                    for waiter in state.waiters.drain(..) {
                        let _ = waiter.send(Err(ActionError::Disabled(state.spec.id)));
                    }
                }
                state.persist_record();
            }
            OltMsg::PollFinished(report) => state.finish_poll(*report),
            OltMsg::Shutdown(reply) => {
                let id = state.spec.id;
                state.shutting_down = true;
                state.abort_poll();
                for waiter in state.waiters.drain(..) {
                    let _ = waiter.send(Err(ActionError::ShuttingDown(format!(
                        "the poll of OLT {id} was abandoned"
                    ))));
                }
                if let Some(running) = state.cli_running.take() {
                    running.task.abort();
                    let action = running.job.action.describe();
                    tracing::warn!(olt = id, %action, "interrupted by the shutdown");
                    if let Some(reply) = running.job.reply {
                        let _ = reply.send(Err(ActionError::ShuttingDown(format!(
                            "{action} on OLT {id} was interrupted; the device may have \
                             carried out part of it"
                        ))));
                    }
                }
                state.cli = None;
                for job in state.cli_queue.drain(..) {
                    if let Some(reply) = job.reply {
                        let _ = reply.send(Err(ActionError::ShuttingDown(format!(
                            "{} on OLT {id} was not started",
                            job.action.describe()
                        ))));
                    }
                }
                let _ = reply.send(());
            }
            #[cfg(test)]
            OltMsg::Crash => panic!("injected crash of OLT {}", state.spec.id),
        }
        Ok(())
    }
}

impl OltState {
    fn summary(&self) -> OltSummary {
        let online = self.onus.online();
        OltSummary {
            id: self.spec.id,
            ip: self.spec.ip,
            vendor: self.spec.vendor,
            model: self.spec.model.clone(),
            city: self.spec.city.clone(),
            node: self.spec.node,
            status: self.record.status,
            status_since: self.record.since,
            total_ports: self.record.ports.len() as u32,
            total_onu: self.onus.len() as u32,
            onu_online: online as u32,
            last_update: self.record.last_success_at.unwrap_or(self.record.since),
        }
    }

    fn vlans(&self) -> Vec<VlanInfo> {
        let onus = self.onus.all();
        self.record
            .vlans
            .iter()
            .map(|(id, name)| VlanInfo {
                vlan_id: *id,
                name: name.clone(),
                onu_count: onus.iter().filter(|o| o.vlan == Some(*id)).count() as u32,
            })
            .collect()
    }

    fn detail(&self) -> OltDetail {
        OltDetail {
            summary: self.summary(),
            system: self.record.system.clone(),
            ports: self.record.ports.clone(),
            session: SessionInfo {
                status: self.record.status,
                since: self.record.since,
                last_poll_at: self.record.last_poll_at,
                last_poll_ms: self.record.last_poll_ms,
                last_poll_varbinds: self.record.last_poll_varbinds,
                last_error: self.record.last_error.clone(),
                failures_in_row: self.record.failures_in_row,
                transitions: self.record.transitions.clone(),
            },
        }
    }

    /// Moves to `to` unless already there.
    fn move_to(&mut self, to: SessionStatus, reason: impl Into<String>) {
        if self.record.status != to || self.record.transitions.is_empty() {
            self.record_move(to, reason.into());
        }
    }

    /// Records a move even when the status stays (a session restart is always news).
    fn record_move(&mut self, to: SessionStatus, reason: String) {
        let from = self.record.transitions.last().map(|t| t.to);
        tracing::info!(olt = self.spec.id, from = ?from, %to, %reason, "session state");
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

    fn abort_poll(&mut self) {
        if let Some(in_flight) = self.in_flight.take() {
            in_flight.task.abort();
        }
    }

    fn restart_session(&mut self, reason: &str) {
        self.abort_poll();
        self.client = None;
        self.drop_cli(ActionError::Unavailable(format!(
            "the session with OLT {} was restarted while the action waited or ran",
            self.spec.id
        )));
        self.record.failures_in_row = 0;
        self.record_move(SessionStatus::Connecting, reason.to_string());
    }

    fn start_poll(&mut self, myself: &ActorRef<OltMsg>) {
        self.abort_poll();
        self.generation += 1;
        let generation = self.generation;
        let settings = self.settings.clone();
        let profile = Profile::for_vendor(self.spec.vendor);
        let addr = SocketAddr::new(self.spec.ip, self.spec.snmp.port);
        let mut client = self.client.take().unwrap_or_else(|| {
            SnmpClient::new(
                addr,
                &self.spec.snmp.community,
                self.spec.snmp.version,
                settings.client_settings(),
            )
        });
        let myself = myself.clone();
        let task = tokio::spawn(async move {
            let _permit = settings.concurrency.clone().acquire_owned().await;
            let started_at = Utc::now();
            let started = Instant::now();
            let varbinds_before = client.varbinds_received;
            let poll = poller::poll(&mut client, profile);
            let result = match tokio::time::timeout(settings.deadline, poll).await {
                Ok(result) => result,
                Err(_) => Err(DeviceError::Deadline(settings.deadline)),
            };
            if result.is_err() {
                client.reset();
            }
            let varbinds = client.varbinds_received - varbinds_before;
            let _ = myself.send_message(OltMsg::PollFinished(Box::new(PollReport {
                generation,
                started_at,
                elapsed: started.elapsed(),
                varbinds,
                result,
                client: Some(client),
            })));
        });
        self.in_flight = Some(InFlight { generation, task });
    }

    fn finish_poll(&mut self, report: PollReport) {
        if self.in_flight.as_ref().map(|f| f.generation) != Some(report.generation) {
            return; // a poll that a restart already abandoned
        }
        self.in_flight = None;
        self.client = report.client;
        self.record.last_poll_at = Some(report.started_at);
        self.record.last_poll_ms = Some(report.elapsed.as_millis() as u64);
        self.record.last_poll_varbinds = report.varbinds;
        let result = if report.result.is_ok() {
            "success"
        } else {
            "failure"
        };
        metrics::counter!("ponkeeper_polls_total", "result" => result).increment(1);
        metrics::counter!("ponkeeper_poll_varbinds_total").increment(report.varbinds);
        metrics::histogram!("ponkeeper_poll_duration_seconds").record(report.elapsed.as_secs_f64());
        let now = Utc::now();
        let covered = self.store.extend_coverage(
            self.spec.id,
            now,
            report.result.is_ok(),
            self.settings.coverage_tolerance(),
        );
        if let Err(e) = covered {
            tracing::error!(olt = self.spec.id, error = %e, "cannot record poll coverage");
        }
        match report.result {
            Ok(outcome) => {
                self.record.failures_in_row = 0;
                self.record_dirty |= self.record.last_error.is_some();
                self.record.last_error = None;
                self.record.last_success_at = Some(now);
                self.apply(outcome, now);
                self.move_to(SessionStatus::Online, "poll succeeded");
                self.next_poll_at = Instant::now() + self.settings.interval;
            }
            Err(error) => {
                self.record.failures_in_row += 1;
                let failures = self.record.failures_in_row;
                let last_error = Some(error.to_string());
                self.record_dirty |= self.record.last_error != last_error;
                self.record.last_error = last_error;
                if failures >= self.settings.offline_after {
                    self.move_to(
                        SessionStatus::Offline,
                        format!("{failures} failed polls in a row, last: {error}"),
                    );
                } else {
                    self.move_to(SessionStatus::Degraded, format!("poll failed: {error}"));
                }
                self.next_poll_at = Instant::now() + self.settings.backoff(failures);
            }
        }
        self.persist_record();
        let summary = self.summary();
        for waiter in self.waiters.drain(..) {
            let _ = waiter.send(Ok(summary.clone()));
        }
    }

    /// Merges a good poll into the ONU table and persists the table, the ONUs' state
    /// changes and the optics points that are due.
    fn apply(&mut self, outcome: PollOutcome, now: DateTime<Utc>) {
        let (store, olt) = (&self.store, self.spec.id);
        let report = self.onus.merge(
            olt,
            outcome.onus,
            now,
            &self.settings.thresholds,
            self.settings.history_step,
            |serial| match store.onu_id(olt, serial) {
                Ok(id) => Some(id),
                Err(e) => {
                    tracing::error!(olt, error = %e, "cannot allocate an ONU id");
                    None
                }
            },
        );
        let mut table_changed = report.table_changed;
        if !self.vlan_map.is_empty() {
            // ONUs that moved or appeared take their VLAN from the latest configuration.
            table_changed |= self.onus.set_vlans(&self.vlan_map);
        }

        let onus = self.onus.all();
        let mut ports: Vec<PonPortStats> = outcome
            .ports
            .iter()
            .map(|name| PonPortStats {
                name: name.clone(),
                onu_total: 0,
                onu_online: 0,
            })
            .collect();
        let position: HashMap<&str, usize> = outcome
            .ports
            .iter()
            .enumerate()
            .map(|(i, p)| (p.as_str(), i))
            .collect();
        for onu in onus.iter() {
            if let Some(&i) = position.get(onu.pon_port.as_str()) {
                ports[i].onu_total += 1;
                if onu.status == OnuStatus::Online {
                    ports[i].onu_online += 1;
                }
            }
        }
        let system = SystemInfo {
            sys_name: outcome.sys_name,
            sys_descr: outcome.sys_descr,
            uptime_seconds: outcome.uptime_seconds,
            firmware: outcome.firmware,
        };
        // The uptime is a poll statistic (stored apart); the rest rarely changes.
        let old = &self.record.system;
        self.record_dirty |= self.record.ports != ports
            || self.record.vlans != outcome.vlans
            || (&old.sys_name, &old.sys_descr, &old.firmware)
                != (&system.sys_name, &system.sys_descr, &system.firmware);
        self.record.ports = ports;
        self.record.vlans = outcome.vlans;
        self.record.system = system;
        // A table that changed only in the poll time is not rewritten (the OLT record's
        // `last_success_at` carries that time).
        let saved = if table_changed {
            self.store.save_onus(olt, &onus, self.onus.polled_at())
        } else {
            Ok(())
        };
        let persisted = saved
            .and_then(|()| self.store.record_state_changes(&report.state_changes))
            .and_then(|()| self.store.record_optics(&report.optics));
        if let Err(e) = persisted {
            tracing::error!(olt, error = %e, "cannot persist the poll");
        }
    }

    /// Drops the SSH session and fails every CLI action running or waiting.
    fn drop_cli(&mut self, error: ActionError) {
        self.cli = None;
        if let Some(running) = self.cli_running.take() {
            running.task.abort();
            if let Some(reply) = running.job.reply {
                let _ = reply.send(Err(error.clone()));
            }
        }
        for job in self.cli_queue.drain(..) {
            if let Some(reply) = job.reply {
                let _ = reply.send(Err(error.clone()));
            }
        }
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
        })
    }

    /// Whether an action may be queued now.
    fn admit(&self, action: &CliAction) -> Result<(), ActionError> {
        let id = self.spec.id;
        if self.shutting_down {
            return Err(ActionError::ShuttingDown(format!(
                "OLT {id} takes no new actions"
            )));
        }
        if !self.spec.enabled {
            return Err(ActionError::Disabled(id));
        }
        if let Some(reason) = &self.stopped {
            return Err(ActionError::Unavailable(reason.clone()));
        }
        if self.record.status == SessionStatus::Offline {
            return Err(ActionError::Unavailable(format!("OLT {id} is OFFLINE")));
        }
        self.cli_target()?;
        if let CliAction::Reboot(onu)
        | CliAction::SetVlan(onu, _)
        | CliAction::SetDescription(onu, _) = action
        {
            self.onus.get(*onu).ok_or(ActionError::OnuNotFound(*onu))?;
        }
        let running = self.cli_running.as_ref().map(|r| &r.job);
        if running
            .into_iter()
            .chain(self.cli_queue.iter())
            .any(|job| job.action.same_as(action))
        {
            return Err(ActionError::Busy(format!(
                "{} on OLT {id} is already running",
                action.describe()
            )));
        }
        Ok(())
    }

    /// Queues the scheduled backup when it is due.
    fn schedule_backup(&mut self, myself: &ActorRef<OltMsg>) {
        let now = Instant::now();
        // An OLT without `ssh` in the inventory has no backups to take (not worth a
        // warning a day each).
        let no_cli = self.spec.ssh.is_none();
        if now < self.next_backup_at || !self.spec.enabled || self.stopped.is_some() || no_cli {
            return;
        }
        if self.record.status == SessionStatus::Connecting {
            return; // after the first poll
        }
        self.next_backup_at = now + self.settings.backup_interval;
        match self.admit(&CliAction::Backup) {
            Ok(()) => {
                self.cli_queue.push_back(CliJob {
                    action: CliAction::Backup,
                    reply: None,
                });
                self.start_cli(myself);
            }
            Err(error) => {
                tracing::warn!(olt = self.spec.id, %error, "scheduled config backup skipped");
            }
        }
    }

    /// Starts the next queued action unless one is running.
    fn start_cli(&mut self, myself: &ActorRef<OltMsg>) {
        if self.cli_running.is_some() {
            return;
        }
        let Some(job) = self.cli_queue.pop_front() else {
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
        self.cli_generation += 1;
        let generation = self.cli_generation;
        let session = self.cli.take();
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
        self.cli_running = Some(CliRunning {
            generation,
            job,
            task,
        });
    }

    /// The CLI lines of an action, rendered for its ONU.
    fn script(&self, action: &CliAction) -> Result<Script, ActionError> {
        let profile = Profile::for_vendor(self.spec.vendor).cli;
        let (onu, lines) = match action {
            CliAction::Backup => return Ok(Script::Backup(profile)),
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

    fn finish_cli(&mut self, report: CliReport) {
        if self.cli_running.as_ref().map(|r| r.generation) != Some(report.generation) {
            return; // an action that a restart already abandoned
        }
        let Some(running) = self.cli_running.take() else {
            return;
        };
        self.cli = report.session;
        let olt = self.spec.id;
        let outcome = report
            .result
            .and_then(|done| match (&running.job.action, done) {
                (CliAction::Backup, CliDone::Backup(backup, vlans)) => {
                    self.vlan_map = vlans;
                    if self.onus.set_vlans(&self.vlan_map) {
                        self.persist_onus();
                    }
                    Ok(ActionOutcome::Backup(backup))
                }
                (CliAction::Backup, CliDone::Ran) => Err(ActionError::Device(
                    "the device printed no running configuration".into(),
                )),
                (CliAction::Reboot(onu), _) => Ok(ActionOutcome::Rebooted(*onu)),
                (CliAction::SetVlan(onu, vlan), _) => {
                    let updated = self.onus.update(*onu, |o| o.vlan = Some(*vlan));
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
                    self.persist_onus();
                    onu_outcome(*onu, updated)
                }
            });
        match (&outcome, &running.job.reply) {
            (Err(error), None) => {
                tracing::warn!(olt, %error, "scheduled config backup failed");
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
        if let Some(reply) = running.job.reply {
            let _ = reply.send(outcome);
        }
    }

    fn persist_onus(&self) {
        if let Err(e) = self
            .store
            .save_onus(self.spec.id, &self.onus.all(), self.onus.polled_at())
        {
            tracing::error!(olt = self.spec.id, error = %e, "cannot persist the ONU table");
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
            tracing::error!(olt = self.spec.id, error = %e, "cannot persist the OLT record");
        }
    }
}

fn onu_outcome(id: OnuId, updated: Option<Onu>) -> Result<ActionOutcome, ActionError> {
    updated
        .map(|onu| ActionOutcome::Onu(Box::new(onu)))
        .ok_or(ActionError::OnuNotFound(id))
}

/// What a CLI task runs.
enum Script {
    Lines(&'static CliProfile, Vec<String>),
    Backup(&'static CliProfile),
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
        Script::Lines(profile, _) | Script::Backup(profile) => *profile,
    };
    let mut session = match session.filter(|s| !s.is_closed()) {
        Some(session) => session,
        None => match CliSession::open(target, profile, step).await {
            Ok(session) => session,
            Err(error) => return (None, Err(cli_error(olt, error))),
        },
    };
    let lines = match &script {
        Script::Lines(_, lines) => lines.clone(),
        Script::Backup(profile) => vec![profile.running_config.to_string()],
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
        Script::Lines(..) => (Some(session), Ok(CliDone::Ran)),
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
        | CliError::ClosedDuring(_) => ActionError::Unavailable(format!("OLT {olt}: {error}")),
    }
}

/// The outside's handle on one OLT actor.
#[derive(Clone)]
pub struct OltHandle {
    pub id: OltId,
    actor: ActorRef<OltMsg>,
    /// Upper bound for actions that wait for a poll.
    action_timeout: Duration,
    /// Upper bound for a CLI action, its wait in the queue included.
    cli_timeout: Duration,
}

impl OltHandle {
    pub(crate) fn new(id: OltId, actor: ActorRef<OltMsg>, settings: &PollSettings) -> Self {
        OltHandle {
            id,
            actor,
            action_timeout: settings.deadline + Duration::from_secs(5),
            cli_timeout: settings.deadline.max(settings.cli_timeout) * 3 + Duration::from_secs(5),
        }
    }

    pub(crate) fn actor(&self) -> &ActorRef<OltMsg> {
        &self.actor
    }

    async fn query<T: Send + 'static>(
        &self,
        message: impl FnOnce(RpcReplyPort<T>) -> OltMsg,
        timeout: Duration,
    ) -> Result<T, ActionError> {
        match self.actor.call(message, Some(timeout)).await {
            Ok(CallResult::Success(value)) => Ok(value),
            Ok(CallResult::Timeout) => Err(ActionError::NoReply(self.id)),
            Ok(CallResult::SenderError) | Err(_) => Err(ActionError::Gone(self.id)),
        }
    }

    pub async fn summary(&self) -> Result<OltSummary, ActionError> {
        self.query(OltMsg::Summary, QUERY_TIMEOUT).await
    }

    pub async fn detail(&self) -> Result<OltDetail, ActionError> {
        self.query(OltMsg::Detail, QUERY_TIMEOUT).await
    }

    pub async fn onus(&self) -> Result<Arc<Vec<Onu>>, ActionError> {
        self.query(OltMsg::Onus, QUERY_TIMEOUT).await
    }

    pub async fn find_onus(&self, query: OnuQuery) -> Result<OnuPage, ActionError> {
        self.query(
            |reply| OltMsg::FindOnus(Box::new(query), reply),
            QUERY_TIMEOUT,
        )
        .await
    }

    pub async fn vlans(&self) -> Result<Vec<VlanInfo>, ActionError> {
        self.query(OltMsg::Vlans, QUERY_TIMEOUT).await
    }

    pub async fn onu(&self, id: OnuId) -> Result<Option<Onu>, ActionError> {
        self.query(|reply| OltMsg::Onu(id, reply), QUERY_TIMEOUT)
            .await
    }

    /// Polls now; answers with the summary after the poll (good or failed).
    pub async fn poll_now(&self) -> Result<OltSummary, ActionError> {
        self.query(OltMsg::PollNow, self.action_timeout).await?
    }

    /// Runs a CLI action; answers when the device has carried it out (or refused).
    pub async fn cli(&self, action: CliAction) -> Result<ActionOutcome, ActionError> {
        self.query(|reply| OltMsg::Cli(action, reply), self.cli_timeout)
            .await?
    }

    /// SPEC §3 restart-session: answers after the first poll of the new session.
    pub async fn restart_session(&self) -> Result<OltSummary, ActionError> {
        self.query(OltMsg::RestartSession, self.action_timeout)
            .await?
    }
}
