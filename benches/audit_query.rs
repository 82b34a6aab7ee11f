//! `GET /audit-logs?from=…&to=…` for one day over 1,000,000 stored audit entries (issue
//! 17: p99 ≤ 25 ms), through the real service on `127.0.0.1:0`: the entries are written
//! into a fresh data directory through the service's own records (400 days, one every
//! 34.56 s, 2,500 a day), the service is started on it with an empty inventory, and 500
//! one-day queries for random days (page of 20, newest first) are timed from the client
//! after 50 for warm-up. For scale, a few queries without `from`/`to` (a filter on the
//! action, which has no index and reads the whole log) are timed too.
//!
//!   cargo bench --bench audit_query            (AUDIT_BENCH_ENTRIES=… to change the size)

use chrono::{Duration, Utc};
use ponkeeper::app::App;
use ponkeeper::config::Config;
use ponkeeper::records::{AccessLevel, AuditEntry, AuditResult, Records};
use ponkeeper_actors::store::Store;
use rand::Rng;
use std::time::Instant;

const QUERIES: usize = 500;
const WARM_UP: usize = 50;
const DAYS: i64 = 400;

fn entry(at: chrono::DateTime<Utc>, n: u64) -> AuditEntry {
    AuditEntry {
        id: 0,
        at,
        key_name: Some(format!("key-{}", n % 7)),
        client_ip: "10.0.0.1".into(),
        method: "POST".into(),
        path: format!("/api/v1/external/onus/{}/reboot", n % 5000),
        action: if n % 3 == 0 {
            "onu.set_vlan"
        } else {
            "onu.reboot"
        }
        .into(),
        target: Some(format!("onu {}", n % 5000)),
        params: None,
        result: AuditResult::Success,
        http_status: 200,
        error_code: None,
        duration_ms: 3,
        channel: Default::default(),
    }
}

async fn fill(dir: &std::path::Path, entries: u64, start: chrono::DateTime<Utc>) {
    let store = Store::open(dir).expect("store");
    let records = Records::open(&store).expect("records");
    let step = Duration::milliseconds(DAYS * 86_400_000 / entries as i64);
    let began = Instant::now();
    for n in 0..entries {
        records
            .insert_audit(entry(start + step * n as i32, n))
            .expect("insert");
    }
    store.flush().await.expect("flush");
    eprintln!("wrote {entries} entries in {:.1?}", began.elapsed());
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let entries: u64 = std::env::var("AUDIT_BENCH_ENTRIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).expect("data dir");
    let start = (Utc::now() - Duration::days(DAYS))
        .date_naive()
        .and_hms_opt(0, 0, 0)
        .expect("midnight")
        .and_utc();
    fill(&data, entries, start).await;

    let inventory = dir.path().join("inventory.toml");
    std::fs::write(&inventory, "").expect("inventory");
    let mut config = Config {
        data_dir: data.clone(),
        inventory,
        timezone: "UTC".into(),
        ..Config::default()
    };
    config.rate_limit.default = "100000/s".into(); // the bench times queries, not the limiter
                                                   // sled lets go of the files a moment after the last handle is dropped.
    let mut app = None;
    for _ in 0..100 {
        match App::start(config.clone()).await {
            Ok(started) => {
                app = Some(started);
                break;
            }
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(50)).await,
        }
    }
    let app = app.expect("the service starts on the filled data directory");
    let key = ponkeeper::keys::replace(
        &app.state.records,
        &app.state.keys,
        "bench",
        AccessLevel::ReadOnly,
    )
    .await
    .expect("key");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!(
        "http://{}/api/v1/external",
        listener.local_addr().expect("addr")
    );
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(app.serve(listener, async {
        let _ = stopped.await;
    }));

    let client = reqwest::Client::new();
    let mut rng = rand::rng();
    let mut times = Vec::with_capacity(QUERIES);
    let mut total_seen = 0u64;
    for n in 0..WARM_UP + QUERIES {
        let day = start + Duration::days(rng.random_range(1..DAYS - 1));
        let from = day.format("%Y-%m-%dT00:00:00");
        let to = day.format("%Y-%m-%dT23:59:59");
        let url = format!("{base}/audit-logs?from={from}&to={to}");
        let began = Instant::now();
        let response = client
            .get(&url)
            .header("X-API-Key", &key)
            .send()
            .await
            .expect("GET");
        let status = response.status().as_u16();
        let body: serde_json::Value = response.json().await.expect("JSON");
        assert_eq!(status, 200, "{url}: {body}");
        let elapsed = began.elapsed().as_secs_f64() * 1000.0;
        assert_eq!(
            body["data"].as_array().map(Vec::len),
            Some(20),
            "{url}: {body}"
        );
        if n >= WARM_UP {
            times.push(elapsed);
            total_seen += body["meta"]["totalCount"].as_u64().unwrap_or(0);
        }
    }
    times.sort_by(f64::total_cmp);
    let mut scans = Vec::new();
    for _ in 0..3 {
        let began = Instant::now();
        let response = client
            .get(format!("{base}/audit-logs?action=onu.set_vlan"))
            .header("X-API-Key", &key)
            .send()
            .await
            .expect("GET");
        assert_eq!(response.status().as_u16(), 200);
        let _ = response.bytes().await;
        scans.push(began.elapsed().as_secs_f64() * 1000.0);
    }
    println!(
        "GET /audit-logs?from=&to= (one day) over {entries} entries: {QUERIES} queries, \
         {:.0} entries per day matched on average; p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        total_seen as f64 / QUERIES as f64,
        percentile(&times, 50.0),
        percentile(&times, 90.0),
        percentile(&times, 99.0),
        times[times.len() - 1],
    );
    println!(
        "for scale, GET /audit-logs?action=… (no time range, whole log read): {:.0} ms",
        scans.iter().copied().fold(f64::INFINITY, f64::min)
    );
    let p99 = percentile(&times, 99.0);
    println!(
        "target p99 <= 25 ms: {}",
        if p99 <= 25.0 { "met" } else { "NOT met" }
    );
    let _ = stop.send(());
    serving.await.expect("serve task").expect("clean stop");
}
