//! ONU and optics endpoints end to end: the real server polling the simulator over UDP.
//! Every ONU field is compared with what the simulated device serves.

use crate::common::{all_polled, steady_sim, TestService};
use ponkeeper_actors::domain::OnuStatus;
use ponkeeper_sim::ExpectedOnu;
use serde_json::{json, Value};
use std::collections::HashMap;

fn list(body: &Value) -> &Vec<Value> {
    body["data"].as_array().expect("data is a list")
}

fn ids(body: &Value) -> Vec<u64> {
    list(body)
        .iter()
        .map(|o| o["id"].as_u64().expect("id"))
        .collect()
}

/// The API's view of an ONU without the service's own fields.
fn device_view(onu: &Value) -> Value {
    json!({
        "ponPort": onu["ponPort"], "onuIndex": onu["onuIndex"], "serial": onu["serial"],
        "description": onu["description"], "status": onu["status"],
        "lastDownCause": onu["lastDownCause"], "distance": onu["distance"],
        "rxPower": onu["rxPower"], "txPower": onu["txPower"], "oltRxPower": onu["oltRxPower"],
    })
}

/// The ONU resource's device fields of what the simulator serves, in the API's names
/// (its transceiver readings are the optics resource's, see [`transceiver_view`]).
fn expected_view(onu: &ExpectedOnu) -> Value {
    json!({
        "ponPort": onu.pon_port, "onuIndex": onu.onu_index, "serial": onu.serial,
        "description": onu.description, "status": onu.status,
        "lastDownCause": onu.last_down_cause, "distance": onu.distance,
        "rxPower": onu.rx_power, "txPower": onu.tx_power, "oltRxPower": onu.olt_rx_power,
    })
}

const TRANSCEIVER_FIELDS: [&str; 3] = ["temperature", "voltage", "biasCurrent"];

fn transceiver_view(onu: &ExpectedOnu) -> Value {
    json!({
        "temperature": onu.temperature, "voltage": onu.voltage, "biasCurrent": onu.bias_current,
    })
}

fn level(rx: Option<f64>) -> &'static str {
    match rx {
        None => "UNKNOWN",
        Some(rx) if rx <= -27.0 => "CRITICAL",
        Some(rx) if rx <= -25.0 => "WARNING",
        Some(_) => "OK",
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn onus_of_an_olt_are_what_the_device_serves() {
    let sim = steady_sim(3, 24).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    all_polled(&service).await;

    for olt in 1..=3u32 {
        let (status, body) = service.get(&format!("/olts/{olt}/onus?size=500")).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(
            body["meta"],
            json!({"page": 0, "size": 500, "totalCount": 24})
        );
        let expected: HashMap<String, Value> = sim
            .expected_onus(olt)
            .iter()
            .map(|o| (o.serial.to_string(), expected_view(o)))
            .collect();
        for onu in list(&body) {
            let serial = onu["serial"].as_str().expect("serial");
            assert_eq!(&device_view(onu), &expected[serial], "ONU {serial}");
            assert_eq!(onu["oltId"], olt);
            assert_eq!(onu["vlan"], Value::Null);
            let fields: Vec<&str> = onu
                .as_object()
                .expect("object")
                .keys()
                .map(|k| k.as_str())
                .collect();
            // The seed's 14 fields, `subscriber` (docs/provisioning.md), unbound here,
            // when its status and optics were read (docs/polling.md), and since when it
            // has been flapping (docs/events.md).
            assert_eq!(fields.len(), 18, "{fields:?}");
            assert_eq!(onu["subscriber"], Value::Null);
            assert_eq!(onu["flappingSince"], Value::Null);
            assert_eq!(onu["statusAt"], onu["lastUpdate"]);
            assert!(onu["opticsAt"].is_string(), "{onu}");
        }
        let got_ids = ids(&body);
        let mut sorted = got_ids.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(got_ids, sorted, "ordered by id, no duplicates");
    }

    let (_, body) = service.get("/olts/1/onus?size=10&page=2").await;
    assert_eq!(list(&body).len(), 4);
    assert_eq!(
        body["meta"],
        json!({"page": 2, "size": 10, "totalCount": 24})
    );
    let (_, body) = service.get("/olts/1/onus?page=7").await;
    assert_eq!(list(&body).len(), 0);
    assert_eq!(body["meta"]["totalCount"], 24);

    let offline = sim
        .expected_onus(1)
        .iter()
        .filter(|o| o.status == OnuStatus::Offline)
        .count();
    let (_, body) = service.get("/olts/1/onus?status=OFFLINE&size=100").await;
    assert_eq!(body["meta"]["totalCount"], offline);
    assert!(list(&body)
        .iter()
        .all(|o| o["status"] == "OFFLINE" && o["lastDownCause"] != Value::Null));
    let port = sim.expected_ports(1)[1].clone();
    let on_port = sim
        .expected_onus(1)
        .iter()
        .filter(|o| o.pon_port == port)
        .count();
    let (_, body) = service
        .get(&format!("/olts/1/onus?ponPort={port}&size=100"))
        .await;
    assert_eq!(body["meta"]["totalCount"], on_port);
    assert!(list(&body).iter().all(|o| o["ponPort"] == port.as_str()));

    let (status, _) = service.get("/olts/9/onus").await;
    assert_eq!(status, 404);
    let (status, body) = service.get("/olts/1/onus?status=UP").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (400, Some("INVALID_PARAMETER"))
    );

    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn onus_across_the_network_filter_and_page() {
    let sim = steady_sim(6, 10).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    all_polled(&service).await;
    let all: Vec<(u32, ExpectedOnu)> = (1..=6u32)
        .flat_map(|olt| sim.expected_onus(olt).into_iter().map(move |o| (olt, o)))
        .collect();

    let (_, body) = service.get("/onus?size=500").await;
    assert_eq!(body["meta"]["totalCount"], 60);
    let every_id = ids(&body);
    let mut sorted = every_id.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(every_id, sorted);
    let (_, body) = service.get("/onus?size=7&page=3").await;
    assert_eq!(ids(&body), every_id[21..28]);
    let (_, body) = service.get("/onus?page=100").await;
    assert_eq!(
        (list(&body).len(), body["meta"]["totalCount"].as_u64()),
        (0, Some(60))
    );

    let count = |pred: &dyn Fn(u32, &ExpectedOnu) -> bool| {
        all.iter().filter(|(olt, o)| pred(*olt, o)).count()
    };
    let inventory = sim.inventory();
    let in_node = |olt: u32, node: u32| {
        inventory
            .olts
            .iter()
            .any(|o| o.id == olt && o.node == Some(node))
    };
    let some = &all[13].1;
    let fragment = some.description[3..].to_uppercase();
    let cases: Vec<(String, usize)> = vec![
        ("oltId=2".into(), 10),
        ("oltId=99".into(), 0),
        ("nodeId=1".into(), count(&|olt, _| in_node(olt, 1))),
        (
            "status=ONLINE".into(),
            count(&|_, o| o.status == OnuStatus::Online),
        ),
        (
            "status=OFFLINE&oltId=3".into(),
            count(&|olt, o| olt == 3 && o.status == OnuStatus::Offline),
        ),
        ("ponPort=0/1/0".into(), count(&|_, o| o.pon_port == "0/1/0")),
        (format!("serial={}", some.serial.to_lowercase()), 1),
        (
            format!("q={fragment}"),
            count(&|_, o| {
                o.description.to_uppercase().contains(&fragment) || o.serial.contains(&fragment)
            }),
        ),
        ("q=hwtc".into(), count(&|_, o| o.serial.starts_with("HWTC"))),
        ("q=no-such-thing".into(), 0),
    ];
    for (query, expected) in cases {
        let (status, body) = service.get(&format!("/onus?{query}&size=500")).await;
        assert_eq!(status, 200, "{query}: {body}");
        assert_eq!(body["meta"]["totalCount"], expected, "{query}");
        assert_eq!(list(&body).len(), expected, "{query}");
    }
    let (_, body) = service.get(&format!("/onus?serial={}", some.serial)).await;
    let onu = list(&body)[0].clone();
    assert_eq!(device_view(&onu), expected_view(some));

    let id = onu["id"].as_u64().expect("id");
    let (status, body) = service.get(&format!("/onus/{id}")).await;
    assert_eq!(status, 200);
    assert_eq!(body["data"], onu);
    for (path, code) in [
        ("/onus/999999", 404),
        ("/onus/abc", 400),
        ("/onus?oltId=x", 400),
        ("/onus?status=gone", 400),
    ] {
        let (status, _) = service.get(path).await;
        assert_eq!(status, code, "{path}");
    }

    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn optics_levels_order_and_history() {
    let sim = steady_sim(3, 16).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    all_polled(&service).await;

    let served: HashMap<String, ExpectedOnu> = (1..=3)
        .flat_map(|olt| sim.expected_onus(olt))
        .map(|o| (o.serial.to_string(), o))
        .collect();
    let mut with_readings = 0;
    let (_, body) = service.get("/onus?size=500").await;
    for onu in list(&body) {
        let id = onu["id"].as_u64().expect("id");
        let (status, optics) = service.get(&format!("/onus/{id}/optics")).await;
        assert_eq!(status, 200);
        let reading = &optics["data"];
        assert_eq!(reading["onuId"], id);
        for field in [
            "rxPower",
            "txPower",
            "oltRxPower",
            "oltId",
            "ponPort",
            "serial",
            "description",
        ] {
            assert_eq!(reading[field], onu[field], "{field}");
        }
        assert_eq!(reading["level"], level(onu["rxPower"].as_f64()));
        let serial = onu["serial"].as_str().expect("serial");
        let transceiver: Value = TRANSCEIVER_FIELDS
            .iter()
            .map(|f| (f.to_string(), reading[*f].clone()))
            .collect::<serde_json::Map<_, _>>()
            .into();
        assert_eq!(transceiver, transceiver_view(&served[serial]), "{serial}");
        with_readings += usize::from(reading["temperature"].is_number());
        assert_eq!(reading["measuredAt"], onu["lastUpdate"]);
    }

    let expected_readings = served.values().filter(|o| o.temperature.is_some()).count();
    assert_eq!(with_readings, expected_readings);
    assert!(
        with_readings > 0,
        "Huawei and BDCOM ONUs online report a temperature"
    );

    let (_, body) = service.get("/optics?size=500").await;
    assert_eq!(body["meta"]["totalCount"], 48);
    let rx: Vec<Option<f64>> = list(&body).iter().map(|r| r["rxPower"].as_f64()).collect();
    let known: Vec<f64> = rx.iter().flatten().copied().collect();
    assert!(
        known.windows(2).all(|w| w[0] <= w[1]),
        "worst first: {known:?}"
    );
    let first_null = rx.iter().position(Option::is_none).unwrap_or(rx.len());
    assert!(
        rx[first_null..].iter().all(Option::is_none),
        "no reading last"
    );
    for wanted in ["OK", "WARNING", "CRITICAL", "UNKNOWN"] {
        let (_, body) = service
            .get(&format!("/optics?level={wanted}&size=500"))
            .await;
        let expected = rx.iter().filter(|r| level(**r) == wanted).count();
        assert_eq!(body["meta"]["totalCount"], expected, "{wanted}");
        assert!(list(&body).iter().all(|r| r["level"] == wanted));
    }
    let (_, body) = service.get("/optics?oltId=2&size=500").await;
    assert_eq!(body["meta"]["totalCount"], 16);
    let (status, body) = service.get("/optics?level=BAD").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (400, Some("INVALID_PARAMETER"))
    );

    // The first poll stored one point per ONU.
    let (_, online) = service.get("/onus?status=ONLINE&size=1").await;
    let onu = &list(&online)[0];
    let id = onu["id"].as_u64().expect("id");
    let (status, body) = service.get(&format!("/onus/{id}/optics/history")).await;
    assert_eq!(status, 200, "{body}");
    let points = list(&body);
    assert!(!points.is_empty());
    assert_eq!(points[0]["rxPower"], onu["rxPower"]);
    assert_eq!(points[0]["measuredAt"], onu["lastUpdate"]);
    assert_eq!(body["meta"]["resolution"], "raw");
    assert!(body["meta"]["step"].is_null() && points[0]["min"].is_null());
    assert_eq!(points[0]["count"], 1);
    // Hourly rollups of the open points, made as they are read: the same readings.
    let (_, body) = service
        .get(&format!("/onus/{id}/optics/history?step=1h"))
        .await;
    assert_eq!(body["meta"]["resolution"], "hourly");
    assert_eq!(body["meta"]["step"], "1h");
    let hours = list(&body);
    let last = &hours[hours.len() - 1];
    assert_eq!(last["min"]["rxPower"], onu["rxPower"], "{last}");
    assert_eq!(last["level"], level(onu["rxPower"].as_f64()), "{last}");
    let (_, body) = service
        .get(&format!(
            "/onus/{id}/optics/history?from=2020-01-01T00:00:00&to=2020-01-02T00:00:00"
        ))
        .await;
    assert_eq!(list(&body).len(), 0);
    for (query, parameter) in [
        ("from=yesterday", "from"),
        ("to=2026-13-01T00:00:00", "to"),
        ("from=2026-11-02T00:00:00&to=2026-11-01T00:00:00", "from"),
        ("limit=0", "limit"),
    ] {
        let (status, body) = service
            .get(&format!("/onus/{id}/optics/history?{query}"))
            .await;
        assert_eq!(status, 400, "{query}");
        let message = body["error"]["message"].as_str().expect("message");
        assert!(message.contains(&format!("`{parameter}`")), "{message}");
    }
    let (status, _) = service.get("/onus/999999/optics/history").await;
    assert_eq!(status, 404);

    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vlans_come_from_the_static_vlan_table() {
    let sim = steady_sim(3, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    all_polled(&service).await;

    let (status, body) = service.get("/olts/2/vlans").await;
    assert_eq!(status, 200);
    let expected: Vec<Value> = sim
        .expected_vlans(2)
        .into_iter()
        .map(|(id, name)| json!({"oltId": 2, "vlanId": id, "name": name, "type": "STATIC", "onuCount": 0}))
        .collect();
    assert_eq!(list(&body), &expected);
    assert_eq!(body["meta"]["totalCount"], expected.len());
    assert!(expected
        .iter()
        .any(|v| v["vlanId"] == 1002 && v["name"] == "customers-olt-2"));

    let (_, body) = service.get("/vlans?size=500").await;
    let total: usize = (1..=3).map(|olt| sim.expected_vlans(olt).len()).sum();
    assert_eq!(body["meta"]["totalCount"], total);
    let order: Vec<(u64, u64)> = list(&body)
        .iter()
        .map(|v| {
            (
                v["oltId"].as_u64().expect("olt"),
                v["vlanId"].as_u64().expect("vlan"),
            )
        })
        .collect();
    let mut sorted = order.clone();
    sorted.sort_unstable();
    assert_eq!(order, sorted, "by OLT, then VLAN id");
    let (_, body) = service.get("/vlans?vlanId=100").await;
    let olts: Vec<u64> = list(&body)
        .iter()
        .map(|v| v["oltId"].as_u64().expect("olt"))
        .collect();
    assert_eq!(olts, [1, 2, 3]);
    let (_, body) = service.get("/vlans?vlanId=1003&oltId=3").await;
    assert_eq!(body["meta"]["totalCount"], 1);
    let (status, _) = service.get("/vlans?vlanId=5000").await;
    assert_eq!(status, 400);
    let (status, _) = service.get("/olts/7/vlans").await;
    assert_eq!(status, 404);

    service.stop().await;
    sim.shutdown().await;
}
