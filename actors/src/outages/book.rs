//! The outage book: the outages going on and those that ended within the retention. The
//! fleet view hands it each batch of event drafts it derived from a change, once the
//! change is folded in ([`OutageBook::observe`]); the book notes each ONU's down (time,
//! cause, port), lets an outage of the same scope take it in, opens the outages the
//! fresh downs now make, ends those whose condition no longer holds, and answers with the
//! batch grown by the outages' own events and each explained `ONU_DOWN` marked with its
//! outage. What it reads of the fleet is [`FleetRows`]; how downs group is
//! [`super::grouping`]'s. Everything it decides is pure but for the ids and the
//! archive's writes.

use super::grouping::{address_of, Found};
use super::{
    FleetRows, Outage, OutageArchive, OutageFilter, OutageId, OutageKind, OutageRules, Plant,
};
use crate::domain::{DownCause, NodeId, OltId, OnuId, OnuStatus, SessionStatus};
use crate::events::{Draft, Event, EventType, Severity};
use chrono::{DateTime, Utc};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

/// One ONU's fresh down, not yet explained by an outage.
#[derive(Debug, Clone)]
struct Down {
    at: DateTime<Utc>,
    cause: DownCause,
    port: String,
}

pub struct OutageBook {
    rules: OutageRules,
    archive: Option<OutageArchive>,
    active: Vec<Outage>,
    /// Ended outages, oldest end first.
    ended: VecDeque<Outage>,
    /// Per OLT, its ONUs' fresh downs no outage has taken in.
    downs: HashMap<OltId, BTreeMap<OnuId, Down>>,
}

impl OutageBook {
    /// A book that starts from `kept` (the archive's outages) and writes to `archive`.
    pub fn new(rules: OutageRules, archive: Option<OutageArchive>, kept: Vec<Outage>) -> Self {
        let (active, mut ended): (Vec<Outage>, Vec<Outage>) =
            kept.into_iter().partition(Outage::is_active);
        ended.sort_by_key(|o| o.ended_at);
        OutageBook {
            rules,
            archive,
            active,
            ended: ended.into(),
            downs: HashMap::new(),
        }
    }

    /// The outages `filter` admits, newest start first.
    pub fn list(&self, filter: &OutageFilter) -> Vec<Outage> {
        let mut list: Vec<Outage> = self
            .active
            .iter()
            .chain(self.ended.iter())
            .filter(|o| filter.admits(o))
            .cloned()
            .collect();
        // Newest first by the second (as the API shows the time), then by id: the order
        // a cluster merges members' lists in.
        list.sort_by_key(|o| std::cmp::Reverse((o.started_at.timestamp(), o.id)));
        list
    }

    pub fn get(&self, id: OutageId) -> Option<&Outage> {
        self.active
            .iter()
            .chain(self.ended.iter())
            .find(|o| o.id == id)
    }

    /// Folds a batch of drafts from a change of OLT `olt` into the book (the fleet view
    /// already holds the change) and answers the batch with the outages' events added and
    /// each explained `ONU_DOWN` marked with `data.outageId`.
    pub fn observe(
        &mut self,
        olt: Option<OltId>,
        mut drafts: Vec<Draft>,
        rows: &impl FleetRows,
        plant: &Plant,
        now: DateTime<Utc>,
    ) -> Vec<Draft> {
        let mut touched: BTreeSet<OltId> = drafts.iter().filter_map(|d| d.event.olt_id).collect();
        touched.extend(olt);
        let mut events = Vec::new();
        let mut joined: HashMap<OnuId, OutageId> = HashMap::new();
        for draft in &drafts {
            let event = &draft.event;
            match (event.kind, event.olt_id) {
                (EventType::OnuDown, Some(olt)) => {
                    self.note_down(olt, event, rows, plant, &mut joined)
                }
                (EventType::OnuUp, Some(olt)) => {
                    if let (Some(downs), Some(onu)) = (self.downs.get_mut(&olt), event.onu_id) {
                        downs.remove(&onu);
                    }
                }
                (EventType::OltStatusChanged, Some(olt))
                    if rows.olt_status(olt) == Some(SessionStatus::Offline) =>
                {
                    events.extend(self.open_olt_outage(olt, rows, now, &mut joined));
                }
                _ => {}
            }
        }
        for olt in &touched {
            for found in self.find(*olt, rows, plant, now) {
                events.push(self.open(*olt, found, rows, now, &mut joined));
            }
            events.extend(self.end(*olt, rows, now));
        }
        self.prune(now);
        link(&mut drafts, &joined);
        place(drafts, events, &joined)
    }

    /// Notes an `ONU_DOWN`: an active outage of its scope takes it in, else it waits as
    /// a fresh down.
    fn note_down(
        &mut self,
        olt: OltId,
        event: &Event,
        rows: &impl FleetRows,
        plant: &Plant,
        joined: &mut HashMap<OnuId, OutageId>,
    ) {
        let (Some(onu), Some(port)) = (event.onu_id, event.pon_port.clone()) else {
            return;
        };
        let cause = rows
            .onu(onu)
            .and_then(|o| o.last_down_cause)
            .unwrap_or(DownCause::Unknown);
        let address = address_of(rows, onu);
        let splitter = plant.splitter_of(onu).map(|s| s.id);
        let taker = self.active.iter_mut().find(|o| {
            o.olt_id == olt
                && match o.kind {
                    OutageKind::PonOutage => {
                        cause == DownCause::Los && o.pon_port.as_deref() == Some(&port)
                    }
                    OutageKind::SplitterOutage => {
                        cause == DownCause::Los
                            && o.splitter_id
                                .is_some_and(|s| plant.behind(s).contains(&onu))
                    }
                    OutageKind::PowerOutage => {
                        cause == DownCause::DyingGasp
                            && match (o.splitter_id, &o.address) {
                                (Some(s), _) => splitter == Some(s),
                                (None, Some(a)) => address.as_deref() == Some(a.as_str()),
                                (None, None) => o.pon_port.as_deref() == Some(&port),
                            }
                    }
                    OutageKind::OltOutage => false,
                }
        });
        if let Some(outage) = taker {
            if let Err(at) = outage.onu_ids.binary_search(&onu) {
                outage.onu_ids.insert(at, onu);
                add_contract(outage, rows, onu);
                save(&self.archive, outage);
            }
            joined.insert(onu, outage.id);
            return;
        }
        self.downs.entry(olt).or_default().insert(
            onu,
            Down {
                at: event.at,
                cause,
                port,
            },
        );
    }

    /// The outages the fresh downs of OLT `olt` now make (dropping downs too old to).
    fn find(
        &mut self,
        olt: OltId,
        rows: &impl FleetRows,
        plant: &Plant,
        now: DateTime<Utc>,
    ) -> Vec<Found> {
        let window = chrono::Duration::from_std(self.rules.window).unwrap_or_default();
        let Some(downs) = self.downs.get_mut(&olt) else {
            return Vec::new();
        };
        downs.retain(|_, d| now - d.at <= window);
        let mut found = Vec::new();
        let mut by_port: BTreeMap<String, Vec<(OnuId, DownCause)>> = BTreeMap::new();
        for (onu, down) in downs.iter() {
            by_port
                .entry(down.port.clone())
                .or_default()
                .push((*onu, down.cause));
        }
        for (port, list) in by_port {
            let los: BTreeSet<OnuId> = list
                .iter()
                .filter(|(_, c)| *c == DownCause::Los)
                .map(|(id, _)| *id)
                .collect();
            let gasps: Vec<OnuId> = list
                .iter()
                .filter(|(_, c)| *c == DownCause::DyingGasp)
                .map(|(id, _)| *id)
                .collect();
            found.extend(self.rules.fibre(olt, &port, los, rows, plant));
            found.extend(self.rules.power(&port, gasps, rows, plant));
        }
        for f in &found {
            for onu in &f.onus {
                downs.remove(onu);
            }
        }
        found
    }

    fn open(
        &mut self,
        olt: OltId,
        found: Found,
        rows: &impl FleetRows,
        now: DateTime<Utc>,
        joined: &mut HashMap<OnuId, OutageId>,
    ) -> Draft {
        let id = self.next_id(now);
        let mut outage = Outage {
            id,
            kind: found.kind,
            cause: found.cause,
            olt_id: olt,
            pon_port: found.port,
            splitter_id: found.splitter.as_ref().map(|s| s.id),
            address: found.address,
            onu_ids: found.onus,
            contracts: Vec::new(),
            started_at: now,
            ended_at: None,
        };
        outage.onu_ids.sort_unstable();
        for onu in outage.onu_ids.clone() {
            add_contract(&mut outage, rows, onu);
            joined.insert(onu, id);
        }
        let name = found.splitter.map(|s| s.name);
        let draft = opening(&outage, rows.node_of(olt), found.of, name.as_deref());
        save(&self.archive, &outage);
        self.active.push(outage);
        draft
    }

    fn open_olt_outage(
        &mut self,
        olt: OltId,
        rows: &impl FleetRows,
        now: DateTime<Utc>,
        joined: &mut HashMap<OnuId, OutageId>,
    ) -> Option<Draft> {
        if self
            .active
            .iter()
            .any(|o| o.olt_id == olt && o.kind == OutageKind::OltOutage)
        {
            return None;
        }
        let onus = rows.onus_of(olt);
        let found = Found {
            kind: OutageKind::OltOutage,
            cause: format!("OLT {olt} offline"),
            port: None,
            splitter: None,
            address: None,
            of: Some(onus.len()),
            onus,
        };
        Some(self.open(olt, found, rows, now, joined))
    }

    /// Ends the outages of OLT `olt` whose condition no longer holds.
    fn end(&mut self, olt: OltId, rows: &impl FleetRows, now: DateTime<Utc>) -> Vec<Draft> {
        let rules = self.rules;
        let over = |o: &Outage| {
            if o.olt_id != olt {
                return false;
            }
            if o.kind == OutageKind::OltOutage {
                return rows.olt_status(olt) != Some(SessionStatus::Offline);
            }
            let dark = o
                .onu_ids
                .iter()
                .filter(|id| {
                    rows.onu(**id)
                        .is_some_and(|onu| onu.status == OnuStatus::Offline)
                })
                .count();
            dark < rules.minimum(o.kind).max(1)
        };
        let (ended, active): (Vec<Outage>, Vec<Outage>) =
            std::mem::take(&mut self.active).into_iter().partition(over);
        self.active = active;
        let mut drafts = Vec::new();
        for mut outage in ended {
            outage.ended_at = Some(now);
            save(&self.archive, &outage);
            drafts.push(clearing(&outage, rows.node_of(olt)));
            self.ended.push_back(outage);
        }
        drafts
    }

    /// Forgets ended outages older than the retention.
    fn prune(&mut self, now: DateTime<Utc>) {
        let retention = chrono::Duration::from_std(self.rules.retention).unwrap_or_default();
        while let Some(oldest) = self.ended.front() {
            if oldest.ended_at.is_some_and(|end| now - end > retention) {
                if let (Some(archive), Some(gone)) = (&self.archive, self.ended.pop_front()) {
                    let _ = archive.remove(gone.id);
                } else {
                    self.ended.pop_front();
                }
            } else {
                break;
            }
        }
    }

    /// A new id: the store's when there is an archive, else the next after every id held.
    fn next_id(&self, now: DateTime<Utc>) -> OutageId {
        let held = self
            .active
            .iter()
            .chain(self.ended.iter())
            .map(|o| o.id)
            .max()
            .unwrap_or(0);
        match self.archive.as_ref().map(OutageArchive::next_id) {
            Some(Ok(id)) => id,
            Some(Err(error)) => {
                tracing::warn!(%error, "outage ids: the store gave none; using the next held");
                held.max(now.timestamp() as u64) + 1
            }
            None => held + 1,
        }
    }
}

fn add_contract(outage: &mut Outage, rows: &impl FleetRows, onu: OnuId) {
    let Some(contract) = rows.subscriber(onu).and_then(|s| s.contract.clone()) else {
        return;
    };
    if let Err(at) = outage.contracts.binary_search(&contract) {
        outage.contracts.insert(at, contract);
    }
}

fn save(archive: &Option<OutageArchive>, outage: &Outage) {
    if let Some(Err(error)) = archive.as_ref().map(|a| a.save(outage)) {
        tracing::warn!(%error, outage = outage.id, "outage not written to the store");
    }
}

/// Marks each `ONU_DOWN` an outage explains with its id.
fn link(drafts: &mut [Draft], joined: &HashMap<OnuId, OutageId>) {
    for draft in drafts {
        let event = &mut draft.event;
        if event.kind != EventType::OnuDown {
            continue;
        }
        let Some(id) = event.onu_id.and_then(|onu| joined.get(&onu)) else {
            continue;
        };
        if let Some(data) = event.data.as_object_mut() {
            data.insert("outageId".into(), (*id).into());
        }
    }
}

/// The batch with each outage event right before the first `ONU_DOWN` it explains (at
/// the end when none is in the batch).
fn place(drafts: Vec<Draft>, events: Vec<Draft>, joined: &HashMap<OnuId, OutageId>) -> Vec<Draft> {
    if events.is_empty() {
        return drafts;
    }
    let outage_of = |d: &Draft| d.event.data.get("outageId").and_then(|v| v.as_u64());
    let mut waiting: Vec<Option<Draft>> = events.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(drafts.len() + waiting.len());
    for draft in drafts {
        if draft.event.kind == EventType::OnuDown {
            if let Some(id) = draft.event.onu_id.and_then(|onu| joined.get(&onu)) {
                if let Some(slot) = waiting
                    .iter_mut()
                    .find(|e| e.as_ref().and_then(outage_of) == Some(*id))
                {
                    out.extend(slot.take());
                }
            }
        }
        out.push(draft);
    }
    out.extend(waiting.into_iter().flatten());
    out
}

/// The event an outage opens with.
fn opening(
    outage: &Outage,
    node: Option<NodeId>,
    of: Option<usize>,
    splitter: Option<&str>,
) -> Draft {
    let n = outage.onu_ids.len();
    let port = outage.pon_port.clone().unwrap_or_default();
    let (kind, message) = match outage.kind {
        OutageKind::PonOutage => (
            EventType::PonOutage,
            format!(
                "OLT {}: {n} of {} ONUs on port {port} went down with LOS (likely fibre cut)",
                outage.olt_id,
                of.unwrap_or(n)
            ),
        ),
        OutageKind::SplitterOutage => (
            EventType::SplitterOutage,
            format!(
                "OLT {} port {port}: {n} of {} ONUs behind splitter {} went down with LOS",
                outage.olt_id,
                of.unwrap_or(n),
                splitter.unwrap_or("?")
            ),
        ),
        OutageKind::PowerOutage => (
            EventType::PowerOutage,
            format!(
                "OLT {} port {port}: {n} ONUs lost power ({})",
                outage.olt_id, outage.cause
            ),
        ),
        OutageKind::OltOutage => (
            EventType::OltOutage,
            format!(
                "OLT {} is offline: its {n} ONUs are unreachable",
                outage.olt_id
            ),
        ),
    };
    Draft {
        event: Event {
            id: 0,
            at: outage.started_at,
            kind,
            severity: Severity::Critical,
            olt_id: Some(outage.olt_id),
            node_id: node,
            pon_port: outage.pon_port.clone(),
            onu_id: None,
            szo_id: None,
            message,
            data: json!({
                "outageId": outage.id,
                "cause": outage.cause,
                "onusDown": n,
                "onusOnPort": of,
                "splitterId": outage.splitter_id,
                "contracts": outage.contracts,
            }),
        },
        serial: None,
    }
}

/// The event an outage ends with.
fn clearing(outage: &Outage, node: Option<NodeId>) -> Draft {
    Draft {
        event: Event {
            id: 0,
            at: outage.ended_at.unwrap_or(outage.started_at),
            kind: EventType::OutageCleared,
            severity: Severity::Info,
            olt_id: Some(outage.olt_id),
            node_id: node,
            pon_port: outage.pon_port.clone(),
            onu_id: None,
            szo_id: None,
            message: format!("outage {} ended: {}", outage.id, outage.cause),
            data: json!({
                "outageId": outage.id,
                "outageType": outage.kind.as_str(),
                "onus": outage.onu_ids.len(),
                "startedAt": outage.started_at,
            }),
        },
        serial: None,
    }
}
