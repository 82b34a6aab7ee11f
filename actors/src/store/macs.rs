//! The MACs behind ONUs: per (MAC, ONU) pair the first and last time a read saw it and
//! the VLAN it was learnt in, in the `macs` tree keyed MAC then ONU id, so a lookup by
//! MAC or by a prefix of one is a range scan. `onu_macs` (ONU id then MAC) lists one
//! ONU's MACs, and `mac_reads` holds when each ONU's MACs were last read: a pair is
//! active when that read saw it. A read that finds a MAC behind an ONU it was not
//! behind in the ONU's last read, while the MAC's newest other sighting is behind
//! another ONU, is a move ([`MacMove`], the event `MAC_MOVED`). Writes run on the
//! blocking pool; housekeeping drops pairs not seen for `macs.retention`.

use super::{Store, StoreError};
use crate::domain::OnuId;
use crate::macs::{Mac, MacMove, MacOwner, MacQuery, MacRead};
use chrono::{DateTime, TimeZone, Utc};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

pub(super) const MACS: &str = "macs";
pub(super) const ONU_MACS: &str = "onu_macs";
pub(super) const MAC_READS: &str = "mac_reads";

/// One (MAC, ONU) pair as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MacRecord {
    pub owner: MacOwner,
    /// Records written before VLANs could be unknown hold a number, which reads as
    /// `Some`.
    pub vlan: Option<u16>,
    pub first_seen: DateTime<Utc>,
    pub last_seen: DateTime<Utc>,
}

/// A stored pair and whether the last read of its ONU saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct MacEntry {
    pub mac: Mac,
    pub record: MacRecord,
    pub active: bool,
}

fn pair_key(mac: &Mac, onu: OnuId) -> [u8; 14] {
    let mut key = [0u8; 14];
    key[..6].copy_from_slice(&mac.0);
    key[6..].copy_from_slice(&onu.to_be_bytes());
    key
}

fn onu_key(onu: OnuId, mac: &Mac) -> [u8; 14] {
    let mut key = [0u8; 14];
    key[..8].copy_from_slice(&onu.to_be_bytes());
    key[8..].copy_from_slice(&mac.0);
    key
}

fn decode(key: &[u8], value: &[u8]) -> Result<(Mac, MacRecord), StoreError> {
    let mac: [u8; 6] = key
        .get(..6)
        .and_then(|k| k.try_into().ok())
        .ok_or_else(|| StoreError::Corrupt {
            tree: MACS,
            key: format!("{key:02x?}"),
            reason: "key shorter than a MAC".into(),
        })?;
    let record = serde_json::from_slice(value).map_err(|source| StoreError::Decode {
        tree: MACS,
        key: format!("{key:02x?}"),
        source,
    })?;
    Ok((Mac(mac), record))
}

impl Store {
    /// Records one read; returns the MACs it saw move to another ONU.
    pub fn record_macs(&self, read: &MacRead) -> Result<Vec<MacMove>, StoreError> {
        self.writable()?;
        let owners: HashMap<OnuId, &MacOwner> = read.covered.iter().map(|o| (o.onu, o)).collect();
        let mut before: HashMap<OnuId, Option<DateTime<Utc>>> = HashMap::new();
        for owner in &read.covered {
            before.insert(owner.onu, self.mac_read_at(owner.onu)?);
            let seconds = read.at.timestamp().to_be_bytes();
            self.mac_reads.insert(owner.onu.to_be_bytes(), &seconds)?;
        }
        let mut moves = Vec::new();
        for &(onu, mac, vlan) in &read.seen {
            let Some(owner) = owners.get(&onu) else {
                continue;
            };
            let key = pair_key(&mac, onu);
            let existing = match self.macs.get(key)? {
                Some(value) => Some(decode(&key, &value)?.1),
                None => None,
            };
            let previous_read = before.get(&onu).copied().flatten();
            let was_there = existing
                .as_ref()
                .is_some_and(|r| Some(r.last_seen) >= previous_read && previous_read.is_some());
            if !was_there {
                if let Some(from) = self.newest_elsewhere(&mac, onu)? {
                    moves.push(MacMove {
                        mac,
                        from,
                        to: onu,
                        vlan,
                        at: read.at,
                        owner: (*owner).clone(),
                    });
                }
            }
            let record = MacRecord {
                owner: (*owner).clone(),
                vlan,
                first_seen: existing.map_or(read.at, |r| r.first_seen),
                last_seen: read.at,
            };
            let value = serde_json::to_vec(&record).map_err(|source| StoreError::Decode {
                tree: MACS,
                key: mac.to_string(),
                source,
            })?;
            self.macs.insert(key, value)?;
            self.onu_macs.insert(onu_key(onu, &mac), &[])?;
        }
        Ok(moves)
    }

    /// The ONU other than `onu` that `mac` was last seen behind, if any.
    fn newest_elsewhere(&self, mac: &Mac, onu: OnuId) -> Result<Option<OnuId>, StoreError> {
        let mut newest: Option<(DateTime<Utc>, OnuId)> = None;
        for item in self.macs.scan_prefix(mac.0) {
            let (key, value) = item?;
            let (_, record) = decode(&key, &value)?;
            if record.owner.onu != onu && newest.is_none_or(|(at, _)| record.last_seen > at) {
                newest = Some((record.last_seen, record.owner.onu));
            }
        }
        Ok(newest.map(|(_, onu)| onu))
    }

    /// When ONU `onu`'s MACs were last read.
    pub fn mac_read_at(&self, onu: OnuId) -> Result<Option<DateTime<Utc>>, StoreError> {
        Ok(self
            .mac_reads
            .get(onu.to_be_bytes())?
            .and_then(|v| <[u8; 8]>::try_from(v.as_ref()).ok())
            .and_then(|b| Utc.timestamp_opt(i64::from_be_bytes(b), 0).single()))
    }

    fn entry(&self, mac: Mac, record: MacRecord) -> Result<MacEntry, StoreError> {
        let read = self.mac_read_at(record.owner.onu)?;
        let active = read.is_some_and(|at| record.last_seen >= at);
        Ok(MacEntry {
            mac,
            record,
            active,
        })
    }

    /// ONU `onu`'s MACs, active ones first, then the most recently seen.
    pub fn macs_of_onu(&self, onu: OnuId) -> Result<Vec<MacEntry>, StoreError> {
        let mut entries = Vec::new();
        for key in self.onu_macs.scan_prefix(onu.to_be_bytes()).keys() {
            let key = key?;
            let Some(mac) = key.get(8..14).and_then(|m| <[u8; 6]>::try_from(m).ok()) else {
                continue;
            };
            let pair = pair_key(&Mac(mac), onu);
            if let Some(value) = self.macs.get(pair)? {
                let (mac, record) = decode(&pair, &value)?;
                entries.push(self.entry(mac, record)?);
            }
        }
        entries.sort_by(|a, b| {
            (b.active, b.record.last_seen, a.mac).cmp(&(a.active, a.record.last_seen, b.mac))
        });
        Ok(entries)
    }

    /// Every pair whose MAC `query` matches, newest sighting first; at most `limit`.
    pub fn find_macs(&self, query: &MacQuery, limit: usize) -> Result<Vec<MacEntry>, StoreError> {
        let mut entries = Vec::new();
        for item in self.macs.scan_prefix(query.leading_bytes()) {
            let (key, value) = item?;
            let (mac, record) = decode(&key, &value)?;
            if query.matches(&mac) {
                entries.push(self.entry(mac, record)?);
            }
            if entries.len() >= limit {
                break;
            }
        }
        entries.sort_by(|a, b| {
            (b.record.last_seen, a.mac, a.record.owner.onu).cmp(&(
                a.record.last_seen,
                b.mac,
                b.record.owner.onu,
            ))
        });
        Ok(entries)
    }

    /// Drops pairs last seen before `before`; returns how many went.
    pub fn prune_macs(&self, before: DateTime<Utc>) -> Result<usize, StoreError> {
        let mut removed = 0;
        for item in self.macs.iter() {
            let (key, value) = item?;
            let Ok((mac, record)) = decode(&key, &value) else {
                continue;
            };
            if record.last_seen < before {
                self.macs.remove(&key)?;
                self.onu_macs.remove(onu_key(record.owner.onu, &mac))?;
                removed += 1;
            }
        }
        Ok(removed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner(onu: OnuId) -> MacOwner {
        MacOwner {
            onu,
            olt: 1,
            pon_port: "0/1/0".into(),
            serial: format!("HWTC{onu:08X}"),
        }
    }

    fn read(at: i64, covered: &[OnuId], seen: &[(OnuId, Mac)]) -> MacRead {
        MacRead {
            at: Utc.timestamp_opt(at, 0).single().expect("time"),
            covered: covered.iter().map(|&o| owner(o)).collect(),
            seen: seen.iter().map(|&(o, m)| (o, m, Some(100))).collect(),
        }
    }

    #[test]
    fn a_mac_that_changes_onu_is_a_move_and_both_onus_are_kept() {
        let dir = tempfile::tempdir().expect("dir");
        let store = Store::open(dir.path()).expect("store");
        let mac = Mac([2, 0, 0, 0, 0, 1]);
        let other = Mac([2, 0, 0, 0, 0, 2]);
        let moves = store
            .record_macs(&read(1000, &[1, 2], &[(1, mac), (2, other)]))
            .expect("first");
        assert!(moves.is_empty());
        // Seen again behind the same ONU: no move.
        let moves = store.record_macs(&read(1100, &[1, 2], &[(1, mac), (2, other)]));
        assert!(moves.expect("again").is_empty());
        let moves = store
            .record_macs(&read(1200, &[1, 2], &[(2, mac), (2, other)]))
            .expect("moved");
        assert_eq!(moves.len(), 1);
        assert_eq!((moves[0].from, moves[0].to), (1, 2));
        let found = store
            .find_macs(&MacQuery::parse(&mac.to_string()).expect("query"), 100)
            .expect("find");
        let onus: Vec<(OnuId, bool)> = found
            .iter()
            .map(|e| (e.record.owner.onu, e.active))
            .collect();
        assert_eq!(onus, [(2, true), (1, false)]);
        assert_eq!(found[1].record.first_seen.timestamp(), 1000);
        let prefix = store
            .find_macs(&MacQuery::parse("02:00:00").expect("prefix"), 100)
            .expect("prefix");
        assert_eq!(prefix.len(), 3);
        assert_eq!(store.macs_of_onu(1).expect("onu 1").len(), 1);
        assert!(!store.macs_of_onu(1).expect("onu 1")[0].active);
        let cut = Utc.timestamp_opt(1150, 0).single().expect("time");
        assert_eq!(store.prune_macs(cut).expect("prune"), 1);
        assert!(store.macs_of_onu(1).expect("onu 1").is_empty());
    }
}
