//! ZTE's provisioning table ([`Provisioning`]): the unconfigured-ONU table and command,
//! the ONU types an authorisation names, and the scripts that register an ONU and
//! remove it (docs/provisioning.md).

use crate::domain::Vendor;
use crate::profile::commands::CliMode;
use crate::profile::provisioning::{
    ListingFormat, PortKey, ProfileKind, ProfileListing, Provisioning, SerialKind,
    UnconfiguredSerial, UnconfiguredTable,
};
use crate::profile::PonIdLayout;

/// ZTE C300/C320: the uncfg table 1012.3.13.3.1, index `<ponId>.<n>`.
pub static ZTE_PROVISIONING: Provisioning = Provisioning {
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
