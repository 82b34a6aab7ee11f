//! One poll of one OLT: the system group, the PON ports from IF-MIB and every ONU's
//! identity, state and optics, read with a profile's tables and decoded into domain
//! values. It runs inside a poll task owned by the OLT actor, never inside a message
//! handler, and returns a [`PollOutcome`] the actor merges into its ONU table.

use crate::domain::{DownCause, OnuStatus};
use crate::profile::{std_oids, OnuField, OnuIndexing, Profile};
use crate::snmp::{ColumnEntry, DeviceError, SnmpClient, SnmpValue};
use std::collections::{BTreeMap, HashMap};

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
}

/// One ONU as the device reported it (in the API's field names, so fixtures' expected
/// answers deserialize into it).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PolledOnu {
    pub pon_port: String,
    pub onu_index: u32,
    pub serial: String,
    pub description: String,
    pub status: OnuStatus,
    pub last_down_cause: Option<DownCause>,
    pub distance: Option<u32>,
    pub rx_power: Option<f64>,
    pub tx_power: Option<f64>,
    pub olt_rx_power: Option<f64>,
    /// Transceiver readings (°C, V, mA); fixtures written before they were read leave
    /// them out, which means `null`.
    #[serde(default)]
    pub temperature: Option<f64>,
    #[serde(default)]
    pub voltage: Option<f64>,
    #[serde(default)]
    pub bias_current: Option<f64>,
}

impl From<&crate::domain::Onu> for PolledOnu {
    /// The device's view of a stored ONU (without the service's id, VLAN and timestamp).
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
        }
    }
}

/// Polls one OLT with `profile`.
pub async fn poll(client: &mut SnmpClient, profile: &Profile) -> Result<PollOutcome, DeviceError> {
    let system = client
        .get(&[
            std_oids::SYS_NAME,
            std_oids::SYS_DESCR,
            std_oids::SYS_UPTIME,
            std_oids::FIRMWARE,
        ])
        .await?;
    // Interfaces and VLANs are short tables: one walk covers all three columns.
    let if_mib = client
        .walk_columns(&[
            profile.interface_names.oid(),
            std_oids::IF_TYPE,
            std_oids::VLAN_STATIC_NAME,
        ])
        .await?;
    let interfaces = Interfaces::from_walk(profile, &if_mib[0], &if_mib[1]);
    let vlans = if_mib[2]
        .iter()
        .filter_map(|(index, name)| match index.as_slice() {
            [id] => Some((
                u16::try_from(*id)
                    .ok()
                    .filter(|id| (1..=4094).contains(id))?,
                name.as_text()?,
            )),
            _ => None,
        })
        .collect();

    let columns: Vec<&[u32]> = profile.onu_columns.iter().map(|c| c.oid).collect();
    let table = client.walk_columns(&columns).await?;
    let onus = decode_onus(profile, &interfaces, &table)?;

    Ok(PollOutcome {
        sys_name: system[0].as_text(),
        sys_descr: system[1].as_text(),
        uptime_seconds: system[2].as_i64().and_then(|t| u64::try_from(t / 100).ok()),
        firmware: system[3].as_text().filter(|f| !f.is_empty()),
        ports: interfaces.ports.values().cloned().collect(),
        onus,
        vlans,
    })
}

/// What IF-MIB says about an OLT: every interface's name, and which are PON ports.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Interfaces {
    /// Every interface's name (the profile's [`crate::profile::InterfaceNames`] column)
    /// by ifIndex; BDCOM's ONU interfaces are looked up here.
    pub names: BTreeMap<u32, String>,
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
            let Some(name) = value.as_text() else {
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
        interfaces
    }
}

/// One table row's values by field (see [`field_slot`]); a fixed array instead of a map,
/// as this runs for every ONU of every poll.
#[derive(Default)]
struct RowBuilder<'a> {
    values: [Option<&'a SnmpValue>; FIELDS],
}

const FIELDS: usize = 11;

fn field_slot(field: OnuField) -> usize {
    match field {
        OnuField::Serial => 0,
        OnuField::Description => 1,
        OnuField::Status => 2,
        OnuField::Distance => 3,
        OnuField::DownCause => 4,
        OnuField::RxPower => 5,
        OnuField::TxPower => 6,
        OnuField::OltRxPower => 7,
        OnuField::Temperature => 8,
        OnuField::Voltage => 9,
        OnuField::BiasCurrent => 10,
    }
}

impl<'a> RowBuilder<'a> {
    fn get(&self, field: OnuField) -> Option<&'a SnmpValue> {
        self.values[field_slot(field)]
    }
}

/// The port name and ONU number a row index stands for, per the profile's indexing;
/// `None` for a row that names no known port.
fn locate_onu(profile: &Profile, interfaces: &Interfaces, index: &[u32]) -> Option<(String, u32)> {
    match profile.onu_indexing {
        OnuIndexing::PortIfIndexAndOnuId => {
            let [if_index, onu_id] = index else {
                return None;
            };
            Some((interfaces.ports.get(if_index)?.clone(), *onu_id))
        }
        OnuIndexing::PonIdAndOnuId(layout) => {
            let [pon_id, onu_id] = index else {
                return None;
            };
            Some((layout.port_name(*pon_id)?, *onu_id))
        }
        OnuIndexing::OnuIfIndex { .. } => {
            let [if_index] = index else {
                return None;
            };
            let (port, number) = profile.onu_from_if_name(interfaces.names.get(if_index)?)?;
            Some((port.to_string(), number))
        }
    }
}

/// Joins the walked columns by row index into ONUs.
pub fn decode_onus(
    profile: &Profile,
    interfaces: &Interfaces,
    table: &[Vec<ColumnEntry>],
) -> Result<Vec<PolledOnu>, DeviceError> {
    let rows = table_rows(profile, table);
    let mut onus = Vec::with_capacity(rows.len());
    for (_, index, row) in rows {
        if let Some(onu) = decode_row(profile, interfaces, index, &row) {
            onus.push(onu);
        }
    }
    Ok(onus)
}

/// The walked cells grouped into rows, in row order: each with its packed key (see
/// [`row_key`]) and its index.
fn table_rows<'a>(
    profile: &Profile,
    table: &'a [Vec<ColumnEntry>],
) -> Vec<(u128, &'a [u32], RowBuilder<'a>)> {
    // Every cell keyed by its row index packed into one integer (indexes are one or two
    // arcs, see `locate_onu`; others name no ONU), then sorted: each column is already
    // in row order, so the stable sort merges runs, and rows group without comparing
    // slices or building a map.
    let mut cells: Vec<(u128, &[u32], usize, &SnmpValue)> =
        Vec::with_capacity(table.iter().map(Vec::len).sum());
    for (column, entries) in profile.onu_columns.iter().zip(table) {
        for (instance, value) in entries {
            let Some(index) = instance.strip_suffix(column.suffix) else {
                continue;
            };
            let Some(key) = row_key(index) else {
                continue;
            };
            cells.push((key, index, field_slot(column.field), value));
        }
    }
    cells.sort_by_key(|cell| cell.0);
    let mut rows: Vec<(u128, &[u32], RowBuilder)> = Vec::new();
    for (key, index, slot, value) in cells {
        match rows.last_mut() {
            Some((last, _, row)) if *last == key => row.values[slot] = Some(value),
            _ => {
                let mut row = RowBuilder::default();
                row.values[slot] = Some(value);
                rows.push((key, index, row));
            }
        }
    }
    rows
}

/// The ONU one row stands for, or `None` when its index names no known port or it has
/// no serial.
fn decode_row(
    profile: &Profile,
    interfaces: &Interfaces,
    index: &[u32],
    row: &RowBuilder,
) -> Option<PolledOnu> {
    let (pon_port, onu_index) = locate_onu(profile, interfaces, index)?;
    let serial = row
        .get(OnuField::Serial)
        .and_then(|v| decode_serial(profile, v))?;
    let integer = |field: OnuField| {
        let column = profile.column(field)?;
        column.decode_integer(row.get(field)?.as_i64()?)
    };
    let dbm = |field: OnuField| {
        let column = profile.column(field)?;
        column.decode_dbm(row.get(field)?.as_i64()?)
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
    Some(PolledOnu {
        pon_port,
        onu_index,
        serial,
        description: row
            .get(OnuField::Description)
            .and_then(|v| v.as_text())
            .unwrap_or_default(),
        status,
        last_down_cause,
        distance: integer(OnuField::Distance).and_then(|d| u32::try_from(d).ok()),
        rx_power: dbm(OnuField::RxPower),
        tx_power: dbm(OnuField::TxPower),
        olt_rx_power: dbm(OnuField::OltRxPower),
        temperature: dbm(OnuField::Temperature),
        voltage: dbm(OnuField::Voltage),
        bias_current: dbm(OnuField::BiasCurrent),
    })
}

/// A row index of one or two arcs as one integer that sorts as the arcs do.
fn row_key(index: &[u32]) -> Option<u128> {
    match *index {
        [a] => Some((1 << 64) | u128::from(a)),
        [a, b] => Some((2 << 64) | (u128::from(a) << 32) | u128::from(b)),
        _ => None,
    }
}

fn decode_serial(profile: &Profile, value: &SnmpValue) -> Option<String> {
    let column = profile.column(OnuField::Serial)?;
    Some(column.decode_octets(value.as_bytes()?))
}
