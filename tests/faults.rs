//! Fault injection, end to end: the real service on 127.0.0.1:0 polls a simulated fleet
//! over real UDP and drives it over real SSH while one OLT misbehaves in one of the ways
//! the simulator offers ([`Fault`]). What an operator checks through the REST API: the
//! faulty OLT goes DEGRADED then OFFLINE with a `lastError` that says what happened,
//! the other OLTs stay ONLINE and keep being polled, questions about the faulty OLT are
//! answered at once, and clearing the fault brings it back ONLINE. Faults that should
//! not fail a poll (`slow` under the timeout, `drop` with retries) do not; CLI actions
//! on a mute or dropping SSH server fail in bounded time with the right envelope. The
//! last tests drive `ponkeeper sim --faults ... --control PATH` as a child process.

use crate::common::{all_polled, eventually, steady_sim, TestService};
use ponkeeper::config::Config;
use ponkeeper_actors::inventory::{Inventory, SnmpVersion};
use ponkeeper_actors::snmp::{ClientSettings, DeviceError, SnmpClient};
use ponkeeper_sim::{Fault, FaultSet, FaultSpec};
use serde_json::Value;
use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

const BINARY: &str = env!("CARGO_BIN_EXE_ponkeeper");
/// sysName.0
const SYS_NAME: &[u32] = &[1, 3, 6, 1, 2, 1, 1, 5, 0];

/// The `data` of `GET /olts/{id}`.
async fn olt(service: &TestService, id: u32) -> Value {
    let (status, body) = service.get(&format!("/olts/{id}")).await;
    assert_eq!(status, 200, "{body}");
    body["data"].clone()
}

/// Waits until OLT `id` has `status`; returns its detail then.
async fn reaches(service: &TestService, id: u32, status: &str, within: Duration) -> Value {
    eventually(&format!("OLT {id} {status}"), within, || async {
        let detail = olt(service, id).await;
        (detail["status"] == status).then_some(detail)
    })
    .await
}

/// Every OLT ONLINE.
async fn all_online(service: &TestService, olts: u32) {
    all_polled(service).await;
    for id in 1..=olts {
        reaches(service, id, "ONLINE", Duration::from_secs(20)).await;
    }
}

fn moves(detail: &Value) -> Vec<String> {
    detail["session"]["transitions"]
        .as_array()
        .expect("transitions")
        .iter()
        .map(|t| t["to"].as_str().expect("to").to_string())
        .collect()
}

fn last_poll(detail: &Value) -> String {
    detail["session"]["lastPollAt"]
        .as_str()
        .expect("lastPollAt")
        .to_string()
}

/// Waits until each OLT of `ids` has finished a poll after the one seen in `before`
/// (ISO local date-times compare as text), and is ONLINE.
async fn still_polled_and_online(service: &TestService, before: &[(u32, String)]) {
    for (id, seen) in before {
        eventually(
            &format!("a new good poll of OLT {id}"),
            Duration::from_secs(10),
            || async {
                let detail = olt(service, *id).await;
                (last_poll(&detail) > *seen && detail["status"] == "ONLINE").then_some(())
            },
        )
        .await;
    }
}

/// Twenty questions about OLT `id` take well under a second each, even mid-fault.
async fn answers_quickly(service: &TestService, id: u32) {
    let started = Instant::now();
    for _ in 0..20 {
        let (status, _) = service.get(&format!("/olts/{id}")).await;
        assert_eq!(status, 200);
    }
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "20 queries about OLT {id} took {:?}",
        started.elapsed()
    );
}

/// The common course of a fault that makes every poll of OLT 1 (of 3) fail: DEGRADED,
/// then OFFLINE with a `lastError` containing `expected_error`; OLTs 2 and 3 unaffected;
/// clearing the fault brings OLT 1 back. Returns OLT 1's detail while OFFLINE.
async fn failing_poll_course(
    fault: Fault,
    expected_error: &str,
    tune: impl FnOnce(&mut Config),
) -> Value {
    let sim = steady_sim(3, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start_tuned(&sim, dir.path().to_path_buf(), tune).await;
    all_online(&service, 3).await;
    let healthy = olt(&service, 1).await;
    let mut others = Vec::new();
    for id in [2, 3] {
        others.push((id, last_poll(&olt(&service, id).await)));
    }

    sim.set_faults(1, FaultSet::new().with(fault));
    let offline = reaches(&service, 1, "OFFLINE", Duration::from_secs(20)).await;
    let path = moves(&offline);
    assert_eq!(
        path[path.len() - 3..],
        ["ONLINE", "DEGRADED", "OFFLINE"],
        "{fault}: {path:?}"
    );
    let session = &offline["session"];
    assert!(session["failuresInRow"].as_u64().expect("failures") >= 3);
    let last_error = session["lastError"].as_str().expect("lastError");
    assert!(
        last_error.contains(expected_error),
        "{fault}: lastError {last_error:?} should say {expected_error:?}"
    );
    // The last known state is kept, and nothing the fault sent got into it.
    for field in ["totalOnu", "onuOnline", "totalPorts", "sysName", "firmware"] {
        assert_eq!(offline[field], healthy[field], "{fault}: {field}");
    }
    answers_quickly(&service, 1).await;
    still_polled_and_online(&service, &others).await;

    sim.clear_faults(1);
    let back = reaches(&service, 1, "ONLINE", Duration::from_secs(10)).await;
    assert_eq!(back["session"]["lastError"], Value::Null);
    assert_eq!(back["session"]["failuresInRow"], 0);
    assert_eq!(back["totalOnu"], 4);

    service.stop().await;
    sim.shutdown().await;
    offline
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hang_times_out_every_poll() {
    failing_poll_course(Fault::Hang, "no answer within 300ms", |_| {}).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_answers_are_undecodable() {
    failing_poll_course(
        Fault::Garbage,
        "undecodable answer, not a valid SNMP message",
        |_| {},
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_answers_are_undecodable() {
    failing_poll_course(
        Fault::Malformed,
        "undecodable answer, not a valid SNMP message",
        |_| {},
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_with_another_request_id_are_ignored() {
    // The answers are otherwise correct: were they accepted, the polls would succeed.
    failing_poll_course(
        Fault::WrongId,
        "answer ignored: it carried another request's id",
        |_| {},
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_answers_are_refused_without_taking_their_varbinds() {
    // The first request of a poll is a GET of the system group (5 objects); the answer
    // brings some sixty 1 KB varbinds more. None of them reaches the ONU table (checked
    // in the course: totalOnu and the rest stay as they were).
    let offline =
        failing_poll_course(Fault::Oversized, "GET of 5 objects answered with", |_| {}).await;
    let last_error = offline["session"]["lastError"].as_str().expect("lastError");
    let count: u32 = last_error
        .rsplit("answered with ")
        .next()
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a varbind count in {last_error:?}"));
    assert!(count > 50, "{last_error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_port_is_reported_unreachable_and_rebinding_recovers() {
    failing_poll_course(Fault::Gone, "ICMP port unreachable", |_| {}).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_answers_past_the_request_timeout_fail() {
    failing_poll_course(
        Fault::Slow(Duration::from_secs(1)),
        "no answer within 300ms",
        |_| {},
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_answers_that_add_up_past_the_deadline_fail_the_poll() {
    // Each answer (600 ms) is within the request timeout (1 s), but a poll takes at
    // least three requests, so it cannot finish within the 1 s deadline.
    failing_poll_course(
        Fault::Slow(Duration::from_millis(600)),
        "poll exceeded its deadline of 1s",
        |config| {
            config.polling.timeout = Duration::from_secs(1);
            config.polling.deadline = Duration::from_secs(1);
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_answers_within_timeout_and_deadline_still_succeed() {
    let sim = steady_sim(3, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start_tuned(&sim, dir.path().to_path_buf(), |config| {
        config.polling.timeout = Duration::from_secs(1);
        config.polling.deadline = Duration::from_secs(5);
    })
    .await;
    all_online(&service, 3).await;
    let moves_before = moves(&olt(&service, 1).await);

    sim.set_faults(
        1,
        FaultSet::new().with(Fault::Slow(Duration::from_millis(150))),
    );
    // A whole poll after the fault: at least two requests of 150 ms each.
    let slow_poll = eventually("a slow good poll", Duration::from_secs(15), || async {
        let detail = olt(&service, 1).await;
        (detail["session"]["lastPollMs"].as_u64()? >= 300).then_some(detail)
    })
    .await;
    let seen = last_poll(&slow_poll);
    still_polled_and_online(&service, &[(1, seen)]).await;
    let detail = olt(&service, 1).await;
    assert_eq!(detail["status"], "ONLINE");
    assert_eq!(detail["session"]["failuresInRow"], 0);
    assert_eq!(moves(&detail), moves_before, "no move since the fault");
    assert_eq!(detail["totalOnu"], 4);

    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropped_requests_are_retried_and_the_olt_stays_online() {
    let sim = steady_sim(3, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    // Four retries: a request fails only if five datagrams in a row are lost (0.3^5).
    let service = TestService::start_tuned(&sim, dir.path().to_path_buf(), |config| {
        config.polling.timeout = Duration::from_millis(200);
        config.polling.retries = 4;
    })
    .await;
    all_online(&service, 3).await;
    let before = sim.snmp_traffic(1).expect("OLT 1");

    sim.set_faults(1, FaultSet::new().with(Fault::Drop(30)));
    // Enough traffic for the drops to have shown (which ones follows the fleet's seed).
    let during = eventually(
        "60 requests under drop:30",
        Duration::from_secs(30),
        || async {
            let now = sim.snmp_traffic(1)?;
            (now.received >= before.received + 60).then_some(now)
        },
    )
    .await;
    let received = during.received - before.received;
    let dropped = received - (during.sent - before.sent);
    assert!(
        dropped >= received / 10,
        "{dropped} of {received} requests dropped"
    );
    let detail = reaches(&service, 1, "ONLINE", Duration::from_secs(10)).await;
    assert!(
        !moves(&detail).iter().any(|m| m == "OFFLINE"),
        "{:?}",
        moves(&detail)
    );
    let seen = last_poll(&detail);
    still_polled_and_online(&service, &[(1, seen)]).await;

    service.stop().await;
    sim.shutdown().await;
}

/// A running backup of OLT `id` in the background, with how long it took.
fn backup_in_background(
    service: &TestService,
    id: u32,
) -> tokio::task::JoinHandle<(u16, Value, Duration)> {
    let (base, key) = (service.base.clone(), service.full.clone());
    tokio::spawn(async move {
        let started = Instant::now();
        let response = reqwest::Client::new()
            .post(format!("{base}/olts/{id}/configs/backup"))
            .header("X-API-Key", key)
            .send()
            .await
            .expect("request");
        let status = response.status().as_u16();
        let body = response.json::<Value>().await.expect("json");
        (status, body, started.elapsed())
    })
}

/// Every OLT has its first scheduled backup, and its CLI is idle afterwards: the backup
/// is stored a moment before its job leaves the queue, and a request in that moment gets
/// 409 (already running). A manual backup answered 200 has left the queue, and the next
/// scheduled one is a day away.
async fn first_backups(service: &TestService, olts: u32) {
    for id in 1..=olts {
        eventually("the first backup", Duration::from_secs(20), || async {
            let (_, body) = service.get(&format!("/olts/{id}/configs")).await;
            (body["meta"]["totalCount"].as_u64()? >= 1).then_some(())
        })
        .await;
        eventually("an idle CLI", Duration::from_secs(20), || async {
            let (status, body) = service.post(&format!("/olts/{id}/configs/backup")).await;
            assert!(status == 200 || status == 409, "{body}");
            (status == 200).then_some(())
        })
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mute_ssh_server_times_out_actions_in_bounded_time() {
    let sim = steady_sim(3, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    all_online(&service, 3).await;
    first_backups(&service, 3).await;
    let (_, onus) = service.get("/olts/1/onus?size=1").await;
    let onu = onus["data"][0]["id"].as_u64().expect("an ONU of OLT 1");

    sim.set_faults(1, FaultSet::new().with(Fault::SshMute));
    // The open session stops answering: the backup times out; meanwhile OLT 2 acts.
    let commands_of_2 = sim.command_log(2).len();
    let hung = backup_in_background(&service, 1);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let other = backup_in_background(&service, 2);
    eventually("OLT 2's CLI reached", Duration::from_secs(10), || async {
        (sim.command_log(2).len() > commands_of_2).then_some(())
    })
    .await;
    assert!(
        !hung.is_finished(),
        "OLT 2's device got its command while OLT 1's action still hung"
    );
    let (status, body, _) = other.await.expect("task");
    assert_eq!(status, 200, "{body}");
    let (status, body, took) = hung.await.expect("task");
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (504, Some("DEVICE_TIMEOUT")),
        "{body}"
    );
    // The action's deadline is the polling deadline, 3 s (plus the audit flush).
    assert!(took < Duration::from_secs(10), "took {took:?}");

    // A new session logs in but never sees a prompt: an ONU reboot times out too.
    let started = Instant::now();
    let (status, body) = service.post(&format!("/onus/{onu}/reboot")).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (504, Some("DEVICE_TIMEOUT")),
        "{body}"
    );
    // The login step and the whole action share the 3 s limit; either may report it.
    let message = body["error"]["message"].as_str().expect("message");
    assert!(
        message.starts_with("OLT 1") && message.contains("within 3s"),
        "{message}"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(
        olt(&service, 1).await["status"],
        "ONLINE",
        "SNMP is unaffected"
    );

    sim.clear_faults(1);
    let (status, body) = service.post("/olts/1/configs/backup").await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = service.post(&format!("/onus/{onu}/reboot")).await;
    assert_eq!(status, 200, "{body}");

    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_ssh_connection_is_a_clear_error_not_a_hang() {
    let sim = steady_sim(3, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    all_online(&service, 3).await;
    first_backups(&service, 3).await;

    sim.set_faults(1, FaultSet::new().with(Fault::SshDrop));
    // Once on the open session, once on a new one (which drops during its setup lines).
    for _ in 0..2 {
        let started = Instant::now();
        let (status, body) = service.post("/olts/1/configs/backup").await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (503, Some("DEVICE_UNAVAILABLE")),
            "{body}"
        );
        let message = body["error"]["message"].as_str().expect("message");
        assert!(
            message.contains("OLT 1: the SSH session closed while `"),
            "{message}"
        );
        // 503, not the 504 of the 3 s deadline: the drop was noticed, not waited out.
        assert!(started.elapsed() < Duration::from_secs(10), "bounded");
    }
    let (status, body) = service.post("/olts/2/configs/backup").await;
    assert_eq!(status, 200, "{body}");

    sim.clear_faults(1);
    let (status, body) = service.post("/olts/1/configs/backup").await;
    assert_eq!(status, 200, "{body}");

    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_session_on_a_hung_olt_answers_by_its_deadline() {
    let sim = steady_sim(3, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    // A slow-but-answering OLT keeps the poll running until the deadline (1.5 s).
    let service = TestService::start_tuned(&sim, dir.path().to_path_buf(), |config| {
        config.polling.timeout = Duration::from_secs(1);
        config.polling.deadline = Duration::from_millis(1500);
    })
    .await;
    all_online(&service, 3).await;

    sim.set_faults(
        1,
        FaultSet::new().with(Fault::Slow(Duration::from_millis(900))),
    );
    let started = Instant::now();
    let (status, body) = service.post("/olts/1/restart-session").await;
    let took = started.elapsed();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["status"], "DEGRADED");
    assert!(
        took >= Duration::from_millis(1400) && took < Duration::from_secs(8),
        "answered after {took:?}"
    );
    let detail = olt(&service, 1).await;
    assert_eq!(
        detail["session"]["lastError"],
        "poll exceeded its deadline of 1.5s"
    );

    // Hung outright: the first poll of the new session fails at the request timeout.
    sim.set_faults(1, FaultSet::new().with(Fault::Hang));
    let started = Instant::now();
    let (status, body) = service.post("/olts/1/restart-session").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["status"], "DEGRADED");
    assert!(started.elapsed() < Duration::from_secs(8));

    sim.clear_faults(1);
    let (status, body) = service.post("/olts/1/restart-session").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["status"], "ONLINE");
    for id in [2, 3] {
        assert_eq!(olt(&service, id).await["status"], "ONLINE");
    }

    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tenth_of_the_fleet_hung_leaves_the_rest_online_and_polled() {
    let sim = steady_sim(20, 2).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    all_online(&service, 20).await;
    let mut healthy = Vec::new();
    for id in 3..=20 {
        healthy.push((id, last_poll(&olt(&service, id).await)));
    }

    let spec: FaultSpec = "hang@10%".parse().expect("spec");
    assert_eq!(sim.apply_faults(&spec), Ok(2));
    assert_eq!(sim.fault_spec().to_string(), "hang@1-2");
    for id in [1, 2] {
        reaches(&service, id, "OFFLINE", Duration::from_secs(20)).await;
    }
    still_polled_and_online(&service, &healthy).await;
    let (_, body) = service.get("/olts?status=ONLINE&size=50").await;
    let online: Vec<u64> = body["data"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|o| o["id"].as_u64())
        .collect();
    assert_eq!(online, (3..=20).collect::<Vec<u64>>());
    answers_quickly(&service, 1).await;

    sim.clear_all_faults();
    for id in [1, 2] {
        reaches(&service, id, "ONLINE", Duration::from_secs(10)).await;
    }
    service.stop().await;
    sim.shutdown().await;
}

async fn sys_name(addr: SocketAddr) -> Result<String, DeviceError> {
    let mut client = SnmpClient::new(
        addr,
        "public",
        SnmpVersion::V2c,
        ClientSettings {
            timeout: Duration::from_millis(300),
            retries: 0,
            bulk_varbinds: 16,
        },
    );
    let values = client.get(&[SYS_NAME]).await?;
    Ok(values[0].as_text().unwrap_or_default())
}

/// One request over the control socket, one reply line.
async fn control(path: &Path, request: &str) -> String {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let mut stream = tokio::net::UnixStream::connect(path)
        .await
        .expect("control socket");
    stream
        .write_all(format!("{request}\n").as_bytes())
        .await
        .expect("write");
    let mut reply = String::new();
    tokio::time::timeout(
        Duration::from_secs(5),
        BufReader::new(stream).read_line(&mut reply),
    )
    .await
    .expect("a reply in time")
    .expect("read");
    reply.trim_end().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sim_command_takes_faults_at_start_and_over_its_control_socket() {
    let dir = tempfile::tempdir().expect("tempdir");
    let inventory = dir.path().join("inventory.toml");
    let socket = dir.path().join("control.sock");
    let mut child = tokio::process::Command::new(BINARY)
        .args(["sim", "--olts", "3", "--onus-per-olt", "4", "--steady"])
        .args(["--base-port", "0", "--faults", "hang@1;slow:50ms@3"])
        .arg("--inventory-out")
        .arg(&inventory)
        .arg("--control")
        .arg(&socket)
        .env("RUST_LOG", "warn")
        .kill_on_drop(true)
        .spawn()
        .expect("ponkeeper sim starts");
    eventually("the sim's inventory", Duration::from_secs(30), || async {
        (socket.exists() && inventory.exists()).then_some(())
    })
    .await;
    let fleet = Inventory::load(&inventory).expect("inventory");
    let addr = |id: u32| {
        let spec = fleet.olts.iter().find(|o| o.id == id).expect("OLT");
        SocketAddr::new(spec.ip, spec.snmp.port)
    };

    assert!(matches!(
        sys_name(addr(1)).await,
        Err(DeviceError::Timeout { .. })
    ));
    assert_eq!(sys_name(addr(2)).await, Ok("OLT-2".to_string()));
    let started = Instant::now();
    assert_eq!(sys_name(addr(3)).await, Ok("OLT-3".to_string()));
    assert!(started.elapsed() >= Duration::from_millis(50), "slow:50ms");
    assert_eq!(control(&socket, "show").await, "ok hang@1;slow:50ms@3");

    assert_eq!(control(&socket, "set garbage@2").await, "ok 1 OLT");
    match sys_name(addr(2)).await {
        Err(DeviceError::Protocol(message)) => {
            assert!(message.contains("undecodable"), "{message}")
        }
        other => panic!("garbage decoded: {other:?}"),
    }
    assert_eq!(control(&socket, "clear 1").await, "ok 1 OLT");
    assert_eq!(sys_name(addr(1)).await, Ok("OLT-1".to_string()));
    let refused = control(&socket, "set hang@2;bogus@1").await;
    assert!(
        refused.starts_with("error: bad fault rule `bogus@1`"),
        "{refused}"
    );
    assert_eq!(control(&socket, "show").await, "ok slow:50ms@3;garbage@2");
    assert_eq!(control(&socket, "clear").await, "ok 3 OLTs");
    assert_eq!(control(&socket, "show").await, "ok");
    assert_eq!(sys_name(addr(2)).await, Ok("OLT-2".to_string()));

    child.kill().await.expect("stop the sim");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sim_command_refuses_a_bad_fault_spec_naming_the_rule() {
    for (spec, named) in [
        (
            "hang@1;frobnicate@2",
            "bad fault rule `frobnicate@2`: unknown fault",
        ),
        ("hang@1;slow:soon@2", "bad fault rule `slow:soon@2`"),
        (
            "hang@1-2;gone@7",
            "bad fault rule `gone@7`: OLT 7: the fleet has 2 OLTs",
        ),
    ] {
        let output = tokio::process::Command::new(BINARY)
            .args(["sim", "--olts", "2", "--onus-per-olt", "1", "--steady"])
            .args(["--base-port", "0", "--faults", spec])
            .kill_on_drop(true)
            .output()
            .await
            .expect("ponkeeper sim runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{spec}: {stderr}");
        assert!(stderr.contains(named), "{spec}: {stderr}");
    }
}
