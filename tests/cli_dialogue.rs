//! The command line as real OLTs speak it (issue 54): the service polls the simulator
//! over SNMP while its OLT's SSH goes to a replay console (`common::replay`) that answers
//! with public captures (`tests/fixtures/cli/`, sources in its README): a ZTE C3xx whose
//! `enable` asks a password, and one whose account lands privileged; a V-SOL V1600G
//! whose host name holds `|`, whose `enable` asks the login password and whose pager
//! `terminal length 0` does not turn off, with its syslog lines between pages (the
//! Huawei's dialogue is in `cli_dialogue_huawei`, the BDCOM's in `cli_dialogue_bdcom`).
//! Alarm lines are printed at the idle prompt and in the middle of outputs throughout.

use crate::common::replay::{fixture, Answer, Console, Dialogue};
use crate::common::{all_polled, test_config, TestService};
use ponkeeper_actors::domain::Vendor;
use ponkeeper_sim::{Dynamics, FleetSpec, FleetVendors, SimFleet, DEFAULT_SSH_PASSWORD};
use std::time::Duration;

pub(crate) async fn fleet(vendor: Vendor, onus: usize) -> SimFleet {
    SimFleet::start(FleetSpec {
        dynamics: Dynamics::none(),
        vendors: FleetVendors::One(vendor),
        ..FleetSpec::new(1, onus)
    })
    .await
    .expect("simulator starts")
}

/// The service on `sim`'s OLT, its SSH sent to `console`, with `enable_env` naming the
/// variable of its enable password.
pub(crate) async fn service(
    sim: &SimFleet,
    console: &Console,
    dir: &tempfile::TempDir,
    enable_env: Option<&str>,
) -> TestService {
    service_on(sim, 0, console, dir, enable_env).await
}

/// [`service`] with the SSH of `sim`'s OLT `olt` (from 0) sent to `console`.
async fn service_on(
    sim: &SimFleet,
    olt: usize,
    console: &Console,
    dir: &tempfile::TempDir,
    enable_env: Option<&str>,
) -> TestService {
    let mut inventory = sim.inventory();
    let ssh = inventory.olts[olt].ssh.as_mut().expect("the OLT has ssh");
    ssh.port = console.port;
    ssh.enable_password_env = enable_env.map(str::to_string);
    let path = dir.path().join("inventory.toml");
    std::fs::write(&path, inventory.to_toml()).expect("inventory");
    std::env::set_var(ponkeeper_sim::SSH_PASSWORD_ENV, DEFAULT_SSH_PASSWORD);
    let mut config = test_config(dir.path().join("data"), path);
    config.polling.timeout = Duration::from_secs(2);
    config.polling.deadline = Duration::from_secs(20);
    config.polling.macs_interval = Duration::from_secs(2);
    let service = TestService::start_with(config, true).await;
    all_polled(&service).await;
    service
}

/// The bytes of a capture after its first line (the device's echo of the command,
/// which the console makes itself).
fn after_echo(vendor: &str, file: &str) -> Vec<u8> {
    let bytes = fixture(vendor, file);
    let start = bytes.iter().position(|&b| b == b'\n').map_or(0, |n| n + 1);
    bytes[start..].to_vec()
}

/// An alarm line, printed unasked at the idle prompt. No public ZTE capture shows one,
/// so its shape is not known and one printed in the middle of an output cannot be told
/// from the output: only the idle case is replayed here (the echo tells it apart). The
/// V-SOL's lines are its capture's own, in the middle of its output too.
const ALARM: &str = "[alarm] GPON ONU gpon-onu_1/1/1:3 LOS raised";

/// The ZTE of the captures; the account that lands privileged also has its pager left
/// on (`terminal length 0` refused), `--More--` after every 6 lines and no erase seen
/// (none is captured).
fn zte(enable_password: Option<&str>, lands_privileged: bool) -> Dialogue {
    let config = fixture("zte", "show-running-config-interface-gpon-onu.txt");
    let (terminal_length, show) = match lands_privileged {
        false => (
            Answer::new("terminal length 0$", Vec::new()),
            Answer::new("show running-config$", config),
        ),
        true => {
            let text = String::from_utf8(config).expect("text");
            let mut paged = String::new();
            for (n, line) in text.split_inclusive('\n').enumerate() {
                if n > 0 && n % 6 == 0 {
                    paged.push_str("--More--");
                }
                paged.push_str(line);
            }
            (
                Answer::new(
                    "terminal length 0$",
                    b"% Invalid input detected.\r\n".to_vec(),
                ),
                Answer::paged("show running-config$", paged.as_bytes(), b"--More--"),
            )
        }
    };
    Dialogue {
        banner: b"\r\n".to_vec(),
        user_prompt: "merch-gpon>".into(),
        privileged_prompt: "merch-gpon#".into(),
        lands_privileged,
        enable_asks: enable_password.map(|_| "Password:".to_string()),
        enable_password: enable_password.unwrap_or_default().into(),
        unknown: String::from_utf8(after_echo("zte", "error-invalid-input.txt")).expect("text"),
        answers: vec![
            terminal_length,
            Answer::new("configure terminal$", Vec::new()).then_prompt("merch-gpon(config)#"),
            Answer::new("pon-onu-mng gpon-onu_", Vec::new())
                .then_prompt("merch-gpon(gpon-onu-mng)#"),
            Answer::new("interface gpon-onu_", Vec::new()).then_prompt("merch-gpon(config-if)#"),
            Answer::new("reboot$", Vec::new()),
            Answer::new("no service-port 1$", Vec::new()),
            Answer::new("service-port 1 vport 1 user-vlan", Vec::new()),
            Answer::new("description ", Vec::new()),
            Answer::new("end$", Vec::new()).then_prompt("merch-gpon#"),
            show,
            Answer::new(
                "show mac gpon onu gpon-onu_1/1/1:1$",
                fixture("zte", "show-mac-gpon-onu.txt"),
            ),
        ],
        idle_alarm: Some(ALARM.into()),
        output_alarm: None,
    }
}

/// The configuration as the service stores it: each line without trailing blanks.
pub(crate) fn stored_form(text: &str) -> String {
    let mut stored: String = text
        .replace('\r', "")
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n");
    stored.push('\n');
    stored
}

/// `stored` is `want`, or the first line where they part is named.
pub(crate) fn same_lines(stored: &str, want: &str) {
    for (n, (got, want)) in stored.lines().zip(want.lines()).enumerate() {
        assert_eq!(got, want, "line {}", n + 1);
    }
    assert_eq!(stored.lines().count(), want.lines().count(), "lines");
    assert_eq!(stored, want);
}

/// Takes a backup of OLT 1 and answers the content stored.
pub(crate) async fn backup(service: &TestService) -> String {
    let (status, body) = service.post("/olts/1/configs/backup").await;
    assert_eq!(status, 200, "{body}");
    let id = body["data"]["id"].as_u64().expect("a config id");
    let (status, config) = service.get(&format!("/olts/1/configs/{id}")).await;
    assert_eq!(status, 200, "{config}");
    config["data"]["content"]
        .as_str()
        .expect("content")
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_zte_with_an_enable_password_or_landing_privileged_takes_every_action() {
    let sim = fleet(Vendor::Zte, 8).await;
    let want = stored_form(
        &String::from_utf8(fixture("zte", "show-running-config-interface-gpon-onu.txt"))
            .expect("text"),
    );
    for (enable, lands_privileged) in [(Some("zte-enable-9"), false), (None, true)] {
        std::env::set_var("CLI_DIALOGUE_ZTE_ENABLE", enable.unwrap_or("unused"));
        let console = Console::start(zte(enable, lands_privileged), DEFAULT_SSH_PASSWORD).await;
        let dir = tempfile::tempdir().expect("tempdir");
        let env = enable.map(|_| "CLI_DIALOGUE_ZTE_ENABLE");
        let service = service(&sim, &console, &dir, env).await;
        same_lines(&backup(&service).await, &want);
        let (_, onus) = service.get("/onus?size=1").await;
        let onu = onus["data"][0]["id"].as_u64().expect("an ONU");
        for (path, body) in [
            (format!("/onus/{onu}/reboot"), None),
            (
                format!("/onus/{onu}/vlan"),
                Some(serde_json::json!({"vlan": 100})),
            ),
            (
                format!("/onus/{onu}/description"),
                Some(serde_json::json!({"description": "Ivanov kv 5"})),
            ),
        ] {
            let (status, answer) = match body {
                Some(body) => service.post_json(&path, &body).await,
                None => service.post(&path).await,
            };
            assert_eq!(status, 200, "{path}: {answer}");
        }
        // Unconfigured ONUs are read over SNMP (the simulator's table), never the CLI.
        let (status, list) = service.get("/olts/1/unconfigured-onus").await;
        assert_eq!(status, 200, "{list}");
        let serials: Vec<&str> = list["data"]
            .as_array()
            .expect("a list")
            .iter()
            .filter_map(|row| row["serial"].as_str())
            .collect();
        let want: Vec<String> = sim
            .expected_unconfigured(1)
            .into_iter()
            .map(|u| u.1)
            .collect();
        assert_eq!(serials, want, "{list}");
        zte_macs_of_the_captured_onu(&service).await;
        let received = console.received();
        assert_eq!(
            received.contains(&"enable".to_string()),
            !lands_privileged,
            "{received:?}"
        );
        if let Some(password) = enable {
            assert!(received.iter().any(|l| l == password), "{received:?}");
        }
        service.stop().await;
    }
    sim.shutdown().await;
}

/// A MAC refresh of the ONU the capture read (`gpon-onu_1/1/1:1`) gives its row.
async fn zte_macs_of_the_captured_onu(service: &TestService) {
    let (_, page) = service.get("/onus?ponPort=1/1/1&size=100").await;
    let onu = page["data"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|row| row["onuIndex"] == 1)
        .unwrap_or_else(|| panic!("the simulator's gpon-onu_1/1/1:1 in {page}"))["id"]
        .as_u64()
        .expect("id");
    let (status, body) = service.post(&format!("/onus/{onu}/macs/refresh")).await;
    assert_eq!(status, 200, "{body}");
    let (_, macs) = service.get(&format!("/onus/{onu}/macs")).await;
    let items = macs["data"]["items"].as_array().expect("items");
    assert_eq!(items.len(), 1, "{macs}");
    assert_eq!(items[0]["mac"], "8c:dc:02:94:a5:cd", "{macs}");
    assert_eq!(items[0]["vlan"], 88, "{macs}");
}

/// The V-SOL V1600G of oxidized's recorded session.
fn vsol() -> Dialogue {
    let config = after_echo("vsol", "show-running-config.txt");
    Dialogue {
        banner: fixture("vsol", "login.txt"),
        user_prompt: "RT_01|192.0.2.4-Site_OLT> ".into(),
        privileged_prompt: "RT_01|192.0.2.4-Site_OLT# ".into(),
        lands_privileged: false,
        enable_asks: Some("Password: ".into()),
        enable_password: String::new(),
        unknown: "\r\n% Unknown command.\r\n".into(),
        answers: vec![
            // The pager stays on: the command is refused, and nothing else turns it off.
            Answer::new("terminal length 0$", b"% Unknown command.\r\n".to_vec()),
            Answer::paged("show running-config$", &config, b" --More-- \x00"),
            // The capture's `configure terminal` and `end`; the PON interface's prompt is
            // the one the service expects (no capture enters it), recognised by shape.
            Answer::new("configure terminal$", Vec::new())
                .then_prompt("RT_01|192.0.2.4-Site_OLT(config)# "),
            Answer::new("interface gpon ", Vec::new()).then_prompt_of(|line| {
                let pon = line.trim_start_matches("interface gpon ");
                format!("RT_01|192.0.2.4-Site_OLT(config-pon-{pon})# ")
            }),
            Answer::new("onu ", Vec::new()),
            Answer::new("end$", Vec::new()).then_prompt("RT_01|192.0.2.4-Site_OLT# "),
        ],
        idle_alarm: Some(
            "2026/05/25 18:52:26   ONU Online                   PON 0/2 ONU 40 sn SNREMOVED "
                .into(),
        ),
        output_alarm: None,
    }
}

/// The device's configuration in a capture: its bytes without the pagers, their
/// erases and the syslog lines the device printed among them.
fn vsol_configuration() -> String {
    let raw = after_echo("vsol", "show-running-config.txt");
    let erase = [&[8u8; 10][..], &[b' '; 10], &[8u8; 10]].concat();
    let mut text = String::from_utf8_lossy(&raw).replace(" --More-- \0", "");
    text = text.replace(std::str::from_utf8(&erase).expect("ascii"), "");
    let alarms: Vec<&str> = text
        .split("\r\n")
        .filter(|l| l.starts_with("2026/05/25 "))
        .collect();
    let mut kept = text.clone();
    for alarm in alarms {
        kept = kept.replacen(&format!("\r\n{alarm}\r\n"), "", 1);
    }
    stored_form(&kept)
}

/// The V1600G of a fleet of every layout (`FleetVendors::EveryFamily`, from 0).
const VSOL_GPON: usize = 7;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vsol_backup_through_its_pager_is_the_devices_configuration() {
    let sim = SimFleet::start(FleetSpec {
        dynamics: Dynamics::none(),
        vendors: FleetVendors::EveryFamily,
        ..FleetSpec::new(VSOL_GPON + 1, 4)
    })
    .await
    .expect("simulator starts");
    let family = FleetVendors::EveryFamily.family_of_olt(VSOL_GPON);
    assert!(family.starts_with("V1600G"), "{family}");
    let console = Console::start(vsol(), DEFAULT_SSH_PASSWORD).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = service_on(&sim, VSOL_GPON, &console, &dir, None).await;
    let olt = VSOL_GPON + 1;
    let (status, body) = service.post(&format!("/olts/{olt}/configs/backup")).await;
    assert_eq!(status, 200, "{body}");
    let id = body["data"]["id"].as_u64().expect("a config id");
    let (_, config) = service.get(&format!("/olts/{olt}/configs/{id}")).await;
    let stored = config["data"]["content"].as_str().expect("content");
    same_lines(stored, &vsol_configuration());
    let received = console.received();
    assert!(
        received.iter().any(|l| l == DEFAULT_SSH_PASSWORD),
        "`enable` was given the login password: {received:?}"
    );
    // A description goes through; reboot and VLAN have no public source (501).
    let (_, onus) = service.get(&format!("/onus?oltId={olt}&size=1")).await;
    let onu = &onus["data"][0];
    let id = onu["id"].as_u64().expect("an ONU");
    let body = serde_json::json!({"description": "Ivanov kv 5"});
    let (status, answer) = service
        .post_json(&format!("/onus/{id}/description"), &body)
        .await;
    assert_eq!(status, 200, "{answer}");
    let line = format!("onu {} desc Ivanov kv 5", onu["onuIndex"]);
    assert!(
        console.received().contains(&line),
        "{:?}",
        console.received()
    );
    for (path, body) in [
        ("reboot", None),
        ("vlan", Some(serde_json::json!({"vlan": 100}))),
    ] {
        let path = format!("/onus/{id}/{path}");
        let (status, answer) = match body {
            Some(body) => service.post_json(&path, &body).await,
            None => service.post(&path).await,
        };
        assert_eq!(status, 501, "{path}: {answer}");
    }
    service.stop().await;
    sim.shutdown().await;
}
