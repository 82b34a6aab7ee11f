//! Flapping ONUs through the real service polling the simulator: an ONU taken offline
//! and back twice within the window is `ONU_FLAPPING` (event and alarm), listed by
//! `GET /onus?flapping=true` and its own `flappingSince`, its downs are in
//! `GET /onus/{id}/downs` with their cause, and a quiet window clears it all. After a
//! restart of the service the flap is neither lost nor raised again.

use crate::common::{all_polled, eventually, steady_sim, TestService};
use ponkeeper_actors::domain::OnuStatus;
use serde_json::Value;
use std::time::Duration;

async fn flap_events(service: &TestService) -> Vec<Value> {
    let (status, body) = service
        .get("/events?size=100&type=ONU_FLAPPING&type=ONU_FLAPPING_CLEARED")
        .await;
    assert_eq!(status, 200, "{body}");
    body["data"].as_array().expect("a list").clone()
}

async fn ids_listed(service: &TestService, flapping: bool) -> Vec<u64> {
    let (status, body) = service
        .get(&format!("/onus?flapping={flapping}&size=100"))
        .await;
    assert_eq!(status, 200, "{body}");
    let rows = body["data"].as_array().expect("rows");
    rows.iter().filter_map(|r| r["id"].as_u64()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_onu_that_keeps_dropping_is_flapping_until_it_stays_quiet() {
    let sim = steady_sim(1, 8).await;
    let onu = sim
        .expected_onus(1)
        .into_iter()
        .find(|o| o.status == OnuStatus::Online)
        .expect("an online ONU");
    let serial = onu.serial.to_string();
    let dir = tempfile::tempdir().expect("tempdir");
    let tune = |config: &mut ponkeeper::config::Config| {
        config.onu.flap_count = 4;
        config.onu.flap_window = Duration::from_secs(60);
    };
    let service = TestService::start_tuned(&sim, dir.path().join("data"), tune).await;
    all_polled(&service).await;
    let (_, page) = service.get(&format!("/onus?serial={serial}")).await;
    let id = page["data"][0]["id"].as_u64().expect("the ONU's id");
    for online in [false, true, false, true] {
        assert!(sim.set_onu_online(1, &serial, online));
        let want = if online { "ONLINE" } else { "OFFLINE" };
        eventually("the state change", Duration::from_secs(10), || async {
            let (_, onu) = service.get(&format!("/onus/{id}")).await;
            (onu["data"]["status"] == want).then_some(())
        })
        .await;
    }
    let flaps = eventually("ONU_FLAPPING", Duration::from_secs(20), || async {
        let flaps = flap_events(&service).await;
        (!flaps.is_empty()).then_some(flaps)
    })
    .await;
    assert_eq!(flaps.len(), 1, "{flaps:?}");
    assert_eq!(flaps[0]["type"], "ONU_FLAPPING");
    assert_eq!(flaps[0]["onuId"], id);
    assert_eq!(flaps[0]["data"]["changes"], 4);
    assert_eq!(ids_listed(&service, true).await, [id]);
    assert!(!ids_listed(&service, false).await.contains(&id));
    let (_, detail) = service.get(&format!("/onus/{id}")).await;
    assert!(detail["data"]["flappingSince"].is_string(), "{detail}");
    let (status, alarms) = service.get("/alarms?type=ONU_FLAPPING&active=true").await;
    assert_eq!(status, 200, "{alarms}");
    assert_eq!(alarms["data"][0]["onuId"], id, "{alarms}");
    let (status, downs) = service.get(&format!("/onus/{id}/downs")).await;
    assert_eq!(status, 200, "{downs}");
    let spans = downs["data"]["downs"].as_array().expect("downs");
    assert_eq!(spans.len(), 2, "{downs}");
    assert!(spans.iter().all(|d| d["backUpAt"].is_string()), "{downs}");
    assert!(downs["data"]["flappingSince"].is_string(), "{downs}");

    // A restart keeps the flap and raises nothing again.
    service.stop().await;
    let service = TestService::start_tuned(&sim, dir.path().join("data"), tune).await;
    all_polled(&service).await;
    assert_eq!(ids_listed(&service, true).await, [id]);
    assert_eq!(flap_events(&service).await.len(), 1);

    // Quiet for the window (60 s): cleared, event and alarm.
    let cleared = eventually("ONU_FLAPPING_CLEARED", Duration::from_secs(120), || async {
        let flaps = flap_events(&service).await;
        (flaps.len() == 2).then_some(flaps)
    })
    .await;
    assert_eq!(cleared[0]["type"], "ONU_FLAPPING_CLEARED", "newest first");
    assert!(ids_listed(&service, true).await.is_empty());
    eventually("the alarm cleared", Duration::from_secs(10), || async {
        let (_, alarms) = service.get("/alarms?type=ONU_FLAPPING&active=true").await;
        (alarms["data"] == serde_json::json!([])).then_some(())
    })
    .await;
    service.stop().await;
    sim.shutdown().await;
}
