//! A Huawei MA5600T / MA5800's command line against a replay console (issue 54): ports
//! that answer "no MAC record" but one, an ONT table that shows a VLAN as `-`, a reset
//! that asks for a confirmation, an authorisation and a first VLAN whose `undo
//! service-port` finds nothing to remove, and a backup through the pager and its
//! `ESC[37D` erase. Alarm lines are printed at the idle prompt throughout.

use crate::cli_dialogue::{backup, fleet, same_lines, service, stored_form};
use crate::common::eventually;
use crate::common::replay::{fixture, Answer, Console, Dialogue};
use ponkeeper_actors::domain::Vendor;
use ponkeeper_sim::DEFAULT_SSH_PASSWORD;
use serde_json::Value;
use std::time::Duration;

fn huawei(refused_port: &str) -> Dialogue {
    let no_record = b"Failure: There is not any MAC address record\r\n".to_vec();
    Dialogue {
        banner: b"\r\n".to_vec(),
        user_prompt: "MA5680T-H01>".into(),
        privileged_prompt: "MA5680T-H01#".into(),
        lands_privileged: false,
        enable_asks: None,
        enable_password: String::new(),
        unknown: "\r\n% Unknown command, the error locates at '^'\r\n".into(),
        answers: vec![
            Answer::new("undo smart$", Vec::new()),
            Answer::new("scroll$", Vec::new()),
            Answer::new("config$", Vec::new()).then_prompt("MA5680T-H01(config)#"),
            Answer::new("interface gpon ", Vec::new())
                .then_prompt("MA5680T-H01(config-if-gpon-0/1)#"),
            // netmiko's transcripts (tests/fixtures/cli/huawei/dialogue.toml).
            Answer::new("ont reset ", Vec::new()).confirming("Are you sure to proceed(y/n)[n]:"),
            Answer::new("return$", Vec::new()).then_prompt("MA5680T-H01#"),
            Answer::new(
                "display mac-address port 0/1/0$",
                fixture("huawei", "display-mac-address.txt"),
            ),
            Answer::new(
                &format!("display mac-address port {refused_port}$"),
                b"% Parameter error, the error locates at '^'\r\n".to_vec(),
            ),
            Answer::new("display mac-address port ", no_record.clone()),
            Answer::new(
                "display mac-address ont 0/1/0 0$",
                fixture("huawei", "display-mac-address-ont-wlan-no-vlan.txt"),
            ),
            Answer::new("display mac-address ont ", no_record),
        ],
        idle_alarm: Some("  ! MAJOR ALARM: The ONT is offline (0/1/3 5)".into()),
        output_alarm: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huawei_mac_sweep_costs_a_refused_port_alone_and_no_record_is_empty() {
    let sim = fleet(Vendor::Huawei, 24).await;
    let onus = sim.expected_onus(1);
    let ports: Vec<String> = onus.iter().map(|o| o.pon_port.to_string()).collect();
    let on_0_1_0 = |index| {
        onus.iter()
            .any(|o| o.pon_port == "0/1/0" && o.onu_index == index)
    };
    assert!(
        on_0_1_0(0) && on_0_1_0(1),
        "the simulator's ONUs 0 and 1 of 0/1/0"
    );
    let refused = ports
        .iter()
        .find(|p| *p != "0/1/0")
        .expect("a second port")
        .clone();
    let console = Console::start(huawei(&refused), DEFAULT_SSH_PASSWORD).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = service(&sim, &console, &dir, None).await;
    let (_, page) = service.get("/onus?ponPort=0/1/0&size=100").await;
    let id_of = |index: u64| -> u64 {
        let rows = page["data"].as_array().expect("rows");
        let row = rows
            .iter()
            .find(|r| r["onuIndex"] == index)
            .expect("the ONU");
        row["id"].as_u64().expect("id")
    };
    let (one, zero) = (id_of(1), id_of(0));
    // The sweep (the MAC poll group's read of every port).
    let macs = eventually("the sweep read", Duration::from_secs(60), || async {
        let (_, macs) = service.get(&format!("/onus/{one}/macs")).await;
        let items = macs["data"]["items"].as_array()?.clone();
        (!items.is_empty()).then_some(items)
    })
    .await;
    assert_eq!(macs[0]["mac"], "aa:aa:aa:aa:aa:aa");
    assert_eq!(macs[0]["vlan"], 1);
    let (_, olt) = service.get("/olts/1").await;
    let warnings: Vec<&str> = olt["data"]["session"]["warnings"]
        .as_array()
        .unwrap_or_else(|| panic!("no warnings in {olt}"))
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let named: Vec<&&str> = warnings
        .iter()
        .filter(|w| w.contains("MACs of PON port"))
        .collect();
    assert_eq!(named.len(), 1, "{warnings:?}");
    assert!(
        named[0].contains(&refused) && named[0].contains("Parameter error"),
        "{named:?}"
    );
    // A reboot answers the device's confirmation.
    let (status, body) = service.post(&format!("/onus/{one}/reboot")).await;
    assert_eq!(status, 200, "{body}");
    assert!(
        console.received().iter().any(|l| l == "y"),
        "the confirmation answered"
    );
    // One ONU's refresh reads the ONT table, whose WLAN client has no VLAN.
    let (status, body) = service.post(&format!("/onus/{zero}/macs/refresh")).await;
    assert_eq!(status, 200, "{body}");
    let (_, macs) = service.get(&format!("/onus/{zero}/macs")).await;
    let items = macs["data"]["items"].as_array().expect("items");
    assert_eq!(items.len(), 1, "{macs}");
    assert_eq!(items[0]["vlan"], Value::Null, "{macs}");
    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huawei_authorisation_with_a_vlan_is_not_undone_for_a_service_port_it_lacks() {
    let sim = fleet(Vendor::Huawei, 24).await;
    let (port, serial, _) = sim
        .expected_unconfigured(1)
        .first()
        .cloned()
        .expect("an unconfigured ONU");
    let mut dialogue = huawei("0/9/9");
    dialogue.answers.splice(
        0..0,
        [
            Answer::new(
                "display ont-lineprofile gpon all$",
                fixture("huawei", "display-ont-lineprofile-gpon-all.txt"),
            ),
            Answer::new(
                "display ont-srvprofile gpon all$",
                fixture("huawei", "display-ont-srvprofile-gpon-all.txt"),
            ),
            Answer::new("ont add ", fixture("huawei", "ont-add.txt")),
            // What a real MA5600T answers `undo service-port` on an ONT without one.
            Answer::new(
                "undo service-port ",
                b"Failure: No service virtual port can be operated\r\n".to_vec(),
            ),
            Answer::new("service-port vlan ", Vec::new()),
        ],
    );
    let console = Console::start(dialogue, DEFAULT_SSH_PASSWORD).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = service(&sim, &console, &dir, None).await;
    let (status, profiles) = service.get("/olts/1/onu-profiles").await;
    assert_eq!(status, 200, "{profiles}");
    let ids: Vec<&str> = profiles["data"]
        .as_array()
        .expect("profiles")
        .iter()
        .filter_map(|p| p["id"].as_str())
        .collect();
    assert_eq!(ids, ["0", "429", "0", "1"], "{profiles}");
    let vlan = eventually("the OLT's VLANs", Duration::from_secs(20), || async {
        let (_, vlans) = service.get("/olts/1/vlans").await;
        vlans["data"][0]["vlanId"].as_u64()
    })
    .await;
    let body = serde_json::json!({
        "ponPort": port, "serial": serial, "lineProfile": "429", "serviceProfile": "1",
        "vlan": vlan,
    });
    let (_, answer) = service.post_json("/olts/1/onus/authorize", &body).await;
    let received = console.received();
    assert!(
        received.iter().any(|l| l.starts_with("ont add ")),
        "{received:?}"
    );
    assert!(
        received.iter().any(|l| l.starts_with("service-port vlan ")),
        "{received:?}"
    );
    assert!(
        !received.iter().any(|l| l.starts_with("ont delete")),
        "the registration was undone: {received:?}; {answer}"
    );
    service.stop().await;
    sim.shutdown().await;
}

/// A current configuration as an MA5600T prints it: the section headers and the
/// service ports of its ONTs. **Reconstructed** (no public capture of one was found):
/// the service-port line is the one the service writes and the ntc capture's
/// `display service-port all` lists.
fn current_configuration() -> String {
    let mut lines = vec![
        "[MA5600V800R013: 8216]".to_string(),
        "#".into(),
        "[global-config]".into(),
        "  <global-config>".into(),
        " sysname MA5680T-H01".into(),
        "#".into(),
        "[service-port]".into(),
        "  <service-port>".into(),
    ];
    for (n, ont) in (0..40).enumerate() {
        lines.push(format!(
            " service-port {n} vlan 100 gpon 0/1/{} ont {} gemport 1 multi-service \
             user-vlan 100 tag-transform translate",
            ont / 16,
            ont % 16
        ));
    }
    lines.extend(["#".into(), "return".into()]);
    let mut text = lines.join("\r\n");
    text.push_str("\r\n");
    text
}

/// Huawei's pager after every 20 lines, and after the key its erase: `ESC[37D`, 37
/// spaces, `ESC[37D` (docs/devices.md, "Dialogue").
fn huawei_paged(text: &str) -> Vec<u8> {
    const PAGER: &str = "---- More ( Press 'Q' to break ) ----";
    let erase = format!("\x1b[37D{}\x1b[37D", " ".repeat(37));
    let mut out = String::new();
    for (n, line) in text.split_inclusive("\r\n").enumerate() {
        if n > 0 && n % 20 == 0 {
            out.push_str(PAGER);
            out.push_str(&erase);
        }
        out.push_str(line);
    }
    out.into_bytes()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huawei_backup_through_its_pager_and_a_first_vlan_go_through() {
    let sim = fleet(Vendor::Huawei, 8).await;
    let config = current_configuration();
    let mut dialogue = huawei("0/9/9");
    dialogue.answers.splice(
        0..0,
        [
            // `scroll` refused: the pager stays on for the backup.
            Answer::new(
                "scroll$",
                b"% Unknown command, the error locates at '^'\r\n".to_vec(),
            ),
            Answer::paged(
                "display current-configuration$",
                &huawei_paged(&config),
                b"---- More ( Press 'Q' to break ) ----",
            ),
            Answer::new(
                "undo service-port ",
                b"Failure: No service virtual port can be operated\r\n".to_vec(),
            ),
            Answer::new("service-port vlan ", Vec::new()),
            Answer::new("ont modify ", Vec::new()),
        ],
    );
    let console = Console::start(dialogue, DEFAULT_SSH_PASSWORD).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = service(&sim, &console, &dir, None).await;
    same_lines(&backup(&service).await, &stored_form(&config));
    let (_, onus) = service.get("/onus?size=1").await;
    let onu = onus["data"][0]["id"].as_u64().expect("an ONU");
    for (path, body) in [
        ("vlan", serde_json::json!({"vlan": 100})),
        (
            "description",
            serde_json::json!({"description": "Ivanov kv 5"}),
        ),
    ] {
        let (status, answer) = service
            .post_json(&format!("/onus/{onu}/{path}"), &body)
            .await;
        assert_eq!(status, 200, "{path}: {answer}");
    }
    let received = console.received();
    assert!(
        received
            .iter()
            .any(|l| l.starts_with("service-port vlan 100 gpon ")),
        "the first VLAN was set after `undo service-port` found none: {received:?}"
    );
    assert!(
        received.iter().any(|l| l.ends_with("desc \"Ivanov kv 5\"")),
        "{received:?}"
    );
    service.stop().await;
    sim.shutdown().await;
}
