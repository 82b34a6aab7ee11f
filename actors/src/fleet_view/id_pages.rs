//! The fleet view's map from ONU id to a small value (where the ONU's row is), in pages of
//! 64 consecutive ids. ONU ids come from one service-wide sequence, so the ids held at any
//! time are nearly consecutive and a page is nearly full: a national fleet's 1.28 M places
//! take about 14 bytes each here, where a `BTreeMap` took about 40 (its nodes' slack and
//! per-node headers). A lookup is one B-tree step over the pages (one per 64 ids) and an
//! index into the page; iteration is in id order.

use crate::domain::OnuId;
use std::collections::BTreeMap;

const PAGE: u64 = 64;

/// Ids `number * 64 ..` to `.. + 63`: which are present, and their values.
struct Page<V> {
    present: u64,
    values: [V; PAGE as usize],
}

pub(super) struct IdPages<V> {
    pages: BTreeMap<u64, Box<Page<V>>>,
    len: usize,
}

impl<V> Default for IdPages<V> {
    fn default() -> Self {
        IdPages {
            pages: BTreeMap::new(),
            len: 0,
        }
    }
}

/// The page number of `id`, and its bit and index in the page.
fn split(id: OnuId) -> (u64, u64, usize) {
    let at = id % PAGE;
    (id / PAGE, 1 << at, at as usize)
}

impl<V: Copy + Default> IdPages<V> {
    pub(super) fn len(&self) -> usize {
        self.len
    }

    pub(super) fn get(&self, id: OnuId) -> Option<&V> {
        let (number, bit, at) = split(id);
        let page = self.pages.get(&number)?;
        (page.present & bit != 0).then(|| &page.values[at])
    }

    pub(super) fn get_mut(&mut self, id: OnuId) -> Option<&mut V> {
        let (number, bit, at) = split(id);
        let page = self.pages.get_mut(&number)?;
        (page.present & bit != 0).then(|| &mut page.values[at])
    }

    /// Sets `id`'s value; the one it replaced, if any.
    pub(super) fn insert(&mut self, id: OnuId, value: V) -> Option<V> {
        let (number, bit, at) = split(id);
        let page = self.pages.entry(number).or_insert_with(|| {
            Box::new(Page {
                present: 0,
                values: [V::default(); PAGE as usize],
            })
        });
        let old = std::mem::replace(&mut page.values[at], value);
        if page.present & bit != 0 {
            return Some(old);
        }
        page.present |= bit;
        self.len += 1;
        None
    }

    /// Takes `id` out; a page left empty is freed.
    pub(super) fn remove(&mut self, id: OnuId) -> Option<V> {
        let (number, bit, at) = split(id);
        let page = self.pages.get_mut(&number)?;
        if page.present & bit == 0 {
            return None;
        }
        page.present &= !bit;
        let value = page.values[at];
        if page.present == 0 {
            self.pages.remove(&number);
        }
        self.len -= 1;
        Some(value)
    }

    /// The values in id order.
    pub(super) fn values(&self) -> impl Iterator<Item = &V> + '_ {
        self.pages.values().flat_map(|page| {
            let mut left = page.present;
            std::iter::from_fn(move || {
                (left != 0).then(|| {
                    let at = left.trailing_zeros() as usize;
                    left &= left - 1;
                    &page.values[at]
                })
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Step {
        Insert(OnuId, u32),
        Remove(OnuId),
    }

    fn step() -> impl Strategy<Value = Step> {
        // Ids cluster (as the service hands them out) with a few far away, around page
        // edges and the top of the range.
        let id = prop_oneof![
            4 => 0u64..300,
            1 => (u64::MAX - 130)..=u64::MAX,
            1 => any::<u64>(),
        ];
        prop_oneof![
            3 => (id.clone(), any::<u32>()).prop_map(|(id, v)| Step::Insert(id, v)),
            2 => id.prop_map(Step::Remove),
        ]
    }

    proptest! {
        /// After any inserts and removals the pages answer as a `BTreeMap` does, and
        /// iterate in its order; emptied pages are freed.
        #[test]
        fn answers_as_a_btree_map(steps in proptest::collection::vec(step(), 0..400)) {
            let mut pages = IdPages::default();
            let mut model = BTreeMap::new();
            for step in steps {
                match step {
                    Step::Insert(id, v) => prop_assert_eq!(pages.insert(id, v), model.insert(id, v)),
                    Step::Remove(id) => prop_assert_eq!(pages.remove(id), model.remove(&id)),
                }
                prop_assert_eq!(pages.len(), model.len());
            }
            for (id, v) in &model {
                prop_assert_eq!(pages.get(*id), Some(v));
            }
            prop_assert_eq!(pages.get(301), model.get(&301));
            let values: Vec<u32> = pages.values().copied().collect();
            let expected: Vec<u32> = model.values().copied().collect();
            prop_assert_eq!(values, expected);
            prop_assert!(pages.pages.values().all(|page| page.present != 0));
        }
    }

    #[test]
    fn get_mut_changes_only_present_ids() {
        let mut pages = IdPages::default();
        pages.insert(70, 1u32);
        if let Some(v) = pages.get_mut(70) {
            *v = 5;
        }
        assert_eq!(pages.get(70), Some(&5));
        assert_eq!(pages.get_mut(71), None);
        assert_eq!(
            pages.get(71),
            None,
            "a neighbour in the page is still absent"
        );
    }
}
