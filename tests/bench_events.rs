//! `ponkeeper bench events` end to end at a small size (the figures themselves are
//! measured in release, docs/benchmarks.md E1–E3): the real binary runs its own `serve`
//! children, and what it reports must say that every stream subscriber got every event
//! and that the webhook lost nothing across `kill -9`.

use serde_json::Value;

#[test]
fn bench_events_runs_end_to_end_and_loses_nothing() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_ponkeeper"))
        .args([
            "bench",
            "events",
            "--json",
            "--samples",
            "2",
            "--subscribers",
            "5",
        ])
        .args(["--onus-per-olt", "16", "--webhook-events", "200"])
        .output()
        .expect("the bench runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let figures: Value = serde_json::from_slice(&output.stdout).expect("JSON on stdout");
    assert_eq!(
        figures["e1MsAll"].as_array().map(Vec::len),
        Some(2),
        "{figures}"
    );
    assert_eq!(figures["e2Subscribers"], 5);
    assert_eq!(figures["e2EventsPerSubscriber"], 16, "{figures}");
    let e3 = &figures["e3"];
    // 13 OLTs × 16 ONUs down, a PON_OUTAGE per port beside the ONU_DOWNs.
    assert!(e3["events"].as_u64() >= Some(208), "{figures}");
    assert_eq!(e3["lost"], 0, "{figures}");
    assert_eq!(e3["inOrder"], true, "{figures}");
    assert!(
        e3["deliveredBeforeKill"].as_u64() < e3["events"].as_u64(),
        "{figures}"
    );
}
