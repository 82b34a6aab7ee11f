//! What a security probe of the running service found (issue 14), each replayed the way
//! the probe did it, through the real server: a keyless audit-log flood, a history range
//! to the year 9999, idle and slow-header connections, `X-Forwarded-For` entries that
//! are not addresses, a world-readable data directory, bodies read before the key check,
//! IPv4-mapped whitelist entries, answers outside the envelope, and empty, blank or
//! control-character query values.

use crate::common;

use crate::common::audit::{audit_log, refusals_counted};
use crate::common::raw::{head, raw, Answer};
use crate::common::{all_polled, steady_sim, test_config, TestService};
use ponkeeper::records::AccessLevel;
use reqwest::Method;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The service root (`http://127.0.0.1:PORT`).
fn root(service: &TestService) -> String {
    service
        .base
        .strip_suffix(ponkeeper::http::BASE)
        .expect("base ends with the API path")
        .to_string()
}

/// An ONU the first poll saw online.
async fn online_onu(service: &TestService) -> u64 {
    let (_, body) = service.get("/onus?status=ONLINE&size=1").await;
    body["data"][0]["id"].as_u64().expect("an online ONU")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keyless_requests_cannot_flood_the_audit_log() {
    let sim = steady_sim(1, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().join("data")).await;
    all_polled(&service).await;

    // The probe's flood, smaller: keyless action requests with a body.
    let junk = json!({ "junk": "x".repeat(4000) }).to_string();
    let client = reqwest::Client::new();
    const SENT: u64 = 40;
    for _ in 0..SENT {
        let response = client
            .post(format!("{}/olts/1/poll", service.base))
            .header("Content-Type", "application/json")
            .body(junk.clone())
            .send()
            .await
            .expect("answered");
        assert_eq!(response.status().as_u16(), 401);
    }
    let refusals = refusals_counted(&service, SENT).await;
    // No body of a failed authentication is kept.
    for entry in &refusals {
        let text = entry.to_string();
        assert!(!text.contains("xxxxxxxx"), "a body kept: {}", &text[..200]);
        assert_eq!(entry["clientIp"], "127.0.0.1", "{entry}");
        assert!(entry["keyName"].is_null(), "{entry}");
    }
    // A few one by one, then one entry per address and minute that counts the rest (the
    // flood may straddle a minute: then two of each).
    let (single, counted): (Vec<&Value>, Vec<&Value>) = refusals
        .iter()
        .partition(|e| e["action"] != "auth.repeated_refusals");
    assert!(
        (1..=2).contains(&counted.len()),
        "{} counted entries: {refusals:?}",
        counted.len()
    );
    assert!(
        single.len() <= 10 * counted.len(),
        "{} single",
        single.len()
    );
    assert!(single.iter().all(|e| e["params"].is_null()));
    let counts: u64 = counted
        .iter()
        .map(|e| e["params"]["count"].as_u64().expect("a count"))
        .sum();
    assert_eq!(single.len() as u64 + counts, SENT, "{counted:?}");

    // What any entry keeps of a body is at most 1 KiB, marked as cut.
    let id = online_onu(&service).await;
    let long = json!({ "description": "d".repeat(5000) }).to_string();
    let (status, _) = service
        .post_body(&format!("/onus/{id}/description"), long.clone())
        .await;
    assert_eq!(status, 400);
    let entry = audit_log(&service)
        .await
        .into_iter()
        .find(|e| e["action"] == "onu.set_description")
        .expect("the refused description audited");
    let params = &entry["params"];
    assert_eq!(params["cut"], true, "{entry}");
    assert_eq!(params["bytes"], long.len(), "{entry}");
    let text = params["text"].as_str().expect("the start of the body");
    assert!(text.len() <= 1024 && long.starts_with(text), "{text}");
    assert!(params.to_string().len() < 1200, "{params}");

    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_history_range_to_the_year_9999_is_clamped_to_what_is_kept() {
    let sim = steady_sim(1, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().join("data")).await;
    all_polled(&service).await;
    let id = online_onu(&service).await;

    let query = "from=0000-01-01T00:00:00&to=9999-12-31T23:59:59";
    let started = Instant::now();
    let (status, body) = service
        .get(&format!("/onus/{id}/optics/history?{query}"))
        .await;
    let took = started.elapsed();
    assert_eq!(status, 200, "{body}");
    assert!(
        !body["data"].as_array().expect("points").is_empty(),
        "the stored points are inside the clamped range: {body}"
    );
    assert!(took < Duration::from_secs(1), "took {took:?}");

    // The MCP tool reaches the same handler.
    let started = Instant::now();
    let response = reqwest::Client::new()
        .post(format!("{}/mcp", root(&service)))
        .header("X-API-Key", &service.read_only)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .header("MCP-Protocol-Version", "2025-06-18")
        .body(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "get_onu_optics_history",
                "arguments": {"onuId": id, "from": "0000-01-01T00:00:00", "to": "9999-12-31T23:59:59"}
            }})
            .to_string(),
        )
        .send()
        .await
        .expect("MCP answers");
    assert_eq!(response.status().as_u16(), 200);
    let answer: Value = response.json().await.expect("JSON-RPC");
    let took = started.elapsed();
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert!(took < Duration::from_secs(1), "took {took:?}");

    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_and_slow_header_connections_are_closed_within_15_s_by_default() {
    let sim = steady_sim(1, 2).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().join("data")).await;
    let addr = common::raw::addr(&service);

    let mut idle = TcpStream::connect(addr).await.expect("connect");
    let mut slow = TcpStream::connect(addr).await.expect("connect");
    slow.write_all(b"GET /api/v1/external/olts HTTP/1.1\r\nHost: x\r\n")
        .await
        .expect("the start of a head");
    let (mut slow_read, mut slow_write) = slow.into_split();
    // One byte of a header a second, for as long as the server listens.
    let trickle = tokio::spawn(async move {
        for byte in b"X-Slow: ".iter().chain([b'a'; 64].iter()).cycle() {
            if slow_write.write_all(&[*byte]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    });
    let patience = Duration::from_secs(16);
    let (idle_closed, slow_closed) = tokio::join!(
        common::raw::closed_within(&mut idle, patience),
        common::raw::closed_within(&mut slow_read, patience)
    );
    trickle.abort();
    let idle_closed = idle_closed.expect("the idle connection is closed within 15 s");
    let slow_closed = slow_closed.expect("the slow-header connection is closed within 15 s");
    assert!(idle_closed <= Duration::from_secs(15), "{idle_closed:?}");
    assert!(slow_closed <= Duration::from_secs(15), "{slow_closed:?}");

    // Still serving.
    let (status, _) = service.get("/olts").await;
    assert_eq!(status, 200);
    service.stop().await;
    sim.shutdown().await;
}

/// One keep-alive request on `stream`: the answer's status, read to the end of its body.
async fn keep_alive_request(stream: &mut TcpStream, key: &str) -> u16 {
    common::raw::ask_whoami(stream, Some(key)).await.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keep_alive_connections_may_idle_up_to_the_idle_timeout() {
    let sim = steady_sim(1, 2).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start_tuned(&sim, dir.path().join("data"), |config| {
        config.http.header_read_timeout = Duration::from_secs(1);
        config.http.idle_timeout = Duration::from_secs(3);
    })
    .await;
    let mut stream = TcpStream::connect(common::raw::addr(&service))
        .await
        .expect("connect");
    assert_eq!(keep_alive_request(&mut stream, &service.full).await, 200);
    // Idle longer than the header-read timeout but within the idle timeout: still open.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(keep_alive_request(&mut stream, &service.full).await, 200);
    let closed = common::raw::closed_within(&mut stream, Duration::from_secs(6))
        .await
        .expect("closed after the idle timeout");
    assert!(
        closed >= Duration::from_millis(2500) && closed <= Duration::from_secs(5),
        "{closed:?}"
    );
    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_in_flight_outlives_both_timeouts() {
    let sim = steady_sim(1, 2).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start_tuned(&sim, dir.path().join("data"), |config| {
        config.http.header_read_timeout = Duration::from_secs(1);
        config.http.idle_timeout = Duration::from_secs(2);
    })
    .await;
    let mut stream = TcpStream::connect(common::raw::addr(&service))
        .await
        .expect("connect");
    let body = br#"{"description": "in flight"}"#;
    let head = format!(
        "POST /api/v1/external/onus/999999/description HTTP/1.1\r\nHost: x\r\n\
         X-API-Key: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n",
        service.full,
        body.len()
    );
    stream.write_all(head.as_bytes()).await.expect("head sent");
    // The body takes 3.5 s, past both timeouts: the request is in flight, so it is served.
    let started = Instant::now();
    for chunk in body.chunks(4) {
        stream.write_all(chunk).await.expect("body still accepted");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer))
        .await
        .expect("answered within 5 s")
        .expect("read");
    assert!(started.elapsed() >= Duration::from_secs(3));
    let answer = common::raw::parse(&answer);
    assert_eq!(answer.status, 404, "the unknown ONU, after the whole body");
    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_beyond_the_cap_wait_for_a_free_one() {
    let sim = steady_sim(1, 2).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start_tuned(&sim, dir.path().join("data"), |config| {
        config.http.max_connections = 3;
        // Idle keyless connections may take every place here: the cap itself is tested
        // (the keyless share is tests/connections.rs's).
        config.http.unauthenticated_share = 1.0;
    })
    .await;
    let addr = common::raw::addr(&service);
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(TcpStream::connect(addr).await.expect("connect"));
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut waiting = TcpStream::connect(addr)
        .await
        .expect("the kernel queues it");
    waiting
        .write_all(
            format!(
                "GET /api/v1/external/whoami HTTP/1.1\r\nHost: x\r\nX-API-Key: {}\r\nConnection: close\r\n\r\n",
                service.full
            )
            .as_bytes(),
        )
        .await
        .expect("request sent");
    let mut buffer = [0u8; 4096];
    let early = tokio::time::timeout(Duration::from_secs(1), waiting.read(&mut buffer)).await;
    assert!(early.is_err(), "answered beyond the cap: {early:?}");
    drop(held.pop());
    let n = tokio::time::timeout(Duration::from_secs(3), waiting.read(&mut buffer))
        .await
        .expect("answered once a connection is free")
        .expect("read");
    assert!(
        buffer[..n].starts_with(b"HTTP/1.1 200"),
        "{:?}",
        &buffer[..n]
    );
    drop(held);
    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forwarded_for_entries_that_are_not_addresses_stop_the_walk() {
    let sim = steady_sim(1, 2).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let inventory = dir.path().join("inventory.toml");
    std::fs::write(&inventory, sim.inventory().to_toml()).expect("inventory");
    let mut config = test_config(dir.path().join("data"), inventory);
    config.trusted_proxies = vec!["127.0.0.1/32".parse().expect("net")];
    let service = TestService::start_with(config, true).await;
    let office = service
        .create_key("office", AccessLevel::ReadOnly, None, &["10.0.0.0/8"])
        .await;

    // The probe's bypasses: the right-most entry is not a bare address.
    for (forwarded, blamed) in [
        ("10.1.2.3, 203.0.113.9:5555", "203.0.113.9"),
        ("10.1.2.3, unknown", "127.0.0.1"),
        ("10.1.2.3, [2001:db8::1]:443", "2001:db8::1"),
        ("10.1.2.3, ", "127.0.0.1"),
        ("10.1.2.3, 203.0.113.9:port", "127.0.0.1"),
    ] {
        let (status, _, body) = service
            .send(
                Method::GET,
                "/olts",
                &office,
                &[("X-Forwarded-For", forwarded)],
            )
            .await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (403, Some("IP_NOT_ALLOWED")),
            "{forwarded}: {body}"
        );
        let message = body["error"]["message"].as_str().expect("message");
        assert!(
            message.ends_with(&format!("from {blamed}")),
            "{forwarded}: {message}"
        );
    }
    // Ports are stripped, so an allowed client behind the proxy is still let in.
    for forwarded in ["203.0.113.9, 10.1.2.3:5555", "[2001:db8::1]:443, 10.1.2.3"] {
        let (status, _, body) = service
            .send(
                Method::GET,
                "/olts",
                &office,
                &[("X-Forwarded-For", forwarded)],
            )
            .await;
        assert_eq!(status, 200, "{forwarded}: {body}");
    }
    // `/mcp` takes the same walk.
    let response = reqwest::Client::new()
        .post(format!("{}/mcp", root(&service)))
        .header("X-API-Key", &office)
        .header("X-Forwarded-For", "10.1.2.3, 203.0.113.9:5555")
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string())
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status().as_u16(), 403);
    service.stop().await;
    sim.shutdown().await;
}

/// Permission bits of `path`.
fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .expect("metadata")
        .permissions()
        .mode()
        & 0o777
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_data_directory_is_private_and_a_writable_one_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let sim = steady_sim(1, 2).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let service = TestService::start(&sim, data.clone()).await;
    assert_eq!(mode(&data), 0o700, "{}", data.display());
    let mut files = 0;
    let mut pending = vec![data.clone()];
    while let Some(directory) = pending.pop() {
        for entry in std::fs::read_dir(&directory).expect("read_dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                assert_eq!(mode(&path), 0o700, "{}", path.display());
                pending.push(path);
            } else {
                assert_eq!(mode(&path), 0o600, "{}", path.display());
                files += 1;
            }
        }
    }
    assert!(files >= 2, "the store's files and the inventory: {files}");
    service.stop().await;

    let open = dir.path().join("open");
    std::fs::create_dir(&open).expect("mkdir");
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    let inventory = open.join("inventory.toml");
    std::fs::write(&inventory, sim.inventory().to_toml()).expect("inventory");
    match ponkeeper::app::App::start(test_config(open.clone(), inventory)).await {
        Ok(_) => panic!("started on a world-writable data directory"),
        Err(error) => {
            let text = format!("{error:#}");
            assert!(
                text.contains("writable") && text.contains(&open.display().to_string()),
                "{text}"
            );
        }
    }
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_key_is_checked_before_the_body_is_read() {
    let sim = steady_sim(1, 2).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().join("data")).await;

    // Keyless, 1 of 100 promised bytes sent: 401 at once, not 400 after 5 s.
    let started = Instant::now();
    let answer: Answer = raw(
        &service,
        &head(
            "POST",
            b"/olts/1/poll",
            "",
            &[b"Content-Type: application/json", b"Content-Length: 100"],
        ),
        b"{",
    )
    .await;
    answer.assert_error(401, "UNAUTHORIZED");
    assert!(started.elapsed() < Duration::from_secs(2), "{answer:?}");

    // Keyless with 70 KB: 401, not 413.
    let body = vec![b' '; 70_000];
    let length = format!("Content-Length: {}", body.len());
    raw(
        &service,
        &head(
            "POST",
            b"/olts/1/poll",
            "",
            &[b"Content-Type: application/json", length.as_bytes()],
        ),
        &body,
    )
    .await
    .assert_error(401, "UNAUTHORIZED");

    // A key, and a declared length far over the limit: 413 at once, nothing read.
    let started = Instant::now();
    let answer = raw(
        &service,
        &head(
            "POST",
            b"/olts/1/poll",
            &service.full,
            &[
                b"Content-Type: application/json",
                b"Content-Length: 10000000000",
            ],
        ),
        b"",
    )
    .await;
    answer.assert_error(413, "PAYLOAD_TOO_LARGE");
    assert!(started.elapsed() < Duration::from_secs(2), "{answer:?}");
    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ipv4_mapped_whitelist_entries_match_their_ipv4_clients() {
    let sim = steady_sim(1, 2).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().join("data")).await;
    for (name, allowed) in [
        ("mapped", "::ffff:127.0.0.1"),
        ("mapped-net", "::ffff:127.0.0.0/104"),
    ] {
        let key = service
            .create_key(name, AccessLevel::ReadOnly, None, &[allowed])
            .await;
        let (status, _, body) = service.send(Method::GET, "/olts", &key, &[]).await;
        assert_eq!(status, 200, "{allowed}: {body}");
    }
    let elsewhere = service
        .create_key(
            "mapped-elsewhere",
            AccessLevel::ReadOnly,
            None,
            &["::ffff:10.0.0.0/104"],
        )
        .await;
    let (status, _, _) = service.send(Method::GET, "/olts", &elsewhere, &[]).await;
    assert_eq!(status, 403);
    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_from_the_libraries_are_envelopes_too() {
    let sim = steady_sim(1, 2).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start_tuned(&sim, dir.path().join("data"), |config| {
        config.profiles = vec!["swagger".into()];
    })
    .await;
    let client = reqwest::Client::new();
    let envelope = |status: u16, body: &str, code: &str| {
        let body: Value = serde_json::from_str(body)
            .unwrap_or_else(|e| panic!("{status}: not the envelope ({e}): {body:?}"));
        assert_eq!(body["success"], false, "{body}");
        assert_eq!(body["error"]["code"], code, "{body}");
        assert!(body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()));
    };

    let response = client
        .get(format!("{}/swagger-ui/no-such-asset.js", root(&service)))
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status().as_u16(), 404);
    envelope(404, &response.text().await.expect("body"), "NOT_FOUND");

    for method in [Method::GET, Method::PUT, Method::DELETE] {
        let response = client
            .request(method.clone(), format!("{}/mcp", root(&service)))
            .header("X-API-Key", &service.full)
            .header("Accept", "application/json, text/event-stream")
            .send()
            .await
            .expect("answered");
        assert_eq!(response.status().as_u16(), 405, "{method}");
        assert_eq!(
            response
                .headers()
                .get("allow")
                .and_then(|v| v.to_str().ok()),
            Some("POST"),
            "{method}"
        );
        envelope(
            405,
            &response.text().await.expect("body"),
            "METHOD_NOT_ALLOWED",
        );
    }

    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    ]);
    let response = client
        .post(format!("{}/mcp", root(&service)))
        .header("X-API-Key", &service.full)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(batch.to_string())
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status().as_u16(), 400);
    envelope(400, &response.text().await.expect("body"), "INVALID_BODY");
    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn empty_blank_and_control_query_values_are_refused_and_documented_periods_are_accepted() {
    let sim = steady_sim(1, 2).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().join("data")).await;
    for (query, parameter) in [
        ("/olts?size=&status=", "size"),
        ("/onus?status=", "status"),
        ("/audit-logs?to=", "to"),
        ("/optics?level=", "level"),
        ("/nodes?size=", "size"),
        ("/onus?q=", "q"),
        // Spaces only, or a control character: refused too, never taken as absent
        // (issue 36, finding 7).
        ("/olts?size=%20", "size"),
        ("/olts?status=%20%20", "status"),
        ("/onus?q=%20", "q"),
        ("/onus?q=%00", "q"),
        ("/onus?q=abc%0Adef", "q"),
        ("/olts?city=%E2%80%83", "city"),
    ] {
        let (status, body) = service.get(query).await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (400, Some("INVALID_PARAMETER")),
            "{query}: {body}"
        );
        let message = body["error"]["message"].as_str().expect("message");
        assert!(message.contains(&format!("`{parameter}`")), "{message}");
    }
    // An empty period is a period: no time in it.
    let at = service.state.clock.format(chrono::Utc::now());
    let (status, body) = service
        .get(&format!("/szo/availability?from={at}&to={at}"))
        .await;
    assert_eq!(status, 200, "{body}");
    service.stop().await;
    sim.shutdown().await;
}
