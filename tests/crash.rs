//! A killed process keeps every audit entry it acknowledged: the real `ponkeeper serve`
//! binary acts on a simulated OLT over SSH, answers, and is then killed with SIGKILL (no
//! shutdown, no final flush); the store, reopened, holds every answered request's entry.

mod common;

use ponkeeper_actors::sim::{
    Dynamics, FleetSpec, FleetVendors, SimFleet, DEFAULT_SSH_PASSWORD, SSH_PASSWORD_ENV,
};
use ponkeeper_actors::store::{AuditFilter, Store};
use serde_json::{json, Value};
use std::process::Stdio;
use std::time::Duration;

const BINARY: &str = env!("CARGO_BIN_EXE_ponkeeper");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_keeps_every_acknowledged_audit_entry() {
    let sim = SimFleet::start(FleetSpec {
        vendors: FleetVendors::Mixed,
        dynamics: Dynamics::none(),
        ..FleetSpec::new(2, 8)
    })
    .await
    .expect("simulator");
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let inventory = dir.path().join("inventory.toml");
    std::fs::write(&inventory, sim.inventory().to_toml()).expect("inventory");
    let port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("probe");
        probe.local_addr().expect("addr").port()
    };
    let config = dir.path().join("ponkeeper.toml");
    std::fs::write(
        &config,
        format!(
            "listen = \"127.0.0.1:{port}\"\ndata_dir = {:?}\ninventory = {:?}\n\n[polling]\ninterval = \"500ms\"\ntimeout = \"300ms\"\nretries = 0\ndeadline = \"3s\"\n",
            data.display().to_string(),
            inventory.display().to_string()
        ),
    )
    .expect("config");
    let created = tokio::process::Command::new(BINARY)
        .args(["keys", "create", "--config"])
        .arg(&config)
        .args(["--name", "ops", "--level", "FULL"])
        .output()
        .await
        .expect("keys create");
    assert!(
        created.status.success(),
        "{}",
        String::from_utf8_lossy(&created.stderr)
    );
    let key = String::from_utf8_lossy(&created.stdout).trim().to_string();

    let mut child = tokio::process::Command::new(BINARY)
        .args(["serve", "--config"])
        .arg(&config)
        .env(SSH_PASSWORD_ENV, DEFAULT_SSH_PASSWORD)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("serve starts");
    let base = format!("http://127.0.0.1:{port}/api/v1/external");
    let client = reqwest::Client::new();
    let onu_id = common::eventually("the service polled", Duration::from_secs(30), || async {
        let response = client
            .get(format!("{base}/olts/1/onus?status=ONLINE&size=1"))
            .header("X-API-Key", &key)
            .send()
            .await
            .ok()?;
        let body: Value = response.json().await.ok()?;
        body["data"][0]["id"].as_u64()
    })
    .await;

    let mut acknowledged = Vec::new();
    for (vlan, expected) in [(200, 200), (0, 400), (300, 200)] {
        let response = client
            .post(format!("{base}/onus/{onu_id}/vlan"))
            .header("X-API-Key", &key)
            .json(&json!({ "vlan": vlan }))
            .send()
            .await
            .expect("answered");
        assert_eq!(response.status().as_u16(), expected);
        acknowledged.push(expected);
    }
    let response = client
        .get(format!("{base}/olts"))
        .header("X-API-Key", "pk_wrong")
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status().as_u16(), 401);
    acknowledged.push(401);

    child.start_kill().expect("SIGKILL");
    child.wait().await.expect("killed");

    let mut store = Store::open(&data);
    for _ in 0..50 {
        if store.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        store = Store::open(&data);
    }
    let store = store.expect("reopen the killed service's store");
    let (total, entries) = store
        .audit_entries(&AuditFilter::default(), 0, 100)
        .expect("audit");
    let statuses: Vec<u16> = entries.iter().rev().map(|e| e.http_status).collect();
    assert!(total >= 4, "{statuses:?}");
    // Oldest first, the answered requests in the order they were answered.
    let ours: Vec<u16> = statuses
        .iter()
        .copied()
        .filter(|s| [200, 400, 401].contains(s))
        .collect();
    assert_eq!(ours, acknowledged);
    let applied: Vec<&Value> = entries
        .iter()
        .filter(|e| e.action == "onu.set_vlan" && e.http_status == 200)
        .filter_map(|e| e.params.as_ref())
        .collect();
    assert_eq!(applied, vec![&json!({"vlan": 300}), &json!({"vlan": 200})]);
}
