//! docs/benchmarks.md P6, run by `ponkeeper bench poll` (unless `--skip-restart`): the real `ponkeeper serve`
//! binary as a child process, against the benchmark's simulator, with its own data
//! directory. It is started once and left until `GET /olts` shows every OLT with its
//! ONUs (the first poll, stored), stopped with SIGTERM (the one shutdown path, which
//! flushes the store), and started again; each restart is timed from spawning the
//! process until `GET /olts` answers with every OLT's `totalOnu`. Stored state is what
//! makes that fast: the actors load their tables from the store before their first poll.

use anyhow::{bail, Context};
use serde::Deserialize;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Restarts timed; the figure is their median.
pub const RESTARTS: usize = 3;

/// The service child; killed when dropped (after a graceful stop, nothing is left).
pub(super) struct ServeProcess(pub(super) tokio::process::Child);

impl Drop for ServeProcess {
    fn drop(&mut self) {
        let _ = self.0.start_kill();
    }
}

#[derive(Deserialize)]
struct OltPage {
    data: Vec<OltEntry>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct OltEntry {
    total_onu: u32,
}

/// What the restarts measured.
pub struct Restarts {
    /// Seconds of each restart (spawn until `GET /olts` shows every OLT's ONUs).
    pub seconds: Vec<f64>,
    /// Resident memory of `serve` after its first full poll (docs/benchmarks.md P5).
    pub serve_rss_bytes: u64,
}

pub async fn measure(
    work: &Path,
    inventory: &Path,
    olts: usize,
    onus_per_olt: usize,
) -> anyhow::Result<Restarts> {
    let exe = std::env::current_exe().context("cannot find the ponkeeper binary")?;
    let port = free_port()?;
    let config = work.join("serve.toml");
    std::fs::write(
        &config,
        format!(
            "listen = \"127.0.0.1:{port}\"\ndata_dir = {data:?}\ninventory = {inventory:?}\n\
             [paging]\nmax_size = {max}\n[polling]\ninterval = \"1h\"\n\
             [rate_limit]\ndefault = \"10000/s\"\n",
            data = work.join("serve-data"),
            max = olts.max(500),
        ),
    )?;
    let key = create_key(&exe, &config, &[]).await?;
    let client = reqwest::Client::new();
    let url = format!(
        "http://127.0.0.1:{port}{}/olts?size={}",
        crate::http::BASE,
        olts.max(1)
    );
    let ready = || async {
        let response = client
            .get(&url)
            .header("X-API-Key", &key)
            .send()
            .await
            .ok()?;
        let page: OltPage = response.json().await.ok()?;
        (page.data.len() == olts
            && page
                .data
                .iter()
                .all(|o| o.total_onu as usize == onus_per_olt))
        .then_some(())
    };

    // First start: wait for the first full poll to be stored.
    let mut serve = spawn(&exe, &config)?;
    let first = wait_until(&ready, Duration::from_secs(300), "the first poll").await;
    if let Err(e) = first {
        let log = std::fs::read_to_string(work.join("serve.log")).unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(5).collect();
        bail!("{e}; the end of serve's log: {tail:?}");
    }
    // Let the tasks of the first poll finish and settle before reading the size.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let serve_rss_bytes = serve
        .0
        .id()
        .and_then(|pid| crate::metrics::resident_memory_bytes_of(&format!("/proc/{pid}/status")))
        .unwrap_or(0);
    stop(&mut serve).await?;

    let mut seconds = Vec::new();
    for _ in 0..RESTARTS {
        let started = Instant::now();
        let mut serve = spawn(&exe, &config)?;
        wait_until(&ready, Duration::from_secs(120), "the restart").await?;
        seconds.push(started.elapsed().as_secs_f64());
        stop(&mut serve).await?;
    }
    Ok(Restarts {
        seconds,
        serve_rss_bytes,
    })
}

/// A FULL key for the benchmark, made with `ponkeeper keys create` on `config`'s store
/// (`env` holds what the configuration needs, such as webhook secrets).
pub(super) async fn create_key(
    exe: &Path,
    config: &Path,
    env: &[(&str, &str)],
) -> anyhow::Result<String> {
    let key = tokio::process::Command::new(exe)
        .args(["keys", "create", "--name", "bench", "--level", "FULL"])
        .arg("--config")
        .arg(config)
        .envs(env.iter().copied())
        .stderr(Stdio::null())
        .output()
        .await
        .context("cannot run `ponkeeper keys create`")?;
    if !key.status.success() {
        bail!("`ponkeeper keys create` failed");
    }
    Ok(String::from_utf8(key.stdout)?.trim().to_string())
}

/// Starts `serve`; its log goes to `serve.log` beside the configuration.
fn spawn(exe: &Path, config: &Path) -> anyhow::Result<ServeProcess> {
    spawn_with(exe, config, &[])
}

/// Starts `serve` with `env` added to its environment; its log is appended to
/// `serve.log` beside the configuration.
pub(super) fn spawn_with(
    exe: &Path,
    config: &Path,
    env: &[(&str, &str)],
) -> anyhow::Result<ServeProcess> {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(config.with_file_name("serve.log"))?;
    let child = tokio::process::Command::new(exe)
        .arg("serve")
        .arg("--config")
        .arg(config)
        .envs(env.iter().copied())
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(log)
        .kill_on_drop(true)
        .spawn()
        .context("cannot start `ponkeeper serve`")?;
    Ok(ServeProcess(child))
}

async fn wait_until<F, Fut>(ready: &F, limit: Duration, what: &str) -> anyhow::Result<()>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Option<()>>,
{
    let started = Instant::now();
    while ready().await.is_none() {
        if started.elapsed() > limit {
            bail!("`GET /olts` did not show every OLT's ONUs within {limit:?} of {what}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

/// SIGTERM, then wait for the exit (the store is flushed on the way out).
pub(super) async fn stop(serve: &mut ServeProcess) -> anyhow::Result<()> {
    if let Some(pid) = serve.0.id() {
        tokio::process::Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .await?;
    }
    match tokio::time::timeout(Duration::from_secs(60), serve.0.wait()).await {
        Ok(status) => {
            status?;
            Ok(())
        }
        Err(_) => bail!("`ponkeeper serve` did not stop within a minute of SIGTERM"),
    }
}

pub(super) fn free_port() -> anyhow::Result<u16> {
    let socket = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(socket.local_addr()?.port())
}
