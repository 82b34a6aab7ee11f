//! Subscriber bindings (docs/provisioning.md): ONU id → [`Subscriber`] (JSON) in the `subscribers`
//! tree. Billing binds its contract to an ONU through `POST /onus/{id}/subscriber`
//! ([`crate::api::subscriber`]); the ONU lists show the binding and `GET /onus` finds
//! ONUs by it (`q`, `contract=`). Nothing here ever reaches a device. The deauthorize
//! action removes an ONU's binding, so an ONU authorised again starts with none.

use super::Records;
use ponkeeper_actors::domain::OnuId;
use ponkeeper_actors::store::{flush_tree, get_json, StoreError};
use serde::{Deserialize, Serialize};

pub(super) const SUBSCRIBERS: &str = "subscribers";

/// Who an ONU serves, as billing knows them; every field may be absent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Subscriber {
    /// The billing contract, e.g. `Д-2024/117`.
    pub contract: Option<String>,
    pub name: Option<String>,
    pub address: Option<String>,
    pub note: Option<String>,
}

impl Subscriber {
    /// True when no field holds anything: binding it removes the binding.
    pub fn is_empty(&self) -> bool {
        self.fields().iter().all(|(_, v)| v.is_none())
    }

    /// The fields by their API names.
    pub fn fields(&self) -> [(&'static str, Option<&str>); 4] {
        [
            ("contract", self.contract.as_deref()),
            ("name", self.name.as_deref()),
            ("address", self.address.as_deref()),
            ("note", self.note.as_deref()),
        ]
    }

    /// True when any field contains `needle` (already lower-cased).
    fn mentions(&self, needle: &str) -> bool {
        self.fields()
            .iter()
            .any(|(_, v)| v.is_some_and(|v| v.to_lowercase().contains(needle)))
    }
}

fn key(id: OnuId) -> [u8; 8] {
    id.to_be_bytes()
}

impl Records {
    /// The ONU's binding, if it has one.
    pub fn subscriber(&self, id: OnuId) -> Result<Option<Subscriber>, StoreError> {
        get_json(&self.subscribers, SUBSCRIBERS, &key(id))
    }

    /// Binds `subscriber` to the ONU (an empty one removes the binding) and flushes.
    pub async fn bind_subscriber(
        &self,
        id: OnuId,
        subscriber: &Subscriber,
    ) -> Result<(), StoreError> {
        if subscriber.is_empty() {
            self.subscribers.remove(key(id))?;
        } else {
            self.subscribers
                .insert(key(id), serde_json::to_vec(subscriber)?)?;
        }
        flush_tree(&self.subscribers).await?;
        Ok(())
    }

    /// Every ONU whose binding passes `wanted`, in id order.
    fn bound_where(&self, wanted: impl Fn(&Subscriber) -> bool) -> Result<Vec<OnuId>, StoreError> {
        let mut ids = Vec::new();
        for entry in self.subscribers.iter() {
            let (k, value) = entry?;
            let Ok(bytes) = <[u8; 8]>::try_from(k.as_ref()) else {
                continue;
            };
            let subscriber: Subscriber = ponkeeper_actors::store::decode(SUBSCRIBERS, &value)?;
            if wanted(&subscriber) {
                ids.push(OnuId::from_be_bytes(bytes));
            }
        }
        Ok(ids)
    }

    /// ONUs whose contract is `contract` (exact, any case).
    pub fn bound_to_contract(&self, contract: &str) -> Result<Vec<OnuId>, StoreError> {
        let wanted = contract.to_lowercase();
        self.bound_where(|s| {
            s.contract
                .as_deref()
                .is_some_and(|c| c.to_lowercase() == wanted)
        })
    }

    /// ONUs whose binding mentions `text` in any field (any case).
    pub fn bound_mentioning(&self, text: &str) -> Result<Vec<OnuId>, StoreError> {
        let needle = text.to_lowercase();
        self.bound_where(|s| s.mentions(&needle))
    }
}
