//! `ponkeeper storage estimate` on the shipped config (config/ponkeeper.toml and its
//! inventory): it runs, and every figure it prints is positive. The arithmetic itself is
//! tested beside it (src/storage/tests.rs).

use serde_json::Value;
use std::process::Command;

fn estimate(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_ponkeeper"))
        .args(["storage", "estimate", "--config", "config/ponkeeper.toml"])
        .args(args)
        .output()
        .expect("ponkeeper runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    String::from_utf8(output.stdout).expect("UTF-8")
}

#[test]
fn the_shipped_config_gets_positive_figures_per_tier_and_in_total() {
    let json: Value = serde_json::from_str(&estimate(&["--json"])).expect("JSON");
    assert!(json["onus"].as_u64().is_some_and(|onus| onus > 0), "{json}");
    for total in ["bytesPerDay", "steadyStateBytes"] {
        assert!(json[total].as_f64().is_some_and(|b| b > 0.0), "{json}");
    }
    let tiers = json["tiers"].as_array().expect("tiers");
    assert_eq!(tiers.len(), 8, "{json}");
    for tier in tiers {
        assert!(
            tier["steadyStateBytes"].as_f64().is_some_and(|b| b > 0.0),
            "{tier}"
        );
    }

    let text = estimate(&["--onus", "1000"]);
    assert!(
        text.starts_with("History of 1000 ONUs (given by --onus)"),
        "{text}"
    );
    let total = text
        .lines()
        .find(|l| l.starts_with("total"))
        .expect("a total line");
    let figures: Vec<&str> = total.split_whitespace().skip(1).collect();
    // "a day" and "steady state", each a number and a unit.
    assert_eq!(figures.len(), 4, "{total}");
    for number in [figures[0], figures[2]] {
        assert!(number.parse::<f64>().is_ok_and(|n| n > 0.0), "{total}");
    }
}
