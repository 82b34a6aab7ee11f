//! ONU questions of the fleet view: `GET /onus`, `GET /optics` and the metrics' worst
//! readings. An index narrows the rows where one can (a contract's bound ONUs, a serial,
//! an OLT, text by trigrams, a node), the optics order serves worst-first lists by level,
//! and every candidate is then checked against the whole search, so each answer is exact
//! and costs what its page costs.

use super::{hundredths_at_or_below, level_slot, optics_cut, optics_id, page_of, ABSENT_RX};
use super::{FleetAggregate, OnuSearch, OpticsKey, Page, Window};
use crate::domain::{Onu, OnuId, OnuStatus, OpticsLevel};
use crate::onu_table::{key_contains, OnuOrder};
use std::ops::Bound;

impl FleetAggregate {
    fn admits(&self, search: &OnuSearch, text: Option<&str>, onu: &Onu) -> bool {
        search.status.is_none_or(|s| onu.status == s)
            && search
                .pon_port
                .as_deref()
                .is_none_or(|p| onu.pon_port.eq_ignore_ascii_case(p))
            && search
                .serial
                .as_deref()
                .is_none_or(|s| onu.serial.eq_ignore_ascii_case(s))
            && text.is_none_or(|t| {
                key_contains(&onu.serial, &onu.description, t) || self.bindings.mentions(onu.id, t)
            })
            && search.contract.as_deref().is_none_or(|contract| {
                self.bindings
                    .with_contract(contract)
                    .binary_search(&onu.id)
                    .is_ok()
            })
            && search
                .level
                .is_none_or(|l| self.thresholds.level(onu.rx_power.get()) == l)
            && search
                .among
                .as_ref()
                .is_none_or(|among| among.binary_search(&onu.id).is_ok())
            && search
                .excluding
                .as_ref()
                .is_none_or(|excluded| excluded.binary_search(&onu.id).is_err())
            && (search.olt_id.is_none() && search.node_id.is_none()
                || self
                    .olts
                    .get(&onu.olt_id)
                    .is_some_and(|o| self.in_scope(search, onu.olt_id, &o.summary)))
    }

    /// ONUs matching `search` in `order`: the count and the window's page.
    pub fn onus(&self, search: &OnuSearch, order: OnuOrder, window: Window) -> Page<Onu> {
        let text = search.text.as_deref().map(str::to_lowercase);
        let admits = |onu: &&Onu| self.admits(search, text.as_deref(), onu);
        let show = |onu: &Onu| onu.clone();
        if let Some(ids) = self.candidates(search, text.as_deref()) {
            let mut hits: Vec<&Onu> = ids
                .iter()
                .filter_map(|&id| self.known_onu(id))
                .filter(admits)
                .collect();
            hits.sort_by(|a, b| order.compare(a, b));
            hits.dedup_by_key(|onu| onu.id);
            return page_of(hits.into_iter(), window, None, show);
        }
        let only_status = *search
            == OnuSearch {
                status: search.status,
                ..OnuSearch::default()
            };
        let only_level = *search
            == OnuSearch {
                level: search.level,
                ..OnuSearch::default()
            };
        match order {
            OnuOrder::Id => {
                let known = only_status.then(|| match search.status {
                    None => self.onus.len(),
                    Some(OnuStatus::Offline) => self.offline.len(),
                    Some(OnuStatus::Online) => self.onus.len() - self.offline.len(),
                });
                if search.status == Some(OnuStatus::Offline) {
                    let rows = self.offline.iter().filter_map(|&id| self.known_onu(id));
                    return page_of(rows.filter(admits), window, known, show);
                }
                let rows = self.onus.values().filter_map(|place| self.row_at(place));
                page_of(rows.filter(admits), window, known, show)
            }
            OnuOrder::WorstRx => {
                let known = only_level.then(|| match search.level {
                    None => self.onus.len(),
                    Some(level) => self.per_level[level_slot(level)],
                });
                let rows = self
                    .optics_from(search.level)
                    .filter_map(|key| self.known_onu(optics_id(key)));
                page_of(rows.filter(admits), window, known, show)
            }
        }
    }

    /// The stretch of the optics order that holds `level` (Rx at or below a threshold
    /// is worse), or all of it.
    fn optics_from(&self, level: Option<OpticsLevel>) -> impl Iterator<Item = &OpticsKey> {
        let t = &self.thresholds;
        let critical = optics_cut(hundredths_at_or_below(t.critical_dbm));
        let warning = optics_cut(hundredths_at_or_below(t.warning_dbm));
        let absent: OpticsKey = (ABSENT_RX, [0; 2]);
        let (start, end) = match level {
            None => (Bound::Unbounded, Bound::Unbounded),
            Some(OpticsLevel::Critical) => (Bound::Unbounded, Bound::Included(critical)),
            Some(OpticsLevel::Warning) => (Bound::Excluded(critical), Bound::Included(warning)),
            Some(OpticsLevel::Ok) => (Bound::Excluded(warning), Bound::Excluded(absent)),
            Some(OpticsLevel::Unknown) => (Bound::Included(absent), Bound::Unbounded),
        };
        // A range that starts after it ends (thresholds set the wrong way round) is empty.
        let empty = match (start, end) {
            (Bound::Excluded(s), Bound::Included(e) | Bound::Excluded(e)) => s >= e,
            _ => false,
        };
        let range = if empty {
            None
        } else {
            Some(self.optics.range((start, end)))
        };
        range.into_iter().flatten()
    }

    /// The ONUs an index narrows `search` to, when one does (in no order, perhaps with
    /// rows the other filters reject); `None` when every row must be read.
    fn candidates(&self, search: &OnuSearch, text: Option<&str>) -> Option<Vec<OnuId>> {
        if let Some(among) = &search.among {
            return Some(among.clone());
        }
        if let Some(contract) = &search.contract {
            return Some(self.bindings.with_contract(contract).to_vec());
        }
        if let Some(serial) = &search.serial {
            return Some(self.by_serial.candidates(serial).collect());
        }
        if let Some(olt) = search.olt_id {
            return Some(
                self.olts
                    .get(&olt)
                    .map(|e| e.table.iter().map(|onu| onu.id).collect())
                    .unwrap_or_default(),
            );
        }
        if let Some(text) = text.filter(|t| t.chars().nth(2).is_some()) {
            let mut ids = self.text.search(text, |id| {
                self.known_onu(id)
                    .is_some_and(|onu| key_contains(&onu.serial, &onu.description, text))
            });
            ids.extend(self.bindings.mentioning(text));
            return Some(ids);
        }
        let node = search.node_id?;
        Some(
            self.olts
                .values()
                .filter(|e| e.summary.node == Some(node))
                .flat_map(|e| e.table.iter().map(|onu| onu.id))
                .collect(),
        )
    }
}
