//! BDCOM's MACs over SNMP: the bridge's forwarding table. Q-BRIDGE-MIB `dot1qTpFdbPort`
//! gives, per filtering database (its id read as the VLAN; docs/devices.md says why) and
//! MAC, the bridge port the MAC was learnt on; BRIDGE-MIB `dot1dBasePortIfIndex` maps
//! that bridge port to an ifIndex, and IF-MIB's name of that ifIndex (`EPON0/1:3`,
//! `GPON0/2:5`) names the ONU. One walk of two columns per read, in the poll, through the
//! OLT's client and budget; MACs learnt on uplinks or on interfaces that name no ONU are
//! left out.

use super::Interfaces;
use crate::macs::{Mac, MacSighting};
use crate::profile::{std_oids, Profile};
use crate::snmp::{ColumnEntry, DeviceError, SnmpClient};
use std::collections::HashMap;

/// Walks the forwarding table and places its MACs on ONUs through IF-MIB's names.
pub async fn read(
    client: &mut SnmpClient,
    profile: &Profile,
    interfaces: &Interfaces,
) -> Result<Vec<MacSighting>, DeviceError> {
    let walked = client
        .walk_columns(&[std_oids::FDB_PORT, std_oids::BRIDGE_PORT_IF_INDEX])
        .await?;
    Ok(decode(profile, interfaces, &walked[0], &walked[1]))
}

/// The sightings of a walked forwarding table (`fdb`) and bridge port map (`ports`).
pub fn decode(
    profile: &Profile,
    interfaces: &Interfaces,
    fdb: &[ColumnEntry],
    ports: &[ColumnEntry],
) -> Vec<MacSighting> {
    let if_index: HashMap<u32, u32> = ports
        .iter()
        .filter_map(|(index, value)| match index.as_slice() {
            [port] => Some((*port, u32::try_from(value.as_i64()?).ok()?)),
            _ => None,
        })
        .collect();
    let mut sightings: Vec<MacSighting> = fdb
        .iter()
        .filter_map(|(index, value)| {
            let [fdb_id, octets @ ..] = index.as_slice() else {
                return None;
            };
            let mac: [u8; 6] = octets
                .iter()
                .map(|&o| u8::try_from(o).ok())
                .collect::<Option<Vec<u8>>>()?
                .try_into()
                .ok()?;
            let bridge_port = u32::try_from(value.as_i64()?).ok()?;
            let name = interfaces.names.get(*if_index.get(&bridge_port)?)?;
            let (port, number) = profile.onu_from_if_name(name)?;
            Some(MacSighting {
                pon_port: port.to_string(),
                onu_index: number,
                mac: Mac(mac),
                vlan: Some(
                    u16::try_from(*fdb_id)
                        .ok()
                        .filter(|v| (1..=4094).contains(v))?,
                ),
            })
        })
        .collect();
    sightings.sort();
    sightings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::BDCOM;
    use crate::snmp::{RowIndex, SnmpValue};

    #[test]
    fn macs_are_placed_through_bridge_ports_and_interface_names() {
        let mut interfaces = Interfaces::default();
        interfaces.names.insert(41, "EPON0/1:1".into());
        interfaces.names.insert(3, "GigaEthernet0/3".into());
        let fdb = vec![
            (
                RowIndex::from_slice(&[100, 0, 17, 34, 51, 68, 85]),
                SnmpValue::Integer(7),
            ),
            (
                RowIndex::from_slice(&[100, 0, 17, 34, 51, 68, 86]),
                SnmpValue::Integer(8),
            ),
            (
                RowIndex::from_slice(&[100, 0, 17, 34, 51, 68, 87, 1]),
                SnmpValue::Integer(7),
            ),
            (
                RowIndex::from_slice(&[5000, 0, 17, 34, 51, 68, 88]),
                SnmpValue::Integer(7),
            ),
        ];
        let ports = vec![
            (RowIndex::from_slice(&[7]), SnmpValue::Integer(41)),
            (RowIndex::from_slice(&[8]), SnmpValue::Integer(3)),
        ];
        let found = decode(&BDCOM, &interfaces, &fdb, &ports);
        assert_eq!(
            found,
            [MacSighting {
                pon_port: "0/1".into(),
                onu_index: 1,
                mac: Mac([0, 17, 34, 51, 68, 85]),
                vlan: Some(100),
            }]
        );
    }
}
