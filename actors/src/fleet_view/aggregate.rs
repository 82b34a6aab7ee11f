//! The fleet view's data: every OLT's latest summary, ports and VLANs, every OLT's ONU
//! table, and the indexes that make a fleet-wide question cost what its page costs: ONUs
//! by id, by OLT, by serial and by text (trigrams), offline ONUs, optics worst first with
//! counts per level, node counters and VLAN use per OLT. The tables are the ones the OLT
//! actors published (`Arc`s shared with them, so each row is held once); the indexes
//! hold ids and places, not rows. [`FleetAggregate::apply`] folds one published change
//! in ([`fold`]); the query methods answer from the indexes (ONU questions in
//! [`onu_search`]). Pure data: the actor in `fleet_view.rs` owns one and nothing else
//! touches it.

mod fold;
mod onu_search;

use super::bindings::Bindings;
use super::id_pages::IdPages;
use super::serials::SerialIndex;
use super::text_index::{search_key, Slot, TextIndex};
use crate::domain::{
    NodeId, OltId, Onu, OnuId, OnuStatus, OpticsLevel, OpticsThresholds, PonPortStats, Reading,
    SessionStatus, Subscriber,
};
use crate::published::{FleetChange, OltSummary};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// Which part of a list to return: skip `offset` matches, return at most `limit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub offset: usize,
    pub limit: usize,
}

/// One page of a list and how many matched in all.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    pub total: usize,
    pub items: Vec<T>,
}

/// Filters of `GET /olts`. Text matches ignore ASCII case.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OltFilter {
    pub status: Option<SessionStatus>,
    pub vendor: Option<String>,
    /// The layout's short name ([`crate::profile::Profile::layout`]), any case; an OLT
    /// whose layout is not known yet matches no value.
    pub family: Option<String>,
    pub city: Option<String>,
    pub node_id: Option<NodeId>,
    /// The nodes whose name the caller matched (`node=`); `None` when not filtered.
    pub node_in: Option<Vec<NodeId>>,
}

/// Filters of the ONU and optics lists. Text matches as the OLT actor's own table does.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OnuSearch {
    pub olt_id: Option<OltId>,
    pub node_id: Option<NodeId>,
    pub status: Option<OnuStatus>,
    pub pon_port: Option<String>,
    /// Exact serial, any ASCII case.
    pub serial: Option<String>,
    /// Substring of the serial, the description or any field of the subscriber binding,
    /// any case.
    pub text: Option<String>,
    pub level: Option<OpticsLevel>,
    /// Only ONUs bound to this contract (exact, any case).
    pub contract: Option<String>,
    /// Only these ONUs, sorted by id (the flapping ones, `GET /onus?flapping=true`).
    pub among: Option<Vec<OnuId>>,
    /// None of these ONUs, sorted by id (`flapping=false`).
    pub excluding: Option<Vec<OnuId>>,
}

/// A node's counters (`GET /nodes`, docs/api.md): its OLTs and their ONUs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NodeCounters {
    pub olt_count: u32,
    pub onu_total: u64,
    pub onu_online: u64,
}

/// A VLAN of an OLT and how many of its ONUs use it as their service VLAN.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FleetVlan {
    pub olt_id: OltId,
    pub vlan_id: u16,
    pub name: String,
    pub onu_count: u32,
}

/// What `/metrics` shows of one OLT.
#[derive(Debug, Clone, PartialEq)]
pub struct OltGauges {
    pub summary: OltSummary,
    pub ports: Vec<PonPortStats>,
}

struct OltEntry {
    incarnation: u64,
    summary: OltSummary,
    ports: Vec<PonPortStats>,
    vlans: Vec<(u16, String)>,
    /// Service VLAN → ONUs of this OLT using it.
    vlan_use: HashMap<u16, u32>,
    /// The OLT's ONU rows, sorted by id: the table its actor last published, shared
    /// with the actor (the view holds no rows of its own).
    table: Arc<Vec<Onu>>,
}

/// Where the view finds an ONU's row (its OLT's table, at `position`) and its slot in
/// the text index.
#[derive(Debug, Clone, Copy, Default)]
struct OnuPlace {
    olt: OltId,
    position: u32,
    slot: Slot,
}

/// Position in the worst-Rx-first order: by Rx in hundredths of a dBm with absent readings
/// last ([`ABSENT_RX`]), then by id (in halves, [`super::id_halves`]). Twelve bytes aligned
/// to four: a B-tree leaf holds its eleven keys in 144 bytes, where sixteen-byte keys (an
/// absent flag, the Rx, the id) took 192 (docs/benchmarks.md, issue 31, seventh pass).
type OpticsKey = (i32, [u32; 2]);

const _: () = assert!(std::mem::size_of::<OpticsKey>() == 12);

/// The order's rank of an absent reading: above every reading a row holds (two bytes of
/// hundredths, [`Reading`]).
const ABSENT_RX: i32 = i32::MAX;

fn optics_key(rx: Reading, id: OnuId) -> OpticsKey {
    (rx.hundredths().unwrap_or(ABSENT_RX), super::id_halves(id))
}

fn optics_id(key: &OpticsKey) -> OnuId {
    super::id_of_halves(key.1)
}

/// The last key of the order at or below `hundredths` of a dBm, and never among the
/// absent readings.
fn optics_cut(hundredths: i32) -> OpticsKey {
    (hundredths.min(ABSENT_RX - 1), [u32::MAX; 2])
}

/// The highest Rx, in hundredths, that is at or below `dbm` as
/// [`OpticsThresholds::level`] compares them: where a threshold cuts the optics order.
fn hundredths_at_or_below(dbm: f64) -> i32 {
    if dbm.is_nan() {
        return i32::MIN;
    }
    let below = |h: i32| f64::from(h) / 100.0 <= dbm;
    let mut h = (dbm * 100.0)
        .floor()
        .clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32;
    // The product's rounding can put `h` one off either way.
    while h < i32::MAX && below(h + 1) {
        h += 1;
    }
    while h > i32::MIN && !below(h) {
        h -= 1;
    }
    h
}

fn level_slot(level: OpticsLevel) -> usize {
    match level {
        OpticsLevel::Critical => 0,
        OpticsLevel::Warning => 1,
        OpticsLevel::Ok => 2,
        OpticsLevel::Unknown => 3,
    }
}

pub struct FleetAggregate {
    thresholds: OpticsThresholds,
    olts: BTreeMap<OltId, OltEntry>,
    /// The incarnation whose removal was last published per OLT: older messages are late.
    removed: HashMap<OltId, u64>,
    /// Every ONU by id: where its row is.
    onus: IdPages<OnuPlace>,
    by_serial: SerialIndex,
    offline: BTreeSet<OnuId>,
    optics: BTreeSet<OpticsKey>,
    per_level: [usize; 4],
    text: TextIndex,
    nodes: HashMap<NodeId, NodeCounters>,
    bindings: Bindings,
}

impl FleetAggregate {
    pub fn new(thresholds: OpticsThresholds) -> FleetAggregate {
        FleetAggregate {
            thresholds,
            olts: BTreeMap::new(),
            removed: HashMap::new(),
            onus: IdPages::default(),
            by_serial: SerialIndex::default(),
            offline: BTreeSet::new(),
            optics: BTreeSet::new(),
            per_level: [0; 4],
            text: TextIndex::default(),
            nodes: HashMap::new(),
            bindings: Bindings::default(),
        }
    }

    /// Binds `subscriber` to ONU `id` (`None`: unbinds it). A binding may come before its
    /// ONU's row, or outlive it: rows and bindings meet only when a list is answered.
    pub fn bind(&mut self, id: OnuId, subscriber: Option<Subscriber>) {
        self.bindings.set(id, subscriber);
    }

    /// ONU `id`'s subscriber binding, if it has one.
    pub fn subscriber(&self, id: OnuId) -> Option<&Subscriber> {
        self.bindings.get(id)
    }

    /// Folds one published change in. Returns `false` when it was ignored as late (sent
    /// by an actor that a newer one replaced, or by a removed OLT's).
    pub fn apply(&mut self, change: FleetChange) -> bool {
        match change {
            FleetChange::Olt(update) => self.apply_update(*update),
            // Nothing of the view changes; the event log derives from it.
            FleetChange::ConfigStored {
                olt, incarnation, ..
            }
            | FleetChange::Discovered {
                olt, incarnation, ..
            }
            | FleetChange::MacsMoved {
                olt, incarnation, ..
            }
            | FleetChange::PortSaturation {
                olt, incarnation, ..
            } => self
                .olts
                .get(&olt)
                .is_some_and(|e| e.incarnation == incarnation),
            FleetChange::Removed { olt, incarnation } => {
                if self
                    .olts
                    .get(&olt)
                    .is_some_and(|e| e.incarnation > incarnation)
                {
                    return false;
                }
                self.remove_olt(olt);
                let removed = self.removed.entry(olt).or_default();
                *removed = (*removed).max(incarnation);
                true
            }
        }
    }

    /// Posts the search keys of up to `max` ONUs whose slots snapshots left for later
    /// into the text index's trigram lists. Returns whether some are left.
    pub fn post_text(&mut self, max: usize) -> bool {
        let batch = self.text.next_unposted(max);
        self.post_keys(batch.into_iter());
        self.text.has_unposted()
    }

    /// Posts the search keys of `slots`' ONUs, built from the rows the view holds now.
    pub(super) fn post_keys(&mut self, slots: impl Iterator<Item = (Slot, OnuId)>) {
        let keyed: Vec<(Slot, String)> = slots
            .filter_map(|(slot, id)| {
                let onu = self.known_onu(id)?;
                Some((slot, search_key(&onu.serial, &onu.description)))
            })
            .collect();
        self.text.post(keyed);
    }

    /// Whether search keys wait for [`Self::post_text`].
    pub fn text_behind(&self) -> bool {
        self.text.has_unposted()
    }

    /// The summary the view holds of `olt` (for event derivation).
    pub fn olt_summary(&self, olt: OltId) -> Option<&OltSummary> {
        self.olts.get(&olt).map(|e| &e.summary)
    }

    /// The row the view holds of ONU `id`.
    pub fn known_onu(&self, id: OnuId) -> Option<&Onu> {
        self.onus.get(id).and_then(|place| self.row_at(place))
    }

    /// The table the view holds of OLT `olt` (empty when it holds none).
    #[cfg(test)]
    pub(crate) fn held_table(&self, olt: OltId) -> &[Onu] {
        self.olts.get(&olt).map_or(&[], |e| &e.table[..])
    }

    fn row_at(&self, place: &OnuPlace) -> Option<&Onu> {
        self.olts
            .get(&place.olt)?
            .table
            .get(place.position as usize)
    }

    /// How many ONUs of OLT `olt` the view holds on port `port` (for the outage book).
    pub fn onus_on_port(&self, olt: OltId, port: &str) -> usize {
        self.olts.get(&olt).map_or(0, |e| {
            e.table.iter().filter(|onu| onu.pon_port == port).count()
        })
    }

    /// The optics level of an Rx reading under the view's thresholds.
    pub fn level(&self, rx_power: Option<f64>) -> OpticsLevel {
        self.thresholds.level(rx_power)
    }

    /// The OLTs matching `filter`, by id.
    pub fn olts(&self, filter: &OltFilter, window: Window) -> Page<OltSummary> {
        let matches = |o: &OltSummary| {
            filter.status.is_none_or(|s| o.status == s)
                && filter
                    .vendor
                    .as_deref()
                    .is_none_or(|v| o.vendor_name().eq_ignore_ascii_case(v))
                && filter.family.as_deref().is_none_or(|wanted| {
                    o.family
                        .is_some_and(|family| family.eq_ignore_ascii_case(wanted))
                })
                && filter
                    .city
                    .as_deref()
                    .is_none_or(|c| o.city.eq_ignore_ascii_case(c))
                && filter.node_id.is_none_or(|n| o.node == Some(n))
                && filter
                    .node_in
                    .as_ref()
                    .is_none_or(|nodes| o.node.is_some_and(|n| nodes.contains(&n)))
        };
        let all = self.olts.values().map(|e| &e.summary);
        if *filter == OltFilter::default() {
            return Page {
                total: self.olts.len(),
                items: all
                    .skip(window.offset)
                    .take(window.limit)
                    .cloned()
                    .collect(),
            };
        }
        page_of(all.filter(|o| matches(o)), window, None, Clone::clone)
    }

    /// Every OLT's summary (those named in `only`, when given), by id.
    pub fn summaries(&self, only: Option<&[OltId]>) -> Vec<OltSummary> {
        match only {
            None => self.olts.values().map(|e| e.summary.clone()).collect(),
            Some(ids) => {
                let mut ids = ids.to_vec();
                ids.sort_unstable();
                ids.dedup();
                ids.iter()
                    .filter_map(|id| self.olts.get(id))
                    .map(|e| e.summary.clone())
                    .collect()
            }
        }
    }

    /// Each OLT's summary and ports, by id.
    pub fn gauges(&self) -> Vec<OltGauges> {
        self.olts
            .values()
            .map(|e| OltGauges {
                summary: e.summary.clone(),
                ports: e.ports.clone(),
            })
            .collect()
    }

    /// The counters of each of `nodes`, in the same order.
    pub fn node_counters(&self, nodes: &[NodeId]) -> Vec<NodeCounters> {
        nodes
            .iter()
            .map(|n| self.nodes.get(n).copied().unwrap_or_default())
            .collect()
    }

    /// The VLANs of the OLTs in scope, by OLT, each OLT's in the device's order.
    pub fn vlans(&self, scope: &OnuSearch, vlan_id: Option<u16>) -> Vec<FleetVlan> {
        self.olts
            .iter()
            .filter(|(id, e)| self.in_scope(scope, **id, &e.summary))
            .flat_map(|(id, e)| {
                e.vlans
                    .iter()
                    .filter(move |(vlan, _)| vlan_id.is_none_or(|v| v == *vlan))
                    .map(move |(vlan, name)| FleetVlan {
                        olt_id: *id,
                        vlan_id: *vlan,
                        name: name.clone(),
                        onu_count: e.vlan_use.get(vlan).copied().unwrap_or(0),
                    })
            })
            .collect()
    }

    /// For each serial, the ONU holding it (on the highest OLT id, should two OLTs list
    /// it), as the fleet sees it now.
    pub fn onus_by_serial(&self, serials: &[String]) -> Vec<Option<Onu>> {
        serials
            .iter()
            .map(|serial| {
                self.by_serial
                    .candidates(serial)
                    .filter_map(|id| self.known_onu(id))
                    .filter(|onu| onu.serial.eq_ignore_ascii_case(serial))
                    .max_by_key(|onu| (onu.olt_id, onu.id))
                    .cloned()
            })
            .collect()
    }

    fn in_scope(&self, search: &OnuSearch, olt: OltId, summary: &OltSummary) -> bool {
        search.olt_id.is_none_or(|id| id == olt)
            && search.node_id.is_none_or(|n| summary.node == Some(n))
    }
}

/// Event derivation reads the rows held before a change through these.
impl crate::events::HeldRows for FleetAggregate {
    fn olt_summary(&self, olt: OltId) -> Option<&OltSummary> {
        FleetAggregate::olt_summary(self, olt)
    }

    fn known_onu(&self, id: OnuId) -> Option<&Onu> {
        FleetAggregate::known_onu(self, id)
    }

    fn level(&self, rx_power: Option<f64>) -> OpticsLevel {
        FleetAggregate::level(self, rx_power)
    }
}

/// The outage book reads the rows held after a change through these.
impl crate::outages::FleetRows for FleetAggregate {
    fn onu(&self, id: OnuId) -> Option<&Onu> {
        self.known_onu(id)
    }

    fn onus_of(&self, olt: OltId) -> Vec<OnuId> {
        self.olts
            .get(&olt)
            .map(|e| e.table.iter().map(|onu| onu.id).collect())
            .unwrap_or_default()
    }

    fn onus_on_port(&self, olt: OltId, port: &str) -> usize {
        FleetAggregate::onus_on_port(self, olt, port)
    }

    fn olt_status(&self, olt: OltId) -> Option<crate::domain::SessionStatus> {
        self.olt_summary(olt).map(|s| s.status)
    }

    fn node_of(&self, olt: OltId) -> Option<NodeId> {
        self.olt_summary(olt).and_then(|s| s.node)
    }

    fn subscriber(&self, onu: OnuId) -> Option<&Subscriber> {
        FleetAggregate::subscriber(self, onu)
    }
}

/// Counts the matches (unless `known`) and maps the window's page. With a known total it
/// stops reading once the page is full.
fn page_of<S, T>(
    matches: impl Iterator<Item = S>,
    window: Window,
    known: Option<usize>,
    show: impl Fn(S) -> T,
) -> Page<T> {
    let mut items = Vec::with_capacity(window.limit.min(1024));
    let mut total = 0;
    for hit in matches {
        if total >= window.offset && items.len() < window.limit {
            items.push(show(hit));
        }
        total += 1;
        if known.is_some() && items.len() == window.limit {
            break;
        }
    }
    Page {
        total: known.unwrap_or(total),
        items,
    }
}

#[cfg(test)]
mod tests {
    use super::hundredths_at_or_below;
    use crate::domain::{OpticsLevel, OpticsThresholds, Reading};
    use proptest::prelude::*;

    proptest! {
        /// A threshold cuts the integer optics order exactly where `level` puts a reading:
        /// a reading is at or below the threshold if and only if its hundredths are at or
        /// below the cut, thresholds with any number of decimals included.
        #[test]
        fn the_cut_agrees_with_level(threshold in -60.0f64..20.0, value in -60.0f64..20.0) {
            let thresholds = OpticsThresholds { warning_dbm: threshold, critical_dbm: -1.0e9 };
            let reading = Reading::new(value);
            let below = thresholds.level(reading.get()) != OpticsLevel::Ok;
            let cut = hundredths_at_or_below(threshold);
            prop_assert_eq!(below, reading.hundredths().expect("in range") <= cut);
        }
    }

    #[test]
    fn the_cut_of_a_round_threshold_is_that_reading() {
        assert_eq!(hundredths_at_or_below(-27.0), -2700);
        assert_eq!(hundredths_at_or_below(-0.29), -29);
        assert_eq!(hundredths_at_or_below(-27.005), -2701);
        assert_eq!(hundredths_at_or_below(f64::NAN), i32::MIN);
        assert_eq!(hundredths_at_or_below(1.0e12), i32::MAX);
    }
}
