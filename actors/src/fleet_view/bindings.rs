//! Subscriber bindings as the fleet view holds them: each bound ONU's [`Subscriber`], a
//! text index over its fields (the same trigram index the rows' serials and descriptions
//! have, so `GET /onus?q=иванов` finds a binding without reading every one) and the bound
//! ONUs by lower-cased contract (`?contract=`). The service's records keep the bindings
//! on disk and tell the view each change ([`super::FleetViewHandle::bind`]); the view
//! answers every list with the binding of each row it returns.

use super::text_index::{Slot, TextIndex};
use crate::domain::{OnuId, Subscriber};
use std::collections::HashMap;

type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

#[derive(Debug, Default)]
pub struct Bindings {
    /// Bound ONU → its binding and the slot of its fields' text.
    by_onu: Map<OnuId, (Subscriber, Slot)>,
    /// The trigrams of every binding's lower-cased `contract \0 name \0 address \0 note`.
    text: TextIndex,
    /// Lower-cased contract → the ONUs bound to it, sorted.
    by_contract: Map<String, Vec<OnuId>>,
}

/// What `q` is looked for in: every field, lower-cased.
fn search_text(subscriber: &Subscriber) -> String {
    let fields: Vec<&str> = subscriber
        .fields()
        .iter()
        .map(|(_, value)| value.unwrap_or(""))
        .collect();
    fields.join("\0").to_lowercase()
}

impl Bindings {
    /// Binds `subscriber` to ONU `id`, or unbinds it (`None`, or a binding with nothing in
    /// it).
    pub fn set(&mut self, id: OnuId, subscriber: Option<Subscriber>) {
        if let Some((old, slot)) = self.by_onu.remove(&id) {
            self.text.remove(slot, &search_text(&old));
            if let Some(contract) = &old.contract {
                let key = contract.to_lowercase();
                if let Some(ids) = self.by_contract.get_mut(&key) {
                    ids.retain(|bound| *bound != id);
                    if ids.is_empty() {
                        self.by_contract.remove(&key);
                    }
                }
            }
        }
        let Some(subscriber) = subscriber.filter(|s| !s.is_empty()) else {
            return;
        };
        if let Some(contract) = &subscriber.contract {
            let ids = self.by_contract.entry(contract.to_lowercase()).or_default();
            if let Err(at) = ids.binary_search(&id) {
                ids.insert(at, id);
            }
        }
        let slot = self.text.insert(id, search_text(&subscriber));
        self.by_onu.insert(id, (subscriber, slot));
    }

    /// ONU `id`'s binding, if it has one.
    pub fn get(&self, id: OnuId) -> Option<&Subscriber> {
        self.by_onu.get(&id).map(|(subscriber, _)| subscriber)
    }

    /// Whether ONU `id`'s binding mentions `needle` (lower-cased) in any field.
    pub fn mentions(&self, id: OnuId, needle: &str) -> bool {
        self.by_onu
            .get(&id)
            .is_some_and(|(subscriber, _)| search_text(subscriber).contains(needle))
    }

    /// The ONUs whose binding mentions `needle` (lower-cased), in no order.
    pub fn mentioning(&self, needle: &str) -> Vec<OnuId> {
        self.text.search(needle, |id| self.mentions(id, needle))
    }

    /// The ONUs bound to `contract` (exact, any case), sorted.
    pub fn with_contract(&self, contract: &str) -> &[OnuId] {
        self.by_contract
            .get(&contract.to_lowercase())
            .map_or(&[], Vec::as_slice)
    }

    /// Whether no ONU is bound.
    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.by_onu.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subscriber(contract: &str, name: &str) -> Subscriber {
        Subscriber {
            contract: Some(contract.into()),
            name: Some(name.into()),
            ..Subscriber::default()
        }
    }

    #[test]
    fn finds_by_any_field_and_by_contract_and_forgets_what_is_unbound() {
        let mut bindings = Bindings::default();
        bindings.set(7, Some(subscriber("Д-2024/117", "Иванов Пётр")));
        bindings.set(9, Some(subscriber("д-2024/117", "Сидорова")));
        assert_eq!(bindings.with_contract("Д-2024/117"), [7, 9]);
        let mut found = bindings.mentioning("иванов");
        found.sort_unstable();
        assert_eq!(found, [7]);
        assert!(bindings.mentions(9, "сидор"));
        assert!(!bindings.mentions(9, "иванов"));

        // A new binding replaces the old one everywhere.
        bindings.set(7, Some(subscriber("К-1", "Петров")));
        assert_eq!(bindings.with_contract("Д-2024/117"), [9]);
        assert_eq!(bindings.with_contract("к-1"), [7]);
        assert!(bindings.mentioning("иванов").is_empty());

        // An empty binding unbinds, as `None` does.
        bindings.set(7, Some(Subscriber::default()));
        bindings.set(9, None);
        assert!(bindings.is_empty());
        assert!(bindings.with_contract("к-1").is_empty());
        assert!(bindings.mentioning("петров").is_empty());
        assert_eq!(bindings.get(7), None);
    }
}
