//! ONU tables: each OLT's whole ONU table under its id in the `onus` tree, in the binary
//! form of [`onu_table_encoding`] (older JSON records are still read). An OLT actor writes
//! its table after a poll that changed it and reads it back at start-up.

use super::{get_json, onu_table_encoding, Store, StoreError};
use crate::domain::{OltId, Onu};
use chrono::{DateTime, Utc};

pub(super) const ONUS: &str = "onus";

impl Store {
    /// The ONU table of `olt`, in either encoding (see [`onu_table_encoding`]); ONUs seen
    /// in the table's latest poll take the later of its time and `last_success_at`.
    pub fn load_onus(
        &self,
        olt: OltId,
        last_success_at: Option<DateTime<Utc>>,
    ) -> Result<Vec<Onu>, StoreError> {
        let key = olt.to_be_bytes();
        match self.onus.get(key)? {
            None => Ok(Vec::new()),
            Some(bytes) if onu_table_encoding::is_binary(&bytes) => {
                onu_table_encoding::decode(&bytes, last_success_at).map_err(|reason| {
                    StoreError::Corrupt {
                        tree: ONUS,
                        key: format!("{key:?}"),
                        reason,
                    }
                })
            }
            Some(_) => Ok(get_json(&self.onus, ONUS, &key)?.unwrap_or_default()),
        }
    }

    /// Writes the ONU table of `olt`; `polled_at` is the time of the poll the table last
    /// merged (its ONUs with that `last_update` are stored without a time).
    pub fn save_onus(
        &self,
        olt: OltId,
        onus: &[Onu],
        polled_at: Option<DateTime<Utc>>,
    ) -> Result<(), StoreError> {
        self.writable()?;
        self.onus.insert(
            olt.to_be_bytes(),
            onu_table_encoding::encode(onus, polled_at),
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Reading;

    #[test]
    fn onu_tables_in_the_old_json_encoding_are_read_and_rewritten_in_binary() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("open");
        let seen = DateTime::from_timestamp(1_800_000_000, 250).expect("time");
        let onu = Onu {
            id: 9,
            olt_id: 3,
            pon_port: "0/1/0".into(),
            onu_index: 4,
            serial: "HWTC00000009".into(),
            description: "contract 9".into(),
            status: crate::domain::OnuStatus::Online,
            last_down_cause: None,
            distance: Some(900),
            rx_power: Some(-20.5).into(),
            tx_power: Some(2.0).into(),
            olt_rx_power: Reading::NONE,
            temperature: Reading::NONE,
            voltage: Reading::NONE,
            bias_current: Reading::NONE,
            vlan: Some(100),
            last_update: seen,
            optics_at: None,
        };
        // What versions before the binary encoding wrote.
        store
            .onus
            .insert(
                3u32.to_be_bytes(),
                serde_json::to_vec(&[&onu]).expect("json"),
            )
            .expect("insert");
        assert_eq!(
            store.load_onus(3, Some(seen)).expect("load"),
            vec![onu.clone()]
        );

        store
            .save_onus(3, std::slice::from_ref(&onu), Some(seen))
            .expect("save");
        let raw = store
            .onus
            .get(3u32.to_be_bytes())
            .expect("get")
            .expect("some");
        assert!(onu_table_encoding::is_binary(&raw));
        assert_eq!(
            store.load_onus(3, Some(seen)).expect("load"),
            vec![onu.clone()]
        );
        // A later good poll that changed nothing left the table as it was.
        let later = seen + chrono::Duration::seconds(60);
        let loaded = store.load_onus(3, Some(later)).expect("load");
        assert_eq!(loaded[0].last_update, later);
    }
}
