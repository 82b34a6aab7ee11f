//! The operator page as HTTP sees it, through the real server: `/` leads to `/ui/`, the
//! page and its assets load without a key from inside the binary, the language follows
//! `Accept-Language`, an unknown asset is the envelope, and the audit log tells the page's
//! calls (`X-Ponkeeper-Channel: UI`) from REST ones. `scripts/check_ui.py` drives the
//! same page in a real browser.

use crate::common;

use crate::common::{steady_sim, TestService};
use reqwest::redirect::Policy;
use serde_json::Value;

fn root(service: &TestService) -> String {
    service
        .base
        .strip_suffix(ponkeeper::http::BASE)
        .expect("base ends with the API path")
        .to_string()
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(Policy::none())
        .build()
        .expect("client")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_and_its_assets_load_without_a_key() {
    let sim = steady_sim(1, 2).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().join("data")).await;
    let (root, client) = (root(&service), client());

    let redirect = client.get(format!("{root}/")).send().await.expect("GET /");
    assert_eq!(redirect.status(), 303);
    assert_eq!(redirect.headers()["location"], "/ui/");

    let page = client
        .get(format!("{root}/ui/"))
        .header("Accept-Language", "ru-RU,ru;q=0.9,en;q=0.8")
        .send()
        .await
        .expect("GET /ui/");
    assert_eq!(page.status(), 200);
    assert_eq!(page.headers()["content-type"], "text/html; charset=utf-8");
    let csp = page.headers()["content-security-policy"]
        .to_str()
        .expect("ascii")
        .to_string();
    assert!(csp.starts_with("default-src 'self'"), "{csp}");
    let html = page.text().await.expect("html");
    assert!(html.contains(r#"<html lang="ru">"#), "{html}");
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "nothing from outside"
    );

    let english = client.get(format!("{root}/ui/")).send().await.expect("GET");
    assert!(english
        .text()
        .await
        .expect("html")
        .contains(r#"<html lang="en">"#));

    for (asset, kind) in [
        ("app.js", "text/javascript; charset=utf-8"),
        ("views.js", "text/javascript; charset=utf-8"),
        ("onu.js", "text/javascript; charset=utf-8"),
        ("i18n.js", "text/javascript; charset=utf-8"),
        ("style.css", "text/css; charset=utf-8"),
        ("vendor/uPlot.iife.min.js", "text/javascript; charset=utf-8"),
        ("vendor/uPlot.min.css", "text/css; charset=utf-8"),
    ] {
        let answer = client
            .get(format!("{root}/ui/{asset}"))
            .send()
            .await
            .expect("asset");
        assert_eq!(answer.status(), 200, "{asset}");
        assert_eq!(answer.headers()["content-type"], kind, "{asset}");
        assert!(!answer.bytes().await.expect("body").is_empty(), "{asset}");
    }

    // Assets are a fixed list compiled in, not files: nothing else under /ui/ answers.
    let missing = client
        .get(format!("{root}/ui/secret.js"))
        .send()
        .await
        .expect("GET");
    assert_eq!(missing.status(), 404);
    let body: Value = missing.json().await.expect("the envelope");
    assert_eq!(body["success"], false);
    assert_eq!(body["error"]["code"], "NOT_FOUND");

    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_log_says_which_channel_a_call_came_from() {
    let sim = steady_sim(1, 2).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().join("data")).await;
    common::all_polled(&service).await;

    let (status, _, _) = service
        .send(
            reqwest::Method::POST,
            "/olts/1/poll",
            &service.full,
            &[("X-Ponkeeper-Channel", "UI")],
        )
        .await;
    assert_eq!(status, 200);
    let (status, _) = service.post("/olts/1/poll").await;
    assert_eq!(status, 200);

    let (status, log) = service
        .request(
            reqwest::Method::GET,
            "/audit-logs?action=olt.poll",
            Some(&service.full),
        )
        .await;
    assert_eq!(status, 200, "{log}");
    let channels: Vec<&str> = log["data"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|entry| entry["channel"].as_str().expect("a channel"))
        .collect();
    assert_eq!(channels, ["REST", "UI"], "newest first");

    service.stop().await;
    sim.shutdown().await;
}
