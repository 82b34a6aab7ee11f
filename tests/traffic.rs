//! Per-ONU traffic end to end (docs/api.md, "Traffic"): the real service polls a simulated
//! fleet holding one OLT of every layout (Huawei MA5800, ZTE C320 and C620, BDCOM P3310 and
//! GP3600), whose ONUs' counters advance with the simulator's traffic model, over real
//! SNMP. Every layout's `traffic` group is read on its OIDs (docs/devices.md) and gives
//! rates within the model's bounds for online ONUs, all `null` for offline ones. The
//! C320's 32-bit counters wrap within the simulator's first half minute: the read across
//! the wrap gives a rate like any other, neither a gap nor a spike. Each PON port shows its
//! ONUs' rates summed and their share of the port's capacity (EPON or GPON).

mod common;

use common::{eventually, TestService};
use ponkeeper_sim::{Dynamics, FleetSpec, FleetVendors, SimFleet};
use serde_json::Value;
use std::time::Duration;

/// The most an ONU of the simulator's traffic model carries at the day's peak (100 Mb/s
/// mean, 160 % at the peak), with room for the rounding of two reads' times.
const MODEL_PEAK_BPS: f64 = 200e6;

/// The layouts in the order `FleetVendors::EveryFamily` gives them to OLTs 1..=5.
const LAYOUTS: [&str; 5] = ["MA5800", "C320", "P3310", "C620", "GP3600"];

async fn every_layout() -> SimFleet {
    SimFleet::start(FleetSpec {
        vendors: FleetVendors::EveryFamily,
        dynamics: Dynamics::none(),
        ..FleetSpec::new(LAYOUTS.len(), 12)
    })
    .await
    .expect("simulator starts")
}

/// The ids of OLT `olt`'s ONUs with `status`.
async fn onus(service: &TestService, olt: usize, status: &str) -> Vec<u64> {
    let (_, body) = service
        .get(&format!("/olts/{olt}/onus?status={status}&size=100"))
        .await;
    body["data"]
        .as_array()
        .expect("ONUs")
        .iter()
        .filter_map(|o| o["id"].as_u64())
        .collect()
}

/// ONU `id`'s traffic once it has a rate (its second read).
async fn rated(service: &TestService, id: u64) -> Value {
    eventually("a traffic rate", Duration::from_secs(20), || async {
        let (status, body) = service.get(&format!("/onus/{id}/traffic")).await;
        assert_eq!(status, 200, "{body}");
        body["data"]["inBps"]
            .is_number()
            .then(|| body["data"].clone())
    })
    .await
}

fn assert_plausible(layout: &str, reading: &Value) {
    for key in ["inBps", "outBps"] {
        let bps = reading[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{layout}: {reading}"));
        assert!(
            (0.0..=MODEL_PEAK_BPS).contains(&bps),
            "{layout}: {key} {bps} outside the model: {reading}"
        );
    }
    for key in ["inOctets", "outOctets"] {
        assert!(reading[key].is_u64(), "{layout}: {key}: {reading}");
    }
    assert!(reading["at"].is_string(), "{layout}: {reading}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_layout_reads_its_counters_and_gives_rates() {
    let sim = every_layout().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start_tuned(&sim, dir.path().join("data"), |config| {
        config.polling.traffic_interval = Duration::from_secs(1);
    })
    .await;
    common::all_polled(&service).await;
    for (i, layout) in LAYOUTS.iter().enumerate() {
        let olt = i + 1;
        let (_, detail) = service.get(&format!("/olts/{olt}")).await;
        assert_eq!(detail["data"]["family"], *layout, "OLT {olt}");
        let online = onus(&service, olt, "ONLINE").await;
        assert!(!online.is_empty(), "{layout}: an ONLINE ONU");
        for &id in online.iter().take(3) {
            let first = rated(&service, id).await;
            assert_plausible(layout, &first);
            // Rates keep coming read after read, never negative, never a spike.
            let later = eventually("a later read", Duration::from_secs(10), || async {
                let (_, body) = service.get(&format!("/onus/{id}/traffic")).await;
                (body["data"]["at"] != first["at"]).then(|| body["data"].clone())
            })
            .await;
            assert_plausible(layout, &later);
        }
        assert_port_utilisation(&service, olt, layout).await;
        // An offline ONU is in no read: everything null, never 0.
        for id in onus(&service, olt, "OFFLINE").await.into_iter().take(2) {
            let (_, body) = service.get(&format!("/onus/{id}/traffic")).await;
            for key in ["inBps", "outBps", "inOctets", "outOctets", "at"] {
                assert!(body["data"][key].is_null(), "{layout}: {key}: {body}");
            }
        }
    }
    let (status, body) = service.get("/onus/999999/traffic").await;
    assert_eq!(status, 404, "{body}");
    service.stop().await;
}

/// OLT `olt`'s ports carry their ONUs' rates summed, as a share of the port's capacity:
/// EPON (the P3310) 1 Gb/s each way, GPON 1.244 Gb/s up and 2.488 down.
async fn assert_port_utilisation(service: &TestService, olt: usize, layout: &str) {
    let (up, down) = if layout == "P3310" {
        (1e9, 1e9)
    } else {
        (1.244_16e9, 2.488_32e9)
    };
    let ports = eventually("a port's traffic", Duration::from_secs(20), || async {
        let (_, detail) = service.get(&format!("/olts/{olt}")).await;
        let ports = detail["data"]["ports"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        ports
            .iter()
            .any(|p| p["inBps"].is_number())
            .then_some(ports)
    })
    .await;
    for port in ports.iter().filter(|p| p["inBps"].is_number()) {
        for (bps, share, capacity) in [
            ("inBps", "inUtilisation", up),
            ("outBps", "outUtilisation", down),
        ] {
            let (bps, share) = (
                port[bps].as_f64().expect("bps"),
                port[share].as_f64().expect("share"),
            );
            let online = port["onuOnline"].as_f64().expect("online");
            assert!(
                (0.0..=online * MODEL_PEAK_BPS).contains(&bps),
                "{layout}: {port}"
            );
            assert!(
                (share - bps / capacity).abs() < 1e-4,
                "{layout}: {share} of {capacity}: {port}"
            );
        }
    }
}

/// Watches ONU `id`'s readings (faster than they are taken) until both its counters
/// have gone backwards, and checks the rate of each read across a wrap.
async fn watch_wraps(service: &TestService, id: u64, deadline: std::time::Instant) {
    let mut last: Option<Value> = None;
    let mut wrapped = [false, false];
    while wrapped != [true, true] {
        assert!(
            std::time::Instant::now() < deadline,
            "ONU {id}: no wrap seen ({wrapped:?})"
        );
        let (_, body) = service.get(&format!("/onus/{id}/traffic")).await;
        let now = body["data"].clone();
        if let Some(before) = last.as_ref().filter(|b| b["at"] != now["at"]) {
            for (i, (octets, bps)) in [("inOctets", "inBps"), ("outOctets", "outBps")]
                .into_iter()
                .enumerate()
            {
                let (was, is) = (before[octets].as_u64(), now[octets].as_u64());
                if let (Some(was), Some(is)) = (was, is) {
                    if is < was {
                        wrapped[i] = true;
                        let rate = now[bps].as_f64();
                        assert!(
                            rate.is_some_and(|r| (0.0..=MODEL_PEAK_BPS).contains(&r)),
                            "ONU {id}: the read across a wrap gave {bps} {rate:?}: {before} -> {now}"
                        );
                    }
                }
            }
        }
        if now["at"].is_string() {
            last = Some(now);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_32_bit_counter_wrap_gives_a_rate_not_a_gap_or_a_spike() {
    let sim = every_layout().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start_tuned(&sim, dir.path().join("data"), |config| {
        config.polling.traffic_interval = Duration::from_secs(1);
    })
    .await;
    common::all_polled(&service).await;
    // OLT 2 is the C320, whose counters are 32-bit and wrap 8–23 s after the start.
    let (_, detail) = service.get("/olts/2").await;
    assert_eq!(detail["data"]["family"], "C320");
    let online = onus(&service, 2, "ONLINE").await;
    assert!(!online.is_empty());
    let deadline = std::time::Instant::now() + Duration::from_secs(45);
    let watches = online
        .iter()
        .take(3)
        .map(|&id| watch_wraps(&service, id, deadline));
    futures::future::join_all(watches).await;
    service.stop().await;
}
