//! ONU ids: the stable id of each ONU (OLT id + serial → id in `onu_ids`), allocated on
//! first sight by the OLT actor that sees it, and the owner index (id → OLT id in
//! `onu_owners`) through which the service knows which actor to ask about an ONU.

use super::{Store, StoreError};
use crate::domain::{OltId, OnuId};

pub(super) const ONU_IDS: &str = "onu_ids";
pub(super) const ONU_OWNERS: &str = "onu_owners";

impl Store {
    /// The stable id of the ONU with `serial` on `olt`, allocated on first sight.
    pub fn onu_id(&self, olt: OltId, serial: &str) -> Result<OnuId, StoreError> {
        let mut key = olt.to_be_bytes().to_vec();
        key.extend_from_slice(serial.as_bytes());
        if let Some(existing) = self.onu_ids.get(&key)? {
            if let Ok(bytes) = <[u8; 8]>::try_from(existing.as_ref()) {
                return Ok(u64::from_be_bytes(bytes));
            }
        }
        let id = self.next_id()?;
        match self.onu_ids.compare_and_swap(
            &key,
            None as Option<&[u8]>,
            Some(&id.to_be_bytes()[..]),
        )? {
            Ok(()) => {
                self.onu_owners
                    .insert(id.to_be_bytes(), &olt.to_be_bytes())?;
                Ok(id)
            }
            Err(conflict) => {
                let current = conflict.current.as_deref().unwrap_or_default();
                Ok(<[u8; 8]>::try_from(current)
                    .map(u64::from_be_bytes)
                    .unwrap_or(id))
            }
        }
    }

    /// The OLT an ONU id belongs to.
    pub fn onu_owner(&self, onu: OnuId) -> Result<Option<OltId>, StoreError> {
        Ok(self
            .onu_owners
            .get(onu.to_be_bytes())?
            .and_then(|v| <[u8; 4]>::try_from(v.as_ref()).ok())
            .map(u32::from_be_bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn onu_ids_are_stable_and_distinct() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let a = store.onu_id(1, "HWTC00000001").expect("id");
        let b = store.onu_id(1, "HWTC00000002").expect("id");
        let c = store.onu_id(2, "HWTC00000001").expect("id");
        assert_eq!(store.onu_owner(c).expect("owner"), Some(2));
        assert_eq!(store.onu_owner(b).expect("owner"), Some(1));
        assert_ne!(a, b);
        assert_ne!(a, c);
        assert_eq!(store.onu_id(1, "HWTC00000001").expect("id"), a);
        drop(store);
        let reopened = Store::open(dir.path()).expect("reopen");
        assert_eq!(reopened.onu_id(1, "HWTC00000002").expect("id"), b);
    }

    #[test]
    fn a_members_block_offsets_new_ids_and_keeps_stored_ones() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let old = store.onu_id(1, "HWTC00000001").expect("id");
        drop(store);
        let member = Store::open(dir.path()).expect("reopen").with_id_block(3);
        assert_eq!(member.onu_id(1, "HWTC00000001").expect("id"), old);
        let new = member.onu_id(1, "HWTC00000002").expect("id");
        assert_eq!(new >> super::super::ID_BLOCK_BITS, 3, "{new:#x}");
        assert_eq!(member.onu_owner(new).expect("owner"), Some(1));
    }
}
