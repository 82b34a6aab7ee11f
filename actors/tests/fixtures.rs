//! The pollers against an independent SNMP agent: snmpsim serves real vendor layouts from
//! `.snmprec` fixtures in `tests/fixtures` (Huawei MA5800, ZTE C320 and C620, BDCOM P3310
//! and GP3600, with and without its ONU table; see
//! that folder's README for where each came from), the real `Fleet` polls each one over
//! UDP, and every ONU, the port count and the totals must equal the fixture's
//! `.expected.json` exactly. Our simulator encodes with the same profiles the pollers
//! decode with, so only a foreign agent with foreign data can catch a wrong table.
//!
//! Needs snmpsim: `scripts/test.sh` installs it into `.venv` and points `SNMPSIM_COMMAND`
//! at it. Without it each test is skipped loudly (a failure under `REQUIRE_TEST_TOOLS`).

use ponkeeper_actors::domain::{OnuStatus, SessionStatus};
use ponkeeper_actors::inventory::{Inventory, OltSpec, SnmpSpec, SnmpVersion, VendorSetting};
use ponkeeper_actors::olt::PollSettings;
use ponkeeper_actors::poller::PolledOnu;
use ponkeeper_actors::store::Store;
use ponkeeper_actors::supervisor::Fleet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

fn our_fixtures() -> PathBuf {
    repo().join("tests/fixtures")
}

use crate::tools;

use crate::snmpsim::{repo, snmpsim_binary, Snmpsim};

use crate::expected::Expected;

fn settings() -> PollSettings {
    PollSettings {
        interval: Duration::from_secs(3600),
        timeout: Duration::from_secs(2),
        retries: 2,
        deadline: Duration::from_secs(30),
        offline_after: 3,
        bulk_varbinds: 64,
        concurrency: Arc::new(tokio::sync::Semaphore::new(4)),
        ..PollSettings::default()
    }
}

fn sorted(mut onus: Vec<PolledOnu>) -> Vec<PolledOnu> {
    onus.sort_by(|a, b| (&a.pon_port, a.onu_index).cmp(&(&b.pon_port, b.onu_index)));
    onus
}

/// Serves `<dir>/<name>.snmprec` with snmpsim, polls it as one OLT through the real fleet
/// and compares with `<dir>/<name>.expected.json` — once with the fixture's vendor in the
/// inventory and once with `vendor = "auto"`, which must detect that vendor from the
/// capture's own sysObjectID and sysDescr and poll exactly the same.
async fn polls_as_expected(dir: &Path, name: &str, model: &str) {
    let test = format!("{name} fixture polls as expected");
    if !tools::file(&test, "snmpsim", &snmpsim_binary()) {
        return;
    }
    let snmprec = dir.join(format!("{name}.snmprec"));
    let expected_path = dir.join(format!("{name}.expected.json"));
    let text = std::fs::read_to_string(&expected_path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", expected_path.display()));
    let expected: Expected = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not valid: {e}", expected_path.display()));

    let mut agent = Snmpsim::start(&snmprec, &[]);
    agent.ready().await;
    for vendor in [expected.vendor.into(), VendorSetting::Auto] {
        let olt = olt_spec(agent.addr, vendor, model);
        polls_once(name, olt, &expected).await;
    }
}

/// The real fleet over `inventory`, with its store in a fresh directory (kept alive by
/// the returned guard).
async fn fleet_of(inventory: Inventory) -> (tempfile::TempDir, Fleet) {
    let data = tempfile::tempdir().expect("tempdir");
    let store = Store::open(data.path()).expect("store");
    let fleet = Fleet::start(store, settings(), inventory)
        .await
        .expect("fleet");
    (data, fleet)
}

fn olt_spec(agent: std::net::SocketAddr, vendor: VendorSetting, model: &str) -> OltSpec {
    OltSpec {
        id: 1,
        ip: agent.ip(),
        vendor,
        model: model.to_string(),
        city: "Kazan".into(),
        node: None,
        enabled: true,
        snmp: SnmpSpec {
            port: agent.port(),
            community: "public".into(),
            version: SnmpVersion::V2c,
            ..SnmpSpec::default()
        },
        ssh: None,
        poll: Default::default(),
    }
}

async fn polls_once(name: &str, olt: OltSpec, expected: &Expected) {
    let name = format!("{name} (vendor {:?})", olt.vendor);
    let inventory = Inventory {
        nodes: vec![],
        szo: vec![],
        splitters: vec![],
        olts: vec![olt],
    };
    let (_data, fleet) = fleet_of(inventory).await;
    let handle = fleet.olt(1).expect("the OLT actor runs");
    let summary = handle.poll_now().await.expect("poll");
    let detail = handle.detail().await.expect("detail");
    assert_eq!(
        summary.status,
        SessionStatus::Online,
        "{name}: {:?}",
        detail.session
    );
    assert_eq!(summary.vendor, Some(expected.vendor), "{name}: vendor");
    assert_eq!(
        summary.family,
        Some(expected.layout.as_str()),
        "{name}: family (the detected layout)"
    );

    let polled: Vec<PolledOnu> = handle
        .onus()
        .await
        .expect("onus")
        .iter()
        .map(PolledOnu::from)
        .collect();
    let (polled, wanted) = (
        sorted(polled),
        sorted(expected.onus.iter().cloned().map(PolledOnu::from).collect()),
    );
    assert_eq!(polled.len(), wanted.len(), "{name}: ONU count");
    for (got, want) in polled.iter().zip(&wanted) {
        assert_eq!(
            got, want,
            "{name}: {} ONU {}",
            want.pon_port, want.onu_index
        );
    }
    assert_eq!(summary.total_ports, expected.ports, "{name}: ports");
    assert_eq!(summary.total_onu, expected.total_onu, "{name}: totalOnu");
    assert_eq!(summary.onu_online, expected.onu_online, "{name}: onuOnline");
    let online = polled
        .iter()
        .filter(|o| o.status == OnuStatus::Online)
        .count() as u32;
    assert_eq!(online, expected.onu_online, "{name}: online ONUs");
    let port_onus: u32 = detail.ports.iter().map(|p| p.onu_total).sum();
    assert_eq!(port_onus, expected.total_onu, "{name}: every ONU on a port");
    assert_eq!(
        detail.session.warnings, expected.warnings,
        "{name}: session.warnings"
    );
    // The first poll reads every group, the traffic counters among them.
    let onus = handle.onus().await.expect("onus");
    for want in &expected.traffic {
        let onu = onus
            .iter()
            .find(|o| o.serial == want.serial)
            .unwrap_or_else(|| panic!("{name}: no ONU {}", want.serial));
        let reading = handle.traffic(onu.id).await.expect("traffic");
        let counters = reading.map(|r| (r.in_octets, r.out_octets));
        assert_eq!(
            counters,
            Some((Some(want.in_octets), Some(want.out_octets))),
            "{name}: {}'s octet counters",
            want.serial
        );
    }

    fleet.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn huawei_ma5800_fixture_polls_as_expected() {
    polls_as_expected(&our_fixtures(), "huawei-ma5800", "MA5800-X7").await;
}

/// The MA5800 capture without IF-MIB's row for port 0/1/1 and with a row on an ifIndex
/// that is no port: the port is decoded from its ONUs' ifIndex, the stray row is named in
/// `session.warnings`, and nothing is dropped silently: what a poll cannot place is counted
/// and named.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn huawei_port_missing_from_if_mib_is_decoded_and_reported() {
    polls_as_expected(&our_fixtures(), "huawei-ma5800-no-port", "MA5800-X7").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zte_c320_fixture_polls_as_expected() {
    polls_as_expected(&our_fixtures(), "zte-c320", "C320").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bdcom_p3310_fixture_polls_as_expected() {
    polls_as_expected(&our_fixtures(), "bdcom-p3310", "P3310").await;
}

/// A ZTE C620: IF-MIB as the LibreNMS capture has it (`gpon_olt-1/1/1` … `1/1/16`,
/// uplinks numbered alike), ONU rows in the `3902.1082.500` tables on the port ifIndex.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zte_c620_fixture_polls_as_expected() {
    polls_as_expected(&our_fixtures(), "zte-c620", "C620").await;
}

/// A BDCOM GP3600-16B: IF-MIB as the LibreNMS capture has it (`GPON0/1` … `/16` and
/// ONU interfaces, all ifType 1), NMS-GPON-MIB rows on the ONU's ifIndex, text serials,
/// decimetres, and ifAlias rows of uplinks that are no ONU's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bdcom_gp3600_fixture_polls_as_expected() {
    polls_as_expected(&our_fixtures(), "bdcom-gp3600", "GP3600-16B").await;
}

/// The LibreNMS GP3600-16B capture as it is: IF-MIB lists 64 ONU interfaces (`GPON0/2:1`
/// … `:51`, `GPON0/4:1` … `:13`) and the NMS-GPON-MIB ONU table answers no row. The OLT
/// shows no ONU, and `session.warnings` names all 64 interfaces rather than a silent 0.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bdcom_gp3600_onu_interfaces_without_onu_rows_are_reported() {
    polls_as_expected(&our_fixtures(), "bdcom-gp3600-no-onu-table", "GP3600-16B").await;
}

/// Eltex LTP-8X: ONTs indexed by their slot and serial, the PON channel and ONT number
/// in columns, ports named by the ONT rows alone (no capture shows the LTP's IF-MIB).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eltex_ltp8x_fixture_polls_as_expected() {
    polls_as_expected(&our_fixtures(), "eltex-ltp8x", "LTP-8X").await;
}

/// V-SOL V1600D (EPON): the LibreNMS capture's 16 ONUs and their optics text
/// (`0.03 mW (-14.61 dBm)`, `30.67 C`), ONU interfaces in IF-MIB.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vsol_v1600d_fixture_polls_as_expected() {
    polls_as_expected(&our_fixtures(), "vsol-v1600d", "V1600D").await;
}

/// V-SOL V1600GS (GPON): optics as plain numbers and as `-18.602(dBm)`, `N/A` for none,
/// the port named `GPON0/1 Clients`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vsol_v1600g_fixture_polls_as_expected() {
    polls_as_expected(&our_fixtures(), "vsol-v1600g", "V1600GS").await;
}

/// V-SOL V1600G firmware without per-ONU optics: every optics field `null`, and the
/// OLT's warnings say so rather than stay silent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vsol_v1600g_without_optics_says_so() {
    polls_as_expected(&our_fixtures(), "vsol-v1600g-no-optics", "V1600GS").await;
}

/// C-Data FD16xx: the packed ONU index, optics under `.0.0`, the down cause as text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cdata_fd1616_fixture_polls_as_expected() {
    polls_as_expected(&our_fixtures(), "cdata-fd1616", "FD1616").await;
}

/// SNR-OLT-GPON: rows `<slot>.<port>.<ont>`, readings, distance and serial as text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snr_gpon_fixture_polls_as_expected() {
    polls_as_expected(&our_fixtures(), "snr-gpon", "SNR-OLT-GPON-16-2AC").await;
}

/// `vendor = "auto"` against a device no detection rule knows (a Cisco router's system
/// group, served by snmpsim): the OLT answers, so it is DEGRADED, never OFFLINE, with a
/// `lastError` naming what it said, and nothing is polled with a guessed profile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_vendor_is_degraded_and_named() {
    let test = "an unknown vendor is degraded and named";
    if !tools::file(test, "snmpsim", &snmpsim_binary()) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let snmprec = dir.path().join("cisco.snmprec");
    std::fs::write(
        &snmprec,
        "1.3.6.1.2.1.1.1.0|4|Cisco IOS Software, C2960 Software\n\
         1.3.6.1.2.1.1.2.0|6|1.3.6.1.4.1.9.1.716\n\
         1.3.6.1.2.1.1.3.0|67|123456\n\
         1.3.6.1.2.1.1.5.0|4|edge-1\n",
    )
    .expect("snmprec");
    let mut agent = Snmpsim::start(&snmprec, &[]);
    agent.ready().await;
    let inventory = Inventory {
        nodes: vec![],
        szo: vec![],
        splitters: vec![],
        olts: vec![olt_spec(agent.addr, VendorSetting::Auto, "unknown")],
    };
    let (_data, fleet) = fleet_of(inventory).await;
    let handle = fleet.olt(1).expect("the OLT actor runs");
    for _ in 0..4 {
        // More failures than `offline_after` (3): still DEGRADED.
        let _ = handle.poll_now().await;
    }
    let detail = handle.detail().await.expect("detail");
    assert_eq!(detail.summary.status, SessionStatus::Degraded);
    assert_eq!(detail.summary.vendor, None);
    assert_eq!(detail.summary.total_onu, 0);
    assert_eq!(
        detail.session.last_error.as_deref(),
        Some(
            "vendor not detected: sysObjectID 1.3.6.1.4.1.9.1.716 and sysDescr \
             \"Cisco IOS Software, C2960 Software\" match no profile; set `vendor` in the inventory"
        )
    );
    fleet.shutdown().await;
}
