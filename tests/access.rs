//! Access control through the real HTTP server: per-key rate limits with `Retry-After`,
//! rate headers, the check order key → IP → rate → level, IP whitelists behind trusted
//! proxies, page bounds, and no secret in any answer.

use crate::common::{all_polled, eventually, steady_sim, test_config, TestService};
use ponkeeper::records::AccessLevel;
use reqwest::header::HeaderMap;
use reqwest::Method;
use std::time::Duration;

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_over_its_rate_is_refused_until_retry_after() {
    let sim = steady_sim(1, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    // 5 a minute: the burst is 5 and the next request is allowed 12 s later.
    let limited = service
        .create_key("limited", AccessLevel::ReadOnly, Some("5/m"), &[])
        .await;

    let mut statuses = Vec::new();
    let mut refusal = None;
    for _ in 0..50 {
        let (status, headers, body) = service.send(Method::GET, "/olts", &limited, &[]).await;
        assert_eq!(header(&headers, "x-ratelimit-limit"), Some("5"));
        if status == 429 {
            assert_eq!(body["error"]["code"], "RATE_LIMITED");
            assert_eq!(header(&headers, "x-ratelimit-remaining"), Some("0"));
            refusal.get_or_insert(headers);
        }
        statuses.push(status);
    }
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        5,
        "{statuses:?}"
    );
    assert_eq!(statuses.iter().filter(|s| **s == 429).count(), 45);
    let retry_after: u64 = header(&refusal.expect("refused"), "retry-after")
        .expect("Retry-After")
        .parse()
        .expect("whole seconds");
    assert!((11..=12).contains(&retry_after), "{retry_after}");

    // Other keys are unaffected, and report their own budget.
    let (status, headers, _) = service
        .send(Method::GET, "/olts", &service.read_only, &[])
        .await;
    assert_eq!(status, 200);
    assert_eq!(header(&headers, "x-ratelimit-limit"), Some("100"));
    assert_eq!(header(&headers, "x-ratelimit-remaining"), Some("99"));

    tokio::time::sleep(Duration::from_secs(retry_after)).await;
    let (status, headers, _) = service.send(Method::GET, "/olts", &limited, &[]).await;
    assert_eq!(status, 200, "allowed again after Retry-After");
    assert_eq!(header(&headers, "x-ratelimit-remaining"), Some("0"));

    // The issue's own case: 5/s and a burst of 50. The bucket refills every 200 ms, so
    // a few more than 5 may pass while the burst is being sent; most must not.
    let fast = service
        .create_key("fast", AccessLevel::ReadOnly, Some("5/s"), &[])
        .await;
    let burst =
        futures::future::join_all((0..50).map(|_| service.send(Method::GET, "/olts", &fast, &[])))
            .await;
    let passed = burst.iter().filter(|(s, _, _)| *s == 200).count();
    assert!((5..=10).contains(&passed), "{passed} passed");
    let refused: Vec<&HeaderMap> = burst
        .iter()
        .filter(|(s, _, _)| *s == 429)
        .map(|(_, h, _)| h)
        .collect();
    assert_eq!(refused.len(), 50 - passed);
    assert!(refused
        .iter()
        .all(|h| header(h, "retry-after") == Some("1")));
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (status, _, _) = service.send(Method::GET, "/olts", &fast, &[]).await;
    assert_eq!(status, 200);

    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checks_run_in_order_key_ip_rate_level() {
    let sim = steady_sim(1, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;

    let elsewhere = service
        .create_key("elsewhere", AccessLevel::ReadOnly, None, &["10.0.0.0/8"])
        .await;
    let (status, headers, body) = service
        .send(Method::POST, "/olts/1/poll", &elsewhere, &[])
        .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (403, Some("IP_NOT_ALLOWED"))
    );
    assert!(
        headers.get("x-ratelimit-limit").is_none(),
        "refused before the rate is counted"
    );

    let once = service
        .create_key("once", AccessLevel::ReadOnly, Some("1/h"), &[])
        .await;
    let (status, headers, body) = service.send(Method::POST, "/olts/1/poll", &once, &[]).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (403, Some("FORBIDDEN"))
    );
    assert_eq!(
        header(&headers, "x-ratelimit-remaining"),
        Some("0"),
        "the refused request counted"
    );
    let (status, headers, body) = service.send(Method::POST, "/olts/1/poll", &once, &[]).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (429, Some("RATE_LIMITED")),
        "rate before level"
    );
    assert!(header(&headers, "retry-after").is_some());

    let (status, _, body) = service.send(Method::GET, "/olts", "pk_wrong", &[]).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (401, Some("UNAUTHORIZED"))
    );

    // Headers come on every answer to a known key, errors included.
    for path in ["/olts", "/olts/99", "/nope"] {
        let (_, headers, _) = service
            .send(Method::GET, path, &service.read_only, &[])
            .await;
        assert_eq!(header(&headers, "x-ratelimit-limit"), Some("100"), "{path}");
        assert!(
            header(&headers, "x-ratelimit-remaining").is_some(),
            "{path}"
        );
    }

    for (query, parameter) in [
        ("size=100000", "size"),
        ("size=0", "size"),
        ("page=-1", "page"),
        ("page=abc", "page"),
    ] {
        let (status, _, body) = service
            .send(
                Method::GET,
                &format!("/onus?{query}"),
                &service.read_only,
                &[],
            )
            .await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (400, Some("INVALID_PARAMETER")),
            "{query}"
        );
        let message = body["error"]["message"].as_str().expect("message");
        assert!(message.contains(&format!("`{parameter}`")), "{message}");
    }
    let (_, _, body) = service
        .send(Method::GET, "/olts?size=501", &service.read_only, &[])
        .await;
    assert!(body["error"]["message"]
        .as_str()
        .expect("message")
        .contains("between 1 and 500"));

    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forwarded_for_is_believed_only_from_trusted_proxies() {
    let sim = steady_sim(1, 4).await;
    for trusted in [true, false] {
        let dir = tempfile::tempdir().expect("tempdir");
        let inventory = dir.path().join("inventory.toml");
        std::fs::write(&inventory, sim.inventory().to_toml()).expect("inventory");
        let mut config = test_config(dir.path().to_path_buf(), inventory);
        if trusted {
            config.trusted_proxies = vec!["127.0.0.1/32".parse().expect("net")];
        }
        let service = TestService::start_with(config, true).await;
        let office = service
            .create_key("office", AccessLevel::ReadOnly, None, &["10.0.0.0/8"])
            .await;

        let (status, _, body) = service.send(Method::GET, "/olts", &office, &[]).await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (403, Some("IP_NOT_ALLOWED"))
        );
        let message = body["error"]["message"].as_str().expect("message");
        assert!(message.contains("127.0.0.1"), "{message}");

        let via_proxy = [("X-Forwarded-For", "10.1.2.3")];
        let (status, _, _) = service
            .send(Method::GET, "/olts", &office, &via_proxy)
            .await;
        assert_eq!(
            status,
            if trusted { 200 } else { 403 },
            "trusted proxy: {trusted}"
        );
        // A client cannot smuggle an allowed address in front of its real one.
        let smuggled = [("X-Forwarded-For", "10.1.2.3, 203.0.113.50")];
        let (status, _, _) = service.send(Method::GET, "/olts", &office, &smuggled).await;
        assert_eq!(status, 403);
        service.stop().await;
    }
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_answer_reveals_the_snmp_community() {
    const SECRET: &str = "s3cret-community-9f2";
    let sim = steady_sim(2, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let mut inventory = sim.inventory();
    for olt in &mut inventory.olts {
        olt.snmp.community = SECRET.into();
    }
    let path = dir.path().join("inventory.toml");
    std::fs::write(&path, inventory.to_toml()).expect("inventory");
    let service = TestService::start_with(test_config(dir.path().to_path_buf(), path), true).await;
    // The simulator ignores the wrong community, as real agents do: the polls fail.
    eventually("a failed poll", Duration::from_secs(10), || async {
        let (_, body) = service.get("/olts/1").await;
        body["data"]["session"]["lastError"]
            .as_str()
            .map(str::to_string)
    })
    .await;
    all_polled(&service).await;
    for path in ["/olts", "/olts/1", "/olts/2", "/nodes", "/onus", "/vlans"] {
        let (_, body) = service.get(path).await;
        assert!(!body.to_string().contains(SECRET), "{path}: {body}");
    }
    let (_, body) = service.post("/olts/1/poll").await;
    assert!(!body.to_string().contains(SECRET));
    service.stop().await;
    sim.shutdown().await;
}
