//! A map kept as one vector of pairs sorted by key, for the small values an OLT actor keeps
//! about each of its ONUs beside the table (when its optics are next due, its last stored
//! optics point) and about each of its interfaces (IF-MIB names by ifIndex). An OLT holds
//! at most a few thousand of either, and keys mostly come in increasing order (ids are
//! handed out in order, a walk returns ifIndexes in order), so new keys append; a lookup
//! is a binary search. At the national scale (1.28 M ONUs) a `HashMap` of these took about
//! 50 bytes an ONU (its buckets rounded up to a power of two, then kept below seven eighths
//! full) and a `BTreeMap` of names about 80 an interface; this takes the pair's own size.

use crate::domain::OnuId;

/// What an OLT actor keeps about each of its ONUs, by id.
pub type OnuMap<V> = SortedMap<OnuId, V>;

#[derive(Debug, Clone, PartialEq)]
pub struct SortedMap<K, V> {
    /// Sorted by key, each key once.
    pairs: Vec<(K, V)>,
}

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        SortedMap { pairs: Vec::new() }
    }
}

impl<K: Ord + Copy, V> SortedMap<K, V> {
    fn position(&self, key: K) -> Result<usize, usize> {
        // New keys mostly come last: check the end before searching.
        match self.pairs.last() {
            Some((last, _)) if *last < key => Err(self.pairs.len()),
            _ => self.pairs.binary_search_by_key(&key, |(k, _)| *k),
        }
    }

    pub fn get(&self, key: K) -> Option<&V> {
        let at = self.position(key).ok()?;
        Some(&self.pairs[at].1)
    }

    pub fn get_mut(&mut self, key: K) -> Option<&mut V> {
        let at = self.position(key).ok()?;
        Some(&mut self.pairs[at].1)
    }

    /// Sets `key`'s value; the one it replaced, if any.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.position(key) {
            Ok(at) => Some(std::mem::replace(&mut self.pairs[at].1, value)),
            Err(at) => {
                self.pairs.insert(at, (key, value));
                None
            }
        }
    }

    /// `key`'s value, set from `make` first if it has none.
    pub fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        let at = match self.position(key) {
            Ok(at) => at,
            Err(at) => {
                self.pairs.insert(at, (key, make()));
                at
            }
        };
        &mut self.pairs[at].1
    }

    pub fn remove(&mut self, key: K) -> Option<V> {
        let at = self.position(key).ok()?;
        Some(self.pairs.remove(at).1)
    }

    /// Keeps the pairs `keep` says yes to, and gives back the room of those it dropped.
    pub fn retain(&mut self, mut keep: impl FnMut(K, &V) -> bool) {
        let before = self.pairs.len();
        self.pairs.retain(|(key, value)| keep(*key, value));
        if self.pairs.len() < before {
            self.pairs.shrink_to_fit();
        }
    }

    /// The pairs in key order.
    pub fn iter(&self) -> impl Iterator<Item = (K, &V)> + '_ {
        self.pairs.iter().map(|(key, value)| (*key, value))
    }

    pub fn values(&self) -> impl Iterator<Item = &V> + '_ {
        self.pairs.iter().map(|(_, value)| value)
    }

    /// Gives back the room a map built by insertions grew beyond its pairs: a map that is
    /// kept until the next walk should take only its own size.
    pub fn shrink_to_fit(&mut self) {
        self.pairs.shrink_to_fit();
    }

    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// One step against the map and a `BTreeMap` model.
    #[derive(Debug, Clone)]
    enum Step {
        Insert(OnuId, u32),
        GetOrInsert(OnuId, u32),
        Bump(OnuId),
        Remove(OnuId),
        RetainEven,
    }

    fn step() -> impl Strategy<Value = Step> {
        let id = 0u64..40;
        prop_oneof![
            (id.clone(), any::<u32>()).prop_map(|(id, v)| Step::Insert(id, v)),
            (id.clone(), any::<u32>()).prop_map(|(id, v)| Step::GetOrInsert(id, v)),
            id.clone().prop_map(Step::Bump),
            id.prop_map(Step::Remove),
            Just(Step::RetainEven),
        ]
    }

    proptest! {
        /// Whatever the order of the steps, the map answers as an ordered map does.
        #[test]
        fn it_answers_as_an_ordered_map(steps in prop::collection::vec(step(), 0..120)) {
            let mut map = OnuMap::default();
            let mut model: BTreeMap<OnuId, u32> = BTreeMap::new();
            for step in steps {
                match step {
                    Step::Insert(id, v) => {
                        prop_assert_eq!(map.insert(id, v), model.insert(id, v));
                    }
                    Step::GetOrInsert(id, v) => {
                        let got = *map.get_or_insert_with(id, || v);
                        prop_assert_eq!(got, *model.entry(id).or_insert(v));
                    }
                    Step::Bump(id) => {
                        if let Some(v) = map.get_mut(id) {
                            *v = v.wrapping_add(1);
                        }
                        if let Some(v) = model.get_mut(&id) {
                            *v = v.wrapping_add(1);
                        }
                    }
                    Step::Remove(id) => prop_assert_eq!(map.remove(id), model.remove(&id)),
                    Step::RetainEven => {
                        map.retain(|_, v| v % 2 == 0);
                        model.retain(|_, v| *v % 2 == 0);
                    }
                }
                let pairs: Vec<(OnuId, u32)> = map.iter().map(|(id, v)| (id, *v)).collect();
                let expected: Vec<(OnuId, u32)> = model.iter().map(|(id, v)| (*id, *v)).collect();
                prop_assert_eq!(pairs, expected);
                prop_assert_eq!(map.len(), model.len());
            }
            for id in 0..40 {
                prop_assert_eq!(map.get(id), model.get(&id));
            }
        }
    }
}
