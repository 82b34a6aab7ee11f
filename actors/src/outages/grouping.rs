//! How fresh downs are grouped into outages, by the rules of `[outages]`: LOS downs of a
//! port into a feeder cut or splitter cuts (the most upstream splitter whose branches are
//! dark), dying-gasp downs into power cuts by splitter, subscriber address or port. The
//! book ([`super::book`]) hands each port's fresh downs here and opens what comes back.

use super::{FleetRows, OutageKind, OutageRules, Plant, Splitter};
use crate::domain::{OltId, OnuId};
use std::collections::{BTreeMap, BTreeSet};

/// Where a new outage is and what it holds, before it has an id.
pub(super) struct Found {
    pub(super) kind: OutageKind,
    pub(super) cause: String,
    pub(super) port: Option<String>,
    pub(super) splitter: Option<SplitterRef>,
    pub(super) address: Option<String>,
    pub(super) onus: Vec<OnuId>,
    /// How many ONUs its scope holds (for the message), when the scope is counted.
    pub(super) of: Option<usize>,
}

#[derive(Clone)]
pub(super) struct SplitterRef {
    pub(super) id: u32,
    pub(super) name: String,
}

impl OutageRules {
    pub(super) fn minimum(&self, kind: OutageKind) -> usize {
        match kind {
            OutageKind::PonOutage => self.port_min,
            OutageKind::SplitterOutage => self.splitter_min,
            OutageKind::PowerOutage => self.power_min,
            OutageKind::OltOutage => 1,
        }
    }

    /// LOS downs of one port: the whole port's feeder when most of the port is dark, else
    /// each splitter (first-level first) most of whose ONUs are dark.
    pub(super) fn fibre(
        &self,
        olt: OltId,
        port: &str,
        mut los: BTreeSet<OnuId>,
        rows: &impl FleetRows,
        plant: &Plant,
    ) -> Vec<Found> {
        let on_port = rows.onus_on_port(olt, port);
        let most = |dark: usize, of: usize, min: usize, share: f64| {
            dark >= min.max(1) && dark as f64 >= share * of as f64
        };
        if most(los.len(), on_port, self.port_min, self.port_share) {
            return vec![Found {
                kind: OutageKind::PonOutage,
                cause: format!("feeder fibre of PON port {port}"),
                port: Some(port.to_string()),
                splitter: None,
                address: None,
                of: Some(on_port),
                onus: los.into_iter().collect(),
            }];
        }
        // A first-level splitter is where the fault is when two or more of what hangs
        // under it (its own ONUs, each second-level splitter) are mostly dark; with one,
        // the fault is at that one.
        let mut found = Vec::new();
        let splitter_found = |splitter: &Splitter, dark: Vec<OnuId>, of: usize| Found {
            kind: OutageKind::SplitterOutage,
            cause: format!("fibre at splitter {}", splitter.name),
            port: Some(port.to_string()),
            splitter: Some(reference(splitter)),
            address: None,
            of: Some(of),
            onus: dark,
        };
        let first_level = plant
            .on_port(olt, port)
            .into_iter()
            .filter(|s| s.parent_id.is_none());
        for top in first_level {
            let mut branches: Vec<(&Splitter, BTreeSet<OnuId>)> =
                vec![(top, plant.placed_under(top.id).into_iter().collect())];
            for child in plant.children(top.id) {
                if let Some(child) = plant.splitter(child) {
                    branches.push((child, plant.behind(child.id)));
                }
            }
            let dark: Vec<(&Splitter, Vec<OnuId>, usize)> = branches
                .into_iter()
                .filter(|(_, onus)| !onus.is_empty())
                .map(|(s, onus)| {
                    (
                        s,
                        los.intersection(&onus).copied().collect::<Vec<_>>(),
                        onus.len(),
                    )
                })
                .filter(|(_, d, of)| most(d.len(), *of, 1, self.splitter_share))
                .collect();
            let picked: Vec<(&Splitter, Vec<OnuId>, usize)> = if dark.len() >= 2 {
                let behind = plant.behind(top.id);
                let all: Vec<OnuId> = los.intersection(&behind).copied().collect();
                vec![(top, all, behind.len())]
            } else {
                dark
            };
            for (splitter, onus, of) in picked {
                if onus.len() < self.splitter_min.max(1) {
                    continue;
                }
                for onu in &onus {
                    los.remove(onu);
                }
                found.push(splitter_found(splitter, onus, of));
            }
        }
        found
    }

    /// Dying-gasp downs of one port, grouped by splitter, else by subscriber address,
    /// else by the port itself.
    pub(super) fn power(
        &self,
        port: &str,
        gasps: Vec<OnuId>,
        rows: &impl FleetRows,
        plant: &Plant,
    ) -> Vec<Found> {
        let mut by_splitter: BTreeMap<u32, Vec<OnuId>> = BTreeMap::new();
        let mut by_address: BTreeMap<String, Vec<OnuId>> = BTreeMap::new();
        let mut rest = Vec::new();
        for onu in gasps {
            if let Some(splitter) = plant.splitter_of(onu) {
                by_splitter.entry(splitter.id).or_default().push(onu);
            } else if let Some(address) = address_of(rows, onu) {
                by_address.entry(address).or_default().push(onu);
            } else {
                rest.push(onu);
            }
        }
        let mut found = Vec::new();
        let power =
            |cause: String, splitter: Option<SplitterRef>, address, onus: Vec<OnuId>| Found {
                kind: OutageKind::PowerOutage,
                cause,
                port: Some(port.to_string()),
                splitter,
                address,
                of: None,
                onus,
            };
        for (id, onus) in by_splitter {
            match plant.splitter(id) {
                Some(s) if onus.len() >= self.power_min => found.push(power(
                    format!("power behind splitter {}", s.name),
                    Some(reference(s)),
                    None,
                    onus,
                )),
                _ => rest.extend(onus),
            }
        }
        for (address, onus) in by_address {
            if onus.len() >= self.power_min {
                found.push(power(
                    format!("power at {address}"),
                    None,
                    Some(address),
                    onus,
                ));
            } else {
                rest.extend(onus);
            }
        }
        if rest.len() >= self.power_min {
            found.push(power(format!("power on PON port {port}"), None, None, rest));
        }
        found
    }
}

fn reference(splitter: &Splitter) -> SplitterRef {
    SplitterRef {
        id: splitter.id,
        name: splitter.name.clone(),
    }
}

/// The subscriber address an ONU is bound to, trimmed; `None` when unbound or blank.
pub(super) fn address_of(rows: &impl FleetRows, onu: OnuId) -> Option<String> {
    rows.subscriber(onu)
        .and_then(|s| s.address.as_deref())
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .map(str::to_string)
}
