//! The facts a notification names, gathered when it is sent: the OLT (model, address,
//! city) and its node, the PON port, the splitter and its address, how many ONUs, the
//! subscribers (contract and name) and the СЗО hit. An outage's come from the outage and
//! the subscriber bindings, a lone ONU's from its row; whatever cannot be read now (the
//! fleet view busy, an ONU since removed) is left out rather than holding the message.

use crate::alarms::Alarm;
use crate::records::Records;
use ponkeeper_actors::domain::{NodeId, OnuId, Subscriber};
use ponkeeper_actors::inventory::Inventory;
use ponkeeper_actors::supervisor::Fleet;
use std::sync::Arc;

/// What a message says about its alarm beyond the alarm itself.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    /// `OLT 3 (BDCOM P3310, 10.0.0.3, Kazan)`.
    pub olt: Option<String>,
    pub node: Option<(NodeId, String)>,
    pub pon_port: Option<String>,
    /// `S-12, Lenina 5`.
    pub splitter: Option<String>,
    /// The address a power outage was grouped by.
    pub address: Option<String>,
    /// How many ONUs an outage took down.
    pub onus: Option<usize>,
    /// A lone ONU: its serial and description.
    pub onu: Option<String>,
    /// `Д-2024/117 Ivanova A. P.`, one per contract.
    pub subscribers: Vec<String>,
    /// The СЗО hit, by name.
    pub szo: Vec<String>,
}

/// The inventory in force (it changes on SIGHUP).
pub type InventoryNow = Arc<dyn Fn() -> Arc<Inventory> + Send + Sync>;

/// Gathers facts from the running service: the fleet view, the records (splitters), the
/// inventory.
#[derive(Clone)]
pub struct Gatherer {
    pub fleet: Fleet,
    pub records: Records,
    pub inventory: InventoryNow,
}

impl Gatherer {
    pub async fn gather(&self, alarm: &Alarm) -> Facts {
        let inventory = (self.inventory)();
        let mut facts = Facts::default();
        if let Some(olt) = alarm.olt_id.and_then(|id| inventory.olt(id)) {
            facts.olt = Some(format!(
                "OLT {} ({}, {}, {})",
                olt.id, olt.model, olt.ip, olt.city
            ));
            facts.node = olt
                .node
                .and_then(|id| inventory.node(id))
                .map(|n| (n.id, n.name.clone()));
        }
        if let Some((_, port)) = alarm
            .object
            .strip_prefix("port:")
            .and_then(|rest| rest.split_once(':'))
        {
            facts.pon_port = Some(port.to_string());
        }
        let onus = if let Some(id) = alarm.outage_id {
            self.outage(id, &mut facts).await
        } else {
            alarm.onu_id.into_iter().collect()
        };
        if onus.is_empty() {
            return facts;
        }
        let view = self.fleet.view();
        let Ok(rows) = view.onus_by_id(onus.clone()).await else {
            return facts;
        };
        let serials: Vec<String> = rows
            .iter()
            .flatten()
            .map(|r| r.onu.serial.as_str().to_lowercase())
            .collect();
        facts.szo = inventory
            .szo
            .iter()
            .filter(|s| serials.contains(&s.onu_serial.to_lowercase()))
            .map(|s| s.name.clone())
            .collect();
        let mut named: Vec<String> = rows
            .iter()
            .flatten()
            .filter_map(|r| r.subscriber.as_ref().and_then(subscriber))
            .collect();
        named.sort();
        named.dedup();
        if !named.is_empty() {
            facts.subscribers = named;
        }
        if alarm.outage_id.is_none() {
            if let Some(row) = rows.into_iter().flatten().next() {
                facts.pon_port = Some(row.onu.pon_port.to_string());
                facts.onu = Some(match row.onu.description.trim() {
                    "" => row.onu.serial.into(),
                    description => format!("{} «{description}»", row.onu.serial),
                });
            }
        }
        facts
    }

    /// Fills in what the outage `id` says; its ONUs.
    async fn outage(&self, id: u64, facts: &mut Facts) -> Vec<OnuId> {
        let Ok(Some(outage)) = self.fleet.view().outage(id).await else {
            return Vec::new();
        };
        facts.pon_port = outage.pon_port.clone();
        facts.address = outage.address.clone();
        facts.onus = Some(outage.onu_ids.len());
        facts.subscribers = outage.contracts.clone();
        if let Some(splitter) = outage
            .splitter_id
            .and_then(|s| self.records.splitter(s).ok().flatten())
        {
            facts.splitter = Some(match splitter.address {
                Some(address) => format!("{}, {address}", splitter.name),
                None => splitter.name,
            });
        }
        outage.onu_ids
    }
}

/// `contract name`, or whichever of the two is bound.
fn subscriber(binding: &Subscriber) -> Option<String> {
    match (&binding.contract, &binding.name) {
        (Some(contract), Some(name)) => Some(format!("{contract} {name}")),
        (Some(one), None) | (None, Some(one)) => Some(one.clone()),
        (None, None) => None,
    }
}
