//! The simulator's SNMP faults on the wire: ponkeeper's own SNMP client (and snmp2
//! directly) against a simulated OLT given each fault in turn, over real UDP. Checks
//! what a poller receives (nothing, late answers, junk, another id, a 60 KB datagram, an
//! ICMP error) and the error the client makes of it, that a faulty OLT does not hold up
//! its neighbours, and that clearing a fault (`gone` included) restores the same port.

use ponkeeper_actors::inventory::SnmpVersion;
use ponkeeper_actors::snmp::{ClientSettings, DeviceError, SnmpClient};
use ponkeeper_sim::{Dynamics, Fault, FaultSet, FleetSpec, SimFleet};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

const SYS_NAME: &[u32] = &[1, 3, 6, 1, 2, 1, 1, 5, 0];
const IF_DESCR: &[u32] = &[1, 3, 6, 1, 2, 1, 2, 2, 1, 2];

async fn fleet(olts: usize) -> SimFleet {
    SimFleet::start(FleetSpec {
        dynamics: Dynamics::none(),
        ..FleetSpec::new(olts, 4)
    })
    .await
    .expect("fleet starts")
}

fn client(addr: SocketAddr, timeout: Duration) -> SnmpClient {
    SnmpClient::new(
        addr,
        "public",
        SnmpVersion::V2c,
        ClientSettings {
            timeout,
            retries: 0,
            bulk_varbinds: 8,
        },
    )
}

async fn sys_name(addr: SocketAddr) -> Result<String, DeviceError> {
    let values = client(addr, Duration::from_millis(300))
        .get(&[SYS_NAME])
        .await?;
    Ok(values[0].as_text().unwrap_or_default())
}

fn protocol_error(result: Result<impl std::fmt::Debug, DeviceError>) -> String {
    match result {
        Err(DeviceError::Protocol(message)) => message,
        other => panic!("expected a protocol error, got {other:?}"),
    }
}

#[tokio::test]
async fn each_fault_reaches_the_client_as_its_own_error() {
    let sim = fleet(2).await;
    let addr = sim.olt_addr(1).expect("OLT 1");
    assert_eq!(sys_name(addr).await, Ok("OLT-1".into()));

    let cases: [(Fault, &str); 3] = [
        (
            Fault::Garbage,
            "undecodable answer, not a valid SNMP message",
        ),
        (
            Fault::Malformed,
            "undecodable answer, not a valid SNMP message",
        ),
        (
            Fault::WrongId,
            "answer ignored: it carried another request's id",
        ),
    ];
    for (fault, expected) in cases {
        sim.set_faults(1, FaultSet::new().with(fault));
        let message = protocol_error(sys_name(addr).await);
        assert!(message.contains(expected), "{fault}: {message}");
    }

    for fault in [Fault::Hang, Fault::Drop(100)] {
        sim.set_faults(1, FaultSet::new().with(fault));
        assert!(
            matches!(sys_name(addr).await, Err(DeviceError::Timeout { .. })),
            "{fault}"
        );
    }
    sim.set_faults(1, FaultSet::new().with(Fault::Drop(0)));
    assert_eq!(
        sys_name(addr).await,
        Ok("OLT-1".into()),
        "drop:0 drops none"
    );

    // hang wins over every other SNMP fault of the set.
    sim.set_faults(1, FaultSet::new().with(Fault::Garbage).with(Fault::Hang));
    assert!(matches!(
        sys_name(addr).await,
        Err(DeviceError::Timeout { .. })
    ));

    // SSH faults leave SNMP alone.
    sim.set_faults(1, FaultSet::new().with(Fault::SshMute).with(Fault::SshDrop));
    assert_eq!(sys_name(addr).await, Ok("OLT-1".into()));
    assert_eq!(
        sys_name(sim.olt_addr(2).expect("OLT 2")).await,
        Ok("OLT-2".into())
    );
    sim.shutdown().await;
}

#[tokio::test]
async fn oversized_answers_fill_a_datagram_and_the_client_refuses_them() {
    let sim = fleet(1).await;
    let addr = sim.olt_addr(1).expect("OLT 1");
    sim.set_faults(1, FaultSet::new().with(Fault::Oversized));

    // Well-formed BER, just far more than asked: snmp2 decodes it.
    let mut session = snmp2::AsyncSession::new_v2c(addr, b"public", 1)
        .await
        .expect("session");
    let oid = snmp2::Oid::from(&[1u64, 3, 6, 1, 2, 1, 1, 5, 0]).expect("oid");
    let pdu = session.get(&oid).await.expect("a decodable answer");
    let sizes: Vec<usize> = pdu
        .varbinds
        .map(|(_, value)| match value {
            snmp2::Value::OctetString(bytes) => bytes.len(),
            _ => 0,
        })
        .collect();
    assert!(sizes.len() > 60, "{} varbinds for one asked", sizes.len());
    assert!(sizes.iter().sum::<usize>() > 60_000, "about 64 KB");

    let message = protocol_error(sys_name(addr).await);
    assert!(
        message.starts_with("GET of 1 objects answered with "),
        "{message}"
    );
    let mut walker = client(addr, Duration::from_millis(300));
    let message = protocol_error(walker.walk_columns(&[IF_DESCR]).await);
    assert!(
        message.starts_with("GETBULK for 8 varbinds answered with "),
        "{message}"
    );
    sim.shutdown().await;
}

#[tokio::test]
async fn a_slow_olt_answers_late_without_holding_up_the_others() {
    let sim = fleet(2).await;
    let (slow, fast) = (
        sim.olt_addr(1).expect("OLT 1"),
        sim.olt_addr(2).expect("OLT 2"),
    );
    sim.set_faults(1, FaultSet::new().with(Fault::Slow(Duration::from_secs(1))));
    let late = tokio::spawn(async move {
        let started = Instant::now();
        let name = client(slow, Duration::from_secs(3))
            .get(&[SYS_NAME])
            .await
            .map(|v| v[0].as_text().unwrap_or_default());
        (name, started.elapsed())
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(sys_name(fast).await, Ok("OLT-2".into()));
    assert!(
        !late.is_finished(),
        "OLT 2 answered while OLT 1's answer waited"
    );
    let (name, took) = late.await.expect("task");
    assert_eq!(name, Ok("OLT-1".into()));
    assert!(took >= Duration::from_secs(1), "answered after {took:?}");

    // Below the client's timeout it is an answer; past it, a timeout.
    let timed_out = client(slow, Duration::from_millis(300))
        .get(&[SYS_NAME])
        .await;
    assert!(matches!(timed_out, Err(DeviceError::Timeout { .. })));
    sim.shutdown().await;
}

#[tokio::test]
async fn a_gone_olt_refuses_datagrams_and_comes_back_on_the_same_port() {
    let sim = fleet(2).await;
    let addr = sim.olt_addr(1).expect("OLT 1");
    sim.set_faults(1, FaultSet::new().with(Fault::Gone));
    // The socket closes as soon as the agent task sees the change.
    let mut error = None;
    for _ in 0..50 {
        match sys_name(addr).await {
            Err(DeviceError::Unreachable { message, .. }) => {
                error = Some(message);
                break;
            }
            Err(DeviceError::Timeout { .. }) | Ok(_) => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(other) => panic!("unexpected {other:?}"),
        }
    }
    let error = error.expect("the closed port is reported unreachable");
    assert!(error.contains("ICMP port unreachable"), "{error}");
    assert!(
        std::net::UdpSocket::bind(addr).is_ok(),
        "the port is free while gone"
    );
    assert_eq!(
        sys_name(sim.olt_addr(2).expect("OLT 2")).await,
        Ok("OLT-2".into())
    );

    sim.clear_faults(1);
    let mut answer = sys_name(addr).await;
    for _ in 0..50 {
        if answer.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        answer = sys_name(addr).await;
    }
    assert_eq!(answer, Ok("OLT-1".into()));
    assert_eq!(sim.olt_addr(1), Some(addr));
    sim.shutdown().await;
}

#[tokio::test]
async fn traffic_counts_what_came_in_and_what_went_out() {
    let sim = fleet(1).await;
    let addr = sim.olt_addr(1).expect("OLT 1");
    let before = sim.snmp_traffic(1).expect("OLT 1");
    assert_eq!(sys_name(addr).await, Ok("OLT-1".into()));
    sim.set_silent(1, true);
    assert_eq!(sim.faults(1), FaultSet::new().with(Fault::Hang));
    assert!(sys_name(addr).await.is_err());
    sim.set_silent(1, false);
    assert!(sim.faults(1).is_empty());
    let after = sim.snmp_traffic(1).expect("OLT 1");
    assert_eq!(after.received - before.received, 2);
    assert_eq!(after.sent - before.sent, 1);
    assert_eq!(sim.snmp_traffic(9), None);
    sim.shutdown().await;
}
