//! The operations surface through the real HTTP server on a simulated fleet:
//! `/healthz` and `/readyz` without a key, CORS for the configured origins only,
//! `metrics.public`, and the Grafana dashboard in `deploy/grafana/ponkeeper.json`
//! checked against the metric names a real `/metrics` scrape exports.

use crate::common::{all_polled, steady_sim, TestService};
use reqwest::Method;
use serde_json::{json, Value};
use std::collections::BTreeSet;

fn root(service: &TestService) -> String {
    service
        .base
        .trim_end_matches("/api/v1/external")
        .to_string()
}

async fn get_json(url: &str) -> (u16, Value) {
    let response = reqwest::get(url).await.expect("HTTP request");
    let status = response.status().as_u16();
    (status, response.json().await.expect("JSON"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_and_readiness_need_no_key() {
    let sim = steady_sim(2, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    let root = root(&service);

    let (status, body) = get_json(&format!("{root}/healthz")).await;
    assert_eq!(status, 200);
    assert_eq!(body, json!({ "success": true, "data": { "status": "ok" } }));

    let (status, body) = get_json(&format!("{root}/readyz")).await;
    assert_eq!(status, 200, "{body}");
    // The store's check names the room left on its disk, which varies.
    let store_detail = body["data"]["checks"][0]["detail"].clone();
    let free = store_detail.as_str().unwrap_or_default();
    assert!(
        free.starts_with("writable, ") && free.ends_with(" MiB free"),
        "{body}"
    );
    // The history estimate is of the ONUs the fleet view knows: none before the first
    // poll, 2 × 4 after.
    let estimate = body["data"]["historyEstimate"].clone();
    let onus = estimate["onus"].as_u64().unwrap_or(u64::MAX);
    assert!(onus == 0 || onus == 8, "{body}");
    let positive = |field: &str| estimate[field].as_u64().is_some_and(|b| b > 0);
    assert_eq!(
        (positive("bytesPerDay"), positive("steadyStateBytes")),
        (onus > 0, onus > 0),
        "{body}"
    );
    assert_eq!(
        body,
        json!({ "success": true, "data": { "ready": true, "checks": [
            { "name": "store", "ok": true, "detail": store_detail },
            { "name": "fleet", "ok": true, "detail": "2 OLTs running, inventory reconciled" },
        ], "historyEstimate": estimate } })
    );
    // The rest of the API still wants a key.
    let (status, body) = get_json(&format!("{}/olts", service.base)).await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (401, json!("UNAUTHORIZED"))
    );

    // Stop the fleet's actors behind the service's back: not ready, and it says why.
    service.state.fleet.shutdown().await;
    let (status, body) = get_json(&format!("{root}/readyz")).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["success"], false);
    assert_eq!(body["error"]["code"], "NOT_READY");
    assert_eq!(
        body["error"]["message"],
        "fleet: OLTs without a running actor: 1, 2"
    );
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn preflights_from_allowed_origins_get_cors_and_others_do_not() {
    let sim = steady_sim(1, 2).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start_tuned(&sim, dir.path().to_path_buf(), |config| {
        config.cors_origins = vec!["https://noc.example".into()];
    })
    .await;
    let client = reqwest::Client::new();
    let preflight = |origin: &'static str| {
        client
            .request(Method::OPTIONS, format!("{}/olts", service.base))
            .header("Origin", origin)
            .header("Access-Control-Request-Method", "GET")
            .header("Access-Control-Request-Headers", "x-api-key")
            .send()
    };

    let allowed = preflight("https://noc.example").await.expect("preflight");
    assert_eq!(allowed.status().as_u16(), 200);
    let headers = allowed.headers();
    assert_eq!(
        headers["access-control-allow-origin"],
        "https://noc.example"
    );
    let methods = headers["access-control-allow-methods"]
        .to_str()
        .expect("text");
    assert!(
        methods.contains("GET") && methods.contains("POST"),
        "{methods}"
    );
    assert_eq!(
        headers["access-control-allow-headers"],
        "x-api-key,content-type"
    );

    let refused = preflight("https://evil.example").await.expect("preflight");
    assert_eq!(refused.status().as_u16(), 401);
    assert!(refused
        .headers()
        .keys()
        .all(|name| !name.as_str().starts_with("access-control-")));

    // The real request from the allowed origin carries the header; others do not.
    for (origin, expected) in [
        ("https://noc.example", Some("https://noc.example")),
        ("https://evil.example", None),
    ] {
        let (status, headers, _) = service
            .send(
                Method::GET,
                "/olts",
                &service.read_only,
                &[("Origin", origin)],
            )
            .await;
        assert_eq!(status, 200);
        let got = headers
            .get("access-control-allow-origin")
            .map(|v| v.to_str().expect("text"));
        assert_eq!(got, expected, "{origin}");
    }
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_need_a_key_unless_public() {
    let sim = steady_sim(1, 2).await;
    let keyed_dir = tempfile::tempdir().expect("tempdir");
    let keyed = TestService::start(&sim, keyed_dir.path().to_path_buf()).await;
    let response = reqwest::get(format!("{}/metrics", root(&keyed)))
        .await
        .expect("scrape");
    assert_eq!(response.status().as_u16(), 401);
    keyed.stop().await;

    let public_dir = tempfile::tempdir().expect("tempdir");
    let public = TestService::start_tuned(&sim, public_dir.path().to_path_buf(), |config| {
        config.metrics.public = true;
    })
    .await;
    let response = reqwest::get(format!("{}/metrics", root(&public)))
        .await
        .expect("scrape");
    assert_eq!(response.status().as_u16(), 200);
    let text = response.text().await.expect("text");
    assert!(text.contains("ponkeeper_olt_status{olt=\"1\""), "{text}");
    public.stop().await;
}

/// Every `ponkeeper_*` name in the expressions of the dashboard's panels.
fn dashboard_metric_names() -> BTreeSet<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/deploy/grafana/ponkeeper.json");
    let text = std::fs::read_to_string(path).expect("the dashboard");
    let dashboard: Value = serde_json::from_str(&text).expect("the dashboard is JSON");
    let mut names = BTreeSet::new();
    let panels = dashboard["panels"].as_array().expect("panels");
    let titles: Vec<&str> = panels.iter().filter_map(|p| p["title"].as_str()).collect();
    for wanted in [
        "Fleet status",
        "Offline ONUs by node",
        "Poll duration",
        "Worst signals",
    ] {
        assert!(titles.contains(&wanted), "no panel {wanted}: {titles:?}");
    }
    for panel in panels {
        for target in panel["targets"].as_array().expect("targets") {
            let expr = target["expr"].as_str().expect("expr");
            let mut rest = expr;
            while let Some(at) = rest.find("ponkeeper_") {
                let tail = &rest[at..];
                let end = tail
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(tail.len());
                names.insert(tail[..end].to_string());
                rest = &tail[end..];
            }
        }
    }
    names
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_metric_the_dashboard_uses_is_exported() {
    let sim = steady_sim(2, 8).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    all_polled(&service).await;
    let response = reqwest::Client::new()
        .get(format!("{}/metrics", root(&service)))
        .header("X-API-Key", &service.read_only)
        .send()
        .await
        .expect("scrape");
    assert_eq!(response.status().as_u16(), 200);
    let text = response.text().await.expect("text");
    let exported: BTreeSet<&str> = text
        .lines()
        .filter(|line| !line.starts_with('#') && !line.is_empty())
        .filter_map(|line| line.split(['{', ' ']).next())
        .collect();
    let used = dashboard_metric_names();
    assert!(used.len() >= 12, "{used:?}");
    let missing: Vec<&String> = used
        .iter()
        .filter(|n| !exported.contains(n.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "the dashboard uses {missing:?}, /metrics has {exported:?}"
    );
    // The node and worst-signal series carry the fleet's real values.
    assert!(text.contains("ponkeeper_node_onus{node=\"1\""), "{text}");
    let worst = text
        .lines()
        .filter(|l| l.starts_with("ponkeeper_worst_onu_rx_dbm{"))
        .count();
    assert_eq!(worst, 10, "{text}");
    service.stop().await;
}
