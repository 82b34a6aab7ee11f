//! The SNMPv3 client against an independent agent: snmpsim serves a vendor fixture to a
//! USM user (SHA-256 + AES-128, authPriv) and to community `public`; the client reads it
//! through v3 and must get exactly what it reads through v2c (scalars and a bulk walk of
//! the ONU table), and a wrong auth password, a wrong privacy password or an unknown user
//! must end promptly with `authentication failed: wrong password or user`.
//!
//! snmpsim picks the data file by the SNMPv3 context name, so the client's `context` is
//! `public` (the file's name).
//!
//! Needs snmpsim (`SNMPSIM_COMMAND`, else `.venv`); skipped loudly without it (a failure
//! under `REQUIRE_TEST_TOOLS`).

use ponkeeper_actors::domain::Vendor;
use ponkeeper_actors::inventory::{AuthProtocol, PrivProtocol, SnmpSpec, SnmpVersion};
use ponkeeper_actors::profile::{std_oids, Profile};
use ponkeeper_actors::snmp::{ClientSettings, DeviceError, SnmpClient};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use crate::tools;

use crate::snmpsim::{repo, snmpsim_binary, Snmpsim};

const USER: &str = "pk";
const AUTH: &str = "pk-auth-pass";
const PRIV: &str = "pk-priv-pass";

/// snmpsim serving `fixture` to community `public` and to the v3 user (SHA-256 + AES).
fn v3_snmpsim(fixture: &str) -> Snmpsim {
    Snmpsim::start(&fixture_file(fixture), &V3_USER)
}

/// [`v3_snmpsim`] on `addr`.
fn v3_snmpsim_at(fixture: &str, addr: SocketAddr) -> Snmpsim {
    Snmpsim::start_at(&fixture_file(fixture), &V3_USER, addr)
}

fn fixture_file(fixture: &str) -> std::path::PathBuf {
    repo()
        .join("tests/fixtures")
        .join(format!("{fixture}.snmprec"))
}

/// snmpsim's options for the v3 user.
const V3_USER: [&str; 10] = [
    "--v3-user",
    USER,
    "--v3-auth-key",
    AUTH,
    "--v3-auth-proto",
    "SHA256",
    "--v3-priv-key",
    PRIV,
    "--v3-priv-proto",
    "AES",
];

fn settings() -> ClientSettings {
    ClientSettings {
        timeout: Duration::from_millis(1500),
        retries: 1,
        bulk_varbinds: 64,
    }
}

/// A v3 client for `user`, its passwords put in variables of their own first.
fn v3_client(addr: SocketAddr, tag: &str, user: &str, auth: &str, privacy: &str) -> SnmpClient {
    let auth_env = format!("PK_V3_TEST_{tag}_AUTH");
    let priv_env = format!("PK_V3_TEST_{tag}_PRIV");
    std::env::set_var(&auth_env, auth);
    std::env::set_var(&priv_env, privacy);
    let spec = SnmpSpec {
        port: addr.port(),
        version: SnmpVersion::V3,
        user: Some(user.into()),
        auth: Some(AuthProtocol::Sha256),
        auth_password_env: Some(auth_env),
        privacy: Some(PrivProtocol::Aes),
        privacy_password_env: Some(priv_env),
        // snmpsim serves a data file to v3 by its name as the context.
        context: "public".into(),
        ..SnmpSpec::default()
    };
    SnmpClient::for_olt(addr, 1, &spec, settings())
}

fn snmpsim_present(test: &str) -> bool {
    tools::file(test, "snmpsim", &snmpsim_binary())
}

#[tokio::test]
async fn v3_auth_priv_reads_what_v2c_reads() {
    if !snmpsim_present("v3_auth_priv_reads_what_v2c_reads") {
        return;
    }
    let mut agent = v3_snmpsim("huawei-ma5800");
    agent.ready().await;
    // ifName and Huawei's whole GPON subtree as one column: several GETBULKs.
    let huawei_gpon: &[u32] = &[1, 3, 6, 1, 4, 1, 2011, 6, 128, 1, 1, 2];
    let columns = [
        Profile::for_vendor(Vendor::Huawei).interface_names.oid(),
        huawei_gpon,
    ];
    let fixture = std::fs::read_to_string(repo().join("tests/fixtures/huawei-ma5800.snmprec"))
        .expect("fixture");
    let gpon_rows = fixture
        .lines()
        .filter(|line| line.starts_with("1.3.6.1.4.1.2011.6.128.1.1.2."))
        .count();
    let scalars = [
        std_oids::SYS_NAME,
        std_oids::SYS_DESCR,
        std_oids::SYS_UPTIME,
    ];

    let mut v2c = SnmpClient::new(agent.addr, "public", SnmpVersion::V2c, settings());
    let mut v3 = v3_client(agent.addr, "GOOD", USER, AUTH, PRIV);
    let expected_scalars = v2c.get(&scalars).await.expect("v2c get");
    let got_scalars = v3.get(&scalars).await.expect("v3 get");
    assert_eq!(got_scalars, expected_scalars);
    assert_eq!(
        got_scalars[0].as_text().as_deref(),
        Some("OLT-HW-1"),
        "sysName of the fixture"
    );
    let expected_walk = v2c.walk_columns(&columns).await.expect("v2c walk");
    let got_walk = v3.walk_columns(&columns).await.expect("v3 walk");
    assert_eq!(expected_walk[0].len(), 6, "the fixture's ifName rows");
    assert_eq!(expected_walk[1].len(), gpon_rows, "the fixture's GPON rows");
    assert!(gpon_rows > 200, "more than one GETBULK");
    assert_eq!(got_walk, expected_walk);
    // Several requests on one session: the engine time is carried, not rediscovered.
    for _ in 0..3 {
        assert_eq!(
            v3.get(&scalars[..1]).await.expect("again"),
            expected_scalars[..1]
        );
    }
}

/// The agent restarts on the same port (a rebooted OLT: a new engine, its boots and time
/// started again): the client's next request is refused with a report, and the client
/// discovers the engine again and is answered, without a new session.
#[tokio::test]
async fn a_restarted_engine_is_discovered_again() {
    if !snmpsim_present("a_restarted_engine_is_discovered_again") {
        return;
    }
    let mut agent = v3_snmpsim("zte-c620");
    agent.ready().await;
    let addr = agent.addr;
    let mut v3 = v3_client(addr, "REBOOT", USER, AUTH, PRIV);
    let before = v3.get(&[std_oids::SYS_NAME]).await.expect("v3 get");
    assert_eq!(before[0].as_text().as_deref(), Some("OLT-ZTE-C620"));
    drop(agent);
    let mut agent = v3_snmpsim_at("zte-c620", addr);
    agent.ready().await;
    let after = v3
        .get(&[std_oids::SYS_NAME])
        .await
        .expect("v3 get after the restart");
    assert_eq!(after, before);
}

#[tokio::test]
async fn wrong_credentials_fail_promptly_and_say_so() {
    if !snmpsim_present("wrong_credentials_fail_promptly_and_say_so") {
        return;
    }
    let mut agent = v3_snmpsim("zte-c320");
    agent.ready().await;
    for (tag, user, auth, privacy) in [
        ("BADAUTH", USER, "wrong-password", PRIV),
        ("BADPRIV", USER, AUTH, "wrong-password"),
        ("BADUSER", "nobody", AUTH, PRIV),
    ] {
        let mut client = v3_client(agent.addr, tag, user, auth, privacy);
        let started = Instant::now();
        let error = client
            .get(&[std_oids::SYS_NAME])
            .await
            .expect_err("refused");
        assert_eq!(error, DeviceError::AuthenticationFailed, "{tag}");
        assert_eq!(
            error.to_string(),
            "authentication failed: wrong password or user"
        );
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{tag}: answered in {:?}, not after the retries",
            started.elapsed()
        );
    }
}
