//! The smaller findings of the second security probe (issue 36), each replayed through the
//! real server the way the probe did it, at a small scale: keyless POSTs from as many
//! addresses as requests (an IPv6 /64, or random forwarded addresses through a trusted
//! proxy) against the audit log's shared budget.

mod common;

use common::{steady_sim, TestService};
use reqwest::Method;
use serde_json::Value;

/// Every entry of the audit log, newest first (the FULL key reads them).
async fn audit_log(service: &TestService) -> Vec<Value> {
    let (status, body) = service
        .request(Method::GET, "/audit-logs?size=500", Some(&service.full))
        .await;
    assert_eq!(status, 200, "{body}");
    body["data"].as_array().expect("entries").clone()
}

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

    let refusals: Vec<Value> = audit_log(&service)
        .await
        .into_iter()
        .filter(|e| e["httpStatus"] == 401)
        .collect();
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
