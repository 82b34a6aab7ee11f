//! A BDCOM P3310's command line as the public record shows it (issue 54), every action
//! and the backup against a replay console (`common::replay`), once with the pager
//! turned off and once with `terminal length 0` refused and the pager left on.
//!
//! No public capture of a BDCOM session's bytes was found (tests/fixtures/cli/README.md),
//! so the dialogue here is **reconstructed** from what the public sources do show
//! (tests/fixtures/cli/bdcom/dialogue.toml names each): the prompts `OLT>`, `OLT#`,
//! `OLT_config#` and `OLT_config_epon0/1#` as operators' notes transcribe them, the pager
//! ` --More-- ` at a line's start answered with a space and the `(y/n) [n]` question
//! answered `y` (NOC Project's BDCOM profile), `% Unknown command` for what the device
//! does not know. The running configuration is made of the lines those notes show a
//! BDCOM printing or taking. Alarm lines are printed at the idle prompt; no source shows
//! the shape of a BDCOM syslog line inside an output, so none is printed there.

use crate::common::replay::{Answer, Console, Dialogue};
use crate::common::{all_polled, eventually, test_config, TestService};
use ponkeeper_actors::domain::Vendor;
use ponkeeper_sim::{Dynamics, FleetSpec, FleetVendors, SimFleet, DEFAULT_SSH_PASSWORD};
use serde_json::{json, Value};
use std::time::Duration;

/// The configuration the replayed OLT prints: its PON interfaces with their bound ONUs
/// and each ONU's VLAN, in the lines the sources show (`epon bind-onu mac …`,
/// `epon onu port 1 ctc vlan mode tag …`, `switchport pvid …`).
fn running_config() -> String {
    let mut lines = vec![
        "!".to_string(),
        "hostname OLT".into(),
        "!".into(),
        "vlan 1,100-104".into(),
        "!".into(),
        "interface GigaEthernet0/3".into(),
        " switchport mode trunk".into(),
        " switchport trunk vlan 100-104".into(),
        "!".into(),
    ];
    for port in 1..=4 {
        lines.push(format!("interface EPON0/{port}"));
        lines.push(" switchport mode access".into());
        lines.push(format!(" switchport pvid {}", 100 + port));
        for onu in 1..=8 {
            lines.push(format!(
                " epon bind-onu mac d425.cc0{port}.{:04x} {onu}",
                0x1d00 + onu
            ));
        }
        lines.push("!".into());
        for onu in 1..=8 {
            lines.push(format!("interface EPON0/{port}:{onu}"));
            lines.push(format!(" epon onu port 1 ctc vlan mode tag {}", 100 + port));
            lines.push("!".into());
        }
    }
    lines.push("interface VLAN100".into());
    lines.push(" ip address 192.0.2.10 255.255.255.252".into());
    lines.push("!".into());
    lines.push("ip route default 192.0.2.9".into());
    lines.push("!".into());
    let mut text = lines.join("\r\n");
    text.push_str("\r\n");
    text
}

/// `text` as the device pages it: ` --More-- ` at the start of a line after every 24
/// lines, the next page going on on the same line after the key.
fn paged(text: &str) -> Vec<u8> {
    let mut out = String::new();
    for (n, line) in text.split_inclusive("\r\n").enumerate() {
        if n > 0 && n % 24 == 0 {
            out.push_str(" --More-- ");
        }
        out.push_str(line);
    }
    out.into_bytes()
}

/// The mode prompt of `interface EPON0/1[:N]`: `OLT_config_epon0/1[:N]#`.
fn interface_prompt(line: &str) -> String {
    let name = line.trim_start_matches("interface ").to_lowercase();
    format!("OLT_config_{name}#")
}

fn bdcom(pager_on: bool) -> Dialogue {
    let config = running_config();
    let show = match pager_on {
        true => Answer::paged("show running-config$", &paged(&config), b" --More-- "),
        false => Answer::new("show running-config$", config.into_bytes()),
    };
    let terminal_length = match pager_on {
        true => b"% Unknown command.\r\n".to_vec(),
        false => Vec::new(),
    };
    Dialogue {
        banner: b"\r\n".to_vec(),
        user_prompt: "OLT>".into(),
        privileged_prompt: "OLT#".into(),
        lands_privileged: false,
        enable_asks: None,
        enable_password: String::new(),
        unknown: "% Unknown command.\r\n".into(),
        answers: vec![
            Answer::new("terminal length 0$", terminal_length),
            Answer::new("terminal width 0$", Vec::new()),
            Answer::new("config$", Vec::new()).then_prompt("OLT_config#"),
            Answer::new("interface EPON", Vec::new()).then_prompt_of(interface_prompt),
            Answer::new("epon onu port 1 ctc vlan mode tag ", Vec::new()),
            Answer::new("description ", Vec::new()),
            Answer::new("epon bind-onu mac ", Vec::new()),
            Answer::new("no epon bind-onu sequence ", Vec::new()),
            // NOC Project's BDCOM profile answers `(y/n) [n]` with `y`; the words before
            // it are ours.
            Answer::new("epon reboot onu interface ", Vec::new())
                .confirming("Reboot the ONU? (y/n) [n]"),
            Answer::new("exit$", Vec::new()).then_prompt("OLT_config#"),
            Answer::new("end$", Vec::new()).then_prompt("OLT#"),
            show,
        ],
        idle_alarm: Some("Dec  2 14:31:07 %EPON-ONUDEREG: EPON0/3:5 deregistered".into()),
        output_alarm: None,
    }
}

async fn service(sim: &SimFleet, console: &Console, dir: &tempfile::TempDir) -> TestService {
    let mut inventory = sim.inventory();
    let ssh = inventory.olts[0].ssh.as_mut().expect("the OLT has ssh");
    ssh.port = console.port;
    let path = dir.path().join("inventory.toml");
    std::fs::write(&path, inventory.to_toml()).expect("inventory");
    std::env::set_var(ponkeeper_sim::SSH_PASSWORD_ENV, DEFAULT_SSH_PASSWORD);
    let mut config = test_config(dir.path().join("data"), path);
    config.polling.timeout = Duration::from_secs(2);
    config.polling.deadline = Duration::from_secs(20);
    let service = TestService::start_with(config, true).await;
    all_polled(&service).await;
    service
}

/// `lines` were received, in this order (other lines may come between).
fn received_in_order(received: &[String], lines: &[&str]) {
    let mut at = 0;
    for line in lines {
        match received[at..].iter().position(|r| r == line) {
            Some(n) => at += n + 1,
            None => panic!("`{line}` not received after line {at}: {received:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bdcom_takes_every_action_with_its_pager_off_or_left_on() {
    let sim = SimFleet::start(FleetSpec {
        dynamics: Dynamics::none(),
        vendors: FleetVendors::One(Vendor::Bdcom),
        ..FleetSpec::new(1, 8)
    })
    .await
    .expect("simulator starts");
    let want = running_config().replace('\r', "");
    for pager_on in [false, true] {
        let console = Console::start(bdcom(pager_on), DEFAULT_SSH_PASSWORD).await;
        let dir = tempfile::tempdir().expect("tempdir");
        let service = service(&sim, &console, &dir).await;
        // The backup is the device's configuration, line for line.
        let (status, body) = service.post("/olts/1/configs/backup").await;
        assert_eq!(status, 200, "pager on: {pager_on}: {body}");
        let id = body["data"]["id"].as_u64().expect("a config id");
        let (_, stored) = service.get(&format!("/olts/1/configs/{id}")).await;
        let stored = stored["data"]["content"].as_str().expect("content");
        for (n, (got, want)) in stored.lines().zip(want.lines()).enumerate() {
            assert_eq!(got, want, "pager on: {pager_on}: line {}", n + 1);
        }
        assert_eq!(stored.lines().count(), want.lines().count());
        // The three ONU actions.
        let (_, onus) = service.get("/onus?size=1").await;
        let onu = &onus["data"][0];
        let (id, port, index) = (
            onu["id"].as_u64().expect("id"),
            onu["ponPort"].as_str().expect("port").to_string(),
            onu["onuIndex"].as_u64().expect("index"),
        );
        for (path, body) in [
            (format!("/onus/{id}/vlan"), Some(json!({"vlan": 100}))),
            (
                format!("/onus/{id}/description"),
                Some(json!({"description": "Ivanov kv 5"})),
            ),
            (format!("/onus/{id}/reboot"), None),
        ] {
            let (status, answer) = match body {
                Some(body) => service.post_json(&path, &body).await,
                None => service.post(&path).await,
            };
            assert_eq!(status, 200, "pager on: {pager_on}: {path}: {answer}");
        }
        let interface = format!("interface EPON{port}:{index}");
        received_in_order(
            &console.received(),
            &[
                "enable",
                "config",
                &interface,
                "epon onu port 1 ctc vlan mode tag 100",
                "end",
                "config",
                &interface,
                "description Ivanov kv 5",
                "end",
                &format!("epon reboot onu interface EPON{port}:{index}"),
                "y",
            ],
        );
        // BDCOM names no profiles; its unbound ONUs are read over SNMP.
        let (status, profiles) = service.get("/olts/1/onu-profiles").await;
        assert_eq!(status, 200, "{profiles}");
        assert_eq!(profiles["data"], json!([]), "{profiles}");
        authorise_with_a_vlan(&sim, &service, &console).await;
        service.stop().await;
    }
    sim.shutdown().await;
}

/// Binds the first unbound ONU with a VLAN: the bind, then the VLAN in the ONU's own
/// interface, and nothing undone.
async fn authorise_with_a_vlan(sim: &SimFleet, service: &TestService, console: &Console) {
    let (port, serial, _) = sim
        .expected_unconfigured(1)
        .first()
        .cloned()
        .expect("an unbound ONU");
    let listed = eventually("the unbound ONUs", Duration::from_secs(20), || async {
        let (status, list) = service.get("/olts/1/unconfigured-onus").await;
        (status == 200 && list["data"].as_array().is_some_and(|l| !l.is_empty())).then_some(list)
    })
    .await;
    assert!(
        listed["data"]
            .as_array()
            .expect("rows")
            .iter()
            .any(|row| row["ponPort"] == Value::String(port.clone())),
        "{listed}"
    );
    let body = json!({"ponPort": port, "serial": serial, "vlan": 100});
    let (status, answer) = service.post_json("/olts/1/onus/authorize", &body).await;
    let received = console.received();
    // The replayed device takes every line, but its tables are the simulator's, which
    // the console does not change: the service sees no new ONU in the poll after and
    // says so, rather than taking the device's word.
    assert_eq!(status, 502, "{answer}; {received:?}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("accepted the authorisation, but its next poll shows no ONU"),
        "{answer}"
    );
    assert!(
        received.iter().any(|l| l.starts_with("epon bind-onu mac ")),
        "{received:?}"
    );
    assert!(
        !received.iter().any(|l| l.starts_with("no epon bind-onu")),
        "the bind was undone: {received:?}; {answer}"
    );
}
