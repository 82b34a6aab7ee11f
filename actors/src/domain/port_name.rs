//! The name of the PON port an ONU row sits on (`0/1/3`, `gpon-olt_1/2/16`), shared by the
//! rows of one port. An OLT has a few dozen ports and a hundred or more ONUs on each, so a
//! row keeps a pointer to its port's one copy of the name: eight bytes where an inline
//! string took 24, 20 MB of a national fleet's 1.28 M rows, and with the two-byte readings
//! it brings a row to 128 bytes (docs/benchmarks.md, issue 31, seventh pass).
//!
//! Names are shared without a process-wide table (which would keep every name a device
//! ever sent): each thread remembers the last name it made, and a row decoded right after
//! another of the same port takes the same copy. Decoders read a table port by port, so
//! rows of one port share one copy; two copies of one name are still equal.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cell::RefCell;
use std::cmp::Ordering;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// A PON port's name; dereferences to the text.
#[derive(Clone)]
pub struct PortName(Arc<Box<str>>);

thread_local! {
    /// The last name this thread made, handed out again for the same text.
    static LAST: RefCell<Option<PortName>> = const { RefCell::new(None) };
}

impl PortName {
    /// The name `text`, sharing the copy this thread made last if it is the same name.
    pub fn new(text: &str) -> PortName {
        LAST.with(|last| {
            let mut last = last.borrow_mut();
            match last.as_ref() {
                Some(name) if name.as_str() == text => name.clone(),
                _ => {
                    let name = PortName(Arc::new(text.into()));
                    *last = Some(name.clone());
                    name
                }
            }
        })
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the two are the one copy (then they are equal without comparing text).
    pub fn shares(&self, other: &PortName) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Deref for PortName {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for PortName {
    fn from(text: &str) -> Self {
        PortName::new(text)
    }
}

impl From<String> for PortName {
    fn from(text: String) -> Self {
        PortName::new(&text)
    }
}

impl From<compact_str::CompactString> for PortName {
    fn from(text: compact_str::CompactString) -> Self {
        PortName::new(&text)
    }
}

impl From<PortName> for String {
    fn from(name: PortName) -> Self {
        name.as_str().to_string()
    }
}

impl PartialEq for PortName {
    fn eq(&self, other: &PortName) -> bool {
        self.shares(other) || self.as_str() == other.as_str()
    }
}

impl Eq for PortName {}

impl PartialEq<str> for PortName {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for PortName {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for PortName {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<PortName> for String {
    fn eq(&self, other: &PortName) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<PortName> for &str {
    fn eq(&self, other: &PortName) -> bool {
        *self == other.as_str()
    }
}

impl PartialOrd for PortName {
    fn partial_cmp(&self, other: &PortName) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for PortName {
    fn cmp(&self, other: &PortName) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl fmt::Debug for PortName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for PortName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for PortName {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for PortName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<PortName, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Ok(PortName::new(&text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn rows_of_one_port_made_one_after_another_share_its_name() {
        let first = PortName::new("0/1/3");
        let second = PortName::new("0/1/3");
        assert!(first.shares(&second));
        let other = PortName::new("0/1/4");
        assert!(!other.shares(&first));
        // Back to the first port: a new copy, still equal to the old one.
        let again = PortName::new("0/1/3");
        assert!(!again.shares(&first));
        assert_eq!(again, first);
        assert_ne!(again, other);
        assert_eq!(std::mem::size_of::<PortName>(), 8);
    }

    #[test]
    fn compares_orders_and_reads_as_its_text() {
        let names: BTreeSet<PortName> = ["0/2/1", "0/10/1", "0/1/1"]
            .into_iter()
            .map(PortName::from)
            .collect();
        let texts: Vec<&str> = names.iter().map(PortName::as_str).collect();
        assert_eq!(texts, ["0/1/1", "0/10/1", "0/2/1"], "ordered as text");
        let name = PortName::new("gpon-olt_1/2/16");
        assert_eq!(name, "gpon-olt_1/2/16");
        assert_eq!(name.to_string(), "gpon-olt_1/2/16");
        assert_eq!(format!("{name:?}"), "\"gpon-olt_1/2/16\"");
        let json = serde_json::to_string(&name).expect("serialises");
        assert_eq!(json, "\"gpon-olt_1/2/16\"");
        let back: PortName = serde_json::from_str(&json).expect("reads back");
        assert_eq!(back, name);
    }
}
