//! One actor per OLT. It owns the OLT's SNMP client, its ONU table and its session state
//! (SPEC §3), persists them to sled after every poll, and answers queries from memory.
//! Device I/O never runs in a message handler: a poll is a task the actor spawns, which
//! takes the SNMP client with it and sends it back inside [`OltMsg::PollFinished`]. A hung
//! device therefore never delays an answer; `restart_session` aborts the task, drops the
//! client and polls again at once.
//!
//! The outside talks to it through [`OltHandle`], whose methods carry their own timeouts.

use crate::domain::{
    NodeId, OltId, Onu, OnuId, OnuStatus, OpticsThresholds, PonPortStats, SessionStatus, Vendor,
};
use crate::inventory::OltSpec;
use crate::onu_table::{OnuPage, OnuQuery, OnuTable};
use crate::poller::{self, PollOutcome};
use crate::profile::Profile;
use crate::snmp::{ClientSettings, DeviceError, SnmpClient};
use crate::store::{OltRecord, Store, SystemInfo, Transition};
use chrono::{DateTime, Utc};
use ractor::rpc::CallResult;
use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use std::collections::HashMap;
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
}

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
    /// Test builds only: panic in the handler, as a poisoned reply would.
    #[cfg(test)]
    Crash,
}

/// What a poll task sends back.
pub struct PollReport {
    generation: u64,
    started_at: DateTime<Utc>,
    elapsed: Duration,
    result: Result<PollOutcome, DeviceError>,
    client: Option<SnmpClient>,
}

/// Arguments of an OLT actor.
pub struct OltArgs {
    pub spec: OltSpec,
    pub store: Store,
    pub settings: Arc<PollSettings>,
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
    onus: OnuTable,
    client: Option<SnmpClient>,
    in_flight: Option<InFlight>,
    generation: u64,
    next_poll_at: Instant,
    waiters: Vec<RpcReplyPort<Result<OltSummary, ActionError>>>,
    ticker: Option<JoinHandle<()>>,
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
        } = args;
        let now = Utc::now();
        let record = store.load_olt(spec.id)?.unwrap_or_else(|| OltRecord {
            id: spec.id,
            status: SessionStatus::Connecting,
            since: now,
            last_poll_at: None,
            last_poll_ms: None,
            last_success_at: None,
            last_error: None,
            failures_in_row: 0,
            system: SystemInfo::default(),
            ports: Vec::new(),
            transitions: Vec::new(),
            vlans: Vec::new(),
        });
        let onus = OnuTable::new(store.load_onus(spec.id)?);
        let mut state = OltState {
            spec,
            store,
            settings,
            record,
            onus,
            client: None,
            in_flight: None,
            generation: 0,
            next_poll_at: Instant::now(),
            waiters: Vec::new(),
            ticker: None,
        };
        if state.spec.enabled {
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
        for waiter in state.waiters.drain(..) {
            let _ = waiter.send(Err(ActionError::Gone(state.spec.id)));
        }
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
                if state.spec.enabled
                    && state.in_flight.is_none()
                    && Instant::now() >= state.next_poll_at
                {
                    state.start_poll(&myself);
                }
            }
            OltMsg::PollNow(reply) => {
                if !state.spec.enabled {
                    let _ = reply.send(Err(ActionError::Disabled(state.spec.id)));
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
                state.restart_session("session restarted on request");
                state.start_poll(&myself);
                state.waiters.push(reply);
            }
            OltMsg::Reconfigure(spec) => {
                state.spec = *spec;
                if state.spec.enabled {
                    state.restart_session("inventory changed");
                    state.next_poll_at = Instant::now();
                } else {
                    state.abort_poll();
                    state.client = None;
                    state.move_to(SessionStatus::Disabled, "disabled in the inventory");
                    for waiter in state.waiters.drain(..) {
                        let _ = waiter.send(Err(ActionError::Disabled(state.spec.id)));
                    }
                }
                state.persist_record();
            }
            OltMsg::PollFinished(report) => state.finish_poll(*report),
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
        let vendor = self.spec.vendor;
        let task = tokio::spawn(async move {
            let _permit = settings.concurrency.clone().acquire_owned().await;
            let started_at = Utc::now();
            let started = Instant::now();
            let result = match profile {
                None => Err(DeviceError::NoProfile(vendor)),
                Some(profile) => match tokio::time::timeout(
                    settings.deadline,
                    poller::poll(&mut client, profile),
                )
                .await
                {
                    Ok(result) => result,
                    Err(_) => Err(DeviceError::Deadline(settings.deadline)),
                },
            };
            if result.is_err() {
                client.reset();
            }
            let _ = myself.send_message(OltMsg::PollFinished(Box::new(PollReport {
                generation,
                started_at,
                elapsed: started.elapsed(),
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
                self.record.last_error = None;
                self.record.last_success_at = Some(now);
                self.apply(outcome, now);
                self.move_to(SessionStatus::Online, "poll succeeded");
                self.next_poll_at = Instant::now() + self.settings.interval;
            }
            Err(error) => {
                self.record.failures_in_row += 1;
                let failures = self.record.failures_in_row;
                self.record.last_error = Some(error.to_string());
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
        self.record.ports = ports;
        self.record.vlans = outcome.vlans;
        self.record.system = SystemInfo {
            sys_name: outcome.sys_name,
            sys_descr: outcome.sys_descr,
            uptime_seconds: outcome.uptime_seconds,
            firmware: outcome.firmware,
        };
        let persisted = self
            .store
            .save_onus(olt, &onus)
            .and_then(|()| self.store.record_state_changes(&report.state_changes))
            .and_then(|()| self.store.record_optics(&report.optics));
        if let Err(e) = persisted {
            tracing::error!(olt, error = %e, "cannot persist the poll");
        }
    }

    fn persist_record(&self) {
        if let Err(e) = self.store.save_olt(&self.record) {
            tracing::error!(olt = self.spec.id, error = %e, "cannot persist the OLT record");
        }
    }
}

/// The outside's handle on one OLT actor.
#[derive(Clone)]
pub struct OltHandle {
    pub id: OltId,
    actor: ActorRef<OltMsg>,
    /// Upper bound for actions that wait for a poll.
    action_timeout: Duration,
}

impl OltHandle {
    pub(crate) fn new(id: OltId, actor: ActorRef<OltMsg>, settings: &PollSettings) -> Self {
        OltHandle {
            id,
            actor,
            action_timeout: settings.deadline + Duration::from_secs(5),
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

    /// SPEC §3 restart-session: answers after the first poll of the new session.
    pub async fn restart_session(&self) -> Result<OltSummary, ActionError> {
        self.query(OltMsg::RestartSession, self.action_timeout)
            .await?
    }
}
