//! СЗО end to end: objects bound to simulated ONUs, outages made by taking an ONU
//! offline in the simulator, availability reports checked against the arithmetic, and a
//! service stop reported as unknown time.

use crate::common::{all_polled, eventually, steady_sim, test_config, TestService};
use chrono::{DateTime, Local, NaiveDateTime, TimeZone, Utc};
use ponkeeper::config::Config;
use ponkeeper_actors::domain::OnuStatus;
use ponkeeper_actors::inventory::{SzoSpec, SzoType};
use ponkeeper_sim::SimFleet;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

fn local(at: DateTime<Utc>) -> String {
    at.with_timezone(&Local)
        .format("%Y-%m-%dT%H:%M:%S")
        .to_string()
}

fn parse_local(text: &str) -> DateTime<Utc> {
    let naive = NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S").expect("local date-time");
    Local
        .from_local_datetime(&naive)
        .earliest()
        .expect("exists")
        .with_timezone(&Utc)
}

fn object(id: u32, kind: SzoType, serial: &str) -> SzoSpec {
    SzoSpec {
        id,
        name: format!("Object {id}"),
        kind,
        city: "Kazan".into(),
        address: "Lenina 5".into(),
        onu_serial: serial.into(),
        bandwidth_mbps: 100,
        connected_at: chrono::NaiveDate::from_ymd_opt(2021, 6, 1).expect("date"),
        sla_percent: 99.5,
    }
}

/// A config polling every 300 ms whose coverage tolerance is 1.6 s.
fn fast_config(dir: &Path, sim: &SimFleet, szo: Vec<SzoSpec>) -> Config {
    let mut inventory = sim.inventory();
    inventory.szo = szo;
    let path = dir.join("inventory.toml");
    std::fs::write(&path, inventory.to_toml()).expect("inventory");
    let mut config = test_config(dir.to_path_buf(), path);
    config.polling.status_interval = Duration::from_millis(300);
    config.polling.deadline = Duration::from_secs(1);
    config
}

fn online_serial(sim: &SimFleet, olt: u32, nth: usize) -> String {
    sim.expected_onus(olt)
        .into_iter()
        .filter(|o| o.status == OnuStatus::Online)
        .nth(nth)
        .expect("an online ONU")
        .serial
        .into()
}

async fn status_of(service: &TestService, id: u32) -> Value {
    service.get(&format!("/szo/{id}")).await.1["data"].clone()
}

/// Takes the ONU down and up again; returns the `since` the API showed for each.
async fn outage(
    service: &TestService,
    sim: &SimFleet,
    serial: &str,
    down_for: Duration,
) -> (String, String) {
    assert!(sim.set_onu_online(1, serial, false));
    let down_since = eventually("DOWN", Duration::from_secs(10), || async {
        let status = status_of(service, 101).await;
        (status["status"] == "DOWN").then(|| status["since"].as_str().expect("since").to_string())
    })
    .await;
    tokio::time::sleep(down_for).await;
    assert!(sim.set_onu_online(1, serial, true));
    let up_since = eventually("UP", Duration::from_secs(10), || async {
        let status = status_of(service, 101).await;
        (status["status"] == "UP").then(|| status["since"].as_str().expect("since").to_string())
    })
    .await;
    (down_since, up_since)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_outages_and_availability_by_the_arithmetic() {
    let sim = steady_sim(2, 8).await;
    let serial = online_serial(&sim, 1, 0);
    let dir = tempfile::tempdir().expect("tempdir");
    let szo = vec![
        object(101, SzoType::School, &serial),
        object(102, SzoType::Fap, &online_serial(&sim, 2, 0)),
        object(103, SzoType::Library, "HWTC00000000"),
    ];
    let service = TestService::start_with(fast_config(dir.path(), &sim, szo), true).await;
    all_polled(&service).await;
    let from = local(Utc::now());
    tokio::time::sleep(Duration::from_millis(1500)).await;

    let first = outage(&service, &sim, &serial, Duration::from_millis(1500)).await;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let second = outage(&service, &sim, &serial, Duration::from_millis(2500)).await;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let to = local(Utc::now());

    let (status, body) = service
        .get(&format!("/szo/101/outages?from={from}&to={to}"))
        .await;
    assert_eq!(status, 200, "{body}");
    let outages = body["data"].as_array().expect("list");
    assert_eq!(outages.len(), 2, "{body}");
    for (outage, (down_since, up_since)) in outages.iter().zip([&first, &second]) {
        assert_eq!(
            outage["start"].as_str(),
            Some(down_since.as_str()),
            "from the poll that saw it offline"
        );
        assert_eq!(
            outage["end"].as_str(),
            Some(up_since.as_str()),
            "to the poll that saw it online"
        );
        assert_eq!(outage["cause"], "LOS");
        let span = (parse_local(up_since) - parse_local(down_since)).num_seconds();
        let duration = outage["durationSeconds"].as_i64().expect("duration");
        assert!((duration - span).abs() <= 1, "{duration} vs {span}");
    }
    assert!(outages[1]["durationSeconds"].as_i64() > outages[0]["durationSeconds"].as_i64());

    let (status, body) = service
        .get(&format!("/szo/availability?from={from}&to={to}"))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["meta"]["totalCount"], 3);
    let school = &body["data"][0];
    assert_eq!(school["id"], 101);
    assert_eq!(school["outages"], 2);
    let (up, down, unknown) = (
        school["upSeconds"].as_u64().expect("up"),
        school["downSeconds"].as_u64().expect("down"),
        school["unknownSeconds"].as_u64().expect("unknown"),
    );
    let period = (parse_local(&to) - parse_local(&from)).num_seconds() as u64;
    assert!(
        (up + down + unknown).abs_diff(period) <= 1,
        "{up}+{down}+{unknown} vs {period}"
    );
    let outage_seconds: i64 = outages
        .iter()
        .map(|o| o["durationSeconds"].as_i64().expect("d"))
        .sum();
    assert!(
        (down as i64 - outage_seconds).abs() <= 2,
        "{down} vs {outage_seconds}"
    );
    let expected = (up as f64 / (up + down) as f64 * 10_000.0).round() / 100.0;
    assert_eq!(school["availabilityPercent"].as_f64(), Some(expected));
    assert_eq!(school["slaMet"], expected >= 99.5);
    assert!(expected < 100.0);

    let fap = &body["data"][1];
    assert_eq!(
        (fap["outages"].as_u64(), fap["availabilityPercent"].as_f64()),
        (Some(0), Some(100.0))
    );
    let library = &body["data"][2];
    assert_eq!(
        library["availabilityPercent"],
        Value::Null,
        "unbound: nothing known"
    );
    assert_eq!(library["slaMet"], Value::Null);
    assert_eq!(body["summary"]["SCHOOL"]["objects"], 1);
    assert_eq!(body["summary"]["SCHOOL"]["outages"], 2);
    assert_eq!(body["summary"]["FAP"]["slaMet"], 1);

    // The registry view and its filters.
    let (_, body) = service.get("/szo").await;
    let statuses: Vec<&str> = body["data"]
        .as_array()
        .expect("list")
        .iter()
        .map(|o| o["status"].as_str().expect("s"))
        .collect();
    assert_eq!(statuses, ["UP", "UP", "UNBOUND"]);
    let school = &body["data"][0];
    assert_eq!(school["type"], "SCHOOL");
    assert_eq!(school["oltId"], 1);
    assert_eq!(school["connectedAt"], "2021-06-01");
    assert!(school["onuId"].as_u64().is_some() && school["rxPower"].as_f64().is_some());
    for (query, ids) in [
        ("type=FAP", vec![102]),
        ("status=UNBOUND", vec![103]),
        ("status=UP&city=Kazan", vec![101, 102]),
        ("nodeId=2", vec![102]),
    ] {
        let (_, body) = service.get(&format!("/szo?{query}")).await;
        let got: Vec<u64> = body["data"]
            .as_array()
            .expect("list")
            .iter()
            .map(|o| o["id"].as_u64().expect("id"))
            .collect();
        assert_eq!(got, ids, "{query}");
    }
    for (path, parameter) in [
        (
            "/szo/availability?to=2026-11-01T00:00:00".to_string(),
            "from",
        ),
        (
            format!("/szo/availability?from=2020-01-01T00:00:00&to={to}"),
            "from",
        ),
        (format!("/szo/availability?from={to}&to={from}"), "from"),
        ("/szo?type=CAFE".to_string(), "type"),
    ] {
        let (status, body) = service.get(&path).await;
        assert_eq!(status, 400, "{path}");
        assert!(
            body["error"]["message"]
                .as_str()
                .expect("m")
                .contains(&format!("`{parameter}`")),
            "{body}"
        );
    }
    let (status, _) = service.get("/szo/999").await;
    assert_eq!(status, 404);

    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn time_while_the_service_was_stopped_is_unknown() {
    let sim = steady_sim(1, 4).await;
    let serial = online_serial(&sim, 1, 0);
    let dir = tempfile::tempdir().expect("tempdir");
    let config = fast_config(
        dir.path(),
        &sim,
        vec![object(101, SzoType::Medical, &serial)],
    );
    let service = TestService::start_with(config.clone(), true).await;
    all_polled(&service).await;
    let from = local(Utc::now());
    tokio::time::sleep(Duration::from_millis(2000)).await;
    service.stop().await;

    tokio::time::sleep(Duration::from_secs(4)).await;
    let service = TestService::start_with(config, true).await;
    all_polled(&service).await;
    tokio::time::sleep(Duration::from_millis(2000)).await;
    let to = local(Utc::now());

    let (_, body) = service
        .get(&format!("/szo/availability?from={from}&to={to}"))
        .await;
    let report = &body["data"][0];
    let unknown = report["unknownSeconds"].as_u64().expect("unknown");
    assert!(
        (4..=7).contains(&unknown),
        "the stop (4 s and the restart) is unknown: {report}"
    );
    assert_eq!(report["downSeconds"], 0);
    assert_eq!(
        report["availabilityPercent"].as_f64(),
        Some(100.0),
        "unknown time is not counted as up or down"
    );
    let period = (parse_local(&to) - parse_local(&from)).num_seconds() as u64;
    let up = report["upSeconds"].as_u64().expect("up");
    assert!(
        (up + unknown).abs_diff(period) <= 1,
        "{up}+{unknown} vs {period}"
    );
    assert!(up >= 3, "{report}");

    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bound_onus_keep_their_history_longer() {
    let sim = steady_sim(1, 8).await;
    let bound_serial = online_serial(&sim, 1, 0);
    let free_serial = online_serial(&sim, 1, 1);
    let dir = tempfile::tempdir().expect("tempdir");
    let mut config = fast_config(
        dir.path(),
        &sim,
        vec![object(101, SzoType::Police, &bound_serial)],
    );
    config.onu.state_history_retention = Duration::from_secs(2);
    config.szo.history_retention = Duration::from_secs(3600);
    let service = TestService::start_with(config, true).await;
    all_polled(&service).await;

    let mut ids = Vec::new();
    for serial in [&bound_serial, &free_serial] {
        let (_, body) = service.get(&format!("/onus?serial={serial}")).await;
        let id = body["data"][0]["id"].as_u64().expect("id");
        ids.push(id);
        for online in [false, true] {
            assert!(sim.set_onu_online(1, serial, online));
            let wanted = if online { "ONLINE" } else { "OFFLINE" };
            eventually(wanted, Duration::from_secs(10), || async {
                let (_, body) = service.get(&format!("/onus/{id}")).await;
                (body["data"]["status"] == wanted).then_some(())
            })
            .await;
        }
    }
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let store = &service.state.store;
    let everything = |onu: u64| {
        store
            .state_changes(onu, DateTime::<Utc>::MIN_UTC, Utc::now())
            .expect("changes")
            .len()
    };
    assert_eq!(
        (everything(ids[0]), everything(ids[1])),
        (3, 3),
        "first sight, down, up"
    );

    ponkeeper::jobs::prune_history(&service.state)
        .await
        .expect("prune");
    assert_eq!(
        everything(ids[0]),
        3,
        "bound to a СЗО: kept for szo.history_retention"
    );
    assert_eq!(
        everything(ids[1]),
        1,
        "past onu.state_history_retention, only the last change stays"
    );

    service.stop().await;
    sim.shutdown().await;
}
