//! snmpsim, the independent SNMP agent the fixture tests poll: where its responder is
//! (`SNMPSIM_COMMAND`, else the one `scripts/test.sh` puts in `.venv`), and one running
//! instance serving one `.snmprec` fixture as the data file `public` (community `public`,
//! and context `public` for SNMPv3 users given in `extra_args`), killed on drop. Included
//! by `fixtures.rs` and `snmpv3_client.rs` with `#[path]`.

use std::net::{Ipv4Addr, SocketAddr, UdpSocket};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// snmpsim's responder: `SNMPSIM_COMMAND`, else the one `scripts/test.sh` puts in `.venv`.
pub fn snmpsim_binary() -> PathBuf {
    match std::env::var_os("SNMPSIM_COMMAND") {
        Some(path) => PathBuf::from(path),
        None => repo().join(".venv/bin/snmpsim-command-responder"),
    }
}

/// A running snmpsim serving one fixture; killed on drop.
pub struct Snmpsim {
    child: Child,
    pub addr: SocketAddr,
    _dir: tempfile::TempDir,
}

impl Snmpsim {
    /// Starts snmpsim on a free loopback port with `fixture` as `public.snmprec`. With
    /// `v3_users` (its `--v3-user …` options) it serves them from an engine of its own:
    /// snmpsim reads an engine's options after its `--v3-engine-id`, so that goes first.
    pub fn start(fixture: &Path, v3_users: &[&str]) -> Snmpsim {
        let probe = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).expect("a free port");
        let addr = probe.local_addr().expect("its address");
        drop(probe);
        Snmpsim::start_at(fixture, v3_users, addr)
    }

    /// [`Snmpsim::start`] on `addr`: a restarted agent on the port of one stopped.
    pub fn start_at(fixture: &Path, v3_users: &[&str], addr: SocketAddr) -> Snmpsim {
        let dir = tempfile::tempdir().expect("tempdir");
        let data = dir.path().join("data");
        std::fs::create_dir_all(&data).expect("data dir");
        std::fs::copy(fixture, data.join("public.snmprec"))
            .unwrap_or_else(|e| panic!("cannot copy {}: {e}", fixture.display()));
        let engine: &[&str] = if v3_users.is_empty() {
            &[]
        } else {
            &["--v3-engine-id=auto"]
        };
        let child = Command::new(snmpsim_binary())
            .env("SNMPSIM_ALLOW_ROOT", "true")
            .arg(format!(
                "--cache-dir={}",
                dir.path().join("cache").display()
            ))
            .args(engine)
            .arg(format!("--data-dir={}", data.display()))
            .arg(format!("--agent-udpv4-endpoint={addr}"))
            .args(v3_users)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("snmpsim starts");
        Snmpsim {
            child,
            addr,
            _dir: dir,
        }
    }

    /// Waits until the agent answers a v2c GET of sysName.0.
    pub async fn ready(&mut self) {
        let started = Instant::now();
        let sys_name = snmp2::Oid::from(&[1u64, 3, 6, 1, 2, 1, 1, 5, 0]).expect("oid");
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("snmpsim exited with {status} before answering");
            }
            if let Ok(mut session) = snmp2::AsyncSession::new_v2c(self.addr, b"public", 0).await {
                let answer =
                    tokio::time::timeout(Duration::from_millis(300), session.get(&sys_name)).await;
                if matches!(answer, Ok(Ok(_))) {
                    return;
                }
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "snmpsim did not answer on {} within a minute",
                self.addr
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

impl Drop for Snmpsim {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
