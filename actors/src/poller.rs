//! One poll of one OLT: the system group, the PON ports from IF-MIB and every ONU's
//! identity, state and optics, read with a profile's tables and decoded into domain
//! values. It runs inside a poll task owned by the OLT actor, never inside a message
//! handler, and returns a [`PollOutcome`] the actor merges into its ONU table.

use crate::domain::{CompactString, DownCause, OnuStatus, PortName, Reading, Vendor};
use crate::profile::{std_oids, Cell, OnuField, Profile};
use crate::snmp::{ColumnEntry, DeviceError, SnmpClient, SnmpValue};
use crate::sorted_map::SortedMap;
use std::collections::{BTreeMap, BTreeSet, HashMap};

mod fdb;
mod groups;
mod onu_interfaces;
mod placing;
mod rows;
mod table_rows;

pub use groups::{optics_per_request, poll_groups, Memory, OpticsPlan, ReadPlan};
use placing::{index_serial, index_text, locate_onu, PlaceColumns, Unplaced};
pub use rows::{onu_by_id, row_key, Fill, RowMap, RowRead};
use table_rows::{table_rows, RowBuilder};

/// Everything one good poll learnt.
#[derive(Debug, Clone, PartialEq)]
pub struct PollOutcome {
    pub sys_name: Option<String>,
    pub sys_descr: Option<String>,
    pub uptime_seconds: Option<u64>,
    pub firmware: Option<String>,
    /// PON port names (`0/1/0`) in ifIndex order.
    pub ports: Vec<String>,
    pub onus: Vec<PolledOnu>,
    /// Statically configured VLANs (Q-BRIDGE-MIB): id and name, by id. Empty when the
    /// device does not implement the table.
    pub vlans: Vec<(u16, String)>,
    /// What the poll could not place, and ONU interfaces IF-MIB lists without an ONU,
    /// counted and named (docs/devices.md: nothing silent), e.g.
    /// `12 ONU rows on ifIndex 4194312448: no such port in IF-MIB`.
    pub warnings: Vec<String>,
    /// The vendor whose profile read the device (for `vendor = "auto"`, the detected one).
    pub vendor: Vendor,
    /// The layout that read it ([`Profile::family`]): the CLI of a C620 is not a C320's.
    pub family: &'static str,
    /// Each ONU's row index, packed ([`row_key`]), parallel to `onus`.
    pub rows: Vec<u128>,
    /// IF-MIB as this poll read it; `None` when it used the last reading.
    pub interfaces: Option<Interfaces>,
    /// The `traffic` group's counters by row, when this poll read them.
    pub traffic: Option<RowTraffic>,
    /// The MACs behind the ONUs, when this poll read the forwarding table (BDCOM).
    pub macs: Option<Vec<crate::macs::MacSighting>>,
}

/// One read of the `traffic` group: each row's counters and their width (32 or 64).
#[derive(Debug, Clone, PartialEq)]
pub struct RowTraffic {
    pub rows: Vec<(u128, crate::traffic::Counters)>,
    pub bits: u32,
}

/// One ONU as the device reported it, decoded by [`poll`].
#[derive(Debug, Clone, PartialEq)]
pub struct PolledOnu {
    pub pon_port: PortName,
    pub onu_index: u32,
    pub serial: CompactString,
    pub description: CompactString,
    pub status: OnuStatus,
    pub last_down_cause: Option<DownCause>,
    pub distance: Option<u32>,
    pub rx_power: Reading,
    pub tx_power: Reading,
    pub olt_rx_power: Reading,
    /// Transceiver readings (°C, V, mA), none where the device does not report them.
    pub temperature: Reading,
    pub voltage: Reading,
    pub bias_current: Reading,
    /// Whether this poll read the ONU's optics; when it did not, the optics fields are
    /// the last reading's (the optics group is read rarely, `groups.rs`).
    pub optics_read: bool,
}

impl From<&crate::domain::Onu> for PolledOnu {
    /// The device's view of a stored ONU (without the service's id, VLAN and timestamps;
    /// `optics_read` says whether it has an optics reading).
    fn from(onu: &crate::domain::Onu) -> Self {
        PolledOnu {
            pon_port: onu.pon_port.clone(),
            onu_index: onu.onu_index,
            serial: onu.serial.clone(),
            description: onu.description.clone(),
            status: onu.status,
            last_down_cause: onu.last_down_cause,
            distance: onu.distance,
            rx_power: onu.rx_power,
            tx_power: onu.tx_power,
            olt_rx_power: onu.olt_rx_power,
            temperature: onu.temperature,
            voltage: onu.voltage,
            bias_current: onu.bias_current,
            optics_read: onu.optics_at.is_some(),
        }
    }
}

/// Polls one OLT with `profile`.
pub async fn poll(client: &mut SnmpClient, profile: &Profile) -> Result<PollOutcome, DeviceError> {
    let system = read_system(client).await?;
    poll_tables(client, profile, system).await
}

/// The system group, the first request of a poll: one GET, which the OLT actor also uses
/// as its probe of whether the device answers at all (`olt/probe.rs`).
pub async fn read_system(client: &mut SnmpClient) -> Result<SystemGroup, DeviceError> {
    let values = client
        .get(&[
            std_oids::SYS_NAME,
            std_oids::SYS_DESCR,
            std_oids::SYS_UPTIME,
            std_oids::FIRMWARE,
            std_oids::SYS_OBJECT_ID,
        ])
        .await?;
    Ok(SystemGroup(values))
}

/// The answer of [`read_system`]: sysName, sysDescr, sysUpTime, the firmware and
/// sysObjectID, in order.
#[derive(Debug)]
pub struct SystemGroup(Vec<SnmpValue>);

impl SystemGroup {
    /// The profile to poll with: the layout of `vendor` this system group announces
    /// (its default if it announces none), or (`vendor = "auto"`, `None`) the layout the
    /// detection table picks from sysObjectID and sysDescr.
    pub fn profile(&self, vendor: Option<Vendor>) -> Result<&'static Profile, DeviceError> {
        let sys_object_id = match self.0.get(4) {
            Some(SnmpValue::ObjectIdentifier(oid)) => Some(oid.as_slice()),
            _ => None,
        };
        let sys_descr = self.0.get(1).and_then(SnmpValue::as_text);
        Profile::for_device(vendor, sys_object_id, sys_descr.as_deref()).ok_or_else(|| {
            DeviceError::UnknownVendor {
                sys_object_id: sys_object_id.map_or_else(
                    || "(none)".to_string(),
                    |oid| oid.iter().map(u32::to_string).collect::<Vec<_>>().join("."),
                ),
                sys_descr: sys_descr.unwrap_or_default(),
            }
        })
    }
}

/// The rest of a poll after [`read_system`], every group of every row: IF-MIB, the VLANs
/// and the whole ONU table.
pub async fn poll_tables(
    client: &mut SnmpClient,
    profile: &Profile,
    system: SystemGroup,
) -> Result<PollOutcome, DeviceError> {
    let rows = RowMap::default();
    let memory = Memory {
        rows: &rows,
        onus: &[],
        interfaces: None,
        vlans: &[],
    };
    poll_groups(client, profile, system, &ReadPlan::everything(), memory).await
}

impl PollOutcome {
    /// The outcome of a poll that read `system` and the ONU rows with `profile`.
    #[allow(clippy::too_many_arguments)]
    fn new(
        system: SystemGroup,
        profile: &Profile,
        interfaces: Interfaces,
        interfaces_read: bool,
        vlans: Vec<(u16, String)>,
        onus: Vec<PolledOnu>,
        rows: Vec<u128>,
        warnings: Vec<String>,
    ) -> PollOutcome {
        let system = system.0;
        PollOutcome {
            sys_name: system[0].as_text(),
            sys_descr: system[1].as_text(),
            uptime_seconds: system[2].as_i64().and_then(|t| u64::try_from(t / 100).ok()),
            firmware: system[3].as_text().filter(|f| !f.is_empty()),
            ports: interfaces.ports.values().cloned().collect(),
            onus,
            rows,
            vlans,
            warnings,
            vendor: profile.vendor,
            family: profile.family,
            interfaces: interfaces_read.then_some(interfaces),
            traffic: None,
            macs: None,
        }
    }
}

impl PollOutcome {
    /// Lists the ports the ONUs name that IF-MIB did not, after IF-MIB's, in name order
    /// (layouts whose rows name their port: [`crate::profile::OnuIndexing::names_ports`]).
    fn add_row_ports(&mut self) {
        let listed: BTreeSet<&str> = self.ports.iter().map(String::as_str).collect();
        let named: BTreeSet<String> = self
            .onus
            .iter()
            .filter(|onu| !listed.contains(onu.pon_port.as_str()))
            .map(|onu| onu.pon_port.to_string())
            .collect();
        let mut named: Vec<String> = named.into_iter().collect();
        named.sort_by_key(|port| port_arcs(port));
        self.ports.extend(named);
    }
}

/// A port name's numbers, to sort `0/2` before `0/10`.
fn port_arcs(port: &str) -> Vec<u32> {
    port.split('/').filter_map(|arc| arc.parse().ok()).collect()
}

/// What IF-MIB says about an OLT: every interface's name, and which are PON ports.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Interfaces {
    /// Every interface's name (the profile's [`crate::profile::InterfaceNames`] column)
    /// by ifIndex; BDCOM's ONU interfaces are looked up here.
    pub names: SortedMap<u32, CompactString>,
    /// PON port names (`0/1/0`) by ifIndex: interfaces of the profile's ifType whose
    /// name names a port.
    pub ports: BTreeMap<u32, String>,
}

impl Interfaces {
    pub fn from_walk(profile: &Profile, names: &[ColumnEntry], types: &[ColumnEntry]) -> Self {
        let types: HashMap<&[u32], i64> = types
            .iter()
            .filter_map(|(index, value)| Some((index.as_slice(), value.as_i64()?)))
            .collect();
        let mut interfaces = Interfaces::default();
        for (index, value) in names {
            let [if_index] = index.as_slice() else {
                continue;
            };
            let Some(name) = value.as_compact_text() else {
                continue;
            };
            let type_fits = match (profile.port_if_type, types.get(index.as_slice())) {
                (Some(wanted), Some(&if_type)) => if_type == i64::from(wanted),
                _ => true,
            };
            if let Some(port) = profile.port_from_if_name(&name).filter(|_| type_fits) {
                interfaces.ports.insert(*if_index, port.to_string());
            }
            interfaces.names.insert(*if_index, name);
        }
        // Kept until the next IF-MIB walk: pushing grew it to the next power of two, which
        // for a few hundred interfaces is up to half again their size (30 MB of `serve`'s
        // heap at 10,000 OLTs, docs/benchmarks.md, issue 31's seventh pass).
        interfaces.names.shrink_to_fit();
        interfaces
    }
}

/// The ONU table as decoded: the ONUs, ports named only by their ONUs' index (by
/// ifIndex), and a warning per kind of row that could not be placed as IF-MIB says.
#[derive(Debug, Default)]
pub struct DecodedOnus {
    pub onus: Vec<PolledOnu>,
    /// Each ONU's row index, packed ([`row_key`]), parallel to `onus`.
    pub rows: Vec<u128>,
    pub decoded_ports: BTreeMap<u32, String>,
    pub warnings: Vec<String>,
}

/// Joins the walked columns by row index into ONUs; rows it cannot place are counted
/// into warnings, never dropped without a word. Every column was read for every row.
pub fn decode_onus(
    profile: &Profile,
    interfaces: &Interfaces,
    table: &[Vec<ColumnEntry>],
) -> Result<DecodedOnus, DeviceError> {
    decode_read(profile, interfaces, table, &Fill::default())
}

/// [`decode_onus`] of a poll that read only some groups for some rows: the fields it did
/// not read are the last reading's ([`Fill`]).
pub fn decode_read(
    profile: &Profile,
    interfaces: &Interfaces,
    table: &[Vec<ColumnEntry>],
    fill: &Fill,
) -> Result<DecodedOnus, DeviceError> {
    let (rows, odd_indexes) = table_rows(profile, table);
    let mut decoded = DecodedOnus {
        onus: Vec::with_capacity(rows.len()),
        ..DecodedOnus::default()
    };
    let mut unplaced: BTreeMap<Unplaced, Vec<String>> = BTreeMap::new();
    unplaced
        .entry(Unplaced::BadIndex)
        .or_default()
        .extend(odd_indexes);
    for (key, index, row) in rows {
        if row.get(OnuField::Serial).is_none() && only_interface_columns(profile, &row) {
            // An IF-MIB column the profile reads for ONUs (BDCOM GPON's ifAlias) has a
            // row for every interface: one without an ONU column is not an ONU row.
            continue;
        }
        let read = fill.row(key);
        let columns = place_columns(&row, read);
        let (place, decoded_port) = match locate_onu(profile, interfaces, index, columns) {
            Ok(place) => (place, None),
            Err(Unplaced::PortDecoded(if_index, port)) => {
                let onu_id = index.get(1).copied().unwrap_or_default();
                let why = Unplaced::PortDecoded(if_index, port.clone());
                ((port.into(), onu_id), Some((if_index, why)))
            }
            Err(why) => {
                unplaced.entry(why).or_default().push(index_text(index));
                continue;
            }
        };
        let serial = index_serial(profile, index);
        let Some(onu) = decode_row(profile, place, &row, read, serial) else {
            let rows = unplaced.entry(Unplaced::NoSerial).or_default();
            rows.push(index_text(index));
            continue;
        };
        if let Some((if_index, why)) = decoded_port {
            decoded
                .decoded_ports
                .insert(if_index, onu.pon_port.to_string());
            unplaced.entry(why).or_default().push(index_text(index));
        }
        decoded.onus.push(onu);
        decoded.rows.push(key);
    }
    decoded.warnings = unplaced
        .iter()
        .filter(|(_, indexes)| !indexes.is_empty())
        .map(|(why, indexes)| why.describe(indexes))
        .collect();
    Ok(decoded)
}

/// What the row's place columns hold, and the place it had when last read.
fn place_columns(row: &RowBuilder, read: RowRead) -> PlaceColumns {
    let number = |field: OnuField| u32::try_from(row.get(field)?.as_i64()?).ok();
    PlaceColumns {
        channel: number(OnuField::PonChannel),
        number: number(OnuField::OnuNumber),
        previous: read.previous.map(|o| (o.pon_port.clone(), o.onu_index)),
    }
}

/// Whether every cell of `row` comes from an IF-MIB column (`1.3.6.1.2.1`).
fn only_interface_columns(profile: &Profile, row: &RowBuilder) -> bool {
    profile
        .onu_columns
        .iter()
        .filter(|column| row.get(column.field).is_some())
        .all(|column| column.oid.starts_with(&[1, 3, 6, 1, 2, 1]))
}

/// The ONU one row stands for at its place (port name, ONU number), or `None` when it
/// has no serial (read now, or kept from the last reading of the row).
fn decode_row(
    profile: &Profile,
    place: (PortName, u32),
    row: &RowBuilder,
    read: RowRead,
    index_serial: Option<String>,
) -> Option<PolledOnu> {
    let (pon_port, onu_index) = place;
    let kept = read.previous.filter(|_| !read.identity);
    let serial = match (kept, index_serial) {
        (Some(previous), _) => previous.serial.clone(),
        (None, Some(serial)) => serial.into(),
        (None, None) => row
            .get(OnuField::Serial)
            .and_then(|v| decode_serial(profile, v))?
            .into(),
    };
    let integer = |field: OnuField| {
        let column = profile.column(field)?;
        column.integer(cell(row.get(field)?)?)
    };
    let dbm = |field: OnuField| {
        let column = profile.column(field);
        Reading::from(column.and_then(|c| c.reading(cell(row.get(field)?)?)))
    };
    let raw_status = integer(OnuField::Status);
    let status = raw_status
        .map(|raw| profile.status(raw))
        .unwrap_or(OnuStatus::Offline);
    let last_down_cause = match status {
        OnuStatus::Online => None,
        OnuStatus::Offline => {
            Some(profile.last_down_cause(raw_status, integer(OnuField::DownCause)))
        }
    };
    let mut onu = PolledOnu {
        pon_port,
        onu_index,
        serial,
        description: row
            .get(OnuField::Description)
            .and_then(|v| v.as_compact_text())
            .unwrap_or_default(),
        status,
        last_down_cause,
        distance: profile
            .column(OnuField::Distance)
            .and_then(|column| column.metres(cell(row.get(OnuField::Distance)?)?)),
        rx_power: dbm(OnuField::RxPower),
        tx_power: dbm(OnuField::TxPower),
        olt_rx_power: dbm(OnuField::OltRxPower),
        temperature: dbm(OnuField::Temperature),
        voltage: dbm(OnuField::Voltage),
        bias_current: dbm(OnuField::BiasCurrent),
        optics_read: read.optics,
    };
    if let Some(previous) = kept {
        onu.description.clone_from(&previous.description);
        onu.distance = previous.distance;
    }
    if let Some(previous) = read.previous.filter(|_| !onu.optics_read) {
        onu.rx_power = previous.rx_power;
        onu.tx_power = previous.tx_power;
        onu.olt_rx_power = previous.olt_rx_power;
        onu.temperature = previous.temperature;
        onu.voltage = previous.voltage;
        onu.bias_current = previous.bias_current;
    }
    Some(onu)
}

/// A walked value as the profile's codecs take it.
fn cell(value: &SnmpValue) -> Option<Cell<'_>> {
    match value.as_bytes() {
        Some(bytes) => Some(Cell::Octets(bytes)),
        None => value.as_i64().map(Cell::Integer),
    }
}

fn decode_serial(profile: &Profile, value: &SnmpValue) -> Option<String> {
    let column = profile.column(OnuField::Serial)?;
    Some(column.decode_octets(value.as_bytes()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{BDCOM, HUAWEI, ZTE};
    use crate::snmp::RowIndex;

    /// The profile's ONU columns with only the serial (and status) filled at `rows`.
    fn table(profile: &Profile, rows: &[&[u32]]) -> Vec<Vec<ColumnEntry>> {
        profile
            .onu_columns
            .iter()
            .map(|column| match column.field {
                OnuField::Serial => rows
                    .iter()
                    .map(|index| {
                        let mut instance = RowIndex::from_slice(index);
                        instance.extend_from_slice(column.suffix);
                        (
                            instance,
                            SnmpValue::OctetString(b"HWTC\x01\x02\x03\x04".to_vec()),
                        )
                    })
                    .collect(),
                _ => Vec::new(),
            })
            .collect()
    }

    #[test]
    fn huawei_rows_on_unknown_ports_are_decoded_or_reported() {
        let mut interfaces = Interfaces::default();
        interfaces.ports.insert(4_194_312_192, "0/1/0".into());
        let rows: [&[u32]; 5] = [
            &[4_194_312_192, 0],
            &[4_194_320_640, 0],
            &[4_194_320_640, 1],
            &[7, 3],
            &[4_194_312_192, 1, 9],
        ];
        let decoded = decode_onus(&HUAWEI, &interfaces, &table(&HUAWEI, &rows)).expect("ok");
        let placed: Vec<(&str, u32)> = decoded
            .onus
            .iter()
            .map(|o| (o.pon_port.as_str(), o.onu_index))
            .collect();
        assert_eq!(placed, [("0/1/0", 0), ("0/2/1", 0), ("0/2/1", 1)]);
        assert_eq!(
            decoded.decoded_ports,
            BTreeMap::from([(4_194_320_640, "0/2/1".to_string())])
        );
        assert_eq!(
            decoded.warnings,
            [
                "1 ONU row on ifIndex 7: no such port in IF-MIB",
                "2 ONU rows on ifIndex 4194320640: no such port in IF-MIB; placed on port \
                 0/2/1, decoded from the ifIndex",
                "1 ONU row with index 4194312192.1.9: cannot decode",
            ]
        );
    }

    #[test]
    fn zte_and_bdcom_rows_that_name_nothing_are_reported() {
        let decoded = decode_onus(
            &ZTE,
            &Interfaces::default(),
            &table(&ZTE, &[&[268_501_248, 1], &[268_501_249, 2]]),
        )
        .expect("ok");
        assert_eq!(decoded.onus.len(), 1);
        assert_eq!(
            decoded.warnings,
            ["1 ONU row on ponId 268501249: not a PON port id"]
        );

        let mut interfaces = Interfaces::default();
        interfaces.names.insert(41, "EPON0/1:1".into());
        interfaces.names.insert(49, "EPON0/1:9".into());
        let rows: Vec<Vec<u32>> = (41..=48).map(|i| vec![i]).collect();
        let rows: Vec<&[u32]> = rows.iter().map(Vec::as_slice).collect();
        let mut walked = table(&BDCOM, &rows);
        // A described ONU without its MAC.
        let description = BDCOM
            .onu_columns
            .iter()
            .position(|c| c.field == OnuField::Description)
            .expect("description column");
        walked[description].push((
            RowIndex::from_slice(&[41]),
            SnmpValue::OctetString(b"a".to_vec()),
        ));
        walked[description].push((
            RowIndex::from_slice(&[49]),
            SnmpValue::OctetString(b"b".to_vec()),
        ));
        let decoded = decode_onus(&BDCOM, &interfaces, &walked).expect("ok");
        assert_eq!(decoded.onus.len(), 1);
        assert_eq!(
            decoded.warnings,
            [
                "7 ONU rows on ifIndex 42, 43, 44, 45, 46 and 2 more: no ONU interface of \
                 that name in IF-MIB",
                "1 ONU row without a serial: index 49",
            ]
        );
    }
}
