//! Discovery of unconfigured ONUs: after each good poll the OLT's poll task reads the
//! autofind / uncfg table of the layout the poll read the OLT with ([`crate::profile::provisioning`]) with the same SNMP
//! client ([`discover`]) and sends the sightings to its actor, which merges them into its
//! [`UnconfiguredList`]: an ONU keeps the time it was first seen while it stays in the
//! table, and leaves the list when the device stops showing it (it was authorised or
//! unplugged). The service lists them through [`crate::olt::OltHandle::unconfigured`].

pub mod cli;

use crate::domain::OltId;
use crate::profile::provisioning::{
    dotted_mac, parse_mac, PortKey, Provisioning, UnconfiguredSerial,
};
use crate::profile::{format_gpon_serial, format_gpon_serial_text, format_mac, Profile};
use crate::snmp::{DeviceError, SnmpClient};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// One ONU the OLT sees on a port but has not registered, as one poll read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sighting {
    pub pon_port: String,
    /// As the API writes serials: `HWTC1A2B3C4D`, or a MAC `fc:fa:f7:12:34:56`.
    pub serial: String,
    /// The ONU's model where the device reports it.
    pub equipment_id: Option<String>,
}

/// An unconfigured ONU as the API shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UnconfiguredOnu {
    pub olt_id: OltId,
    pub pon_port: String,
    pub serial: String,
    pub equipment_id: Option<String>,
    pub first_seen_at: DateTime<Utc>,
    pub last_seen_at: DateTime<Utc>,
}

/// An OLT's unconfigured ONUs in (port, serial) order, kept by its actor. A sorted vector:
/// an OLT shows a few at a time, and a `BTreeMap` allocated room for eleven on its first,
/// 1.7 KB an OLT (17 MB of a national fleet's 10,000 OLTs).
#[derive(Debug, Clone, Default)]
pub struct UnconfiguredList {
    onus: Vec<UnconfiguredOnu>,
    /// Whether a discovery was merged since the actor started.
    merged: bool,
}

impl UnconfiguredList {
    /// Takes one poll's sightings at `now`: new ONUs are first seen now, known ones keep
    /// their first sighting, and ONUs no longer shown leave the list. Returns the new ones.
    pub fn merge(
        &mut self,
        olt_id: OltId,
        sightings: Vec<Sighting>,
        now: DateTime<Utc>,
    ) -> Vec<UnconfiguredOnu> {
        let mut next: Vec<UnconfiguredOnu> = Vec::with_capacity(sightings.len());
        let mut new = Vec::new();
        for sighting in sightings {
            let known = self
                .position(&sighting.pon_port, &sighting.serial)
                .ok()
                .map(|at| self.onus[at].first_seen_at);
            let onu = UnconfiguredOnu {
                olt_id,
                pon_port: sighting.pon_port,
                serial: sighting.serial,
                equipment_id: sighting.equipment_id,
                first_seen_at: known.unwrap_or(now),
                last_seen_at: now,
            };
            if known.is_none() {
                new.push(onu.clone());
            }
            next.push(onu);
        }
        // Stable: of a sighting listed twice, the later stays last and is kept.
        next.sort_by(|a, b| (&a.pon_port, &a.serial).cmp(&(&b.pon_port, &b.serial)));
        next.dedup_by(|later, earlier| {
            let same = later.pon_port == earlier.pon_port && later.serial == earlier.serial;
            if same {
                std::mem::swap(later, earlier);
            }
            same
        });
        self.onus = next;
        self.merged = true;
        new
    }

    fn position(&self, pon_port: &str, serial: &str) -> Result<usize, usize> {
        self.onus
            .binary_search_by(|o| (o.pon_port.as_str(), o.serial.as_str()).cmp(&(pon_port, serial)))
    }

    /// Whether any discovery was merged yet (the first one finds nothing "new": it finds
    /// what was waiting before the service started).
    pub fn has_merged(&self) -> bool {
        self.merged
    }

    /// In port, then serial order.
    pub fn all(&self) -> Vec<UnconfiguredOnu> {
        self.onus.clone()
    }

    /// Whether the OLT shows `serial` on `pon_port` as unconfigured.
    pub fn contains(&self, pon_port: &str, serial: &str) -> bool {
        self.position(pon_port, serial).is_ok()
    }
}

/// Reads the unconfigured table of `profile`'s layout with `client`.
pub async fn discover(
    client: &mut SnmpClient,
    profile: &'static Profile,
) -> Result<Vec<Sighting>, DeviceError> {
    // A layout whose provisioning is not known has no table to read.
    let Some(table) = Provisioning::for_profile(profile).map(|p| p.unconfigured) else {
        return Ok(Vec::new());
    };
    let mut columns: Vec<&[u32]> = vec![table.serial];
    columns.extend(table.equipment);
    let walked = client.walk_columns(&columns).await?;
    let Some(serials) = walked.first() else {
        return Ok(Vec::new());
    };
    let equipment: BTreeMap<&[u32], String> = walked
        .get(1)
        .into_iter()
        .flatten()
        .filter_map(|(index, value)| Some((index.as_slice(), value.as_text()?)))
        .collect();
    let keys = serials.iter().map(|(index, _)| index.as_slice());
    let ports = port_names(client, profile, table.port_key, keys).await?;
    let mut sightings = Vec::with_capacity(serials.len());
    for (index, value) in serials {
        let [key, _n] = index.as_slice() else {
            continue;
        };
        let (Some(pon_port), Some(bytes)) = (ports.get(key), value.as_bytes()) else {
            continue;
        };
        let Some(serial) = decode_serial(table.serial_encoding, bytes) else {
            continue;
        };
        sightings.push(Sighting {
            pon_port: pon_port.clone(),
            serial,
            equipment_id: equipment
                .get(index.as_slice())
                .filter(|e| !e.trim().is_empty())
                .map(|e| e.trim().to_string()),
        });
    }
    Ok(sightings)
}

/// Port names of the table's port keys: arithmetic for ZTE's PON ids, IF-MIB names
/// (one GET for all of them) where the key is the port's ifIndex.
async fn port_names<'a>(
    client: &mut SnmpClient,
    profile: &'static Profile,
    port_key: PortKey,
    indexes: impl Iterator<Item = &'a [u32]>,
) -> Result<BTreeMap<u32, String>, DeviceError> {
    let keys: BTreeSet<u32> = indexes.filter_map(|i| i.first().copied()).collect();
    let mut names = BTreeMap::new();
    match port_key {
        PortKey::PonId(layout) => {
            for key in keys {
                if let Some(name) = layout.port_name(key) {
                    names.insert(key, name);
                }
            }
        }
        PortKey::IfIndex if keys.is_empty() => {}
        PortKey::IfIndex => {
            let column = profile.interface_names.oid();
            let oids: Vec<Vec<u32>> = keys
                .iter()
                .map(|key| column.iter().copied().chain([*key]).collect())
                .collect();
            let wanted: Vec<&[u32]> = oids.iter().map(Vec::as_slice).collect();
            let values = client.get(&wanted).await?;
            for (key, value) in keys.iter().zip(values) {
                let port = value
                    .as_text()
                    .and_then(|name| profile.port_from_if_name(&name).map(str::to_string));
                if let Some(port) = port {
                    names.insert(*key, port);
                }
            }
        }
    }
    Ok(names)
}

fn decode_serial(encoding: UnconfiguredSerial, bytes: &[u8]) -> Option<String> {
    match encoding {
        UnconfiguredSerial::GponBytes if bytes.len() == 8 => Some(format_gpon_serial(bytes)),
        UnconfiguredSerial::GponBytes => None,
        UnconfiguredSerial::GponText => {
            let shown = format_gpon_serial_text(bytes);
            crate::profile::parse_gpon_serial(&shown).map(|_| shown)
        }
        UnconfiguredSerial::DottedMac => {
            let text = String::from_utf8_lossy(bytes);
            parse_mac(text.trim()).map(|mac| format_mac(&mac))
        }
    }
}

/// The inverse of [`decode_serial`] for a MAC, for tests and the simulator.
pub fn dotted(mac: &str) -> Option<String> {
    parse_mac(mac).map(|bytes| dotted_mac(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn seen(port: &str, serial: &str) -> Sighting {
        Sighting {
            pon_port: port.into(),
            serial: serial.into(),
            equipment_id: None,
        }
    }

    #[test]
    fn first_sighting_is_kept_and_gone_onus_leave() {
        let t0 = Utc
            .with_ymd_and_hms(2026, 1, 1, 0, 0, 0)
            .single()
            .expect("time");
        let t1 = t0 + chrono::Duration::minutes(5);
        let mut list = UnconfiguredList::default();
        let new = list.merge(7, vec![seen("0/1/0", "HWTC00000001")], t0);
        assert_eq!(
            new.iter().map(|o| o.serial.as_str()).collect::<Vec<_>>(),
            ["HWTC00000001"]
        );
        let new = list.merge(
            7,
            vec![seen("0/1/0", "HWTC00000001"), seen("0/1/1", "HWTC00000002")],
            t1,
        );
        // Only the newly shown ONU is new (one ONU_DISCOVERED each, not one per poll).
        assert_eq!(
            new.iter().map(|o| o.serial.as_str()).collect::<Vec<_>>(),
            ["HWTC00000002"]
        );
        assert_eq!(new[0].first_seen_at, t1);
        let all = list.all();
        assert_eq!(all.len(), 2);
        assert_eq!((all[0].first_seen_at, all[0].last_seen_at), (t0, t1));
        assert_eq!((all[1].first_seen_at, all[1].last_seen_at), (t1, t1));
        assert_eq!(all[0].olt_id, 7);
        assert!(list
            .merge(7, vec![seen("0/1/1", "HWTC00000002")], t1)
            .is_empty());
        assert!(!list.contains("0/1/0", "HWTC00000001"));
        assert!(list.contains("0/1/1", "HWTC00000002"));
    }

    #[test]
    fn the_list_is_in_port_then_serial_order_with_each_onu_once() {
        let t0 = Utc.timestamp_opt(1_800_000_000, 0).single().expect("time");
        let mut list = UnconfiguredList::default();
        let sightings = vec![
            seen("0/2/0", "ZTEG00000001"),
            seen("0/1/0", "HWTC00000009"),
            seen("0/2/0", "HWTC00000003"),
            Sighting {
                equipment_id: Some("HG8245H".into()),
                ..seen("0/1/0", "HWTC00000009")
            },
        ];
        list.merge(1, sightings, t0);
        assert_eq!(
            list.all()[0].equipment_id.as_deref(),
            Some("HG8245H"),
            "of a sighting listed twice, the later is kept"
        );
        let all: Vec<(String, String)> = list
            .all()
            .into_iter()
            .map(|o| (o.pon_port, o.serial))
            .collect();
        let expected = [
            ("0/1/0", "HWTC00000009"),
            ("0/2/0", "HWTC00000003"),
            ("0/2/0", "ZTEG00000001"),
        ];
        assert_eq!(all.len(), expected.len());
        for ((port, serial), (want_port, want_serial)) in all.iter().zip(expected) {
            assert_eq!((port.as_str(), serial.as_str()), (want_port, want_serial));
        }
        assert!(list.contains("0/2/0", "HWTC00000003"));
        assert!(!list.contains("0/2/0", "HWTC00000009"));
    }

    #[test]
    fn serials_decode_per_encoding() {
        let bytes = [0x48, 0x57, 0x54, 0x43, 0x12, 0x34, 0xAB, 0xCD];
        assert_eq!(
            decode_serial(UnconfiguredSerial::GponBytes, &bytes).as_deref(),
            Some("HWTC1234ABCD")
        );
        assert_eq!(
            decode_serial(UnconfiguredSerial::GponBytes, &bytes[..6]),
            None
        );
        assert_eq!(
            decode_serial(UnconfiguredSerial::DottedMac, b"fcfa.f712.3456").as_deref(),
            Some("fc:fa:f7:12:34:56")
        );
        assert_eq!(
            decode_serial(UnconfiguredSerial::GponText, b"HWTC:1a2b3c4d").as_deref(),
            Some("HWTC1A2B3C4D")
        );
        assert_eq!(
            decode_serial(UnconfiguredSerial::GponText, b"HWTC1a2b"),
            None
        );
        assert_eq!(
            dotted("fc:fa:f7:12:34:56").as_deref(),
            Some("fcfa.f712.3456")
        );
    }
}
