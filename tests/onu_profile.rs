//! `POST /onus/{id}/profile` end to end (docs/api.md): on a mixed simulated fleet, a
//! Huawei ONU gets another line profile and then another service profile over real SSH
//! (the simulated OLT records each), an id the OLT's listing lacks is refused before
//! anything is sent, a body naming no profile is refused, and a ZTE ONU answers 501
//! (no public source gives ZTE's command) — each refusal in the envelope.

use crate::common::{all_polled, TestService};
use ponkeeper_sim::{Dynamics, FleetSpec, FleetVendors, SimFleet};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huawei_onu_gets_another_profile_and_other_vendors_say_501() {
    let sim = SimFleet::start(FleetSpec {
        vendors: FleetVendors::Mixed,
        dynamics: Dynamics::none(),
        ..FleetSpec::new(2, 4)
    })
    .await
    .expect("simulator starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    all_polled(&service).await;
    // OLT 1 is a Huawei, OLT 2 a ZTE (the mixed fleet's order).
    let (_, page) = service.get("/onus?oltId=1&size=1").await;
    let (id, serial) = (
        page["data"][0]["id"].as_u64().expect("id"),
        page["data"][0]["serial"]
            .as_str()
            .expect("serial")
            .to_string(),
    );
    let path = format!("/onus/{id}/profile");
    let (status, body) = service
        .post_json(&path, &json!({"lineProfile": "20"}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["id"], id);
    assert_eq!(
        sim.onu_profiles(1, &serial),
        Some([Some("20".to_string()), None])
    );
    let (status, body) = service
        .post_json(&path, &json!({"serviceProfile": "10"}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        sim.onu_profiles(1, &serial),
        Some([Some("20".to_string()), Some("10".to_string())])
    );
    // Refused before the device: an id not in the listing, a bad form, nothing named.
    for (body, field) in [
        (json!({"lineProfile": "99"}), "lineProfile"),
        (json!({"serviceProfile": "1 0"}), "serviceProfile"),
        (json!({}), "lineProfile"),
    ] {
        let (status, answer) = service.post_json(&path, &body).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert_eq!(answer["error"]["code"], "INVALID_PARAMETER", "{answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(field), "{message}");
    }
    assert_eq!(
        sim.onu_profiles(1, &serial),
        Some([Some("20".to_string()), Some("10".to_string())]),
        "nothing refused reached the device"
    );
    let (_, page) = service.get("/onus?oltId=2&size=1").await;
    let zte = page["data"][0]["id"].as_u64().expect("a ZTE ONU");
    let (status, answer) = service
        .post_json(
            &format!("/onus/{zte}/profile"),
            &json!({"lineProfile": "10"}),
        )
        .await;
    assert_eq!(status, 501, "{answer}");
    assert_eq!(answer["error"]["code"], "NOT_SUPPORTED", "{answer}");
    let (_, audit) = service.get("/audit-logs?size=50").await;
    let actions: Vec<&str> = audit["data"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|e| e["action"].as_str())
        .collect();
    assert!(actions.contains(&"onu.set_profile"), "{actions:?}");
    service.stop().await;
    sim.shutdown().await;
}
