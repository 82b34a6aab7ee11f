//! What a poll remembers of the ONU table's rows between reads. A poll that reads only
//! the status group learns each row's run state by its row index, and nothing else: the
//! [`RowMap`] says which ONU a row index stood for when its identity was last read, and
//! [`Fill`] hands the decoder, row by row ([`RowRead`]), that ONU's last reading and
//! which groups this poll read for the row, so the fields it did not read keep their
//! values instead of turning `null`.

use crate::domain::{Onu, OnuId};
use std::collections::HashSet;

/// Row index (packed, [`super::row_key`]) ↔ ONU id, for one OLT. Two sorted vectors: 24
/// bytes an ONU each way, where a pair of hash maps would take about three times that.
#[derive(Debug, Clone, Default)]
pub struct RowMap {
    by_row: Vec<(u128, OnuId)>,
    by_onu: Vec<(OnuId, u128)>,
}

impl RowMap {
    /// The map of `pairs` (row, ONU); a row named twice keeps its last ONU.
    pub fn new(pairs: impl IntoIterator<Item = (u128, OnuId)>) -> RowMap {
        let mut by_row: Vec<(u128, OnuId)> = pairs.into_iter().collect();
        by_row.sort_by_key(|&(row, _)| row);
        by_row.dedup_by(|later, earlier| {
            let same = later.0 == earlier.0;
            if same {
                earlier.1 = later.1;
            }
            same
        });
        let mut by_onu: Vec<(OnuId, u128)> = by_row.iter().map(|&(row, id)| (id, row)).collect();
        by_onu.sort_unstable();
        RowMap { by_row, by_onu }
    }

    /// The ONU row `row` stood for.
    pub fn onu(&self, row: u128) -> Option<OnuId> {
        let i = self.by_row.binary_search_by_key(&row, |&(r, _)| r).ok()?;
        Some(self.by_row[i].1)
    }

    /// The row of ONU `id`.
    pub fn row(&self, id: OnuId) -> Option<u128> {
        let i = self.by_onu.binary_search_by_key(&id, |&(o, _)| o).ok()?;
        Some(self.by_onu[i].1)
    }

    /// Every row, in order.
    pub fn rows(&self) -> impl Iterator<Item = u128> + '_ {
        self.by_row.iter().map(|&(row, _)| row)
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
}
