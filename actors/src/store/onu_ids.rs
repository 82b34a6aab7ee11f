//! ONU ids: the stable id of each ONU (OLT id + serial → id in `onu_ids`), allocated on
//! first sight by the OLT actor that sees it, and the owner index (id → OLT id and serial
//! in `onu_owners`) through which the service knows which actor to ask about an ONU.
//!
//! In a cluster each member allocates in its own block of ids, and the members copy each
//! other's assignments ([`Store::onu_ids_after`], [`Store::adopt_onu_id`]): a member that
//! takes over an OLT then finds the ids its ONUs already have. Entries written before the
//! serial was kept beside the OLT id (4-byte values) are still read.

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
                    .insert(id.to_be_bytes(), owner_value(olt, serial))?;
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
            .and_then(|v| v.get(..4).and_then(|b| <[u8; 4]>::try_from(b).ok()))
            .map(u32::from_be_bytes))
    }

    /// Up to `limit` ONU id assignments with ids in `(after, before)`, in id order: each
    /// id, its OLT and the ONU's serial.
    pub fn onu_ids_after(
        &self,
        after: OnuId,
        before: OnuId,
        limit: usize,
    ) -> Result<Vec<(OnuId, OltId, String)>, StoreError> {
        let mut found = Vec::new();
        let start = after.saturating_add(1).to_be_bytes();
        for entry in self
            .onu_owners
            .range(start..before.to_be_bytes())
            .take(limit)
        {
            let (key, value) = entry?;
            let (Ok(id), Some(olt)) = (
                <[u8; 8]>::try_from(key.as_ref()).map(u64::from_be_bytes),
                value.get(..4).and_then(|b| <[u8; 4]>::try_from(b).ok()),
            ) else {
                continue;
            };
            let olt = u32::from_be_bytes(olt);
            let serial = match value.get(4..).filter(|s| !s.is_empty()) {
                Some(serial) => String::from_utf8_lossy(serial).into_owned(),
                None => match self.serial_of(olt, id)? {
                    Some(serial) => serial,
                    None => continue,
                },
            };
            found.push((id, olt, serial));
        }
        Ok(found)
    }

    /// The highest ONU id below `before` and above `after` this store knows, if any.
    pub fn last_onu_id_in(&self, after: OnuId, before: OnuId) -> Result<Option<OnuId>, StoreError> {
        let start = after.saturating_add(1).to_be_bytes();
        Ok(self
            .onu_owners
            .range(start..before.to_be_bytes())
            .next_back()
            .transpose()?
            .and_then(|(key, _)| <[u8; 8]>::try_from(key.as_ref()).ok())
            .map(u64::from_be_bytes))
    }

    /// Takes another member's assignment of `id` to the ONU `serial` on `olt`, unless this
    /// store has an id for that ONU already; `true` when taken.
    pub fn adopt_onu_id(&self, olt: OltId, serial: &str, id: OnuId) -> Result<bool, StoreError> {
        self.writable()?;
        let mut key = olt.to_be_bytes().to_vec();
        key.extend_from_slice(serial.as_bytes());
        let swapped = self.onu_ids.compare_and_swap(
            &key,
            None as Option<&[u8]>,
            Some(&id.to_be_bytes()[..]),
        )?;
        if swapped.is_err() {
            return Ok(false);
        }
        self.onu_owners
            .insert(id.to_be_bytes(), owner_value(olt, serial))?;
        Ok(true)
    }

    /// The serial `onu_ids` holds for `id` on `olt` (for entries kept without one).
    fn serial_of(&self, olt: OltId, id: OnuId) -> Result<Option<String>, StoreError> {
        for entry in self.onu_ids.scan_prefix(olt.to_be_bytes()) {
            let (key, value) = entry?;
            if value.as_ref() == id.to_be_bytes() {
                return Ok(Some(String::from_utf8_lossy(&key[4..]).into_owned()));
            }
        }
        Ok(None)
    }
}

/// An `onu_owners` value: the OLT id, then the serial.
fn owner_value(olt: OltId, serial: &str) -> Vec<u8> {
    let mut value = olt.to_be_bytes().to_vec();
    value.extend_from_slice(serial.as_bytes());
    value
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

    #[test]
    fn assignments_copy_from_one_member_to_another_and_never_overwrite() {
        let (a_dir, b_dir) = (
            tempfile::tempdir().expect("a"),
            tempfile::tempdir().expect("b"),
        );
        let a = Store::open(a_dir.path()).expect("a").with_id_block(1);
        let b = Store::open(b_dir.path()).expect("b").with_id_block(2);
        let block = |n: u64| {
            (
                n << super::super::ID_BLOCK_BITS,
                (n + 1) << super::super::ID_BLOCK_BITS,
            )
        };
        let first = a.onu_id(7, "HWTC00000001").expect("id");
        let second = a.onu_id(7, "HWTC00000002").expect("id");
        let (lo, hi) = block(1);
        let copied = a.onu_ids_after(lo, hi, 10).expect("after");
        assert_eq!(
            copied,
            vec![
                (first, 7, "HWTC00000001".to_string()),
                (second, 7, "HWTC00000002".to_string())
            ]
        );
        assert_eq!(a.onu_ids_after(first, hi, 10).expect("after").len(), 1);
        // b had seen the second ONU itself (while it ran OLT 7): its own id stays.
        let own = b.onu_id(7, "HWTC00000002").expect("id");
        for (id, olt, serial) in copied {
            b.adopt_onu_id(olt, &serial, id).expect("adopt");
        }
        assert_eq!(
            b.onu_id(7, "HWTC00000001").expect("id"),
            first,
            "the copied id"
        );
        assert_eq!(
            b.onu_id(7, "HWTC00000002").expect("id"),
            own,
            "its own id kept"
        );
        assert_eq!(b.onu_owner(first).expect("owner"), Some(7));
        assert_eq!(b.last_onu_id_in(lo, hi).expect("last"), Some(first));
        assert_eq!(
            b.last_onu_id_in(block(3).0, block(3).1).expect("last"),
            None
        );
    }

    #[test]
    fn entries_kept_without_a_serial_are_still_copied() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let id = store.onu_id(3, "ZTEG00000009").expect("id");
        // As a store from before the serial was kept beside the OLT id.
        store
            .onu_owners
            .insert(id.to_be_bytes(), &3u32.to_be_bytes())
            .expect("old form");
        assert_eq!(store.onu_owner(id).expect("owner"), Some(3));
        let copied = store.onu_ids_after(0, u64::MAX, 5).expect("after");
        assert_eq!(copied, vec![(id, 3, "ZTEG00000009".to_string())]);
    }
}
