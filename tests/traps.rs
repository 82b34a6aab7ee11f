//! SNMP traps through the real service: with `[traps] listen` on and a poll interval of
//! 60 s, an ONU the simulator takes down is an `ONU_DOWN` event within 2 s, because the
//! simulator's trap (`sim --trap-target`) makes the service poll that OLT at once; net-snmp's
//! `snmptrap` (v2c and v1), an independent sender, does the same; garbage, traps from an
//! address outside the inventory and traps from an OLT's address with a community the
//! service does not know are counted in `/metrics` and change nothing, while one with
//! `traps.community` polls.

use crate::common::{all_polled, eventually, steady_sim, tools, TestService};
use ponkeeper_actors::domain::OnuStatus;
use ponkeeper_sim::SimFleet;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

fn free_udp_port() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], crate::common::ports::udp()))
}

fn online_serials(sim: &SimFleet) -> Vec<String> {
    sim.expected_onus(1)
        .into_iter()
        .filter(|o| o.status == OnuStatus::Online)
        .map(|o| o.serial.into())
        .collect()
}

async fn start(sim: &SimFleet, dir: &std::path::Path, listen: SocketAddr) -> TestService {
    TestService::start_tuned(sim, dir.join("data"), |config| {
        config.polling.status_interval = Duration::from_secs(60);
        config.traps.listen = Some(listen);
        config.traps.min_interval = Duration::from_millis(300);
    })
    .await
}

async fn downs(service: &TestService) -> u64 {
    let (_, body) = service.get("/events?type=ONU_DOWN&size=1").await;
    body["meta"]["totalCount"].as_u64().expect("count")
}

/// Takes `serial` down and waits for its `ONU_DOWN`; returns how long that took.
async fn down_and_wait(
    service: &TestService,
    sim: &SimFleet,
    serial: &str,
    send: impl std::future::Future<Output = ()>,
) -> Duration {
    let before = downs(service).await;
    let started = Instant::now();
    assert!(sim.set_onu_online(1, serial, false));
    send.await;
    eventually("the ONU_DOWN", Duration::from_secs(10), || async {
        (downs(service).await == before + 1).then_some(())
    })
    .await;
    let took = started.elapsed();
    let (_, body) = service.get("/events?type=ONU_DOWN&size=1").await;
    assert_eq!(
        body["data"][0]["message"]
            .as_str()
            .map(|m| m.contains(serial)),
        Some(true),
        "{body}"
    );
    took
}

async fn trap_count(service: &TestService, outcome: &str) -> u64 {
    let url = service.base.replace("/api/v1/external", "/metrics");
    let text = reqwest::Client::new()
        .get(url)
        .header("X-API-Key", &service.read_only)
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("text");
    let prefix = format!("ponkeeper_traps_total{{outcome=\"{outcome}\"}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .map_or(0, |v| v.trim().parse().expect("a count"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_traps_an_onu_down_is_an_event_within_two_seconds() {
    let mut sim = steady_sim(1, 16).await;
    let listen = free_udp_port();
    sim.send_traps_to(listen);
    let dir = tempfile::tempdir().expect("tempdir");
    let service = start(&sim, dir.path(), listen).await;
    all_polled(&service).await;
    let serials = online_serials(&sim);
    let polled = trap_count(&service, "polled").await;

    let took = down_and_wait(&service, &sim, &serials[0], async {}).await;
    assert!(took < Duration::from_secs(2), "ONU_DOWN after {took:?}");
    assert!(trap_count(&service, "polled").await > polled);

    // Garbage from an inventory address, and a real trap from one outside it (127.0.0.2
    // is loopback too, but no OLT's), are counted and dropped.
    let (malformed, unknown) = (
        trap_count(&service, "malformed").await,
        trap_count(&service, "unknown_sender").await,
    );
    let garbage = tokio::net::UdpSocket::bind("127.0.0.1:0")
        .await
        .expect("bind");
    for datagram in [&b""[..], b"\x30\x84\xff\xff\xff\xff", b"not snmp at all"] {
        garbage.send_to(datagram, listen).await.expect("send");
    }
    let stranger = tokio::net::UdpSocket::bind("127.0.0.2:0")
        .await
        .expect("bind 127.0.0.2");
    let trap = [
        0x30, 0x29, 0x02, 0x01, 0x01, 0x04, 0x06, b'p', b'u', b'b', b'l', b'i', b'c', 0xa7, 0x1c,
        0x02, 0x01, 0x07, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00, 0x30, 0x11, 0x30, 0x0f, 0x06, 0x08,
        0x2b, 0x06, 0x01, 0x02, 0x01, 0x01, 0x03, 0x00, 0x43, 0x03, 0x01, 0x00, 0x00,
    ];
    stranger.send_to(&trap, listen).await.expect("send");
    eventually(
        "the dropped datagrams counted",
        Duration::from_secs(5),
        || async {
            (trap_count(&service, "malformed").await == malformed + 3
                && trap_count(&service, "unknown_sender").await == unknown + 1)
                .then_some(())
        },
    )
    .await;

    // The listener is still there, and a change right after a trap-triggered poll is not
    // lost to the debounce: its poll comes at the end of traps.min_interval.
    let took = down_and_wait(&service, &sim, &serials[1], async {}).await;
    assert!(took < Duration::from_secs(2), "ONU_DOWN after {took:?}");
    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn net_snmp_snmptrap_v2c_and_v1_trigger_the_poll() {
    let test = "net_snmp_snmptrap_v2c_and_v1_trigger_the_poll";
    if !tools::program(test, "snmptrap") {
        return;
    }
    let sim = steady_sim(1, 16).await; // no trap sender of its own
    let listen = free_udp_port();
    let dir = tempfile::tempdir().expect("tempdir");
    let service = start(&sim, dir.path(), listen).await;
    all_polled(&service).await;
    let serials = online_serials(&sim);
    let target = listen.to_string();
    let snmptrap = |args: Vec<String>| async move {
        let status = tokio::process::Command::new("snmptrap")
            .args(&args)
            .status()
            .await
            .expect("snmptrap runs");
        assert!(status.success(), "snmptrap {args:?}");
    };
    let v2c: Vec<String> = [
        "-v",
        "2c",
        "-c",
        "public",
        &target,
        "",
        "1.3.6.1.6.3.1.1.5.3",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let v1: Vec<String> = [
        "-v",
        "1",
        "-c",
        "public",
        &target,
        "1.3.6.1.4.1.2011",
        "127.0.0.1",
        "2",
        "0",
        "",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for args in [v2c, v1] {
        let serial = online_serials(&sim)
            .into_iter()
            .find(|s| serials.contains(s))
            .expect("online");
        tokio::time::sleep(Duration::from_millis(400)).await; // past traps.min_interval
        let took = down_and_wait(&service, &sim, &serial, snmptrap(args)).await;
        assert!(took < Duration::from_secs(2), "ONU_DOWN after {took:?}");
    }
    service.stop().await;
    sim.shutdown().await;
}

/// A v2c linkDown trap with `community` (six bytes, so the lengths stay those of `public`).
fn trap_with_community(community: &[u8; 6]) -> Vec<u8> {
    let mut trap = vec![0x30, 0x29, 0x02, 0x01, 0x01, 0x04, 0x06];
    trap.extend_from_slice(community);
    trap.extend_from_slice(&[
        0xa7, 0x1c, 0x02, 0x01, 0x07, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00, 0x30, 0x11, 0x30, 0x0f,
        0x06, 0x08, 0x2b, 0x06, 0x01, 0x02, 0x01, 0x01, 0x03, 0x00, 0x43, 0x03, 0x01, 0x00, 0x00,
    ]);
    trap
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trap_with_a_community_the_service_does_not_know_polls_nothing() {
    let sim = steady_sim(1, 16).await; // no trap sender of its own; community `public`
    let listen = free_udp_port();
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start_tuned(&sim, dir.path().join("data"), |config| {
        config.polling.status_interval = Duration::from_secs(60);
        config.traps.listen = Some(listen);
        config.traps.min_interval = Duration::from_millis(300);
        config.traps.community = Some("traps1".to_string());
    })
    .await;
    all_polled(&service).await;
    let serials = online_serials(&sim);
    let socket = tokio::net::UdpSocket::bind("127.0.0.1:0") // the OLT's address
        .await
        .expect("bind");

    // From the OLT's address, with a community it does not have: counted, no poll.
    let wrong = trap_count(&service, "wrong_community").await;
    let before = downs(&service).await;
    assert!(sim.set_onu_online(1, &serials[0], false));
    for _ in 0..3 {
        let trap = trap_with_community(b"guess!");
        socket.send_to(&trap, listen).await.expect("send");
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        downs(&service).await,
        before,
        "a wrong-community trap polled"
    );
    eventually("the traps counted", Duration::from_secs(5), || async {
        (trap_count(&service, "wrong_community").await == wrong + 3).then_some(())
    })
    .await;
    assert!(sim.set_onu_online(1, &serials[0], true)); // unseen: no event either way

    // With `traps.community` it polls, as one with the OLT's read community does.
    let took = down_and_wait(&service, &sim, &serials[1], async {
        let trap = trap_with_community(b"traps1");
        socket.send_to(&trap, listen).await.expect("send");
    })
    .await;
    assert!(took < Duration::from_secs(2), "ONU_DOWN after {took:?}");
    tokio::time::sleep(Duration::from_millis(400)).await; // past traps.min_interval
    let took = down_and_wait(&service, &sim, &serials[2], async {
        let trap = trap_with_community(b"public");
        socket.send_to(&trap, listen).await.expect("send");
    })
    .await;
    assert!(took < Duration::from_secs(2), "ONU_DOWN after {took:?}");
    service.stop().await;
    sim.shutdown().await;
}
