//! The walked ONU columns joined into rows by row index: each row's packed key
//! ([`row_key`]), its index and its cells by field. A walk returns each column in row
//! order, and on most devices every column lists the same rows, so the columns are
//! joined in one pass each, like sorted lists; a column out of order (an index shape
//! that packs out of its OID order) falls back to sorting every cell by key.

use super::placing::index_text;
use super::row_key;
use crate::profile::{OnuColumn, OnuField, Profile};
use crate::snmp::{ColumnEntry, SnmpValue};
use std::collections::BTreeSet;

/// One table row's values by field (see [`field_slot`]); a fixed array instead of a map,
/// as this runs for every ONU of every poll.
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) struct RowBuilder<'a> {
    values: [Option<&'a SnmpValue>; FIELDS],
}

const FIELDS: usize = 13;

fn field_slot(field: OnuField) -> usize {
    match field {
        OnuField::Serial => 0,
        OnuField::Description => 1,
        OnuField::Status => 2,
        OnuField::Distance => 3,
        OnuField::DownCause => 4,
        OnuField::RxPower => 5,
        OnuField::TxPower => 6,
        OnuField::OltRxPower => 7,
        OnuField::Temperature => 8,
        OnuField::Voltage => 9,
        OnuField::BiasCurrent => 10,
        OnuField::PonChannel => 11,
        OnuField::OnuNumber => 12,
    }
}

impl<'a> RowBuilder<'a> {
    pub(super) fn get(&self, field: OnuField) -> Option<&'a SnmpValue> {
        self.values[field_slot(field)]
    }

    fn set(&mut self, slot: usize, value: &'a SnmpValue) {
        self.values[slot] = Some(value);
    }
}

/// One row of the walked table: its packed key, its index and its cells.
pub(super) type TableRow<'a> = (u128, &'a [u32], RowBuilder<'a>);

/// The walked cells grouped into rows, in row order, and the indexes of cells of no
/// known shape. Of two cells of one column at one row, the later is kept; a row's index
/// is the one its first column in the profile's order gave.
pub(super) fn table_rows<'a>(
    profile: &Profile,
    table: &'a [Vec<ColumnEntry>],
) -> (Vec<TableRow<'a>>, BTreeSet<String>) {
    let mut rows: Vec<TableRow> = Vec::new();
    // Rows a column lists that the columns before it did not: joined in after it.
    let mut added: Vec<TableRow> = Vec::new();
    let mut odd = BTreeSet::new();
    for (column, entries) in profile.onu_columns.iter().zip(table) {
        let slot = field_slot(column.field);
        let mut at = 0;
        let mut last = None;
        for (instance, value) in entries {
            let Some((key, index)) = row_of(column, instance, &mut odd) else {
                continue;
            };
            if last.is_some_and(|last| key < last) {
                return sorted_rows(profile, table);
            }
            last = Some(key);
            while rows.get(at).is_some_and(|row| row.0 < key) {
                at += 1;
            }
            match (rows.get_mut(at), added.last_mut()) {
                (Some(row), _) if row.0 == key => row.2.set(slot, value),
                (_, Some(row)) if row.0 == key => row.2.set(slot, value),
                _ => {
                    let mut row = RowBuilder::default();
                    row.set(slot, value);
                    added.push((key, index, row));
                }
            }
        }
        if !added.is_empty() {
            // Stable, and no key is in both: the rows stay one per key, in key order.
            rows.append(&mut added);
            rows.sort_by_key(|row| row.0);
        }
    }
    (rows, odd)
}

/// The packed key and the index of the row `column`'s `instance` is in; `None`, with the
/// instance noted in `odd`, for an index of no known shape.
fn row_of<'a>(
    column: &OnuColumn,
    instance: &'a [u32],
    odd: &mut BTreeSet<String>,
) -> Option<(u128, &'a [u32])> {
    let row = column
        .row_index(instance)
        .and_then(|index| Some((row_key(index)?, index)));
    if row.is_none() {
        odd.insert(index_text(instance));
    }
    row
}

/// [`table_rows`] for columns in any order: every cell keyed by its row, then sorted
/// (stably, so that the columns' order and each column's own order decide).
fn sorted_rows<'a>(
    profile: &Profile,
    table: &'a [Vec<ColumnEntry>],
) -> (Vec<TableRow<'a>>, BTreeSet<String>) {
    let mut cells: Vec<(u128, &[u32], usize, &SnmpValue)> =
        Vec::with_capacity(table.iter().map(Vec::len).sum());
    let mut odd = BTreeSet::new();
    for (column, entries) in profile.onu_columns.iter().zip(table) {
        for (instance, value) in entries {
            let Some((key, index)) = row_of(column, instance, &mut odd) else {
                continue;
            };
            cells.push((key, index, field_slot(column.field), value));
        }
    }
    cells.sort_by_key(|cell| cell.0);
    let mut rows: Vec<TableRow> = Vec::new();
    for (key, index, slot, value) in cells {
        match rows.last_mut() {
            Some((last, _, row)) if *last == key => row.set(slot, value),
            _ => {
                let mut row = RowBuilder::default();
                row.set(slot, value);
                rows.push((key, index, row));
            }
        }
    }
    (rows, odd)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::HUAWEI;
    use crate::snmp::RowIndex;
    use proptest::prelude::*;

    /// A column's instances at rows `0/1/n` (`[4194312448, n]`) from `rows`, each with a
    /// value naming its column and place, and now and then an index of no known shape.
    fn column(i: usize, rows: &[(u32, bool)]) -> Vec<ColumnEntry> {
        rows.iter()
            .enumerate()
            .map(|(n, &(row, odd))| {
                let index: RowIndex = match odd {
                    false => [4194312448, row].into_iter().collect(),
                    true => [1, 2, 3, 4, 5].into_iter().collect(),
                };
                (index, SnmpValue::Integer((i * 1000 + n) as i64))
            })
            .collect()
    }

    proptest! {
        /// Columns in row order (with gaps, extra rows and repeated rows) or in any order:
        /// the join gives what sorting every cell gives.
        #[test]
        fn the_join_gives_what_sorting_gives(
            columns in proptest::collection::vec(
                proptest::collection::vec((0u32..40, proptest::bool::weighted(0.05)), 0..30),
                1..=HUAWEI.onu_columns.len(),
            ),
            ordered in proptest::collection::vec(proptest::bool::weighted(0.85), 16),
        ) {
            let table: Vec<Vec<ColumnEntry>> = columns
                .into_iter()
                .enumerate()
                .map(|(i, mut rows)| {
                    if ordered[i] {
                        rows.sort();
                    }
                    column(i, &rows)
                })
                .collect();
            let (joined, odd) = table_rows(&HUAWEI, &table);
            let (sorted, sorted_odd) = sorted_rows(&HUAWEI, &table);
            prop_assert_eq!(odd, sorted_odd);
            prop_assert_eq!(joined, sorted);
        }
    }
}
