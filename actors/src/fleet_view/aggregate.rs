//! The fleet view's data: every OLT's latest summary, ports and VLANs, every ONU row, and
//! the indexes that make a fleet-wide question cost what its page costs: ONUs by id, by
//! OLT, by serial and by text (trigrams), offline ONUs, optics worst first with counts per
//! level, node counters and VLAN use per OLT. [`FleetAggregate::apply`] folds one published
//! change in; the query methods answer from the indexes (ONU questions in
//! [`onu_search`]). Pure data: the actor in `fleet_view.rs` owns one and nothing else
//! touches it.

mod onu_search;

use super::bindings::Bindings;
use super::rows::Rows;
use super::serials::SerialIndex;
use super::text_index::{search_key, Slot, TextIndex};
use crate::domain::{
    NodeId, OltId, Onu, OnuId, OnuStatus, OpticsLevel, OpticsThresholds, PonPortStats,
    SessionStatus, Subscriber,
};
use crate::published::{FleetChange, OltSummary, OltUpdate, OnuChange};
use chrono::{DateTime, Utc};
use std::collections::{BTreeMap, BTreeSet, HashMap};

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
    polled_at: Option<DateTime<Utc>>,
    onus: BTreeSet<OnuId>,
}

struct OnuEntry {
    onu: Onu,
    /// In the OLT's latest poll: `last_update` is the OLT's `polled_at`.
    fresh: bool,
    slot: Slot,
}

/// Position in the worst-Rx-first order: absent readings last, then by id.
type OpticsKey = (bool, i64, OnuId);

fn optics_key(rx: Option<f64>, id: OnuId) -> OpticsKey {
    match rx {
        Some(x) => (false, total_order(x), id),
        None => (true, 0, id),
    }
}

/// `f64::total_cmp`'s order as an integer.
fn total_order(x: f64) -> i64 {
    let bits = x.to_bits() as i64;
    bits ^ (((bits >> 63) as u64) >> 1) as i64
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
    onus: Rows<OnuEntry>,
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
            onus: Rows::default(),
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

    fn apply_update(&mut self, update: OltUpdate) -> bool {
        let OltUpdate {
            olt,
            incarnation,
            snapshot,
            summary,
            ports,
            vlans,
            polled_at,
            onus,
        } = update;
        if self.removed.get(&olt).is_some_and(|&r| r >= incarnation) {
            return false;
        }
        let current = self.olts.get(&olt).map(|e| e.incarnation);
        match (current, snapshot) {
            (Some(known), _) if incarnation < known => return false,
            (Some(known), false) if incarnation == known => {}
            (_, false) => return false, // a delta before its actor's snapshot
            (_, true) => {
                self.remove_olt(olt);
                self.olts.insert(
                    olt,
                    OltEntry {
                        incarnation,
                        summary: summary.clone(),
                        ports: Vec::new(),
                        vlans: Vec::new(),
                        vlan_use: HashMap::new(),
                        polled_at,
                        onus: BTreeSet::new(),
                    },
                );
                self.count_node(&summary, 1);
            }
        }
        let Some(entry) = self.olts.get_mut(&olt) else {
            return false;
        };
        let old_summary = std::mem::replace(&mut entry.summary, summary.clone());
        if let Some(ports) = ports {
            entry.ports = ports;
        }
        if let Some(vlans) = vlans {
            entry.vlans = vlans;
        }
        entry.polled_at = polled_at;
        self.count_node(&old_summary, -1);
        self.count_node(&summary, 1);
        let mut slots = Vec::new();
        for change in onus {
            match change {
                OnuChange::Upsert { onu, fresh } => slots.extend(self.upsert_onu(onu, fresh)),
                OnuChange::Remove(id) => self.remove_onu(id),
            }
        }
        // A snapshot (a start folds in one per OLT) is searchable at once but posted in
        // the trigram lists later, by `post_text`; a poll's few changed rows now.
        if snapshot {
            self.text.post_later(&slots);
        } else {
            self.text.post(&slots);
        }
        true
    }

    fn count_node(&mut self, summary: &OltSummary, sign: i64) {
        let Some(node) = summary.node else {
            return;
        };
        let counters = self.nodes.entry(node).or_default();
        let olts = i64::from(counters.olt_count) + sign;
        let total = counters.onu_total as i64 + sign * i64::from(summary.total_onu);
        let online = counters.onu_online as i64 + sign * i64::from(summary.onu_online);
        *counters = NodeCounters {
            olt_count: olts.max(0) as u32,
            onu_total: total.max(0) as u64,
            onu_online: online.max(0) as u64,
        };
        if counters.olt_count == 0 {
            self.nodes.remove(&node);
        }
    }

    fn remove_olt(&mut self, olt: OltId) {
        let Some(entry) = self.olts.remove(&olt) else {
            return;
        };
        self.count_node(&entry.summary, -1);
        for id in entry.onus {
            self.remove_onu(id);
        }
    }

    /// Puts a row and its indexes in; its search key is held by the text index, whose
    /// trigram lists the caller posts for all of an update's rows at once. Returns the
    /// key's slot.
    fn upsert_onu(&mut self, onu: Onu, fresh: bool) -> Option<Slot> {
        // The search key is made of the serial and the description only: a row whose
        // status or readings changed keeps its place in the text index (re-indexing every
        // such row cost each optics read a trigram edit of the whole fleet's lists).
        let kept = self
            .onus
            .get(&onu.id)
            .filter(|e| e.onu.serial == onu.serial && e.onu.description == onu.description)
            .map(|e| e.slot);
        self.take_out(onu.id, kept.is_none());
        let id = onu.id;
        let olt = self.olts.get_mut(&onu.olt_id)?;
        olt.onus.insert(id);
        if let Some(vlan) = onu.vlan {
            *olt.vlan_use.entry(vlan).or_default() += 1;
        }
        self.by_serial.insert(&onu.serial, id);
        if onu.status == OnuStatus::Offline {
            self.offline.insert(id);
        }
        self.optics.insert(optics_key(onu.rx_power, id));
        self.per_level[level_slot(self.thresholds.level(onu.rx_power))] += 1;
        let slot = match kept {
            Some(slot) => slot,
            None => self
                .text
                .hold(id, search_key(&onu.serial, &onu.description)),
        };
        self.onus.insert(id, OnuEntry { onu, fresh, slot });
        Some(slot)
    }

    fn remove_onu(&mut self, id: OnuId) {
        self.take_out(id, true);
    }

    /// Takes ONU `id`'s row and its indexes out; its search key too unless `text` is
    /// false (the row comes back at once with the same key).
    fn take_out(&mut self, id: OnuId, text: bool) {
        let Some(OnuEntry { onu, slot, .. }) = self.onus.remove(&id) else {
            return;
        };
        if let Some(olt) = self.olts.get_mut(&onu.olt_id) {
            olt.onus.remove(&id);
            if let Some(vlan) = onu.vlan {
                if let Some(count) = olt.vlan_use.get_mut(&vlan) {
                    *count -= 1;
                    if *count == 0 {
                        olt.vlan_use.remove(&vlan);
                    }
                }
            }
        }
        self.by_serial.remove(&onu.serial, id);
        self.offline.remove(&id);
        self.optics.remove(&optics_key(onu.rx_power, id));
        self.per_level[level_slot(self.thresholds.level(onu.rx_power))] -= 1;
        if text {
            self.text.remove(slot);
        }
    }

    /// Posts up to `max` ONUs' search keys held since snapshots into the text index's
    /// trigram lists. Returns whether some are left.
    pub fn post_text(&mut self, max: usize) -> bool {
        self.text.post_some(max)
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
        self.onus.get(&id).map(|e| &e.onu)
    }

    /// How many ONUs of OLT `olt` the view holds on port `port` (for the outage book).
    pub fn onus_on_port(&self, olt: OltId, port: &str) -> usize {
        self.olts.get(&olt).map_or(0, |e| {
            e.onus
                .iter()
                .filter(|id| self.onus.get(id).is_some_and(|o| o.onu.pon_port == port))
                .count()
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
                    .iter()
                    .filter_map(|id| self.onus.get(id))
                    .filter(|e| e.onu.serial.eq_ignore_ascii_case(serial))
                    .max_by_key(|e| (e.onu.olt_id, e.onu.id))
                    .map(|e| self.row(e))
            })
            .collect()
    }

    fn in_scope(&self, search: &OnuSearch, olt: OltId, summary: &OltSummary) -> bool {
        search.olt_id.is_none_or(|id| id == olt)
            && search.node_id.is_none_or(|n| summary.node == Some(n))
    }

    /// An ONU as the API shows it: a fresh row carries its OLT's poll time.
    fn row(&self, entry: &OnuEntry) -> Onu {
        let mut onu = entry.onu.clone();
        if entry.fresh {
            if let Some(polled_at) = self.olts.get(&onu.olt_id).and_then(|o| o.polled_at) {
                onu.last_update = polled_at;
            }
        }
        onu
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
            .map(|e| e.onus.iter().copied().collect())
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
