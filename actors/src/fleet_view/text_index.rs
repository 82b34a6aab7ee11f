//! The fleet view's index for `GET /onus?q=`: substring search in each ONU's serial and
//! description without reading every row. Each ONU gets a slot holding its lower-cased
//! search key (`serial \0 description`, as the OLT actor's own table builds it); every
//! three-character window of a key is a trigram, and each trigram keeps the set of slots
//! whose key contains it, as a roaring bitmap (about two bytes a slot where a trigram is
//! rare, one bit where it is common — a vendor prefix, a street name — instead of four
//! bytes and a growing vector's slack). A needle of three characters or more is looked up
//! by intersecting its trigrams' sets, smallest first, and each candidate is then checked
//! with a plain `contains`, so the answer is exact; a shorter needle reads every key.
//!
//! Keys can also be posted later ([`TextIndex::post_later`]): held at once but put in
//! the trigram lists a batch at a time ([`TextIndex::post_some`]). A
//! start of the service folds in every OLT's snapshot this way, so the counters and lists
//! are there before the ~40 trigram lists of each of a million keys are; until then a
//! search also reads the unposted keys, so it stays exact.

use crate::domain::OnuId;
use roaring::RoaringBitmap;
use std::collections::{HashMap, VecDeque};

/// Trigram → slots. foldhash hashes a trigram in a few instructions where the standard
/// SipHash took dozens, ~40 times per key; its seed is random per process, so crafted
/// descriptions cannot aim at one bucket.
type Postings = HashMap<u64, RoaringBitmap, foldhash::fast::RandomState>;

/// A slot of the index.
pub type Slot = u32;

/// One ONU's key in a slot.
#[derive(Debug)]
struct Entry {
    id: OnuId,
    /// Lower-cased `serial \0 description`.
    key: Box<str>,
    /// Whether the key's trigrams are in the posting lists.
    posted: bool,
}

#[derive(Debug, Default)]
pub struct TextIndex {
    /// Slot → its ONU's key; `None` for a free slot.
    keys: Vec<Option<Entry>>,
    free: Vec<Slot>,
    /// Trigram → the slots whose key contains it.
    postings: Postings,
    /// Slots added unposted, oldest first; a slot freed or posted since is passed over.
    unposted: VecDeque<Slot>,
}

/// How a key is built: defined by the ONU table, whose `q` this index must agree with.
pub use crate::onu_table::search_key;

/// The distinct trigrams of `text`, each packed as three 21-bit characters.
fn trigrams(text: &str) -> Vec<u64> {
    let chars: Vec<char> = text.chars().collect();
    let mut grams: Vec<u64> = chars
        .windows(3)
        .map(|w| (u64::from(w[0]) << 42) | (u64::from(w[1]) << 21) | u64::from(w[2]))
        .collect();
    grams.sort_unstable();
    grams.dedup();
    grams
}

impl TextIndex {
    /// Indexes `key` (already lower-cased) for ONU `id`; returns its slot.
    pub fn insert(&mut self, id: OnuId, key: String) -> Slot {
        let slot = self.hold(id, key);
        self.post(&[slot]);
        slot
    }

    /// Holds `key` for ONU `id` in a slot, searchable at once (read one by one) until
    /// [`Self::post`] or [`Self::post_later`] puts its trigrams in the lists.
    pub fn hold(&mut self, id: OnuId, key: String) -> Slot {
        let slot = self.take_slot();
        let key = key.into_boxed_str();
        let posted = false;
        self.keys[slot as usize] = Some(Entry { id, key, posted });
        slot
    }

    /// Posts the held keys of `slots` when [`Self::post_some`] gets to them.
    pub fn post_later(&mut self, slots: &[Slot]) {
        self.unposted.extend(slots);
    }

    /// Posts the trigrams of up to `max` keys added unposted, oldest first. Returns
    /// whether some are left.
    pub fn post_some(&mut self, max: usize) -> bool {
        let take = self.unposted.len().min(max);
        let batch: Vec<Slot> = self.unposted.drain(..take).collect();
        self.post(&batch);
        !self.unposted.is_empty()
    }

    /// Whether keys added unposted wait for [`Self::post_some`].
    pub fn has_unposted(&self) -> bool {
        !self.unposted.is_empty()
    }

    /// Puts the trigrams of the keys held in `slots` into the posting lists (one OLT's
    /// snapshot or poll at once: the trigrams are sorted first, so one the keys share, a
    /// serial's vendor prefix or a street name, costs one lookup for all of them). Slots
    /// freed or posted already are passed over.
    pub fn post(&mut self, slots: &[Slot]) {
        let mut grams: Vec<(u64, Slot)> = Vec::new();
        for &slot in slots {
            let Some(entry) = self.keys.get_mut(slot as usize).and_then(Option::as_mut) else {
                continue;
            };
            if entry.posted {
                continue;
            }
            entry.posted = true;
            grams.extend(trigrams(&entry.key).into_iter().map(|gram| (gram, slot)));
        }
        grams.sort_unstable();
        for run in grams.chunk_by(|a, b| a.0 == b.0) {
            let set = self.postings.entry(run[0].0).or_default();
            set.extend(run.iter().map(|&(_, slot)| slot));
        }
    }

    fn take_slot(&mut self) -> Slot {
        self.free.pop().unwrap_or_else(|| {
            self.keys.push(None);
            (self.keys.len() - 1) as Slot
        })
    }

    /// Frees `slot` and takes its key out of the index.
    pub fn remove(&mut self, slot: Slot) {
        let Some(entry) = self.keys.get_mut(slot as usize).and_then(Option::take) else {
            return;
        };
        self.free.push(slot);
        if !entry.posted {
            return;
        }
        for gram in trigrams(&entry.key) {
            if let Some(slots) = self.postings.get_mut(&gram) {
                slots.remove(slot);
                if slots.is_empty() {
                    self.postings.remove(&gram);
                }
            }
        }
    }

    /// The key held in `slot`.
    pub fn key(&self, slot: Slot) -> Option<&str> {
        self.keys
            .get(slot as usize)
            .and_then(|k| k.as_ref())
            .map(|entry| &*entry.key)
    }

    /// ONUs whose key contains `needle` (lower-cased), in no particular order.
    pub fn search(&self, needle: &str) -> Vec<OnuId> {
        let matching = |entry: &&Entry| entry.key.contains(needle);
        let grams = trigrams(needle);
        if grams.is_empty() {
            return self
                .keys
                .iter()
                .flatten()
                .filter(matching)
                .map(|e| e.id)
                .collect();
        }
        let mut found = self.unposted_matches(needle);
        let mut sets = Vec::with_capacity(grams.len());
        for gram in &grams {
            match self.postings.get(gram) {
                Some(slots) => sets.push(slots),
                None => return found,
            }
        }
        sets.sort_by_key(|slots| slots.len());
        let (smallest, rest) = sets.split_at(1);
        let mut candidates = smallest[0].clone();
        for other in rest {
            candidates &= *other;
        }
        found.extend(
            candidates
                .iter()
                .filter_map(|slot| self.keys[slot as usize].as_ref())
                .filter(matching)
                .map(|e| e.id),
        );
        found
    }

    /// ONUs whose key, not posted yet, contains `needle`: read one by one.
    fn unposted_matches(&self, needle: &str) -> Vec<OnuId> {
        let mut found: Vec<OnuId> = self
            .unposted
            .iter()
            .filter_map(|&slot| self.keys[slot as usize].as_ref())
            .filter(|e| !e.posted && e.key.contains(needle))
            .map(|e| e.id)
            .collect();
        // A slot freed and taken again while unposted is listed twice.
        found.sort_unstable();
        found.dedup();
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(keys: &[(OnuId, &str, &str)]) -> TextIndex {
        let mut index = TextIndex::default();
        for (id, serial, description) in keys {
            index.insert(*id, search_key(serial, description));
        }
        index
    }

    fn sorted(mut ids: Vec<OnuId>) -> Vec<OnuId> {
        ids.sort_unstable();
        ids
    }

    #[test]
    fn finds_substrings_of_serials_and_descriptions_exactly() {
        let index = index(&[
            (1, "HWTC1A2B3C4D", "Иванов, Ленина 5"),
            (2, "ZTEG00000001", "ivanovka school"),
            (3, "HWTC99990000", "Петров"),
        ]);
        assert_eq!(sorted(index.search("hwtc")), vec![1, 3]);
        assert_eq!(sorted(index.search("иванов")), vec![1]);
        assert_eq!(sorted(index.search("ivanov")), vec![2]);
        assert_eq!(sorted(index.search("1a2b")), vec![1]);
        // Every trigram present, but not as one substring.
        assert_eq!(sorted(index.search("hwtc9999x")), Vec::<OnuId>::new());
        // Short needles read every key.
        assert_eq!(sorted(index.search("в")), vec![1, 3]);
        assert_eq!(sorted(index.search("")), vec![1, 2, 3]);
    }

    #[test]
    fn unposted_keys_are_found_before_and_after_they_are_posted() {
        let mut index = index(&[(1, "HWTC00000001", "Lenina 5")]);
        let later = [
            index.hold(2, search_key("HWTC00000002", "Lenina 7")),
            index.hold(3, search_key("ZTEG00000003", "Mira 1")),
            index.hold(4, search_key("ZTEG00000004", "Lenina 9")),
        ];
        index.post_later(&later);
        assert!(index.has_unposted());
        assert_eq!(sorted(index.search("lenina")), vec![1, 2, 4]);
        assert_eq!(sorted(index.search("zteg")), vec![3, 4]);
        // Freed while unposted, its slot taken again by a key added unposted too.
        index.remove(later[1]);
        let again = index.hold(5, search_key("ZTEG00000005", "Mira 3"));
        index.post_later(&[again]);
        assert_eq!(sorted(index.search("mira")), vec![5]);
        assert!(index.post_some(2), "one of four slots left");
        assert_eq!(sorted(index.search("zteg")), vec![4, 5]);
        assert!(!index.post_some(10));
        assert!(!index.has_unposted());
        assert_eq!(sorted(index.search("zteg")), vec![4, 5]);
        assert_eq!(sorted(index.search("lenina")), vec![1, 2, 4]);
        index.remove(later[0]);
        assert_eq!(sorted(index.search("lenina")), vec![1, 4]);
    }

    #[test]
    fn removed_keys_are_not_found_and_slots_are_reused() {
        let mut index = index(&[(1, "HWTC00000001", "a"), (2, "HWTC00000002", "b")]);
        index.remove(0);
        assert_eq!(sorted(index.search("hwtc")), vec![2]);
        let slot = index.insert(3, search_key("ZTEG00000003", "school"));
        assert_eq!(slot, 0);
        assert_eq!(sorted(index.search("school")), vec![3]);
        assert_eq!(index.key(0), Some("zteg00000003\0school"));
    }
}
