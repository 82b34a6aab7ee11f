//! The OLT's poll lifecycle: the settings every OLT actor polls with
//! ([`PollSettings`], `[polling]`), the timer that starts a poll when one is due, the
//! poll task (it takes the SNMP client, runs [`crate::poller::poll`] under the deadline
//! and sends both back in [`OltMsg::PollFinished`]), and what the actor does with the
//! report: poll statistics, coverage, the status move (ONLINE, DEGRADED, OFFLINE with
//! backoff), the merge of a good poll into the ONU table, sled, and the answers to
//! whoever waits for the poll.

use super::actor::OltState;
use super::handle::ActionError;
use super::msg::{OltMsg, PollReply, PollReport};
use super::view::OltSummary;
use crate::domain::{Onu, OnuStatus, OpticsThresholds, PonPortStats, SessionStatus};
use crate::poller::{self, PollOutcome};
use crate::profile::Profile;
use crate::snmp::{ClientSettings, DeviceError, SnmpClient};
use crate::store::SystemInfo;
use chrono::{DateTime, Utc};
use ractor::ActorRef;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;

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
    pub(super) fn tick(&self) -> Duration {
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

/// The poll lifecycle's part of the OLT state.
pub(super) struct PollCycle {
    /// The SNMP client while no poll has it.
    pub(super) client: Option<SnmpClient>,
    in_flight: Option<InFlight>,
    /// Counts the polls started; a report names the poll it is about.
    generation: u64,
    /// When the timer starts the next poll (interval after a good one, backoff after a
    /// failed one).
    pub(super) next_at: Instant,
    /// Callers of poll-now and restart-session, answered when the poll in flight ends.
    pub(super) waiters: Vec<PollReply>,
}

/// The poll task running now.
struct InFlight {
    generation: u64,
    task: JoinHandle<()>,
}

impl PollCycle {
    pub(super) fn new() -> PollCycle {
        PollCycle {
            client: None,
            in_flight: None,
            generation: 0,
            next_at: Instant::now(),
            waiters: Vec::new(),
        }
    }

    /// Answers everyone waiting for the poll.
    pub(super) fn answer_waiters(&mut self, result: Result<OltSummary, ActionError>) {
        for waiter in self.waiters.drain(..) {
            let _ = waiter.send(result.clone());
        }
    }
}

impl OltState {
    /// `OltMsg::Tick`: starts a poll when one is due and queues a backup when one is.
    pub(super) fn tick(&mut self, myself: &ActorRef<OltMsg>) {
        if self.stopped.is_some() || self.shutting_down {
            return;
        }
        if self.spec.enabled && self.poll.in_flight.is_none() && Instant::now() >= self.poll.next_at
        {
            self.start_poll(myself);
        }
        self.schedule_backup(myself);
    }

    /// `OltMsg::PollNow`: polls unless a poll is already running, and answers when it
    /// ends.
    pub(super) fn poll_now(&mut self, myself: &ActorRef<OltMsg>, reply: PollReply) {
        if self.shutting_down {
            let _ = reply.send(Err(self.takes_nothing_new()));
            return;
        }
        if !self.spec.enabled {
            let _ = reply.send(Err(ActionError::Disabled(self.spec.id)));
            return;
        }
        if let Some(reason) = &self.stopped {
            let _ = reply.send(Err(ActionError::Unavailable(reason.clone())));
            return;
        }
        if self.poll.in_flight.is_none() {
            self.start_poll(myself);
        }
        self.poll.waiters.push(reply);
    }

    /// Abandons the poll in flight: its task is aborted and a late report ignored.
    pub(super) fn abort_poll(&mut self) {
        if let Some(in_flight) = self.poll.in_flight.take() {
            in_flight.task.abort();
        }
    }

    /// Spawns a poll task (abandoning any poll in flight) that reports with
    /// [`OltMsg::PollFinished`].
    pub(super) fn start_poll(&mut self, myself: &ActorRef<OltMsg>) {
        self.abort_poll();
        self.poll.generation += 1;
        let generation = self.poll.generation;
        let settings = self.settings.clone();
        let profile = Profile::for_vendor(self.spec.vendor);
        let addr = SocketAddr::new(self.spec.ip, self.spec.snmp.port);
        let mut client = self.poll.client.take().unwrap_or_else(|| {
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
        self.poll.in_flight = Some(InFlight { generation, task });
    }

    /// `OltMsg::PollFinished`: takes the client back, records the poll, moves the status,
    /// persists, and answers the waiters with the new summary. A report of a poll that a
    /// restart abandoned changes nothing.
    pub(super) fn finish_poll(&mut self, report: PollReport) {
        let current = self.poll.in_flight.as_ref().map(|f| f.generation);
        if current != Some(report.generation) {
            return; // a poll that a restart already abandoned
        }
        self.poll.in_flight = None;
        self.poll.client = report.client;
        self.record.last_poll_at = Some(report.started_at);
        self.record.last_poll_ms = Some(report.elapsed.as_millis() as u64);
        self.record.last_poll_varbinds = report.varbinds;
        let now = Utc::now();
        self.count_poll(report.result.is_ok(), report.varbinds, report.elapsed, now);
        match report.result {
            Ok(outcome) => self.poll_succeeded(outcome, now),
            Err(error) => self.poll_failed(&error),
        }
        self.persist_record();
        // The summary, ports, VLANs and ONU rows are now as this poll left them: the
        // fleet view hears of it before anyone waiting for the poll.
        self.publish();
        let summary = self.summary();
        self.poll.answer_waiters(Ok(summary));
    }

    /// The poll's metrics and the stretch of time it covers (for availability reports).
    fn count_poll(&self, good: bool, varbinds: u64, elapsed: Duration, now: DateTime<Utc>) {
        let result = if good { "success" } else { "failure" };
        metrics::counter!("ponkeeper_polls_total", "result" => result).increment(1);
        metrics::counter!("ponkeeper_poll_varbinds_total").increment(varbinds);
        metrics::histogram!("ponkeeper_poll_duration_seconds").record(elapsed.as_secs_f64());
        let covered =
            self.store
                .extend_coverage(self.spec.id, now, good, self.settings.coverage_tolerance());
        if let Err(e) = covered {
            tracing::error!(olt = self.spec.id, error = %e, "cannot record poll coverage");
        }
    }

    /// A good poll: ONLINE, merged, next poll one interval later.
    fn poll_succeeded(&mut self, outcome: PollOutcome, now: DateTime<Utc>) {
        self.record.failures_in_row = 0;
        self.record_dirty |= self.record.last_error.is_some();
        self.record.last_error = None;
        self.record.last_success_at = Some(now);
        self.apply(outcome, now);
        self.move_to(SessionStatus::Online, "poll succeeded");
        self.poll.next_at = Instant::now() + self.settings.interval;
    }

    /// A failed poll: DEGRADED, or OFFLINE after `offline_after` in a row; next attempt
    /// after the backoff.
    fn poll_failed(&mut self, error: &DeviceError) {
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
        self.poll.next_at = Instant::now() + self.settings.backoff(failures);
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
        let ports = port_stats(&outcome.ports, &onus);
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
}

/// Each polled port, in the poll's order, with its ONUs counted (an ONU on a port the
/// poll did not list counts nowhere).
fn port_stats(ports: &[String], onus: &[Onu]) -> Vec<PonPortStats> {
    let mut stats: Vec<PonPortStats> = ports
        .iter()
        .map(|name| PonPortStats {
            name: name.clone(),
            onu_total: 0,
            onu_online: 0,
        })
        .collect();
    let position: HashMap<&str, usize> = ports
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_str(), i))
        .collect();
    for onu in onus {
        if let Some(&i) = position.get(onu.pon_port.as_str()) {
            stats[i].onu_total += 1;
            if onu.status == OnuStatus::Online {
                stats[i].onu_online += 1;
            }
        }
    }
    stats
}
