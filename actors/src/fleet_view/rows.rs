//! The fleet view's ONU rows: each row stored once in a slab (a freed place is taken by
//! the next new row) and ordered by id through a map of small entries. A `BTreeMap`
//! holding the ~240-byte rows themselves keeps its nodes about half full after the
//! in-order inserts of a start, which cost about 200 bytes an ONU of nothing; here the
//! map's entries are 12 bytes and the slab grows by pages it touches only when filled.

use crate::domain::OnuId;
use std::collections::BTreeMap;

/// Rows of type `T` by ONU id.
pub(super) struct Rows<T> {
    slab: Vec<Option<T>>,
    free: Vec<u32>,
    by_id: BTreeMap<OnuId, u32>,
}

impl<T> Default for Rows<T> {
    fn default() -> Self {
        Rows {
            slab: Vec::new(),
            free: Vec::new(),
            by_id: BTreeMap::new(),
        }
    }
}

impl<T> Rows<T> {
    pub(super) fn len(&self) -> usize {
        self.by_id.len()
    }

    pub(super) fn get(&self, id: &OnuId) -> Option<&T> {
        let place = *self.by_id.get(id)?;
        self.slab[place as usize].as_ref()
    }

    /// Puts `row` in as ONU `id`'s, replacing the one it had.
    pub(super) fn insert(&mut self, id: OnuId, row: T) {
        if let Some(&place) = self.by_id.get(&id) {
            self.slab[place as usize] = Some(row);
            return;
        }
        let place = match self.free.pop() {
            Some(place) => {
                self.slab[place as usize] = Some(row);
                place
            }
            None => {
                self.slab.push(Some(row));
                (self.slab.len() - 1) as u32
            }
        };
        self.by_id.insert(id, place);
    }

    pub(super) fn remove(&mut self, id: &OnuId) -> Option<T> {
        let place = self.by_id.remove(id)?;
        self.free.push(place);
        self.slab[place as usize].take()
    }

    /// Every row, by id.
    pub(super) fn values(&self) -> impl Iterator<Item = &T> + '_ {
        self.by_id
            .values()
            .filter_map(|&place| self.slab[place as usize].as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::Rows;

    #[test]
    fn rows_come_back_by_id_and_freed_places_are_reused() {
        let mut rows = Rows::default();
        for id in [30, 10, 20] {
            rows.insert(id, format!("row {id}"));
        }
        rows.insert(20, "row 20, changed".to_string());
        assert_eq!(rows.len(), 3);
        assert_eq!(
            rows.values().collect::<Vec<_>>(),
            ["row 10", "row 20, changed", "row 30"]
        );
        assert_eq!(rows.remove(&10).as_deref(), Some("row 10"));
        assert_eq!(rows.remove(&10), None);
        rows.insert(5, "row 5".to_string());
        assert_eq!(rows.slab.len(), 3, "the freed place was taken");
        rows.insert(30, "row 30!".to_string());
        assert_eq!(rows.get(&30).map(String::as_str), Some("row 30!"));
        assert_eq!(rows.slab.len(), 3, "a replaced row keeps its place");
        assert_eq!(
            rows.values().collect::<Vec<_>>(),
            ["row 5", "row 20, changed", "row 30!"]
        );
        assert_eq!(rows.get(&10), None);
    }
}
