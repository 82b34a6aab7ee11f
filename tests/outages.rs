//! Outages through the real service polling the simulator over real UDP SNMP, the cuts
//! made with the simulator's own faults (`los:PORT:FIRST-LAST`, `dying-gasp:…`): a
//! splitter's 12 ONUs dark on a 64-ONU BDCOM port are one `SPLITTER_OUTAGE` naming the
//! splitter, the 12 ONUs and their contracts (placed by a CSV import whose dry run
//! names every bad line), cleared when they come back; the whole port is a
//! `PON_OUTAGE`; a dying-gasp group on a Huawei port a `POWER_OUTAGE`. The splitter's
//! outage is one alarm, acknowledged once and audited. And the CSV import of 10,000
//! placements in one request.

use crate::common;

use crate::common::{all_polled, eventually, test_config, TestService};
use ponkeeper_sim::{Dynamics, FleetSpec, FleetVendors, SimFleet};
use serde_json::{json, Value};
use std::time::Duration;

/// A quiet fleet: OLT 1 Huawei (8 ONUs a port), 2 ZTE, 3 BDCOM EPON (4 ports of 64).
async fn fleet(olts: usize, onus: usize, vendors: FleetVendors) -> SimFleet {
    SimFleet::start(FleetSpec {
        dynamics: Dynamics::none(),
        vendors,
        ..FleetSpec::new(olts, onus)
    })
    .await
    .expect("simulator starts")
}

async fn started(sim: &SimFleet, dir: &tempfile::TempDir) -> TestService {
    let path = dir.path().join("inventory.toml");
    std::fs::write(&path, sim.inventory().to_toml()).expect("inventory");
    let mut config = test_config(dir.path().to_path_buf(), path);
    // 10,000 ONUs read by a debug build on two busy cores: the test's fast polling,
    // with the patience of a real one.
    config.polling.timeout = Duration::from_secs(2);
    config.polling.deadline = Duration::from_secs(60);
    let service = TestService::start_with(config, true).await;
    all_polled(&service).await;
    service
}

async fn list(service: &TestService, path: &str) -> Vec<Value> {
    let (status, body) = service.get(path).await;
    assert_eq!(status, 200, "{path}: {body}");
    body["data"].as_array().expect("a list").clone()
}

/// POSTs a CSV body with the FULL key.
async fn import(service: &TestService, query: &str, csv: &str) -> (u16, Value) {
    let response = reqwest::Client::new()
        .post(format!("{}/placements/import{query}", service.base))
        .header("X-API-Key", &service.full)
        .header("Content-Type", "text/csv")
        .body(csv.to_string())
        .send()
        .await
        .expect("HTTP request");
    let status = response.status().as_u16();
    (status, response.json().await.expect("JSON"))
}

fn cut(sim: &SimFleet, spec: &str) {
    sim.apply_faults(&spec.parse().expect("a fault spec"))
        .expect("the simulator takes it");
}

/// The one active outage, once there is one of `kind`.
async fn active(service: &TestService, kind: &str) -> Value {
    eventually(kind, Duration::from_secs(20), || async {
        list(service, &format!("/outages?active=true&type={kind}"))
            .await
            .first()
            .cloned()
    })
    .await
}

async fn none_active(service: &TestService) {
    eventually("no active outage", Duration::from_secs(20), || async {
        list(service, "/outages?active=true")
            .await
            .is_empty()
            .then_some(())
    })
    .await;
}

/// The outage's one alarm (its twelve ONUs have none of their own), acknowledged once
/// through the API, with who and when kept and audited; answers the alarm's id.
async fn acknowledged_once(service: &TestService, outage: &Value) -> u64 {
    let alarms = eventually("the outage's alarm", Duration::from_secs(20), || async {
        let alarms = list(service, "/alarms?active=true&size=500").await;
        alarms
            .iter()
            .any(|a| a["outageId"] == outage["id"])
            .then_some(alarms)
    })
    .await;
    let of_outage: Vec<&Value> = alarms
        .iter()
        .filter(|a| a["outageId"] == outage["id"])
        .collect();
    assert_eq!(of_outage.len(), 1, "{alarms:?}");
    assert_eq!(
        (&of_outage[0]["type"], &of_outage[0]["severity"]),
        (&json!("SPLITTER_OUTAGE"), &json!("CRITICAL"))
    );
    let onus = outage["onuIds"].as_array().expect("onus");
    assert!(alarms
        .iter()
        .all(|a| a["type"] != "ONU_DOWN" || !onus.contains(&a["onuId"])));
    let id = of_outage[0]["id"].as_u64().expect("id");
    let ack = json!({"comment": "бригада выехала"});
    let (status, acked) = service.post_json(&format!("/alarms/{id}/ack"), &ack).await;
    assert_eq!(status, 200, "{acked}");
    assert_eq!(acked["data"]["acknowledgedBy"], "test-full");
    assert_eq!(acked["data"]["comment"], "бригада выехала");
    assert!(!acked["data"]["acknowledgedAt"].is_null());
    let (status, again) = service
        .post_json(&format!("/alarms/{id}/ack"), &json!({}))
        .await;
    assert_eq!(
        (status, &again["error"]["code"]),
        (409, &json!("CONFLICT")),
        "{again}"
    );
    let (status, audit) = service
        .request(
            reqwest::Method::GET,
            "/audit-logs?action=alarm.acknowledge",
            Some(&service.full),
        )
        .await;
    assert_eq!(status, 200, "{audit}");
    let entries = audit["data"].as_array().expect("entries");
    assert_eq!(entries.len(), 2, "both attempts: {entries:?}");
    assert!(entries
        .iter()
        .all(|e| e["keyName"] == "test-full" && e["target"] == format!("alarm:{id}")));
    id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_splitter_cut_a_port_cut_and_a_power_cut_are_one_outage_each() {
    let sim = fleet(3, 256, FleetVendors::Mixed).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = started(&sim, &dir).await;
    // Twelve ONUs in a row that are all online, on a full BDCOM EPON port: the splitter's.
    let on_splitter = common::online_in_a_row(&sim, 3, 64, 12);
    let port = on_splitter[0].pon_port.clone();
    let (first, last) = (on_splitter[0].onu_index, on_splitter[11].onu_index);
    assert_eq!(last - first, 11, "consecutive indexes");

    let (status, splitter) = service
        .post_json(
            "/splitters",
            &json!({"name": "ODB-12", "oltId": 3, "ponPort": port, "address": "ул. Ленина, 5"}),
        )
        .await;
    assert_eq!(status, 200, "{splitter}");
    let splitter_id = splitter["data"]["id"].as_u64().expect("an id");
    // The twelve hang under it, placed by serial from CSV.
    let twelve: Vec<&str> = on_splitter.iter().map(|o| o.serial.as_str()).collect();
    let mut csv = String::from("onu;splitter\n");
    for serial in &twelve {
        csv.push_str(&format!("{serial};ODB-12\n"));
    }
    let with_bad = format!("{csv}NOSUCHSERIAL;ODB-12\n{};ODB-99\n", twelve[0]);
    let (status, report) = import(&service, "?dryRun=true", &with_bad).await;
    assert_eq!(status, 200, "{report}");
    let bad = &report["data"]["bad"];
    assert_eq!(bad.as_array().map(Vec::len), Some(2), "{report}");
    assert_eq!(
        (bad[0]["line"].as_u64(), bad[1]["line"].as_u64()),
        (Some(14), Some(15))
    );
    assert_eq!(report["data"]["applied"], 0);
    let (status, refused) = import(&service, "", &with_bad).await;
    assert_eq!(
        (status, &refused["error"]["code"]),
        (400, &json!("INVALID_BODY")),
        "{refused}"
    );
    let (_, detail) = service.get(&format!("/splitters/{splitter_id}")).await;
    assert_eq!(
        detail["data"]["onus"].as_array().map(Vec::len),
        Some(0),
        "nothing placed"
    );
    let (status, report) = import(&service, "", &csv).await;
    assert_eq!(
        (status, &report["data"]["applied"]),
        (200, &json!(12)),
        "{report}"
    );
    let (_, detail) = service.get(&format!("/splitters/{splitter_id}")).await;
    let placed = detail["data"]["onus"].as_array().expect("onus").clone();
    assert_eq!(placed.len(), 12);
    for (n, onu) in placed.iter().enumerate() {
        let body = json!({"contract": format!("D-{:02}", n + 1)});
        let (status, _) = service
            .post_json(&format!("/onus/{}/subscriber", onu["id"]), &body)
            .await;
        assert_eq!(status, 200);
    }

    cut(&sim, &format!("los:{port}:{first}-{last}@3"));
    let outage = active(&service, "SPLITTER_OUTAGE").await;
    assert_eq!(outage["splitterId"], splitter_id);
    let ids: Vec<u64> = placed
        .iter()
        .map(|o| o["id"].as_u64().expect("id"))
        .collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    let all_twelve = eventually("all twelve in it", Duration::from_secs(20), || async {
        let outage = active(&service, "SPLITTER_OUTAGE").await;
        (outage["onuIds"].as_array().map(Vec::len) == Some(12)).then_some(outage)
    })
    .await;
    assert_eq!(all_twelve["onuIds"], json!(sorted));
    let contracts: Vec<String> = (1..=12).map(|n| format!("D-{n:02}")).collect();
    assert_eq!(all_twelve["contracts"], json!(contracts));
    assert_eq!(all_twelve["cause"], "fibre at splitter ODB-12");
    let (status, by_id) = service.get(&format!("/outages/{}", all_twelve["id"])).await;
    assert_eq!(
        (status, &by_id["data"]["onuIds"]),
        (200, &all_twelve["onuIds"])
    );
    let (status, _) = service.get("/outages/1").await;
    assert_eq!(status, 404);
    let events = list(&service, "/events?size=100&oltId=3").await;
    let opened: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "SPLITTER_OUTAGE")
        .collect();
    assert_eq!(opened.len(), 1, "one outage event, not twelve");
    let downs: Vec<&Value> = events.iter().filter(|e| e["type"] == "ONU_DOWN").collect();
    assert_eq!(downs.len(), 12);
    assert!(downs
        .iter()
        .all(|d| d["data"]["outageId"] == all_twelve["id"]));
    assert!(events.iter().all(|e| e["type"] != "PON_OUTAGE"));
    let alarm = acknowledged_once(&service, &all_twelve).await;
    sim.clear_faults(3);
    none_active(&service).await;
    let cleared = list(&service, "/events?type=OUTAGE_CLEARED").await;
    assert_eq!(cleared[0]["data"]["outageId"], all_twelve["id"]);
    eventually("the alarm cleared", Duration::from_secs(20), || async {
        let (_, alarm) = service.get(&format!("/alarms/{alarm}")).await;
        (!alarm["data"]["clearedAt"].is_null()).then_some(())
    })
    .await;

    cut(&sim, &format!("los:{port}:1-64@3"));
    let whole = active(&service, "PON_OUTAGE").await;
    assert_eq!(whole["ponPort"], port.as_str());
    sim.clear_faults(3);
    none_active(&service).await;

    let huawei_port = sim.expected_onus(1)[0].pon_port.clone();
    cut(&sim, &format!("dying-gasp:{huawei_port}:0-127@1"));
    let power = active(&service, "POWER_OUTAGE").await;
    assert_eq!(power["oltId"], 1);
    assert_eq!(power["cause"], format!("power on PON port {huawei_port}"));
    sim.clear_faults(1);
    none_active(&service).await;
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_placements_are_one_csv_request() {
    let sim = fleet(
        10,
        1000,
        FleetVendors::One(ponkeeper_actors::domain::Vendor::Huawei),
    )
    .await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = started(&sim, &dir).await;
    eventually("every ONU listed", Duration::from_secs(60), || async {
        let (_, page) = service.get("/onus?size=1").await;
        (page["meta"]["totalCount"] == 10_000).then_some(())
    })
    .await;
    let mut onus: Vec<Value> = Vec::new();
    for page in 0..20 {
        onus.extend(list(&service, &format!("/onus?size=500&page={page}")).await);
    }
    assert_eq!(onus.len(), 10_000);
    // A splitter per port of every OLT, each ONU under its port's.
    let mut splitters = std::collections::HashMap::new();
    let mut csv = String::from("onu,splitter\n");
    for onu in &onus {
        let key = (
            onu["oltId"].as_u64().expect("olt"),
            onu["ponPort"].as_str().expect("port").to_string(),
        );
        if !splitters.contains_key(&key) {
            let body = json!({"name": format!("ODB {}", key.1), "oltId": key.0, "ponPort": key.1});
            // 320 splitters are more than the key's 100 a second: wait when told to.
            let created = loop {
                match service.post_json("/splitters", &body).await {
                    (200, created) => break created,
                    (429, _) => tokio::time::sleep(Duration::from_secs(1)).await,
                    (status, body) => panic!("{status}: {body}"),
                }
            };
            splitters.insert(key.clone(), created["data"]["id"].as_u64().expect("id"));
        }
        csv.push_str(&format!("{},{}\n", onu["id"], splitters[&key]));
    }
    let started = std::time::Instant::now();
    let (status, report) = import(&service, "", &csv).await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(
        (
            report["data"]["lines"].as_u64(),
            report["data"]["applied"].as_u64()
        ),
        (Some(10_000), Some(10_000))
    );
    eprintln!("10,000 placements imported in {:?}", started.elapsed());
    let first = splitters.values().min().expect("a splitter");
    let (_, detail) = service.get(&format!("/splitters/{first}")).await;
    assert!(!detail["data"]["onus"].as_array().expect("onus").is_empty());
    // An empty body places nothing and says so; one line over the limit is refused whole.
    let (status, body) = import(&service, "?dryRun=true", "onu,splitter\n").await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (400, &json!("INVALID_BODY")),
        "{body}"
    );
    let over = format!("{csv}{}", "1,1\n");
    let (status, body) = import(&service, "", &over).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (400, &json!("INVALID_BODY")),
        "{body}"
    );
    service.stop().await;
}

/// `[[splitters]]` of the inventory file: made real at start (the API shows them
/// `declared`, refuses to delete one), and on a reload a changed one keeps its id and its
/// ONUs, a removed one goes with its placements, and a new one appears.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declared_splitters_follow_the_inventory_file() {
    let sim = fleet(
        1,
        64,
        FleetVendors::One(ponkeeper_actors::domain::Vendor::Huawei),
    )
    .await;
    let port = sim.expected_onus(1)[0].pon_port.clone();
    let plant = |second: &str| {
        format!(
            "\n[[splitters]]\nname = \"ODB-1\"\nolt = 1\npon_port = \"{port}\"\naddress = \"ул. Ленина, 5\"\n\n\
             [[splitters]]\nname = \"{second}\"\nolt = 1\npon_port = \"{port}\"\nparent = \"ODB-1\"\nlat = 55.79\nlon = 49.12\n"
        )
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("inventory.toml");
    let inventory = sim.inventory().to_toml();
    std::fs::write(&path, format!("{inventory}{}", plant("ODB-1.1"))).expect("inventory");
    let mut config = test_config(dir.path().to_path_buf(), path.clone());
    config.polling.timeout = Duration::from_secs(2);
    let service = TestService::start_with(config, true).await;
    all_polled(&service).await;
    let splitters = list(&service, "/splitters").await;
    assert_eq!(splitters.len(), 2, "{splitters:?}");
    assert!(splitters.iter().all(|s| s["declared"] == true));
    let first = splitters[0]["id"].clone();
    let second = &splitters[1];
    assert_eq!(
        (&second["name"], &second["parentId"], &second["lat"]),
        (&json!("ODB-1.1"), &first, &json!(55.79))
    );
    // An ONU under the first, placed through the API.
    let onu = list(&service, &format!("/onus?size=1&ponPort={port}")).await[0]["id"].clone();
    let place = json!({"splitterId": first});
    let (status, body) = service
        .post_json(&format!("/onus/{onu}/placement"), &place)
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, refused) = service
        .request(
            reqwest::Method::DELETE,
            &format!("/splitters/{first}"),
            Some(&service.full),
        )
        .await;
    assert_eq!(
        (status, &refused["error"]["code"]),
        (409, &json!("CONFLICT")),
        "{refused}"
    );
    assert!(refused["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("declared in the inventory file")));

    // The second renamed (a new one, the old removed), the first's address changed.
    let changed = plant("ODB-1.2").replace("ул. Ленина, 5", "ул. Ленина, 7");
    std::fs::write(&path, format!("{inventory}{changed}")).expect("inventory");
    let (status, body) = service.post("/inventory/reload").await;
    assert_eq!(status, 200, "{body}");
    let splitters = list(&service, "/splitters").await;
    let names: Vec<&str> = splitters
        .iter()
        .map(|s| s["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["ODB-1", "ODB-1.2"]);
    assert_eq!(splitters[0]["id"], first, "the same splitter, its id kept");
    assert_eq!(splitters[0]["address"], "ул. Ленина, 7");
    let (_, detail) = service.get(&format!("/splitters/{first}")).await;
    assert_eq!(
        detail["data"]["onus"][0]["id"], onu,
        "its ONU still under it"
    );
    assert_eq!(detail["data"]["children"], json!([splitters[1]["id"]]));

    // Gone from the file: gone, and its ONU off it.
    std::fs::write(&path, &inventory).expect("inventory");
    let (status, body) = service.post("/inventory/reload").await;
    assert_eq!(status, 200, "{body}");
    assert!(list(&service, "/splitters").await.is_empty());
    let placed = service
        .state
        .records
        .placement(onu.as_u64().expect("id"))
        .expect("read");
    assert_eq!(placed, None, "the ONU is off the removed splitter");
    service.stop().await;
}
