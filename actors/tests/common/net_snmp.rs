//! net-snmp's client tools as the simulator's tests run them: whether they are installed,
//! a walk's lines as (arcs, type, value), and the values as net-snmp prints them.

use ponkeeper_actors::domain::Vendor;
use ponkeeper_sim::{Dynamics, FleetSpec, FleetVendors, SimFleet};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use tokio::process::Command;

pub const ABSENT: i64 = 2_147_483_647;
pub const IF_NAME: &str = "1.3.6.1.2.1.31.1.1.1.1";

/// Whether net-snmp's client tools are installed; skips `test` loudly when not.
pub fn has_net_snmp(test: &str) -> bool {
    super::tools::program(test, "snmpbulkwalk")
        && super::tools::program(test, "snmpwalk")
        && super::tools::program(test, "snmpget")
}

/// Runs a net-snmp tool; panics with a clear message when net-snmp is not installed.
pub async fn net_snmp(tool: &str, args: &[&str]) -> std::process::Output {
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
pub async fn walk(tool: &str, args: &[&str]) -> Vec<(Vec<u64>, String, String)> {
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

pub fn target(addr: SocketAddr) -> String {
    format!("{}:{}", addr.ip(), addr.port())
}

/// An OCTET STRING as net-snmp prints it (`Hex-STRING: 48 57 ..` or `STRING: "..."`).
pub fn octets(kind: &str, value: &str) -> Vec<u8> {
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

pub fn serial_text(bytes: &[u8]) -> String {
    assert_eq!(bytes.len(), 8, "8-byte GPON serial");
    let hex: String = bytes[4..].iter().map(|b| format!("{b:02X}")).collect();
    format!("{}{hex}", String::from_utf8_lossy(&bytes[..4]))
}

pub fn integer(kind: &str, value: &str) -> i64 {
    assert_eq!(kind, "INTEGER", "{kind}: {value}");
    value
        .trim()
        .parse()
        .expect("integer (-Oe prints enums as numbers)")
}

pub async fn frozen_fleet_of(vendor: Vendor, onus: usize, seed: u64) -> SimFleet {
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
pub fn instances(
    column: &str,
    rows: Vec<(Vec<u64>, String, String)>,
) -> BTreeMap<Vec<u64>, (String, String)> {
    let prefix_len = column.split('.').count();
    rows.into_iter()
        .filter(|(_, kind, _)| !kind.starts_with("No more variables"))
        .map(|(arcs, kind, value)| (arcs[prefix_len..].to_vec(), (kind, value)))
        .collect()
}

pub async fn bulkwalk(addr: &str, column: &str) -> BTreeMap<Vec<u64>, (String, String)> {
    let args = ["-v2c", "-c", "public", "-On", "-Oe", addr, column];
    instances(column, walk("snmpbulkwalk", &args).await)
}

/// `snmpget` (v2c, community `public`) of `oids`: one (arcs, type, value) each.
pub async fn snmpget(addr: &str, oids: &[&str]) -> Vec<(Vec<u64>, String, String)> {
    let mut args = vec!["-v2c", "-c", "public", "-On", addr];
    args.extend_from_slice(oids);
    walk("snmpget", &args).await
}

/// sysDescr and sysObjectID as net-snmp reads them.
pub async fn identity(addr: &str) -> (String, String) {
    let got = snmpget(addr, &["1.3.6.1.2.1.1.1.0", "1.3.6.1.2.1.1.2.0"]).await;
    (got[0].2.clone(), got[1].2.clone())
}
