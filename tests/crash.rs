//! The real `ponkeeper serve` binary, stopped the two ways an operator's machine stops it.
//! SIGKILL (no shutdown, no final flush): the store, reopened, holds every answered
//! request's audit entry, the config backup it acknowledged and the key changes made
//! while it ran. SIGTERM with a CLI action hung on a silent device: the action is
//! cancelled with a clear 503 envelope, the process exits 0 within a few seconds, and the
//! store opens again with the cancelled request audited. SIGHUP with a broken inventory:
//! the old one stays and the log says why; a good one is applied.

use crate::common;

use ponkeeper::records::{AuditFilter, Records};
use ponkeeper_actors::store::Store;
use ponkeeper_sim::{
    Dynamics, FleetSpec, FleetVendors, SimFleet, DEFAULT_SSH_PASSWORD, SSH_PASSWORD_ENV,
};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

const BINARY: &str = env!("CARGO_BIN_EXE_ponkeeper");

/// `ponkeeper serve` as a child process on a simulated fleet, with a FULL key.
struct ServeProcess {
    child: tokio::process::Child,
    config: PathBuf,
    data: PathBuf,
    inventory: PathBuf,
    /// The service's stderr (its log).
    log: PathBuf,
    base: String,
    key: String,
    client: reqwest::Client,
    _dir: tempfile::TempDir,
}

impl ServeProcess {
    /// Starts it with `deadline` as the poll and CLI deadline.
    async fn start(sim: &SimFleet, deadline: &str) -> ServeProcess {
        let dir = tempfile::tempdir().expect("tempdir");
        let data = dir.path().join("data");
        let inventory = dir.path().join("inventory.toml");
        std::fs::write(&inventory, sim.inventory().to_toml()).expect("inventory");
        let port = crate::common::ports::one();
        let config = dir.path().join("ponkeeper.toml");
        std::fs::write(
            &config,
            format!(
                "listen = \"127.0.0.1:{port}\"\ndata_dir = {:?}\ninventory = {:?}\n\n\
                 [polling]\ninterval = \"500ms\"\ntimeout = \"300ms\"\nretries = 0\n\
                 deadline = \"{deadline}\"\n",
                data.display().to_string(),
                inventory.display().to_string()
            ),
        )
        .expect("config");
        let key = keys_command(&config, &["create", "--name", "ops", "--level", "FULL"]).await;
        let log = dir.path().join("serve.log");
        let child = tokio::process::Command::new(BINARY)
            .args(["serve", "--config"])
            .arg(&config)
            .env(SSH_PASSWORD_ENV, DEFAULT_SSH_PASSWORD)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("log file"))
            .kill_on_drop(true)
            .spawn()
            .expect("serve starts");
        ServeProcess {
            child,
            config,
            data,
            inventory,
            log,
            base: format!("http://127.0.0.1:{port}/api/v1/external"),
            key,
            client: reqwest::Client::new(),
            _dir: dir,
        }
    }

    async fn signal(&self, name: &str) {
        let pid = self.child.id().expect("running");
        let kill = tokio::process::Command::new("kill")
            .args([format!("-{name}"), pid.to_string()])
            .status()
            .await
            .expect("kill");
        assert!(kill.success());
    }

    /// The ids of the OLTs `GET /olts` lists.
    async fn olt_ids(&self) -> Vec<u64> {
        let body: Value = self
            .request(reqwest::Method::GET, "/olts")
            .send()
            .await
            .expect("answered")
            .json()
            .await
            .expect("json");
        body["data"]
            .as_array()
            .expect("items")
            .iter()
            .filter_map(|o| o["id"].as_u64())
            .collect()
    }

    fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.client
            .request(method, format!("{}{path}", self.base))
            .header("X-API-Key", &self.key)
    }

    /// The id of an ONLINE ONU of OLT `olt`, once the service has polled it.
    async fn online_onu(&self, olt: u32) -> u64 {
        common::eventually("the service polled", Duration::from_secs(30), || async {
            let response = self
                .request(
                    reqwest::Method::GET,
                    &format!("/olts/{olt}/onus?status=ONLINE&size=1"),
                )
                .send()
                .await
                .ok()?;
            let body: Value = response.json().await.ok()?;
            body["data"][0]["id"].as_u64()
        })
        .await
    }
}

/// Runs `ponkeeper keys ARGS` and returns its stdout (a new key, for `create`).
async fn keys_command(config: &Path, args: &[&str]) -> String {
    let output = tokio::process::Command::new(BINARY)
        .args(["keys", "--config"])
        .arg(config)
        .args(args)
        .output()
        .await
        .expect("keys command");
    assert!(
        output.status.success(),
        "keys {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

/// Opens the store a stopped process left, retrying while the OS releases its lock.
async fn reopen(data: &Path) -> Store {
    let mut store = Store::open(data);
    for _ in 0..50 {
        if store.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        store = Store::open(data);
    }
    store.expect("reopen the stopped service's store")
}

async fn mixed_fleet() -> SimFleet {
    SimFleet::start(FleetSpec {
        vendors: FleetVendors::Mixed,
        dynamics: Dynamics::none(),
        ..FleetSpec::new(2, 8)
    })
    .await
    .expect("simulator")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_keeps_every_acknowledged_audit_entry_backup_and_key_change() {
    let sim = mixed_fleet().await;
    let mut service = ServeProcess::start(&sim, "3s").await;
    let onu_id = service.online_onu(1).await;

    let mut acknowledged = Vec::new();
    for (vlan, expected) in [(200, 200), (0, 400), (300, 200)] {
        let response = service
            .request(reqwest::Method::POST, &format!("/onus/{onu_id}/vlan"))
            .json(&json!({ "vlan": vlan }))
            .send()
            .await
            .expect("answered");
        assert_eq!(response.status().as_u16(), expected);
        acknowledged.push(expected);
    }
    let response = service
        .client
        .get(format!("{}/olts", service.base))
        .header("X-API-Key", "pk_wrong")
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status().as_u16(), 401);
    acknowledged.push(401);

    // A config backup the service acknowledged, and key changes made through the admin
    // socket of the running service.
    let response = service
        .request(reqwest::Method::POST, "/olts/2/configs/backup")
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status().as_u16(), 200);
    let backup: Value = response.json().await.expect("json");
    let backup_id = backup["data"]["id"].as_u64().expect("backup id");
    keys_command(
        &service.config,
        &["create", "--name", "billing", "--level", "READ_ONLY"],
    )
    .await;
    keys_command(
        &service.config,
        &["create", "--name", "temporary", "--level", "FULL"],
    )
    .await;
    keys_command(&service.config, &["revoke", "temporary"]).await;

    // Load at the moment of the kill: two clients changing descriptions back to back,
    // each remembering the ones the service acknowledged.
    let mut loaders = Vec::new();
    for client_no in 0..2 {
        let request = service.request(
            reqwest::Method::POST,
            &format!("/onus/{onu_id}/description"),
        );
        loaders.push(tokio::spawn(async move {
            let mut acknowledged = Vec::new();
            for n in 0.. {
                let description = format!("load {client_no}-{n}");
                let Some(attempt) = request.try_clone() else {
                    break;
                };
                match attempt
                    .json(&json!({ "description": description }))
                    .send()
                    .await
                {
                    Ok(response) if response.status().is_success() => {
                        acknowledged.push(description)
                    }
                    Ok(_) => {}
                    Err(_) => break, // the service is gone
                }
            }
            acknowledged
        }));
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    service.child.start_kill().expect("SIGKILL");
    service.child.wait().await.expect("killed");
    let mut under_load = Vec::new();
    for loader in loaders {
        under_load.extend(loader.await.expect("loader"));
    }
    assert!(
        under_load.len() >= 2,
        "the load made progress: {under_load:?}"
    );

    let store = reopen(&service.data).await;
    let records = Records::open(&store).expect("records");
    let (total, entries) = records
        .audit_entries(&AuditFilter::default(), 0, 10_000)
        .expect("audit");
    let recorded: std::collections::HashSet<String> = entries
        .iter()
        .filter(|e| e.action == "onu.set_description" && e.http_status == 200)
        .filter_map(|e| {
            e.params.as_ref()?["description"]
                .as_str()
                .map(str::to_string)
        })
        .collect();
    for description in &under_load {
        assert!(
            recorded.contains(description),
            "acknowledged under load but not audited: {description}"
        );
    }
    let entries: Vec<_> = entries
        .into_iter()
        .filter(|e| e.action != "onu.set_description")
        .collect();
    let statuses: Vec<u16> = entries.iter().rev().map(|e| e.http_status).collect();
    assert!(total >= 5, "{statuses:?}");
    // Oldest first, the answered requests in the order they were answered.
    let ours: Vec<u16> = entries
        .iter()
        .rev()
        .filter(|e| e.action != "olt.config_backup")
        .map(|e| e.http_status)
        .filter(|s| [200, 400, 401].contains(s))
        .collect();
    assert_eq!(ours, acknowledged, "{statuses:?}");
    let applied: Vec<&Value> = entries
        .iter()
        .filter(|e| e.action == "onu.set_vlan" && e.http_status == 200)
        .filter_map(|e| e.params.as_ref())
        .collect();
    assert_eq!(applied, vec![&json!({"vlan": 300}), &json!({"vlan": 200})]);

    let latest = store.latest_config(2).expect("configs").expect("a backup");
    assert_eq!(latest.id, backup_id);
    let mut names: Vec<String> = records
        .api_keys()
        .expect("keys")
        .into_iter()
        .map(|k| k.name)
        .collect();
    names.sort();
    assert_eq!(names, ["billing", "ops"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_cancels_a_hung_action_with_a_clear_error_and_exits_zero() {
    let sim = mixed_fleet().await;
    // A long deadline: the action would hang for 20 s if the shutdown did not cancel it.
    let mut service = ServeProcess::start(&sim, "20s").await;
    let onu_id = service.online_onu(1).await;
    sim.set_cli_silent(1, true);

    let hung = service
        .request(reqwest::Method::POST, &format!("/onus/{onu_id}/reboot"))
        .send();
    let hung = tokio::spawn(async move {
        let response = hung.await.expect("the hung request is answered");
        let status = response.status().as_u16();
        (status, response.json::<Value>().await.expect("an envelope"))
    });
    // Let the request reach the actor and the CLI task start.
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert!(!hung.is_finished(), "the silent CLI answered");

    let signalled = Instant::now();
    service.signal("TERM").await;

    let (status, body) = tokio::time::timeout(Duration::from_secs(10), hung)
        .await
        .expect("answered within 10 s of SIGTERM")
        .expect("request task");
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["success"], false);
    assert_eq!(body["error"]["code"], "DEVICE_UNAVAILABLE");
    let message = body["error"]["message"].as_str().expect("message");
    assert!(message.contains("shutting down"), "{message}");

    let exit = tokio::time::timeout(Duration::from_secs(10), service.child.wait())
        .await
        .expect("exits within 10 s of SIGTERM")
        .expect("exit status");
    assert!(exit.success(), "exit status {exit:?}");
    let took = signalled.elapsed();
    assert!(took < Duration::from_secs(10), "took {took:?}");

    // Flushed and unlocked: the store opens at once, the cancelled request audited.
    let store = Store::open(&service.data).expect("the store opens without waiting");
    let records = Records::open(&store).expect("records");
    let (_, entries) = records
        .audit_entries(&AuditFilter::default(), 0, 100)
        .expect("audit");
    assert!(
        entries
            .iter()
            .any(|e| e.action == "onu.reboot" && e.http_status == 503),
        "{:?}",
        entries
            .iter()
            .map(|e| (&e.action, e.http_status))
            .collect::<Vec<_>>()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sighup_keeps_the_old_inventory_when_the_new_one_is_broken() {
    let sim = mixed_fleet().await;
    let service = ServeProcess::start(&sim, "3s").await;
    service.online_onu(1).await;
    assert_eq!(service.olt_ids().await, [1, 2]);

    std::fs::write(&service.inventory, "[[olts]]\nid = \"one\"\n").expect("broken");
    service.signal("HUP").await;
    common::eventually("the refusal logged", Duration::from_secs(10), || async {
        let log = std::fs::read_to_string(&service.log).ok()?;
        log.contains("SIGHUP: inventory refused, the old one stays")
            .then_some(())
    })
    .await;
    let log = std::fs::read_to_string(&service.log).expect("log");
    assert!(
        log.contains("inventory.toml"),
        "the log names the file: {log}"
    );
    assert_eq!(service.olt_ids().await, [1, 2], "the old inventory stays");

    let mut smaller = sim.inventory();
    smaller.olts.retain(|o| o.id == 2);
    std::fs::write(&service.inventory, smaller.to_toml()).expect("good");
    service.signal("HUP").await;
    common::eventually(
        "the good inventory applied",
        Duration::from_secs(10),
        || async { (service.olt_ids().await == [2]).then_some(()) },
    )
    .await;
}
