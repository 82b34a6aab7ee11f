//! Subscriber bindings (docs/provisioning.md): ONU id → [`Subscriber`] (JSON) in the `subscribers`
//! tree, where they last across restarts. Billing binds its contract to an ONU through
//! `POST /onus/{id}/subscriber`; the service tells the fleet view each binding, and reads
//! them all here once at start for it: the ONU lists show the binding and `GET /onus`
//! finds ONUs by it (`q`, `contract=`) from the view's index, never from this tree. Nothing here ever reaches a device. The deauthorize
//! action removes an ONU's binding, so an ONU authorised again starts with none.

use super::Records;
use ponkeeper_actors::domain::OnuId;
use ponkeeper_actors::store::{flush_tree, StoreError};

pub(super) const SUBSCRIBERS: &str = "subscribers";

pub use ponkeeper_actors::domain::Subscriber;

fn key(id: OnuId) -> [u8; 8] {
    id.to_be_bytes()
}

impl Records {
    /// Every binding, in ONU id order: what the fleet view is given at start.
    pub fn subscribers(&self) -> Result<Vec<(OnuId, Option<Subscriber>)>, StoreError> {
        let mut bindings = Vec::new();
        for entry in self.subscribers.iter() {
            let (k, value) = entry?;
            let Ok(bytes) = <[u8; 8]>::try_from(k.as_ref()) else {
                continue;
            };
            let subscriber: Subscriber = ponkeeper_actors::store::decode(SUBSCRIBERS, &value)?;
            bindings.push((OnuId::from_be_bytes(bytes), Some(subscriber)));
        }
        Ok(bindings)
    }

    /// Binds `subscriber` to the ONU (an empty one removes the binding) and flushes.
    pub async fn bind_subscriber(
        &self,
        id: OnuId,
        subscriber: &Subscriber,
    ) -> Result<(), StoreError> {
        self.store.writable()?;
        if subscriber.is_empty() {
            self.subscribers.remove(key(id))?;
        } else {
            self.subscribers
                .insert(key(id), serde_json::to_vec(subscriber)?)?;
        }
        flush_tree(&self.subscribers).await?;
        Ok(())
    }
}
