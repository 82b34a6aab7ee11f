//! The fleet view's serial index: which ONUs hold a serial, in any ASCII case. Keyed by a
//! 64-bit hash of the lower-cased serial rather than by the serial itself, with one holder
//! kept inline: a map of boxed lower-cased serials to a `Vec` of ids cost about 130 bytes
//! an ONU (two allocations and the map's slack), this one about 40. A hash names
//! candidates only; callers compare each candidate row's serial, so two serials that
//! share a hash are still told apart.

use crate::domain::OnuId;
use std::collections::HashMap;
use std::hash::BuildHasher;

/// The ONUs under one hash: nearly always one.
// The boxed Vec keeps a holder at 16 bytes, where a Vec in place would make every one of
// the million entries 32 for the rare serial that two ONUs share.
#[allow(clippy::box_collection)]
enum Holders {
    One(OnuId),
    Many(Box<Vec<OnuId>>),
}

impl Holders {
    fn as_slice(&self) -> &[OnuId] {
        match self {
            Holders::One(id) => std::slice::from_ref(id),
            Holders::Many(ids) => ids,
        }
    }
}

#[derive(Default)]
pub(super) struct SerialIndex {
    holders: HashMap<u64, Holders, foldhash::fast::RandomState>,
}

impl SerialIndex {
    fn key(&self, serial: &str) -> u64 {
        let hasher = self.holders.hasher();
        if serial.bytes().any(|b| b.is_ascii_uppercase()) {
            hasher.hash_one(serial.to_ascii_lowercase())
        } else {
            hasher.hash_one(serial)
        }
    }

    pub(super) fn insert(&mut self, serial: &str, id: OnuId) {
        let key = self.key(serial);
        match self.holders.get_mut(&key) {
            None => {
                self.holders.insert(key, Holders::One(id));
            }
            Some(Holders::One(other)) => {
                let other = *other;
                self.holders
                    .insert(key, Holders::Many(Box::new(vec![other, id])));
            }
            Some(Holders::Many(ids)) => ids.push(id),
        }
    }

    pub(super) fn remove(&mut self, serial: &str, id: OnuId) {
        let key = self.key(serial);
        let Some(holders) = self.holders.get_mut(&key) else {
            return;
        };
        match holders {
            Holders::One(other) if *other == id => {
                self.holders.remove(&key);
            }
            Holders::One(_) => {}
            Holders::Many(ids) => {
                ids.retain(|&other| other != id);
                if let [last] = ids.as_slice() {
                    *holders = Holders::One(*last);
                }
            }
        }
    }

    /// The ONUs that may hold `serial` (any case): every one that does, perhaps others.
    pub(super) fn candidates(&self, serial: &str) -> &[OnuId] {
        self.holders
            .get(&self.key(serial))
            .map_or(&[], Holders::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serials_are_found_in_any_case_and_leave_when_removed() {
        let mut index = SerialIndex::default();
        index.insert("HWTC0001", 1);
        index.insert("hwtc0001", 2);
        index.insert("ZTEG0002", 3);
        assert_eq!(index.candidates("hwTC0001"), &[1, 2]);
        assert_eq!(index.candidates("zteg0002"), &[3]);
        assert!(index.candidates("ZTEG0003").is_empty());
        index.remove("HWTC0001", 1);
        assert_eq!(index.candidates("HWTC0001"), &[2]);
        index.remove("HWTC0001", 7);
        assert_eq!(index.candidates("HWTC0001"), &[2]);
        index.remove("hwtc0001", 2);
        assert!(index.candidates("HWTC0001").is_empty());
        assert!(index.holders.len() == 1, "emptied hashes leave the map");
    }
}
