//! The fleet view's serial index: which ONUs hold a serial, in any ASCII case. One entry
//! an ONU, the pair of a 64-bit hash of its lower-cased serial and its id, in a hash table
//! of bare entries: 16 bytes and a control byte each. A map of boxed lower-cased serials
//! to a `Vec` of ids cost about 130 bytes an ONU, and a map of hashes to one id or a boxed
//! list about 40 (its 24-byte entries). A hash names candidates only; callers compare each
//! candidate row's serial, so two serials that share a hash are still told apart.

use crate::domain::OnuId;
use hashbrown::hash_table::Entry;
use hashbrown::HashTable;
use std::hash::BuildHasher;

#[derive(Default)]
pub(super) struct SerialIndex {
    /// (hash of the lower-cased serial, ONU id), each pair once.
    entries: HashTable<(u64, OnuId)>,
    hasher: foldhash::fast::RandomState,
}

impl SerialIndex {
    fn key(&self, serial: &str) -> u64 {
        if serial.bytes().any(|b| b.is_ascii_uppercase()) {
            self.hasher.hash_one(serial.to_ascii_lowercase())
        } else {
            self.hasher.hash_one(serial)
        }
    }

    pub(super) fn insert(&mut self, serial: &str, id: OnuId) {
        let hash = self.key(serial);
        let entry = self
            .entries
            .entry(hash, |&entry| entry == (hash, id), |&(hash, _)| hash);
        if let Entry::Vacant(vacant) = entry {
            vacant.insert((hash, id));
        }
    }

    pub(super) fn remove(&mut self, serial: &str, id: OnuId) {
        let hash = self.key(serial);
        if let Ok(entry) = self.entries.find_entry(hash, |&entry| entry == (hash, id)) {
            entry.remove();
        }
    }

    /// The ONUs that may hold `serial` (any case): every one that does, perhaps others.
    pub(super) fn candidates(&self, serial: &str) -> impl Iterator<Item = OnuId> + '_ {
        let hash = self.key(serial);
        self.entries
            .iter_hash(hash)
            .filter(move |(held, _)| *held == hash)
            .map(|(_, id)| *id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(ids: impl Iterator<Item = OnuId>) -> Vec<OnuId> {
        let mut ids: Vec<OnuId> = ids.collect();
        ids.sort_unstable();
        ids
    }

    #[test]
    fn serials_are_found_in_any_case_and_leave_when_removed() {
        let mut index = SerialIndex::default();
        index.insert("HWTC0001", 1);
        index.insert("hwtc0001", 2);
        index.insert("ZTEG0002", 3);
        index.insert("ZTEG0002", 3);
        assert_eq!(sorted(index.candidates("hwTC0001")), [1, 2]);
        assert_eq!(sorted(index.candidates("zteg0002")), [3]);
        assert!(sorted(index.candidates("ZTEG0003")).is_empty());
        index.remove("HWTC0001", 1);
        assert_eq!(sorted(index.candidates("HWTC0001")), [2]);
        index.remove("HWTC0001", 7);
        assert_eq!(sorted(index.candidates("HWTC0001")), [2]);
        index.remove("hwtc0001", 2);
        assert!(sorted(index.candidates("HWTC0001")).is_empty());
        assert_eq!(index.entries.len(), 1, "removed pairs leave the table");
    }
}
