//! What a poll remembers of the ONU table's rows between reads. A poll that reads only
//! the status group learns each row's run state by its row index, and nothing else: the
//! [`RowMap`] says which ONU a row index stood for when its identity was last read, and
//! [`Fill`] hands the decoder, row by row ([`RowRead`]), that ONU's last reading and
//! which groups this poll read for the row, so the fields it did not read keep their
//! values instead of turning `null`.

use crate::domain::{Onu, OnuId};
use std::collections::HashSet;

/// Row index (packed, [`super::row_key`]) ↔ ONU id, for one OLT: the pairs sorted by
/// row, and their positions sorted by ONU. A row key's high half names its shape (and,
/// for three arcs or an Eltex serial, its first arc), so sorted rows share it in long
/// runs: each run's high half is kept once, and a pair holds the low half and the ONU.
/// 16 bytes a pair and 4 for the ONU order, 20 bytes an ONU both ways, where pairs of
/// full keys took 28 and two sorted vectors of `u128` pairs 64.
#[derive(Debug, Clone, Default)]
pub struct RowMap {
    /// (row's low half, ONU), sorted by row.
    by_row: Vec<(u64, OnuId)>,
    /// (high half, first position in `by_row` with it), one per run, in order.
    runs: Vec<(u64, u32)>,
    /// Positions in `by_row`, sorted by ONU.
    by_onu: Vec<u32>,
}

fn halves(row: u128) -> (u64, u64) {
    ((row >> 64) as u64, row as u64)
}

fn joined(high: u64, low: u64) -> u128 {
    (u128::from(high) << 64) | u128::from(low)
}

impl RowMap {
    /// The map of `pairs` (row, ONU); a row named twice keeps its last ONU.
    pub fn new(pairs: impl IntoIterator<Item = (u128, OnuId)>) -> RowMap {
        let mut rows: Vec<(u128, OnuId)> = pairs.into_iter().collect();
        // Stable: of two pairs with one row, the later stays last and is kept.
        rows.sort_by_key(|&(row, _)| row);
        rows.dedup_by(|later, earlier| {
            let same = later.0 == earlier.0;
            if same {
                earlier.1 = later.1;
            }
            same
        });
        let mut runs: Vec<(u64, u32)> = Vec::new();
        let mut by_row = Vec::with_capacity(rows.len());
        for (position, &(row, id)) in rows.iter().enumerate() {
            let (high, low) = halves(row);
            if runs.last().is_none_or(|&(last, _)| last != high) {
                runs.push((high, position as u32));
            }
            by_row.push((low, id));
        }
        runs.shrink_to_fit();
        let mut by_onu: Vec<u32> = (0..by_row.len() as u32).collect();
        by_onu.sort_unstable_by_key(|&i| by_row[i as usize].1);
        RowMap {
            by_row,
            runs,
            by_onu,
        }
    }

    /// The positions of `by_row` in run `run`.
    fn run_range(&self, run: usize) -> std::ops::Range<usize> {
        let end = self
            .runs
            .get(run + 1)
            .map_or(self.by_row.len(), |&(_, start)| start as usize);
        self.runs[run].1 as usize..end
    }

    /// The positions of `by_row` whose high half is `high`.
    fn run_of(&self, high: u64) -> Option<std::ops::Range<usize>> {
        let run = self.runs.binary_search_by_key(&high, |&(h, _)| h).ok()?;
        Some(self.run_range(run))
    }

    /// The high half of the row at `position`.
    fn high_at(&self, position: usize) -> u64 {
        let run = self
            .runs
            .partition_point(|&(_, start)| start as usize <= position);
        self.runs[run - 1].0
    }

    /// The ONU row `row` stood for.
    pub fn onu(&self, row: u128) -> Option<OnuId> {
        let (high, low) = halves(row);
        let run = self.run_of(high)?;
        let rows = &self.by_row[run];
        let i = rows.binary_search_by_key(&low, |&(low, _)| low).ok()?;
        Some(rows[i].1)
    }

    /// The row of ONU `id`.
    pub fn row(&self, id: OnuId) -> Option<u128> {
        let i = self
            .by_onu
            .binary_search_by_key(&id, |&i| self.by_row[i as usize].1)
            .ok()?;
        let position = self.by_onu[i] as usize;
        Some(joined(self.high_at(position), self.by_row[position].0))
    }

    /// Every (row, ONU) pair, in row order.
    pub fn pairs(&self) -> impl Iterator<Item = (u128, OnuId)> + '_ {
        self.runs.iter().enumerate().flat_map(|(run, &(high, _))| {
            self.by_row[self.run_range(run)]
                .iter()
                .map(move |&(low, id)| (joined(high, low), id))
        })
    }

    /// Every row, in order.
    pub fn rows(&self) -> impl Iterator<Item = u128> + '_ {
        self.pairs().map(|(row, _)| row)
    }

    pub fn len(&self) -> usize {
        self.by_row.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_row.is_empty()
    }
}

/// What the decoder fills a poll's rows with. The default is a poll that read every
/// group for every row.
#[derive(Default)]
pub struct Fill<'a> {
    /// The rows' ONUs at the last read (the table's rows, in id order); `None` when
    /// nothing is remembered.
    pub previous: Option<(&'a RowMap, &'a [Onu])>,
    /// Rows whose identity this poll read; `None` means every row.
    pub identity: Option<&'a HashSet<u128>>,
    /// Rows whose optics this poll read; `None` means every row.
    pub optics: Option<&'a HashSet<u128>>,
}

/// A row index as one integer that sorts as the arcs do among indexes of one shape: one,
/// two or three arcs, or a slot and an 8-octet serial (Eltex LTP-8X); `None` for any
/// other shape. The one- and two-arc forms are those stored before the others existed.
pub fn row_key(index: &[u32]) -> Option<u128> {
    match *index {
        [a] => Some((1 << 64) | u128::from(a)),
        [a, b] => Some((2 << 64) | (u128::from(a) << 32) | u128::from(b)),
        [a, b, c] => {
            Some((3 << 96) | (u128::from(a) << 64) | (u128::from(b) << 32) | u128::from(c))
        }
        [slot, ref serial @ ..] if serial.len() == 8 && slot < 1 << 24 => {
            let mut packed = (1u128 << 127) | (u128::from(slot) << 64);
            for (i, &octet) in serial.iter().enumerate() {
                packed |= u128::from(u8::try_from(octet).ok()?) << (8 * (7 - i));
            }
            Some(packed)
        }
        _ => None,
    }
}

/// The arcs of a packed row index ([`row_key`]).
pub fn row_arcs(row: u128) -> Vec<u32> {
    if row >> 127 == 1 {
        let mut arcs = vec![(row >> 64) as u32 & 0x00FF_FFFF];
        arcs.extend((0..8).map(|i| (row >> (8 * (7 - i))) as u32 & 0xFF));
        return arcs;
    }
    match row >> 64 {
        1 => vec![row as u32],
        2 => vec![(row >> 32) as u32, row as u32],
        _ => vec![(row >> 64) as u32, (row >> 32) as u32, row as u32],
    }
}

/// What [`Fill`] says of one row.
#[derive(Clone, Copy)]
pub struct RowRead<'a> {
    /// The ONU the row stood for, as last read.
    pub previous: Option<&'a Onu>,
    pub identity: bool,
    pub optics: bool,
}

impl<'a> Fill<'a> {
    /// What is known and was read of row `row`.
    pub fn row(&self, row: u128) -> RowRead<'a> {
        let previous = self
            .previous
            .and_then(|(rows, onus)| onu_by_id(onus, rows.onu(row)?));
        RowRead {
            previous,
            identity: self.identity.is_none_or(|read| read.contains(&row)),
            optics: self.optics.is_none_or(|read| read.contains(&row)),
        }
    }
}

/// ONU `id` of `onus` (in id order, as the ONU table keeps them).
pub fn onu_by_id(onus: &[Onu], id: OnuId) -> Option<&Onu> {
    let i = onus.binary_search_by_key(&id, |o| o.id).ok()?;
    Some(&onus[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_rows_unpack_to_their_arcs() {
        let shapes: [&[u32]; 6] = [
            &[7],
            &[268_501_248, 3],
            &[u32::MAX, 0],
            &[2, 1, 64],
            &[1, 0x45, 0x4C, 0x54, 0x58, 0x01, 0x02, 0xFE, 0xFF],
            &[u32::MAX, u32::MAX, u32::MAX],
        ];
        let mut keys = Vec::new();
        for arcs in shapes {
            let row = row_key(arcs).expect("a known shape");
            assert_eq!(row_arcs(row), arcs);
            keys.push(row);
        }
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), shapes.len(), "no two shapes share a key");
        assert_eq!(
            row_key(&[1, 0x45, 0x4C, 0x54, 0x58, 0x01, 0x02, 0xFE, 256]),
            None
        );
        assert_eq!(row_key(&[1, 2, 3, 4]), None);
        assert!(row_key(&[1, 2, 3]) < row_key(&[1, 2, 4]));
    }

    #[test]
    fn rows_and_onus_find_each_other_and_a_reused_row_keeps_its_last_onu() {
        let map = RowMap::new([(30, 3), (10, 1), (20, 2), (10, 7)]);
        assert_eq!(map.len(), 3);
        assert_eq!(map.onu(10), Some(7));
        assert_eq!(map.onu(20), Some(2));
        assert_eq!(map.onu(40), None);
        assert_eq!(map.row(3), Some(30));
        assert_eq!(map.row(7), Some(10));
        assert_eq!(map.row(1), None);
    }

    #[test]
    fn keys_of_every_shape_keep_both_halves_and_their_order() {
        let shapes: [&[u32]; 4] = [&[7], &[4_194_304_000, 12], &[1, 2, 3], &[u32::MAX, 1]];
        let keys: Vec<u128> = shapes.iter().filter_map(|s| row_key(s)).collect();
        assert_eq!(keys.len(), 4);
        let map = RowMap::new(keys.iter().rev().copied().zip([40, 30, 20, 10]));
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        assert_eq!(map.rows().collect::<Vec<_>>(), sorted);
        let pairs: Vec<(u128, OnuId)> = sorted
            .iter()
            .filter_map(|&k| Some((k, map.onu(k)?)))
            .collect();
        assert_eq!(pairs.len(), 4);
        assert_eq!(map.pairs().collect::<Vec<_>>(), pairs);
        for (key, onu) in keys.iter().zip([10, 20, 30, 40]) {
            assert_eq!(map.onu(*key), Some(onu));
            assert_eq!(map.row(onu), Some(*key));
        }
        assert_eq!(map.onu(keys[0] ^ (1 << 64)), None);
        assert_eq!(map.onu(keys[3] + 1), None, "a low half absent from its run");
    }

    #[test]
    fn rows_sharing_a_high_half_are_one_run() {
        let keys: Vec<u128> = (0..50u32)
            .map(|n| row_key(&[n / 10, n % 10, 7]).expect("three arcs"))
            .chain((0..5).map(|n| row_key(&[n]).expect("one arc")))
            .collect();
        let map = RowMap::new(keys.iter().copied().zip(100..));
        assert_eq!(
            map.runs.len(),
            6,
            "five first arcs of three-arc rows, one of one-arc rows"
        );
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        assert_eq!(map.rows().collect::<Vec<_>>(), sorted);
        for (key, onu) in keys.iter().zip(100..) {
            assert_eq!(map.onu(*key), Some(onu));
            assert_eq!(map.row(onu), Some(*key));
        }
    }
}
