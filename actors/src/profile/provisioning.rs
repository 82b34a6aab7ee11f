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
//! Facts are from DEVICES.md "Discovery and authorisation"; refusal texts and the BDCOM
//! unbound table are marked (?) where no public transcript confirmed them.

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

/// Huawei P = 1.3.6.1.4.1.2011.6.128.1.1.2; hwGponDeviceAutoFindOntInfoTable is P.48.
pub static HUAWEI: Provisioning = Provisioning {
    vendor: Vendor::Huawei,
    unconfigured: UnconfiguredTable {
        serial: &[1, 3, 6, 1, 4, 1, 2011, 6, 128, 1, 1, 2, 48, 1, 2],
        serial_encoding: UnconfiguredSerial::GponBytes,
        equipment: Some(&[1, 3, 6, 1, 4, 1, 2011, 6, 128, 1, 1, 2, 48, 1, 7]),
        port_key: PortKey::IfIndex,
    },
    discover: "display ont autofind all",
    discover_none: "   Failure: The automatically found ONTs do not exist",
    profiles: &[
        ProfileListing {
            kind: ProfileKind::Line,
            command: "display ont-lineprofile gpon all",
            format: ListingFormat::IdNameTable,
        },
        ProfileListing {
            kind: ProfileKind::Service,
            command: "display ont-srvprofile gpon all",
            format: ListingFormat::IdNameTable,
        },
    ],
    required: &[ProfileKind::Line, ProfileKind::Service],
    serial_kind: SerialKind::Gpon,
    first_index: 0,
    last_index: 127,
    modes: &[],
    register: &[
        "config",
        "interface gpon {board}",
        "ont add {port} {onu} sn-auth {serial} omci ont-lineprofile-id {line} ont-srvprofile-id {service}",
        "return",
    ],
    deregister: &[
        "config",
        "undo service-port port {pon} ont {onu}",
        "interface gpon {board}",
        "ont delete {port} {onu}",
        "return",
    ],
    // (?) the two id/profile texts; "SN already exists" is quoted in public scripts.
    refuse_index_taken: "  Failure: The ONT ID has already existed",
    refuse_serial_taken: "  Failure: SN already exists",
    refuse_unknown_profile: "  Failure: The profile does not exist",
};

/// ZTE C300/C320: the uncfg table 1012.3.13.3.1, index `<ponId>.<n>`.
pub static ZTE: Provisioning = Provisioning {
    vendor: Vendor::Zte,
    unconfigured: UnconfiguredTable {
        serial: &[1, 3, 6, 1, 4, 1, 3902, 1012, 3, 13, 3, 1, 2],
        serial_encoding: UnconfiguredSerial::GponBytes,
        equipment: Some(&[1, 3, 6, 1, 4, 1, 3902, 1012, 3, 13, 3, 1, 10]),
        port_key: PortKey::PonId(PonIdLayout {
            base: 0x1000_0000,
            frame: 1,
            slot_step: 65_536,
            port_step: 256,
        }),
    },
    discover: "show gpon onu uncfg",
    discover_none: "%Code 32310-GPONSRV : No related information to show.",
    profiles: &[ProfileListing {
        kind: ProfileKind::OnuType,
        command: "show onu-type gpon",
        format: ListingFormat::OnuTypeBlocks,
    }],
    required: &[ProfileKind::OnuType],
    serial_kind: SerialKind::Gpon,
    first_index: 1,
    last_index: 128,
    modes: &[CliMode {
        enter: "interface gpon-olt_{pon}",
        prompt: "{host}(config-if)#",
        depth: 3,
    }],
    register: &[
        "configure terminal",
        "interface gpon-olt_{pon}",
        "onu {onu} type {onu_type} sn {serial}",
        "end",
    ],
    deregister: &[
        "configure terminal",
        "interface gpon-olt_{pon}",
        "no onu {onu}",
        "end",
    ],
    // (?) codes and wording.
    refuse_index_taken: "%Code 32301-GPONSRV : The ONU has existed.",
    refuse_serial_taken: "%Code 32303-GPONSRV : The SN has existed.",
    refuse_unknown_profile: "%Code 32318-GPONSRV : The ONU type does not exist.",
};

/// BDCOM P3310 (EPON): no profiles; ONUs are bound by MAC to a sequence number.
pub static BDCOM: Provisioning = Provisioning {
    vendor: Vendor::Bdcom,
    unconfigured: UnconfiguredTable {
        // (?) the GP3600's unbound-ONU column (NMS-GPON-MIB), served with EPON MACs.
        serial: &[1, 3, 6, 1, 4, 1, 3320, 10, 2, 8, 1, 6],
        serial_encoding: UnconfiguredSerial::DottedMac,
        equipment: None,
        port_key: PortKey::IfIndex,
    },
    // (?) whether inactive-onu lists unbound ONUs.
    discover: "show epon inactive-onu",
    discover_none: "% No inactive ONU.",
    profiles: &[],
    required: &[],
    serial_kind: SerialKind::Mac,
    first_index: 1,
    last_index: 64,
    modes: &[CliMode {
        enter: "interface EPON{pon}",
        prompt: "{host}_config_epon{pon}#",
        depth: 3,
    }],
    register: &[
        "config",
        "interface EPON{pon}",
        "epon bind-onu mac {serial} {onu}",
        "end",
    ],
    deregister: &[
        "config",
        "interface EPON{pon}",
        "no epon bind-onu sequence {onu}",
        "end",
    ],
    // (?) all three.
    refuse_index_taken: "% Invalid input: the ONU sequence is already bound.",
    refuse_serial_taken: "% Invalid input: the MAC address is already bound.",
    refuse_unknown_profile: "% Invalid input: unknown profile.",
};

impl Provisioning {
    pub fn for_vendor(vendor: Vendor) -> &'static Provisioning {
        match vendor {
            Vendor::Huawei => &HUAWEI,
            Vendor::Zte => &ZTE,
            Vendor::Bdcom => &BDCOM,
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
        assert_eq!(
            HUAWEI.cli_serial("HWTC1a2b3c4d").as_deref(),
            Some("HWTC1A2B3C4D")
        );
        assert_eq!(HUAWEI.cli_serial("HWTC1A2B3C4"), None);
        assert_eq!(HUAWEI.cli_serial("HWTC 1A2B3C4"), None);
        assert_eq!(
            BDCOM.cli_serial("fc:fa:f7:12:34:56").as_deref(),
            Some("fcfa.f712.3456")
        );
        assert_eq!(BDCOM.cli_serial("fc:fa:f7:12:34:5g"), None);
        assert_eq!(BDCOM.cli_serial("fc:fa:f7:12:34:56;"), None);
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
