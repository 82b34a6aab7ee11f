//! The provisioning half of a driver profile: how each vendor shows the ONUs it sees but
//! has not registered (an SNMP table and a CLI command), which profiles an authorisation
//! names and how they are listed, and the CLI scripts that register an ONU and remove it
//! again. Like the rest of [`crate::profile`] this is data, read by both sides: the OLT
//! actor's discovery and provisioning (client) and the simulator's agent and console
//! ([`crate::sim`]), so a wrong OID or command is fixed on one line for both.
//!
//! Script lines are templates as in [`super::commands`]: `{pon}` `{board}` `{port}`,
//! `{onu}` the index, `{serial}` as the device's CLI writes it ([`Provisioning::cli_serial`]),
//! `{line}` / `{service}` Huawei profile ids and `{onu_type}` a ZTE ONU type. The VLAN and
//! the description are set afterwards by the existing `set_vlan` / `set_description`
//! scripts of [`super::commands::CliProfile`].
//!
//! This file holds the types and what they compute; each vendor's table is in its folder
//! (`huawei/provisioning.rs`, `zte/provisioning.rs`, `bdcom/provisioning.rs`), reached
//! through [`Provisioning::for_vendor`]. Facts are from docs/provisioning.md; refusal
//! texts and the BDCOM unbound table are marked (?) where no public transcript confirmed
//! them.

use super::commands::CliMode;
use super::PonIdLayout;
use crate::domain::Vendor;

/// What kind of profile an authorisation names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileKind {
    /// Huawei ONT line profile (`ont-lineprofile-id`).
    Line,
    /// Huawei ONT service profile (`ont-srvprofile-id`).
    Service,
    /// ZTE ONU type (`onu N type T`).
    OnuType,
}

impl ProfileKind {
    /// As the API names it.
    pub fn as_str(self) -> &'static str {
        match self {
            ProfileKind::Line => "LINE",
            ProfileKind::Service => "SERVICE",
            ProfileKind::OnuType => "ONU_TYPE",
        }
    }
}

/// How a profile listing prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListingFormat {
    /// Huawei: `Profile-ID  Profile-name  Binding times` rows between dashed rules.
    IdNameTable,
    /// ZTE: blocks of `ONU type name:  X` / `Description:  …` lines.
    OnuTypeBlocks,
}

/// A command that lists the profiles of one kind.
#[derive(Debug, Clone, Copy)]
pub struct ProfileListing {
    pub kind: ProfileKind,
    pub command: &'static str,
    pub format: ListingFormat,
}

/// How the unconfigured table's row index names the port: `<key>.<n>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortKey {
    /// The port's ifIndex (Huawei, BDCOM).
    IfIndex,
    /// ZTE's packed PON id.
    PonId(PonIdLayout),
}

/// How the serial column of the unconfigured table is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnconfiguredSerial {
    /// 8 bytes: 4 ASCII vendor letters + 4 bytes (`HWTC1A2B3C4D`).
    GponBytes,
    /// Text: a dotted MAC `fcfa.f712.3456` (BDCOM EPON).
    DottedMac,
}

/// The SNMP table of ONUs the OLT sees but has not registered.
#[derive(Debug, Clone, Copy)]
pub struct UnconfiguredTable {
    /// Serial column; an instance is `oid . <port key> . <n>`.
    pub serial: &'static [u32],
    pub serial_encoding: UnconfiguredSerial,
    /// The ONU's model (equipment id / type), where the table has it.
    pub equipment: Option<&'static [u32]>,
    pub port_key: PortKey,
}

/// How the serial of an ONU is written, both in the API and in the device's CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SerialKind {
    /// GPON: `HWTC1A2B3C4D` (4 letters or digits, 8 hex digits).
    Gpon,
    /// EPON: a MAC, `fc:fa:f7:12:34:56` in the API, `fcfa.f712.3456` in the CLI.
    Mac,
}

/// A vendor's provisioning table.
#[derive(Debug)]
pub struct Provisioning {
    pub vendor: Vendor,
    pub unconfigured: UnconfiguredTable,
    /// The CLI command that lists unconfigured ONUs (the simulator answers it; the
    /// service reads the SNMP table).
    pub discover: &'static str,
    /// What the discovery command prints when there are none.
    pub discover_none: &'static str,
    pub profiles: &'static [ProfileListing],
    /// Profile kinds an authorisation must name.
    pub required: &'static [ProfileKind],
    pub serial_kind: SerialKind,
    /// ONU indexes a port has, first and last.
    pub first_index: u32,
    pub last_index: u32,
    /// Configuration sub-modes the scripts use beyond the CLI profile's own.
    pub modes: &'static [CliMode],
    /// Registers the ONU; run from privileged mode, ending there.
    pub register: &'static [&'static str],
    /// Removes it (service ports first where the vendor needs it); same frame.
    pub deregister: &'static [&'static str],
    /// The device's refusals: index taken, serial already registered, unknown profile
    /// (each starts with one of the CLI profile's error markers).
    pub refuse_index_taken: &'static str,
    pub refuse_serial_taken: &'static str,
    pub refuse_unknown_profile: &'static str,
}

impl Provisioning {
    pub fn for_vendor(vendor: Vendor) -> &'static Provisioning {
        match vendor {
            Vendor::Huawei => &super::huawei::provisioning::HUAWEI_PROVISIONING,
            Vendor::Zte => &super::zte::provisioning::ZTE_PROVISIONING,
            Vendor::Bdcom => &super::bdcom::provisioning::BDCOM_PROVISIONING,
        }
    }

    /// The serial as the API writes it (`HWTC1A2B3C4D`, `fc:fa:f7:12:34:56`).
    pub fn api_serial(&self, serial: &str) -> Option<String> {
        match self.serial_kind {
            SerialKind::Gpon => {
                super::parse_gpon_serial(serial).map(|bytes| super::format_gpon_serial(&bytes))
            }
            SerialKind::Mac => parse_mac(serial).map(|bytes| super::format_mac(&bytes)),
        }
    }

    /// The serial as the device's CLI writes it: `HWTC1A2B3C4D`, or `fcfa.f712.3456`
    /// for a MAC given as `fc:fa:f7:12:34:56`. `None` when `serial` is not one.
    pub fn cli_serial(&self, serial: &str) -> Option<String> {
        match self.serial_kind {
            SerialKind::Gpon => {
                super::parse_gpon_serial(serial).map(|bytes| super::format_gpon_serial(&bytes))
            }
            SerialKind::Mac => parse_mac(serial).map(|bytes| dotted_mac(&bytes)),
        }
    }
}

/// Parses `fc:fa:f7:12:34:56` (or with `-`, or dotted `fcfa.f712.3456`) to 6 bytes.
pub fn parse_mac(text: &str) -> Option<[u8; 6]> {
    let hex: String = text
        .chars()
        .filter(|c| !matches!(c, ':' | '-' | '.'))
        .collect();
    let separators = text.len() - hex.len();
    if hex.len() != 12 || !(separators == 0 || separators == 2 || separators == 5) {
        return None;
    }
    let mut out = [0u8; 6];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// `fcfa.f712.3456`, as BDCOM writes a MAC.
pub fn dotted_mac(bytes: &[u8; 6]) -> String {
    format!(
        "{:02x}{:02x}.{:02x}{:02x}.{:02x}{:02x}",
        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serials_are_written_as_each_cli_wants_them() {
        let huawei = Provisioning::for_vendor(Vendor::Huawei);
        let bdcom = Provisioning::for_vendor(Vendor::Bdcom);
        assert_eq!(
            huawei.cli_serial("HWTC1a2b3c4d").as_deref(),
            Some("HWTC1A2B3C4D")
        );
        assert_eq!(huawei.cli_serial("HWTC1A2B3C4"), None);
        assert_eq!(huawei.cli_serial("HWTC 1A2B3C4"), None);
        assert_eq!(
            bdcom.cli_serial("fc:fa:f7:12:34:56").as_deref(),
            Some("fcfa.f712.3456")
        );
        assert_eq!(bdcom.cli_serial("fc:fa:f7:12:34:5g"), None);
        assert_eq!(bdcom.cli_serial("fc:fa:f7:12:34:56;"), None);
        assert_eq!(parse_mac("fcfa.f712.3456"), parse_mac("FC-FA-F7-12-34-56"));
    }

    #[test]
    fn every_vendor_has_scripts_and_a_table() {
        for vendor in Vendor::ALL {
            let table = Provisioning::for_vendor(vendor);
            assert_eq!(table.vendor, vendor);
            assert!(table.register.iter().any(|l| l.contains("{serial}")));
            assert!(table.deregister.iter().any(|l| l.contains("{onu}")));
            assert!(table.first_index < table.last_index);
            for kind in table.required {
                assert!(table.profiles.iter().any(|p| p.kind == *kind));
            }
        }
    }
}
