//! The smaller findings of the second security probe (issue 36), each replayed through the
//! real server the way the probe did it, at a small scale: keyless POSTs from as many
//! addresses as requests (an IPv6 /64, or random forwarded addresses through a trusted
//! proxy) against the audit log's shared budget; `ponkeeper keys create` run before the
//! first `serve`, under the usual umask, against the store's file modes; answers from a
//! service with CORS origins, which differ by `Origin`, against a shared cache;
//! subscriber fields with bidirectional overrides and line separators, which make logs and
//! exports read otherwise than they are.

use crate::common::audit::refusals_counted;
use crate::common::{all_polled, steady_sim, test_config, TestService};
use reqwest::Method;
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keyless_requests_from_many_addresses_share_one_audit_budget() {
    const BUDGET: u32 = 20;
    const SENT: u64 = 200;
    let sim = steady_sim(1, 2).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start_tuned(&sim, dir.path().join("data"), |config| {
        config.trusted_proxies = vec!["127.0.0.1/32".parse().expect("net")];
        config.audit.refusals_per_minute = BUDGET;
    })
    .await;

    // Each keyless POST from another address: half IPv4, half from one IPv6 /64.
    let client = reqwest::Client::new();
    for n in 0..SENT {
        let forwarded = if n % 2 == 0 {
            format!("10.{}.{}.{}", n / 65_536, (n / 256) % 256, n % 256)
        } else {
            format!("2001:db8::{n:x}")
        };
        let response = client
            .post(format!("{}/olts/1/poll", service.base))
            .header("X-Forwarded-For", forwarded)
            .send()
            .await
            .expect("answered");
        assert_eq!(response.status().as_u16(), 401);
    }

    let refusals = refusals_counted(&service, SENT).await;
    let (summaries, entries): (Vec<&Value>, Vec<&Value>) = refusals
        .iter()
        .partition(|e| e["action"] == "auth.refusals_over_budget");
    // The flood may straddle a minute: then the budget twice, and two summaries.
    assert!(
        entries.len() as u32 <= 2 * BUDGET,
        "{} entries for {SENT} keyless requests from {SENT} addresses (budget {BUDGET} a minute)",
        entries.len()
    );
    assert!((1..=2).contains(&summaries.len()), "{summaries:?}");
    let mut summarised = 0;
    for summary in &summaries {
        assert_eq!(summary["clientIp"], "*", "{summary}");
        let count = summary["params"]["count"].as_u64().expect("a count");
        let addresses = summary["params"]["addresses"].as_u64().expect("addresses");
        assert_eq!(count, addresses, "each address refused once: {summary}");
        summarised += count;
    }
    assert_eq!(
        entries.len() as u64 + summarised,
        SENT,
        "every refusal counted"
    );

    service.stop().await;
    sim.shutdown().await;
}

/// Every file and directory under `dir` (itself included) that is not owner-only (files
/// 0600, directories 0700), with its mode.
fn not_private(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(path) = pending.pop() {
        let meta = std::fs::symlink_metadata(&path).expect("metadata");
        let mode = meta.permissions().mode() & 0o7777;
        let wanted = if meta.is_dir() { 0o700 } else { 0o600 };
        if meta.is_dir() {
            for entry in std::fs::read_dir(&path).expect("read_dir") {
                pending.push(entry.expect("entry").path());
            }
        }
        if !meta.file_type().is_symlink() && mode != wanted {
            found.push(format!("{} {mode:o}", path.display()));
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_command_to_create_the_store_leaves_it_private() {
    let sim = steady_sim(1, 2).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (data, inventory) = (dir.path().join("data"), dir.path().join("inventory.toml"));
    std::fs::write(&inventory, sim.inventory().to_toml()).expect("inventory");
    let config = dir.path().join("ponkeeper.toml");
    let text = format!("data_dir = {:?}\ninventory = {:?}\n", data, inventory);
    std::fs::write(&config, text).expect("config");

    // `keys create` before any `serve`, with the usual umask (022).
    let command = format!(
        "umask 022; exec {:?} keys create --config {:?} --name ops --level FULL",
        env!("CARGO_BIN_EXE_ponkeeper"),
        config
    );
    let out = tokio::process::Command::new("sh")
        .args(["-c", &command])
        .env("RUST_LOG", "warn")
        .output()
        .await
        .expect("ponkeeper keys create");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let key = String::from_utf8(out.stdout)
        .expect("utf-8")
        .trim()
        .to_string();
    let open = not_private(&data);
    assert!(
        open.is_empty(),
        "readable by others after `keys create`: {open:?}"
    );

    // The service started on it afterwards takes the key.
    let service = TestService::start_with(test_config(data.clone(), inventory), false).await;
    let (status, body) = service.request(Method::GET, "/olts", Some(&key)).await;
    assert_eq!(status, 200, "{body}");
    service.stop().await;
    sim.shutdown().await;
}

/// Whether a `Vary` header of `headers` names `Origin`.
fn varies_by_origin(headers: &reqwest::header::HeaderMap) -> bool {
    headers
        .get_all("vary")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|name| name.trim().eq_ignore_ascii_case("origin"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_that_differ_by_origin_say_vary_origin() {
    let sim = steady_sim(1, 2).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start_tuned(&sim, dir.path().join("data"), |config| {
        config.cors_origins = vec!["https://noc.example".into()];
    })
    .await;
    let client = reqwest::Client::new();
    let root = service.base.replace("/api/v1/external", "");
    for origin in [
        Some("https://noc.example"),
        Some("https://evil.example"),
        None,
    ] {
        for (path, key) in [
            (
                format!("{}/olts", service.base),
                Some(service.read_only.as_str()),
            ),
            (format!("{}/olts", service.base), None),
            (format!("{root}/healthz"), None),
        ] {
            let mut request = client.get(&path);
            if let Some(origin) = origin {
                request = request.header("Origin", origin);
            }
            if let Some(key) = key {
                request = request.header("X-API-Key", key);
            }
            let answer = request.send().await.expect("answered");
            assert!(
                varies_by_origin(answer.headers()),
                "GET {path} from {origin:?} ({}): no Vary: Origin in {:?}",
                answer.status(),
                answer.headers()
            );
        }
    }
    let preflight = client
        .request(Method::OPTIONS, format!("{}/olts", service.base))
        .header("Origin", "https://noc.example")
        .header("Access-Control-Request-Method", "GET")
        .send()
        .await
        .expect("preflight");
    assert!(varies_by_origin(preflight.headers()), "{preflight:?}");
    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriber_fields_refuse_bidi_overrides_and_line_separators() {
    let sim = steady_sim(1, 2).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start_tuned(&sim, dir.path().join("data"), |config| {
        config.profiles = vec!["swagger".into()];
    })
    .await;
    all_polled(&service).await;
    let (_, body) = service.get("/onus?size=1").await;
    let id = body["data"][0]["id"].as_u64().expect("an ONU");
    let root = service.base.replace("/api/v1/external", "");
    let document: Value = reqwest::get(format!("{root}/v3/api-docs"))
        .await
        .expect("document")
        .json()
        .await
        .expect("JSON");
    let properties = &document["components"]["schemas"]["SubscriberBody"]["properties"];

    let fields = ["contract", "name", "address", "note"];
    let refused = (0x202A..=0x202E)
        .chain(0x2066..=0x2069)
        .chain([0x2028, 0x2029]);
    for (n, code) in refused.enumerate() {
        let field = fields[n % fields.len()];
        let c = char::from_u32(code).expect("a char");
        let text = format!("Иванов{c}вонавИ");
        let (status, body) = service
            .post_json(&format!("/onus/{id}/subscriber"), &json!({ field: text }))
            .await;
        assert_eq!(status, 400, "{field} with U+{code:04X} taken: {body}");
        assert_eq!(body["error"]["code"], "INVALID_PARAMETER", "{body}");
        let message = body["error"]["message"].as_str().expect("message");
        assert!(
            message.contains(&format!("field `{field}`"))
                && message.contains(&format!("U+{code:04X}")),
            "{message}"
        );
        let pattern = properties[field]["pattern"].as_str().expect("a pattern");
        let pattern = regex::Regex::new(pattern).expect("a regex");
        assert!(
            !pattern.is_match(&text),
            "{field}: the document admits U+{code:04X}"
        );
    }
    // What is welcome still is: Cyrillic, and right-to-left text without overrides.
    let (status, body) = service
        .post_json(
            &format!("/onus/{id}/subscriber"),
            &json!({ "name": "Иванов Иван", "note": "שלום" }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    service.stop().await;
    sim.shutdown().await;
}
