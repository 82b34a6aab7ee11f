//! The arithmetic of the estimate, on round figures.

use super::*;

const ROUND: TierBytes = TierBytes {
    open_point: 10.0,
    raw_point: 1.0,
    hourly_row: 2.0,
    daily_row: 3.0,
};

#[test]
fn a_tier_adds_its_items_a_day_and_keeps_them_for_its_retention() {
    let history = History::default();
    let schedule = Schedule {
        traffic: 300,
        optics: 900,
    };
    let bytes = ItemBytes {
        traffic: ROUND,
        optics: ROUND,
    };
    let estimate = estimate(2, schedule, (&history, &history), &bytes);
    let figures: Vec<(&str, &str, f64, f64)> = estimate
        .tiers
        .iter()
        .map(|t| (t.series, t.tier, t.bytes_per_day, t.steady_state_bytes))
        .collect();
    assert_eq!(
        figures,
        vec![
            // 288 reads a day × 2 ONUs; the open day's points are not added, only held.
            ("traffic", "open", 0.0, 288.0 * 10.0 * 2.0),
            ("traffic", "raw", 576.0, 576.0 * 7.0),
            ("traffic", "hourly", 96.0, 96.0 * 90.0),
            ("traffic", "daily", 6.0, 6.0 * 1825.0),
            ("optics", "open", 0.0, 96.0 * 10.0 * 2.0),
            ("optics", "raw", 192.0, 192.0 * 7.0),
            ("optics", "hourly", 96.0, 96.0 * 90.0),
            ("optics", "daily", 6.0, 6.0 * 1825.0),
        ]
    );
    assert_eq!(
        estimate.bytes_per_day,
        576.0 + 96.0 + 6.0 + 192.0 + 96.0 + 6.0
    );
    let steady: f64 = figures.iter().map(|f| f.3).sum();
    assert_eq!(estimate.steady_state_bytes, steady);
}

#[test]
fn onus_come_from_the_override_or_the_enabled_olts() {
    let inventory = ponkeeper_actors::inventory::Inventory::parse(
        "[[olts]]\nid = 1\nip = \"127.0.0.1\"\nvendor = \"huawei\"\nmodel = \"MA5800\"\ncity = \"Kazan\"\nsnmp = { port = 16100, community = \"public\" }\n\n\
         [[olts]]\nid = 2\nip = \"127.0.0.1\"\nvendor = \"huawei\"\nmodel = \"MA5800\"\ncity = \"Kazan\"\nenabled = false\nsnmp = { port = 16101, community = \"public\" }\n",
    )
    .expect("inventory");
    assert_eq!(onus_of(&inventory, None, 128), 128);
    assert_eq!(onus_of(&inventory, Some(7), 128), 7);
}

#[test]
fn bytes_read_in_powers_of_a_thousand() {
    assert_eq!(human(999.0), "999 B");
    assert_eq!(human(1_500.0), "1.5 KB");
    assert_eq!(human(2.5e12), "2.5 TB");
}
