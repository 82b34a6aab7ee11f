//! Actions over SSH, end to end: the real service on 127.0.0.1:0 drives a simulated
//! mixed fleet (Huawei, ZTE, BDCOM) over real SSH and polls it over real SNMP. What a
//! user checks: a rebooted ONU goes OFFLINE and comes back, a VLAN or description change
//! shows in the ONU and in the next backup's diff, refused input sends nothing to the
//! device, device failures map to 409/502/503/504, and every action and refusal is in
//! the audit log, kept across a restart. One test logs into the simulator with OpenSSH.

use crate::common;

use crate::common::{eventually, TestService};
use ponkeeper_sim::{Dynamics, FleetSpec, FleetVendors, SimFleet, DEFAULT_SSH_PASSWORD};
use serde_json::{json, Value};
use std::time::Duration;

async fn mixed_sim(reboot: Duration) -> SimFleet {
    SimFleet::start(FleetSpec {
        vendors: FleetVendors::Mixed,
        dynamics: Dynamics::none(),
        reboot_time: reboot,
        ..FleetSpec::new(3, 12)
    })
    .await
    .expect("simulator starts")
}

/// Waits until every OLT has its first (scheduled) backup, so the CLI is quiet after.
/// The backup task stores the configuration before the OLT actor reads the ONUs' VLANs
/// from it, so the wait goes on until an ONU shows a VLAN too.
async fn first_backups(service: &TestService) {
    for olt in 1..=3 {
        eventually(
            "the scheduled first backup",
            Duration::from_secs(20),
            || async {
                let (_, body) = service.get(&format!("/olts/{olt}/configs")).await;
                (body["meta"]["totalCount"].as_u64()? >= 1).then_some(())
            },
        )
        .await;
        eventually(
            "the VLANs of the first backup",
            Duration::from_secs(20),
            || async {
                let (_, body) = service.get(&format!("/olts/{olt}/onus?size=100")).await;
                let onus = body["data"].as_array()?;
                onus.iter().any(|o| o["vlan"].is_u64()).then_some(())
            },
        )
        .await;
    }
}

/// An ONLINE ONU of OLT `olt`, as the API shows it.
async fn online_onu(service: &TestService, olt: u32) -> Value {
    let (_, body) = service
        .get(&format!("/olts/{olt}/onus?status=ONLINE&size=1"))
        .await;
    body["data"][0].clone()
}

async fn onu(service: &TestService, id: u64) -> Value {
    service.get(&format!("/onus/{id}")).await.1["data"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rebooted_onu_goes_offline_and_comes_back_on_every_vendor() {
    let sim = mixed_sim(Duration::from_millis(2500)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().join("data")).await;
    common::all_polled(&service).await;
    for olt in 1..=3 {
        let id = online_onu(&service, olt).await["id"]
            .as_u64()
            .expect("an ONU");
        let (status, body) = service.post(&format!("/onus/{id}/reboot")).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["data"], json!({"onuId": id, "accepted": true}));
        let down = eventually(
            "OFFLINE after the reboot",
            Duration::from_secs(5),
            || async {
                let onu = onu(&service, id).await;
                (onu["status"] == "OFFLINE").then_some(onu)
            },
        )
        .await;
        // Huawei reports a reset as down cause 9; ZTE's phase and BDCOM's status cannot.
        let vendor = service.get(&format!("/olts/{olt}")).await.1["data"]["vendor"].clone();
        let cause = if vendor == "huawei" {
            "REBOOT"
        } else {
            "UNKNOWN"
        };
        assert_eq!(down["lastDownCause"], cause, "OLT {olt} ({vendor}): {down}");
        eventually("ONLINE again", Duration::from_secs(10), || async {
            (onu(&service, id).await["status"] == "ONLINE").then_some(())
        })
        .await;
    }
    service.stop().await;
}

fn changed_lines(diff: &str) -> Vec<&str> {
    diff.lines()
        .filter(|l| {
            (l.starts_with('-') && !l.starts_with("---"))
                || (l.starts_with('+') && !l.starts_with("+++"))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vlan_and_description_changes_show_in_the_onu_and_in_one_diff_line() {
    let sim = mixed_sim(Duration::from_secs(5)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().join("data")).await;
    common::all_polled(&service).await;
    first_backups(&service).await;
    for olt in 1..=3u32 {
        // Every ONU's VLAN comes from the running configuration.
        let (_, onus) = service.get(&format!("/olts/{olt}/onus?size=100")).await;
        for o in onus["data"].as_array().expect("ONUs") {
            let serial = o["serial"].as_str().expect("serial");
            assert_eq!(
                o["vlan"].as_u64(),
                sim.service_vlan(olt, serial).map(u64::from),
                "OLT {olt} ONU {serial}"
            );
        }
        let target = online_onu(&service, olt).await;
        let id = target["id"].as_u64().expect("id");
        let (_, versions) = service.get(&format!("/olts/{olt}/configs")).await;
        let first = versions["data"][0]["id"].as_u64().expect("first version");

        // Unchanged: the same version, changed false.
        let (status, again) = service.post(&format!("/olts/{olt}/configs/backup")).await;
        assert_eq!(status, 200, "{again}");
        assert_eq!(again["data"]["id"].as_u64(), Some(first));
        assert_eq!(again["data"]["changed"], false);

        let (status, body) = service
            .post_json(&format!("/onus/{id}/vlan"), &json!({"vlan": 200}))
            .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["data"]["vlan"], 200);
        assert_eq!(onu(&service, id).await["vlan"], 200);
        let serial = target["serial"].as_str().expect("serial");
        // The fleet-wide lists see it at once too: the OLT actor published the change
        // before it answered (read-your-writes), no poll in between.
        let (_, found) = service
            .get(&format!("/onus?oltId={olt}&serial={serial}"))
            .await;
        assert_eq!(found["meta"]["totalCount"], 1, "{found}");
        assert_eq!(found["data"][0]["vlan"], 200, "{found}");
        assert_eq!(sim.service_vlan(olt, serial), Some(200));

        let (status, backup) = service.post(&format!("/olts/{olt}/configs/backup")).await;
        assert_eq!(status, 200, "{backup}");
        assert_eq!(backup["data"]["changed"], true);
        let second = backup["data"]["id"].as_u64().expect("id");
        let (status, diff) = service
            .get(&format!("/olts/{olt}/configs/{second}/diff"))
            .await;
        assert_eq!(status, 200, "{diff}");
        assert_eq!(diff["data"]["from"].as_u64(), Some(first));
        let text = diff["data"]["diff"].as_str().expect("diff");
        let lines = changed_lines(text);
        assert_eq!(lines.len(), 2, "one line out, one in:\n{text}");
        assert!(lines[0].starts_with('-') && lines[1].starts_with('+') && lines[1].contains("200"));

        let description = format!("school 7, Baumana {olt}");
        let (status, body) = service
            .post_json(
                &format!("/onus/{id}/description"),
                &json!({"description": description}),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["data"]["description"], description.as_str());
        let (_, found) = service
            .get(&format!("/onus?oltId={olt}&q=baumana%20{olt}"))
            .await;
        assert_eq!(found["meta"]["totalCount"], 1, "{found}");
        assert_eq!(found["data"][0]["id"].as_u64(), Some(id), "{found}");
        assert_eq!(found["data"][0]["description"], description.as_str());
        // The device says so too: the next poll keeps it.
        service.post(&format!("/olts/{olt}/poll")).await;
        assert_eq!(onu(&service, id).await["description"], description.as_str());
        assert_eq!(
            onu(&service, id).await["vlan"],
            200,
            "the VLAN survives polls"
        );

        let (_, third) = service.post(&format!("/olts/{olt}/configs/backup")).await;
        let third_id = third["data"]["id"].as_u64().expect("id");
        let (_, detail) = service
            .get(&format!("/olts/{olt}/configs/{third_id}"))
            .await;
        assert!(detail["data"]["content"]
            .as_str()
            .expect("content")
            .contains(&description));
        let (_, diff) = service
            .get(&format!(
                "/olts/{olt}/configs/{third_id}/diff?against={second}"
            ))
            .await;
        assert_eq!(
            changed_lines(diff["data"]["diff"].as_str().expect("diff")).len(),
            2
        );
        let (_, list) = service.get(&format!("/olts/{olt}/configs")).await;
        assert_eq!(list["meta"]["totalCount"], 3);
        assert_eq!(
            list["data"][0]["id"].as_u64(),
            Some(third_id),
            "newest first"
        );
        for field in ["id", "oltId", "takenAt", "sizeBytes", "sha256", "changed"] {
            assert!(list["data"][0].get(field).is_some(), "{field}");
        }
    }
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_input_sends_nothing_to_the_device() {
    let sim = mixed_sim(Duration::from_secs(5)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().join("data")).await;
    common::all_polled(&service).await;
    first_backups(&service).await;
    let id = online_onu(&service, 1).await["id"].as_u64().expect("id");
    let before = sim.command_log(1);
    let cases: Vec<(&str, String, u16, &str)> = vec![
        (
            "description",
            json!({"description": "line\nshutdown"}).to_string(),
            400,
            "INVALID_PARAMETER",
        ),
        (
            "description",
            json!({"description": "a\"b"}).to_string(),
            400,
            "INVALID_PARAMETER",
        ),
        (
            "description",
            json!({"description": "x".repeat(65)}).to_string(),
            400,
            "INVALID_PARAMETER",
        ),
        (
            "vlan",
            json!({"vlan": 0}).to_string(),
            400,
            "INVALID_PARAMETER",
        ),
        (
            "vlan",
            json!({"vlan": 4095}).to_string(),
            400,
            "INVALID_PARAMETER",
        ),
        (
            "vlan",
            json!({"vlan": "100"}).to_string(),
            400,
            "INVALID_BODY",
        ),
        (
            "vlan",
            json!({"vlan": 100, "extra": 1}).to_string(),
            400,
            "INVALID_BODY",
        ),
        ("vlan", "{\"vlan\": ".to_string(), 400, "INVALID_BODY"),
        (
            "vlan",
            format!("{{\"vlan\": 100, \"pad\": \"{}\"}}", "x".repeat(70_000)),
            413,
            "PAYLOAD_TOO_LARGE",
        ),
    ];
    for (endpoint, body, status, code) in cases {
        let (got, answer) = service
            .post_body(&format!("/onus/{id}/{endpoint}"), body.clone())
            .await;
        assert_eq!(
            (got, answer["error"]["code"].as_str()),
            (status, Some(code)),
            "{body:.80}: {answer}"
        );
        assert_eq!(answer["success"], false);
        if code == "INVALID_PARAMETER" {
            let message = answer["error"]["message"].as_str().expect("message");
            assert!(message.contains(endpoint), "names the field: {message}");
        }
    }
    assert_eq!(sim.command_log(1), before, "nothing reached the CLI");
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn device_failures_map_to_409_503_504_and_an_unknown_vlan_to_400() {
    let sim = mixed_sim(Duration::from_secs(5)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().join("data")).await;
    common::all_polled(&service).await;
    first_backups(&service).await;
    let id = online_onu(&service, 1).await["id"].as_u64().expect("id");

    // A VLAN the OLT does not carry is the client's mistake, refused before the CLI
    // (the device would refuse it too): 400 naming `vlan`, not 502.
    let before = sim.command_log(1);
    let (status, body) = service
        .post_json(&format!("/onus/{id}/vlan"), &json!({"vlan": 555}))
        .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (400, Some("INVALID_PARAMETER"))
    );
    assert!(body["error"]["message"]
        .as_str()
        .expect("message")
        .contains("field `vlan`: VLAN 555 is not configured on OLT 1"));
    assert_eq!(sim.command_log(1), before, "nothing reached the CLI");

    // A hung CLI: the action times out (504); the same action meanwhile gets 409, and an
    // action on another OLT is not held up.
    sim.set_cli_silent(1, true);
    let path = "/olts/1/configs/backup".to_string();
    let hung = {
        let (base, key) = (service.base.clone(), service.full.clone());
        tokio::spawn(async move {
            let response = reqwest::Client::new()
                .post(format!("{base}{path}"))
                .header("X-API-Key", key)
                .send()
                .await
                .expect("request");
            let status = response.status().as_u16();
            (status, response.json::<Value>().await.expect("json"))
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (status, body) = service.post("/olts/1/configs/backup").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (409, Some("CONFLICT")),
        "{body}"
    );
    let started = std::time::Instant::now();
    let (status, _) = service.post("/olts/2/configs/backup").await;
    assert_eq!(status, 200);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "OLT 2 did not wait for OLT 1"
    );
    let (status, body) = hung.await.expect("task");
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (504, Some("DEVICE_TIMEOUT")),
        "{body}"
    );
    sim.set_cli_silent(1, false);
    let (status, _) = service.post("/olts/1/configs/backup").await;
    assert_eq!(status, 200, "a new session after the timeout");

    // An OLT that stops answering SNMP goes OFFLINE: 503.
    sim.set_silent(3, true);
    eventually("OLT 3 OFFLINE", Duration::from_secs(20), || async {
        (service.get("/olts/3").await.1["data"]["status"] == "OFFLINE").then_some(())
    })
    .await;
    let (status, body) = service.post("/olts/3/configs/backup").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (503, Some("DEVICE_UNAVAILABLE"))
    );

    // READ_ONLY keys may not act.
    let (status, body) = service
        .request(
            reqwest::Method::POST,
            &format!("/onus/{id}/reboot"),
            Some(&service.read_only),
        )
        .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (403, Some("FORBIDDEN"))
    );
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn actions_and_refusals_are_audited_and_survive_a_restart() {
    let sim = mixed_sim(Duration::from_secs(5)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let service = TestService::start(&sim, data.clone()).await;
    common::all_polled(&service).await;
    let id = online_onu(&service, 2).await["id"].as_u64().expect("id");
    let (status, _) = service
        .post_json(&format!("/onus/{id}/vlan"), &json!({"vlan": 300}))
        .await;
    assert_eq!(status, 200);
    let (status, _) = service
        .post_json(&format!("/onus/{id}/vlan"), &json!({"vlan": 4095}))
        .await;
    assert_eq!(status, 400);
    let (status, _) = service.request(reqwest::Method::GET, "/olts", None).await;
    assert_eq!(status, 401);
    let (status, _) = service
        .request(
            reqwest::Method::POST,
            "/olts/1/poll",
            Some(&service.read_only),
        )
        .await;
    assert_eq!(status, 403);
    let (status, _) = service
        .request(reqwest::Method::GET, "/olts", Some("pk_not_a_key"))
        .await;
    assert_eq!(status, 401);

    let check = |body: &Value| {
        let entries = body["data"].as_array().expect("entries").clone();
        let vlan: Vec<&Value> = entries
            .iter()
            .filter(|e| e["action"] == "onu.set_vlan")
            .collect();
        assert_eq!(vlan.len(), 2, "{body}");
        // Newest first: the refused 4095, then the applied 300.
        assert_eq!(vlan[0]["result"], "FAILURE");
        assert_eq!(vlan[0]["httpStatus"], 400);
        assert_eq!(vlan[0]["errorCode"], "INVALID_PARAMETER");
        assert_eq!(vlan[1]["result"], "SUCCESS");
        assert_eq!(vlan[1]["params"], json!({"vlan": 300}));
        for entry in &vlan {
            assert_eq!(entry["keyName"], "test-full");
            assert_eq!(entry["clientIp"], "127.0.0.1");
            assert_eq!(entry["target"], format!("onu:{id}"));
            assert_eq!(entry["method"], "POST");
            assert_eq!(entry["path"], format!("/api/v1/external/onus/{id}/vlan"));
            for field in ["id", "at", "durationMs"] {
                assert!(entry.get(field).is_some(), "{field}");
            }
        }
        let unauthorized: Vec<&Value> = entries.iter().filter(|e| e["httpStatus"] == 401).collect();
        assert_eq!(unauthorized.len(), 2);
        assert!(unauthorized
            .iter()
            .all(|e| e["keyName"].is_null() && e["errorCode"] == "UNAUTHORIZED"));
        let forbidden: Vec<&Value> = entries.iter().filter(|e| e["httpStatus"] == 403).collect();
        assert_eq!(forbidden.len(), 1);
        assert_eq!(forbidden[0]["keyName"], "test-read-only");
        assert_eq!(forbidden[0]["action"], "olt.poll");
        assert_eq!(forbidden[0]["errorCode"], "FORBIDDEN");
    };
    let (status, body) = service.get("/audit-logs?size=100").await;
    assert_eq!(status, 200, "{body}");
    check(&body);
    let (_, failures) = service
        .get("/audit-logs?result=FAILURE&keyName=test-full&action=onu.set_vlan")
        .await;
    assert_eq!(failures["meta"]["totalCount"], 1, "{failures}");

    service.stop().await;
    let service = TestService::start(&sim, data).await;
    let (_, body) = service.get("/audit-logs?size=100").await;
    check(&body);
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openssh_logs_into_the_simulator() {
    let test = "openssh_logs_into_the_simulator";
    if !common::tools::program(test, "sshpass") || !common::tools::program(test, "ssh") {
        return;
    }
    let sim = mixed_sim(Duration::from_secs(5)).await;
    let addr = sim.ssh_addr(1).expect("ssh");
    let script = "enable\nscroll\ndisplay current-configuration\nquit\ny\n";
    let output = tokio::process::Command::new("sshpass")
        .args(["-p", DEFAULT_SSH_PASSWORD, "ssh", "-T"])
        .args([
            "-o",
            "StrictHostKeyChecking=no",
            "-o",
            "UserKnownHostsFile=/dev/null",
        ])
        .args(["-o", "PubkeyAuthentication=no", "-o", "ConnectTimeout=5"])
        .args(["-p", &addr.port().to_string(), "ponkeeper@127.0.0.1"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let mut child = match output {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            panic!("sshpass not found: install it with `apt-get install -y sshpass openssh-client`")
        }
        Err(e) => panic!("cannot run sshpass: {e}"),
    };
    {
        use tokio::io::AsyncWriteExt;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(script.as_bytes()).await.expect("write");
    }
    let output = tokio::time::timeout(Duration::from_secs(20), child.wait_with_output())
        .await
        .expect("ssh finishes")
        .expect("ssh output");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("OLT-1>"), "{stdout}");
    assert!(stdout.contains("OLT-1#"), "{stdout}");
    let first = &sim.expected_onus(1)[0];
    assert!(
        stdout.contains(&format!("desc \"{}\"", first.description)),
        "{stdout}"
    );
    assert!(stdout.contains("Logged out"), "{stdout}");
    assert_eq!(
        sim.command_log(1),
        vec![
            "enable",
            "scroll",
            "display current-configuration",
            "quit",
            "y"
        ]
    );
}
