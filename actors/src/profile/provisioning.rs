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
//! This file holds the types and what they compute; each family's table is in its
//! vendor's folder (`huawei/provisioning.rs`, `zte/provisioning.rs` with the C300 / C320
//! and the C600 / C620, `bdcom/provisioning.rs` with the EPON and the GP3600), one per
//! layout of [`super::Profile::ALL`], reached through [`Provisioning::for_profile`]: a
//! C620 is provisioned with the C620's commands, not the C320's. Facts are from
//! docs/provisioning.md and docs/devices.md; refusal texts and tables no public source
//! settled are marked (?), and a command no source gives is `None` (the API answers
//! 501 `NOT_SUPPORTED` naming the family rather than guess it).

use super::commands::CliMode;
use super::{PonIdLayout, Profile};
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

/// How the discovery command prints its list (the simulator's side: the service reads
/// the SNMP table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiscoveryFormat {
    /// Huawei `display ont autofind all`: a block of `Key : value` lines per ONT.
    HuaweiAutofind,
    /// ZTE C300 `show gpon onu uncfg`: `OnuIndex  Sn  State` rows `gpon-onu_1/1/2:1 …`.
    ZteUncfg,
    /// ZTE C600 `show pon onu uncfg`: `OltIndex  Model  SN` rows `gpon_olt-1/1/1 …`.
    ZteTitanUncfg,
    /// BDCOM EPON: `Interface  MAC Address  Status` rows.
    BdcomMacRows,
}

/// The CLI command that lists unconfigured ONUs (the simulator answers it; the service
/// reads the SNMP table).
#[derive(Debug, Clone, Copy)]
pub struct Discovery {
    pub command: &'static str,
    /// What it prints when there are none.
    pub none: &'static str,
    pub format: DiscoveryFormat,
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
    /// Text `VEND:XXXXXXXX` (`HWTC:1a2b3c4d`, BDCOM GPON).
    GponText,
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
    /// GPON, written `HWTC1A2B3C4D` in the API and `HWTC:1A2B3C4D` in the CLI (BDCOM).
    GponColon,
    /// EPON: a MAC, `fc:fa:f7:12:34:56` in the API, `fcfa.f712.3456` in the CLI.
    Mac,
}

/// One layout's provisioning table.
#[derive(Debug)]
pub struct Provisioning {
    pub vendor: Vendor,
    /// The layout it provisions ([`Profile::layout`], `C620`).
    pub layout: &'static str,
    pub unconfigured: UnconfiguredTable,
    /// The CLI's list of unconfigured ONUs; `None` where no source gives the command.
    pub discover: Option<Discovery>,
    /// The commands that list what an authorisation names (none: an empty list); `None`
    /// where no source settles the command or its output, so the listing is not
    /// supported and the device alone judges a named profile.
    pub profiles: Option<&'static [ProfileListing]>,
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
    /// One table per layout, in the order of [`Profile::ALL`].
    pub const ALL: [&'static Provisioning; 5] = [
        &super::huawei::provisioning::HUAWEI_PROVISIONING,
        &super::zte::provisioning::ZTE_PROVISIONING,
        &super::bdcom::provisioning::BDCOM_PROVISIONING,
        &super::zte::provisioning::ZTE_C600_PROVISIONING,
        &super::bdcom::provisioning::BDCOM_GPON_PROVISIONING,
    ];

    /// The table of the vendor's default layout ([`Profile::for_vendor`]); `None` for the
    /// vendors no public source gives the provisioning commands of (Eltex, V-SOL,
    /// C-Data, SNR: docs/devices.md), whose provisioning answers 501.
    pub fn for_vendor(vendor: Vendor) -> Option<&'static Provisioning> {
        match vendor {
            Vendor::Huawei => Some(&super::huawei::provisioning::HUAWEI_PROVISIONING),
            Vendor::Zte => Some(&super::zte::provisioning::ZTE_PROVISIONING),
            Vendor::Bdcom => Some(&super::bdcom::provisioning::BDCOM_PROVISIONING),
            Vendor::Eltex | Vendor::Vsol | Vendor::Cdata | Vendor::Snr => None,
        }
    }

    /// The table of `profile`'s layout, or `None` where provisioning is not known.
    pub fn for_profile(profile: &Profile) -> Option<&'static Provisioning> {
        Provisioning::ALL
            .into_iter()
            .find(|table| table.vendor == profile.vendor && table.layout == profile.layout)
            .or_else(|| Provisioning::for_vendor(profile.vendor))
    }

    /// The table of the layout a poll detected (`layout` as the API shows it, `C620`),
    /// or of the vendor's default layout while none was detected yet; `None` where
    /// provisioning is not known.
    pub fn for_layout(vendor: Vendor, layout: Option<&str>) -> Option<&'static Provisioning> {
        Provisioning::ALL
            .into_iter()
            .find(|table| table.vendor == vendor && Some(table.layout) == layout)
            .or_else(|| Provisioning::for_vendor(vendor))
    }

    /// The family as people name it (`C600 / C620`), for messages.
    pub fn family(&self) -> &'static str {
        Profile::ALL
            .into_iter()
            .find(|p| p.vendor == self.vendor && p.layout == self.layout)
            .map_or(self.layout, |p| p.family)
    }

    /// The serial as the API writes it (`HWTC1A2B3C4D`, `fc:fa:f7:12:34:56`).
    pub fn api_serial(&self, serial: &str) -> Option<String> {
        match self.serial_kind {
            SerialKind::Gpon | SerialKind::GponColon => {
                super::parse_gpon_serial(serial).map(|bytes| super::format_gpon_serial(&bytes))
            }
            SerialKind::Mac => parse_mac(serial).map(|bytes| super::format_mac(&bytes)),
        }
    }

    /// The serial as the device's CLI writes it: `HWTC1A2B3C4D` (BDCOM GPON
    /// `HWTC:1A2B3C4D`), or `fcfa.f712.3456` for a MAC given as `fc:fa:f7:12:34:56`.
    /// `None` when `serial` is not one.
    pub fn cli_serial(&self, serial: &str) -> Option<String> {
        match self.serial_kind {
            SerialKind::Gpon => {
                super::parse_gpon_serial(serial).map(|bytes| super::format_gpon_serial(&bytes))
            }
            SerialKind::GponColon => super::parse_gpon_serial(serial).map(|bytes| {
                let text = super::format_gpon_serial(&bytes);
                format!("{}:{}", &text[..4], &text[4..])
            }),
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
        let huawei = Provisioning::for_vendor(Vendor::Huawei).expect("Huawei");
        let bdcom = Provisioning::for_vendor(Vendor::Bdcom).expect("BDCOM");
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
    fn every_layout_has_its_own_scripts_and_table_or_none() {
        let unknown = [Vendor::Eltex, Vendor::Vsol, Vendor::Cdata, Vendor::Snr];
        for profile in Profile::ALL {
            let Some(table) = Provisioning::for_profile(profile) else {
                assert!(unknown.contains(&profile.vendor), "{}", profile.layout);
                assert!(Provisioning::for_layout(profile.vendor, Some(profile.layout)).is_none());
                continue;
            };
            assert_eq!(
                (table.vendor, table.layout),
                (profile.vendor, profile.layout)
            );
            let found = Provisioning::for_layout(profile.vendor, Some(profile.layout));
            assert_eq!(found.map(|t| t.layout), Some(profile.layout));
            assert!(table.register.iter().any(|l| l.contains("{serial}")));
            assert!(table.deregister.iter().any(|l| l.contains("{onu}")));
            assert!(table.first_index < table.last_index);
            for kind in table.required {
                let listed = table.profiles.unwrap_or(&[]);
                assert!(
                    table.profiles.is_none() || listed.iter().any(|p| p.kind == *kind),
                    "{}: {kind:?}",
                    table.layout
                );
            }
        }
        // Before any poll detected a layout: the vendor's default one.
        let layout = |vendor, layout| Provisioning::for_layout(vendor, layout).map(|t| t.layout);
        assert_eq!(layout(Vendor::Zte, None), Some("C320"));
        assert_eq!(layout(Vendor::Bdcom, Some("C620")), Some("P3310"));
        let bdcom_gpon = Provisioning::for_layout(Vendor::Bdcom, Some("GP3600")).expect("GP3600");
        assert_eq!(
            bdcom_gpon.cli_serial("HWTC1a2b3c4d").as_deref(),
            Some("HWTC:1A2B3C4D")
        );
        assert_eq!(bdcom_gpon.family(), "GP3600 (GPON)");
    }
}
