//! An OLT's own polling (`poll = { optics = "30m" }` in its `[[olts]]` entry): the
//! intervals of its poll groups and its request rate, where they differ from `[polling]`
//! and the vendor's defaults (docs/polling.md). A fragile OLT gets a slower pace here
//! without slowing the fleet.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The `poll` table of an OLT; every key is optional.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PollOverrides {
    #[serde(
        default,
        with = "humantime_serde",
        skip_serializing_if = "Option::is_none"
    )]
    pub status: Option<Duration>,
    #[serde(
        default,
        with = "humantime_serde",
        skip_serializing_if = "Option::is_none"
    )]
    pub identity: Option<Duration>,
    #[serde(
        default,
        with = "humantime_serde",
        skip_serializing_if = "Option::is_none"
    )]
    pub optics: Option<Duration>,
    #[serde(
        default,
        with = "humantime_serde",
        skip_serializing_if = "Option::is_none"
    )]
    pub olt: Option<Duration>,
    #[serde(
        default,
        with = "humantime_serde",
        skip_serializing_if = "Option::is_none"
    )]
    pub traffic: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_requests_per_second: Option<u32>,
}

impl PollOverrides {
    /// Whether the table sets nothing (it is then left out of the written inventory).
    pub fn is_empty(&self) -> bool {
        *self == PollOverrides::default()
    }

    /// Why the table cannot be used: a zero interval or rate.
    pub fn check(&self) -> Result<(), String> {
        let intervals = [
            ("status", self.status),
            ("identity", self.identity),
            ("optics", self.optics),
            ("olt", self.olt),
            ("traffic", self.traffic),
        ];
        for (key, interval) in intervals {
            if interval.is_some_and(|i| i.is_zero()) {
                return Err(format!("field `poll.{key}`: must be above zero"));
            }
        }
        if self.max_requests_per_second == Some(0) {
            return Err("field `poll.max_requests_per_second`: must be above zero".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::inventory::Inventory;
    use std::time::Duration;

    const OLT: &str = r#"
[[olts]]
id = 1
ip = "127.0.0.1"
vendor = "zte"
model = "C320"
city = "Kazan"
snmp = { port = 16100, community = "public", version = "2c" }
"#;

    #[test]
    fn an_olts_poll_table_is_read_written_and_checked() {
        let text = format!("{OLT}poll = {{ optics = \"2h\", max_requests_per_second = 5 }}\n");
        let inventory = Inventory::parse(&text).expect("valid");
        let poll = inventory.olts[0].poll;
        assert_eq!(poll.optics, Some(Duration::from_secs(7200)));
        assert_eq!(poll.max_requests_per_second, Some(5));
        assert_eq!(poll.status, None);
        assert_eq!(
            Inventory::parse(&inventory.to_toml()).expect("round trip"),
            inventory
        );
        // Without the table nothing is written.
        let plain = Inventory::parse(OLT).expect("valid");
        assert!(!plain.to_toml().contains("poll"));
        for (table, message) in [
            (
                "poll = { optics = \"0s\" }",
                "field `poll.optics`: must be above zero",
            ),
            (
                "poll = { max_requests_per_second = 0 }",
                "poll.max_requests_per_second",
            ),
            ("poll = { optic = \"1h\" }", "unknown field `optic`"),
        ] {
            let error = Inventory::parse(&format!("{OLT}{table}\n")).expect_err(table);
            assert!(error.contains(message), "{table}: {error}");
        }
    }
}
