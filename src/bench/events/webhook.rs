//! E3 of `bench events`: a webhook receiver in this process (axum on loopback, answering
//! 200 and noting each event id in arrival order), `serve` polling every second with
//! one `[[webhooks]]` entry for every type, and enough OLTs that all their ONUs going
//! down at once log about `--webhook-events` events. `serve` is killed with SIGKILL once
//! part of them is delivered, and started again; the figures say whether every event
//! arrived at least once, whether the first deliveries came in the log's order, and how
//! many arrived twice.

use super::EventBenchOptions;
use super::{online_fleet, say, set_all, Serve};
use anyhow::bail;
use axum::extract::State;
use axum::routing::post;
use base64::Engine;
use serde::Serialize;
use std::collections::HashSet;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The share of the events delivered when `serve` is killed.
const KILL_AT: f64 = 0.3;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookFigures {
    /// Events logged after the webhook had caught up: the ones that must arrive.
    pub events: usize,
    pub delivered_before_kill: usize,
    /// Events never delivered (target 0).
    pub lost: usize,
    /// Whether the first delivery of each event came in the log's order.
    pub in_order: bool,
    /// Deliveries of an event already delivered (at-least-once redelivery after the kill).
    pub duplicates: usize,
    /// From the restart until the last event was delivered.
    pub seconds_to_catch_up: f64,
    /// Deliveries per second before the kill.
    pub deliveries_per_second: f64,
}

/// Every event id the receiver was sent, in arrival order.
type Received = Arc<Mutex<Vec<u64>>>;

async fn receive(State(received): State<Received>, body: axum::body::Bytes) -> &'static str {
    let id = serde_json::from_slice::<serde_json::Value>(&body)
        .ok()
        .and_then(|event| event["id"].as_u64());
    if let (Some(id), Ok(mut received)) = (id, received.lock()) {
        received.push(id);
    }
    "ok"
}

/// The receiver on a loopback port; its URL.
async fn start_receiver(received: Received) -> anyhow::Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/hook", listener.local_addr()?);
    let router = axum::Router::new()
        .route("/hook", post(receive))
        .with_state(received);
    tokio::spawn(async move { axum::serve(listener, router).await });
    Ok(url)
}

fn count_above(received: &Received, baseline: u64) -> usize {
    received
        .lock()
        .map_or(0, |r| r.iter().filter(|id| **id > baseline).count())
}

pub async fn measure(work: &Path, options: &EventBenchOptions) -> anyhow::Result<WebhookFigures> {
    let olts = options.webhook_events.div_ceil(options.onus_per_olt).max(1);
    let sim = online_fleet(olts, options.onus_per_olt).await?;
    let received = Received::default();
    let url = start_receiver(received.clone()).await?;
    let secret = format!(
        "whsec_{}",
        base64::engine::general_purpose::STANDARD.encode(rand::random::<[u8; 32]>())
    );
    let sections = format!(
        "[polling]\ninterval = \"1s\"\n\
         [[webhooks]]\nname = \"bench\"\nurl = \"{url}\"\nsecret_env = \"BENCH_WEBHOOK_SECRET\"\n"
    );
    let env = vec![("BENCH_WEBHOOK_SECRET", secret)];
    let mut serve = Serve::prepare(&work.join("webhooks"), &sim, &sections, env).await?;
    serve.start(olts, options.onus_per_olt).await?;
    let baseline = caught_up(&serve, &received).await?;

    let down: usize = (1..=olts as u32).map(|olt| set_all(&sim, olt, false)).sum();
    say(&format!("E3: {down} ONUs of {olts} OLTs down"));
    let kill_at = (down as f64 * KILL_AT) as usize;
    let started = Instant::now();
    wait_for(|| count_above(&received, baseline) >= kill_at, "deliveries").await?;
    let delivered_before_kill = count_above(&received, baseline);
    let rate = delivered_before_kill as f64 / started.elapsed().as_secs_f64();
    serve.kill_9().await?;
    say(&format!(
        "E3: killed with {delivered_before_kill} delivered"
    ));

    let restarted = Instant::now();
    serve.start(olts, options.onus_per_olt).await?;
    let last = caught_up(&serve, &received).await?;
    let seconds_to_catch_up = restarted.elapsed().as_secs_f64();
    serve.stop().await?;
    sim.shutdown().await;

    let arrived = received.lock().map(|r| r.clone()).unwrap_or_default();
    Ok(figures(
        &arrived,
        baseline,
        last,
        delivered_before_kill,
        seconds_to_catch_up,
        rate,
    ))
}

/// Waits until the receiver has every event up to the newest in the log (and the log has
/// stopped growing for a second); the newest id.
async fn caught_up(serve: &Serve, received: &Received) -> anyhow::Result<u64> {
    let started = Instant::now();
    let mut settled: Option<(u64, Instant)> = None;
    loop {
        let newest = serve.newest_event().await?;
        let has = received
            .lock()
            .is_ok_and(|r| newest == 0 || r.contains(&newest));
        match settled {
            Some((id, since)) if id == newest && has => {
                if since.elapsed() >= Duration::from_secs(1) {
                    return Ok(newest);
                }
            }
            _ => settled = has.then(|| (newest, Instant::now())),
        }
        if started.elapsed() > Duration::from_secs(300) {
            bail!("the webhook did not catch up with event {newest} within 5 min");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn wait_for(done: impl Fn() -> bool, what: &str) -> anyhow::Result<()> {
    let started = Instant::now();
    while !done() {
        if started.elapsed() > Duration::from_secs(120) {
            bail!("no {what} within 2 min");
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    Ok(())
}

/// What arrived, judged against the ids `baseline + 1 ..= last` the log holds.
fn figures(
    arrived: &[u64],
    baseline: u64,
    last: u64,
    delivered_before_kill: usize,
    seconds_to_catch_up: f64,
    deliveries_per_second: f64,
) -> WebhookFigures {
    let mut seen = HashSet::new();
    let mut first_deliveries = Vec::new();
    let mut duplicates = 0;
    for id in arrived.iter().copied().filter(|id| *id > baseline) {
        if seen.insert(id) {
            first_deliveries.push(id);
        } else {
            duplicates += 1;
        }
    }
    let expected: Vec<u64> = (baseline + 1..=last).collect();
    WebhookFigures {
        events: expected.len(),
        delivered_before_kill,
        lost: expected.iter().filter(|id| !seen.contains(*id)).count(),
        in_order: first_deliveries == expected,
        duplicates,
        seconds_to_catch_up,
        deliveries_per_second,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redeliveries_are_duplicates_and_gaps_are_lost() {
        // Delivered 11..=13, killed, 13 again, then 14 and 16: 15 is lost.
        let f = figures(&[9, 11, 12, 13, 13, 14, 16], 10, 16, 3, 1.0, 1.0);
        assert_eq!(
            (f.events, f.lost, f.duplicates, f.in_order),
            (6, 1, 1, false)
        );
        let f = figures(&[11, 12, 12, 13], 10, 13, 2, 1.0, 1.0);
        assert_eq!(
            (f.events, f.lost, f.duplicates, f.in_order),
            (3, 0, 1, true)
        );
        let f = figures(&[12, 11], 10, 12, 2, 1.0, 1.0);
        assert_eq!((f.lost, f.in_order), (0, false));
    }
}
