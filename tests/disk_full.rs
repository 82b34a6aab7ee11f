//! A full disk (docs/production.md, "A full disk"): the store holds its writes back while
//! the data directory's filesystem has less than `storage.min_free_mb` free, readiness
//! says so, a keyless client still gets its 401 (its audit entry is held in memory), and
//! everything resumes by itself once space is freed — no restart. The filesystem's answer
//! is pretended here (`Space::pretend_available`, a test-support hook); the store, its
//! write paths and the HTTP service are the real ones. The closing note of the hardening
//! issue has the same course on a real full tmpfs.

use crate::common;

use crate::common::{eventually, steady_sim, TestService};
use serde_json::{json, Value};
use std::time::Duration;

const MIB: u64 = 1024 * 1024;

async fn readyz(service: &TestService) -> (u16, Value) {
    let root = service.base.trim_end_matches("/api/v1/external");
    let response = reqwest::get(format!("{root}/readyz"))
        .await
        .expect("GET /readyz");
    let status = response.status().as_u16();
    (status, response.json().await.expect("JSON"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_holds_writes_back_and_they_resume_when_space_is_freed() {
    let sim = steady_sim(2, 8).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start_tuned(&sim, dir.path().join("data"), |config| {
        config.storage.min_free_mb = 64;
    })
    .await;
    common::all_polled(&service).await;
    let (status, body) = readyz(&service).await;
    assert_eq!(status, 200, "{body}");
    let space = service.state.store.space();

    // The disk fills up: 10 MiB left of the 64 kept in reserve.
    space.pretend_available(Some(10 * MIB));
    let (status, body) = readyz(&service).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"]["code"], "NOT_READY");
    let message = body["error"]["message"].as_str().expect("a reason");
    assert!(message.contains("writes refused: 10 MiB free"), "{message}");
    // A keyless client is still refused, not failed, though its entry cannot be written.
    for _ in 0..3 {
        let (status, body) = service.request(reqwest::Method::GET, "/olts", None).await;
        assert_eq!(status, 401, "{body}");
        assert_eq!(body["error"]["code"], "UNAUTHORIZED");
    }
    // A write is refused, and the service keeps answering reads.
    let (_, onus) = service.get("/olts/1/onus?size=1").await;
    let onu = onus["data"][0]["id"].as_u64().expect("an ONU");
    let binding = json!({"contract": "AB-1001", "name": "Ivanova"});
    let (status, body) = service
        .post_json(&format!("/onus/{onu}/subscriber"), &binding)
        .await;
    assert_eq!(status, 500, "{body}");
    let (status, _) = service.get("/olts").await;
    assert_eq!(status, 200);

    // Space is freed: within seconds the store writes again, with no restart.
    space.pretend_available(Some(1024 * MIB));
    eventually("ready again", Duration::from_secs(10), || async {
        (readyz(&service).await.0 == 200).then_some(())
    })
    .await;
    let (status, body) = service
        .post_json(&format!("/onus/{onu}/subscriber"), &binding)
        .await;
    assert_eq!(status, 200, "{body}");
    // The held refusals are in the log, as one entry.
    let (_, log) = service
        .get("/audit-logs?action=auth.refusals_unwritten")
        .await;
    let entries = log["data"].as_array().expect("entries");
    assert_eq!(entries.len(), 1, "{log}");
    assert_eq!(entries[0]["params"]["count"], 3, "{log}");
    assert_eq!(entries[0]["clientIp"], "*");
    service.stop().await;
}
