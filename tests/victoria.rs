//! The history kept in VictoriaMetrics (`[history] backend = "victoriametrics"`,
//! docs/operations.md, "History"), against the real `victoria-metrics` binary (Debian's
//! package, at /usr/bin/victoria-metrics; skipped loudly when absent, a failure under
//! `REQUIRE_TEST_TOOLS`) on a free loopback port in a temporary directory, and the real
//! service polling a steady simulated fleet. Polls, optics points and batches come every
//! second or two here (the 60 s would make a test of minutes); nothing asserts a
//! time. VictoriaMetrics runs with `-search.latencyOffset=0s`, so its `query_range`
//! shows the last seconds too, and with basic auth (the service's credentials come from
//! the variables `username_env` and `password_env` name); it is flushed
//! (`/internal/force_flush`) before reads.
//!
//! What the service reads back (`GET /onus/{id}/traffic/history` and the optics
//! history, raw and by step) is what it wrote (VictoriaMetrics' own `/api/v1/export`);
//! and while VictoriaMetrics is down the batches wait in the backlog (`/metrics`,
//! `/readyz`), and once it is back every one of them is sent, none lost.

use crate::common::{self, eventually, ports, steady_sim, TestService};
use ponkeeper::config::history_backend::Backend;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const BINARY: &str = "/usr/bin/victoria-metrics";
/// VictoriaMetrics' basic auth here, handed to the service through these variables
/// (`[history] username_env`, `password_env`).
const USER: (&str, &str) = ("PK_TEST_VM_USER", "ponkeeper");
const PASSWORD: (&str, &str) = ("PK_TEST_VM_PASSWORD", "vm-secret");
const LOCAL: &str = "%Y-%m-%dT%H:%M:%S";

/// A running `victoria-metrics`, killed when dropped.
struct Victoria {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl Victoria {
    async fn start(dir: &Path, port: u16) -> Victoria {
        let child = Command::new(BINARY)
            .arg(format!("-httpListenAddr=127.0.0.1:{port}"))
            .arg(format!("-storageDataPath={}", dir.display()))
            .arg("-retentionPeriod=100y")
            .arg("-search.latencyOffset=0s")
            .arg(format!("-httpAuth.username={}", USER.1))
            .arg(format!("-httpAuth.password={}", PASSWORD.1))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("victoria-metrics starts");
        let victoria = Victoria {
            child,
            port,
            dir: dir.to_path_buf(),
        };
        let health = format!("{}/health", victoria.url());
        eventually("VictoriaMetrics answers", Duration::from_secs(30), || {
            let health = health.clone();
            async move {
                let answer = authed(reqwest::Client::new().get(&health))
                    .send()
                    .await
                    .ok()?;
                answer.status().is_success().then_some(())
            }
        })
        .await;
        victoria
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Series `names` of ONU `onu` as VictoriaMetrics holds them, flushed first: by
    /// series name, second → value.
    async fn export(&self, names: &str, onu: u64) -> BTreeMap<String, BTreeMap<i64, f64>> {
        let client = reqwest::Client::new();
        authed(client.get(format!("{}/internal/force_flush", self.url())))
            .send()
            .await
            .expect("force_flush");
        let text = authed(client.get(format!("{}/api/v1/export", self.url())))
            .query(&[(
                "match[]",
                format!("{{__name__=~\"{names}\",onu=\"{onu}\"}}"),
            )])
            .send()
            .await
            .expect("export")
            .text()
            .await
            .expect("text");
        let mut series: BTreeMap<String, BTreeMap<i64, f64>> = BTreeMap::new();
        for line in text.lines().filter(|l| !l.is_empty()) {
            let line: Value = serde_json::from_str(line).expect("a JSON line");
            let name = line["metric"]["__name__"]
                .as_str()
                .expect("name")
                .to_string();
            let values = line["values"].as_array().expect("values");
            let times = line["timestamps"].as_array().expect("timestamps");
            for (value, at) in values.iter().zip(times) {
                let at = at.as_i64().expect("ms") / 1000;
                series
                    .entry(name.clone())
                    .or_default()
                    .insert(at, value.as_f64().expect("v"));
            }
        }
        series
    }
}

/// `request` with VictoriaMetrics' basic auth.
fn authed(request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
    request.basic_auth(USER.1, Some(PASSWORD.1))
}

impl Drop for Victoria {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Whether the binary is here (else the test is skipped, or fails under
/// `REQUIRE_TEST_TOOLS`).
fn installed(test: &str) -> bool {
    common::tools::file(test, "victoria-metrics", Path::new(BINARY))
}

/// The service on `sim` with its history in `victoria`: every poll group and optics
/// point each second.
async fn service_with(
    sim: &ponkeeper_sim::SimFleet,
    dir: &Path,
    victoria: &Victoria,
) -> TestService {
    let url = victoria.url();
    for (name, value) in [USER, PASSWORD] {
        std::env::set_var(name, value);
    }
    TestService::start_tuned(sim, dir.join("data"), |config| {
        config.history.backend = Backend::Victoriametrics;
        config.history.url = Some(url);
        config.history.username_env = Some(USER.0.into());
        config.history.password_env = Some(PASSWORD.0.into());
        config.polling.traffic_interval = Duration::from_secs(1);
        config.polling.optics_interval = Some(Duration::from_secs(1));
        config.optics.history_step = Duration::from_secs(1);
    })
    .await
}

/// An online ONU's id.
async fn online_onu(service: &TestService) -> u64 {
    eventually("an online ONU", Duration::from_secs(30), || async {
        let (_, body) = service.get("/onus?status=ONLINE&size=1").await;
        body["data"][0]["id"].as_u64()
    })
    .await
}

fn local(text: &Value) -> i64 {
    let text = text.as_str().unwrap_or_else(|| panic!("a time: {text}"));
    chrono::NaiveDateTime::parse_from_str(text, LOCAL)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
        .and_utc()
        .timestamp()
}

fn at_local(seconds: i64) -> String {
    chrono::DateTime::from_timestamp(seconds, 0)
        .expect("time")
        .naive_utc()
        .format(LOCAL)
        .to_string()
}

/// `field` of each point of `points`, by second (a traffic point's `at`, an optics
/// point's `measuredAt`).
fn by_second(points: &[Value], field: &str) -> BTreeMap<i64, f64> {
    points
        .iter()
        .filter_map(|p| {
            let at = if p["at"].is_null() {
                &p["measuredAt"]
            } else {
                &p["at"]
            };
            Some((local(at), p[field].as_f64()?))
        })
        .collect()
}

/// Whether two series have the same seconds and values within `within`.
fn alike(a: &BTreeMap<i64, f64>, b: &BTreeMap<i64, f64>, within: f64) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((at, x), (bt, y))| at == bt && (x - y).abs() <= within)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_history_read_back_is_the_history_written() {
    if !installed("the_history_read_back_is_the_history_written") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let [port] = ports::unused::<1>();
    let victoria = Victoria::start(&dir.path().join("vm"), port).await;
    let sim = steady_sim(1, 4).await;
    let service = service_with(&sim, dir.path(), &victoria).await;
    let id = online_onu(&service).await;
    // VictoriaMetrics wants the credentials the service takes from the environment.
    let export = format!("{}/api/v1/export?match[]=up", victoria.url());
    let unauthenticated = reqwest::get(&export).await.expect("GET").status();
    assert_eq!(unauthenticated, 401);
    let written = raw_traffic_read_back(&service, &victoria, id).await;
    traffic_buckets_read_back(&service, id, &written["ponkeeper_onu_traffic_in_bps"]).await;
    optics_read_back(&service, &victoria, id).await;
    // Nothing of the history went to the local store.
    let mut any = false;
    service
        .state
        .store
        .traffic_history(id, chrono::DateTime::UNIX_EPOCH, chrono::Utc::now(), |_| {
            any = true;
            false
        })
        .expect("local read");
    assert!(!any, "traffic points were written to the local store too");
    service.stop().await;
}

/// Every traffic point of ONU `id` written up to a moment is read back raw: once the
/// batches holding them were sent, both sides agree (checked again until they do).
/// Returns what VictoriaMetrics held then.
async fn raw_traffic_read_back(
    service: &TestService,
    victoria: &Victoria,
    id: u64,
) -> BTreeMap<String, BTreeMap<i64, f64>> {
    let traffic = "ponkeeper_onu_traffic_(in|out)_bps";
    let (points, written) = eventually("traffic read back", Duration::from_secs(60), || async {
        let written = victoria.export(traffic, id).await;
        let ins = written.get("ponkeeper_onu_traffic_in_bps")?;
        let to = *ins.keys().nth(3)?;
        let from = *ins.keys().next()?;
        let query = format!("from={}&to={}&limit=10000", at_local(from), at_local(to));
        let (status, body) = service
            .get(&format!("/onus/{id}/traffic/history?{query}"))
            .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["meta"]["resolution"], "raw", "{body}");
        let points = body["data"].as_array()?.clone();
        // The answer gives whole bits a second.
        let within = |s: &BTreeMap<i64, f64>| -> BTreeMap<i64, f64> {
            s.range(from..=to).map(|(k, v)| (*k, v.round())).collect()
        };
        let same = by_second(&points, "inBps") == within(ins)
            && by_second(&points, "outBps")
                == within(written.get("ponkeeper_onu_traffic_out_bps")?);
        same.then_some((points, written))
    })
    .await;
    assert!(points.len() >= 4, "{points:?}");
    assert!(points.iter().all(|p| p["count"] == 1 && p["min"].is_null()));
    written
}

/// By a step of a minute: each bucket's mean, least, greatest and count of the in rates
/// `ins` written.
async fn traffic_buckets_read_back(service: &TestService, id: u64, ins: &BTreeMap<i64, f64>) {
    let from = *ins.keys().next().expect("a point");
    let to = *ins.keys().last().expect("a point");
    let query = format!("from={}&to={}&step=1m", at_local(from), at_local(to));
    let (status, body) = service
        .get(&format!("/onus/{id}/traffic/history?{query}"))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["meta"]["step"], "1m", "{body}");
    let buckets = body["data"].as_array().expect("buckets");
    let mut expected: BTreeMap<i64, Vec<f64>> = BTreeMap::new();
    for (at, value) in ins.range(from..=to) {
        expected
            .entry(from + (at - from).div_euclid(60) * 60)
            .or_default()
            .push(*value);
    }
    assert_eq!(buckets.len(), expected.len(), "{buckets:?}");
    // Rates are answered in whole bits a second.
    let near = |a: &Value, b: f64| {
        a.as_f64()
            .is_some_and(|a| (a - b).abs() <= 0.5 + 1e-9 * b.abs())
    };
    for (bucket, (start, values)) in buckets.iter().zip(&expected) {
        assert_eq!(local(&bucket["at"]), *start, "{bucket}");
        assert_eq!(
            bucket["count"].as_u64(),
            Some(values.len() as u64),
            "{bucket}"
        );
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let least = values.iter().copied().fold(f64::INFINITY, f64::min);
        let most = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        assert!(near(&bucket["inBps"], mean), "{bucket} {mean}");
        assert!(near(&bucket["min"]["inBps"], least), "{bucket} {least}");
        assert!(near(&bucket["max"]["inBps"], most), "{bucket} {most}");
    }
}

/// The optics history of ONU `id`: every point written, read back with its readings.
async fn optics_read_back(service: &TestService, victoria: &Victoria, id: u64) {
    eventually("optics read back", Duration::from_secs(60), || async {
        let written = victoria.export("ponkeeper_onu_optics_.*", id).await;
        let carried = written.get("ponkeeper_onu_optics_read")?;
        let (from, to) = (*carried.keys().next()?, *carried.keys().nth(2)?);
        let query = format!("from={}&to={}&limit=10000", at_local(from), at_local(to));
        let (status, body) = service
            .get(&format!("/onus/{id}/optics/history?{query}"))
            .await;
        assert_eq!(status, 200, "{body}");
        let points = body["data"].as_array()?.clone();
        let mut same = points.len() == carried.range(from..=to).count();
        for (name, field) in [
            ("ponkeeper_onu_optics_rx_dbm", "rxPower"),
            ("ponkeeper_onu_optics_tx_dbm", "txPower"),
            ("ponkeeper_onu_optics_temperature_celsius", "temperature"),
        ] {
            let series: BTreeMap<i64, f64> = written
                .get(name)
                .map(|s| s.range(from..=to).map(|(k, v)| (*k, *v)).collect())
                .unwrap_or_default();
            same &= alike(&by_second(&points, field), &series, 0.006);
        }
        same &= points.iter().any(|p| p["rxPower"].is_number());
        same.then_some(())
    })
    .await;
}

/// The backlog's batches and bytes, and the batches dropped, from `/metrics`.
async fn backlog(service: &TestService) -> (f64, f64, f64) {
    let root = service.base.trim_end_matches("/api/v1/external");
    let text = reqwest::Client::new()
        .get(format!("{root}/metrics"))
        .header("X-API-Key", &service.read_only)
        .send()
        .await
        .expect("GET /metrics")
        .text()
        .await
        .expect("text");
    let value = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.trim().parse::<f64>().ok())
            .unwrap_or_else(|| panic!("{name} in /metrics"))
    };
    (
        value("ponkeeper_history_backlog_batches "),
        value("ponkeeper_history_backlog_bytes "),
        value("ponkeeper_history_backlog_dropped_batches_total "),
    )
}

/// The points of the batches waiting in `data_dir`'s backlog: (series name, ONU, second,
/// value).
fn waiting(data_dir: &Path) -> Vec<(String, String, i64, f64)> {
    let mut points = Vec::new();
    let dir = data_dir.join("history-backlog");
    for entry in std::fs::read_dir(dir).expect("the backlog directory") {
        let Ok(text) = std::fs::read_to_string(entry.expect("entry").path()) else {
            continue;
        };
        for line in text.lines().filter(|l| !l.is_empty()) {
            let line: Value = serde_json::from_str(line).expect("a JSON line");
            let name = line["metric"]["__name__"]
                .as_str()
                .expect("name")
                .to_string();
            let onu = line["metric"]["onu"].as_str().expect("onu").to_string();
            for (value, at) in line["values"]
                .as_array()
                .expect("v")
                .iter()
                .zip(line["timestamps"].as_array().expect("t"))
            {
                let at = at.as_i64().expect("ms") / 1000;
                points.push((name.clone(), onu.clone(), at, value.as_f64().expect("v")));
            }
        }
    }
    points
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_wait_while_victoria_metrics_is_down_and_none_is_lost() {
    if !installed("batches_wait_while_victoria_metrics_is_down_and_none_is_lost") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let [port] = ports::unused::<1>();
    let vm_dir = dir.path().join("vm");
    let mut victoria = Victoria::start(&vm_dir, port).await;
    let sim = steady_sim(1, 4).await;
    let service = service_with(&sim, dir.path(), &victoria).await;
    let id = online_onu(&service).await;
    eventually(
        "points in VictoriaMetrics",
        Duration::from_secs(60),
        || async {
            let written = victoria.export("ponkeeper_onu_traffic_in_bps", id).await;
            (!written.is_empty()).then_some(())
        },
    )
    .await;

    victoria.stop();
    eventually(
        "a backlog of 3 batches",
        Duration::from_secs(60),
        || async {
            let (batches, bytes, _) = backlog(&service).await;
            (batches >= 3.0 && bytes > 0.0).then_some(())
        },
    )
    .await;
    let root = service.base.trim_end_matches("/api/v1/external");
    let body: Value = reqwest::get(format!("{root}/readyz"))
        .await
        .expect("GET /readyz")
        .json()
        .await
        .expect("JSON");
    assert_eq!(body["data"]["ready"], true, "{body}");
    let checks = body["data"]["checks"].as_array().expect("checks");
    let history = checks
        .iter()
        .find(|c| c["name"] == "history")
        .expect("a history check");
    let detail = history["detail"].as_str().expect("detail");
    assert!(
        detail.contains("backlog") && detail.contains("last send failed"),
        "{detail}"
    );
    let held = waiting(&service.data_dir);
    assert!(!held.is_empty());

    let victoria = Victoria::start(&victoria.dir.clone(), port).await;
    eventually("the backlog sent", Duration::from_secs(60), || async {
        let (batches, bytes, _) = backlog(&service).await;
        (batches == 0.0 && bytes == 0.0).then_some(())
    })
    .await;
    let (_, _, dropped) = backlog(&service).await;
    assert_eq!(dropped, 0.0);
    // Every point that waited is in VictoriaMetrics now.
    let missing = lost(&victoria, &held).await;
    assert!(
        missing.is_empty(),
        "{} of {} points lost: {missing:?}",
        missing.len(),
        held.len()
    );
    service.stop().await;
}

/// The points of `held` that `victoria` does not hold (a value within its precision of
/// some 15 significant digits).
async fn lost<'a>(
    victoria: &Victoria,
    held: &'a [(String, String, i64, f64)],
) -> Vec<&'a (String, String, i64, f64)> {
    let mut present: BTreeMap<(String, String), BTreeMap<i64, f64>> = BTreeMap::new();
    let mut missing = Vec::new();
    for point in held {
        let (name, onu, at, value) = point;
        let key = (name.clone(), onu.clone());
        if !present.contains_key(&key) {
            let onu_id: u64 = onu.parse().expect("an ONU id");
            let series = victoria
                .export(name, onu_id)
                .await
                .remove(name)
                .unwrap_or_default();
            present.insert(key.clone(), series);
        }
        let kept = present[&key].get(at);
        if !kept.is_some_and(|kept| (kept - value).abs() <= 1e-9 * value.abs()) {
            missing.push(point);
        }
    }
    missing
}
