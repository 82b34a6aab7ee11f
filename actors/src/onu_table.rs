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

    /// The id of the ONU with `serial` (any ASCII case).
    pub fn id_of(&self, serial: &str) -> Option<OnuId> {
        Some(self.onus[self.position_of(serial)?].id)
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
        for reading in polled {
            let known = self.position_of(&reading.serial);
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
mod tests {
    use super::*;
    use crate::domain::Reading;

    const THRESHOLDS: OpticsThresholds = OpticsThresholds {
        warning_dbm: -25.0,
        critical_dbm: -27.0,
    };

    fn reading(serial: &str, status: OnuStatus, rx: Option<f64>) -> PolledOnu {
        PolledOnu {
            pon_port: "0/1/0".into(),
            onu_index: 0,
            serial: serial.into(),
            description: format!("contract of {serial}").into(),
            status,
            last_down_cause: (status == OnuStatus::Offline).then_some(DownCause::Los),
            distance: Some(1200),
            rx_power: rx.into(),
            tx_power: Some(2.1).into(),
            olt_rx_power: Some(-20.0).into(),
            temperature: Reading::NONE,
            voltage: Reading::NONE,
            bias_current: Reading::NONE,
            optics_read: true,
        }
    }

    fn at(minutes: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + minutes * 60, 0).expect("time")
    }

    #[test]
    fn merge_records_changes_points_and_keeps_vanished_onus() {
        let mut next_id = 100;
        let mut allocate = |_: &str| {
            next_id += 1;
            Some(next_id)
        };
        let step = Duration::from_secs(15 * 60);
        let mut table = OnuTable::default();
        let first = vec![
            reading("HWTC00000001", OnuStatus::Online, Some(-20.0)),
            reading("HWTC00000002", OnuStatus::Online, Some(-26.0)),
        ];
        let report = table.merge(1, first, at(0), &THRESHOLDS, step, &mut allocate);
        assert_eq!(report.state_changes.len(), 2, "first sight is recorded");
        assert_eq!(report.optics.len(), 2);
        assert_eq!(table.online(), 2);

        // Five minutes on: no change, no point is due, except a level change.
        let second = vec![
            reading("HWTC00000001", OnuStatus::Online, Some(-20.1)),
            reading("HWTC00000002", OnuStatus::Online, Some(-27.5)),
        ];
        let report = table.merge(1, second, at(5), &THRESHOLDS, step, &mut allocate);
        assert!(report.state_changes.is_empty());
        let levels: Vec<(OnuId, OpticsLevel)> =
            report.optics.iter().map(|(id, p)| (*id, p.level)).collect();
        assert_eq!(levels, [(102, OpticsLevel::Critical)]);

        // ONU 1 goes offline, ONU 2 vanishes from the device, ONU 3 appears.
        let third = vec![
            reading("HWTC00000001", OnuStatus::Offline, None),
            reading("HWTC00000003", OnuStatus::Online, Some(-19.0)),
        ];
        let report = table.merge(1, third, at(20), &THRESHOLDS, step, &mut allocate);
        let changes: Vec<(OnuId, OnuStatus, Option<DownCause>)> = report
            .state_changes
            .iter()
            .map(|(id, c)| (*id, c.status, c.cause))
            .collect();
        assert_eq!(
            changes,
            [
                (101, OnuStatus::Offline, Some(DownCause::Los)),
                (103, OnuStatus::Online, None),
                (102, OnuStatus::Offline, Some(DownCause::Unknown)),
            ]
        );
        assert_eq!(table.len(), 3);
        let vanished = table.get(102).expect("kept");
        assert_eq!(vanished.rx_power.get(), Some(-27.5), "last data kept");
        assert_eq!(vanished.last_update, at(5));
        // Points: ONU 1 (level change to UNKNOWN, and 20 min > step), ONU 3 (new).
        let ids: Vec<OnuId> = report.optics.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids, [101, 103]);
    }

    #[test]
    fn an_onu_moved_to_another_port_keeps_its_id() {
        let mut allocated = 0;
        let mut table = OnuTable::default();
        let step = Duration::from_secs(900);
        let first = vec![reading("HWTC00000001", OnuStatus::Online, Some(-20.0))];
        table.merge(1, first, at(0), &THRESHOLDS, step, |_| {
            allocated += 1;
            Some(41)
        });
        let mut moved = reading("HWTC00000001", OnuStatus::Online, Some(-20.0));
        moved.pon_port = "0/2/7".into();
        moved.onu_index = 12;
        let report = table.merge(1, vec![moved], at(1), &THRESHOLDS, step, |_| {
            allocated += 1;
            Some(99)
        });
        assert_eq!(allocated, 1, "no new id for a known serial");
        assert!(report.state_changes.is_empty());
        let onu = table.get(41).expect("same id");
        assert_eq!((onu.pon_port.as_str(), onu.onu_index), ("0/2/7", 12));
        assert_eq!(table.len(), 1);
    }

    #[test]
    fn queries_filter_count_and_order() {
        let mut id = 0;
        let mut table = OnuTable::default();
        let mut onus = vec![
            reading("HWTC0000000A", OnuStatus::Online, Some(-26.5)),
            reading("HWTC0000000B", OnuStatus::Offline, None),
            reading("ZTEG0000000C", OnuStatus::Online, Some(-21.0)),
            reading("ZTEG0000000D", OnuStatus::Online, Some(-27.9)),
        ];
        onus[2].pon_port = "0/2/1".into();
        onus[3].description = "School No. 3".into();
        table.merge(
            1,
            onus,
            at(0),
            &THRESHOLDS,
            Duration::from_secs(900),
            |_| {
                id += 1;
                Some(id)
            },
        );
        let query = |filter: OnuFilter, order: OnuOrder, limit: usize| {
            let page = table.query(&OnuQuery {
                filter,
                order,
                limit,
                thresholds: THRESHOLDS,
            });
            (
                page.total,
                page.onus.iter().map(|o| o.id).collect::<Vec<_>>(),
            )
        };
        assert_eq!(
            query(OnuFilter::default(), OnuOrder::Id, 2),
            (4, vec![1, 2])
        );
        assert_eq!(
            query(OnuFilter::default(), OnuOrder::WorstRx, 10),
            (4, vec![4, 1, 3, 2])
        );
        let online = OnuFilter {
            status: Some(OnuStatus::Online),
            ..OnuFilter::default()
        };
        assert_eq!(query(online, OnuOrder::Id, 10), (3, vec![1, 3, 4]));
        let serial = OnuFilter {
            serial: Some("zteg0000000c".into()),
            ..OnuFilter::default()
        };
        assert_eq!(query(serial, OnuOrder::Id, 10), (1, vec![3]));
        // A prefix of a serial, a serial with more after it, one before every serial.
        for absent in ["ZTEG0000000", "ZTEG0000000CC", "A"] {
            let absent = OnuFilter {
                serial: Some(absent.into()),
                ..OnuFilter::default()
            };
            assert_eq!(query(absent, OnuOrder::Id, 10), (0, vec![]));
        }
        let text = OnuFilter {
            text: Some("SCHOOL".into()),
            ..OnuFilter::default()
        };
        assert_eq!(query(text, OnuOrder::Id, 10), (1, vec![4]));
        let port = OnuFilter {
            pon_port: Some("0/2/1".into()),
            ..OnuFilter::default()
        };
        assert_eq!(query(port, OnuOrder::Id, 10), (1, vec![3]));
        let warning = OnuFilter {
            level: Some(OpticsLevel::Warning),
            ..OnuFilter::default()
        };
        assert_eq!(query(warning, OnuOrder::Id, 10), (1, vec![1]));
        let unknown = OnuFilter {
            level: Some(OpticsLevel::Unknown),
            ..OnuFilter::default()
        };
        assert_eq!(query(unknown, OnuOrder::Id, 10), (1, vec![2]));
    }
}
