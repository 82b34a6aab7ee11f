//! The audit log as the tests read it: every entry (the FULL key), and the refusals once
//! the log has counted a flood of them (counts are rewritten every few seconds, not at
//! every refusal: src/audit/refusals.rs).

use super::{eventually, TestService};
use serde_json::Value;
use std::time::Duration;

/// Every entry of the audit log, newest first (the FULL key reads them).
pub async fn audit_log(service: &TestService) -> Vec<Value> {
    let (status, body) = service
        .request(
            reqwest::Method::GET,
            "/audit-logs?size=500",
            Some(&service.full),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    body["data"].as_array().expect("entries").clone()
}

/// The 401 entries, once they count `sent` refusals together (an entry of its own counts
/// one, a counting entry its `params.count`).
pub async fn refusals_counted(service: &TestService, sent: u64) -> Vec<Value> {
    eventually(
        "every refusal counted in the log",
        Duration::from_secs(10),
        || async {
            let refusals: Vec<Value> = audit_log(service)
                .await
                .into_iter()
                .filter(|e| e["httpStatus"] == 401)
                .collect();
            let counted: u64 = refusals
                .iter()
                .map(|e| e["params"]["count"].as_u64().unwrap_or(1))
                .sum();
            (counted == sent).then_some(refusals)
        },
    )
    .await
}
