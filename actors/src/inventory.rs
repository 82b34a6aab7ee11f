//! The inventory: which communication nodes and OLTs exist and how to reach them (docs/operations.md).
//! Parsed from TOML by the service and written as TOML by the simulator. Loading validates
//! the whole file and names the file, line and field of the first problem, so a bad reload
//! can be refused while the old inventory stays in force.

use crate::domain::{NodeId, OltId, Vendor};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::net::IpAddr;
use std::path::Path;

pub mod plant;
pub mod poll;
pub mod usm;
pub use plant::SplitterSpec;
pub use poll::PollOverrides;
pub use usm::{AuthProtocol, PrivProtocol, UsmCredentials};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Inventory {
    #[serde(default)]
    pub nodes: Vec<NodeSpec>,
    #[serde(default)]
    pub olts: Vec<OltSpec>,
    /// Socially significant objects (docs/api.md, "СЗО"), each served by one ONU.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub szo: Vec<SzoSpec>,
    /// The outside plant declared as code (docs/outages.md): splitters on PON ports.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub splitters: Vec<SplitterSpec>,
}

/// Kinds of socially significant object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub enum SzoType {
    School,
    Medical,
    Fap,
    FireStation,
    Government,
    Election,
    Police,
    Library,
    Other,
}

impl SzoType {
    pub const ALL: [SzoType; 9] = [
        SzoType::School,
        SzoType::Medical,
        SzoType::Fap,
        SzoType::FireStation,
        SzoType::Government,
        SzoType::Election,
        SzoType::Police,
        SzoType::Library,
        SzoType::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SzoType::School => "SCHOOL",
            SzoType::Medical => "MEDICAL",
            SzoType::Fap => "FAP",
            SzoType::FireStation => "FIRE_STATION",
            SzoType::Government => "GOVERNMENT",
            SzoType::Election => "ELECTION",
            SzoType::Police => "POLICE",
            SzoType::Library => "LIBRARY",
            SzoType::Other => "OTHER",
        }
    }
}

impl std::str::FromStr for SzoType {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SzoType::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = SzoType::ALL.iter().map(|t| t.as_str()).collect();
                format!("must be one of {}", names.join(", "))
            })
    }
}

/// A socially significant object and the ONU that serves it (keys as in docs/api.md, "СЗО").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SzoSpec {
    pub id: u32,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: SzoType,
    pub city: String,
    #[serde(default)]
    pub address: String,
    /// Binds the object to an ONU, and so to its OLT and node.
    pub onu_serial: String,
    #[serde(default)]
    pub bandwidth_mbps: u32,
    pub connected_at: chrono::NaiveDate,
    pub sla_percent: f64,
}

/// A GPON serial (`HWTC1A2B3C4D`) or an EPON MAC (`a0:b1:c2:d3:e4:f5`).
pub fn is_onu_serial(text: &str) -> bool {
    let mac = text.len() == 17
        && text.split(':').count() == 6
        && text
            .split(':')
            .all(|b| b.len() == 2 && b.bytes().all(|c| c.is_ascii_hexdigit()));
    mac || crate::profile::parse_gpon_serial(text).is_some()
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
    pub vendor: VendorSetting,
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
    /// This OLT's poll intervals and request rate, where they differ from `[polling]`.
    #[serde(default, skip_serializing_if = "PollOverrides::is_empty")]
    pub poll: PollOverrides,
}

/// `vendor` in the inventory: one of the vendors, or `auto` — read from the device's
/// sysObjectID and sysDescr on the first good poll and kept in the store (docs/devices.md,
/// [`crate::profile::detection`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum VendorSetting {
    Huawei,
    Zte,
    Bdcom,
    Eltex,
    Vsol,
    Cdata,
    Snr,
    Auto,
}

impl VendorSetting {
    /// The vendor the inventory names; `None` for `auto`.
    pub fn fixed(self) -> Option<Vendor> {
        match self {
            VendorSetting::Huawei => Some(Vendor::Huawei),
            VendorSetting::Zte => Some(Vendor::Zte),
            VendorSetting::Bdcom => Some(Vendor::Bdcom),
            VendorSetting::Eltex => Some(Vendor::Eltex),
            VendorSetting::Vsol => Some(Vendor::Vsol),
            VendorSetting::Cdata => Some(Vendor::Cdata),
            VendorSetting::Snr => Some(Vendor::Snr),
            VendorSetting::Auto => None,
        }
    }
}

impl From<Vendor> for VendorSetting {
    fn from(vendor: Vendor) -> VendorSetting {
        match vendor {
            Vendor::Huawei => VendorSetting::Huawei,
            Vendor::Zte => VendorSetting::Zte,
            Vendor::Bdcom => VendorSetting::Bdcom,
            Vendor::Eltex => VendorSetting::Eltex,
            Vendor::Vsol => VendorSetting::Vsol,
            Vendor::Cdata => VendorSetting::Cdata,
            Vendor::Snr => VendorSetting::Snr,
        }
    }
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
    /// SNMPv3 with the user-based security model (the `user`, `auth`, `privacy` keys).
    #[serde(rename = "3")]
    V3,
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
    /// SNMPv3 (see [`usm`]): the USM user name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<AuthProtocol>,
    /// Name of the environment variable holding the authentication password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth_password_env: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub privacy: Option<PrivProtocol>,
    /// Name of the environment variable holding the privacy password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub privacy_password_env: Option<String>,
    /// The SNMPv3 context name (empty by default).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub context: String,
}

impl SnmpSpec {
    /// The SNMPv3 credentials of this OLT (`None` for v1/v2c), passwords read from the
    /// environment; the error names the OLT and the key.
    pub fn usm(&self, olt: OltId) -> Result<Option<UsmCredentials>, String> {
        match self.version {
            SnmpVersion::V3 => usm::credentials(olt, self).map(Some),
            SnmpVersion::V1 | SnmpVersion::V2c => usm::check_unused(olt, self).map(|()| None),
        }
    }

    /// Who the agent knows this OLT as: the community, or the v3 user (with the context,
    /// which picks the device behind one v3 agent).
    fn principal(&self) -> &str {
        match self.version {
            SnmpVersion::V3 => self.user.as_deref().unwrap_or_default(),
            SnmpVersion::V1 | SnmpVersion::V2c => &self.community,
        }
    }
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
            user: None,
            auth: None,
            auth_password_env: None,
            privacy: None,
            privacy_password_env: None,
            context: String::new(),
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
    /// Name of the environment variable holding the password `enable` asks for, where
    /// the device asks one (ZTE C300/C320 often, V-SOL always); unset: the login
    /// password is given (V-SOL's enable password is the login's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_password_env: Option<String>,
    /// The device's SSH host key, pinned: `SHA256:…` or an OpenSSH public key line.
    /// Without it the first login's key is recorded (trust on first use).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_key: Option<crate::host_keys::HostKeyPin>,
}

fn default_ssh_port() -> u16 {
    22
}

/// Why an inventory was refused.
#[derive(Debug, thiserror::Error)]
pub enum InventoryError {
    /// The OS error is in the message and not a `source`, so a report says it once.
    #[error("inventory {file}: cannot read: {reason}")]
    Read {
        file: String,
        reason: std::io::Error,
    },
    #[error("inventory {file}: {message}")]
    Invalid { file: String, message: String },
}

impl Inventory {
    /// Reads and validates an inventory file.
    pub fn load(path: &Path) -> Result<Inventory, InventoryError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|reason| InventoryError::Read {
            file: file.clone(),
            reason,
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

    /// Checks what the TOML types cannot: unique ids, names that are not blank, OLTs on
    /// declared nodes and distinct endpoints, СЗО figures and serials. Errors name the line
    /// of the entry at fault.
    fn validate(&self, text: &str) -> Result<(), String> {
        let node_ids = self.validate_nodes(text)?;
        self.validate_olts(text, &node_ids)?;
        self.validate_szo(text)?;
        self.validate_splitters(text)
    }

    /// The `[[nodes]]` entries; returns their ids.
    fn validate_nodes(&self, text: &str) -> Result<HashSet<NodeId>, String> {
        let mut node_ids = HashSet::new();
        let lines = TableLines::of(text, "nodes");
        for (i, node) in self.nodes.iter().enumerate() {
            let at = lines.at(i);
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
        Ok(node_ids)
    }

    /// The `[[olts]]` entries, against the declared `node_ids`.
    fn validate_olts(&self, text: &str, node_ids: &HashSet<NodeId>) -> Result<(), String> {
        let mut olt_ids = HashSet::new();
        let mut endpoints = HashSet::new();
        let lines = TableLines::of(text, "olts");
        for (i, olt) in self.olts.iter().enumerate() {
            let at = lines.at(i);
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
            olt.snmp.usm(olt.id).map_err(|e| format!("{at}{e}"))?;
            olt.poll.check().map_err(|e| format!("{at}{e}"))?;
            if !endpoints.insert((
                olt.ip,
                olt.snmp.port,
                olt.snmp.principal(),
                &olt.snmp.context,
            )) {
                return Err(format!(
                    "{at}field `snmp`: OLT {} uses {}:{} with the same community (v3: user and context) as another OLT",
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

    /// The `[[szo]]` entries.
    fn validate_szo(&self, text: &str) -> Result<(), String> {
        let mut szo_ids = HashSet::new();
        let lines = TableLines::of(text, "szo");
        for (i, object) in self.szo.iter().enumerate() {
            let at = lines.at(i);
            if !szo_ids.insert(object.id) {
                return Err(format!(
                    "{at}field `id`: СЗО id {} is declared twice",
                    object.id
                ));
            }
            if !(0.0..=100.0).contains(&object.sla_percent) {
                return Err(format!(
                    "{at}field `slaPercent`: СЗО {} has {}, which is not between 0 and 100",
                    object.id, object.sla_percent
                ));
            }
            if !is_onu_serial(&object.onu_serial) {
                return Err(format!(
                    "{at}field `onuSerial`: `{}` is neither a GPON serial like HWTC1A2B3C4D nor a MAC like a0:b1:c2:d3:e4:f5",
                    object.onu_serial
                ));
            }
            if object.name.trim().is_empty() {
                return Err(format!(
                    "{at}field `name`: СЗО {} has an empty name",
                    object.id
                ));
            }
        }
        Ok(())
    }

    /// OLT `id`'s entry: found by binary search where the file lists OLTs by id (as the
    /// simulator and most inventories do), else by reading the list. A found entry is
    /// always the right one: a search over an unsorted list can only miss.
    pub fn olt(&self, id: OltId) -> Option<&OltSpec> {
        match self.olts.binary_search_by_key(&id, |olt| olt.id) {
            Ok(at) => Some(&self.olts[at]),
            Err(_) => self.olts.iter().find(|olt| olt.id == id),
        }
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

/// Where the entries of one `[[table]]` array start, for errors that name the line.
struct TableLines {
    table: &'static str,
    /// Line numbers (from 1) of the `[[table]]` headers, in order.
    headers: Vec<usize>,
}

impl TableLines {
    /// Finds every header of `table` in one pass over `text` (an inventory of 10,000
    /// OLTs has 150,000 lines: searching them again for each entry took seconds).
    fn of(text: &str, table: &'static str) -> TableLines {
        let header = format!("[[{table}]]");
        let headers = text
            .lines()
            .enumerate()
            .filter(|(_, line)| line.trim_start().starts_with(&header))
            .map(|(n, _)| n + 1)
            .collect();
        TableLines { table, headers }
    }

    /// `line N: ` of entry `index`, or `table[index]: ` when it has no header line of its
    /// own (an inline array).
    fn at(&self, index: usize) -> String {
        match self.headers.get(index) {
            Some(line) => format!("line {line}: "),
            None => format!("{}[{index}]: ", self.table),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) const GOOD: &str = r#"
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
    fn an_olt_is_found_by_id_in_a_sorted_list_and_in_an_unsorted_one() {
        let mut inventory = Inventory::parse(GOOD).expect("valid");
        let first = inventory.olts[0].clone();
        inventory.olts = [5, 1, 9, 3, 7]
            .into_iter()
            .map(|id| OltSpec {
                id,
                ..first.clone()
            })
            .collect();
        for id in [5, 1, 9, 3, 7] {
            assert_eq!(inventory.olt(id).map(|o| o.id), Some(id), "unsorted");
        }
        assert!(inventory.olt(4).is_none());
        inventory.olts.sort_by_key(|o| o.id);
        for id in [1, 3, 5, 7, 9] {
            assert_eq!(inventory.olt(id).map(|o| o.id), Some(id), "sorted");
        }
        assert!(inventory.olt(10).is_none());
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
        assert!(
            err.contains("same community (v3: user and context) as another OLT"),
            "{err}"
        );
    }

    #[test]
    fn szo_registry_is_validated() {
        let szo = r#"
[[szo]]
id = 101
name = "School No. 3"
type = "SCHOOL"
city = "Kazan"
address = "Lenina 5"
onuSerial = "HWTC1A2B3C4D"
bandwidthMbps = 100
connectedAt = "2021-06-01"
slaPercent = 99.5
"#;
        let inventory = Inventory::parse(&format!("{GOOD}{szo}")).expect("valid");
        assert_eq!(inventory.szo[0].kind, SzoType::School);
        assert_eq!(
            Inventory::parse(&inventory.to_toml()).expect("round trip"),
            inventory
        );
        for (from, to, message) in [
            ("SCHOOL", "CAFE", "unknown variant `CAFE`"),
            ("99.5", "100.5", "field `slaPercent`"),
            ("HWTC1A2B3C4D", "HW-1", "field `onuSerial`"),
        ] {
            let err =
                Inventory::parse(&format!("{GOOD}{}", szo.replace(from, to))).expect_err(message);
            assert!(err.contains(message), "{err}");
            assert!(err.starts_with("line "), "{err}");
        }
        let twice = format!(
            "{GOOD}{szo}{}",
            szo.replace(
                "onuSerial = \"HWTC1A2B3C4D\"",
                "onuSerial = \"a0:b1:c2:d3:e4:f5\""
            )
        );
        let err = Inventory::parse(&twice).expect_err("duplicate");
        assert!(err.contains("СЗО id 101 is declared twice"), "{err}");
    }

    #[test]
    fn bad_vendor_names_line() {
        let bad = GOOD.replace("\"huawei\"", "\"cisco\"");
        let err = Inventory::parse(&bad).expect_err("invalid");
        assert!(err.starts_with("line 10: unknown variant `cisco`"), "{err}");
    }
}
