//! The OLT actor's session state machine (the states and moves README.md's "OLT session
//! states" lists), message by message: a real [`OltActor`] spawned with `Actor::spawn` on
//! a temp [`Store`], polling and driving one
//! simulated Huawei OLT of four ONUs over real UDP and SSH, in-process. Faults are set on
//! the simulator (`hang` for a hung poll, `ssh-mute` for a CLI that never prompts).
//! Timeouts are 300 ms, so a failed poll costs 300 ms and the file runs in a few seconds.
//!
//! Each OLT starts with a stored config backup, so no scheduled backup joins the queue
//! while a test runs. The actor's timer still ticks every second, but it polls only when
//! a poll is due: not within the 60 s interval after a good poll, and not before the
//! 300 ms backoff after a failed one, which the test's next poll-now comes well within.
//! A test waits for answers, not for ticks.

use chrono::Utc;
use ponkeeper_actors::domain::{OnuId, SessionStatus, Vendor};
use ponkeeper_actors::inventory::OltSpec;
use ponkeeper_actors::olt::{
    ActionError, ActionOutcome, CliAction, OltActor, OltArgs, OltDetail, OltHandle, OltMsg,
    PollSettings,
};
use ponkeeper_actors::profile::commands::{port_values, render};
use ponkeeper_actors::profile::Profile;
use ponkeeper_actors::store::Store;
use ponkeeper_sim::{
    Dynamics, Fault, FaultSet, FleetSpec, SimFleet, DEFAULT_SSH_PASSWORD, SSH_PASSWORD_ENV,
};
use ractor::concurrency::{oneshot, OneshotReceiver};
use ractor::rpc::CallResult;
use ractor::{Actor, ActorRef, RpcReplyPort};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::task::JoinHandle;
use SessionStatus::{Connecting, Degraded, Disabled, Offline, Online};

/// The SNMP request timeout: what one poll of a hung OLT costs.
const TIMEOUT: Duration = Duration::from_millis(300);
/// The error of a poll of a hung OLT.
const HUNG: &str = "no answer within 300ms (1 attempts)";
/// The crash-loop reason the supervisor gives a stopped actor.
const CRASH_LOOP: &str =
    "stopped after a crash loop (injected crash of OLT 1); restart-session to try again";

fn settings() -> PollSettings {
    PollSettings {
        interval: Duration::from_secs(60),
        timeout: TIMEOUT,
        retries: 0,
        deadline: Duration::from_secs(2),
        offline_after: 3,
        bulk_varbinds: 64,
        concurrency: Arc::new(tokio::sync::Semaphore::new(4)),
        // A mute CLI holds an action this long: time enough to act on it meanwhile.
        cli_timeout: Duration::from_secs(1),
        ..PollSettings::default()
    }
}

/// One simulated OLT, its store and its actor.
struct Bench {
    sim: SimFleet,
    _dir: tempfile::TempDir,
    store: Store,
    spec: OltSpec,
    actor: ActorRef<OltMsg>,
    join: JoinHandle<()>,
    olt: OltHandle,
}

impl Bench {
    /// OLT 1 of a frozen simulated fleet, its actor started (not yet polled).
    async fn start() -> Bench {
        let sim = SimFleet::start(FleetSpec {
            dynamics: Dynamics::none(),
            ..FleetSpec::new(1, 4)
        })
        .await
        .expect("simulator");
        // Every test sets the same value, so their order does not matter.
        std::env::set_var(SSH_PASSWORD_ENV, DEFAULT_SSH_PASSWORD);
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("store");
        let config = sim.running_config(1).expect("a running configuration");
        store
            .save_config(1, &config, Utc::now())
            .await
            .expect("a stored backup");
        let spec = sim.inventory().olts.remove(0);
        let (actor, join, olt) = spawn(&store, spec.clone(), None).await;
        Bench {
            sim,
            _dir: dir,
            store,
            spec,
            actor,
            join,
            olt,
        }
    }

    /// Stops the actor and starts another on the same store, stopped with `reason` (as
    /// the supervisor does after a crash loop).
    async fn restart_stopped(&mut self, reason: &str) {
        self.actor.stop(None);
        (&mut self.join).await.expect("the actor stops");
        let (actor, join, olt) = spawn(&self.store, self.spec.clone(), Some(reason)).await;
        (self.actor, self.join, self.olt) = (actor, join, olt);
    }

    async fn detail(&self) -> OltDetail {
        self.olt.detail().await.expect("detail")
    }

    async fn poll(&self) -> SessionStatus {
        self.olt.poll_now().await.expect("poll").status
    }

    /// The ids of the OLT's ONUs, once polled.
    async fn onu_ids(&self) -> Vec<OnuId> {
        let onus = self.olt.onus().await.expect("ONUs");
        onus.iter().map(|onu| onu.id).collect()
    }

    /// Sends a message carrying a reply port without waiting for the answer, so that the
    /// next message is handled while this one is in flight.
    fn send<T>(&self, message: impl FnOnce(RpcReplyPort<T>) -> OltMsg) -> OneshotReceiver<T> {
        let (tx, rx) = oneshot();
        self.actor.send_message(message(tx.into())).expect("send");
        rx
    }

    fn reconfigure(&self, enabled: bool) {
        let spec = OltSpec {
            enabled,
            ..self.spec.clone()
        };
        self.actor
            .send_message(OltMsg::Reconfigure(Box::new(spec), None))
            .expect("send");
    }

    /// SNMP requests the simulated OLT has received.
    fn requests(&self) -> u64 {
        self.sim.snmp_traffic(1).expect("OLT 1").received
    }

    async fn stop(self) {
        self.actor.stop(None);
        self.join.await.expect("the actor stops");
        self.sim.shutdown().await;
    }
}

async fn spawn(
    store: &Store,
    spec: OltSpec,
    stopped: Option<&str>,
) -> (ActorRef<OltMsg>, JoinHandle<()>, OltHandle) {
    let settings = settings();
    let handle_settings = settings.clone();
    let view = ponkeeper_actors::fleet_view::FleetViewHandle::start(settings.thresholds)
        .await
        .expect("the fleet view starts");
    let args = OltArgs {
        spec,
        store: store.clone(),
        settings: Arc::new(settings),
        stopped: stopped.map(str::to_string),
        view,
        incarnation: 1,
    };
    let (actor, join) = Actor::spawn(None, OltActor, args)
        .await
        .expect("the actor starts");
    let olt = OltHandle::new(1, actor.clone(), &handle_settings);
    (actor, join, olt)
}

/// The answer to a message sent with [`Bench::send`], within five seconds.
async fn answer<T>(rx: OneshotReceiver<T>) -> T {
    tokio::time::timeout(Duration::from_secs(5), rx)
        .await
        .expect("answered in time")
        .expect("answered")
}

/// The recorded moves: from, to, reason.
fn moves(detail: &OltDetail) -> Vec<(Option<SessionStatus>, SessionStatus, String)> {
    detail
        .session
        .transitions
        .iter()
        .map(|t| (t.from, t.to, t.reason.clone()))
        .collect()
}

fn step(
    from: Option<SessionStatus>,
    to: SessionStatus,
    reason: &str,
) -> (Option<SessionStatus>, SessionStatus, String) {
    (from, to, reason.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn polls_move_the_session_through_online_degraded_offline_and_back() {
    let bench = Bench::start().await;
    let started = bench.detail().await;
    assert_eq!(started.summary.status, Connecting);
    assert_eq!(started.summary.total_onu, 0);
    assert_eq!(moves(&started), [step(None, Connecting, "actor started")]);

    // CONNECTING → ONLINE on a good poll.
    assert_eq!(bench.poll().await, Online);
    let online = bench.detail().await;
    assert_eq!(online.summary.total_onu, 4);
    assert_eq!(
        online.summary.total_ports as usize,
        bench.sim.expected_ports(1).len()
    );
    assert_eq!(online.session.last_error, None);

    // ONLINE → DEGRADED on a failed poll, DEGRADED until `offline_after` (3) in a row.
    bench.sim.set_faults(1, FaultSet::new().with(Fault::Hang));
    assert_eq!(bench.poll().await, Degraded);
    let degraded = bench.detail().await;
    assert_eq!(degraded.session.failures_in_row, 1);
    assert_eq!(degraded.session.last_error.as_deref(), Some(HUNG));
    assert_eq!(
        degraded.summary.total_onu, 4,
        "the last known ONUs are kept"
    );
    assert_eq!(bench.poll().await, Degraded);
    // DEGRADED → OFFLINE at the third.
    assert_eq!(bench.poll().await, Offline);
    assert_eq!(bench.detail().await.session.failures_in_row, 3);
    // No CLI action on an OFFLINE OLT.
    let onu = bench.onu_ids().await[0];
    assert_eq!(
        bench.olt.cli(CliAction::Reboot(onu)).await,
        Err(ActionError::Unavailable("OLT 1 is OFFLINE".into()))
    );

    // OFFLINE → ONLINE when a poll succeeds again; DEGRADED → ONLINE likewise.
    bench.sim.clear_faults(1);
    assert_eq!(bench.poll().await, Online);
    bench.sim.set_faults(1, FaultSet::new().with(Fault::Hang));
    assert_eq!(bench.poll().await, Degraded);
    bench.sim.clear_faults(1);
    assert_eq!(bench.poll().await, Online);

    let back = bench.detail().await;
    assert_eq!(back.session.failures_in_row, 0);
    assert_eq!(back.session.last_error, None);
    let failed = format!("poll failed: {HUNG}");
    assert_eq!(
        moves(&back),
        [
            step(None, Connecting, "actor started"),
            step(Some(Connecting), Online, "poll succeeded"),
            step(Some(Online), Degraded, &failed),
            step(
                Some(Degraded),
                Offline,
                &format!("3 failed polls in a row, last: {HUNG}")
            ),
            step(Some(Offline), Online, "poll succeeded"),
            step(Some(Online), Degraded, &failed),
            step(Some(Degraded), Online, "poll succeeded"),
        ]
    );
    // What the API shows after a restart of the service is what was recorded.
    let stored = bench.store.load_olt(1).expect("load").expect("a record");
    assert_eq!(stored.status, Online);
    assert_eq!(stored.transitions, back.session.transitions);
    bench.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_session_moves_any_status_to_connecting_and_answers_after_its_poll() {
    let bench = Bench::start().await;
    assert_eq!(bench.poll().await, Online);

    // From ONLINE: CONNECTING, then the new session's first poll.
    let restarted = bench.olt.restart_session().await.expect("restart");
    assert_eq!(restarted.status, Online);

    // From OFFLINE: the failure count starts again, so the first failed poll of the new
    // session is DEGRADED, not OFFLINE.
    bench.sim.set_faults(1, FaultSet::new().with(Fault::Hang));
    for _ in 0..3 {
        bench.poll().await;
    }
    assert_eq!(bench.detail().await.summary.status, Offline);
    let restarted = bench.olt.restart_session().await.expect("restart");
    assert_eq!(restarted.status, Degraded);
    let detail = bench.detail().await;
    assert_eq!(detail.session.failures_in_row, 1);

    let failed = format!("poll failed: {HUNG}");
    assert_eq!(
        moves(&detail),
        [
            step(None, Connecting, "actor started"),
            step(Some(Connecting), Online, "poll succeeded"),
            step(Some(Online), Connecting, "session restarted on request"),
            step(Some(Connecting), Online, "poll succeeded"),
            step(Some(Online), Degraded, &failed),
            step(
                Some(Degraded),
                Offline,
                &format!("3 failed polls in a row, last: {HUNG}")
            ),
            step(Some(Offline), Connecting, "session restarted on request"),
            step(Some(Connecting), Degraded, &failed),
        ]
    );
    bench.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reconfigure_disables_the_olt_and_enables_it_again() {
    let bench = Bench::start().await;
    assert_eq!(bench.poll().await, Online);

    // A poll waiting on a hung device when the inventory disables the OLT is answered.
    bench.sim.set_faults(1, FaultSet::new().with(Fault::Hang));
    let waiting = bench.send(OltMsg::PollNow);
    bench.reconfigure(false);
    assert_eq!(answer(waiting).await, Err(ActionError::Disabled(1)));
    let disabled = bench.detail().await;
    assert_eq!(disabled.summary.status, Disabled);
    assert_eq!(disabled.summary.total_onu, 4, "still served");
    let stored = bench.store.load_olt(1).expect("load").expect("a record");
    assert_eq!(stored.status, Disabled);

    // DISABLED: no polls, no restarts, no actions.
    assert_eq!(bench.olt.poll_now().await, Err(ActionError::Disabled(1)));
    assert_eq!(
        bench.olt.restart_session().await,
        Err(ActionError::Disabled(1))
    );
    assert_eq!(
        bench.olt.cli(CliAction::Backup).await,
        Err(ActionError::Disabled(1))
    );

    // Enabled again: a new session, CONNECTING until its first poll.
    bench.sim.clear_faults(1);
    bench.reconfigure(true);
    let enabled = bench.detail().await;
    assert_eq!(enabled.summary.status, Connecting);
    assert_eq!(bench.poll().await, Online);
    assert_eq!(
        moves(&bench.detail().await),
        [
            step(None, Connecting, "actor started"),
            step(Some(Connecting), Online, "poll succeeded"),
            step(Some(Online), Disabled, "disabled in the inventory"),
            step(Some(Disabled), Connecting, "inventory changed"),
            step(Some(Connecting), Online, "poll succeeded"),
        ]
    );
    bench.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_olt_stopped_after_a_crash_loop_does_no_device_io_until_restart_session() {
    let mut bench = Bench::start().await;
    assert_eq!(bench.poll().await, Online);
    bench.restart_stopped(CRASH_LOOP).await;

    // Served from sled, OFFLINE with the reason.
    let stopped = bench.detail().await;
    assert_eq!(stopped.summary.status, Offline);
    assert_eq!(stopped.summary.total_onu, 4);
    assert_eq!(stopped.session.last_error.as_deref(), Some(CRASH_LOOP));
    assert_eq!(
        moves(&stopped),
        [
            step(None, Connecting, "actor started"),
            step(Some(Connecting), Online, "poll succeeded"),
            step(Some(Online), Offline, CRASH_LOOP),
        ]
    );
    let stored = bench.store.load_olt(1).expect("load").expect("a record");
    assert_eq!(stored.last_error.as_deref(), Some(CRASH_LOOP));

    // Polls and actions are refused with the reason; the timer polls nothing.
    let requests = bench.requests();
    let refused = ActionError::Unavailable(CRASH_LOOP.into());
    assert_eq!(bench.olt.poll_now().await.err(), Some(refused.clone()));
    let onu = bench.onu_ids().await[0];
    assert_eq!(
        bench.olt.cli(CliAction::Reboot(onu)).await.err(),
        Some(refused)
    );
    bench.actor.send_message(OltMsg::Tick).expect("tick");
    bench.detail().await;
    // A poll the tick had started would have reached the device by now.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(bench.requests(), requests, "no SNMP request while stopped");
    assert_eq!(
        bench.detail().await.session.last_poll_at,
        stopped.session.last_poll_at
    );

    // restart-session revives it.
    let revived = bench.olt.restart_session().await.expect("restart");
    assert_eq!(revived.status, Online);
    assert!(bench.requests() > requests);
    let detail = bench.detail().await;
    assert_eq!(detail.session.last_error, None);
    assert_eq!(
        moves(&detail)[2..],
        [
            step(Some(Online), Offline, CRASH_LOOP),
            step(
                Some(Offline),
                Connecting,
                "restarted on request after a crash loop"
            ),
            step(Some(Connecting), Online, "poll succeeded"),
        ]
    );
    bench.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_session_abandons_a_hung_poll_and_fails_the_action_in_flight() {
    let bench = Bench::start().await;
    assert_eq!(bench.poll().await, Online);
    let onu = bench.onu_ids().await[0];

    bench
        .sim
        .set_faults(1, FaultSet::new().with(Fault::Hang).with(Fault::SshMute));
    let requests = bench.requests();
    let poll = bench.send(OltMsg::PollNow);
    let action = bench.send(|reply| OltMsg::Cli(CliAction::Reboot(onu), reply));
    // The poll is hung on the device (its first request arrived, unanswered).
    let since = Instant::now();
    while bench.requests() == requests {
        assert!(since.elapsed() < Duration::from_secs(5), "the poll started");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }

    let restarting = Instant::now();
    let restarted = bench.olt.restart_session().await.expect("restart");
    let took = restarting.elapsed();
    // The action's caller is told at once.
    assert_eq!(
        answer(action).await,
        Err(ActionError::Unavailable(
            "the session with OLT 1 was restarted while the action waited or ran".into()
        ))
    );
    // The answer came after the new session's first poll (the device is still hung),
    // and the waiting poll-now got the same one: the abandoned poll counted nothing.
    assert_eq!(restarted.status, Degraded);
    assert!(took >= TIMEOUT, "answered after {took:?}");
    assert_eq!(answer(poll).await, Ok(restarted));
    let detail = bench.detail().await;
    assert_eq!(detail.session.failures_in_row, 1);
    assert_eq!(
        moves(&detail)[1..],
        [
            step(Some(Connecting), Online, "poll succeeded"),
            step(Some(Online), Connecting, "session restarted on request"),
            step(Some(Connecting), Degraded, &format!("poll failed: {HUNG}")),
        ]
    );
    bench.stop().await;
}

/// The CLI lines of a Huawei ONU reboot, as the device receives them.
fn reboot_lines(pon_port: &str, onu_index: u32) -> Vec<String> {
    let mut values: HashMap<&str, String> = port_values(pon_port).into_iter().collect();
    values.insert("onu", onu_index.to_string());
    Profile::for_vendor(Vendor::Huawei)
        .cli
        .reboot
        .iter()
        .map(|line| render(line, &values))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_action_is_refused_busy_while_it_runs_or_waits_and_another_onus_queues() {
    let bench = Bench::start().await;
    assert_eq!(bench.poll().await, Online);
    let onus = bench.olt.onus().await.expect("ONUs");
    let (a, b) = (&onus[0], &onus[1]);

    // A's reboot runs, held by a CLI that never prompts; B's waits behind it.
    bench
        .sim
        .set_faults(1, FaultSet::new().with(Fault::SshMute));
    let first = bench.send(|reply| OltMsg::Cli(CliAction::Reboot(a.id), reply));
    let second = bench.send(|reply| OltMsg::Cli(CliAction::Reboot(b.id), reply));
    for (onu, state) in [(a.id, "runs"), (b.id, "waits")] {
        assert_eq!(
            bench.olt.cli(CliAction::Reboot(onu)).await,
            Err(ActionError::Busy(format!(
                "a reboot of ONU {onu} on OLT 1 is already running"
            ))),
            "while it {state}"
        );
    }

    // A fails at the login's timeout (1 s); then B runs on a new session, and the device
    // receives B's reboot and none of the lines that would have rebooted A. The mute
    // acts when A's shell opens, which no message reports: a local SSH login takes a
    // few milliseconds, so it has long happened 400 ms after A started.
    tokio::time::sleep(Duration::from_millis(400)).await;
    bench.sim.clear_faults(1);
    assert_eq!(
        answer(first).await,
        Err(ActionError::Timeout(
            "OLT 1: the device did not answer `login` within 1s".into()
        ))
    );
    assert_eq!(answer(second).await, Ok(ActionOutcome::Rebooted(b.id)));
    let log = bench.sim.command_log(1);
    let b_reboot = reboot_lines(&b.pon_port, b.onu_index);
    // In order, with the device's confirmation questions answered in between.
    let mut sent = log.iter();
    assert!(
        b_reboot.iter().all(|line| sent.any(|l| l == line)),
        "{log:?}"
    );
    let a_only: Vec<String> = reboot_lines(&a.pon_port, a.onu_index)
        .into_iter()
        .filter(|line| !b_reboot.contains(line))
        .collect();
    assert!(!a_only.is_empty());
    assert!(!log.iter().any(|line| a_only.contains(line)), "{log:?}");
    bench.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_cancels_what_is_in_flight_and_refuses_anything_new() {
    let bench = Bench::start().await;
    assert_eq!(bench.poll().await, Online);
    let onus = bench.onu_ids().await;

    bench
        .sim
        .set_faults(1, FaultSet::new().with(Fault::Hang).with(Fault::SshMute));
    let poll = bench.send(OltMsg::PollNow);
    let running = bench.send(|reply| OltMsg::Cli(CliAction::Reboot(onus[0]), reply));
    let queued = bench.send(|reply| OltMsg::Cli(CliAction::Reboot(onus[1]), reply));
    let done = bench
        .actor
        .call(OltMsg::Shutdown, Some(Duration::from_secs(2)))
        .await
        .expect("call");
    assert!(matches!(done, CallResult::Success(())));

    assert_eq!(
        answer(poll).await,
        Err(ActionError::ShuttingDown(
            "the poll of OLT 1 was abandoned".into()
        ))
    );
    assert_eq!(
        answer(running).await,
        Err(ActionError::ShuttingDown(format!(
            "a reboot of ONU {} on OLT 1 was interrupted; the device may have carried out \
             part of it",
            onus[0]
        )))
    );
    assert_eq!(
        answer(queued).await,
        Err(ActionError::ShuttingDown(format!(
            "a reboot of ONU {} on OLT 1 was not started",
            onus[1]
        )))
    );

    let refused = ActionError::ShuttingDown("OLT 1 takes no new actions".into());
    assert_eq!(
        bench.olt.cli(CliAction::Reboot(onus[2])).await,
        Err(refused.clone())
    );
    assert_eq!(bench.olt.poll_now().await, Err(refused.clone()));
    assert_eq!(bench.olt.restart_session().await, Err(refused));
    // Questions are still answered from memory.
    assert_eq!(bench.detail().await.summary.total_onu, 4);
    bench.stop().await;
}
