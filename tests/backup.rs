//! `ponkeeper backup` and `ponkeeper restore` through the real binary: a service under
//! load (audited ONU actions over the simulator's SSH, keys created through the admin
//! socket) is backed up while the load runs; the backup is restored into a new data
//! directory and a second service started on it. Nothing acknowledged before the backup
//! began is missing, every restored audit entry is the original's, the counters and ONU
//! ids are the same, the old keys work, and new ids come after every restored one. A
//! backup file is its owner's alone (0600, never written through a file or link already
//! there), a directory every user may write is refused without `--force`, and the spool
//! file of a service killed mid-backup is gone when the next one starts. A backup needs
//! only what it reads: not the secrets of the service's webhooks and channels.

use crate::common::{eventually, steady_sim, TestService};
use ponkeeper::admin::{self, AdminRequest};
use ponkeeper::keys::NewKey;
use ponkeeper::records::AccessLevel;
use ponkeeper_sim::{DEFAULT_SSH_PASSWORD, SSH_PASSWORD_ENV};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const BINARY: &str = env!("CARGO_BIN_EXE_ponkeeper");

/// A config file for a service on `port` with its data in `data`.
fn write_config(dir: &Path, name: &str, port: u16, inventory: &Path) -> (PathBuf, PathBuf) {
    let data = dir.join(format!("{name}-data"));
    let path = dir.join(format!("{name}.toml"));
    let text = format!(
        "listen = \"127.0.0.1:{port}\"\ndata_dir = {:?}\ninventory = {:?}\ntimezone = \"UTC\"\n\
         [polling]\ninterval = \"1s\"\ntimeout = \"500ms\"\n[rate_limit]\ndefault = \"10000/s\"\n",
        data.display().to_string(),
        inventory.display().to_string()
    );
    std::fs::write(&path, text).expect("config");
    (path, data)
}

struct Serve {
    child: Child,
    base: String,
}

impl Serve {
    async fn start(config: &Path, port: u16) -> Serve {
        let child = Command::new(BINARY)
            .args(["serve", "--config"])
            .arg(config)
            .env(SSH_PASSWORD_ENV, DEFAULT_SSH_PASSWORD)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .spawn()
            .expect("ponkeeper serve");
        let base = format!("http://127.0.0.1:{port}");
        let health = format!("{base}/readyz");
        eventually("the service ready", Duration::from_secs(30), || async {
            let answer = reqwest::get(&health).await.ok()?;
            (answer.status() == 200).then_some(())
        })
        .await;
        Serve { child, base }
    }

    /// SIGTERM, then wait: the clean shutdown path.
    fn stop(mut self) {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let status = self.child.wait().expect("wait");
        assert!(status.success(), "serve exited with {status}");
    }
}

fn ponkeeper(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(BINARY)
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .expect("ponkeeper");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

async fn get(client: &reqwest::Client, url: &str, key: &str) -> Value {
    let answer = client
        .get(url)
        .header("X-API-Key", key)
        .send()
        .await
        .expect("GET");
    assert_eq!(answer.status(), 200, "{url}");
    answer.json().await.expect("JSON")
}

/// Every audit entry, oldest first.
async fn audit_log(client: &reqwest::Client, base: &str, key: &str) -> Vec<Value> {
    let mut all = Vec::new();
    for page in 0.. {
        let url = format!("{base}/api/v1/external/audit-logs?size=500&page={page}");
        let body = get(client, &url, key).await;
        let items = body["data"].as_array().expect("data").clone();
        if items.is_empty() {
            break;
        }
        all.extend(items);
    }
    all.sort_by_key(|e| e["id"].as_u64());
    all
}

/// What must survive a round trip: per node counters, and every ONU's id and serial.
async fn counters(client: &reqwest::Client, base: &str, key: &str) -> Value {
    let nodes = get(
        client,
        &format!("{base}/api/v1/external/nodes?size=500"),
        key,
    )
    .await;
    let onus = get(
        client,
        &format!("{base}/api/v1/external/onus?size=500"),
        key,
    )
    .await;
    let onus: Vec<Value> = onus["data"]
        .as_array()
        .expect("onus")
        .iter()
        .map(|o| json!([o["id"], o["serialNumber"], o["serial"], o["oltId"]]))
        .collect();
    json!({ "nodes": nodes["data"], "onus": onus })
}

/// Sets descriptions `load-N` in turn until `stop`; acknowledged ones go in `acked`.
async fn description_load(
    base: String,
    key: String,
    onus: Vec<u64>,
    acked: Arc<Mutex<Vec<String>>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
) {
    let client = reqwest::Client::new();
    let mut n = 0usize;
    while !stop.load(std::sync::atomic::Ordering::SeqCst) {
        let onu = onus[n % onus.len()];
        let text = format!("load-{n}");
        let answer = client
            .post(format!("{base}/api/v1/external/onus/{onu}/description"))
            .header("X-API-Key", &key)
            .json(&json!({ "description": text }))
            .send()
            .await
            .expect("POST");
        if answer.status() == 200 {
            acked.lock().expect("lock").push(text);
        }
        n += 1;
    }
}

/// Creates keys `load-key-N` through the admin socket until `stop`.
async fn key_load(
    data_dir: PathBuf,
    acked: Arc<Mutex<Vec<String>>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
) {
    let mut n = 0;
    while !stop.load(std::sync::atomic::Ordering::SeqCst) {
        let name = format!("load-key-{n}");
        let request = AdminRequest::Create(NewKey {
            name: name.clone(),
            level: AccessLevel::ReadOnly,
            rate: None,
            allow_ip: vec![],
            key: None,
        });
        let answer = admin::request(&data_dir, &request).await.expect("admin");
        if answer.is_some_and(|a| a.key.is_some()) {
            acked.lock().expect("lock").push(name);
        }
        n += 1;
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_under_load_restores_everything_acknowledged() {
    std::env::set_var(SSH_PASSWORD_ENV, DEFAULT_SSH_PASSWORD);
    let sim = steady_sim(2, 8).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let inventory = dir.path().join("inventory.toml");
    std::fs::write(&inventory, sim.inventory().to_toml()).expect("inventory");
    let port = crate::common::ports::one();
    let (config, data) = write_config(dir.path(), "original", port, &inventory);
    let original = Serve::start(&config, port).await;
    let config_arg = config.to_str().expect("path");
    let (ok, key, err) = ponkeeper(&[
        "keys", "create", "--config", config_arg, "--name", "ops", "--level", "FULL",
    ]);
    assert!(ok, "{err}");
    let key = key.trim().to_string();
    let client = reqwest::Client::new();
    let onus: Vec<u64> = eventually("ONUs polled", Duration::from_secs(20), || async {
        let body = get(
            &client,
            &format!("{}/api/v1/external/onus?size=500", original.base),
            &key,
        )
        .await;
        let ids: Vec<u64> = body["data"]
            .as_array()?
            .iter()
            .filter_map(|o| o["id"].as_u64())
            .collect();
        (ids.len() == 16).then_some(ids)
    })
    .await;

    // Load, then a backup while it runs, then a little more load.
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (descriptions, keys) = (
        Arc::new(Mutex::new(Vec::new())),
        Arc::new(Mutex::new(Vec::new())),
    );
    let load = [
        tokio::spawn(description_load(
            original.base.clone(),
            key.clone(),
            onus.clone(),
            descriptions.clone(),
            stop.clone(),
        )),
        tokio::spawn(description_load(
            original.base.clone(),
            key.clone(),
            onus[8..].to_vec(),
            descriptions.clone(),
            stop.clone(),
        )),
        tokio::spawn(key_load(data.clone(), keys.clone(), stop.clone())),
    ];
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let acked_descriptions = descriptions.lock().expect("lock").clone();
    let acked_keys = keys.lock().expect("lock").clone();
    let backup = dir.path().join("ponkeeper.backup");
    let backup_arg = backup.to_str().expect("path").to_string();
    let (ok, out, err) = tokio::task::spawn_blocking(move || {
        ponkeeper(&[
            "backup",
            "--config",
            config_arg_owned(&config),
            "--out",
            &backup_arg,
        ])
    })
    .await
    .expect("backup");
    assert!(ok, "backup failed: {err}");
    assert!(out.starts_with("backup written to "), "{out}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    for task in load {
        task.await.expect("load task");
    }
    assert!(
        acked_descriptions.len() >= 5,
        "too little load: {acked_descriptions:?}"
    );
    assert!(acked_keys.len() >= 5, "too little load: {acked_keys:?}");
    let original_log = audit_log(&client, &original.base, &key).await;
    let original_counters = counters(&client, &original.base, &key).await;
    original.stop();

    // Restore: refused into a directory that is not empty, then into a new one.
    let port = crate::common::ports::one();
    let (restored_config, restored_data) = write_config(dir.path(), "restored", port, &inventory);
    let restored_arg = restored_config.to_str().expect("path");
    std::fs::create_dir_all(&restored_data).expect("dir");
    std::fs::write(restored_data.join("stray"), "x").expect("stray file");
    let (ok, _, err) = ponkeeper(&[
        "restore",
        "--config",
        restored_arg,
        "--from",
        backup.to_str().expect("path"),
    ]);
    assert!(!ok && err.contains("is not empty"), "{err}");
    std::fs::remove_file(restored_data.join("stray")).expect("rm");
    let (ok, out, err) = ponkeeper(&[
        "restore",
        "--config",
        restored_arg,
        "--from",
        backup.to_str().expect("path"),
    ]);
    assert!(ok, "restore failed: {err}");
    assert!(out.starts_with("restored "), "{out}");

    let restored = Serve::start(&restored_config, port).await;
    // The key made before the backup works on the restored service.
    let restored_log = audit_log(&client, &restored.base, &key).await;
    let by_id: std::collections::HashMap<u64, &Value> = original_log
        .iter()
        .map(|e| (e["id"].as_u64().expect("id"), e))
        .collect();
    for entry in &restored_log {
        let id = entry["id"].as_u64().expect("id");
        assert_eq!(Some(&entry), by_id.get(&id), "restored entry {id} differs");
    }
    let restored_descriptions: Vec<&str> = restored_log
        .iter()
        .filter(|e| e["action"] == "onu.set_description" && e["result"] == "SUCCESS")
        .filter_map(|e| e["params"]["description"].as_str())
        .collect();
    for text in &acked_descriptions {
        assert!(
            restored_descriptions.contains(&text.as_str()),
            "{text} lost: {restored_descriptions:?}"
        );
    }
    let listing = admin::request(&restored_data, &AdminRequest::List)
        .await
        .expect("admin")
        .expect("the restored service answers");
    let names: Vec<String> = listing
        .keys
        .expect("keys")
        .into_iter()
        .map(|k| k.name)
        .collect();
    for name in &acked_keys {
        assert!(names.contains(name), "key {name} lost: {names:?}");
    }
    let restored_counters = eventually("the same counters", Duration::from_secs(20), || async {
        let now = counters(&client, &restored.base, &key).await;
        (now == original_counters).then_some(now)
    })
    .await;
    assert_eq!(restored_counters["onus"].as_array().map(Vec::len), Some(16));

    // New ids come after every restored one.
    let answer = client
        .post(format!(
            "{}/api/v1/external/onus/{}/description",
            restored.base, onus[0]
        ))
        .header("X-API-Key", &key)
        .json(&json!({ "description": "after-restore" }))
        .send()
        .await
        .expect("POST");
    assert_eq!(answer.status(), 200);
    let newest = audit_log(&client, &restored.base, &key).await;
    let last = newest.last().expect("entries");
    assert_eq!(last["params"]["description"], "after-restore");
    let restored_max = restored_log
        .iter()
        .filter_map(|e| e["id"].as_u64())
        .max()
        .expect("ids");
    assert!(last["id"].as_u64().expect("id") > restored_max);
    restored.stop();
}

fn config_arg_owned(config: &Path) -> &str {
    config.to_str().expect("path")
}

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .expect("metadata")
        .permissions()
        .mode()
        & 0o7777
}

/// `ponkeeper backup` against the data directory of a running in-process service.
async fn backup_cli(config: &Path, out: &Path, force: bool) -> (bool, String, String) {
    let mut args = vec![
        "backup".to_string(),
        "--config".into(),
        config.display().to_string(),
        "--out".into(),
        out.display().to_string(),
    ];
    if force {
        args.push("--force".into());
    }
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        ponkeeper(&args)
    })
    .await
    .expect("backup")
}

/// A webhook and a Telegram channel whose secrets' variables are not set: a backup reads
/// only the data directory, so it runs without them (only `serve` needs them).
const UNSET_SECRETS: &str = "[[webhooks]]\nname = \"billing\"\nurl = \"http://127.0.0.1:9/\"\n\
     secret_env = \"PONKEEPER_TEST_UNSET_WEBHOOK_SECRET\"\n\
     [[notify]]\nname = \"noc\"\nkind = \"telegram\"\n\
     token_env = \"PONKEEPER_TEST_UNSET_BOT_TOKEN\"\nchat_ids = [1]\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_is_private_and_no_spool_file_outlives_its_service() {
    use std::os::unix::fs::PermissionsExt;
    let sim = steady_sim(1, 2).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let service = TestService::start(&sim, data.clone()).await;
    let config = dir.path().join("ponkeeper.toml");
    std::fs::write(
        &config,
        format!(
            "listen = \"127.0.0.1:{}\"\ndata_dir = {:?}\ninventory = {:?}\n{UNSET_SECRETS}",
            crate::common::ports::one(),
            data.display().to_string(),
            service.inventory_path.display().to_string()
        ),
    )
    .expect("config");

    // Into an ordinary directory (0755 under the usual umask): the file is 0600.
    let backups = dir.path().join("backups");
    std::fs::create_dir(&backups).expect("mkdir");
    std::fs::set_permissions(&backups, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let out = backups.join("pk.backup");
    let (ok, _, err) = backup_cli(&config, &out, false).await;
    assert!(ok, "backup failed: {err}");
    assert_eq!(mode(&out), 0o600, "the backup is readable by others");

    // Into a directory every user may write: refused, saying why, unless --force.
    let shared = dir.path().join("shared");
    std::fs::create_dir(&shared).expect("mkdir");
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).expect("chmod");
    let out = shared.join("pk.backup");
    let (ok, _, err) = backup_cli(&config, &out, false).await;
    assert!(!ok, "a backup into a world-writable directory was written");
    assert!(
        err.contains("writable by every local user") && err.contains("--force"),
        "{err}"
    );
    assert!(!out.exists());
    // What another user put there first is not written through.
    let planted = dir.path().join("planted");
    std::fs::write(&planted, "").expect("planted file");
    std::os::unix::fs::symlink(&planted, shared.join("pk.backup.partial")).expect("symlink");
    let (ok, _, err) = backup_cli(&config, &out, true).await;
    assert!(ok, "backup --force failed: {err}");
    assert_eq!(mode(&out), 0o600);
    assert_eq!(
        std::fs::read(&planted).expect("planted").len(),
        0,
        "written through a link"
    );

    // A spool file left by a service killed mid-backup is removed by the next start.
    service.stop().await;
    let spool = data.join("backup-4242.spool");
    std::fs::write(&spool, "half a snapshot").expect("spool");
    let service = TestService::start(&sim, data.clone()).await;
    assert!(
        !spool.exists(),
        "a stale spool file stayed in the data directory"
    );
    service.stop().await;
}
