//! The MAC addresses behind each ONU (issue 33, "Which ONU is this MAC?"): the [`Mac`]
//! type and the spellings a person types or a log prints ([`Mac::parse`],
//! [`MacQuery::parse`]), what one read of a device saw ([`MacSighting`], [`MacRead`]) and
//! where each layout reads them ([`MacSource`]). BDCOM answers the bridge's forwarding
//! table over SNMP (the poller's `fdb`); Huawei and ZTE print theirs on the command line, parsed in
//! [`cli`]. A layout with no known way answers nothing rather than a guess. The store
//! keeps each (MAC, ONU) pair's first and last sighting (`store/macs.rs`).

pub mod cli;

use crate::domain::OnuId;
use crate::profile::commands::CliMacs;
use crate::profile::Profile;
use chrono::{DateTime, Utc};
use std::fmt;

/// A 48-bit MAC address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Mac(pub [u8; 6]);

impl fmt::Display for Mac {
    /// `aa:bb:cc:dd:ee:ff`, the one spelling the API answers with.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d, e, g] = self.0;
        write!(f, "{a:02x}:{b:02x}:{c:02x}:{d:02x}:{e:02x}:{g:02x}")
    }
}

/// The hex digits of a MAC spelt `aa:bb:cc:dd:ee:ff`, `AA-BB-CC-DD-EE-FF`,
/// `aabb.ccdd.eeff` or `aabbccddeeff`, lower-cased; `None` for any other spelling (a
/// separator in the wrong place, mixed separators, a non-hex digit).
fn hex_digits(text: &str) -> Option<String> {
    let text = text.trim();
    let groups: Vec<&str> = if text.contains(':') {
        text.split(':').collect()
    } else if text.contains('-') {
        text.split('-').collect()
    } else if text.contains('.') {
        text.split('.').collect()
    } else {
        vec![text]
    };
    let separator = groups.len() > 1;
    let width = groups.first().map_or(0, |g| g.len());
    let even = groups.iter().all(|g| g.len() == width) || !separator;
    let widths_fit = match (separator, width) {
        (false, _) => true,
        (true, 2) => text.contains(':') || text.contains('-'),
        (true, 4) => text.contains('.') || text.contains('-'),
        _ => false,
    };
    let digits: String = groups.concat();
    let hex = digits.chars().all(|c| c.is_ascii_hexdigit());
    (even && widths_fit && hex && !digits.is_empty()).then(|| digits.to_ascii_lowercase())
}

impl Mac {
    /// A whole MAC in any of the four spellings.
    pub fn parse(text: &str) -> Option<Mac> {
        let digits = hex_digits(text)?;
        if digits.len() != 12 {
            return None;
        }
        let mut mac = [0u8; 6];
        for (i, byte) in mac.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&digits[2 * i..2 * i + 2], 16).ok()?;
        }
        Some(Mac(mac))
    }

    /// Whether the MAC starts with the hex digits `prefix` (lower case).
    pub fn starts_with(&self, prefix: &str) -> bool {
        let hex: String = self.0.iter().map(|b| format!("{b:02x}")).collect();
        hex.starts_with(prefix)
    }
}

/// What `GET /macs?mac=` looks for: a whole MAC, or a prefix of at least
/// [`MacQuery::MIN_PREFIX`] hex digits (an OUI and more).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MacQuery {
    /// Lower-case hex digits, 6 to 12 of them.
    pub digits: String,
}

/// Why a text is no [`MacQuery`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotAMacQuery {
    /// It is not hex digits in any of the MAC spellings.
    NotAMac,
    /// It has this many hex digits: fewer than an OUI, or more than a MAC.
    Digits(usize),
}

impl NotAMacQuery {
    /// The sentence for a client, its text quoted as `quoted` (the caller cuts and
    /// escapes a client's text as all its messages do).
    pub fn message(self, quoted: &str) -> String {
        match self {
            NotAMacQuery::NotAMac => format!("`{quoted}` is not a MAC address: write it as `aa:bb:cc:dd:ee:ff`, `AA-BB-CC-DD-EE-FF`, `aabb.ccdd.eeff` or `aabbccddeeff`"),
            NotAMacQuery::Digits(digits) => format!(
                "`{quoted}` has {digits} hex digits: a MAC has 12, a prefix at least 6"
            ),
        }
    }
}

impl MacQuery {
    /// Fewest hex digits a prefix has: an OUI.
    pub const MIN_PREFIX: usize = 6;

    /// The query `text` spells, or why it spells none.
    pub fn parse(text: &str) -> Result<MacQuery, NotAMacQuery> {
        let digits = hex_digits(text).ok_or(NotAMacQuery::NotAMac)?;
        if !(Self::MIN_PREFIX..=12).contains(&digits.len()) {
            return Err(NotAMacQuery::Digits(digits.len()));
        }
        Ok(MacQuery { digits })
    }

    /// The whole bytes the query starts with: the prefix to scan an index by.
    pub fn leading_bytes(&self) -> Vec<u8> {
        (0..self.digits.len() / 2)
            .filter_map(|i| u8::from_str_radix(&self.digits[2 * i..2 * i + 2], 16).ok())
            .collect()
    }

    pub fn matches(&self, mac: &Mac) -> bool {
        mac.starts_with(&self.digits)
    }
}

/// One MAC the device showed behind an ONU: the ONU's port and number, the MAC and the
/// VLAN it was learnt in (none where the device shows none: a Huawei WLAN client, `-`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct MacSighting {
    pub pon_port: String,
    pub onu_index: u32,
    pub mac: Mac,
    pub vlan: Option<u16>,
}

/// One read of MACs, placed on ONUs: every ONU it covered (an ONU it covered and found
/// nothing behind has lost its MACs), and what it found.
#[derive(Debug, Clone, PartialEq)]
pub struct MacRead {
    pub at: DateTime<Utc>,
    /// The ONUs the read covered, with what the store keeps of each.
    pub covered: Vec<MacOwner>,
    /// (ONU, MAC, VLAN) as the device showed them.
    pub seen: Vec<(OnuId, Mac, Option<u16>)>,
}

/// An ONU as a MAC record names it, so a lookup answers even for an ONU deleted since.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MacOwner {
    pub onu: OnuId,
    pub olt: crate::domain::OltId,
    pub pon_port: String,
    pub serial: String,
}

impl MacRead {
    /// A read at `at` that covered `onus` (of OLT `olt`) and found `sightings`, placed
    /// on the ONUs by port and number; a sighting on no covered ONU is left out.
    pub fn place(
        olt: crate::domain::OltId,
        onus: &[&crate::domain::Onu],
        sightings: &[MacSighting],
        at: DateTime<Utc>,
    ) -> MacRead {
        let by_place: std::collections::HashMap<(&str, u32), OnuId> = onus
            .iter()
            .map(|onu| ((onu.pon_port.as_str(), onu.onu_index), onu.id))
            .collect();
        let mut seen: Vec<(OnuId, Mac, Option<u16>)> = sightings
            .iter()
            .filter_map(|s| {
                Some((
                    *by_place.get(&(s.pon_port.as_str(), s.onu_index))?,
                    s.mac,
                    s.vlan,
                ))
            })
            .collect();
        seen.sort();
        seen.dedup_by(|a, b| (a.0, a.1) == (b.0, b.1));
        MacRead {
            at,
            covered: onus
                .iter()
                .map(|onu| MacOwner {
                    onu: onu.id,
                    olt,
                    pon_port: onu.pon_port.to_string(),
                    serial: onu.serial.to_string(),
                })
                .collect(),
            seen,
        }
    }
}

/// A MAC that showed up behind another ONU than before (the event `MAC_MOVED`).
#[derive(Debug, Clone, PartialEq)]
pub struct MacMove {
    pub mac: Mac,
    pub from: OnuId,
    pub to: OnuId,
    pub vlan: Option<u16>,
    pub at: DateTime<Utc>,
    /// The ONU it is behind now, for the event's port.
    pub owner: MacOwner,
}

/// Where a layout's MACs are read.
#[derive(Debug, Clone, Copy)]
pub enum MacSource {
    /// The bridge forwarding table over SNMP (Q-BRIDGE-MIB, BRIDGE-MIB): BDCOM.
    Fdb,
    /// The command line, per PON port for the poll group and per ONU on demand.
    Cli(&'static CliMacs),
    /// No known way: the ONU's MACs are an empty list with a warning.
    None,
}

impl MacSource {
    /// The source of `profile`'s layout.
    pub fn of(profile: &Profile) -> MacSource {
        if let Some(macs) = &profile.cli.macs {
            return MacSource::Cli(macs);
        }
        match profile.vendor {
            crate::domain::Vendor::Bdcom => MacSource::Fdb,
            _ => MacSource::None,
        }
    }

    /// The warning an ONU's MAC list carries when the layout has no known way.
    pub fn warning(self, family: &str) -> Option<String> {
        match self {
            MacSource::None => Some(format!(
                "no way to read the MACs behind an ONU is known for the {family} layout"
            )),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_of_a_mac_is_the_same_mac() {
        let mac = Mac([0xaa, 0xbb, 0xcc, 0x0d, 0xee, 0xff]);
        for text in [
            "aa:bb:cc:0d:ee:ff",
            "AA-BB-CC-0D-EE-FF",
            "aabb.cc0d.eeff",
            "AABBCC0DEEFF",
            " aa:bb:cc:0d:ee:ff ",
            "aabb-cc0d-eeff",
        ] {
            assert_eq!(Mac::parse(text), Some(mac), "{text}");
        }
        assert_eq!(mac.to_string(), "aa:bb:cc:0d:ee:ff");
        for bad in [
            "",
            "aa:bb:cc:dd:ee",
            "aa:bb:cc:dd:ee:ff:00",
            "aa:bb-cc:dd:ee:ff",
            "aab:bcc:dde:eff",
            "aa:bb:cc:dd:ee:fg",
            "aabb.ccdd.eef",
            "a:b:c:d:e:f",
        ] {
            assert_eq!(Mac::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_query_is_a_mac_or_a_prefix_of_six_digits_or_more() {
        let query = MacQuery::parse("AA-BB-CC").expect("an OUI");
        assert_eq!(query.digits, "aabbcc");
        assert_eq!(query.leading_bytes(), [0xaa, 0xbb, 0xcc]);
        assert!(query.matches(&Mac([0xaa, 0xbb, 0xcc, 1, 2, 3])));
        assert!(!query.matches(&Mac([0xaa, 0xbb, 0xcd, 1, 2, 3])));
        let odd = MacQuery::parse("aabbccd").expect("seven digits");
        assert_eq!(odd.leading_bytes(), [0xaa, 0xbb, 0xcc]);
        assert!(odd.matches(&Mac([0xaa, 0xbb, 0xcc, 0xd1, 2, 3])));
        assert!(MacQuery::parse("aabbc").is_err());
        assert!(MacQuery::parse("zz:bb:cc").is_err());
        assert!(MacQuery::parse("aabbccddeeff00").is_err());
    }
}
