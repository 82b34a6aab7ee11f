//! `ponkeeper bench events` (docs/benchmarks.md E1–E3): the real `ponkeeper serve` binary
//! as a child process against a simulated fleet in this process, measured from outside
//! as an integrator sees it.
//!
//! - E1: traps on, polling every 60 s; an ONU taken down in the simulator until its
//!   `ONU_DOWN` arrives on `/events/stream` (one sample per OLT, median).
//! - E2: that many stream subscribers, each its own connection; every ONU of one OLT
//!   goes down at once, until every subscriber has every `ONU_DOWN`.
//! - E3 ([`webhook`]): `kill -9` of `serve` while a webhook delivers about 10,000 events,
//!   then a restart: every event delivered at least once, first deliveries in order.
//!
//! [`down_to_event`] is E1's measurement with a given status interval, with or without
//! traps: S3 of `bench poll --schedule`.
//!
//! Progress goes to stderr, the figures to stdout.

mod sse;
mod webhook;

use super::restart::{create_key, free_port, spawn_with, stop, ServeProcess};
use anyhow::{bail, Context};
use ponkeeper_actors::domain::OnuStatus;
use ponkeeper_sim::{Dynamics, FleetSpec, SimFleet, DEFAULT_SSH_PASSWORD, SSH_PASSWORD_ENV};
use serde::{Deserialize, Serialize};
use sse::SseReader;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, clap::Args)]
pub struct EventBenchOptions {
    /// E1 samples, each on an OLT of its own.
    #[arg(long, default_value_t = 5)]
    pub samples: usize,
    /// E2: stream subscribers, each on its own connection.
    #[arg(long, default_value_t = 100)]
    pub subscribers: usize,
    /// ONUs per simulated OLT (E2's outage takes down all of one OLT's).
    #[arg(long, default_value_t = 128)]
    pub onus_per_olt: usize,
    /// E3: about this many events delivered by the webhook (all ONUs of enough OLTs go
    /// down at once).
    #[arg(long, default_value_t = 10_000)]
    pub webhook_events: usize,
    /// Print only the JSON result.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EventBenchResult {
    /// E1: ONU down in the simulator until its `ONU_DOWN` is on the stream, each sample.
    pub e1_ms_all: Vec<f64>,
    pub e1_ms_median: f64,
    pub e2_subscribers: usize,
    /// E2: the `ONU_DOWN`s each subscriber received (one per ONU of the OLT).
    pub e2_events_per_subscriber: usize,
    /// E2: the ONUs going down until the last subscriber has its last event.
    pub e2_ms: f64,
    /// E2: the first event reaching any subscriber until the last subscriber has all.
    pub e2_fan_out_ms: f64,
    pub e3: webhook::WebhookFigures,
}

/// One `serve` child with its configuration, port and FULL key.
struct Serve {
    exe: PathBuf,
    config: PathBuf,
    base: String,
    key: String,
    env: Vec<(&'static str, String)>,
    process: Option<ServeProcess>,
    client: reqwest::Client,
}

#[derive(Deserialize)]
struct Page {
    data: Vec<serde_json::Value>,
}

impl Serve {
    /// Writes `dir/serve.toml` (`sections` follow the common head) and makes a key.
    async fn prepare(
        dir: &Path,
        sim: &SimFleet,
        sections: &str,
        env: Vec<(&'static str, String)>,
    ) -> anyhow::Result<Serve> {
        std::fs::create_dir_all(dir)?;
        let inventory = dir.join("inventory.toml");
        std::fs::write(&inventory, sim.inventory().to_toml())?;
        let port = free_port()?;
        let config = dir.join("serve.toml");
        let head = format!(
            "listen = \"127.0.0.1:{port}\"\ndata_dir = {:?}\ninventory = {:?}\n\
             [paging]\nmax_size = 500\n[rate_limit]\ndefault = \"100000/s\"\n",
            dir.join("data"),
            inventory
        );
        std::fs::write(&config, format!("{head}{sections}"))?;
        let exe = std::env::current_exe().context("cannot find the ponkeeper binary")?;
        let pairs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let key = create_key(&exe, &config, &pairs).await?;
        Ok(Serve {
            exe,
            config,
            base: format!("http://127.0.0.1:{port}{}", crate::http::BASE),
            key,
            env,
            process: None,
            client: reqwest::Client::new(),
        })
    }

    /// Starts `serve` and waits until every OLT shows `onus_per_olt` ONUs.
    async fn start(&mut self, olts: usize, onus_per_olt: usize) -> anyhow::Result<()> {
        let mut env: Vec<(&str, &str)> = vec![(SSH_PASSWORD_ENV, DEFAULT_SSH_PASSWORD)];
        env.extend(self.env.iter().map(|(k, v)| (*k, v.as_str())));
        self.process = Some(spawn_with(&self.exe, &self.config, &env)?);
        let started = Instant::now();
        loop {
            let page = self
                .get::<Page>(&format!("/olts?size={}", olts.min(500)))
                .await;
            let polled = page.is_some_and(|p| {
                p.data.len() == olts.min(500)
                    && p.data.iter().all(|o| o["totalOnu"] == onus_per_olt)
            });
            if polled {
                return Ok(());
            }
            if started.elapsed() > Duration::from_secs(120) {
                bail!(
                    "serve did not poll its fleet within 2 min ({:?})",
                    self.log()
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn get<T: serde::de::DeserializeOwned>(&self, path: &str) -> Option<T> {
        let response = self
            .client
            .get(format!("{}{path}", self.base))
            .header("X-API-Key", &self.key)
            .send()
            .await
            .ok()?;
        response.json().await.ok()
    }

    /// The newest event's id, 0 with an empty log.
    async fn newest_event(&self) -> anyhow::Result<u64> {
        let page: Page = self
            .get("/events?size=1")
            .await
            .context("GET /events failed")?;
        Ok(page
            .data
            .first()
            .and_then(|e| e["id"].as_u64())
            .unwrap_or(0))
    }

    async fn stream(&self, query: &str) -> anyhow::Result<SseReader> {
        SseReader::open(&self.client, &self.base, &self.key, query).await
    }

    async fn kill_9(&mut self) -> anyhow::Result<()> {
        if let Some(mut process) = self.process.take() {
            process.0.start_kill()?;
            process.0.wait().await?;
        }
        Ok(())
    }

    async fn stop(&mut self) -> anyhow::Result<()> {
        match self.process.take() {
            Some(mut process) => stop(&mut process).await,
            None => Ok(()),
        }
    }

    /// The end of serve's log, for an error message.
    fn log(&self) -> Vec<String> {
        let text = std::fs::read_to_string(self.config.with_file_name("serve.log"));
        let text = text.unwrap_or_default();
        let tail: Vec<String> = text.lines().rev().take(5).map(str::to_string).collect();
        tail.into_iter().rev().collect()
    }
}

/// A frozen fleet of `olts` × `onus_per_olt` Huawei ONUs, every ONU online.
async fn online_fleet(olts: usize, onus_per_olt: usize) -> anyhow::Result<SimFleet> {
    let sim = SimFleet::start(FleetSpec {
        dynamics: Dynamics::none(),
        ..FleetSpec::new(olts, onus_per_olt)
    })
    .await
    .context("the simulator did not start")?;
    for olt in 1..=olts as u32 {
        set_all(&sim, olt, true);
    }
    Ok(sim)
}

/// Takes every ONU of `olt` down (or up); how many changed.
fn set_all(sim: &SimFleet, olt: u32, online: bool) -> usize {
    let serials: Vec<String> = sim
        .expected_onus(olt)
        .into_iter()
        .filter(|o| (o.status == OnuStatus::Online) != online)
        .map(|o| o.serial.into())
        .collect();
    serials
        .iter()
        .filter(|s| sim.set_onu_online(olt, s, online))
        .count()
}

fn say(text: &str) {
    eprintln!("bench events: {text}");
}

pub async fn run(options: EventBenchOptions) -> anyhow::Result<EventBenchResult> {
    let work = tempfile::tempdir()?;
    say("E1 and E2: traps on, polling every 60 s");
    let (e1_ms_all, e2) = traps_and_streams(work.path(), &options).await?;
    say("E3: kill -9 under webhook delivery");
    let e3 = webhook::measure(work.path(), &options).await?;
    say("done");
    Ok(EventBenchResult {
        e1_ms_median: super::median(&e1_ms_all),
        e1_ms_all,
        e2_subscribers: options.subscribers,
        e2_events_per_subscriber: e2.events,
        e2_ms: e2.ms,
        e2_fan_out_ms: e2.fan_out_ms,
        e3,
    })
}

/// E1 on OLTs 1..=samples, E2 on the OLT after them.
async fn traps_and_streams(
    work: &Path,
    options: &EventBenchOptions,
) -> anyhow::Result<(Vec<f64>, OutageFigures)> {
    let olts = options.samples + 1;
    let mut sim = online_fleet(olts, options.onus_per_olt).await?;
    let traps = std::net::UdpSocket::bind("127.0.0.1:0")?.local_addr()?;
    sim.send_traps_to(traps);
    let sections = format!("[polling]\ninterval = \"60s\"\n[traps]\nlisten = \"{traps}\"\n");
    let mut serve = Serve::prepare(&work.join("streams"), &sim, &sections, Vec::new()).await?;
    serve.start(olts, options.onus_per_olt).await?;
    let mut e1 = Vec::new();
    for olt in 1..=options.samples as u32 {
        settle().await;
        e1.push(one_down(&serve, &sim, olt).await?);
        say(&format!("E1 sample {olt}: {:.0} ms", e1[e1.len() - 1]));
    }
    settle().await;
    let e2 = outage(&serve, &sim, olts as u32, options.subscribers).await?;
    say(&format!(
        "E2: {} subscribers × {} events in {:.0} ms",
        options.subscribers, e2.events, e2.ms
    ));
    serve.stop().await?;
    sim.shutdown().await;
    Ok((e1, e2))
}

/// S3 of `bench poll --schedule` (docs/benchmarks.md): `serve` polling every
/// `status_interval` (the other groups on their defaults), with or without traps; one ONU
/// of each of `samples` OLTs taken down in turn, each timed until its `ONU_DOWN` is on
/// the stream, in ms. Without traps the wait is the time to that OLT's next poll, so the
/// samples are staggered over the interval (sample i starts i/samples of an interval
/// after the previous one ended) instead of all falling just after a poll.
pub(crate) async fn down_to_event(
    work: &Path,
    samples: usize,
    onus_per_olt: usize,
    status_interval: Duration,
    traps: bool,
) -> anyhow::Result<Vec<f64>> {
    let mut sim = online_fleet(samples, onus_per_olt).await?;
    let mut sections = format!(
        "[polling]\nstatus_interval = \"{}\"\n",
        humantime::format_duration(status_interval)
    );
    if traps {
        let target = std::net::UdpSocket::bind("127.0.0.1:0")?.local_addr()?;
        sim.send_traps_to(target);
        sections.push_str(&format!("[traps]\nlisten = \"{target}\"\n"));
    }
    let dir = work.join(if traps { "s3-traps" } else { "s3-polls" });
    let mut serve = Serve::prepare(&dir, &sim, &sections, Vec::new()).await?;
    serve.start(samples, onus_per_olt).await?;
    let mut ms = Vec::with_capacity(samples);
    for (i, olt) in (1..=samples as u32).enumerate() {
        if traps {
            settle().await;
        } else {
            tokio::time::sleep(status_interval.mul_f64(i as f64 / samples as f64)).await;
        }
        ms.push(one_down(&serve, &sim, olt).await?);
    }
    serve.stop().await?;
    sim.shutdown().await;
    Ok(ms)
}

/// Waits out `traps.min_interval` (2 s by default) after the last trap-triggered poll.
/// The simulator's OLTs share one IP address, so a trap from any of them polls all of
/// them, and a second change within the interval would wait for the next allowed poll;
/// real OLTs, each on its own address, are not tied so.
async fn settle() {
    tokio::time::sleep(Duration::from_millis(2500)).await;
}

/// E1: one ONU of `olt` down until its `ONU_DOWN` is on a stream, in ms.
async fn one_down(serve: &Serve, sim: &SimFleet, olt: u32) -> anyhow::Result<f64> {
    let serial = sim
        .expected_onus(olt)
        .first()
        .map(|o| o.serial.to_string())
        .context("an OLT without ONUs")?;
    let mut stream = serve.stream(&format!("type=ONU_DOWN&oltId={olt}")).await?;
    let started = Instant::now();
    sim.set_onu_online(olt, &serial, false);
    let deadline = started + Duration::from_secs(30);
    while let Some(data) = stream.next_data(deadline).await? {
        if data.contains(serial.as_str()) {
            return Ok(started.elapsed().as_secs_f64() * 1e3);
        }
    }
    bail!("no ONU_DOWN for {serial} within 30 s ({:?})", serve.log())
}

struct OutageFigures {
    events: usize,
    ms: f64,
    fan_out_ms: f64,
}

/// E2: `subscribers` streams, every ONU of `olt` down at once, until each stream has
/// every `ONU_DOWN`.
async fn outage(
    serve: &Serve,
    sim: &SimFleet,
    olt: u32,
    subscribers: usize,
) -> anyhow::Result<OutageFigures> {
    let query = format!("type=ONU_DOWN&oltId={olt}");
    let mut streams = Vec::with_capacity(subscribers);
    for _ in 0..subscribers {
        streams.push(serve.stream(&query).await?);
    }
    let started = Instant::now();
    let events = set_all(sim, olt, false);
    let deadline = started + Duration::from_secs(60);
    let tasks: Vec<_> = streams
        .into_iter()
        .map(|mut stream| {
            tokio::spawn(async move {
                let mut first = None;
                for _ in 0..events {
                    stream
                        .next_data(deadline)
                        .await?
                        .context("the stream ended")?;
                    first.get_or_insert_with(Instant::now);
                }
                anyhow::Ok((first, Instant::now()))
            })
        })
        .collect();
    let mut firsts = Vec::new();
    let mut lasts = Vec::new();
    for task in tasks {
        let (first, last) = task.await??;
        firsts.extend(first);
        lasts.push(last);
    }
    let (Some(first), Some(last)) = (firsts.iter().min(), lasts.iter().max()) else {
        bail!("no subscriber received anything");
    };
    Ok(OutageFigures {
        events,
        ms: (*last - started).as_secs_f64() * 1e3,
        fan_out_ms: (*last - *first).as_secs_f64() * 1e3,
    })
}
