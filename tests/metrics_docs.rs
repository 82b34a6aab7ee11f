//! The metrics table of docs/production.md against the running service's `/metrics`:
//! every series family the service exports is documented, and every documented one not
//! marked "on first use" exists from start (so alerts on it work before it first moves).

use crate::common;

use crate::common::{steady_sim, TestService};
use std::collections::BTreeSet;

/// The metric names of docs/production.md's table: every backquoted `ponkeeper_…` of the
/// first column, and whether the row says it appears only on first use.
fn documented() -> Vec<(String, bool)> {
    let doc = std::fs::read_to_string("docs/production.md").expect("docs/production.md");
    let table = doc
        .split("## Metrics")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("the Metrics section");
    let mut names = Vec::new();
    for row in table.lines().filter(|l| l.starts_with("| `ponkeeper_")) {
        let first_use = row.contains("on first use");
        let first_column = row.split('|').nth(1).unwrap_or_default();
        for name in first_column
            .split('`')
            .filter(|n| n.starts_with("ponkeeper_"))
        {
            names.push((name.to_string(), first_use));
        }
    }
    names
}

/// The families `/metrics` declares (`# TYPE name kind`).
fn exported(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|line| line.strip_prefix("# TYPE "))
        .filter_map(|rest| rest.split_whitespace().next())
        .filter(|name| name.starts_with("ponkeeper_"))
        .map(str::to_string)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_exported_metric_is_documented_and_every_documented_one_exists() {
    let sim = steady_sim(2, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().join("data")).await;
    common::all_polled(&service).await;
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
    let exported = exported(&text);
    let documented = documented();
    assert!(documented.len() > 20, "{documented:?}");
    let names: BTreeSet<String> = documented.iter().map(|(n, _)| n.clone()).collect();
    let undocumented: Vec<&String> = exported.difference(&names).collect();
    assert!(
        undocumented.is_empty(),
        "exported, not in docs/production.md: {undocumented:?}"
    );
    let missing: Vec<&String> = documented
        .iter()
        .filter(|(name, first_use)| !first_use && !exported.contains(name))
        .map(|(name, _)| name)
        .collect();
    assert!(
        missing.is_empty(),
        "documented, not exported from start: {missing:?}"
    );
    service.stop().await;
}
