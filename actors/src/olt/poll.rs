//! The OLT's poll lifecycle: the settings every OLT actor polls with
//! ([`PollSettings`], `[polling]`), the poll cycle that owns the SNMP client, the poll
//! in flight, its waiters and when the next poll is due ([`PollCycle`]), the poll task
//! (it takes the SNMP client, runs [`crate::poller::poll`] under the deadline and sends
//! both back in [`OltMsg::PollFinished`]), and what the actor does with the report: poll
//! statistics, the merged ONU table swapped in (the merge and its store writes ran off
//! the actor, in [`super::merge`]) and the poll's result handed to the session machine
//! ([`super::session`]), whose move decides the status (ONLINE, DEGRADED, OFFLINE) and
//! the next poll (interval or backoff), persists, publishes and answers the waiters.

use super::actor::OltState;
use super::handle::ActionError;
use super::merge::{replay, MergedPoll, PollBase, TableEdit};
use super::msg::{OltMsg, PollReply, PollReport};
use super::pacing::LoadSeen;
use super::probe::{self, ProbePlan, Reads};
use super::schedule::{optics_cap, GroupIntervals, GroupsRead};
use super::session::Event;
use super::view::OltSummary;
use crate::domain::OpticsThresholds;
use crate::poll_workers::PollWorkers;
use crate::profile::polling::COMMON_POLLING;
use crate::profile::Profile;
use crate::snmp::{ClientSettings, DeviceError, SnmpClient};
use chrono::{DateTime, Utc};
use ractor::ActorRef;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;

/// Polling settings shared by every OLT actor (`[polling]`).
#[derive(Debug, Clone)]
pub struct PollSettings {
    /// How often the status group is read (`status_interval`): the poll's own interval.
    pub interval: Duration,
    /// How often the identity group (serials, descriptions, distances) is read.
    pub identity_interval: Duration,
    /// How often each ONU's optics are read; `None` takes the vendor's default
    /// ([`crate::profile::polling`]).
    pub optics_interval: Option<Duration>,
    /// How often the `olt` group (PON ports, VLANs) is read.
    pub olt_interval: Duration,
    /// How often the `traffic` group (per-ONU octet counters) is read.
    pub traffic_interval: Duration,
    /// How often the `macs` group (the MACs behind each ONU) is read.
    pub macs_interval: Duration,
    /// Requests a second an OLT is sent at most; `None` takes the vendor's default.
    pub max_requests_per_second: Option<u32>,
    pub timeout: Duration,
    pub retries: u32,
    pub deadline: Duration,
    pub offline_after: u32,
    pub bulk_varbinds: u32,
    /// Polls in flight across all OLTs (only OLTs that answer hold one: `olt/probe.rs`).
    pub concurrency: Arc<Semaphore>,
    /// Probes in flight of OLTs whose last poll failed, or that missed a quick answer: a
    /// budget apart, so hung OLTs wait out their timeouts without holding the permits of
    /// `concurrency`.
    pub probes: Arc<Semaphore>,
    /// Merges of finished polls running at once on the blocking pool, across all OLTs
    /// (one per core by default): a fleet's polls finishing together queue here instead
    /// of starting a blocking thread each.
    pub merges: Arc<Semaphore>,
    /// The runtime poll tasks (device I/O, decoding, merges) run on
    /// ([`crate::poll_workers`]).
    pub workers: PollWorkers,
    /// Rx thresholds that set each ONU's optics level (`[optics]`).
    pub thresholds: OpticsThresholds,
    /// At most one stored optics point per ONU per step, plus one at each level change.
    pub history_step: Duration,
    /// Time allowed to one CLI step (login, one command); a whole action gets
    /// `deadline.max(cli_timeout)`.
    pub cli_timeout: Duration,
    /// Scheduled running-config backups (`[backup] interval`).
    pub backup_interval: Duration,
    /// When a PON port counts as saturated (`[events] port_saturation_*`).
    pub saturation: crate::traffic::saturation::SaturationRule,
    /// Where history points go instead of the local series, when they are kept outside
    /// (`[history] backend`); `None` writes them to the store.
    pub history_export: Option<crate::history_export::HistoryExport>,
}

impl Default for PollSettings {
    /// The defaults of `config/ponkeeper.toml`.
    fn default() -> Self {
        PollSettings {
            interval: Duration::from_secs(60),
            identity_interval: Duration::from_secs(15 * 60),
            optics_interval: None,
            olt_interval: Duration::from_secs(15 * 60),
            traffic_interval: Duration::from_secs(5 * 60),
            macs_interval: Duration::from_secs(15 * 60),
            max_requests_per_second: None,
            timeout: Duration::from_secs(2),
            retries: 1,
            deadline: Duration::from_secs(30),
            offline_after: 3,
            bulk_varbinds: 256,
            concurrency: Arc::new(Semaphore::new(256)),
            probes: Arc::new(Semaphore::new(256)),
            merges: Arc::new(Semaphore::new(default_merges())),
            workers: PollWorkers::current(),
            thresholds: OpticsThresholds {
                warning_dbm: -25.0,
                critical_dbm: -27.0,
            },
            history_step: Duration::from_secs(15 * 60),
            cli_timeout: Duration::from_secs(10),
            backup_interval: Duration::from_secs(86_400),
            saturation: Default::default(),
            history_export: None,
        }
    }
}

/// One merge at a time per core.
pub fn default_merges() -> usize {
    std::thread::available_parallelism().map_or(2, usize::from)
}

impl PollSettings {
    fn client_settings(&self) -> ClientSettings {
        ClientSettings {
            timeout: self.timeout,
            retries: self.retries,
            bulk_varbinds: self.bulk_varbinds,
        }
    }

    /// How soon the actor looks again when it woke for a poll it could not start (a
    /// quarter interval, 50 ms to 1 s).
    pub(super) fn tick(&self) -> Duration {
        (self.interval / 4).clamp(Duration::from_millis(50), Duration::from_secs(1))
    }

    /// Longest gap between two polls over which an OLT's state still counts as known:
    /// two intervals and a poll's deadline (a failing OLT is retried sooner than that).
    pub fn coverage_tolerance(&self) -> Duration {
        self.interval * 2 + self.deadline
    }

    /// Delay before the next attempt after `failures` failed polls in a row.
    pub(super) fn backoff(&self, failures: u32) -> Duration {
        let exponent = failures.saturating_sub(1).min(16);
        self.timeout
            .saturating_mul(1 << exponent)
            .min(self.interval)
    }
}

/// The poll lifecycle's part of the OLT state: the SNMP client while no poll has it, the
/// poll in flight and who waits for it, when the next one is due, and what CLI actions
/// changed meanwhile. The session machine decides when to poll; this part runs the polls.
pub(super) struct PollCycle {
    /// The SNMP client while no poll has it.
    client: Option<SnmpClient>,
    in_flight: Option<InFlight>,
    /// Counts the polls started; a report names the poll it is about.
    generation: u64,
    /// When the timer starts the next poll (interval after a good one, backoff after a
    /// failed one).
    next_at: Instant,
    /// Callers of poll-now and restart-session, each with the first poll generation that
    /// may answer it: a poll that was already in flight when the caller asked read the
    /// device before it (an ONU just authorised would be missing), so it waits for the
    /// next one.
    waiters: Vec<(u64, PollReply)>,
    /// The generation of the poll that was in flight when a poll was last asked for,
    /// until the caller's wait is recorded.
    asked_during: Option<u64>,
    /// Changes CLI actions made to the ONU table since the poll in flight took its copy;
    /// `None` while no poll is in flight.
    edits: Option<Vec<TableEdit>>,
    /// The round trip of the last answered system GET: the next poll's quick probe.
    round_trip: Option<Duration>,
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
            asked_during: None,
            edits: None,
            round_trip: None,
        }
    }

    /// How many polls have started.
    pub(super) fn generation(&self) -> u64 {
        self.generation
    }

    /// Whether a poll is in flight.
    pub(super) fn in_flight(&self) -> bool {
        self.in_flight.is_some()
    }

    /// Whether the timer should start a poll now: none in flight, and the next is due.
    pub(super) fn is_due(&self) -> bool {
        self.in_flight.is_none() && Instant::now() >= self.next_at
    }

    /// When the timer starts the next poll.
    pub(super) fn next_at(&self) -> Instant {
        self.next_at
    }

    /// The timer starts the next poll at `at`.
    pub(super) fn schedule(&mut self, at: Instant) {
        self.next_at = at;
    }

    /// Abandons the poll in flight: its task is aborted and a late report ignored.
    pub(super) fn abandon(&mut self) {
        if let Some(in_flight) = self.in_flight.take() {
            in_flight.task.abort();
        }
        self.edits = None;
    }

    /// Drops the SNMP client: the next poll opens a fresh socket.
    pub(super) fn drop_client(&mut self) {
        self.client = None;
    }

    /// Abandons any poll in flight and opens the next one: its generation, the client it
    /// takes (if there is one) and the round trip its probe starts from.
    fn begin(&mut self) -> (u64, Option<SnmpClient>, Option<Duration>) {
        self.abandon();
        self.generation += 1;
        self.edits = Some(Vec::new());
        (self.generation, self.client.take(), self.round_trip)
    }

    /// The poll `generation` runs in `task`.
    fn running(&mut self, generation: u64, task: JoinHandle<()>) {
        self.in_flight = Some(InFlight { generation, task });
    }

    /// Takes back what the report of poll `generation` returns; answers the CLI's edits
    /// made meanwhile, or `None` for a poll that a restart already abandoned.
    fn finish(
        &mut self,
        generation: u64,
        client: Option<SnmpClient>,
        round_trip: Option<Duration>,
    ) -> Option<Vec<TableEdit>> {
        let current = self.in_flight.as_ref().map(|f| f.generation);
        if current != Some(generation) {
            return None;
        }
        self.in_flight = None;
        self.client = client;
        if round_trip.is_some() {
            self.round_trip = round_trip;
        }
        Some(self.edits.take().unwrap_or_default())
    }

    /// Notes a change to the ONU table that the poll in flight must not undo.
    pub(super) fn note_edit(&mut self, edit: TableEdit) {
        if let Some(edits) = &mut self.edits {
            edits.push(edit);
        }
    }

    /// A poll was asked for while one is in flight: the caller waits for the next.
    pub(super) fn asked_during_flight(&mut self) {
        self.asked_during = self.in_flight.as_ref().map(|f| f.generation);
    }

    /// `reply` is answered when a poll that started after the request ends.
    pub(super) fn wait(&mut self, reply: PollReply) {
        let first = match self.asked_during.take() {
            Some(in_flight) => in_flight + 1,
            None => self.generation,
        };
        self.waiters.push((first, reply));
    }

    /// Whether someone waits for a poll that has not started yet.
    pub(super) fn waits_for_next(&self) -> bool {
        self.waiters
            .iter()
            .any(|(first, _)| *first > self.generation)
    }

    /// Answers everyone the poll that just ended may answer.
    pub(super) fn answer_waiters(&mut self, result: Result<OltSummary, ActionError>) {
        let ended = self.generation;
        let (answered, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.waiters)
            .into_iter()
            .partition(|(first, _)| *first <= ended);
        self.waiters = later;
        for (_, waiter) in answered {
            let _ = waiter.send(result.clone());
        }
    }

    /// Answers everyone waiting, whatever the poll (a shutdown, a restart).
    pub(super) fn fail_waiters(&mut self, error: ActionError) {
        for (_, waiter) in self.waiters.drain(..) {
            let _ = waiter.send(Err(error.clone()));
        }
    }
}

impl OltState {
    /// Spawns a poll task (abandoning any poll in flight) that reports with
    /// [`OltMsg::PollFinished`].
    pub(super) fn start_poll(&mut self, myself: &ActorRef<OltMsg>) {
        let (generation, client, round_trip) = self.poll.begin();
        let started = Instant::now();
        let ceiling = self.request_ceiling();
        self.pacing.set_ceiling(ceiling);
        let reads = self.reads(started);
        let settings = self.settings.clone();
        let vendor = self.vendor();
        let addr = SocketAddr::new(self.spec.ip, self.spec.snmp.port);
        let mut client = client.unwrap_or_else(|| {
            SnmpClient::for_olt(
                addr,
                self.spec.id,
                &self.spec.snmp,
                settings.client_settings(),
            )
        });
        let base = PollBase {
            olt: self.spec.id,
            store: self.store.clone(),
            table: self.onus.clone(),
            vlan_map: self.vlan_map.clone(),
            thresholds: settings.thresholds,
            history_step: settings.history_step,
            node: self.spec.node,
            export: settings.history_export.clone(),
            coverage_tolerance: settings.coverage_tolerance(),
            traffic: reads.plan.traffic.then(|| self.traffic.clone()),
            unsaved: self.onus_unsaved,
        };
        let myself = myself.clone();
        let plan = ProbePlan {
            suspect: self.session.failures() > 0,
            round_trip,
        };
        client.load.set_rate(self.pacing.rate());
        let workers = settings.workers.clone();
        let task = workers.spawn(async move {
            let started_at = Utc::now();
            let varbinds_before = client.varbinds_received;
            let probed = probe::poll(&mut client, vendor, &settings, plan, &reads).await;
            let result = probed.result;
            match &result {
                Ok(outcome) => {
                    let layout = Profile::for_family(outcome.vendor, Some(outcome.family));
                    discover(&mut client, layout, settings.deadline, &myself).await
                }
                Err(_) => client.reset(),
            }
            client.release_idle();
            // The device is done with: its poll permit goes to the next OLT.
            drop(probed.permit);
            let varbinds = client.varbinds_received - varbinds_before;
            let elapsed = probed.device_time;
            let load = LoadSeen::of(&client.load, started.elapsed());
            let finished_at = Utc::now();
            let _merging = settings.merges.clone().acquire_owned().await;
            let merged = tokio::task::spawn_blocking(move || base.finish(result, finished_at))
                .await
                .unwrap_or_else(|e| {
                    tracing::error!(error = %e, "the merge of a poll failed");
                    Err(DeviceError::Protocol(format!(
                        "the answer could not be merged: {e}"
                    )))
                });
            let _ = myself.send_message(OltMsg::PollFinished(Box::new(PollReport {
                generation,
                started_at,
                finished_at,
                elapsed,
                round_trip: probed.round_trip,
                varbinds,
                plan: reads.plan,
                started,
                load,
                result: merged,
                client: Some(client),
            })));
        });
        self.poll.running(generation, task);
    }

    /// `OltMsg::PollFinished`: takes the client back, records the poll and what it
    /// read, and lets the session move (which persists, publishes and answers the
    /// waiters with the new summary). A report of a poll that a restart abandoned changes
    /// nothing.
    pub(super) fn finish_poll(&mut self, myself: &ActorRef<OltMsg>, report: PollReport) {
        let Some(edits) = self
            .poll
            .finish(report.generation, report.client, report.round_trip)
        else {
            return; // a poll that a restart already abandoned
        };
        self.record.last_poll_at = Some(report.started_at);
        self.record.last_poll_ms = Some(report.elapsed.as_millis() as u64);
        self.record.last_poll_varbinds = report.varbinds;
        let now = report.finished_at;
        count_poll(
            report.result.as_ref().err(),
            report.varbinds,
            report.elapsed,
        );
        let failure = report.result.as_ref().err().map(ToString::to_string);
        self.pacing.after_poll(&report.load);
        self.load = report.load;
        self.pacing.publish(self.spec.id, &self.load.recent);
        let event = match report.result {
            Ok(mut merged) => {
                let traffic_read = self.take_traffic(&mut merged);
                if traffic_read {
                    self.watch_saturation(now);
                }
                let read = GroupsRead {
                    at: now,
                    took: report.elapsed,
                    rows: std::mem::take(&mut merged.rows),
                    interfaces: merged.interfaces.take(),
                    optics_read: std::mem::take(&mut merged.optics_read),
                    came_online: std::mem::take(&mut merged.came_online),
                    traffic_read,
                };
                let moves = std::mem::take(&mut merged.mac_moves);
                self.publisher.macs_moved(self.spec.id, moves);
                self.poll_succeeded(merged, edits, now);
                let intervals = self.intervals();
                let olt = self.spec.id;
                self.schedule.read(
                    olt,
                    &report.plan,
                    report.started,
                    read,
                    &self.onus,
                    &intervals,
                );
                Event::PollSucceeded
            }
            Err(error) => {
                self.poll_failed(&error);
                Event::PollFailed {
                    error: error.to_string(),
                    // A device that answers but matches no profile is not unreachable.
                    answers: matches!(error, DeviceError::UnknownVendor { .. }),
                    offline_after: self.settings.offline_after,
                }
            }
        };
        // The summary, ports, VLANs and ONU rows are now as this poll left them: the
        // session's move publishes them to the fleet view before anyone waiting for the
        // poll is answered.
        self.fire(myself, event, None);
        self.answer_refreshes(report.generation, failure.as_deref());
        self.answer_mac_waiters(report.generation, failure.as_deref());
        if failure.is_none() && report.plan.macs && self.schedule.macs_were_due() {
            self.queue_mac_read(myself);
        }
        let waiting = !self.refreshes.is_empty() || !self.mac_waiters.is_empty();
        if waiting && !self.poll.in_flight() {
            // Someone waits for a reading: the next poll starts at once. (ONUs back
            // online wait for the next scheduled poll, at the head of the sweep.)
            self.poll.schedule(Instant::now());
        }
    }

    /// The intervals of this OLT's groups: its own `poll` table, else `[polling]`, else
    /// (optics) its vendor's default.
    pub(super) fn intervals(&self) -> GroupIntervals {
        let own = &self.spec.poll;
        let settings = &self.settings;
        let vendor_optics = self.profile().map_or(COMMON_POLLING.optics_interval, |p| {
            p.polling.optics_interval
        });
        GroupIntervals {
            status: own.status.unwrap_or(settings.interval),
            identity: own.identity.unwrap_or(settings.identity_interval),
            optics: own
                .optics
                .or(settings.optics_interval)
                .unwrap_or(vendor_optics),
            olt: own.olt.unwrap_or(settings.olt_interval),
            traffic: own.traffic.unwrap_or(settings.traffic_interval),
            macs: settings.macs_interval,
        }
    }

    /// The most requests a second this OLT is sent: its own, else `[polling]`, else its
    /// vendor's default.
    pub(super) fn request_ceiling(&self) -> u32 {
        let vendor = self
            .profile()
            .map_or(COMMON_POLLING.max_requests_per_second, |p| {
                p.polling.max_requests_per_second
            });
        self.spec
            .poll
            .max_requests_per_second
            .or(self.settings.max_requests_per_second)
            .unwrap_or(vendor)
    }

    /// What the next poll reads (the schedule's plan at `now`) and what it remembers.
    fn reads(&mut self, now: Instant) -> Reads {
        let intervals = self.intervals();
        let per_request = self.profile().map_or(1, crate::poller::optics_per_request);
        let cap = optics_cap(&self.pacing, intervals.status, per_request);
        Reads {
            plan: self.schedule.plan(now, &self.onus, &intervals, cap),
            rows: self.schedule.rows.clone(),
            onus: self.onus.all(),
            interfaces: self.schedule.interfaces.clone(),
            vlans: self.record.vlans.clone(),
        }
    }

    /// What a good poll read: the merged table swapped in (with the CLI's edits made
    /// meanwhile replayed onto it), the error cleared.
    fn poll_succeeded(&mut self, merged: MergedPoll, edits: Vec<TableEdit>, now: DateTime<Utc>) {
        self.record_dirty |= self.record.last_error.is_some();
        self.record.last_error = None;
        self.record.last_success_at = Some(now);
        self.take_merged(merged, edits);
    }

    /// The traffic book a good poll recorded its `traffic` read into (off the actor, in
    /// the merge), swapped in; whether it had one.
    fn take_traffic(&mut self, merged: &mut MergedPoll) -> bool {
        let Some(book) = merged.traffic.take() else {
            return false;
        };
        self.traffic = book;
        true
    }

    /// Each port's traffic after a `traffic` read, against the saturation rule; what
    /// changed goes to the fleet view (the events `PON_PORT_SATURATED` and its clear).
    fn watch_saturation(&mut self, now: DateTime<Utc>) {
        let ports = self.port_traffic();
        let changes = self
            .saturation
            .observe(&ports, &self.settings.saturation, now);
        self.publisher.port_saturation(self.spec.id, changes);
    }

    /// What a failed poll leaves: its error.
    fn poll_failed(&mut self, error: &DeviceError) {
        let last_error = Some(error.to_string());
        self.record_dirty |= self.record.last_error != last_error;
        self.record.last_error = last_error;
    }

    /// Takes a merged poll's table and what it says of the OLT into the state.
    fn take_merged(&mut self, merged: MergedPoll, edits: Vec<TableEdit>) {
        self.onus_unsaved = merged.unsaved;
        let MergedPoll {
            table,
            ports,
            system,
            vlans,
            warnings,
            vendor,
            family,
            ..
        } = merged;
        let mut warnings = warnings;
        warnings.extend(self.mac_warnings.iter().cloned());
        self.onus = table;
        if !edits.is_empty() {
            replay(edits, &mut self.onus, &self.vlan_map);
            self.persist_onus();
        }
        // The uptime is a poll statistic (stored apart); the rest rarely changes.
        let old = &self.record.system;
        self.record_dirty |= self.record.ports != ports
            || self.record.vlans != vlans
            || self.record.warnings != warnings
            || (&old.sys_name, &old.sys_descr, &old.firmware)
                != (&system.sys_name, &system.sys_descr, &system.firmware);
        self.record.ports = ports;
        self.record.vlans = vlans;
        self.record.warnings = warnings;
        self.record.system = system;
        // `vendor = "auto"`: what this poll detected is kept (docs/devices.md, vendor
        // detection).
        let detected = self.spec.vendor.fixed().is_none().then_some(vendor);
        self.record_dirty |= self.record.detected_vendor != detected;
        self.record.detected_vendor = detected;
        // The layout is kept for every OLT: CLI actions speak the family's dialect.
        if self.record.detected_family.as_deref() != Some(family) {
            self.record.detected_family = Some(family.to_string());
            self.record_dirty = true;
        }
    }
}

/// After a good poll: reads the unconfigured ONUs and sends them to the actor. A device
/// that does not answer leaves the last list as it was (the poll itself was good).
async fn discover(
    client: &mut SnmpClient,
    layout: &'static Profile,
    deadline: Duration,
    myself: &ActorRef<OltMsg>,
) {
    match tokio::time::timeout(deadline, crate::provision::discover(client, layout)).await {
        Ok(Ok(sightings)) => {
            let _ = myself.send_message(OltMsg::Discovered(sightings, Utc::now()));
        }
        Ok(Err(error)) => {
            tracing::debug!(%error, "discovery of unconfigured ONUs failed");
            client.reset();
        }
        Err(_) => client.reset(),
    }
}

/// The poll's metrics; a failure is also counted by its kind.
fn count_poll(failure: Option<&DeviceError>, varbinds: u64, elapsed: Duration) {
    let result = if failure.is_none() {
        "success"
    } else {
        "failure"
    };
    metrics::counter!("ponkeeper_polls_total", "result" => result).increment(1);
    if let Some(error) = failure {
        metrics::counter!("ponkeeper_poll_failures_total", "kind" => error.kind()).increment(1);
    }
    metrics::counter!("ponkeeper_poll_varbinds_total").increment(varbinds);
    metrics::histogram!("ponkeeper_poll_duration_seconds").record(elapsed.as_secs_f64());
}

#[cfg(test)]
mod tests;
