//! The simulated fleet checked from the outside: net-snmp's own `snmpbulkwalk`, `snmpwalk`
//! and `snmpget` (an independent SNMP implementation) and snmp2's client (the one the
//! pollers use) query the simulator over real UDP, and what they read must equal
//! `SimFleet::expected_onus` exactly, for the Huawei layout of `docs/devices.md` (ZTE C320
//! and BDCOM P3310: `sim_snmp_vendors.rs`). The tests that run net-snmp skip loudly when
//! it is not installed (`scripts/test.sh` installs it, and makes a missing net-snmp a
//! failure).

use ponkeeper_actors::domain::{OnuStatus, Vendor};
use ponkeeper_actors::inventory::Inventory;
use ponkeeper_actors::profile::huawei_gpon_if_index;
use ponkeeper_sim::{Dynamics, ExpectedOnu, FleetSpec, FleetVendors, SimFleet};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use crate::net_snmp::*;

const SERIAL: &str = "1.3.6.1.4.1.2011.6.128.1.1.2.43.1.3";
const STATUS: &str = "1.3.6.1.4.1.2011.6.128.1.1.2.46.1.15";
const DISTANCE: &str = "1.3.6.1.4.1.2011.6.128.1.1.2.46.1.20";
const RX: &str = "1.3.6.1.4.1.2011.6.128.1.1.2.51.1.4";
const OLT_RX: &str = "1.3.6.1.4.1.2011.6.128.1.1.2.51.1.6";
const SYS_NAME: &str = "1.3.6.1.2.1.1.5.0";

async fn frozen_fleet(olts: usize, onus: usize, seed: u64) -> SimFleet {
    let spec = FleetSpec {
        seed,
        dynamics: Dynamics::none(),
        ..FleetSpec::new(olts, onus)
    };
    SimFleet::start(spec).await.expect("the fleet starts")
}

/// The row index `ifIndex.ontId` of an expected ONU.
fn row(onu: &ExpectedOnu) -> (u64, u64) {
    let parts: Vec<u32> = onu
        .pon_port
        .split('/')
        .map(|p| p.parse().expect("numeric port"))
        .collect();
    let if_index = huawei_gpon_if_index(parts[0], parts[1], parts[2]);
    (u64::from(if_index), u64::from(onu.onu_index))
}

/// Rows of one column walk, keyed by `ifIndex.ontId`.
fn by_row(
    column: &str,
    rows: Vec<(Vec<u64>, String, String)>,
) -> BTreeMap<(u64, u64), (String, String)> {
    let prefix_len = column.split('.').count();
    rows.into_iter()
        .map(|(arcs, kind, value)| {
            assert_eq!(arcs.len(), prefix_len + 2, "instance of {column}: {arcs:?}");
            ((arcs[prefix_len], arcs[prefix_len + 1]), (kind, value))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bulkwalk_reads_exactly_the_expected_onus() {
    if !has_net_snmp("bulkwalk_reads_exactly_the_expected_onus") {
        return;
    }
    let fleet = frozen_fleet(2, 40, 11).await;
    let addr = target(fleet.olt_addr(2).expect("OLT 2"));
    let expected = fleet.expected_onus(2);
    assert_eq!(expected.len(), 40);
    assert!(
        expected.iter().any(|o| o.status == OnuStatus::Offline),
        "some ONUs offline"
    );

    let bulkwalk = |column: &'static str| {
        let addr = addr.clone();
        async move {
            let args = ["-v2c", "-c", "public", "-On", "-Oe", addr.as_str(), column];
            by_row(column, walk("snmpbulkwalk", &args).await)
        }
    };
    let serials = bulkwalk(SERIAL).await;
    let distances = bulkwalk(DISTANCE).await;
    let rx = bulkwalk(RX).await;
    assert_eq!(serials.len(), expected.len());
    assert_eq!(distances.len(), expected.len());
    assert_eq!(rx.len(), expected.len());
    for onu in &expected {
        let key = row(onu);
        let (kind, value) = &serials[&key];
        assert_eq!(serial_text(&octets(kind, value)), onu.serial, "{key:?}");
        assert!(
            onu.serial.starts_with("HWTC")
                || onu.serial.starts_with("ZTEG")
                || onu.serial.starts_with("ALCL")
        );
        let (kind, value) = &distances[&key];
        assert_eq!(
            integer(kind, value),
            onu.distance.map_or(-1, i64::from),
            "distance {key:?}"
        );
        let (kind, value) = &rx[&key];
        let raw_rx = onu
            .rx_power
            .get()
            .map_or(ABSENT, |dbm| (dbm * 100.0).round() as i64);
        assert_eq!(integer(kind, value), raw_rx, "rx {key:?}");
        if onu.status == OnuStatus::Offline {
            assert_eq!(
                (onu.distance, onu.rx_power.get(), onu.tx_power.get()),
                (None, None, None)
            );
            assert!(onu.last_down_cause.is_some());
        } else {
            assert!(onu.last_down_cause.is_none());
        }
    }
    fleet.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn if_name_walk_names_the_gpon_ports() {
    if !has_net_snmp("if_name_walk_names_the_gpon_ports") {
        return;
    }
    let fleet = frozen_fleet(1, 40, 3).await;
    let addr = target(fleet.olt_addr(1).expect("OLT 1"));
    let rows = walk(
        "snmpbulkwalk",
        &["-v2c", "-c", "public", "-On", "-Oe", &addr, IF_NAME],
    )
    .await;
    let names: Vec<String> = rows
        .iter()
        .map(|(_, kind, value)| String::from_utf8_lossy(&octets(kind, value)).into_owned())
        .collect();
    let expected: Vec<String> = fleet
        .expected_ports(1)
        .iter()
        .map(|p| format!("GPON {p}"))
        .collect();
    assert_eq!(names, expected);
    assert_eq!(names[..2], ["GPON 0/1/0", "GPON 0/1/1"]);
    assert_eq!(rows[0].0.last(), Some(&4_194_312_192));
    fleet.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snmpget_and_v1_walk() {
    if !has_net_snmp("snmpget_and_v1_walk") {
        return;
    }
    let fleet = frozen_fleet(3, 24, 5).await;
    let addr = target(fleet.olt_addr(3).expect("OLT 3"));
    let got = snmpget(&addr, &[SYS_NAME, "1.3.6.1.2.1.47.1.1.1.1.10.1"]).await;
    assert_eq!(got[0].2, "\"OLT-3\"");
    let firmware = fleet.firmware(3).expect("firmware");
    assert!(firmware.starts_with("V800R"), "{firmware}");
    assert_eq!(got[1].2, format!("\"{firmware}\""));

    // v1 walks end on noSuchName at the end of the view: walk the last column.
    let expected = fleet.expected_onus(3);
    let status = by_row(
        STATUS,
        walk(
            "snmpwalk",
            &["-v1", "-c", "public", "-On", "-Oe", &addr, STATUS],
        )
        .await,
    );
    let olt_rx = by_row(
        OLT_RX,
        walk(
            "snmpwalk",
            &["-v1", "-c", "public", "-On", "-Oe", &addr, OLT_RX],
        )
        .await,
    );
    assert_eq!(status.len(), expected.len());
    assert_eq!(olt_rx.len(), expected.len());
    for onu in &expected {
        let (kind, value) = &status[&row(onu)];
        let online = integer(kind, value) == 1;
        assert_eq!(online, onu.status == OnuStatus::Online);
        let (kind, value) = &olt_rx[&row(onu)];
        let raw = onu
            .olt_rx_power
            .get()
            .map_or(ABSENT, |dbm| (dbm * 100.0).round() as i64 + 10_000);
        assert_eq!(integer(kind, value), raw);
    }
    fleet.shutdown().await;
}

/// `snmpget` of sysName.0 with a short timeout and no retries.
async fn quick_get(addr: &str, community: &str) -> std::process::Output {
    net_snmp(
        "snmpget",
        &[
            "-v2c", "-c", community, "-t", "0.5", "-r", "0", "-On", addr, SYS_NAME,
        ],
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_community_and_silent_olts_get_no_answer() {
    if !has_net_snmp("wrong_community_and_silent_olts_get_no_answer") {
        return;
    }
    let fleet = frozen_fleet(2, 8, 1).await;
    let addr = target(fleet.olt_addr(1).expect("OLT 1"));
    let wrong = quick_get(&addr, "private").await;
    assert!(!wrong.status.success());
    assert!(
        String::from_utf8_lossy(&wrong.stderr).contains("Timeout"),
        "{wrong:?}"
    );

    fleet.set_silent(1, true);
    let hung = quick_get(&addr, "public").await;
    assert!(!hung.status.success());
    assert!(
        String::from_utf8_lossy(&hung.stderr).contains("Timeout"),
        "{hung:?}"
    );
    let other = quick_get(&target(fleet.olt_addr(2).expect("OLT 2")), "public").await;
    assert!(other.status.success(), "only OLT 1 is silent");

    fleet.set_silent(1, false);
    let back = quick_get(&addr, "public").await;
    assert!(back.status.success(), "{back:?}");
    assert!(String::from_utf8_lossy(&back.stdout).contains("\"OLT-1\""));
    fleet.shutdown().await;
}

#[tokio::test]
async fn the_same_seed_gives_the_same_fleet() {
    let a = frozen_fleet(3, 50, 42).await;
    let b = frozen_fleet(3, 50, 42).await;
    let c = frozen_fleet(3, 50, 43).await;
    for id in 1..=3 {
        assert_eq!(a.expected_onus(id), b.expected_onus(id));
        assert_eq!(a.expected_ports(id), b.expected_ports(id));
        assert_eq!(a.firmware(id), b.firmware(id));
        assert_ne!(a.expected_onus(id), c.expected_onus(id));
    }
    // OLTs differ from each other, and descriptions are unique across the fleet.
    assert_ne!(a.expected_onus(1)[0].serial, a.expected_onus(2)[0].serial);
    assert_eq!(a.expected_onus(1)[0].description, "contract-100000");
    assert_eq!(a.expected_onus(2)[0].description, "contract-100050");
    for fleet in [a, b, c] {
        fleet.shutdown().await;
    }
}

#[tokio::test]
async fn inventory_describes_the_fleet() {
    let fleet = frozen_fleet(10, 4, 1).await;
    let inventory = fleet.inventory();
    assert_eq!(inventory.olts.len(), 10);
    assert!(inventory.nodes.len() >= 3);
    for olt in &inventory.olts {
        assert_eq!(
            fleet.olt_addr(olt.id),
            Some(SocketAddr::new(olt.ip, olt.snmp.port))
        );
        assert_eq!(olt.snmp.community, "public");
        assert_eq!(olt.vendor, Vendor::Huawei.into());
        assert_eq!(olt.model, "MA5800-X7");
        assert_eq!(olt.node.is_none(), olt.id % 5 == 0, "OLT {}", olt.id);
        if let Some(node) = olt.node {
            assert_eq!(
                inventory.node(node).map(|n| n.city.as_str()),
                Some(olt.city.as_str())
            );
        }
    }
    let reparsed = Inventory::parse(&inventory.to_toml()).expect("a valid inventory");
    assert_eq!(reparsed, inventory);
    assert_eq!(fleet.olt_addr(11), None);
    assert!(fleet.expected_onus(0).is_empty());
    fleet.shutdown().await;
}

#[tokio::test]
async fn a_mixed_fleet_cycles_the_vendors() {
    let spec = FleetSpec {
        vendors: FleetVendors::Mixed,
        dynamics: Dynamics::none(),
        ..FleetSpec::new(6, 4)
    };
    let fleet = SimFleet::start(spec).await.expect("the fleet starts");
    let models: Vec<(Vendor, String)> = fleet
        .inventory()
        .olts
        .iter()
        .map(|olt| {
            (
                olt.vendor.fixed().expect("a fixed vendor"),
                olt.model.clone(),
            )
        })
        .collect();
    let cycle = [
        (Vendor::Huawei, "MA5800-X7"),
        (Vendor::Zte, "C320"),
        (Vendor::Bdcom, "P3310"),
    ];
    let expected: Vec<(Vendor, String)> = cycle
        .iter()
        .chain(cycle.iter())
        .map(|(vendor, model)| (*vendor, model.to_string()))
        .collect();
    assert_eq!(models, expected);
    assert_eq!(fleet.expected_ports(2)[0], "1/1/1");
    assert_eq!(fleet.expected_ports(3)[0], "0/1");
    fleet.shutdown().await;
}

#[tokio::test]
async fn fixed_ports_follow_base_port() {
    let probe = std::net::UdpSocket::bind("127.0.0.1:0").expect("probe");
    let base = probe.local_addr().expect("addr").port();
    drop(probe);
    let spec = FleetSpec {
        base_port: base,
        dynamics: Dynamics::none(),
        ..FleetSpec::new(3, 2)
    };
    match SimFleet::start(spec).await {
        Ok(fleet) => {
            for id in 1..=3u16 {
                let port = fleet.olt_addr(u32::from(id)).map(|a| a.port());
                assert_eq!(port, Some(base + id - 1));
            }
            fleet.shutdown().await;
        }
        // Another process took one of the three ports meanwhile: nothing to check.
        Err(error) => assert_eq!(error.kind(), std::io::ErrorKind::AddrInUse),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snmp2_client_walks_the_agent() {
    let fleet = frozen_fleet(1, 64, 9).await;
    let addr = fleet.olt_addr(1).expect("OLT 1");
    let mut session = snmp2::AsyncSession::new_v2c(addr, b"public", 0)
        .await
        .expect("session");
    let column: Vec<u64> = SERIAL.split('.').map(|a| a.parse().expect("arc")).collect();
    let mut cursor = column.clone();
    let mut serials = Vec::new();
    'walk: loop {
        let oid = snmp2::Oid::from(cursor.as_slice()).expect("oid");
        let response =
            tokio::time::timeout(Duration::from_secs(2), session.getbulk(&[&oid], 0, 25))
                .await
                .expect("answered in time")
                .expect("a response");
        for (name, value) in response.varbinds {
            let arcs: Vec<u64> = name.iter().map(Iterator::collect).expect("u64 arcs");
            if !arcs.starts_with(&column) {
                break 'walk;
            }
            if let snmp2::Value::OctetString(bytes) = value {
                serials.push(serial_text(bytes));
            }
            cursor = arcs;
        }
    }
    let expected: Vec<String> = fleet
        .expected_onus(1)
        .into_iter()
        .map(|o| o.serial.into())
        .collect();
    assert_eq!(serials, expected);
    fleet.shutdown().await;
}

#[tokio::test]
async fn dynamics_move_the_fleet() {
    let spec = FleetSpec {
        dynamics: Dynamics {
            tick: Some(Duration::from_millis(10)),
            drift_db: 0.2,
            outage_probability: 0.05,
            outage_ticks: (2, 4),
            unplug_probability: 0.0,
            mac_move_probability: 0.0,
        },
        ..FleetSpec::new(1, 64)
    };
    let fleet = SimFleet::start(spec).await.expect("the fleet starts");
    let before = fleet.expected_onus(1);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after = fleet.expected_onus(1);
    assert_eq!(before.len(), after.len());
    assert_ne!(before, after, "readings drift");
    let same_identity = before
        .iter()
        .zip(&after)
        .all(|(a, b)| (a.serial.as_str(), a.onu_index) == (b.serial.as_str(), b.onu_index));
    assert!(same_identity, "ONUs keep their identity");
    let went_down = before
        .iter()
        .zip(&after)
        .any(|(b, a)| b.status == OnuStatus::Online && a.status == OnuStatus::Offline);
    assert!(went_down, "outages happen");
    fleet.shutdown().await;
}

/// The size the service is built for: 1,000 OLTs × 128 ONUs in one process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_olts_of_128_onus_answer() {
    let fleet = frozen_fleet(1000, 128, 1).await;
    for id in [1, 500, 1000] {
        let addr = fleet.olt_addr(id).expect("OLT");
        let mut session = snmp2::AsyncSession::new_v2c(addr, b"public", 0)
            .await
            .expect("session");
        let name: Vec<u64> = SYS_NAME
            .split('.')
            .map(|a| a.parse().expect("arc"))
            .collect();
        let oid = snmp2::Oid::from(name.as_slice()).expect("oid");
        let response = tokio::time::timeout(Duration::from_secs(2), session.get(&oid))
            .await
            .expect("answered in time")
            .expect("a response");
        let value = response.varbinds.map(|(_, v)| format!("{v:?}")).next();
        assert_eq!(value, Some(format!("OCTET STRING: OLT-{id}")));
        assert_eq!(fleet.expected_onus(id).len(), 128);
    }
    fleet.shutdown().await;
}
