//! The simulator's ZTE C320 and BDCOM P3310 layouts read from the outside with net-snmp's
//! `snmpbulkwalk` and `snmpget` over real UDP: what they read must equal
//! `SimFleet::expected_onus` exactly (`docs/devices.md`). The Huawei layout and snmp2's own
//! client are in `sim_snmp.rs`. Skips loudly when net-snmp is not installed.

use crate::net_snmp::*;
use ponkeeper_actors::domain::{DownCause, OnuStatus, Vendor};
use ponkeeper_sim::ExpectedOnu;
use std::collections::BTreeMap;

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
