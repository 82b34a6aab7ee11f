//! SSH host keys end to end (docs/devices.md): the real service on 127.0.0.1:0 logs into the
//! simulator over real SSH. Without a pin the first login records the key (trust on
//! first use) and `GET /olts/{id}` shows it; when the simulated OLT's key changes, the
//! next login is refused before any command reaches the device, naming both
//! fingerprints; `POST /olts/{id}/ssh/trust-host-key` forgets the recorded key and the
//! next login records the new one. A key pinned in the inventory (an OpenSSH line or a
//! fingerprint) is enforced the same way and cannot be forgotten over the API. OpenSSH's
//! own `ssh-keyscan` and `ssh-keygen` agree with the fingerprints ponkeeper shows.

use crate::common;

use crate::common::{eventually, steady_sim, test_config, TestService};
use ponkeeper_sim::SimFleet;
use serde_json::Value;
use std::time::Duration;

/// Waits until OLT `olt`'s scheduled first backup is stored (its first SSH login done).
async fn first_backup(service: &TestService, olt: u32) {
    eventually(
        "the scheduled first backup",
        Duration::from_secs(20),
        || async {
            let (_, body) = service.get(&format!("/olts/{olt}/configs")).await;
            (body["meta"]["totalCount"].as_u64()? >= 1).then_some(())
        },
    )
    .await;
}

async fn host_key(service: &TestService, olt: u32) -> Value {
    let (status, body) = service.get(&format!("/olts/{olt}")).await;
    assert_eq!(status, 200, "{body}");
    body["data"]["sshHostKey"].clone()
}

fn error_of(body: &Value) -> (&str, &str) {
    (
        body["error"]["code"].as_str().unwrap_or_default(),
        body["error"]["message"].as_str().unwrap_or_default(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_host_key_is_refused_until_trusted_again() {
    let sim = steady_sim(1, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().join("data")).await;
    common::all_polled(&service).await;
    first_backup(&service, 1).await;

    // Trust on first use: the key the simulator showed is recorded and shown.
    let first = sim.host_key_fingerprint(1).expect("a key");
    let recorded = host_key(&service, 1).await;
    assert_eq!(recorded["fingerprint"], first.as_str(), "{recorded}");
    assert_eq!(recorded["source"], "TOFU");
    assert!(recorded["recordedAt"].is_string(), "{recorded}");

    // The device is re-keyed; the service's next login (after the session restarts)
    // is refused before the password or any command is sent.
    let second = sim.set_host_key_seed(1, [9; 32]).expect("re-keyed");
    assert_ne!(first, second);
    let (status, body) = service.post("/olts/1/restart-session").await;
    assert_eq!(status, 200, "{body}");
    let commands = sim.command_log(1).len();
    let (status, body) = service.post("/olts/1/configs/backup").await;
    assert_eq!(status, 503, "{body}");
    let (code, message) = error_of(&body);
    assert_eq!(code, "DEVICE_UNAVAILABLE");
    assert!(
        message.starts_with("OLT 1: the SSH host key of 127.0.0.1:"),
        "{message}"
    );
    assert!(
        message.contains(&format!(
            "changed: expected {first} (recorded on first use at "
        )),
        "{message}"
    );
    assert!(
        message.ends_with(&format!(
            "the device offered {second}; refused before logging in"
        )),
        "{message}"
    );
    assert_eq!(
        sim.command_log(1).len(),
        commands,
        "nothing reached the CLI"
    );
    assert_eq!(host_key(&service, 1).await, recorded, "the old key stays");

    // READ_ONLY keys may not forget it; FULL keys may, once.
    let (status, body) = service
        .request(
            reqwest::Method::POST,
            "/olts/1/ssh/trust-host-key",
            Some(&service.read_only),
        )
        .await;
    assert_eq!((status, error_of(&body).0), (403, "FORBIDDEN"), "{body}");
    let (status, body) = service.post("/olts/1/ssh/trust-host-key").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["oltId"], 1);
    assert_eq!(body["data"]["forgotten"], recorded);
    assert_eq!(host_key(&service, 1).await, Value::Null);
    let (status, body) = service.post("/olts/1/ssh/trust-host-key").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["forgotten"], Value::Null);
    let (status, body) = service.post("/olts/9/ssh/trust-host-key").await;
    assert_eq!((status, error_of(&body).0), (404, "NOT_FOUND"), "{body}");

    // The next login records the new key, and the action runs.
    let (status, body) = service.post("/olts/1/configs/backup").await;
    assert_eq!(status, 200, "{body}");
    assert!(sim.command_log(1).len() > commands);
    let now = host_key(&service, 1).await;
    assert_eq!(now["fingerprint"], second.as_str(), "{now}");
    assert_eq!(now["source"], "TOFU");

    // Both trust-host-key calls by the FULL key are in the audit log, the refused one too.
    let (_, body) = service
        .get("/audit-logs?action=olt.trust_host_key&size=100")
        .await;
    let entries = body["data"].as_array().expect("entries");
    let statuses: Vec<(u64, &str)> = entries
        .iter()
        .map(|e| {
            (
                e["httpStatus"].as_u64().unwrap_or_default(),
                e["target"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(statuses.len(), 4, "{body}");
    for expected in [(200, "olt:1"), (403, "olt:1"), (404, "olt:9")] {
        assert!(statuses.contains(&expected), "{expected:?} in {statuses:?}");
    }
    service.stop().await;
    sim.shutdown().await;
}

/// An inventory for `sim` whose OLT 1 pins its key by OpenSSH line and OLT 2 by
/// fingerprint.
fn pinned_inventory(sim: &SimFleet) -> String {
    let mut inventory = sim.inventory();
    let line = sim.host_key_line(1).expect("a key");
    let fingerprint = sim.host_key_fingerprint(2).expect("a key");
    for (olt, pin) in inventory.olts.iter_mut().zip([line, fingerprint]) {
        let ssh = olt.ssh.as_mut().expect("the simulator's inventory has ssh");
        ssh.host_key = Some(pin.try_into().expect("a valid pin"));
    }
    inventory.to_toml()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pinned_host_key_is_enforced_and_not_forgotten() {
    let sim = steady_sim(2, 4).await;
    let fleet_key = sim.host_key_fingerprint(1).expect("a key");
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).expect("data dir");
    let inventory = data.join("inventory.toml");
    std::fs::write(&inventory, pinned_inventory(&sim)).expect("inventory");
    // OLT 2 shows another key than its pin before the service ever logs in.
    let other = sim.set_host_key_seed(2, [3; 32]).expect("re-keyed");
    std::env::set_var(
        ponkeeper_sim::SSH_PASSWORD_ENV,
        ponkeeper_sim::DEFAULT_SSH_PASSWORD,
    );
    let service = TestService::start_with(test_config(data, inventory), true).await;
    common::all_polled(&service).await;

    first_backup(&service, 1).await;
    let pinned = host_key(&service, 1).await;
    assert_eq!(
        pinned,
        serde_json::json!({"fingerprint": fleet_key, "source": "PINNED", "recordedAt": null})
    );

    let (status, body) = eventually(
        "OLT 2's scheduled backup out of the way",
        Duration::from_secs(10),
        || async {
            let (status, body) = service.post("/olts/2/configs/backup").await;
            (status != 409).then_some((status, body))
        },
    )
    .await;
    assert_eq!(status, 503, "{body}");
    let message = error_of(&body).1;
    assert!(
        message.contains(&format!(
            "changed: expected {fleet_key} (pinned by ssh.host_key in the inventory), \
             the device offered {other}; refused before logging in"
        )),
        "{message}"
    );
    assert_eq!(sim.command_log(2), Vec::<String>::new(), "never logged in");

    let (status, body) = service.post("/olts/2/ssh/trust-host-key").await;
    assert_eq!((status, error_of(&body).0), (409, "CONFLICT"), "{body}");
    assert_eq!(
        host_key(&service, 2).await["fingerprint"],
        fleet_key.as_str(),
        "still the pin"
    );
    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openssh_agrees_with_the_fingerprints() {
    let test = "openssh_agrees_with_the_fingerprints";
    if !common::tools::program(test, "ssh-keyscan") || !common::tools::program(test, "ssh-keygen") {
        return;
    }
    let sim = steady_sim(1, 1).await;
    let expected = sim.set_host_key_seed(1, [5; 32]).expect("re-keyed");
    let addr = sim.ssh_addr(1).expect("ssh");
    let scan = tokio::process::Command::new("ssh-keyscan")
        .args(["-t", "ed25519", "-T", "5", "-p", &addr.port().to_string()])
        .arg("127.0.0.1")
        .output()
        .await
        .expect("ssh-keyscan runs");
    let scanned = String::from_utf8_lossy(&scan.stdout).to_string();
    // `[127.0.0.1]:PORT ssh-ed25519 AAAA…`: the key is the line without the host.
    let line = scanned
        .lines()
        .find(|l| l.contains("ssh-ed25519"))
        .and_then(|l| l.split_once(' '))
        .map(|(_, key)| key.trim().to_string())
        .unwrap_or_else(|| panic!("no key scanned: {scanned}"));
    assert_eq!(line, sim.host_key_line(1).expect("a key"));
    let file = tempfile::NamedTempFile::new().expect("temp file");
    std::fs::write(file.path(), format!("{line}\n")).expect("key file");
    let print = std::process::Command::new("ssh-keygen")
        .arg("-lf")
        .arg(file.path())
        .output()
        .expect("ssh-keygen runs");
    let printed = String::from_utf8_lossy(&print.stdout).to_string();
    // `256 SHA256:… no comment (ED25519)`
    assert_eq!(
        printed.split_whitespace().nth(1),
        Some(expected.as_str()),
        "{printed}"
    );
    sim.shutdown().await;
}
