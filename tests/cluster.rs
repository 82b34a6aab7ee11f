//! docs/scale-out.md's first step on loopback: two real `ponkeeper serve` processes, each
//! polling its own share of one simulated fleet, joined by ractor_cluster (`[cluster]`).
//! Each one's `GET /nodes` counts the other's OLTs and ONUs too, equal to what the whole
//! fleet holds; when one process is killed, the other's counters fall back to its own
//! share, and they come back when it is started again.

mod common;

use ponkeeper_actors::domain::{OltId, OnuStatus};
use ponkeeper_actors::inventory::Inventory;
use ponkeeper_sim::{SimFleet, DEFAULT_SSH_PASSWORD, SSH_PASSWORD_ENV};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

const BINARY: &str = env!("CARGO_BIN_EXE_ponkeeper");
const COOKIE: &str = "loopback-cluster-cookie-for-tests";

fn free_port() -> u16 {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("probe");
    probe.local_addr().expect("addr").port()
}

/// One member: a `serve` child with its inventory share, HTTP port and cluster port.
struct Member {
    child: tokio::process::Child,
    dir: PathBuf,
    base: String,
    key: String,
}

impl Member {
    async fn start(dir: &Path, name: &str, share: &Inventory, ports: (u16, u16, u16)) -> Member {
        let (http, listen, peer) = ports;
        let dir = dir.join(name);
        std::fs::create_dir_all(&dir).expect("dir");
        let inventory = dir.join("inventory.toml");
        std::fs::write(&inventory, share.to_toml()).expect("inventory");
        std::fs::write(
            dir.join("ponkeeper.toml"),
            format!(
                "listen = \"127.0.0.1:{http}\"\ndata_dir = {data:?}\ninventory = {inventory:?}\n\n\
                 [polling]\ninterval = \"500ms\"\ntimeout = \"300ms\"\nretries = 0\n\n\
                 [cluster]\nname = \"{name}\"\nlisten = \"127.0.0.1:{listen}\"\n\
                 peers = [\"127.0.0.1:{peer}\"]\ncookie_env = \"CLUSTER_COOKIE\"\ninsecure = true\n",
                data = dir.join("data"),
            ),
        )
        .expect("config");
        let key = tokio::process::Command::new(BINARY)
            .args([
                "keys", "create", "--name", "ops", "--level", "FULL", "--config",
            ])
            .arg(dir.join("ponkeeper.toml"))
            .output()
            .await
            .expect("keys create");
        assert!(key.status.success(), "{key:?}");
        Member {
            child: Member::spawn(&dir),
            dir,
            base: format!("http://127.0.0.1:{http}/api/v1/external"),
            key: String::from_utf8(key.stdout)
                .expect("utf-8")
                .trim()
                .to_string(),
        }
    }

    fn spawn(dir: &Path) -> tokio::process::Child {
        tokio::process::Command::new(BINARY)
            .args(["serve", "--config"])
            .arg(dir.join("ponkeeper.toml"))
            .env("CLUSTER_COOKIE", COOKIE)
            .env(SSH_PASSWORD_ENV, DEFAULT_SSH_PASSWORD)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("serve.log")).expect("log"))
            .kill_on_drop(true)
            .spawn()
            .expect("serve starts")
    }

    /// SIGKILL: no shutdown, the link just drops.
    async fn kill(&mut self) {
        self.child.kill().await.expect("kill");
    }

    /// A start on the same configuration and store.
    fn restart(&mut self) {
        self.child = Member::spawn(&self.dir);
    }

    /// `(OLTs, ONUs, ONUs online)` summed over every node `GET /nodes` lists.
    async fn node_totals(&self) -> Option<(u64, u64, u64)> {
        let body: Value = reqwest::Client::new()
            .get(format!("{}/nodes?size=100", self.base))
            .header("X-API-Key", &self.key)
            .send()
            .await
            .ok()?
            .json()
            .await
            .ok()?;
        let nodes = body["data"].as_array()?;
        let sum = |field: &str| nodes.iter().filter_map(|n| n[field].as_u64()).sum::<u64>();
        Some((sum("oltCount"), sum("onuTotal"), sum("onuOnline")))
    }

    /// Waits until the node totals are `expected`; panics with the last ones seen.
    async fn expect_totals(&self, what: &str, expected: (u64, u64, u64)) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        loop {
            let totals = self.node_totals().await;
            if totals == Some(expected) {
                return;
            }
            if tokio::time::Instant::now() > deadline {
                panic!("{what}: {totals:?} instead of {expected:?}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// `(OLTs, ONUs, ONUs online)` of `olts` as the simulator holds them.
fn totals_of(sim: &SimFleet, olts: &[OltId]) -> (u64, u64, u64) {
    let onus: Vec<_> = olts
        .iter()
        .flat_map(|&olt| sim.expected_onus(olt))
        .collect();
    let online = onus
        .iter()
        .filter(|o| o.status == OnuStatus::Online)
        .count();
    (olts.len() as u64, onus.len() as u64, online as u64)
}

#[tokio::test(flavor = "multi_thread")]
async fn each_member_counts_the_other_members_olts() {
    let sim = common::steady_sim(3, 16).await;
    let whole = sim.inventory();
    let mut first = whole.clone();
    first.olts.retain(|o| o.id != 3);
    let mut second = whole.clone();
    second.olts.retain(|o| o.id == 3);
    let (all, own) = (totals_of(&sim, &[1, 2, 3]), totals_of(&sim, &[1, 2]));
    assert!(all.2 > own.2 && own.2 > 0, "the third OLT has ONUs online");
    let dir = tempfile::tempdir().expect("tempdir");
    let (listen_a, listen_b) = (free_port(), free_port());
    let a = Member::start(dir.path(), "a", &first, (free_port(), listen_a, listen_b)).await;
    let mut b = Member::start(dir.path(), "b", &second, (free_port(), listen_b, listen_a)).await;

    a.expect_totals("a counts its 2 OLTs and b's 1", all).await;
    b.expect_totals("b counts its 1 OLT and a's 2", all).await;

    b.kill().await;
    a.expect_totals("a alone: its own 2 OLTs", own).await;

    b.restart();
    a.expect_totals("b back: a counts 3 OLTs again", all).await;
    b.expect_totals("b back: b counts 3 OLTs", all).await;
}
