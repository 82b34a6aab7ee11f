//! ONU provisioning end to end (docs/provisioning.md): the real service on 127.0.0.1:0 polls a mixed
//! simulated fleet (Huawei, ZTE, BDCOM) over real SNMP and drives it over real SSH. What a
//! user checks: each OLT's unconfigured ONUs are listed with when they were first and
//! last seen, a newly plugged-in ONU shows up at the next poll and keeps its first
//! sighting, the fleet-wide list filters by OLT, node and port, and each vendor offers
//! its profiles (none on BDCOM); each vendor's ONU is authorised, bound to a subscriber
//! (found by `q` and `contract=`), rebooted and removed, taking its binding with it; a
//! binding is validated, survives a restart and can be removed.

use crate::common;

use crate::common::{all_polled, eventually, TestService};
use ponkeeper_sim::{Dynamics, FleetSpec, FleetVendors, SimFleet};
use serde_json::{json, Value};
use std::time::Duration;

async fn mixed_sim() -> SimFleet {
    SimFleet::start(FleetSpec {
        vendors: FleetVendors::Mixed,
        dynamics: Dynamics::none(),
        ..FleetSpec::new(3, 12)
    })
    .await
    .expect("simulator starts")
}

/// (port, serial, equipment id or "") of each item.
fn triples(items: &Value) -> Vec<(String, String, String)> {
    items
        .as_array()
        .expect("a list")
        .iter()
        .map(|o| {
            (
                o["ponPort"].as_str().expect("port").to_string(),
                o["serial"].as_str().expect("serial").to_string(),
                o["equipmentId"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn sorted(mut list: Vec<(String, String, String)>) -> Vec<(String, String, String)> {
    list.sort();
    list
}

/// Commands OLT `olt` was sent other than the `macs` poll group's reads of its MAC
/// table, which run on their own schedule: what an action (or a refusal) may have sent.
fn actions_sent(sim: &SimFleet, olt: u32) -> usize {
    sim.command_log(olt)
        .iter()
        .filter(|c| !c.starts_with("show mac ") && !c.starts_with("display mac-address "))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unconfigured_onus_are_discovered_on_every_poll() {
    let sim = mixed_sim().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    all_polled(&service).await;
    for olt in 1..=3u32 {
        let (status, _) = service.post(&format!("/olts/{olt}/poll")).await;
        assert_eq!(status, 200);
        let (status, body) = service.get(&format!("/olts/{olt}/unconfigured-onus")).await;
        assert_eq!(status, 200, "{body}");
        let expected = sorted(sim.expected_unconfigured(olt));
        assert!(!expected.is_empty(), "OLT {olt} starts with some");
        assert_eq!(triples(&body["data"]), expected, "OLT {olt}");
        assert_eq!(body["meta"]["totalCount"], expected.len());
        for item in body["data"].as_array().expect("list") {
            assert_eq!(item["oltId"], olt);
        }
    }

    // A new ONU is plugged in on the ZTE's second port: the next poll finds it.
    let port = sim.expected_ports(2)[1].clone();
    let serial = sim.plug_in_onu(2, &port).expect("plugged in");
    let (status, _) = service.post("/olts/2/poll").await;
    assert_eq!(status, 200);
    let find = |body: &Value| -> Value {
        body["data"]
            .as_array()
            .expect("list")
            .iter()
            .find(|o| o["serial"] == serial.as_str())
            .cloned()
            .unwrap_or(Value::Null)
    };
    let (_, body) = service
        .get(&format!("/unconfigured-onus?oltId=2&ponPort={port}"))
        .await;
    assert_eq!(body["meta"]["totalCount"], 1, "{body}");
    let first = find(&body);
    assert_eq!(first["ponPort"], port.as_str());
    assert_eq!(first["firstSeenAt"], first["lastSeenAt"]);
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let (status, _) = service.post("/olts/2/poll").await;
    assert_eq!(status, 200);
    let (_, body) = service.get("/olts/2/unconfigured-onus").await;
    let again = find(&body);
    assert_eq!(again["firstSeenAt"], first["firstSeenAt"]);
    assert_ne!(again["lastSeenAt"], first["lastSeenAt"]);
    // Its first sighting is an ONU_DISCOVERED event; the ONUs waiting since the start are
    // not (the first discovery after a start finds them, it does not see them appear).
    let discovered = eventually("ONU_DISCOVERED", Duration::from_secs(5), || async {
        let (_, events) = service.get("/events?type=ONU_DISCOVERED&size=100").await;
        (events["meta"]["totalCount"].as_u64()? >= 1).then_some(events)
    })
    .await;
    assert_eq!(discovered["meta"]["totalCount"], 1, "{discovered}");
    let event = &discovered["data"][0];
    assert_eq!(
        (event["oltId"].as_u64(), event["ponPort"].as_str()),
        (Some(2), Some(port.as_str()))
    );
    assert_eq!(event["data"]["serial"], serial.as_str());
    assert_eq!(event["severity"], "INFO");

    // The fleet-wide list: every OLT, in OLT order; filters narrow it.
    let (_, all) = service.get("/unconfigured-onus?size=100").await;
    let total: usize = (1..=3)
        .map(|olt| sim.expected_unconfigured(olt).len())
        .sum();
    assert_eq!(all["meta"]["totalCount"], total);
    let olts: Vec<u64> = all["data"]
        .as_array()
        .expect("list")
        .iter()
        .map(|o| o["oltId"].as_u64().expect("id"))
        .collect();
    let mut in_order = olts.clone();
    in_order.sort_unstable();
    assert_eq!(olts, in_order);
    let (status, body) = service.get("/unconfigured-onus?oltId=x").await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["code"], "INVALID_PARAMETER");
    let (status, body) = service.get("/olts/99/unconfigured-onus").await;
    assert_eq!(status, 404, "{body}");
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_vendor_offers_its_profiles() {
    let sim = mixed_sim().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    all_polled(&service).await;
    let profiles = |body: &Value| -> Vec<(String, String)> {
        body["data"]
            .as_array()
            .expect("list")
            .iter()
            .map(|p| {
                (
                    p["kind"].as_str().expect("kind").to_string(),
                    p["id"].as_str().expect("id").to_string(),
                )
            })
            .collect()
    };
    let (status, body) = service.get("/olts/1/onu-profiles").await;
    assert_eq!(status, 200, "{body}");
    let huawei: Vec<(&str, &str)> = vec![
        ("LINE", "10"),
        ("LINE", "20"),
        ("SERVICE", "10"),
        ("SERVICE", "20"),
    ];
    let got = profiles(&body);
    let got: Vec<(&str, &str)> = got.iter().map(|(k, i)| (k.as_str(), i.as_str())).collect();
    assert_eq!(got, huawei);
    let (_, body) = service.get("/olts/2/onu-profiles").await;
    let ids: Vec<String> = profiles(&body).into_iter().map(|(_, id)| id).collect();
    assert_eq!(ids, ["ZTE-F660", "ZTE-F601", "HG8245H"]);
    let (status, body) = service.get("/olts/3/onu-profiles").await;
    assert_eq!(status, 200);
    assert_eq!(body["meta"]["totalCount"], 0);
    assert!(sim
        .command_log(1)
        .iter()
        .any(|l| l == "display ont-srvprofile gpon all"));
    service.stop().await;
}

/// A service on `sim` whose inventory binds a СЗО to the first ONU of OLT 1.
async fn service_with_szo(sim: &SimFleet, dir: &std::path::Path) -> (TestService, String) {
    use ponkeeper_actors::inventory::{SzoSpec, SzoType};
    std::env::set_var(
        ponkeeper_sim::SSH_PASSWORD_ENV,
        ponkeeper_sim::DEFAULT_SSH_PASSWORD,
    );
    let serial = sim.expected_onus(1)[0].serial.clone();
    let mut inventory = sim.inventory();
    inventory.szo = vec![SzoSpec {
        id: 501,
        name: "School 7".into(),
        kind: SzoType::School,
        city: "Kazan".into(),
        address: "Lenina 5".into(),
        onu_serial: serial.clone().into(),
        bandwidth_mbps: 100,
        connected_at: chrono::NaiveDate::from_ymd_opt(2021, 6, 1).expect("date"),
        sla_percent: 99.5,
    }];
    let path = dir.join("inventory.toml");
    std::fs::write(&path, inventory.to_toml()).expect("inventory");
    let config = common::test_config(dir.to_path_buf(), path);
    (TestService::start_with(config, true).await, serial.into())
}

/// The body that authorises `serial` on `port` of OLT `olt` (of `vendor`'s kind).
fn authorization(olt: u32, port: &str, serial: &str, index: u32) -> Value {
    let mut body = serde_json::json!({
        "ponPort": port, "serial": serial, "onuIndex": index, "vlan": 100,
        "description": "flat 12",
    });
    match olt {
        1 => {
            body["lineProfile"] = "10".into();
            body["serviceProfile"] = "20".into();
        }
        2 => body["onuType"] = "ZTE-F660".into(),
        _ => {}
    }
    body
}

/// Polls OLT `olt` and checks its `session.warnings` are empty. After an ONU's removal
/// the poll reads the status alone (IF-MIB is not due for 15 minutes), yet must name no
/// BDCOM ONU interface as unanswered: the row that left the ONU table has IF-MIB read
/// again, where the removed ONU's interface is gone too.
async fn polls_without_warnings(service: &TestService, olt: u32) {
    let (status, _) = service.post(&format!("/olts/{olt}/poll")).await;
    assert_eq!(status, 200);
    let (_, detail) = service.get(&format!("/olts/{olt}")).await;
    let warnings = &detail["data"]["session"]["warnings"];
    assert_eq!(warnings, &json!([]), "OLT {olt}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_vendor_authorises_reboots_and_removes_an_onu() {
    let sim = mixed_sim().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (service, szo_serial) = service_with_szo(&sim, dir.path()).await;
    all_polled(&service).await;
    for olt in 1..=3u32 {
        service.post(&format!("/olts/{olt}/poll")).await;
        let (port, serial, _) = sim.expected_unconfigured(olt)[0].clone();
        let (_, listed) = service.get(&format!("/olts/{olt}/unconfigured-onus")).await;
        assert!(triples(&listed["data"])
            .iter()
            .any(|(_, s, _)| *s == serial));
        let taken = sim
            .expected_onus(olt)
            .into_iter()
            .find(|o| o.pon_port == port)
            .expect("an ONU on the port")
            .onu_index;

        // Refusals first: nothing reaches the device.
        let sent = actions_sent(&sim, olt);
        let (status, body) = service
            .post_json(
                &format!("/olts/{olt}/onus/authorize"),
                &authorization(olt, &port, &serial, taken),
            )
            .await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (409, Some("CONFLICT")),
            "{body}"
        );
        let mut bad = authorization(olt, &port, &serial, 60);
        bad["serial"] = "HWTC1234;reboot".into();
        let (status, body) = service
            .post_json(&format!("/olts/{olt}/onus/authorize"), &bad)
            .await;
        assert_eq!(status, 400, "{body}");
        assert!(body["error"]["message"]
            .as_str()
            .expect("text")
            .contains("`serial`"));
        assert_eq!(actions_sent(&sim, olt), sent, "nothing sent to OLT {olt}");
        if olt != 3 {
            let mut unknown = authorization(olt, &port, &serial, 60);
            let field = if olt == 1 { "lineProfile" } else { "onuType" };
            unknown[field] = "99".into();
            let (status, body) = service
                .post_json(&format!("/olts/{olt}/onus/authorize"), &unknown)
                .await;
            assert_eq!(status, 400, "{body}");
            assert!(body["error"]["message"]
                .as_str()
                .expect("text")
                .contains(field));
        }

        // Authorised: polled ONLINE with its stable id, VLAN and description.
        let (status, body) = service
            .post_json(
                &format!("/olts/{olt}/onus/authorize"),
                &authorization(olt, &port, &serial, 60),
            )
            .await;
        assert_eq!(status, 200, "OLT {olt}: {body}");
        let onu = &body["data"];
        assert_eq!(onu["serial"], serial.as_str());
        assert_eq!(
            (onu["ponPort"].as_str(), onu["onuIndex"].as_u64()),
            (Some(port.as_str()), Some(60))
        );
        assert_eq!(onu["status"], "ONLINE", "{onu}");
        assert_eq!(onu["description"], "flat 12");
        let id = onu["id"].as_u64().expect("id");
        let (_, again) = service.get(&format!("/onus/{id}")).await;
        assert_eq!(again["data"]["serial"], serial.as_str());
        let (_, listed) = service.get(&format!("/olts/{olt}/unconfigured-onus")).await;
        assert!(triples(&listed["data"])
            .iter()
            .all(|(_, s, _)| *s != serial));

        // Bound to a subscriber with a Cyrillic name: shown and found by `q`, `contract=`.
        let contract = format!("Д-2024/{olt}17");
        let bound = json!({"contract": contract, "name": format!("Иванов Олег {olt}"),
            "address": "ул. Ленина, д. 1, кв. 5"});
        let (status, body) = service
            .post_json(&format!("/onus/{id}/subscriber"), &bound)
            .await;
        assert_eq!(status, 200, "{body}");
        let mut shown = bound.clone();
        shown["note"] = Value::Null;
        assert_eq!(body["data"]["subscriber"], shown);
        let (_, found) = service.get(&format!("/onus?q=ОЛЕГ {olt}")).await;
        assert_eq!(ids(&found), vec![id], "{found}");
        assert_eq!(found["data"][0]["subscriber"], shown);
        let (_, found) = service.get(&format!("/onus?contract={contract}")).await;
        assert_eq!(ids(&found), vec![id], "{found}");

        // Rebooted, then removed: unconfigured again, out of the lists.
        let (status, body) = service.post(&format!("/onus/{id}/reboot")).await;
        assert_eq!(status, 200, "{body}");
        let (status, body) = service.post(&format!("/onus/{id}/deauthorize")).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["data"]["deauthorized"], true);
        let (_, listed) = service.get(&format!("/olts/{olt}/unconfigured-onus")).await;
        assert!(
            triples(&listed["data"])
                .iter()
                .any(|(p, s, _)| *s == serial && *p == port),
            "{listed}"
        );
        let (_, onus) = service.get(&format!("/onus?q={serial}")).await;
        assert_eq!(onus["meta"]["totalCount"], 0, "{onus}");
        polls_without_warnings(&service, olt).await;
        // The binding went with it: the ONU authorised again starts without one.
        let (status, body) = service
            .post_json(
                &format!("/olts/{olt}/onus/authorize"),
                &authorization(olt, &port, &serial, 61),
            )
            .await;
        assert_eq!(status, 200, "OLT {olt}: {body}");
        // The same ONU keeps its stable id, but not its old binding.
        assert_eq!(body["data"]["id"].as_u64(), Some(id));
        assert_eq!(body["data"]["subscriber"], Value::Null, "{body}");
        let (_, found) = service.get(&format!("/onus?contract={contract}")).await;
        assert_eq!(found["meta"]["totalCount"], 0, "{found}");
        let (_, found) = service.get(&format!("/onus?q=олег {olt}")).await;
        assert_eq!(found["meta"]["totalCount"], 0, "{found}");
    }

    // An ONU serving a СЗО is not removed.
    let (_, found) = service.get(&format!("/onus?q={szo_serial}")).await;
    let id = found["data"][0]["id"].as_u64().expect("the СЗО's ONU");
    let (status, body) = service.post(&format!("/onus/{id}/deauthorize")).await;
    assert_eq!(status, 409, "{body}");
    assert!(body["error"]["message"]
        .as_str()
        .expect("text")
        .contains("School 7"));
    let (status, _) = service
        .request(
            reqwest::Method::POST,
            &format!("/onus/{id}/deauthorize"),
            Some(&service.read_only.clone()),
        )
        .await;
    assert_eq!(status, 403);
    // Every authorisation and removal, refused or not, is in the audit log.
    let (_, audit) = service
        .get("/audit-logs?action=onu.authorize&result=SUCCESS&size=50")
        .await;
    assert_eq!(audit["meta"]["totalCount"], 6, "{audit}");
    let (_, audit) = service
        .get("/audit-logs?action=onu.bind_subscriber&result=SUCCESS&size=50")
        .await;
    assert_eq!(audit["meta"]["totalCount"], 3, "{audit}");
    let (_, audit) = service
        .get("/audit-logs?action=onu.deauthorize&result=FAILURE&size=50")
        .await;
    assert_eq!(audit["meta"]["totalCount"], 2, "409 and 403: {audit}");
    // And each that the device took is an event, with the ONU's id.
    for (kind, count) in [("ONU_AUTHORIZED", 6), ("ONU_DEAUTHORIZED", 3)] {
        let events = eventually(kind, Duration::from_secs(5), || async {
            let (_, events) = service.get(&format!("/events?type={kind}&size=10")).await;
            (events["meta"]["totalCount"].as_u64()? >= count).then_some(events)
        })
        .await;
        assert_eq!(events["meta"]["totalCount"], count, "{events}");
        assert!(events["data"]
            .as_array()
            .expect("events")
            .iter()
            .all(|e| e["onuId"].is_u64() && e["data"]["serial"].is_string()));
    }
    service.stop().await;
}

/// The ids of a page of ONUs.
fn ids(page: &Value) -> Vec<u64> {
    page["data"]
        .as_array()
        .expect("a page")
        .iter()
        .map(|o| o["id"].as_u64().expect("id"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscriber_binding_is_validated_kept_and_removed() {
    let sim = mixed_sim().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    all_polled(&service).await;
    let (_, first) = service.get("/onus?oltId=2&size=1").await;
    let id = ids(&first)[0];
    let path = format!("/onus/{id}/subscriber");
    let sent = actions_sent(&sim, 2);

    // Each bad field is named; nothing is stored.
    for (body, field) in [
        (json!({"name": "я".repeat(257)}), "`name`"),
        (json!({"address": "ул.\u{7}Ленина"}), "`address`"),
        (json!({"contract": "Д-1\n"}), "`contract`"),
    ] {
        let (status, answer) = service.post_json(&path, &body).await;
        assert_eq!(
            (status, answer["error"]["code"].as_str()),
            (400, Some("INVALID_PARAMETER")),
            "{answer}"
        );
        let message = answer["error"]["message"].as_str().expect("text");
        assert!(message.contains(field), "{message}");
    }
    let (status, _) = service.post_json(&path, &json!({"phone": "1"})).await;
    assert_eq!(status, 400);
    let (status, _) = service
        .post_json("/onus/999999/subscriber", &json!({"name": "Пётр"}))
        .await;
    assert_eq!(status, 404);
    let (status, _) = service
        .request(
            reqwest::Method::POST,
            &path,
            Some(&service.read_only.clone()),
        )
        .await;
    assert_eq!(status, 403);
    let (_, onu) = service.get(&format!("/onus/{id}")).await;
    assert_eq!(onu["data"]["subscriber"], Value::Null);

    // 256 Cyrillic characters are fine, stored and kept over a restart; never sent.
    let note = "ж".repeat(256);
    let bound =
        json!({"contract": "ЛС 000417", "name": "Сидорова Анна", "address": null, "note": note});
    let (status, body) = service.post_json(&path, &bound).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["subscriber"], bound);
    assert_eq!(actions_sent(&sim, 2), sent, "nothing sent to the OLT");
    service.stop().await;
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    all_polled(&service).await;
    let (_, onu) = service.get(&format!("/onus/{id}")).await;
    assert_eq!(onu["data"]["subscriber"], bound, "{onu}");
    let (_, found) = service.get("/onus?contract=лс 000417").await;
    assert_eq!(ids(&found), vec![id]);
    let (_, found) = service.get("/onus?q=сидоров&oltId=2").await;
    assert_eq!(ids(&found), vec![id]);

    // Every list, search and the ONU itself answer from the fleet view, which read the
    // stored bindings once at start: wiped from the store behind the service's back, the
    // binding is still shown and found, so no answer reads the store.
    let stored = service.state.store.open_tree("subscribers").expect("tree");
    let saved: Vec<_> = stored.iter().map(|entry| entry.expect("entry")).collect();
    assert_eq!(saved.len(), 1);
    stored.clear().expect("cleared");
    for query in [
        "/onus?contract=лс 000417",
        "/onus?q=сидоров",
        "/onus?q=ан&oltId=2",
    ] {
        let (_, found) = service.get(query).await;
        assert_eq!(ids(&found), vec![id], "{query}: {found}");
        assert_eq!(found["data"][0]["subscriber"], bound, "{query}");
    }
    let (_, onu) = service.get(&format!("/onus/{id}")).await;
    assert_eq!(onu["data"]["subscriber"], bound, "{onu}");
    let (_, of_olt) = service.get("/olts/2/onus?size=500").await;
    let row = of_olt["data"]
        .as_array()
        .expect("a page")
        .iter()
        .find(|o| o["id"].as_u64() == Some(id))
        .expect("the ONU in its OLT's list");
    assert_eq!(row["subscriber"], bound);
    for (key, value) in saved {
        stored.insert(key, value).expect("restored");
    }

    // An empty binding removes it.
    let (status, body) = service
        .post_json(&path, &json!({"name": "", "contract": null}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["subscriber"], Value::Null);
    let (_, found) = service.get("/onus?contract=ЛС 000417").await;
    assert_eq!(found["meta"]["totalCount"], 0, "{found}");
    let (_, audit) = service
        .get("/audit-logs?action=onu.bind_subscriber&result=SUCCESS&size=50")
        .await;
    assert_eq!(
        audit["meta"]["totalCount"], 2,
        "one binding per service: {audit}"
    );
    service.stop().await;
}
