//! Events through the real service polling the simulator over real UDP SNMP: a
//! port-wide LOS is one `PON_OUTAGE` whose `ONU_DOWN`s carry its id, a single down is a
//! single `ONU_DOWN` followed by its СЗО's `SZO_DOWN`, a comeback is `ONU_UP` and
//! `SZO_UP`, ids are gapless, and `GET /events` filters and refuses as docs/events.md says.

use crate::common::{all_polled, eventually, steady_sim, test_config, TestService};
use ponkeeper_actors::domain::OnuStatus;
use ponkeeper_actors::inventory::{SzoSpec, SzoType};
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Duration;

fn object(id: u32, serial: &str) -> SzoSpec {
    SzoSpec {
        id,
        name: format!("School {id}"),
        kind: SzoType::School,
        city: "Kazan".into(),
        address: "Lenina 5".into(),
        onu_serial: serial.into(),
        bandwidth_mbps: 100,
        connected_at: chrono::NaiveDate::from_ymd_opt(2021, 6, 1).expect("date"),
        sla_percent: 99.5,
    }
}

async fn events(service: &TestService, query: &str) -> Vec<Value> {
    let (status, body) = service.get(&format!("/events?size=500&{query}")).await;
    assert_eq!(status, 200, "{body}");
    body["data"].as_array().expect("a list").clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_port_wide_los_is_one_outage_and_a_single_down_reaches_its_szo() {
    let sim = steady_sim(1, 48).await;
    let mut by_port: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for onu in sim.expected_onus(1) {
        if onu.status == OnuStatus::Online {
            by_port
                .entry(onu.pon_port.into())
                .or_default()
                .push(onu.serial.into());
        }
    }
    let (cut_port, cut) = by_port
        .iter()
        .find(|(_, serials)| serials.len() >= 5)
        .map(|(p, s)| (p.clone(), s[..5].to_vec()))
        .expect("a port with five online ONUs");
    let (single_port, single) = by_port
        .iter()
        .find(|(port, _)| **port != cut_port)
        .map(|(p, s)| (p.clone(), s[0].clone()))
        .expect("another port");
    let on_cut_port = sim
        .expected_onus(1)
        .iter()
        .filter(|o| o.pon_port == cut_port)
        .count();

    let dir = tempfile::tempdir().expect("tempdir");
    let mut inventory = sim.inventory();
    inventory.szo = vec![object(301, &single)];
    let path = dir.path().join("inventory.toml");
    std::fs::write(&path, inventory.to_toml()).expect("inventory");
    let config = test_config(dir.path().to_path_buf(), path);
    let service = TestService::start_with(config, true).await;
    all_polled(&service).await;
    let watched = "type=PON_OUTAGE&type=ONU_DOWN&type=ONU_UP&type=SZO_DOWN&type=SZO_UP";
    assert_eq!(events(&service, watched).await, Vec::<Value>::new());

    for serial in &cut {
        assert!(sim.set_onu_online(1, serial, false));
    }
    let outage = eventually("a PON_OUTAGE", Duration::from_secs(10), || async {
        events(&service, "type=PON_OUTAGE").await.first().cloned()
    })
    .await;
    assert_eq!(outage["severity"], "CRITICAL");
    assert_eq!(outage["oltId"], 1);
    assert_eq!(outage["ponPort"], cut_port.as_str());
    assert_eq!(outage["data"]["onusDown"], 5);
    assert_eq!(outage["data"]["onusOnPort"], on_cut_port);
    assert_eq!(
        outage["data"]["cause"],
        format!("feeder fibre of PON port {cut_port}")
    );
    let event_id = outage["id"].as_u64().expect("id");
    // The outage itself, in the outage book, with the ONUs its event counts.
    let outage_id = outage["data"]["outageId"].as_u64().expect("outageId");
    let (status, book) = service.get("/outages?active=true").await;
    assert_eq!(status, 200, "{book}");
    assert_eq!(book["data"][0]["id"], outage_id);
    assert_eq!(book["data"][0]["type"], "PON_OUTAGE");
    assert_eq!(book["data"][0]["onuIds"].as_array().map(Vec::len), Some(5));
    let downs = eventually("five ONU_DOWNs", Duration::from_secs(5), || async {
        let downs = events(&service, "type=ONU_DOWN&oltId=1").await;
        (downs.len() == 5).then_some(downs)
    })
    .await;
    // Newest first; the downs follow their outage with the next ids.
    let ids: Vec<u64> = downs
        .iter()
        .map(|e| e["id"].as_u64().expect("id"))
        .collect();
    assert_eq!(ids, (event_id + 1..=event_id + 5).rev().collect::<Vec<_>>());
    for down in &downs {
        assert_eq!(
            down["data"],
            serde_json::json!({"cause": "LOS", "outageId": outage_id})
        );
        assert_eq!(down["severity"], "WARNING");
        assert_eq!(down["ponPort"], cut_port.as_str());
    }

    assert!(sim.set_onu_online(1, &single, false));
    let szo_down = eventually("SZO_DOWN", Duration::from_secs(10), || async {
        events(&service, "type=SZO_DOWN").await.first().cloned()
    })
    .await;
    assert_eq!(szo_down["szoId"], 301);
    let down_id = szo_down["id"].as_u64().expect("id") - 1;
    let (_, single_down) = service.get("/events?type=ONU_DOWN&size=1").await;
    let single_down = &single_down["data"][0];
    assert_eq!(single_down["id"], down_id);
    assert_eq!(single_down["data"], serde_json::json!({"cause": "LOS"}));
    // The ONU's own event names the СЗО it serves as well.
    assert_eq!(single_down["szoId"], 301);
    assert_eq!(single_down["ponPort"], single_port.as_str());
    assert_eq!(szo_down["onuId"], single_down["onuId"]);

    assert!(sim.set_onu_online(1, &single, true));
    let back = eventually("ONU_UP and SZO_UP", Duration::from_secs(10), || async {
        let back = events(&service, "type=ONU_UP&type=SZO_UP").await;
        (back.len() == 2).then_some(back)
    })
    .await;
    assert_eq!(back[0]["type"], "SZO_UP");
    assert_eq!(back[1]["type"], "ONU_UP");
    assert_eq!(back[1]["onuId"], single_down["onuId"]);

    // Gapless: every id from 1 to the newest is there once, whatever the type.
    let all = events(&service, "").await;
    let newest = all[0]["id"].as_u64().expect("id");
    let mut seen: Vec<u64> = all.iter().map(|e| e["id"].as_u64().expect("id")).collect();
    seen.reverse();
    assert_eq!(seen, (1..=newest).collect::<Vec<_>>());

    // Paging (newest first: the single down, then outage + 5, + 4, …) and the filters.
    let (_, page) = service.get("/events?type=ONU_DOWN&page=1&size=2").await;
    assert_eq!(page["meta"]["totalCount"], 6);
    assert_eq!(page["data"][0]["id"], event_id + 4);
    assert_eq!(
        events(&service, "type=ONU_DOWN&severity=CRITICAL")
            .await
            .len(),
        0
    );
    assert_eq!(events(&service, "severity=CRITICAL&oltId=1").await.len(), 2);
    assert_eq!(events(&service, "oltId=2").await.len(), 0);
    let onu_id = single_down["onuId"].as_u64().expect("onu id");
    let of_onu: Vec<Value> = events(&service, &format!("onuId={onu_id}"))
        .await
        .iter()
        .map(|e| e["type"].clone())
        .collect();
    assert_eq!(of_onu, ["SZO_UP", "ONU_UP", "SZO_DOWN", "ONU_DOWN"]);
    for bad in [
        "type=ONU_GONE",
        "type=",
        "severity=LOUD",
        "oltId=x",
        "from=yesterday",
    ] {
        let (status, body) = service.get(&format!("/events?{bad}")).await;
        assert_eq!(status, 400, "{bad}: {body}");
        assert_eq!(body["error"]["code"], "INVALID_PARAMETER", "{bad}");
    }
    service.stop().await;
    sim.shutdown().await;
}
