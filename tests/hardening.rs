//! What a security probe of the running service found (issue 14), each replayed the way
//! the probe did it, through the real server.

mod common;

use common::{steady_sim, TestService};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn empty_query_values_are_refused_and_documented_periods_are_accepted() {
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
