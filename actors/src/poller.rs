//! One poll of one OLT: the system group, the PON ports from IF-MIB and every ONU's
//! identity, state and optics, read with a profile's tables and decoded into domain
//! values. It runs inside a poll task owned by the OLT actor, never inside a message
//! handler, and returns a [`PollOutcome`] the actor merges into its ONU table.

use crate::domain::{DownCause, OnuStatus};
use crate::profile::{std_oids, Encoding, OnuField, OnuIndexing, Profile};
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
}

/// One ONU as the device reported it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
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
    let interfaces = client
        .walk_columns(&[std_oids::IF_NAME, std_oids::IF_TYPE])
        .await?;
    let port_names = pon_ports(profile, &interfaces[0], &interfaces[1]);

    let columns: Vec<&[u32]> = profile.onu_columns.iter().map(|c| c.oid).collect();
    let table = client.walk_columns(&columns).await?;
    let onus = decode_onus(profile, &port_names, &table)?;

    Ok(PollOutcome {
        sys_name: system[0].as_text(),
        sys_descr: system[1].as_text(),
        uptime_seconds: system[2].as_i64().and_then(|t| u64::try_from(t / 100).ok()),
        firmware: system[3].as_text().filter(|f| !f.is_empty()),
        ports: port_names.values().cloned().collect(),
        onus,
    })
}

/// PON ports by ifIndex: interfaces of the profile's ifType whose ifName names a port.
fn pon_ports(
    profile: &Profile,
    names: &[ColumnEntry],
    types: &[ColumnEntry],
) -> BTreeMap<u32, String> {
    let types: HashMap<&[u32], i64> = types
        .iter()
        .filter_map(|(index, value)| Some((index.as_slice(), value.as_i64()?)))
        .collect();
    names
        .iter()
        .filter_map(|(index, value)| {
            let [if_index] = index.as_slice() else {
                return None;
            };
            if let Some(&if_type) = types.get(index.as_slice()) {
                if if_type != i64::from(profile.port_if_type) {
                    return None;
                }
            }
            let name = value.as_text()?;
            let port = profile.port_from_if_name(&name)?.to_string();
            Some((*if_index, port))
        })
        .collect()
}

#[derive(Default)]
struct RowBuilder<'a> {
    values: HashMap<OnuField, &'a SnmpValue>,
}

/// Joins the walked columns by row index into ONUs.
pub fn decode_onus(
    profile: &Profile,
    ports: &BTreeMap<u32, String>,
    table: &[Vec<ColumnEntry>],
) -> Result<Vec<PolledOnu>, DeviceError> {
    let mut rows: BTreeMap<&[u32], RowBuilder> = BTreeMap::new();
    for (column, entries) in profile.onu_columns.iter().zip(table) {
        for (instance, value) in entries {
            let Some(index) = instance.strip_suffix(column.suffix) else {
                continue;
            };
            rows.entry(index)
                .or_default()
                .values
                .insert(column.field, value);
        }
    }

    let mut onus = Vec::with_capacity(rows.len());
    for (index, row) in rows {
        let (pon_port, onu_index) = match profile.onu_indexing {
            OnuIndexing::PortIfIndexAndOnuId => {
                let [if_index, onu_id] = index else { continue };
                let port = match ports.get(if_index) {
                    Some(name) => name.clone(),
                    None => continue,
                };
                (port, *onu_id)
            }
        };
        let Some(serial) = row
            .values
            .get(&OnuField::Serial)
            .and_then(|v| decode_serial(profile, v))
        else {
            continue;
        };
        let integer = |field: OnuField| {
            let column = profile.column(field)?;
            column.decode_integer(row.values.get(&field)?.as_i64()?)
        };
        let dbm = |field: OnuField| {
            let column = profile.column(field)?;
            column.decode_dbm(row.values.get(&field)?.as_i64()?)
        };
        let status = integer(OnuField::Status)
            .map(|raw| profile.status(raw))
            .unwrap_or(OnuStatus::Offline);
        let last_down_cause = match status {
            OnuStatus::Online => None,
            OnuStatus::Offline => Some(
                integer(OnuField::DownCause)
                    .map(|raw| profile.down_cause(raw))
                    .unwrap_or(DownCause::Unknown),
            ),
        };
        onus.push(PolledOnu {
            pon_port,
            onu_index,
            serial,
            description: row
                .values
                .get(&OnuField::Description)
                .and_then(|v| v.as_text())
                .unwrap_or_default(),
            status,
            last_down_cause,
            distance: integer(OnuField::Distance).and_then(|d| u32::try_from(d).ok()),
            rx_power: dbm(OnuField::RxPower),
            tx_power: dbm(OnuField::TxPower),
            olt_rx_power: dbm(OnuField::OltRxPower),
        });
    }
    Ok(onus)
}

fn decode_serial(profile: &Profile, value: &SnmpValue) -> Option<String> {
    let column = profile.column(OnuField::Serial)?;
    let bytes = value.as_bytes()?;
    match column.encoding {
        Encoding::GponSerial => Some(crate::profile::format_gpon_serial(bytes)),
        _ => value.as_text(),
    }
}
