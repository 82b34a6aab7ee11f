//! The MACs behind ONUs through the real service, read from the simulator the way each
//! vendor shows them: BDCOM's bridge forwarding table over real UDP SNMP, Huawei's and
//! ZTE's MAC tables over the CLI on real SSH. Every ONU lists exactly the simulator's
//! MACs; `/macs?mac=` finds one in every spelling a log uses and several by a prefix,
//! and refuses what is no MAC; a MAC carried to another ONU is a `MAC_MOVED` and shows
//! behind both, the newer first; a refresh is a FULL action.

use crate::common::{all_polled, eventually, TestService};
use ponkeeper_sim::{Dynamics, FleetSpec, FleetVendors, SimFleet};
use serde_json::{json, Value};
use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

/// OLT 1 Huawei, 2 ZTE, 3 BDCOM: a few ONUs each, no random changes.
async fn fleet() -> SimFleet {
    SimFleet::start(FleetSpec {
        dynamics: Dynamics::none(),
        vendors: FleetVendors::Mixed,
        ..FleetSpec::new(3, 24)
    })
    .await
    .expect("simulator starts")
}

async fn started(sim: &SimFleet, dir: &tempfile::TempDir) -> TestService {
    let service = TestService::start_tuned(sim, dir.path().to_path_buf(), |config| {
        config.polling.macs_interval = Duration::from_secs(1);
        config.polling.timeout = Duration::from_secs(2);
    })
    .await;
    all_polled(&service).await;
    service
}

/// ONU id by serial, over the whole fleet.
async fn ids(service: &TestService) -> HashMap<String, u64> {
    let (_, page) = service.get("/onus?size=500").await;
    page["data"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|o| {
            let serial = o["serial"].as_str().expect("serial").to_string();
            (serial, o["id"].as_u64().expect("id"))
        })
        .collect()
}

/// The active MACs the API lists behind ONU `id`, as `(mac, vlan)`.
async fn active_macs(service: &TestService, id: u64) -> BTreeSet<(String, u64)> {
    let (status, body) = service.get(&format!("/onus/{id}/macs")).await;
    assert_eq!(status, 200, "{body}");
    body["data"]["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|m| m["active"] == true)
        .inspect(|m| assert_eq!(m["onuId"], id, "{m}"))
        .map(|m| {
            let mac = m["mac"].as_str().expect("mac").to_string();
            (mac, m["vlan"].as_u64().expect("vlan"))
        })
        .collect()
}

/// What the simulator shows behind each ONU of `olt`, by ONU id.
fn expected(
    sim: &SimFleet,
    olt: u32,
    ids: &HashMap<String, u64>,
) -> HashMap<u64, BTreeSet<(String, u64)>> {
    let mut by_onu: HashMap<u64, BTreeSet<(String, u64)>> = HashMap::new();
    for (serial, mac, vlan) in sim.macs(olt) {
        let id = ids[&serial];
        by_onu
            .entry(id)
            .or_default()
            .insert((mac.to_string(), u64::from(vlan)));
    }
    by_onu
}

async fn find(service: &TestService, mac: &str) -> (u16, Value) {
    service
        .get(&format!("/macs?mac={}", mac.replace('+', "%2B")))
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_layout_lists_the_simulators_macs_and_any_spelling_finds_one() {
    let sim = fleet().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = started(&sim, &dir).await;
    let ids = ids(&service).await;
    for olt in [1, 2, 3] {
        let wanted = expected(&sim, olt, &ids);
        assert!(
            wanted.len() >= 10,
            "OLT {olt}: {} ONUs with MACs",
            wanted.len()
        );
        for (onu, macs) in &wanted {
            let what = format!("OLT {olt} ONU {onu}'s MACs");
            eventually(&what, Duration::from_secs(30), || async {
                (active_macs(&service, *onu).await == *macs).then_some(())
            })
            .await;
        }
    }
    // One MAC of the BDCOM OLT, in each spelling a log uses.
    let (serial, mac, vlan) = sim.macs(3)[0].clone();
    let hex = mac.to_string().replace(':', "");
    let spellings = [
        mac.to_string(),
        mac.to_string().to_uppercase().replace(':', "-"),
        format!("{}.{}.{}", &hex[..4], &hex[4..8], &hex[8..]),
        hex.to_uppercase(),
    ];
    for spelling in &spellings {
        let (status, body) = find(&service, spelling).await;
        assert_eq!(status, 200, "{spelling}: {body}");
        let items = body["data"].as_array().expect("a list");
        assert_eq!(items.len(), 1, "{spelling}: {body}");
        assert_eq!(items[0]["onuId"], ids[&serial]);
        assert_eq!(items[0]["serial"], serial.as_str());
        assert_eq!(
            (&items[0]["oltId"], &items[0]["vlan"]),
            (&json!(3), &json!(vlan))
        );
        assert_eq!(
            (&items[0]["active"], &items[0]["duplicate"]),
            (&json!(true), &json!(false))
        );
    }
    // The simulator's MACs all start 02: six digits find those of that prefix.
    let prefix = &hex[..6];
    let (status, body) = find(&service, prefix).await;
    assert_eq!(status, 200, "{body}");
    let found = body["data"].as_array().expect("a list");
    let of_prefix = [1, 2, 3]
        .iter()
        .flat_map(|olt| sim.macs(*olt))
        .filter(|(_, m, _)| m.to_string().replace(':', "").starts_with(prefix))
        .count();
    assert_eq!(found.len(), of_prefix, "{body}");
    for bad in ["zz:zz:zz:zz:zz:zz", "0201", "02:00:00:00:00:00:00", ""] {
        let (status, body) = find(&service, bad).await;
        assert_eq!(
            (status, &body["error"]["code"]),
            (400, &json!("INVALID_PARAMETER")),
            "{bad:?}: {body}"
        );
    }
    let (status, body) = service.get("/macs").await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["message"], "parameter `mac` is required");
    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_carried_mac_is_mac_moved_behind_both_onus_and_a_refresh_is_full() {
    let sim = fleet().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = started(&sim, &dir).await;
    let ids = ids(&service).await;
    for olt in [3, 1] {
        let macs = sim.macs(olt);
        let (from_serial, mac, _) = macs[0].clone();
        let to_serial = macs
            .iter()
            .map(|(s, _, _)| s)
            .find(|s| **s != from_serial)
            .expect("another ONU with MACs")
            .clone();
        let (from, to) = (ids[&from_serial], ids[&to_serial]);
        eventually("the MAC seen first", Duration::from_secs(30), || async {
            let (_, body) = find(&service, &mac.to_string()).await;
            (body["data"][0]["onuId"] == from).then_some(())
        })
        .await;
        assert!(sim.move_mac(olt, mac, &to_serial));
        let event = eventually("MAC_MOVED", Duration::from_secs(30), || async {
            let (_, body) = service.get("/events?type=MAC_MOVED&size=50").await;
            body["data"]
                .as_array()?
                .iter()
                .find(|e| e["data"]["mac"] == mac.to_string().as_str())
                .cloned()
        })
        .await;
        assert_eq!(
            (&event["data"]["fromOnuId"], &event["data"]["toOnuId"]),
            (&json!(from), &json!(to)),
            "{event}"
        );
        assert_eq!(event["onuId"], to);
        let (_, body) = find(&service, &mac.to_string()).await;
        let items = body["data"].as_array().expect("a list");
        let onus: Vec<&Value> = items.iter().map(|i| &i["onuId"]).collect();
        assert_eq!(onus, [&json!(to), &json!(from)], "newest first: {body}");
        assert_eq!(items[0]["active"], true);
    }
    // A refresh reads the ONU now: FULL only.
    let onu = ids[&sim.macs(1)[0].0];
    let path = format!("/onus/{onu}/macs/refresh");
    let (status, body) = service
        .request(reqwest::Method::POST, &path, Some(&service.read_only))
        .await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (403, &json!("FORBIDDEN")),
        "{body}"
    );
    let (status, body) = service.post(&path).await;
    assert_eq!(status, 200, "{body}");
    assert!(
        !body["data"]["items"].as_array().expect("items").is_empty(),
        "{body}"
    );
    service.stop().await;
    sim.shutdown().await;
}
