//! `vendor = "auto"` through the real service (docs/devices.md): OLTs of every simulated vendor,
//! each named `auto` in the inventory, are detected from the sysObjectID and sysDescr their
//! agents answer, polled with the right profile and shown with their vendor; the detection
//! is kept in the store, so after a restart an OLT that no longer answers still shows it
//! (and its layout, `family`, which the list filters on);
//! and an OLT not detected yet shows `auto` and refuses CLI actions with a clear error.
//! (A device no rule knows: `actors/tests/fixtures.rs`, against snmpsim.)

use crate::common::{all_polled, eventually, test_config, TestService};
use ponkeeper_actors::domain::Vendor;
use ponkeeper_actors::inventory::VendorSetting;
use ponkeeper_sim::{Dynamics, FleetSpec, FleetVendors, SimFleet};
use ponkeeper_sim::{DEFAULT_SSH_PASSWORD, SSH_PASSWORD_ENV};
use std::path::Path;
use std::time::Duration;

/// Four OLTs (Huawei, ZTE, BDCOM, Huawei) of 8 ONUs, every one `auto` in the inventory.
async fn start(sim: &SimFleet, data_dir: &Path) -> TestService {
    std::env::set_var(SSH_PASSWORD_ENV, DEFAULT_SSH_PASSWORD);
    let mut inventory = sim.inventory();
    for olt in &mut inventory.olts {
        olt.vendor = VendorSetting::Auto;
    }
    std::fs::create_dir_all(data_dir).expect("data dir");
    let path = data_dir.join("inventory.toml");
    std::fs::write(&path, inventory.to_toml()).expect("inventory");
    assert!(inventory.to_toml().contains("vendor = \"auto\""));
    let config = test_config(data_dir.join("data"), path);
    TestService::start_with(config, true).await
}

async fn vendors(service: &TestService) -> Vec<(String, u64)> {
    let (status, body) = service.get("/olts?size=10").await;
    assert_eq!(status, 200, "{body}");
    body["data"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|o| {
            let vendor = o["vendor"].as_str().expect("vendor").to_string();
            (vendor, o["totalOnu"].as_u64().expect("totalOnu"))
        })
        .collect()
}

/// Each OLT's `family` (the detected table layout; null while undetected), by id.
async fn families(service: &TestService) -> Vec<Option<String>> {
    let (status, body) = service.get("/olts?size=10").await;
    assert_eq!(status, 200, "{body}");
    body["data"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|o| o["family"].as_str().map(str::to_string))
        .collect()
}

/// The ids `GET /olts?{query}` lists.
async fn ids(service: &TestService, query: &str) -> Vec<u64> {
    let (status, body) = service.get(&format!("/olts?{query}")).await;
    assert_eq!(status, 200, "{query}: {body}");
    body["data"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|o| o["id"].as_u64().expect("id"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_detects_every_simulated_vendor_and_keeps_it() {
    let sim = SimFleet::start(FleetSpec {
        vendors: FleetVendors::Mixed,
        dynamics: Dynamics::none(),
        ..FleetSpec::new(4, 8)
    })
    .await
    .expect("simulator");
    // OLT 4 does not answer at first: it stays undetected.
    sim.set_silent(4, true);
    let dir = tempfile::tempdir().expect("tempdir");
    let service = start(&sim, dir.path()).await;
    all_polled(&service).await;
    let expected: Vec<String> = (0..3)
        .map(|i| FleetVendors::Mixed.of_olt(i).to_string())
        .collect();
    assert_eq!(expected, ["huawei", "zte", "bdcom"]);
    let mut want: Vec<(String, u64)> = expected.iter().map(|v| (v.clone(), 8)).collect();
    want.push(("auto".into(), 0));
    assert_eq!(vendors(&service).await, want);

    // The list filters by the detected vendor, and by `auto` for the undetected one.
    let (_, body) = service.get("/olts?vendor=zte").await;
    assert_eq!(body["meta"]["totalCount"], 1, "{body}");
    let (_, body) = service.get("/olts?vendor=auto").await;
    assert_eq!(body["data"][0]["id"], 4, "{body}");
    // The undetected OLT has no layout yet, so no family filter lists it.
    let detected = |layouts: &[&str]| -> Vec<Option<String>> {
        layouts
            .iter()
            .map(|l| Some(l.to_string()).filter(|l| !l.is_empty()))
            .collect()
    };
    let mut layouts = detected(&["MA5800", "C320", "P3310", ""]);
    assert_eq!(families(&service).await, layouts);
    assert_eq!(ids(&service, "family=ma5800").await, [1]);

    // A CLI action on the undetected OLT is refused, naming why.
    let (status, body) = service.post("/olts/4/configs/backup").await;
    assert_eq!(status, 503, "{body}");
    let message = body["error"]["message"].as_str().expect("message");
    assert!(message.contains("vendor is not known yet"), "{message}");

    // OLT 4 answers: detected as Huawei on its next poll.
    sim.set_silent(4, false);
    let (status, _) = service.post("/olts/4/poll").await;
    assert_eq!(status, 200);
    want[3] = (Vendor::Huawei.to_string(), 8);
    assert_eq!(vendors(&service).await, want);
    layouts[3] = Some("MA5800".into());
    assert_eq!(families(&service).await, layouts);

    // Restarted with every agent silent: the detected vendors come from the store.
    service.stop().await;
    for olt in 1..=4 {
        sim.set_silent(olt, true);
    }
    let service = start(&sim, dir.path()).await;
    let shown = eventually("the stored vendors", Duration::from_secs(10), || async {
        let shown = vendors(&service).await;
        (shown == want).then_some(shown)
    })
    .await;
    assert_eq!(shown, want);
    assert_eq!(families(&service).await, layouts, "the stored layouts");
    service.stop().await;
    sim.shutdown().await;
}

/// Every table layout, each `auto` in the inventory: the C620 and the GP3600 are told
/// from the C320 and the P3310, the V1600G from the V1600D, by their system group, and
/// the CIS families (Eltex, V-SOL, C-Data, SNR) are found by theirs; each shows every
/// port and ONU.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_reads_every_family_with_its_own_layout() {
    let sim = SimFleet::start(FleetSpec {
        vendors: FleetVendors::EveryFamily,
        dynamics: Dynamics::none(),
        ..FleetSpec::new(10, 8)
    })
    .await
    .expect("simulator");
    let dir = tempfile::tempdir().expect("tempdir");
    let service = start(&sim, dir.path()).await;
    all_polled(&service).await;
    let shown = vendors(&service).await;
    let want: Vec<(String, u64)> = [
        "huawei", "zte", "bdcom", "zte", "bdcom", "eltex", "vsol", "vsol", "cdata", "snr",
    ]
    .iter()
    .map(|v| (v.to_string(), 8))
    .collect();
    assert_eq!(shown, want);
    // Each OLT's layout by its short name, and the list filtered by it, in any case.
    let layouts = [
        "MA5800", "C320", "P3310", "C620", "GP3600", "LTP-8X", "V1600D", "V1600G", "FD16XX",
        "SNR-GPON",
    ];
    let expected: Vec<Option<String>> = layouts.iter().map(|l| Some(l.to_string())).collect();
    assert_eq!(families(&service).await, expected);
    for (olt, layout) in (1u64..).zip(layouts) {
        assert_eq!(ids(&service, &format!("family={layout}")).await, [olt]);
        let lower = layout.to_ascii_lowercase();
        assert_eq!(ids(&service, &format!("family={lower}")).await, [olt]);
        let (_, body) = service.get(&format!("/olts/{olt}")).await;
        assert_eq!(body["data"]["family"], layout, "OLT {olt}: {body}");
    }
    assert_eq!(ids(&service, "family=C300").await, Vec::<u64>::new());
    assert_eq!(ids(&service, "vendor=zte&family=c620").await, [4]);
    for olt in 1..=10u32 {
        let (_, body) = service.get(&format!("/olts/{olt}")).await;
        let ports = sim.expected_ports(olt).len() as u64;
        assert!(ports > 0, "OLT {olt}");
        assert_eq!(body["data"]["totalPorts"], ports, "OLT {olt}: {body}");
        let (_, onus) = service.get(&format!("/olts/{olt}/onus?size=100")).await;
        let mut serials: Vec<String> = onus["data"]
            .as_array()
            .expect("onus")
            .iter()
            .map(|o| o["serial"].as_str().expect("serial").to_string())
            .collect();
        let mut expected: Vec<String> = sim
            .expected_onus(olt)
            .into_iter()
            .map(|o| o.serial.into())
            .collect();
        serials.sort();
        expected.sort();
        assert_eq!(
            serials,
            expected,
            "OLT {olt} ({})",
            FleetVendors::EveryFamily.family_of_olt(olt as usize - 1)
        );
    }
    service.stop().await;
    sim.shutdown().await;
}
