//! The simulated fleet checked from the outside: net-snmp's own `snmpbulkwalk`, `snmpwalk`
//! and `snmpget` (an independent SNMP implementation) and snmp2's client (the one the
//! pollers use) query the simulator over real UDP, and what they read must equal
//! `SimFleet::expected_onus` exactly, for the Huawei, ZTE C320 and BDCOM P3310 layouts of
//! `docs/devices.md`. The tests that run net-snmp skip loudly when it is not installed
//! (`scripts/test.sh` installs it, and makes a missing net-snmp a failure).

use ponkeeper_actors::domain::{DownCause, OnuStatus, Vendor};
use ponkeeper_actors::inventory::Inventory;
use ponkeeper_actors::profile::huawei_gpon_if_index;
use ponkeeper_sim::{Dynamics, ExpectedOnu, FleetSpec, FleetVendors, SimFleet};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::process::Command;

#[path = "../../tests/common/tools.rs"]
#[allow(dead_code)]
mod tools;

/// Whether net-snmp's client tools are installed; skips `test` loudly when not.
fn has_net_snmp(test: &str) -> bool {
    tools::program(test, "snmpbulkwalk")
        && tools::program(test, "snmpwalk")
        && tools::program(test, "snmpget")
}

const SERIAL: &str = "1.3.6.1.4.1.2011.6.128.1.1.2.43.1.3";
const STATUS: &str = "1.3.6.1.4.1.2011.6.128.1.1.2.46.1.15";
const DISTANCE: &str = "1.3.6.1.4.1.2011.6.128.1.1.2.46.1.20";
const RX: &str = "1.3.6.1.4.1.2011.6.128.1.1.2.51.1.4";
const OLT_RX: &str = "1.3.6.1.4.1.2011.6.128.1.1.2.51.1.6";
const IF_NAME: &str = "1.3.6.1.2.1.31.1.1.1.1";
const SYS_NAME: &str = "1.3.6.1.2.1.1.5.0";
const ABSENT: i64 = 2_147_483_647;

async fn frozen_fleet(olts: usize, onus: usize, seed: u64) -> SimFleet {
    let spec = FleetSpec {
        seed,
        dynamics: Dynamics::none(),
        ..FleetSpec::new(olts, onus)
    };
    SimFleet::start(spec).await.expect("the fleet starts")
}

/// Runs a net-snmp tool; panics with a clear message when net-snmp is not installed.
async fn net_snmp(tool: &str, args: &[&str]) -> std::process::Output {
    match Command::new(tool).args(args).output().await {
        Ok(output) => output,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => panic!(
            "`{tool}` not found: these tests query the simulator with net-snmp; \
             install it with `apt-get update && apt-get install -y snmp`"
        ),
        Err(error) => panic!("cannot run {tool}: {error}"),
    }
}

/// `(oid arcs, type, value)` of every `-On` output line.
async fn walk(tool: &str, args: &[&str]) -> Vec<(Vec<u64>, String, String)> {
    let output = net_snmp(tool, args).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{tool} {args:?} failed: {}{}",
        stdout,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
        .lines()
        .filter_map(|line| {
            let (oid, rest) = line.split_once(" = ")?;
            let (kind, value) = rest.split_once(": ").unwrap_or((rest, ""));
            let arcs = oid
                .trim_start_matches('.')
                .split('.')
                .map(|arc| arc.parse::<u64>().expect("numeric OID (-On)"))
                .collect();
            Some((arcs, kind.to_string(), value.to_string()))
        })
        .collect()
}

fn target(addr: SocketAddr) -> String {
    format!("{}:{}", addr.ip(), addr.port())
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

/// An OCTET STRING as net-snmp prints it (`Hex-STRING: 48 57 ..` or `STRING: "..."`).
fn octets(kind: &str, value: &str) -> Vec<u8> {
    match kind {
        "Hex-STRING" => value
            .split_whitespace()
            .map(|byte| u8::from_str_radix(byte, 16).expect("hex byte"))
            .collect(),
        "STRING" => {
            let inner = value.trim().trim_start_matches('"').trim_end_matches('"');
            inner
                .replace("\\\"", "\"")
                .replace("\\\\", "\\")
                .into_bytes()
        }
        other => panic!("not an OCTET STRING: {other}: {value}"),
    }
}

fn serial_text(bytes: &[u8]) -> String {
    assert_eq!(bytes.len(), 8, "8-byte GPON serial");
    let hex: String = bytes[4..].iter().map(|b| format!("{b:02X}")).collect();
    format!("{}{hex}", String::from_utf8_lossy(&bytes[..4]))
}

fn integer(kind: &str, value: &str) -> i64 {
    assert_eq!(kind, "INTEGER", "{kind}: {value}");
    value
        .trim()
        .parse()
        .expect("integer (-Oe prints enums as numbers)")
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
    let got = walk(
        "snmpget",
        &[
            "-v2c",
            "-c",
            "public",
            "-On",
            &addr,
            SYS_NAME,
            "1.3.6.1.2.1.47.1.1.1.1.10.1",
        ],
    )
    .await;
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

async fn frozen_fleet_of(vendor: Vendor, onus: usize, seed: u64) -> SimFleet {
    let spec = FleetSpec {
        seed,
        vendors: FleetVendors::One(vendor),
        dynamics: Dynamics::none(),
        ..FleetSpec::new(1, onus)
    };
    SimFleet::start(spec).await.expect("the fleet starts")
}

/// Rows of one column walk keyed by the arcs after the column OID (without the
/// endOfMibView line net-snmp prints after the last object of the view).
fn instances(
    column: &str,
    rows: Vec<(Vec<u64>, String, String)>,
) -> BTreeMap<Vec<u64>, (String, String)> {
    let prefix_len = column.split('.').count();
    rows.into_iter()
        .filter(|(_, kind, _)| !kind.starts_with("No more variables"))
        .map(|(arcs, kind, value)| (arcs[prefix_len..].to_vec(), (kind, value)))
        .collect()
}

async fn bulkwalk(addr: &str, column: &str) -> BTreeMap<Vec<u64>, (String, String)> {
    let args = ["-v2c", "-c", "public", "-On", "-Oe", addr, column];
    instances(column, walk("snmpbulkwalk", &args).await)
}

/// sysDescr and sysObjectID as net-snmp reads them.
async fn identity(addr: &str) -> (String, String) {
    let got = walk(
        "snmpget",
        &[
            "-v2c",
            "-c",
            "public",
            "-On",
            addr,
            "1.3.6.1.2.1.1.1.0",
            "1.3.6.1.2.1.1.2.0",
        ],
    )
    .await;
    (got[0].2.clone(), got[1].2.clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bulkwalk_reads_a_zte_c320() {
    if !has_net_snmp("bulkwalk_reads_a_zte_c320") {
        return;
    }
    const SERIAL: &str = "1.3.6.1.4.1.3902.1012.3.28.1.1.5";
    const PHASE: &str = "1.3.6.1.4.1.3902.1012.3.28.2.1.4";
    const RX: &str = "1.3.6.1.4.1.3902.1012.3.50.12.1.1.10";
    const DISTANCE: &str = "1.3.6.1.4.1.3902.1012.3.11.4.1.2";
    let fleet = frozen_fleet_of(Vendor::Zte, 60, 4).await;
    let addr = target(fleet.olt_addr(1).expect("OLT 1"));
    let expected = fleet.expected_onus(1);
    assert!(expected.iter().any(|o| o.status == OnuStatus::Offline));

    let (descr, object_id) = identity(&addr).await;
    assert!(descr.contains("by ZTE Corporation"), "{descr}");
    assert!(
        object_id.starts_with(".1.3.6.1.4.1.3902.1082."),
        "{object_id}"
    );

    let names: Vec<String> = bulkwalk(&addr, IF_NAME)
        .await
        .values()
        .map(|(kind, value)| String::from_utf8_lossy(&octets(kind, value)).into_owned())
        .collect();
    let ports: Vec<String> = fleet
        .expected_ports(1)
        .iter()
        .map(|p| format!("gpon_{p}"))
        .collect();
    assert_eq!(names, ports);
    assert_eq!(names[0], "gpon_1/1/1");

    // Rows are <ponId>.<onuId>; optics carry a trailing .1.
    let pon_id = |onu: &ExpectedOnu| -> u64 {
        let parts: Vec<u64> = onu
            .pon_port
            .split('/')
            .map(|p| p.parse().expect("numeric port"))
            .collect();
        0x1000_0000 + parts[1] * 65_536 + parts[2] * 256
    };
    let serials = bulkwalk(&addr, SERIAL).await;
    let phases = bulkwalk(&addr, PHASE).await;
    let rx = bulkwalk(&addr, RX).await;
    let distances = bulkwalk(&addr, DISTANCE).await;
    assert_eq!(serials.len(), expected.len());
    assert_eq!(rx.len(), expected.len());
    for onu in &expected {
        let key = vec![pon_id(onu), u64::from(onu.onu_index)];
        let (kind, value) = &serials[&key];
        assert_eq!(serial_text(&octets(kind, value)), onu.serial, "{key:?}");
        let (kind, value) = &phases[&key];
        let phase = integer(kind, value);
        let (status, cause) = match phase {
            3 => (OnuStatus::Online, None),
            1 => (OnuStatus::Offline, Some(DownCause::Los)),
            4 => (OnuStatus::Offline, Some(DownCause::DyingGasp)),
            _ => (OnuStatus::Offline, Some(DownCause::Unknown)),
        };
        assert_eq!(
            (status, cause),
            (onu.status, onu.last_down_cause),
            "{key:?}"
        );
        let mut optics = key.clone();
        optics.push(1);
        let (kind, value) = &rx[&optics];
        let raw = onu
            .rx_power
            .get()
            .map_or(65_535, |dbm| ((dbm + 30.0) * 500.0).round() as i64);
        assert_eq!(integer(kind, value), raw, "rx {key:?}");
        let distance = distances
            .get(&key)
            .map(|(kind, value)| integer(kind, value));
        assert_eq!(distance, onu.distance.map(i64::from), "distance {key:?}");
    }
    fleet.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bulkwalk_reads_a_bdcom_p3310() {
    if !has_net_snmp("bulkwalk_reads_a_bdcom_p3310") {
        return;
    }
    const MAC: &str = "1.3.6.1.4.1.3320.101.10.1.1.3";
    const STATUS: &str = "1.3.6.1.4.1.3320.101.10.1.1.26";
    const RX: &str = "1.3.6.1.4.1.3320.101.10.5.1.5";
    const DESCRIPTION: &str = "1.3.6.1.4.1.3320.101.11.1.1.4";
    const IF_DESCR: &str = "1.3.6.1.2.1.2.2.1.2";
    let fleet = frozen_fleet_of(Vendor::Bdcom, 60, 4).await;
    let addr = target(fleet.olt_addr(1).expect("OLT 1"));
    let expected = fleet.expected_onus(1);
    assert!(expected.iter().any(|o| o.status == OnuStatus::Offline));

    let (descr, object_id) = identity(&addr).await;
    assert!(descr.starts_with("\"BDCOM(tm) P3310 Software"), "{descr}");
    assert!(object_id.starts_with(".1.3.6.1.4.1.3320.1."), "{object_id}");

    // ifDescr names the ports (EPON0/1) and every ONU's own interface (EPON0/1:3).
    let if_descr: BTreeMap<u64, String> = bulkwalk(&addr, IF_DESCR)
        .await
        .into_iter()
        .map(|(index, (kind, value))| {
            let name = String::from_utf8_lossy(&octets(&kind, &value)).into_owned();
            (index[0], name)
        })
        .collect();
    let ports: Vec<&String> = if_descr.values().filter(|n| !n.contains(':')).collect();
    let expected_ports: Vec<String> = fleet
        .expected_ports(1)
        .iter()
        .map(|p| format!("EPON{p}"))
        .collect();
    assert_eq!(ports, expected_ports.iter().collect::<Vec<_>>());
    assert_eq!(expected_ports[0], "EPON0/1");
    let by_name: BTreeMap<&str, u64> = if_descr.iter().map(|(i, n)| (n.as_str(), *i)).collect();

    let macs = bulkwalk(&addr, MAC).await;
    let statuses = bulkwalk(&addr, STATUS).await;
    let rx = bulkwalk(&addr, RX).await;
    let descriptions = bulkwalk(&addr, DESCRIPTION).await;
    assert_eq!(macs.len(), expected.len());
    for onu in &expected {
        let name = format!("EPON{}:{}", onu.pon_port, onu.onu_index);
        let key = vec![by_name[name.as_str()]];
        let (kind, value) = &macs[&key];
        let mac: Vec<String> = octets(kind, value)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(mac.join(":"), onu.serial, "{name}");
        let (kind, value) = &descriptions[&key];
        assert_eq!(octets(kind, value), onu.description.as_bytes(), "{name}");
        let (kind, value) = &statuses[&key];
        let (status, cause) = match integer(kind, value) {
            0 | 1 | 3 => (OnuStatus::Online, None),
            4 => (OnuStatus::Offline, Some(DownCause::Los)),
            _ => (OnuStatus::Offline, Some(DownCause::Unknown)),
        };
        assert_eq!((status, cause), (onu.status, onu.last_down_cause), "{name}");
        let (kind, value) = &rx[&key];
        let raw = onu
            .rx_power
            .get()
            .map_or(ABSENT, |dbm| (dbm * 10.0).round() as i64);
        assert_eq!(integer(kind, value), raw, "rx {name}");
    }
    fleet.shutdown().await;
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
