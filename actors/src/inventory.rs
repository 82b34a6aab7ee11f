//! The inventory: which communication nodes and OLTs exist and how to reach them (SPEC §2).
//! Parsed from TOML by the service and written as TOML by the simulator. Loading validates
//! the whole file and names the file, line and field of the first problem, so a bad reload
//! can be refused while the old inventory stays in force.

use crate::domain::{NodeId, OltId, Vendor};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::net::IpAddr;
use std::path::Path;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Inventory {
    #[serde(default)]
    pub nodes: Vec<NodeSpec>,
    #[serde(default)]
    pub olts: Vec<OltSpec>,
}

/// A communication node: a site that groups OLTs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub id: NodeId,
    pub name: String,
    pub city: String,
    #[serde(default)]
    pub description: String,
}

/// One OLT and the credentials to manage it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OltSpec {
    pub id: OltId,
    pub ip: IpAddr,
    pub vendor: Vendor,
    pub model: String,
    pub city: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<NodeId>,
    #[serde(default = "enabled_by_default")]
    pub enabled: bool,
    #[serde(default)]
    pub snmp: SnmpSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ssh: Option<SshSpec>,
}

fn enabled_by_default() -> bool {
    true
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SnmpVersion {
    #[serde(rename = "1")]
    V1,
    #[serde(rename = "2c")]
    V2c,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnmpSpec {
    #[serde(default = "default_snmp_port")]
    pub port: u16,
    #[serde(default = "default_community")]
    pub community: String,
    #[serde(default = "default_snmp_version")]
    pub version: SnmpVersion,
}

fn default_snmp_port() -> u16 {
    161
}
fn default_community() -> String {
    "public".to_string()
}
fn default_snmp_version() -> SnmpVersion {
    SnmpVersion::V2c
}

impl Default for SnmpSpec {
    fn default() -> Self {
        SnmpSpec {
            port: default_snmp_port(),
            community: default_community(),
            version: default_snmp_version(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SshSpec {
    #[serde(default = "default_ssh_port")]
    pub port: u16,
    pub username: String,
    /// Name of the environment variable holding the password (never the password itself).
    pub password_env: String,
}

fn default_ssh_port() -> u16 {
    22
}

/// Why an inventory was refused.
#[derive(Debug, thiserror::Error)]
pub enum InventoryError {
    #[error("inventory {file}: cannot read: {source}")]
    Read {
        file: String,
        source: std::io::Error,
    },
    #[error("inventory {file}: {message}")]
    Invalid { file: String, message: String },
}

impl Inventory {
    /// Reads and validates an inventory file.
    pub fn load(path: &Path) -> Result<Inventory, InventoryError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| InventoryError::Read {
            file: file.clone(),
            source,
        })?;
        Inventory::parse(&text).map_err(|message| InventoryError::Invalid { file, message })
    }

    /// Parses and validates inventory text; the error names the line and field.
    pub fn parse(text: &str) -> Result<Inventory, String> {
        let inventory: Inventory = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|span| format!("line {}: ", line_of(text, span.start)))
                .unwrap_or_default();
            format!("{line}{}", e.message())
        })?;
        inventory.validate(text)?;
        Ok(inventory)
    }

    fn validate(&self, text: &str) -> Result<(), String> {
        let mut node_ids = HashSet::new();
        for (i, node) in self.nodes.iter().enumerate() {
            let at = table_line(text, "nodes", i);
            if !node_ids.insert(node.id) {
                return Err(format!(
                    "{at}field `id`: node id {} is declared twice",
                    node.id
                ));
            }
            if node.name.trim().is_empty() {
                return Err(format!(
                    "{at}field `name`: node {} has an empty name",
                    node.id
                ));
            }
        }
        let mut olt_ids = HashSet::new();
        let mut endpoints = HashSet::new();
        for (i, olt) in self.olts.iter().enumerate() {
            let at = table_line(text, "olts", i);
            if !olt_ids.insert(olt.id) {
                return Err(format!(
                    "{at}field `id`: OLT id {} is declared twice",
                    olt.id
                ));
            }
            if let Some(node) = olt.node {
                if !node_ids.contains(&node) {
                    return Err(format!(
                        "{at}field `node`: OLT {} names node {node}, which no [[nodes]] entry declares",
                        olt.id
                    ));
                }
            }
            // One agent may serve several devices by community (a proxy, snmpsim), but
            // the same address, port and community twice is the same device twice.
            if !endpoints.insert((olt.ip, olt.snmp.port, olt.snmp.community.as_str())) {
                return Err(format!(
                    "{at}field `snmp`: OLT {} uses {}:{} with the same community as another OLT",
                    olt.id, olt.ip, olt.snmp.port
                ));
            }
            if olt.snmp.community.is_empty() {
                return Err(format!(
                    "{at}field `snmp.community`: OLT {} has an empty community",
                    olt.id
                ));
            }
        }
        Ok(())
    }

    pub fn node(&self, id: NodeId) -> Option<&NodeSpec> {
        self.nodes.iter().find(|n| n.id == id)
    }

    /// The inventory as TOML text.
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).unwrap_or_default()
    }
}

/// 1-based line number of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// "line N: " of the `index`-th `[[table]]` header, or "" when the file uses another form.
fn table_line(text: &str, table: &str, index: usize) -> String {
    let header = format!("[[{table}]]");
    text.lines()
        .enumerate()
        .filter(|(_, line)| line.trim_start().starts_with(&header))
        .nth(index)
        .map(|(n, _)| format!("line {}: ", n + 1))
        .unwrap_or_else(|| format!("{table}[{index}]: "))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
[[nodes]]
id = 1
name = "Central"
city = "Kazan"

[[olts]]
id = 1
ip = "127.0.0.1"
vendor = "huawei"
model = "MA5800-X7"
city = "Kazan"
node = 1
snmp = { port = 16100, community = "public", version = "2c" }
"#;

    #[test]
    fn parses_a_good_inventory() {
        let inventory = Inventory::parse(GOOD).expect("valid");
        assert_eq!(inventory.olts[0].snmp.port, 16100);
        assert!(inventory.olts[0].enabled);
        assert_eq!(
            Inventory::parse(&inventory.to_toml()).expect("round trip"),
            inventory
        );
    }

    #[test]
    fn unknown_node_names_line_and_field() {
        let bad = GOOD.replace("node = 1", "node = 7");
        let err = Inventory::parse(&bad).expect_err("invalid");
        assert_eq!(
            err,
            "line 7: field `node`: OLT 1 names node 7, which no [[nodes]] entry declares"
        );
    }

    #[test]
    fn one_agent_may_serve_several_olts_by_community() {
        let second = GOOD.replace("[[nodes]]", "[[olts]]\nid = 2\nip = \"127.0.0.1\"\nvendor = \"zte\"\nmodel = \"C320\"\ncity = \"Kazan\"\nsnmp = { port = 16100, community = \"other\" }\n\n[[nodes]]");
        assert_eq!(Inventory::parse(&second).expect("valid").olts.len(), 2);
        let same = second.replace("community = \"other\"", "community = \"public\"");
        let err = Inventory::parse(&same).expect_err("the same device twice");
        assert!(err.contains("same community as another OLT"), "{err}");
    }

    #[test]
    fn bad_vendor_names_line() {
        let bad = GOOD.replace("\"huawei\"", "\"cisco\"");
        let err = Inventory::parse(&bad).expect_err("invalid");
        assert!(err.starts_with("line 10: unknown variant `cisco`"), "{err}");
    }
}
