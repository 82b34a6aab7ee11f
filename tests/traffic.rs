//! Per-ONU traffic end to end (docs/api.md, "Traffic"): the real service polls a simulated
//! fleet holding one OLT of every layout (Huawei MA5800, ZTE C320 and C620, BDCOM P3310 and
//! GP3600), whose ONUs' counters advance with the simulator's traffic model, over real
//! SNMP. Every layout's `traffic` group is read on its OIDs (docs/devices.md) and gives
//! rates within the model's bounds for online ONUs, all `null` for offline ones. The
//! C320's 32-bit counters wrap within the simulator's first half minute: the read across
//! the wrap gives a rate like any other, neither a gap nor a spike. Each PON port shows its
//! ONUs' rates summed and their share of the port's capacity (EPON or GPON).
//!
//! The stored history keeps a point a read and averages them into buckets of a step; the
//! busiest ONUs come ranked by the asked direction, across the fleet or one OLT. (The
//! simulator's upstream is a fixed share of each ONU's downstream, so both directions
//! rank alike here: the ranking by direction itself is unit-tested in
//! `ponkeeper_actors::traffic`.)

use crate::common;

use crate::common::{eventually, steady_sim, TestService};
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

/// A local date-time as the service writes it.
const LOCAL: &str = "%Y-%m-%dT%H:%M:%S";

fn local(text: &Value) -> chrono::NaiveDateTime {
    let text = text.as_str().unwrap_or_else(|| panic!("a time: {text}"));
    chrono::NaiveDateTime::parse_from_str(text, LOCAL).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// ONU `id`'s stored traffic with `query` (the part after `?`).
async fn history(service: &TestService, id: u64, query: &str) -> Vec<Value> {
    let (status, body) = service
        .get(&format!("/onus/{id}/traffic/history?{query}"))
        .await;
    assert_eq!(status, 200, "{query}: {body}");
    body["data"].as_array().expect("points").clone()
}

/// The means of `points` in buckets of `step` seconds from `from`, by bucket: (start,
/// in, out, how many points).
fn means(points: &[Value], from: chrono::NaiveDateTime, step: i64) -> Vec<(i64, f64, f64, usize)> {
    let mut buckets: std::collections::BTreeMap<i64, (f64, f64, usize)> = Default::default();
    for point in points {
        let index = (local(&point["at"]) - from).num_seconds().div_euclid(step);
        let bucket = buckets.entry(index).or_default();
        bucket.0 += point["inBps"].as_f64().expect("in");
        bucket.1 += point["outBps"].as_f64().expect("out");
        bucket.2 += 1;
    }
    buckets
        .into_iter()
        .map(|(i, (sum_in, sum_out, n))| (i * step, sum_in / n as f64, sum_out / n as f64, n))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_keeps_a_point_a_read_and_averages_them_by_step() {
    let sim = steady_sim(1, 6).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start_tuned(&sim, dir.path().join("data"), |config| {
        config.polling.traffic_interval = Duration::from_secs(1);
    })
    .await;
    common::all_polled(&service).await;
    let id = onus(&service, 1, "ONLINE").await[0];
    // Default period: the last day. A point a read once rates come (from the second read).
    let raw = eventually("eight stored points", Duration::from_secs(30), || async {
        let points = history(&service, id, "").await;
        (points.len() >= 8).then_some(points)
    })
    .await;
    for pair in raw.windows(2) {
        assert!(
            local(&pair[0]["at"]) < local(&pair[1]["at"]),
            "oldest first: {pair:?}"
        );
    }
    for point in &raw {
        assert_plausible_rates(point);
    }
    let (first, last) = (local(&raw[0]["at"]), local(&raw[raw.len() - 1]["at"]));
    let period = format!("to={}", last.format(LOCAL));
    let limited = history(&service, id, &format!("{period}&limit=2")).await;
    assert_eq!(limited, raw[..2], "the limit keeps the oldest");

    // Minute buckets from 55 s before the first point: the first bucket holds the first
    // five seconds' points, the second the rest.
    let from = first - chrono::Duration::seconds(55);
    let period = format!("from={}&{period}", from.format(LOCAL));
    let points = history(&service, id, &period).await;
    let expected = means(&points, from, 60);
    assert!(expected.len() >= 2, "two buckets: {expected:?}");
    assert!(
        expected.iter().any(|b| b.3 >= 2),
        "a bucket of several points"
    );
    let buckets = history(&service, id, &format!("{period}&step=1m")).await;
    assert_eq!(buckets.len(), expected.len(), "{buckets:?} vs {expected:?}");
    for (bucket, (start, mean_in, mean_out, _)) in buckets.iter().zip(&expected) {
        assert_eq!(
            local(&bucket["at"]),
            from + chrono::Duration::seconds(*start)
        );
        // Each stored point is answered rounded to whole bits: the means agree within 1.
        let (got_in, got_out) = (bucket["inBps"].as_f64(), bucket["outBps"].as_f64());
        assert!(
            got_in.is_some_and(|v| (v - mean_in).abs() <= 1.0),
            "{bucket} vs {mean_in}"
        );
        assert!(
            got_out.is_some_and(|v| (v - mean_out).abs() <= 1.0),
            "{bucket} vs {mean_out}"
        );
    }
    assert_summaries(&service, id, &period, points.len()).await;
    assert_history_refusals(&service, id, (first, last)).await;
    service.stop().await;
}

/// `meta` says what the points of `period` are: as stored, summaries of 1-minute buckets
/// of them, then of hourly rollups (of the open points, made as they are read); each
/// summary's mean lies between its `min` and `max`, and the hourly ones stand for every
/// one of the `stored` points of the period, at least.
async fn assert_summaries(service: &TestService, id: u64, period: &str, stored: usize) {
    for (step, resolution) in [("", "raw"), ("&step=1m", "raw"), ("&step=1h", "hourly")] {
        let path = format!("/onus/{id}/traffic/history?{period}{step}");
        let (status, body) = service.get(&path).await;
        assert_eq!(status, 200, "{body}");
        let expected = step.strip_prefix("&step=").map_or(Value::Null, Value::from);
        let meta = serde_json::json!({"resolution": resolution, "step": expected});
        assert_eq!(body["meta"], meta, "{path}");
        let points = body["data"].as_array().expect("points");
        let mut count = 0;
        for point in points {
            count += point["count"].as_u64().expect("count") as usize;
            if step.is_empty() {
                assert_eq!(point["count"], 1, "{point}");
                assert!(point["min"].is_null() && point["max"].is_null(), "{point}");
                continue;
            }
            for key in ["inBps", "outBps"] {
                let (min, max) = (&point["min"][key], &point["max"][key]);
                let mean = point[key].as_f64().expect("a mean");
                assert!(
                    min.as_f64() <= Some(mean) && Some(mean) <= max.as_f64(),
                    "{point}"
                );
            }
        }
        assert!(count >= stored, "{path}: {count} of {stored} points");
    }
}

fn assert_plausible_rates(point: &Value) {
    for key in ["inBps", "outBps"] {
        let bps = point[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{key}: {point}"));
        assert!((0.0..=MODEL_PEAK_BPS).contains(&bps), "{key}: {point}");
    }
}

/// A period backwards and a step that is none are 400 naming the parameter (in Russian
/// for a client that asks, with no English word left); an unknown ONU is 404.
async fn assert_history_refusals(
    service: &TestService,
    id: u64,
    (first, last): (chrono::NaiveDateTime, chrono::NaiveDateTime),
) {
    let backwards = format!(
        "/onus/{id}/traffic/history?from={}&to={}",
        last.format(LOCAL),
        first.format(LOCAL)
    );
    let (status, body) = service.get(&backwards).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], "INVALID_PARAMETER");
    assert_eq!(
        body["error"]["message"],
        "parameter `from` must not be after `to`"
    );
    for step in ["5s", "0m", "1000d", "1w"] {
        let path = format!("/onus/{id}/traffic/history?step={step}");
        let (status, body) = service.get(&path).await;
        assert_eq!(status, 400, "{step}: {body}");
        let message = body["error"]["message"].as_str().expect("message");
        assert!(
            message.starts_with("parameter `step`: must be a step like 5m, 1h or 1d"),
            "{message}"
        );
        let (status, _, body) = service
            .send(
                reqwest::Method::GET,
                &path,
                &service.read_only,
                &[("Accept-Language", "ru")],
            )
            .await;
        assert_eq!(status, 400);
        let message = body["error"]["message"].as_str().expect("message");
        assert!(message.contains("шагом"), "{message}");
        let foreign = ponkeeper::http::russian::foreign_words(message);
        assert!(foreign.is_empty(), "{message}: {foreign:?}");
    }
    let (status, body) = service.get("/onus/999999/traffic/history").await;
    assert_eq!(status, 404, "{body}");
}

/// `GET /traffic/top` with `query`: its items and warnings.
async fn top(service: &TestService, query: &str) -> (Vec<Value>, Vec<Value>) {
    let (status, body) = service.get(&format!("/traffic/top?{query}")).await;
    assert_eq!(status, 200, "{query}: {body}");
    let data = &body["data"];
    let items = data["items"].as_array().expect("items").clone();
    let warnings = data["warnings"].as_array().expect("warnings").clone();
    (items, warnings)
}

/// `items` come highest `key` first, each naming its ONU.
fn assert_ranked(items: &[Value], key: &str) {
    for pair in items.windows(2) {
        let (a, b) = (pair[0][key].as_f64(), pair[1][key].as_f64());
        assert!(a >= b, "{key} not highest first: {pair:?}");
    }
    for item in items {
        assert!(item["onuId"].is_u64() && item["oltId"].is_u64(), "{item}");
        for text in ["ponPort", "serial", "description", "at"] {
            assert!(item[text].is_string(), "{text}: {item}");
        }
        assert_plausible_rates(item);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn top_ranks_the_busiest_by_direction_across_the_fleet_or_one_olt() {
    let sim = steady_sim(2, 8).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start_tuned(&sim, dir.path().join("data"), |config| {
        config.polling.traffic_interval = Duration::from_secs(1);
    })
    .await;
    common::all_polled(&service).await;
    let online = [
        onus(&service, 1, "ONLINE").await,
        onus(&service, 2, "ONLINE").await,
    ];
    let every = online[0].len() + online[1].len();
    assert!(
        every > 10,
        "more ONUs online than the default size: {online:?}"
    );
    // Once every online ONU has a rate, all of them are ranked (offline ones never are).
    let (all, warnings) = eventually(
        "every online ONU rated",
        Duration::from_secs(20),
        || async {
            let answer = top(&service, "by=out&size=100").await;
            (answer.0.len() == every).then_some(answer)
        },
    )
    .await;
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_ranked(&all, "outBps");
    let ranked: std::collections::BTreeSet<u64> =
        all.iter().filter_map(|i| i["onuId"].as_u64()).collect();
    let expected: std::collections::BTreeSet<u64> = online.concat().into_iter().collect();
    assert_eq!(ranked, expected, "the online ONUs of both OLTs");

    let (three, _) = top(&service, "by=in&size=3").await;
    assert_eq!(three.len(), 3);
    assert_ranked(&three, "inBps");
    let (default, _) = top(&service, "by=in").await;
    assert_eq!(default.len(), 10, "size defaults to 10");
    assert_ranked(&default, "inBps");

    let (one_olt, warnings) = top(&service, "by=in&oltId=2&size=100").await;
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(one_olt.len(), online[1].len());
    assert!(one_olt.iter().all(|i| i["oltId"] == 2), "{one_olt:?}");
    assert_ranked(&one_olt, "inBps");

    let (status, body) = service.get("/traffic/top?by=in&oltId=999").await;
    assert_eq!(status, 404, "{body}");
    for (query, parameter) in [
        ("size=5", "by"),
        ("by=up", "by"),
        ("by=in&size=0", "size"),
        ("by=in&size=101", "size"),
    ] {
        let (status, body) = service.get(&format!("/traffic/top?{query}")).await;
        assert_eq!(status, 400, "{query}: {body}");
        let message = body["error"]["message"].as_str().expect("message");
        assert!(
            message.contains(&format!("`{parameter}`")),
            "{query}: {message}"
        );
    }
    service.stop().await;
}

/// `PON_PORT_SATURATED` end to end, with a share the model's traffic passes at any hour
/// (0.1 % of the port: a few ONUs at the night's low): the port's busy reads for the rule's time raise it, one event and one
/// alarm however many reads stay above; emptying the port (its ONUs offline, so no rate)
/// clears both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_port_full_for_the_rule_time_is_saturated_once_and_clears_when_it_empties() {
    let sim = SimFleet::start(FleetSpec {
        vendors: FleetVendors::One(ponkeeper_actors::domain::Vendor::Huawei),
        dynamics: Dynamics::none(),
        ..FleetSpec::new(1, 16)
    })
    .await
    .expect("simulator starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start_tuned(&sim, dir.path().join("data"), |config| {
        config.polling.traffic_interval = Duration::from_secs(1);
        config.events.port_saturation_share = 0.001;
        config.events.port_saturation_for = Duration::from_secs(2);
    })
    .await;
    common::all_polled(&service).await;
    let expected = sim.expected_onus(1);
    let port = expected
        .iter()
        .find(|o| o.status == ponkeeper_actors::domain::OnuStatus::Online)
        .expect("an online ONU")
        .pon_port
        .clone();
    let events = |kind: &'static str| {
        let service = &service;
        let port = port.clone();
        async move {
            let (_, body) = service.get(&format!("/events?type={kind}&size=50")).await;
            body["data"]
                .as_array()
                .expect("events")
                .iter()
                .filter(|e| e["ponPort"] == port.as_str())
                .cloned()
                .collect::<Vec<Value>>()
        }
    };
    let raised = eventually("PON_PORT_SATURATED", Duration::from_secs(30), || async {
        let found = events("PON_PORT_SATURATED").await;
        (!found.is_empty()).then_some(found)
    })
    .await;
    assert_eq!(raised[0]["severity"], "WARNING");
    assert_eq!(raised[0]["data"]["port"], port.as_str());
    assert!(raised[0]["data"]["utilisation"].as_f64().expect("share") >= 0.001);
    // Reads go on above the share: still one event, one active alarm.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(events("PON_PORT_SATURATED").await.len(), 1);
    let object = format!("port:1:{port}");
    let (_, alarms) = service
        .get("/alarms?active=true&type=PON_PORT_SATURATED")
        .await;
    let of_port: Vec<&Value> = alarms["data"]
        .as_array()
        .expect("alarms")
        .iter()
        .filter(|a| a["object"] == object.as_str())
        .collect();
    assert_eq!(of_port.len(), 1, "{alarms}");
    for onu in expected.iter().filter(|o| o.pon_port == port) {
        sim.set_onu_online(1, &onu.serial, false);
    }
    eventually(
        "PON_PORT_SATURATION_CLEARED",
        Duration::from_secs(30),
        || async { (!events("PON_PORT_SATURATION_CLEARED").await.is_empty()).then_some(()) },
    )
    .await;
    eventually("the alarm cleared", Duration::from_secs(10), || async {
        let (_, alarms) = service
            .get("/alarms?active=true&type=PON_PORT_SATURATED")
            .await;
        let active = alarms["data"].as_array()?;
        active
            .iter()
            .all(|a| a["object"] != object.as_str())
            .then_some(())
    })
    .await;
    service.stop().await;
}
