//! An OLT's ONU table, owned by its OLT actor: the ONUs in id order, an index by serial
//! and the last stored optics point of each ONU. Merging a poll yields the state changes
//! and optics points to persist; queries of one OLT's ONUs (`GET /olts/{id}/onus`) filter
//! and order in place. Fleet-wide questions go to the fleet view, whose indexes are built
//! for them, so this table keeps no search keys: an OLT holds at most a few thousand
//! ONUs, and lower-casing each one's text for a `q` costs less than holding it.

use crate::domain::{
    DownCause, OltId, Onu, OnuId, OnuStateChange, OnuStatus, OpticsLevel, OpticsPoint,
    OpticsThresholds,
};
use crate::poller::PolledOnu;
use crate::sorted_map::OnuMap;
use chrono::{DateTime, Utc};
use last_point::LastPoint;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

mod last_point;
mod text;
pub use text::{key_contains, search_key};

/// Which ONUs a query wants. Text filters are matched case-insensitively.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OnuFilter {
    pub status: Option<OnuStatus>,
    pub pon_port: Option<String>,
    /// Exact serial.
    pub serial: Option<String>,
    /// Substring of the serial or the description.
    pub text: Option<String>,
    pub level: Option<OpticsLevel>,
}

/// Order of a query's results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnuOrder {
    /// By ONU id, ascending.
    Id,
    /// Worst (lowest) Rx power first; ONUs without a reading last; then by id.
    WorstRx,
}

impl OnuOrder {
    pub fn compare(self, a: &Onu, b: &Onu) -> Ordering {
        match self {
            OnuOrder::Id => a.id.cmp(&b.id),
            OnuOrder::WorstRx => match (a.rx_power.get(), b.rx_power.get()) {
                (Some(x), Some(y)) => x.total_cmp(&y).then(a.id.cmp(&b.id)),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => a.id.cmp(&b.id),
            },
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct OnuQuery {
    pub filter: OnuFilter,
    pub order: OnuOrder,
    /// How many of the first matches (in `order`) to return.
    pub limit: usize,
    pub thresholds: OpticsThresholds,
}

/// The first `limit` matches and how many matched in all.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OnuPage {
    pub total: usize,
    pub onus: Vec<Onu>,
}

/// What a merge asks the store to keep.
#[derive(Debug, Default)]
pub struct MergeReport {
    pub state_changes: Vec<(OnuId, OnuStateChange)>,
    pub optics: Vec<(OnuId, OpticsPoint)>,
    /// Whether the table changed in anything but the time of the poll (an ONU appeared,
    /// vanished or changed a field): only then does the stored table need rewriting.
    pub table_changed: bool,
}

#[derive(Clone, Default)]
pub struct OnuTable {
    onus: Arc<Vec<Onu>>,
    /// Positions in `onus`, sorted by serial ignoring ASCII case (4 bytes an ONU, where a
    /// map of lower-cased serials took about 70).
    by_serial: Vec<u32>,
    /// Whether no two rows share a serial (any ASCII case): then a row found at a guessed
    /// position is the one [`OnuTable::position_of`] would find.
    serials_unique: bool,
    /// When and at which level each ONU's last optics point was stored.
    last_point: OnuMap<LastPoint>,
    /// Time of the last merged poll: ONUs with this `last_update` were in it.
    polled_at: Option<DateTime<Utc>>,
}

impl OnuTable {
    /// A table loaded from the store (its ONUs in any order). The latest `last_update`
    /// is taken as the time of the last merged poll.
    pub fn new(mut onus: Vec<Onu>) -> OnuTable {
        onus.sort_by_key(|o| o.id);
        let polled_at = onus.iter().map(|o| o.last_update).max();
        let mut table = OnuTable {
            onus: Arc::new(onus),
            polled_at,
            ..OnuTable::default()
        };
        table.reindex();
        table
    }

    /// Time of the last merged poll.
    pub fn polled_at(&self) -> Option<DateTime<Utc>> {
        self.polled_at
    }

    fn reindex(&mut self) {
        let onus = &self.onus;
        let mut by_serial: Vec<u32> = (0..onus.len() as u32).collect();
        // Stable: of two rows with one serial the later stays last, and is the one found.
        by_serial.sort_by(|&a, &b| {
            cmp_ignoring_case(&onus[a as usize].serial, &onus[b as usize].serial)
        });
        self.serials_unique = by_serial.windows(2).all(|pair| {
            !onus[pair[0] as usize]
                .serial
                .eq_ignore_ascii_case(&onus[pair[1] as usize].serial)
        });
        self.by_serial = by_serial;
    }

    /// The position in `onus` of the ONU with `serial` (any ASCII case).
    fn position_of(&self, serial: &str) -> Option<usize> {
        let after = self.by_serial.partition_point(|&i| {
            cmp_ignoring_case(&self.onus[i as usize].serial, serial) != Ordering::Greater
        });
        let last = *self.by_serial.get(after.checked_sub(1)?)? as usize;
        self.onus[last]
            .serial
            .eq_ignore_ascii_case(serial)
            .then_some(last)
    }

    /// [`OnuTable::position_of`], trying the row at `*guess` first, and `*guess` moved
    /// past the row found. A poll lists an OLT's ONUs in the order of their rows, which is
    /// the order of their ids, so the row after the last one found is nearly always the
    /// next: one comparison instead of a binary search through the serial index.
    fn position_near(&self, serial: &str, guess: &mut usize) -> Option<usize> {
        let found = match self.onus.get(*guess) {
            Some(onu) if self.serials_unique && onu.serial.eq_ignore_ascii_case(serial) => {
                Some(*guess)
            }
            _ => self.position_of(serial),
        };
        if let Some(i) = found {
            *guess = i + 1;
        }
        found
    }

    /// The id of the ONU with `serial` (any ASCII case), looked for at `*guess` first
    /// ([`OnuTable::position_near`]): for a poll's serials, in their order.
    pub fn id_near(&self, serial: &str, guess: &mut usize) -> Option<OnuId> {
        Some(self.onus[self.position_near(serial, guess)?].id)
    }

    pub fn all(&self) -> Arc<Vec<Onu>> {
        self.onus.clone()
    }

    pub fn len(&self) -> usize {
        self.onus.len()
    }

    pub fn is_empty(&self) -> bool {
        self.onus.is_empty()
    }

    pub fn online(&self) -> usize {
        self.onus
            .iter()
            .filter(|o| o.status == OnuStatus::Online)
            .count()
    }

    /// ONU `id`, borrowed.
    pub fn get_ref(&self, id: OnuId) -> Option<&Onu> {
        crate::poller::onu_by_id(&self.onus, id)
    }

    pub fn get(&self, id: OnuId) -> Option<Onu> {
        self.get_ref(id).cloned()
    }

    /// Changes one ONU in place; the ONU as changed, or `None` if there is no such ONU.
    pub fn update(&mut self, id: OnuId, change: impl FnOnce(&mut Onu)) -> Option<Onu> {
        let i = self.onus.binary_search_by_key(&id, |o| o.id).ok()?;
        let onus = Arc::make_mut(&mut self.onus);
        change(&mut onus[i]);
        let updated = onus[i].clone();
        self.reindex();
        Some(updated)
    }

    /// Takes ONU `id` out of the table (it was removed from the device); its history in
    /// the store stays, and its id is never given to another ONU.
    pub fn remove(&mut self, id: OnuId) -> Option<Onu> {
        let i = self.onus.binary_search_by_key(&id, |o| o.id).ok()?;
        let removed = Arc::make_mut(&mut self.onus).remove(i);
        self.last_point.remove(id);
        self.reindex();
        Some(removed)
    }

    /// Sets each ONU's service VLAN from a running configuration's (port, ONU number) →
    /// VLAN map; ONUs the map does not name get none. `true` if anything changed.
    pub fn set_vlans(&mut self, vlans: &HashMap<(String, u32), u16>) -> bool {
        let changed = self
            .onus
            .iter()
            .any(|o| vlans.get(&(o.pon_port.to_string(), o.onu_index)).copied() != o.vlan);
        if changed {
            for onu in Arc::make_mut(&mut self.onus).iter_mut() {
                onu.vlan = vlans
                    .get(&(onu.pon_port.to_string(), onu.onu_index))
                    .copied();
            }
        }
        changed
    }

    /// Merges a good poll. ONUs the device no longer lists are kept, offline, with their
    /// last data. `allocate` gives the stable id of an ONU seen for the first time.
    pub fn merge(
        &mut self,
        olt_id: OltId,
        polled: Vec<PolledOnu>,
        now: DateTime<Utc>,
        thresholds: &OpticsThresholds,
        history_step: Duration,
        mut allocate: impl FnMut(&str) -> Option<OnuId>,
    ) -> MergeReport {
        let mut report = MergeReport::default();
        let (mut table, seen) = self.polled_rows(olt_id, polled, now, &mut allocate, &mut report);
        self.keep_unseen(&seen, now, &mut table, &mut report);
        if !table.is_sorted_by_key(|o| o.id) {
            table.sort_by_key(|o| o.id);
        }
        self.due_optics_points(&table, now, thresholds, history_step, &mut report);
        self.install(table, now, &mut report);
        report
    }

    /// The polled ONUs as rows of the new table, and which rows of the current table the
    /// poll listed. A polled ONU keeps its id and VLAN; a new one gets its id from
    /// `allocate`, and is left out when there is none.
    fn polled_rows(
        &self,
        olt_id: OltId,
        polled: Vec<PolledOnu>,
        now: DateTime<Utc>,
        allocate: &mut impl FnMut(&str) -> Option<OnuId>,
        report: &mut MergeReport,
    ) -> (Vec<Onu>, Vec<bool>) {
        let mut seen = vec![false; self.onus.len()];
        let mut table = Vec::with_capacity(polled.len().max(self.onus.len()));
        let mut guess = 0;
        for reading in polled {
            let known = self.position_near(&reading.serial, &mut guess);
            let previous = known.map(|i| &self.onus[i]);
            let Some(id) = previous.map(|o| o.id).or_else(|| allocate(&reading.serial)) else {
                continue;
            };
            if let Some(i) = known {
                seen[i] = true;
            }
            let changed = previous.is_none_or(|p| {
                p.status != reading.status || p.last_down_cause != reading.last_down_cause
            });
            if changed {
                report.state_changes.push((
                    id,
                    OnuStateChange {
                        at: now,
                        status: reading.status,
                        cause: reading.last_down_cause,
                    },
                ));
            }
            report.table_changed |=
                previous.is_none_or(|p| row_differs(p, &reading, self.polled_at));
            let kept = Kept {
                vlan: previous.and_then(|p| p.vlan),
                optics_at: previous.and_then(|p| p.optics_at),
            };
            table.push(polled_row(id, olt_id, kept, reading, now));
        }
        (table, seen)
    }

    /// Adds to `table` the ONUs of the current table the poll did not list (`seen` is
    /// parallel to the current table): an online one goes offline, cause unknown.
    fn keep_unseen(
        &self,
        seen: &[bool],
        now: DateTime<Utc>,
        table: &mut Vec<Onu>,
        report: &mut MergeReport,
    ) {
        for (onu, _) in self.onus.iter().zip(seen).filter(|(_, seen)| !**seen) {
            let mut kept = onu.clone();
            // It was in the previous poll and is not in this one.
            report.table_changed |= Some(kept.last_update) == self.polled_at;
            if kept.status == OnuStatus::Online {
                report.table_changed = true;
                kept.status = OnuStatus::Offline;
                kept.last_down_cause = Some(DownCause::Unknown);
                report.state_changes.push((
                    kept.id,
                    OnuStateChange {
                        at: now,
                        status: OnuStatus::Offline,
                        cause: kept.last_down_cause,
                    },
                ));
            }
            table.push(kept);
        }
    }

    /// The optics points to store for the ONUs whose optics were read `now`: one whose
    /// level changed, or whose last point is `history_step` old or older (or has none).
    fn due_optics_points(
        &mut self,
        table: &[Onu],
        now: DateTime<Utc>,
        thresholds: &OpticsThresholds,
        history_step: Duration,
        report: &mut MergeReport,
    ) {
        // Only ONUs whose optics this poll read: a status-only poll has nothing to store.
        for onu in table.iter().filter(|o| o.optics_at == Some(now)) {
            let level = thresholds.level(onu.rx_power.get());
            let due = match self.last_point.get(onu.id) {
                None => true,
                Some(last) => {
                    let age = now.timestamp_millis() - last.at_millis();
                    last.level() != level
                        || u128::try_from(age).is_ok_and(|age| age >= history_step.as_millis())
                }
            };
            if due {
                self.last_point.insert(onu.id, LastPoint::new(now, level));
                report
                    .optics
                    .push((onu.id, OpticsPoint::of(onu, now, level)));
            }
        }
    }

    /// Makes `table` (in id order) the table as of the poll at `now`.
    fn install(&mut self, table: Vec<Onu>, now: DateTime<Utc>, report: &mut MergeReport) {
        // The indexes depend on ids, serials and descriptions only: most polls keep them.
        let same_keys = table.len() == self.onus.len()
            && table.iter().zip(self.onus.iter()).all(|(a, b)| {
                a.id == b.id && a.serial == b.serial && a.description == b.description
            });
        report.table_changed |= self.polled_at.is_none() || !same_keys;
        self.onus = Arc::new(table);
        self.polled_at = Some(now);
        if !same_keys {
            self.reindex();
        }
    }

    /// The ONUs matching `query`: how many, and the first `limit` in its order.
    pub fn query(&self, query: &OnuQuery) -> OnuPage {
        let filter = &query.filter;
        let text = filter.text.as_deref().map(str::to_lowercase);
        let matches = |onu: &Onu| {
            filter.status.is_none_or(|s| onu.status == s)
                && filter
                    .pon_port
                    .as_deref()
                    .is_none_or(|p| onu.pon_port.eq_ignore_ascii_case(p))
                && text
                    .as_deref()
                    .is_none_or(|t| key_contains(&onu.serial, &onu.description, t))
                && filter
                    .level
                    .is_none_or(|l| query.thresholds.level(onu.rx_power.get()) == l)
        };
        let candidates: Vec<usize> = match &filter.serial {
            Some(serial) => self.position_of(serial).into_iter().collect(),
            None => (0..self.onus.len()).collect(),
        };
        let mut hits: Vec<&Onu> = candidates
            .into_iter()
            .map(|i| &self.onus[i])
            .filter(|onu| matches(onu))
            .collect();
        let total = hits.len();
        if query.order != OnuOrder::Id {
            hits.sort_by(|a, b| query.order.compare(a, b));
        }
        OnuPage {
            total,
            onus: hits.into_iter().take(query.limit).cloned().collect(),
        }
    }
}

/// `a` against `b` with ASCII letters compared as lower case.
fn cmp_ignoring_case(a: &str, b: &str) -> Ordering {
    a.bytes()
        .map(|c| c.to_ascii_lowercase())
        .cmp(b.bytes().map(|c| c.to_ascii_lowercase()))
}

/// Whether a polled ONU's row differs from its row in the table in anything stored, or the
/// row was not in the previous poll (`was_polled_at`).
fn row_differs(previous: &Onu, reading: &PolledOnu, was_polled_at: Option<DateTime<Utc>>) -> bool {
    Some(previous.last_update) != was_polled_at
        || previous.pon_port != reading.pon_port
        || previous.onu_index != reading.onu_index
        || previous.serial != reading.serial
        || previous.description != reading.description
        || previous.status != reading.status
        || previous.last_down_cause != reading.last_down_cause
        || previous.distance != reading.distance
        || previous.rx_power != reading.rx_power
        || previous.tx_power != reading.tx_power
        || previous.olt_rx_power != reading.olt_rx_power
        || previous.temperature != reading.temperature
        || previous.voltage != reading.voltage
        || previous.bias_current != reading.bias_current
}

/// What a polled ONU's row keeps from its previous row: the service VLAN (from the
/// running configuration) and, unless this poll read its optics, when they were read.
struct Kept {
    vlan: Option<u16>,
    optics_at: Option<DateTime<Utc>>,
}

/// The table's row of a polled ONU, updated `now`.
fn polled_row(id: OnuId, olt_id: OltId, kept: Kept, reading: PolledOnu, now: DateTime<Utc>) -> Onu {
    Onu {
        id,
        olt_id,
        vlan: kept.vlan,
        optics_at: if reading.optics_read {
            Some(now)
        } else {
            kept.optics_at
        },
        pon_port: reading.pon_port,
        onu_index: reading.onu_index,
        serial: reading.serial,
        description: reading.description,
        status: reading.status,
        last_down_cause: reading.last_down_cause,
        distance: reading.distance,
        rx_power: reading.rx_power,
        tx_power: reading.tx_power,
        olt_rx_power: reading.olt_rx_power,
        temperature: reading.temperature,
        voltage: reading.voltage,
        bias_current: reading.bias_current,
        last_update: now,
    }
}

#[cfg(test)]
mod tests;
