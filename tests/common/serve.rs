//! `ponkeeper serve` as a child process, for the tests that must `kill -9` it or send it
//! SIGHUP (webhooks, notifications): its config written from a simulated fleet with
//! polling every 500 ms and a tail of the test's own, a FULL key made with `keys create`,
//! and its log kept in a file.

use super::eventually;
use ponkeeper_sim::{SimFleet, DEFAULT_SSH_PASSWORD, SSH_PASSWORD_ENV};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

const BINARY: &str = env!("CARGO_BIN_EXE_ponkeeper");

/// `ponkeeper serve` as a child process, and a FULL key.
pub struct Serve {
    child: Option<tokio::process::Child>,
    pub config: PathBuf,
    log: PathBuf,
    pub base: String,
    pub key: String,
    /// Variables the child gets (secrets its config names).
    env: Vec<(String, String)>,
    client: reqwest::Client,
    _dir: tempfile::TempDir,
}

impl Serve {
    /// Writes the config (polling every 500 ms; `tail` is appended: `[[webhooks]]`,
    /// `[[notify]]`…); the child gets the variables `env`.
    pub fn prepare(sim: &SimFleet, env: &[(&str, &str)], tail: &str) -> Serve {
        let dir = tempfile::tempdir().expect("tempdir");
        let inventory = dir.path().join("inventory.toml");
        std::fs::write(&inventory, sim.inventory().to_toml()).expect("inventory");
        let port = crate::common::ports::one();
        let config = dir.path().join("ponkeeper.toml");
        let serve = Serve {
            child: None,
            config,
            log: dir.path().join("serve.log"),
            base: format!("http://127.0.0.1:{port}/api/v1/external"),
            key: String::new(),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            client: reqwest::Client::new(),
            _dir: dir,
        };
        let head = format!(
            "listen = \"127.0.0.1:{port}\"\ndata_dir = {:?}\ninventory = {:?}\n\n\
             [polling]\ninterval = \"500ms\"\ntimeout = \"300ms\"\nretries = 0\ndeadline = \"3s\"\n\n",
            serve._dir.path().join("data").display().to_string(),
            inventory.display().to_string()
        );
        std::fs::write(&serve.config, format!("{head}{tail}")).expect("config");
        serve
    }

    /// Replaces the config from the first `marker` on with `tail`.
    pub fn rewrite_tail(&self, marker: &str, tail: &str) {
        let text = std::fs::read_to_string(&self.config).expect("config");
        let head = &text[..text.find(marker).expect("the marker")];
        std::fs::write(&self.config, format!("{head}{tail}")).expect("config");
    }

    pub fn command(&self, args: &[&str]) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(BINARY);
        command
            .args(args)
            .arg("--config")
            .arg(&self.config)
            .env(SSH_PASSWORD_ENV, DEFAULT_SSH_PASSWORD)
            .envs(self.env.iter().map(|(k, v)| (k, v)));
        command
    }

    pub async fn start(&mut self) {
        if self.key.is_empty() {
            let output = self
                .command(&["keys"])
                .args(["create", "--name", "ops", "--level", "FULL"])
                .output()
                .await
                .expect("keys");
            assert!(
                output.status.success(),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
            self.key = String::from_utf8_lossy(&output.stdout).trim().to_string();
        }
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .expect("log");
        let child = self
            .command(&["serve"])
            .stdout(Stdio::null())
            .stderr(log)
            .kill_on_drop(true)
            .spawn()
            .expect("serve starts");
        self.child = Some(child);
        eventually("serve answers", Duration::from_secs(20), || async {
            let (status, body) = self.get("/olts").await?;
            (status == 200 && body["data"][0]["status"] != "CONNECTING").then_some(())
        })
        .await;
    }

    pub async fn get(&self, path: &str) -> Option<(u16, Value)> {
        let response = self
            .client
            .get(format!("{}{path}", self.base))
            .header("X-API-Key", &self.key)
            .send()
            .await
            .ok()?;
        let status = response.status().as_u16();
        Some((status, response.json().await.ok()?))
    }

    pub async fn signal(&self, name: &str) {
        let pid = self.child.as_ref().and_then(|c| c.id()).expect("running");
        let kill = tokio::process::Command::new("kill")
            .args([format!("-{name}"), pid.to_string()])
            .status()
            .await
            .expect("kill");
        assert!(kill.success());
    }

    pub async fn kill_9(&mut self) {
        self.signal("KILL").await;
        if let Some(mut child) = self.child.take() {
            child.wait().await.expect("reaped");
        }
    }

    /// Every event id in the log, oldest first.
    pub async fn event_ids(&self) -> Vec<u64> {
        let (_, body) = self.get("/events?size=500").await.expect("events");
        let mut ids: Vec<u64> = body["data"]
            .as_array()
            .expect("a list")
            .iter()
            .map(|e| e["id"].as_u64().expect("id"))
            .collect();
        ids.reverse();
        ids
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}
