//! `[[splitters]]` of the inventory: the outside plant declared as code beside the OLTs it
//! hangs on (docs/outages.md). Each names its OLT and PON port, optionally the
//! first-level splitter it hangs under (by name, on the same OLT and port: two levels at
//! most), an address and coordinates. Checked with the rest of the file, each error
//! naming the entry's line; the service then makes the stored splitters match
//! (`Records::declare_splitters`).

use super::{Inventory, TableLines};
use crate::domain::OltId;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// One `[[splitters]]` entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitterSpec {
    /// Unique on its OLT (letter case aside).
    pub name: String,
    pub olt: OltId,
    /// The PON port as the OLT's ONUs name it (`0/1/0`).
    pub pon_port: String,
    /// The name of the first-level splitter this one hangs under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lat: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lon: Option<f64>,
}

impl SplitterSpec {
    /// The key a splitter is matched by: its OLT and its name in lower case.
    pub fn key(olt: OltId, name: &str) -> (OltId, String) {
        (olt, crate::text::composed(&name.trim().to_lowercase()))
    }
}

impl Inventory {
    /// The `[[splitters]]` entries, against the declared OLTs.
    pub(super) fn validate_splitters(&self, text: &str) -> Result<(), String> {
        let lines = TableLines::of(text, "splitters");
        let mut seen: HashMap<(OltId, String), &SplitterSpec> = HashMap::new();
        for (i, spec) in self.splitters.iter().enumerate() {
            let at = lines.at(i);
            let name = spec.name.trim();
            if name.is_empty() || name.chars().count() > 64 {
                return Err(format!(
                    "{at}field `name`: a splitter name is 1 to 64 characters"
                ));
            }
            if let Some(why) = crate::text::first_unwelcome(name) {
                return Err(format!("{at}field `name`: {why}"));
            }
            if !self.olts.iter().any(|o| o.id == spec.olt) {
                return Err(format!(
                    "{at}field `olt`: splitter `{name}` names OLT {}, which no [[olts]] entry declares",
                    spec.olt
                ));
            }
            let port = spec.pon_port.trim();
            if port.is_empty() || port.len() > 64 || port.chars().any(char::is_control) {
                return Err(format!(
                    "{at}field `pon_port`: splitter `{name}` needs its PON port, e.g. \"0/1/0\""
                ));
            }
            if spec.lat.is_some_and(|l| !(-90.0..=90.0).contains(&l))
                || spec.lon.is_some_and(|l| !(-180.0..=180.0).contains(&l))
            {
                return Err(format!(
                    "{at}fields `lat`, `lon`: splitter `{name}` is off the globe (lat -90 to 90, lon -180 to 180)"
                ));
            }
            if seen
                .insert(SplitterSpec::key(spec.olt, name), spec)
                .is_some()
            {
                return Err(format!(
                    "{at}field `name`: OLT {} has two splitters named `{name}`",
                    spec.olt
                ));
            }
        }
        for (i, spec) in self.splitters.iter().enumerate() {
            let Some(parent) = &spec.parent else {
                continue;
            };
            let up = seen.get(&SplitterSpec::key(spec.olt, parent));
            let fits = up.is_some_and(|up| {
                up.pon_port.trim() == spec.pon_port.trim() && up.parent.is_none()
            });
            if !fits {
                return Err(format!(
                    "{}field `parent`: `{parent}` must be a first-level splitter declared on OLT {} port {}",
                    lines.at(i),
                    spec.olt,
                    spec.pon_port.trim()
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::inventory::tests::GOOD;
    use crate::inventory::Inventory;

    const PLANT: &str = r#"
[[splitters]]
name = "ODB-1"
olt = 1
pon_port = "0/1/0"
address = "ул. Ленина, 5"
lat = 55.79
lon = 49.12

[[splitters]]
name = "ODB-1.1"
olt = 1
pon_port = "0/1/0"
parent = "odb-1"
"#;

    #[test]
    fn splitters_are_checked_naming_the_line_and_field() {
        let inventory = Inventory::parse(&format!("{GOOD}{PLANT}")).expect("valid");
        assert_eq!(inventory.splitters.len(), 2);
        assert_eq!(inventory.splitters[1].parent.as_deref(), Some("odb-1"));
        let cases = [
            ("olt = 1\npon_port = \"0/1/0\"\nparent", "olt = 9\npon_port = \"0/1/0\"\nparent", "field `olt`: splitter `ODB-1.1` names OLT 9, which no [[olts]] entry declares"),
            ("parent = \"odb-1\"", "parent = \"ODB-7\"", "field `parent`: `ODB-7` must be a first-level splitter declared on OLT 1 port 0/1/0"),
            ("name = \"ODB-1.1\"", "name = \"odb-1\"", "field `name`: OLT 1 has two splitters named `odb-1`"),
            ("lat = 55.79", "lat = 155.79", "splitter `ODB-1` is off the globe"),
            ("name = \"ODB-1.1\"", "name = \" \"", "field `name`: a splitter name is 1 to 64 characters"),
        ];
        for (from, to, wanted) in cases {
            let text = format!("{GOOD}{}", PLANT.replace(from, to));
            let error = Inventory::parse(&text).expect_err(wanted);
            assert!(error.contains(wanted), "{error}\nwanted: {wanted}");
            assert!(error.starts_with("line "), "{error}");
        }
        // A second-level splitter's parent must itself be first-level.
        let deeper = format!(
            "{GOOD}{PLANT}\n[[splitters]]\nname = \"ODB-1.1.1\"\nolt = 1\npon_port = \"0/1/0\"\nparent = \"ODB-1.1\"\n"
        );
        let error = Inventory::parse(&deeper).expect_err("three levels");
        assert!(
            error.contains("`ODB-1.1` must be a first-level splitter"),
            "{error}"
        );
    }
}
