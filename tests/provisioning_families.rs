//! Provisioning by family, end to end (docs/provisioning.md, "Families"): the real service
//! polls a simulated fleet of every layout (Huawei MA5800, ZTE C320, BDCOM P3310, ZTE
//! C620, BDCOM GP3600) over real SNMP and drives it over real SSH. A ZTE C620 and a BDCOM
//! GP3600 are provisioned with their own commands, chosen by the layout the poll
//! detected, not by the vendor: the C620 registers in `interface gpon_olt-1/1/1`, the
//! GP3600 binds `gpon bind-onu sn HWTC:1A2B3C4D N`. The simulator's console speaks each
//! family's dialect and refuses the other family's lines, so sending the C320's or the
//! EPON's script fails the authorisation. The C620's ONU-type listing, which no source
//! settles, answers 501 `NOT_SUPPORTED` naming the family.

use crate::common::{all_polled, TestService};
use ponkeeper_sim::{Dynamics, FleetSpec, FleetVendors, SimFleet};
use serde_json::{json, Value};

/// OLT 4 of an every-family fleet is the C620, OLT 5 the GP3600.
const C620: u32 = 4;
const GP3600: u32 = 5;

async fn every_family_sim() -> SimFleet {
    SimFleet::start(FleetSpec {
        vendors: FleetVendors::EveryFamily,
        dynamics: Dynamics::none(),
        ..FleetSpec::new(5, 12)
    })
    .await
    .expect("simulator starts")
}

/// The lines OLT `olt` was sent since `from`, without a new session's setup lines.
fn sent_since(sim: &SimFleet, olt: u32, from: usize) -> Vec<String> {
    sim.command_log(olt)
        .into_iter()
        .skip(from)
        .filter(|line| line != "enable" && line != "terminal length 0")
        .collect()
}

/// Authorises the first unconfigured ONU of OLT `olt` as index 60 and removes it again;
/// the lines sent for each, and the ONU's port and serial.
async fn authorise_and_remove(
    service: &TestService,
    sim: &SimFleet,
    olt: u32,
    extra: Value,
) -> (Vec<String>, Vec<String>, String, String) {
    let (port, serial, _) = sim.expected_unconfigured(olt)[0].clone();
    let mut body = json!({"ponPort": port, "serial": serial, "onuIndex": 60,
        "vlan": 100, "description": "flat 7"});
    if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
        body.extend(extra.clone());
    }
    let before = sim.command_log(olt).len();
    let (status, answer) = service
        .post_json(&format!("/olts/{olt}/onus/authorize"), &body)
        .await;
    assert_eq!(status, 200, "OLT {olt}: {answer}");
    let onu = &answer["data"];
    assert_eq!(onu["serial"], serial.as_str());
    assert_eq!(onu["status"], "ONLINE", "{onu}");
    assert_eq!(onu["description"], "flat 7");
    let authorised = sent_since(sim, olt, before);
    let id = onu["id"].as_u64().expect("id");
    let before = sim.command_log(olt).len();
    let (status, answer) = service.post(&format!("/onus/{id}/deauthorize")).await;
    assert_eq!(status, 200, "OLT {olt}: {answer}");
    let removed = sent_since(sim, olt, before);
    let (_, listed) = service.get(&format!("/olts/{olt}/unconfigured-onus")).await;
    assert!(
        listed["data"]
            .as_array()
            .expect("list")
            .iter()
            .any(|o| o["serial"] == serial.as_str() && o["ponPort"] == port.as_str()),
        "unconfigured again: {listed}"
    );
    (authorised, removed, port, serial)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_c620_and_a_gp3600_are_provisioned_with_their_own_commands() {
    let sim = every_family_sim().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    all_polled(&service).await;
    for (olt, family) in [(C620, "C620"), (GP3600, "GP3600")] {
        let (status, _) = service.post(&format!("/olts/{olt}/poll")).await;
        assert_eq!(status, 200);
        let (_, detail) = service.get(&format!("/olts/{olt}")).await;
        assert_eq!(detail["data"]["family"], family, "{detail}");
        // Discovered through the family's own unconfigured table.
        let (_, listed) = service.get(&format!("/olts/{olt}/unconfigured-onus")).await;
        let mut got: Vec<(String, String)> = listed["data"]
            .as_array()
            .expect("list")
            .iter()
            .map(|o| {
                let text = |key: &str| o[key].as_str().unwrap_or("").to_string();
                (text("ponPort"), text("serial"))
            })
            .collect();
        got.sort();
        let mut expected: Vec<(String, String)> = sim
            .expected_unconfigured(olt)
            .into_iter()
            .map(|(port, serial, _)| (port, serial))
            .collect();
        expected.sort();
        assert!(!expected.is_empty(), "OLT {olt} starts with some");
        assert_eq!(got, expected, "OLT {olt}");
    }

    // The C620: `onu N type T sn SN` in `interface gpon_olt-1/S/P`, never `gpon-olt_`.
    let (status, body) = service.get(&format!("/olts/{C620}/onu-profiles")).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (501, Some("NOT_SUPPORTED")),
        "{body}"
    );
    let message = body["error"]["message"].as_str().expect("text");
    assert!(message.contains("C620"), "{message}");
    let sent = sim.command_log(C620).len();
    let (status, body) = service
        .post_json(
            &format!("/olts/{C620}/onus/authorize"),
            &json!({"ponPort": "1/1/1", "serial": "ZTEG00000001", "onuIndex": 60}),
        )
        .await;
    assert_eq!(status, 400, "the C620 needs an ONU type: {body}");
    assert_eq!(sim.command_log(C620).len(), sent, "nothing sent");
    let (authorised, removed, port, serial) =
        authorise_and_remove(&service, &sim, C620, json!({"onuType": "ZTE-F660"})).await;
    let register = [
        "configure terminal".to_string(),
        format!("interface gpon_olt-{port}"),
        format!("onu 60 type ZTE-F660 sn {serial}"),
        "end".to_string(),
    ];
    assert_eq!(authorised[..4], register, "{authorised:?}");
    assert!(authorised.contains(&format!("interface gpon_onu-{port}:60")));
    let removal = [
        "configure terminal".to_string(),
        format!("interface gpon_olt-{port}"),
        "no onu 60".to_string(),
        "end".to_string(),
    ];
    assert_eq!(removed, removal);
    assert!(sim
        .command_log(C620)
        .iter()
        .all(|line| !line.contains("gpon-olt_") && line != "show gpon onu uncfg"));

    // An unknown ONU type is the device's to refuse, in its own words (502).
    let (port, serial, _) = sim.expected_unconfigured(C620)[0].clone();
    let (status, body) = service
        .post_json(
            &format!("/olts/{C620}/onus/authorize"),
            &json!({"ponPort": port, "serial": serial, "onuIndex": 61, "onuType": "ZTE-F999"}),
        )
        .await;
    assert_eq!(status, 502, "{body}");
    assert!(body["error"]["message"]
        .as_str()
        .expect("text")
        .contains("ONU type does not exist"));

    // The GP3600: `gpon bind-onu sn VEND:XXXXXXXX N` in `interface GPON0/P`, no profiles.
    let (status, body) = service.get(&format!("/olts/{GP3600}/onu-profiles")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["meta"]["totalCount"], 0);
    let (authorised, removed, port, serial) =
        authorise_and_remove(&service, &sim, GP3600, json!({})).await;
    let register = [
        "config".to_string(),
        format!("interface GPON{port}"),
        format!("gpon bind-onu sn {}:{} 60", &serial[..4], &serial[4..]),
        "end".to_string(),
    ];
    assert_eq!(authorised[..4], register, "{authorised:?}");
    assert!(authorised.contains(&"gpon onu port 1 vlan mode tag 100".to_string()));
    let removal = [
        "config".to_string(),
        format!("interface GPON{port}"),
        "no gpon bind-onu sequence 60".to_string(),
        "end".to_string(),
    ];
    assert_eq!(removed, removal);
    assert!(sim
        .command_log(GP3600)
        .iter()
        .all(|line| !line.contains("EPON") && !line.starts_with("epon ")));
    service.stop().await;
}
