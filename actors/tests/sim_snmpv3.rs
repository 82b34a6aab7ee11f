//! The simulator's SNMPv3 side from the outside: net-snmp's `snmpbulkwalk -v3 -l authPriv`
//! (an independent USM implementation) and the poller's own client read a fleet started
//! with a v3 user, and must read exactly what v2c reads from the same agents; wrong
//! passwords and an unknown user are refused with the USM reports net-snmp names. The
//! net-snmp half skips loudly without net-snmp (a failure under `REQUIRE_TEST_TOOLS`).
//! Between polls a v2c client gives its socket and buffers back, a v3 client keeps its
//! session (and the engine it discovered).

use ponkeeper_actors::domain::Vendor;
use ponkeeper_actors::inventory::SnmpVersion;
use ponkeeper_actors::profile::std_oids;
use ponkeeper_actors::snmp::{ClientSettings, DeviceError, SnmpClient};
use ponkeeper_sim::usm::{SimUsmUser, AUTH_PASSWORD_ENV, PRIV_PASSWORD_ENV};
use ponkeeper_sim::{Dynamics, FleetSpec, FleetVendors, SimFleet};
use std::time::{Duration, Instant};
use tokio::process::Command;

use crate::tools;

const USER: &str = "pk";
const AUTH: &str = "sim-auth-pass";
const PRIV: &str = "sim-priv-pass";

async fn v3_fleet(vendors: FleetVendors) -> SimFleet {
    // The inventory names these variables; the client reads them.
    std::env::set_var(AUTH_PASSWORD_ENV, AUTH);
    std::env::set_var(PRIV_PASSWORD_ENV, PRIV);
    let user: SimUsmUser = format!("{USER}:{AUTH}:{PRIV}").parse().expect("user");
    SimFleet::start_with_snmp_v3(
        FleetSpec {
            vendors,
            dynamics: Dynamics::none(),
            ..FleetSpec::new(3, 40)
        },
        Some(user),
    )
    .await
    .expect("the fleet starts")
}

fn settings() -> ClientSettings {
    ClientSettings {
        timeout: Duration::from_millis(1500),
        retries: 1,
        bulk_varbinds: 64,
    }
}

#[tokio::test]
async fn the_poller_client_reads_over_v3_what_v2c_reads() {
    let fleet = v3_fleet(FleetVendors::Mixed).await;
    let inventory = fleet.inventory();
    let mut counters_left_out = 0;
    for olt in &inventory.olts {
        assert_eq!(olt.snmp.version, SnmpVersion::V3);
        let addr = fleet.olt_addr(olt.id).expect("addr");
        let mut v3 = SnmpClient::for_olt(addr, olt.id, &olt.snmp, settings());
        let mut v2c = SnmpClient::new(addr, "public", SnmpVersion::V2c, settings());
        let scalars = [std_oids::SYS_NAME, std_oids::SYS_DESCR];
        let got = v3.get(&scalars).await.expect("v3 get");
        assert_eq!(got, v2c.get(&scalars).await.expect("v2c get"));
        // The whole enterprise subtree: many GETBULKs, every ONU row.
        let subtree: &[u32] = &[1, 3, 6, 1, 4, 1];
        let columns = [std_oids::IF_NAME, subtree];
        let walked = v3.walk_columns(&columns).await.expect("v3 walk");
        let expected = v2c.walk_columns(&columns).await.expect("v2c walk");
        let names: Vec<String> = walked[0].iter().filter_map(|(_, v)| v.as_text()).collect();
        for port in fleet.expected_ports(olt.id) {
            assert!(
                names.iter().any(|n| n.contains(&port)),
                "OLT {}: {port}",
                olt.id
            );
        }
        assert!(
            walked[1].len() > 200,
            "OLT {}: {} rows",
            olt.id,
            walked[1].len()
        );
        counters_left_out += walked[1].len() - without_counters(subtree, &walked[1]).len();
        assert_eq!(
            without_counters(subtree, &walked[1]),
            without_counters(subtree, &expected[1]),
            "OLT {}",
            olt.id
        );
        assert_eq!(walked[0], expected[0], "OLT {}", olt.id);
    }
    // Huawei's and ZTE's counters are in the enterprise subtree (BDCOM's in IF-MIB).
    assert!(counters_left_out > 0, "the walks held traffic counters");
}

/// The rows of a walk under `prefix` but the ONUs' traffic counters, which advance
/// between the two reads being compared (the simulator's traffic model runs on time).
fn without_counters<'a, I: AsRef<[u32]>, V>(prefix: &[u32], rows: &'a [(I, V)]) -> Vec<&'a (I, V)> {
    let counters: Vec<&[u32]> = ponkeeper_actors::profile::Profile::ALL
        .iter()
        .filter_map(|p| p.traffic)
        .flat_map(|t| [t.in_octets, t.out_octets])
        .collect();
    rows.iter()
        .filter(|(oid, _)| {
            let full: Vec<u32> = prefix.iter().chain(oid.as_ref()).copied().collect();
            !counters.iter().any(|c| full.starts_with(c))
        })
        .collect()
}

#[tokio::test]
async fn wrong_credentials_are_refused_by_the_simulator() {
    let fleet = v3_fleet(FleetVendors::One(Vendor::Huawei)).await;
    let olt = fleet.inventory().olts.remove(0);
    let addr = fleet.olt_addr(olt.id).expect("addr");
    for (tag, user, auth, privacy) in [
        ("AUTH", USER, "wrong-password", PRIV),
        ("PRIV", USER, AUTH, "wrong-password"),
        ("USER", "nobody", AUTH, PRIV),
    ] {
        let auth_env = format!("PK_SIM_V3_BAD_{tag}_AUTH");
        let priv_env = format!("PK_SIM_V3_BAD_{tag}_PRIV");
        std::env::set_var(&auth_env, auth);
        std::env::set_var(&priv_env, privacy);
        let mut spec = olt.snmp.clone();
        spec.user = Some(user.into());
        spec.auth_password_env = Some(auth_env);
        spec.privacy_password_env = Some(priv_env);
        let mut client = SnmpClient::for_olt(addr, olt.id, &spec, settings());
        let started = Instant::now();
        assert_eq!(
            client.get(&[std_oids::SYS_NAME]).await,
            Err(DeviceError::AuthenticationFailed),
            "{tag}"
        );
        assert!(started.elapsed() < Duration::from_secs(2), "{tag}: prompt");
    }
}

async fn net_snmp(tool: &str, args: &[&str]) -> std::process::Output {
    Command::new(tool)
        .args(args)
        .output()
        .await
        .unwrap_or_else(|e| panic!("cannot run {tool}: {e}"))
}

#[tokio::test]
async fn net_snmp_bulkwalks_the_simulator_over_v3_auth_priv() {
    if !tools::program(
        "net_snmp_bulkwalks_the_simulator_over_v3_auth_priv",
        "snmpbulkwalk",
    ) {
        return;
    }
    let fleet = v3_fleet(FleetVendors::One(Vendor::Huawei)).await;
    let addr = fleet.olt_addr(1).expect("addr").to_string();
    let v3 = |auth: &'static str, privacy: &'static str| {
        let mut args = vec![
            "-v3", "-l", "authPriv", "-u", USER, "-a", "SHA-256", "-A", auth,
        ];
        args.extend(["-x", "AES", "-X", privacy, "-Oqv", "-r", "1", "-t", "2"]);
        args
    };
    let mut args = v3(AUTH, PRIV);
    args.extend([addr.as_str(), "1.3.6.1.2.1.31.1.1.1.1"]);
    let output = net_snmp("snmpbulkwalk", &args).await;
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let names: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| line.trim_matches('"').to_string())
        .collect();
    let mut v2c = SnmpClient::new(
        fleet.olt_addr(1).expect("addr"),
        "public",
        SnmpVersion::V2c,
        settings(),
    );
    let expected: Vec<String> = v2c.walk_columns(&[std_oids::IF_NAME]).await.expect("v2c")[0]
        .iter()
        .map(|(_, value)| value.as_text().expect("text"))
        .collect();
    assert!(expected.len() > 4);
    assert_eq!(names, expected);

    let mut wrong = v3("wrong-password", PRIV);
    wrong.extend([addr.as_str(), "1.3.6.1.2.1.1.5.0"]);
    let refused = net_snmp("snmpget", &wrong).await;
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("Authentication failure"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    let mut wrong_priv = v3(AUTH, "wrong-password");
    wrong_priv.extend([addr.as_str(), "1.3.6.1.2.1.1.5.0"]);
    let refused = net_snmp("snmpget", &wrong_priv).await;
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("Decryption error"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
}

/// A UDP relay in front of `agent`, one request at a time, that records the source port
/// of every request it forwards: which socket the client asked from.
async fn port_recording_relay(
    agent: std::net::SocketAddr,
) -> (
    std::net::SocketAddr,
    std::sync::Arc<std::sync::Mutex<Vec<u16>>>,
) {
    let front = tokio::net::UdpSocket::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let back = tokio::net::UdpSocket::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = front.local_addr().expect("addr");
    let ports = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = ports.clone();
    tokio::spawn(async move {
        let mut buf = vec![0u8; 65_535];
        loop {
            let Ok((n, client)) = front.recv_from(&mut buf).await else {
                return;
            };
            seen.lock().expect("ports").push(client.port());
            let _ = back.send_to(&buf[..n], agent).await;
            let answer = tokio::time::timeout(Duration::from_secs(2), back.recv(&mut buf)).await;
            if let Ok(Ok(n)) = answer {
                let _ = front.send_to(&buf[..n], client).await;
            }
        }
    });
    (addr, ports)
}

#[tokio::test]
async fn idle_v2c_sessions_are_released_and_v3_sessions_kept() {
    let fleet = v3_fleet(FleetVendors::Mixed).await;
    let inventory = fleet.inventory();
    let olt = &inventory.olts[0];
    let agent = fleet.olt_addr(olt.id).expect("addr");
    let scalars = [std_oids::SYS_NAME];
    let distinct = |ports: &std::sync::Mutex<Vec<u16>>| {
        let mut ports = ports.lock().expect("ports").clone();
        ports.dedup();
        ports.len()
    };

    // v2c: a released session's socket is closed, the next poll opens another.
    let (relay, ports) = port_recording_relay(agent).await;
    let mut v2c = SnmpClient::new(relay, "public", SnmpVersion::V2c, settings());
    let first = v2c.get(&scalars).await.expect("v2c get");
    v2c.get(&scalars)
        .await
        .expect("v2c get on the same session");
    assert_eq!(distinct(&ports), 1, "one session, one socket");
    v2c.release_idle();
    assert_eq!(v2c.get(&scalars).await.expect("v2c after release"), first);
    assert_eq!(distinct(&ports), 2, "released: a new socket");

    // v3: the session (and its discovered engine) outlives the poll.
    let (relay, ports) = port_recording_relay(agent).await;
    let mut v3 = SnmpClient::for_olt(relay, olt.id, &olt.snmp, settings());
    v3.get(&scalars).await.expect("v3 get");
    let asked = ports.lock().expect("ports").len();
    v3.release_idle();
    assert_eq!(v3.get(&scalars).await.expect("v3 after release"), first);
    assert_eq!(distinct(&ports), 1, "kept: the same socket");
    assert_eq!(
        ports.lock().expect("ports").len(),
        asked + 1,
        "no engine discovery again"
    );
}
