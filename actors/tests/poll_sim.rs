//! The supervisor and OLT actors polling the simulator over real UDP SNMP: every ONU's
//! fields must equal what the simulated device serves, for Huawei, ZTE, BDCOM, mixed
//! fleets and a fleet of every table layout (ZTE C620, BDCOM GP3600), and state must survive a restart of the actors from sled.
//! A hung OLT must not hold a poll permit through its timeout (the probe of
//! `actors/src/olt/probe.rs`).

use ponkeeper_actors::domain::{OnuStatus, SessionStatus, Vendor};
use ponkeeper_actors::olt::{CliAction, PollSettings};
use ponkeeper_actors::poller::PolledOnu;
use ponkeeper_actors::profile::commands::{port_values, render};
use ponkeeper_actors::profile::Profile;
use ponkeeper_actors::store::Store;
use ponkeeper_actors::supervisor::Fleet;
use ponkeeper_sim::{Dynamics, Fault, FaultSet, FleetSpec, FleetVendors, SimFleet};
use ponkeeper_sim::{DEFAULT_SSH_PASSWORD, SSH_PASSWORD_ENV};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

fn settings() -> PollSettings {
    PollSettings {
        interval: Duration::from_secs(60),
        timeout: Duration::from_millis(500),
        retries: 1,
        deadline: Duration::from_secs(5),
        offline_after: 3,
        bulk_varbinds: 64,
        concurrency: Arc::new(tokio::sync::Semaphore::new(16)),
        ..PollSettings::default()
    }
}

async fn steady_sim(olts: usize, onus: usize) -> SimFleet {
    steady_sim_of(FleetVendors::One(Vendor::Huawei), olts, onus).await
}

async fn steady_sim_of(vendors: FleetVendors, olts: usize, onus: usize) -> SimFleet {
    SimFleet::start(FleetSpec {
        vendors,
        dynamics: Dynamics::none(),
        ..FleetSpec::new(olts, onus)
    })
    .await
    .expect("simulator starts")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn polled_onus_equal_what_the_device_serves() {
    polled_onus_equal_what_the_fleet_serves(FleetVendors::One(Vendor::Huawei), 3).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn polled_zte_onus_equal_what_the_device_serves() {
    polled_onus_equal_what_the_fleet_serves(FleetVendors::One(Vendor::Zte), 2).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn polled_bdcom_onus_equal_what_the_device_serves() {
    polled_onus_equal_what_the_fleet_serves(FleetVendors::One(Vendor::Bdcom), 2).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn polled_mixed_fleet_equals_what_each_device_serves() {
    polled_onus_equal_what_the_fleet_serves(FleetVendors::Mixed, 6).await;
}

/// ZTE C620 (`gpon_olt-1/1/1`, ONU rows on the port ifIndex) and BDCOM GP3600
/// (`GPON0/1`, text serials, distance in decimetres, ifAlias descriptions) beside the
/// first layouts: each read with the layout its system group announces, though the
/// inventory names only the vendor.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn polled_fleet_of_every_family_equals_what_each_device_serves() {
    let families: Vec<&str> = (0..5)
        .map(|i| FleetVendors::EveryFamily.family_of_olt(i))
        .collect();
    assert_eq!(families[3], "C600 / C620");
    assert_eq!(families[4], "GP3600 (GPON)");
    polled_onus_equal_what_the_fleet_serves(FleetVendors::EveryFamily, 5).await;
}

/// Polls every OLT of a frozen fleet of `olts` × 40 ONUs through the real actors and
/// compares every field of every ONU, the totals and the ports with the simulator.
async fn polled_onus_equal_what_the_fleet_serves(vendors: FleetVendors, olts: u32) {
    let sim = steady_sim_of(vendors, olts as usize, 40).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("store");
    let inventory = sim.inventory();
    for (i, spec) in inventory.olts.iter().enumerate() {
        assert_eq!(spec.vendor, vendors.of_olt(i).into(), "OLT {}", spec.id);
    }
    let fleet = Fleet::start(store, settings(), inventory)
        .await
        .expect("fleet");

    for olt in 1..=olts {
        let handle = fleet.olt(olt).expect("actor runs");
        let summary = handle.poll_now().await.expect("poll");
        assert_eq!(summary.status, SessionStatus::Online, "OLT {olt}");

        let expected = sim.expected_onus(olt);
        let onus = handle.onus().await.expect("onus");
        assert!(onus.iter().all(|o| o.olt_id == olt));
        let mut polled: Vec<PolledOnu> = onus.iter().map(PolledOnu::from).collect();
        let mut expected_sorted = expected.clone();
        for table in [&mut polled, &mut expected_sorted] {
            table.sort_by(|a, b| (&a.pon_port, a.onu_index).cmp(&(&b.pon_port, b.onu_index)));
        }
        assert_eq!(polled.len(), 40, "OLT {olt}");
        assert!(
            expected.iter().any(|o| o.rx_power.is_some()),
            "OLT {olt} reports readings"
        );
        assert_eq!(
            polled, expected_sorted,
            "every field of every ONU of OLT {olt}"
        );
        let online = expected
            .iter()
            .filter(|o| o.status == OnuStatus::Online)
            .count() as u32;
        assert_eq!(summary.total_onu, 40);
        assert_eq!(summary.onu_online, online);
        assert_eq!(summary.total_ports as usize, sim.expected_ports(olt).len());

        let detail = handle.detail().await.expect("detail");
        assert_eq!(
            detail.system.sys_name.as_deref(),
            Some(format!("OLT-{olt}").as_str())
        );
        assert_eq!(detail.system.firmware, sim.firmware(olt));
        let ports: Vec<String> = detail.ports.iter().map(|p| p.name.clone()).collect();
        assert_eq!(ports, sim.expected_ports(olt));
        assert_eq!(detail.ports.iter().map(|p| p.onu_total).sum::<u32>(), 40);
    }
    fleet.shutdown().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn onu_ids_are_stable_across_polls_and_restarts() {
    let sim = steady_sim(1, 16).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("store");
    let fleet = Fleet::start(store.clone(), settings(), sim.inventory())
        .await
        .expect("fleet");
    let handle = fleet.olt(1).expect("actor");
    handle.poll_now().await.expect("poll");
    let first: Vec<(String, u64)> = handle
        .onus()
        .await
        .expect("onus")
        .iter()
        .map(|o| (o.serial.to_string(), o.id))
        .collect();
    handle.poll_now().await.expect("poll again");
    let second: Vec<(String, u64)> = handle
        .onus()
        .await
        .expect("onus")
        .iter()
        .map(|o| (o.serial.to_string(), o.id))
        .collect();
    assert_eq!(first, second);
    let mut ids: Vec<u64> = first.iter().map(|(_, id)| *id).collect();
    ids.dedup();
    assert_eq!(ids.len(), 16, "ids are distinct");
    fleet.shutdown().await;
    store.flush().await.expect("flush");

    // A new fleet on the same store serves the same table before any poll.
    sim.set_silent(1, true);
    let fleet = Fleet::start(store, settings(), sim.inventory())
        .await
        .expect("fleet again");
    let handle = fleet.olt(1).expect("actor");
    let summary = handle.summary().await.expect("summary");
    assert_eq!(summary.status, SessionStatus::Connecting);
    assert_eq!(summary.total_onu, 16);
    let reloaded: Vec<(String, u64)> = handle
        .onus()
        .await
        .expect("onus")
        .iter()
        .map(|o| (o.serial.to_string(), o.id))
        .collect();
    assert_eq!(reloaded, first);
    fleet.shutdown().await;
    sim.shutdown().await;
}

/// CLI actions speak the dialect of the layout the poll read: a C620 named `zte` gets
/// `pon-onu-mng gpon_onu-1/1/1:1`, a GP3600 named `bdcom` gets `gpon reboot onu interface
/// GPON0/1:1`, not the C320's or the P3310's lines, and the simulated ONU reboots.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_actions_speak_the_dialect_of_the_polled_family() {
    std::env::set_var(SSH_PASSWORD_ENV, DEFAULT_SSH_PASSWORD);
    let sim = steady_sim_of(FleetVendors::EveryFamily, 5, 8).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("store");
    let fleet = Fleet::start(store, settings(), sim.inventory())
        .await
        .expect("fleet");
    for olt in [4u32, 5] {
        let handle = fleet.olt(olt).expect("actor runs");
        handle.poll_now().await.expect("poll");
        let onus = handle.onus().await.expect("onus");
        let onu = onus
            .iter()
            .find(|o| o.status == OnuStatus::Online)
            .expect("an online ONU")
            .clone();
        handle.cli(CliAction::Reboot(onu.id)).await.expect("reboot");
        let family = FleetVendors::EveryFamily.family_of_olt(olt as usize - 1);
        let layout = Profile::ALL
            .into_iter()
            .find(|p| p.family == family)
            .expect("a profile");
        let mut values: HashMap<&str, String> = port_values(&onu.pon_port).into_iter().collect();
        values.insert("onu", onu.onu_index.to_string());
        let log = sim.command_log(olt);
        for line in layout.cli.reboot {
            let line = render(line, &values);
            assert!(
                log.contains(&line),
                "OLT {olt} ({family}): {line} in {log:?}"
            );
        }
        let now = sim
            .expected_onus(olt)
            .into_iter()
            .find(|o| o.serial == onu.serial)
            .expect("still there");
        assert_eq!(now.status, OnuStatus::Offline, "OLT {olt}: rebooting");
    }
    fleet.shutdown().await;
    sim.shutdown().await;
}

/// Two simulated OLTs sharing ONE poll permit, with a 1 s timeout: OLT 1 hangs, and
/// OLT 2's poll must not wait out OLT 1's timeout behind it — neither on OLT 1's first
/// failing poll (a quick timeout lets go of the permit) nor on the next (a suspect OLT
/// probes under the probe budget). Before probes, OLT 2 waited the whole second.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_olt_does_not_hold_the_poll_permit_through_its_timeout() {
    let sim = SimFleet::start(FleetSpec {
        dynamics: Dynamics::none(),
        ..FleetSpec::new(2, 8)
    })
    .await
    .expect("simulator");
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("store");
    let settings = PollSettings {
        interval: Duration::from_secs(3600),
        timeout: Duration::from_secs(1),
        retries: 0,
        deadline: Duration::from_secs(5),
        concurrency: Arc::new(Semaphore::new(1)),
        probes: Arc::new(Semaphore::new(1)),
        ..PollSettings::default()
    };
    let fleet = Fleet::start(store, settings, sim.inventory())
        .await
        .expect("fleet");
    let (hung, healthy) = (fleet.olt(1).expect("OLT 1"), fleet.olt(2).expect("OLT 2"));
    for olt in [&hung, &healthy] {
        olt.poll_now().await.expect("a first good poll");
    }
    sim.set_faults(1, FaultSet::new().with(Fault::Hang));
    for round in ["first failing poll", "suspect poll"] {
        let stuck = {
            let hung = hung.clone();
            tokio::spawn(async move { hung.poll_now().await })
        };
        tokio::time::sleep(Duration::from_millis(30)).await;
        let started = Instant::now();
        healthy.poll_now().await.expect("OLT 2 polls");
        let waited = started.elapsed();
        assert!(
            waited < Duration::from_millis(700),
            "{round}: OLT 2 waited {waited:?} behind the hung OLT 1"
        );
        let failed = stuck.await.expect("task");
        assert!(
            failed
                .as_ref()
                .is_ok_and(|s| s.status != SessionStatus::Online),
            "{round}: {failed:?}"
        );
    }
    fleet.shutdown().await;
    sim.shutdown().await;
}
