//! The fleet view's serial index: which ONUs hold a serial, in any ASCII case. One entry
//! an ONU, 32 bits of a hash of its lower-cased serial and its id, in a hash table of bare
//! entries: 12 bytes and a control byte each. A map of boxed lower-cased serials to a
//! `Vec` of ids cost about 130 bytes an ONU, a map of hashes to one id or a boxed list
//! about 40 (its 24-byte entries), and a 64-bit hash beside the id 16 bytes an entry
//! (8 MB more at 1.28 M ONUs, docs/benchmarks.md, issue 31, seventh pass). A hash names
//! candidates only; callers compare each candidate row's serial, so two serials that share
//! a hash are still told apart.

use crate::domain::OnuId;
use hashbrown::hash_table::Entry;
use hashbrown::HashTable;
use std::hash::BuildHasher;

/// One ONU's entry: 32 bits of its serial's hash and its id in two halves
/// ([`super::id_halves`]), so that the entry is 12 bytes aligned to four.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Held {
    hash: u32,
    id: [u32; 2],
}

const _: () = assert!(std::mem::size_of::<Held>() == 12);

impl Held {
    fn new(hash: u32, id: OnuId) -> Held {
        Held {
            hash,
            id: super::id_halves(id),
        }
    }

    fn id(self) -> OnuId {
        super::id_of_halves(self.id)
    }
}

/// The table's 64-bit hash of a 32-bit one: hashbrown picks the bucket from the low bits
/// and a tag from the top seven, so the 32 bits go to both ends.
fn spread(hash: u32) -> u64 {
    u64::from(hash) << 32 | u64::from(hash)
}

#[derive(Default)]
pub(super) struct SerialIndex {
    /// Each ONU's entry, once.
    entries: HashTable<Held>,
    hasher: foldhash::fast::RandomState,
}

impl SerialIndex {
    fn key(&self, serial: &str) -> u32 {
        let hash = if serial.bytes().any(|b| b.is_ascii_uppercase()) {
            self.hasher.hash_one(serial.to_ascii_lowercase())
        } else {
            self.hasher.hash_one(serial)
        };
        (hash >> 32) as u32
    }

    pub(super) fn insert(&mut self, serial: &str, id: OnuId) {
        let held = Held::new(self.key(serial), id);
        let entry = self
            .entries
            .entry(spread(held.hash), |&e| e == held, |e| spread(e.hash));
        if let Entry::Vacant(vacant) = entry {
            vacant.insert(held);
        }
    }

    pub(super) fn remove(&mut self, serial: &str, id: OnuId) {
        let held = Held::new(self.key(serial), id);
        if let Ok(entry) = self.entries.find_entry(spread(held.hash), |&e| e == held) {
            entry.remove();
        }
    }

    /// The ONUs that may hold `serial` (any case): every one that does, perhaps others.
    pub(super) fn candidates(&self, serial: &str) -> impl Iterator<Item = OnuId> + '_ {
        let hash = self.key(serial);
        self.entries
            .iter_hash(spread(hash))
            .filter(move |held| held.hash == hash)
            .map(|held| held.id())
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

    #[test]
    fn ids_of_every_width_come_back_whole() {
        let mut index = SerialIndex::default();
        let ids = [
            0,
            1,
            u64::from(u32::MAX),
            1 << 32,
            (7 << 48) | 12_345,
            u64::MAX,
        ];
        for (n, id) in ids.iter().enumerate() {
            index.insert(&format!("SN{n}"), *id);
        }
        for (n, id) in ids.iter().enumerate() {
            assert_eq!(sorted(index.candidates(&format!("sn{n}"))), [*id]);
        }
    }
}
