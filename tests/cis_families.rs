//! The CIS families end to end (docs/devices-cis.md): the real service polls a simulated
//! fleet of every layout over real SNMP and drives the Eltex LTP-8X, V-SOL, C-Data and SNR
//! OLTs over real SSH. What a public source gives is sent in the family's own dialect —
//! Eltex `interface ont 3/5` and `do commit`, C-Data `ont reboot 3 7` under
//! `interface gpon 0/0`, V-SOL `onu 5 desc …` — and the simulator's console checks every
//! line; what no source gives (an Eltex VLAN, any SNR command, the four families'
//! provisioning) answers 501 `NOT_SUPPORTED` naming the family, with nothing sent.

use crate::common::{all_polled, eventually, TestService};
use ponkeeper_sim::{Dynamics, FleetSpec, FleetVendors, SimFleet};
use serde_json::{json, Value};
use std::time::Duration;

/// OLTs 6 … 10 of an every-family fleet.
const ELTEX: u32 = 6;
const VSOL_EPON: u32 = 7;
const VSOL_GPON: u32 = 8;
const CDATA: u32 = 9;
const SNR: u32 = 10;

async fn every_family_sim() -> SimFleet {
    SimFleet::start(FleetSpec {
        vendors: FleetVendors::EveryFamily,
        dynamics: Dynamics::none(),
        reboot_time: Duration::from_millis(500),
        ..FleetSpec::new(10, 12)
    })
    .await
    .expect("simulator starts")
}

/// An online ONU of OLT `olt`, as the API lists it.
async fn online_onu(service: &TestService, olt: u32) -> Value {
    let (_, onus) = service.get(&format!("/olts/{olt}/onus?size=100")).await;
    onus["data"]
        .as_array()
        .expect("onus")
        .iter()
        .find(|o| o["status"] == "ONLINE")
        .cloned()
        .unwrap_or_else(|| panic!("OLT {olt} has an online ONU: {onus}"))
}

/// The lines OLT `olt` was sent since `from`, without a session's log-in lines.
fn sent_since(sim: &SimFleet, olt: u32, from: usize) -> Vec<String> {
    let login = ["enable", "terminal length 0"];
    sim.command_log(olt)
        .into_iter()
        .skip(from)
        .filter(|line| !login.contains(&line.as_str()))
        .collect()
}

/// Asserts a 501 `NOT_SUPPORTED` whose message names `family`, and that nothing reached
/// OLT `olt`.
async fn refused(service: &TestService, sim: &SimFleet, olt: u32, path: &str, body: Value) {
    let before = sim.command_log(olt).len();
    let (status, answer) = service.post_json(path, &body).await;
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (501, Some("NOT_SUPPORTED")),
        "{path}: {answer}"
    );
    let (_, detail) = service.get(&format!("/olts/{olt}")).await;
    let family = detail["data"]["family"]
        .as_str()
        .expect("a detected family");
    let message = answer["error"]["message"].as_str().expect("text");
    assert!(message.contains(family), "{path}: {message} names {family}");
    assert_eq!(sim.command_log(olt).len(), before, "{path}: nothing sent");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_cis_family_is_driven_in_its_own_dialect_or_refused() {
    let sim = every_family_sim().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    all_polled(&service).await;
    for (olt, family) in [
        (ELTEX, "LTP-8X"),
        (VSOL_EPON, "V1600D"),
        (VSOL_GPON, "V1600G"),
        (CDATA, "FD16XX"),
        (SNR, "SNR-GPON"),
    ] {
        let (_, detail) = service.get(&format!("/olts/{olt}")).await;
        assert_eq!(detail["data"]["family"], family, "{detail}");
    }

    // Eltex: the ONT by channel and number, the change committed; its VLANs come from
    // profiles, so a VLAN number is refused.
    let onu = online_onu(&service, ELTEX).await;
    let rebooted = onu["id"].clone();
    let (id, port, number) = (
        &onu["id"],
        onu["ponPort"].as_str().expect("a port"),
        &onu["onuIndex"],
    );
    let channel = port.rsplit('/').next().expect("channel");
    let before = sim.command_log(ELTEX).len();
    let (status, answer) = service
        .post_json(
            &format!("/onus/{id}/description"),
            &json!({"description": "flat 7"}),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["data"]["description"], "flat 7");
    let ont = format!("interface ont {channel}/{number}");
    let lines = ["configure", &ont, "description flat 7", "do commit", "end"];
    assert_eq!(sent_since(&sim, ELTEX, before), lines);
    let before = sim.command_log(ELTEX).len();
    let (status, answer) = service.post(&format!("/onus/{id}/reboot")).await;
    assert_eq!(status, 200, "{answer}");
    let reset = format!("send omci reset interface ont {channel}/{number}");
    assert_eq!(sent_since(&sim, ELTEX, before), [reset, "Y".to_string()]);
    refused(
        &service,
        &sim,
        ELTEX,
        &format!("/onus/{id}/vlan"),
        json!({"vlan": 100}),
    )
    .await;

    // C-Data: the port's number and the ONU's under `interface gpon 0/0`.
    let onu = online_onu(&service, CDATA).await;
    let (id, port, number) = (
        &onu["id"],
        onu["ponPort"].as_str().expect("a port"),
        &onu["onuIndex"],
    );
    let (board, port_no) = port.rsplit_once('/').expect("0/0/N");
    let before = sim.command_log(CDATA).len();
    let (status, answer) = service.post(&format!("/onus/{id}/reboot")).await;
    assert_eq!(status, 200, "{answer}");
    let reboot = [
        "config".to_string(),
        format!("interface gpon {board}"),
        format!("ont reboot {port_no} {number}"),
        "y".to_string(),
        "end".to_string(),
    ];
    assert_eq!(sent_since(&sim, CDATA, before), reboot);
    refused(
        &service,
        &sim,
        CDATA,
        &format!("/onus/{id}/vlan"),
        json!({"vlan": 100}),
    )
    .await;

    // V-SOL: the V1600G's description in `interface gpon 0/P`; the V1600D has no known
    // command at all.
    let onu = online_onu(&service, VSOL_GPON).await;
    let (id, port, number) = (
        &onu["id"],
        onu["ponPort"].as_str().expect("a port"),
        &onu["onuIndex"],
    );
    let before = sim.command_log(VSOL_GPON).len();
    let path = format!("/onus/{id}/description");
    let (status, answer) = service
        .post_json(&path, &json!({"description": "shop"}))
        .await;
    assert_eq!(status, 200, "{answer}");
    let pon = format!("interface gpon {port}");
    let desc = format!("onu {number} desc shop");
    let lines = ["configure terminal", pon.as_str(), desc.as_str(), "end"];
    assert_eq!(sent_since(&sim, VSOL_GPON, before), lines);
    let onu = online_onu(&service, VSOL_EPON).await;
    let id = &onu["id"];
    refused(
        &service,
        &sim,
        VSOL_EPON,
        &format!("/onus/{id}/reboot"),
        json!({}),
    )
    .await;
    let path = format!("/olts/{VSOL_EPON}/unconfigured-onus");
    let (status, answer) = service.get(&path).await;
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (501, Some("NOT_SUPPORTED"))
    );

    // SNR: no public source gives any of its CLI.
    let onu = online_onu(&service, SNR).await;
    let id = &onu["id"];
    for (path, body) in [
        (format!("/onus/{id}/reboot"), json!({})),
        (
            format!("/onus/{id}/description"),
            json!({"description": "x"}),
        ),
        (format!("/onus/{id}/vlan"), json!({"vlan": 100})),
        (format!("/olts/{SNR}/configs/backup"), json!({})),
        (
            format!("/olts/{SNR}/onus/authorize"),
            json!({"ponPort": onu["ponPort"], "serial": "HWTC00000001", "onuIndex": 60}),
        ),
    ] {
        refused(&service, &sim, SNR, &path, body).await;
    }
    assert!(
        sim.command_log(SNR).is_empty(),
        "no session was ever opened"
    );

    // The rebooted Eltex ONT is back after the simulator's reboot time, as a poll reads it.
    let path = format!("/onus/{rebooted}");
    eventually(
        "the Eltex ONT back online",
        Duration::from_secs(30),
        || async {
            let (code, _) = service.post(&format!("/olts/{ELTEX}/poll")).await;
            let (_, body) = service.get(&path).await;
            (code == 200 && body["data"]["status"] == "ONLINE").then_some(())
        },
    )
    .await;
    service.stop().await;
    sim.shutdown().await;
}
