//! The fleet view's index for `GET /onus?q=`: substring search in each ONU's serial and
//! description without reading every row. Each ONU gets a slot; the lower-cased search
//! key (`serial \0 description`, as the OLT actor's own table builds it) is not kept:
//! the view builds it from the row when a slot is posted or taken out, and checks a
//! candidate against its row ([`crate::onu_table::key_contains`]), so the index costs
//! nine bytes a slot besides its trigram sets, where holding the keys cost about eighty.
//! Every three-character window of a key is a trigram, and each trigram keeps the set of
//! slots whose key contains it, as a roaring bitmap (about two bytes a slot where a
//! trigram is rare, one bit where it is common — a vendor prefix, a street name). A
//! needle of three characters or more is looked up by intersecting its trigrams' sets,
//! smallest first, and each candidate is then checked whole, so the answer is exact; a
//! shorter needle checks every slot.
//!
//! Slots can also be posted later ([`TextIndex::post_later`]): held at once but put in
//! the trigram lists a batch at a time ([`TextIndex::next_unposted`], then
//! [`TextIndex::post`]). A start of the service folds in every OLT's snapshot this way,
//! so the counters and lists are there before the ~40 trigram lists of each of a million
//! keys are; until then a search also checks the unposted slots, so it stays exact.

use crate::domain::OnuId;
use roaring::RoaringBitmap;
use std::collections::{HashMap, VecDeque};

/// Trigram → slots. foldhash hashes a trigram in a few instructions where the standard
/// SipHash took dozens, ~40 times per key; its seed is random per process, so crafted
/// descriptions cannot aim at one bucket.
type Postings = HashMap<u64, RoaringBitmap, foldhash::fast::RandomState>;

/// A slot of the index.
pub type Slot = u32;

/// What a slot holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Free,
    /// An ONU whose key is not in the trigram lists yet.
    Held,
    /// An ONU whose key's trigrams are in the lists.
    Posted,
}

#[derive(Debug, Default)]
pub struct TextIndex {
    /// Slot → its ONU (meaningless for a free slot).
    ids: Vec<OnuId>,
    states: Vec<State>,
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
    /// Indexes `key` (already lower-cased) for ONU `id` at once; returns its slot.
    pub fn insert(&mut self, id: OnuId, key: String) -> Slot {
        let slot = self.hold(id);
        self.post(vec![(slot, key)]);
        slot
    }

    /// Gives ONU `id` a slot, searchable at once (checked one by one) until
    /// [`Self::post`] puts its key's trigrams in the lists.
    pub fn hold(&mut self, id: OnuId) -> Slot {
        let slot = self.free.pop().unwrap_or_else(|| {
            self.ids.push(0);
            self.states.push(State::Free);
            (self.ids.len() - 1) as Slot
        });
        self.ids[slot as usize] = id;
        self.states[slot as usize] = State::Held;
        slot
    }

    /// The ONU held in `slot` if its key is not posted yet: the slots a caller builds
    /// keys for before [`Self::post`].
    pub fn unposted_id(&self, slot: Slot) -> Option<OnuId> {
        (self.states.get(slot as usize) == Some(&State::Held)).then(|| self.ids[slot as usize])
    }

    /// Leaves `slots` to be posted later ([`Self::next_unposted`]).
    pub fn post_later(&mut self, slots: &[Slot]) {
        self.unposted.extend(slots);
    }

    /// Up to `max` of the slots left for later, oldest first, with their ONUs: the keys
    /// the caller builds for [`Self::post`]. Slots freed or posted since are passed over.
    pub fn next_unposted(&mut self, max: usize) -> Vec<(Slot, OnuId)> {
        let take = self.unposted.len().min(max);
        let batch: Vec<Slot> = self.unposted.drain(..take).collect();
        batch
            .into_iter()
            .filter_map(|slot| Some((slot, self.unposted_id(slot)?)))
            .collect()
    }

    /// Whether slots left for later wait for [`Self::next_unposted`].
    pub fn has_unposted(&self) -> bool {
        !self.unposted.is_empty()
    }

    /// Puts each slot's `key` (its ONU's, lower-cased) into the trigram lists: one OLT's
    /// snapshot or poll at once, the trigrams sorted first, so one the keys share (a
    /// serial's vendor prefix, a street name) costs one lookup for all of them. Slots
    /// freed or posted already are passed over.
    pub fn post(&mut self, keyed: Vec<(Slot, String)>) {
        let mut grams: Vec<(u64, Slot)> = Vec::new();
        for (slot, key) in keyed {
            if self.unposted_id(slot).is_none() {
                continue;
            }
            self.states[slot as usize] = State::Posted;
            grams.extend(trigrams(&key).into_iter().map(|gram| (gram, slot)));
        }
        grams.sort_unstable();
        for run in grams.chunk_by(|a, b| a.0 == b.0) {
            let set = self.postings.entry(run[0].0).or_default();
            set.extend(run.iter().map(|&(_, slot)| slot));
        }
    }

    /// Frees `slot`; `key` is the one it was posted with (its ONU's row's, unchanged
    /// since), whose trigrams leave the lists.
    pub fn remove(&mut self, slot: Slot, key: &str) {
        let Some(state) = self.states.get_mut(slot as usize) else {
            return;
        };
        let was = std::mem::replace(state, State::Free);
        if was == State::Free {
            return;
        }
        self.free.push(slot);
        if was == State::Held {
            return;
        }
        for gram in trigrams(key) {
            if let Some(slots) = self.postings.get_mut(&gram) {
                slots.remove(slot);
                if slots.is_empty() {
                    self.postings.remove(&gram);
                }
            }
        }
    }

    /// The ONU in `slot`.
    pub fn id(&self, slot: Slot) -> Option<OnuId> {
        (self.states.get(slot as usize)? != &State::Free).then(|| self.ids[slot as usize])
    }

    /// The ONUs whose key contains `needle` (lower-cased), in no particular order:
    /// `contains` checks one ONU's key, each candidate once.
    pub fn search(&self, needle: &str, contains: impl Fn(OnuId) -> bool) -> Vec<OnuId> {
        let grams = trigrams(needle);
        if grams.is_empty() {
            return self.held_ids().filter(|&id| contains(id)).collect();
        }
        let mut found = self.unposted_matches(&contains);
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
                .filter(|&slot| self.states[slot as usize] == State::Posted)
                .map(|slot| self.ids[slot as usize])
                .filter(|&id| contains(id)),
        );
        found
    }

    /// Every ONU held, posted or not.
    fn held_ids(&self) -> impl Iterator<Item = OnuId> + '_ {
        self.ids
            .iter()
            .zip(&self.states)
            .filter(|(_, state)| **state != State::Free)
            .map(|(id, _)| *id)
    }

    /// ONUs whose key, not posted yet, `contains` accepts: checked one by one.
    fn unposted_matches(&self, contains: &impl Fn(OnuId) -> bool) -> Vec<OnuId> {
        let mut found: Vec<OnuId> = self
            .unposted
            .iter()
            .filter_map(|&slot| self.unposted_id(slot))
            .filter(|&id| contains(id))
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

    /// The index and the keys its caller builds from the rows.
    #[derive(Default)]
    struct Keyed {
        index: TextIndex,
        keys: HashMap<OnuId, String>,
    }

    impl Keyed {
        fn of(rows: &[(OnuId, &str, &str)]) -> Keyed {
            let mut keyed = Keyed::default();
            for (id, serial, description) in rows {
                keyed.insert(*id, serial, description);
            }
            keyed
        }

        fn insert(&mut self, id: OnuId, serial: &str, description: &str) -> Slot {
            let key = search_key(serial, description);
            self.keys.insert(id, key.clone());
            self.index.insert(id, key)
        }

        fn hold(&mut self, id: OnuId, serial: &str, description: &str) -> Slot {
            self.keys.insert(id, search_key(serial, description));
            self.index.hold(id)
        }

        fn remove(&mut self, slot: Slot) {
            let id = self.index.id(slot).expect("a held slot");
            let key = self.keys.remove(&id).expect("its key");
            self.index.remove(slot, &key);
        }

        /// Posts up to `max` slots left for later; whether some are left.
        fn post_some(&mut self, max: usize) -> bool {
            let batch = self.index.next_unposted(max);
            let keyed = batch
                .into_iter()
                .map(|(slot, id)| (slot, self.keys[&id].clone()))
                .collect();
            self.index.post(keyed);
            self.index.has_unposted()
        }

        fn search(&self, needle: &str) -> Vec<OnuId> {
            let mut ids = self.index.search(needle, |id| {
                self.keys.get(&id).is_some_and(|k| k.contains(needle))
            });
            ids.sort_unstable();
            ids
        }
    }

    #[test]
    fn finds_substrings_of_serials_and_descriptions_exactly() {
        let index = Keyed::of(&[
            (1, "HWTC1A2B3C4D", "Иванов, Ленина 5"),
            (2, "ZTEG00000001", "ivanovka school"),
            (3, "HWTC99990000", "Петров"),
        ]);
        assert_eq!(index.search("hwtc"), vec![1, 3]);
        assert_eq!(index.search("иванов"), vec![1]);
        assert_eq!(index.search("ivanov"), vec![2]);
        assert_eq!(index.search("1a2b"), vec![1]);
        // Every trigram present, but not as one substring.
        assert_eq!(index.search("hwtc9999x"), Vec::<OnuId>::new());
        // Short needles check every slot.
        assert_eq!(index.search("в"), vec![1, 3]);
        assert_eq!(index.search(""), vec![1, 2, 3]);
    }

    #[test]
    fn unposted_slots_are_found_before_and_after_they_are_posted() {
        let mut index = Keyed::of(&[(1, "HWTC00000001", "Lenina 5")]);
        let later = [
            index.hold(2, "HWTC00000002", "Lenina 7"),
            index.hold(3, "ZTEG00000003", "Mira 1"),
            index.hold(4, "ZTEG00000004", "Lenina 9"),
        ];
        index.index.post_later(&later);
        assert!(index.index.has_unposted());
        assert_eq!(index.search("lenina"), vec![1, 2, 4]);
        assert_eq!(index.search("zteg"), vec![3, 4]);
        // Freed while unposted, its slot taken again by an ONU added unposted too.
        index.remove(later[1]);
        let again = index.hold(5, "ZTEG00000005", "Mira 3");
        assert_eq!(again, later[1]);
        index.index.post_later(&[again]);
        assert_eq!(index.search("mira"), vec![5]);
        assert!(index.post_some(2), "one of four slots left");
        assert_eq!(index.search("zteg"), vec![4, 5]);
        assert!(!index.post_some(10));
        assert!(!index.index.has_unposted());
        assert_eq!(index.search("zteg"), vec![4, 5]);
        assert_eq!(index.search("lenina"), vec![1, 2, 4]);
        index.remove(later[0]);
        assert_eq!(index.search("lenina"), vec![1, 4]);
    }

    #[test]
    fn removed_slots_leave_the_lists_and_are_reused() {
        let mut index = Keyed::of(&[(1, "HWTC00000001", "a"), (2, "HWTC00000002", "b")]);
        index.remove(0);
        assert_eq!(index.search("hwtc"), vec![2]);
        assert!(
            index
                .index
                .postings
                .values()
                .all(|slots| !slots.contains(0)),
            "slot 0 is in no list"
        );
        let slot = index.insert(3, "ZTEG00000003", "school");
        assert_eq!(slot, 0);
        assert_eq!(index.index.id(0), Some(3));
        assert_eq!(index.search("school"), vec![3]);
        assert_eq!(index.search("hwtc"), vec![2]);
    }
}
