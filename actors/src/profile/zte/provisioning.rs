//! ZTE's provisioning tables ([`Provisioning`]), one per family: the unconfigured-ONU
//! table and command, the ONU types an authorisation names, and the scripts that
//! register an ONU and remove it — the C300 / C320's on `gpon-olt_1/1/1`, the C600 /
//! C620's on `gpon_olt-1/1/1` (docs/provisioning.md, docs/devices.md).

use crate::domain::Vendor;
use crate::profile::commands::CliMode;
use crate::profile::provisioning::{
    Discovery, DiscoveryFormat, ListingFormat, PortKey, ProfileKind, ProfileListing, Provisioning,
    SerialKind, UnconfiguredSerial, UnconfiguredTable,
};
use crate::profile::PonIdLayout;

/// ZTE C300/C320: the uncfg table 1012.3.13.3.1, index `<ponId>.<n>`.
pub static ZTE_PROVISIONING: Provisioning = Provisioning {
    vendor: Vendor::Zte,
    layout: "C320",
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
    discover: Some(Discovery {
        command: "show gpon onu uncfg",
        none: "%Code 32310-GPONSRV : No related information to show.",
        format: DiscoveryFormat::ZteUncfg,
    }),
    profiles: Some(&[ProfileListing {
        kind: ProfileKind::OnuType,
        command: "show onu-type gpon",
        format: ListingFormat::OnuTypeBlocks,
    }]),
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

/// ZTE C600 / C620 / C650 (TITAN): the uncfg table `3902.1082.500.2.2.11.2.1`, index
/// `<port ifIndex>.<n>` (switcher-core `configs/oids/zte/ZTE-C600.yml`), and the C300's
/// `onu N type T sn SN` / `no onu N` in `interface gpon_olt-1/S/P` (Ubilling
/// `onureg/zte/C6XX/GPON_1`, switcher-core `C600Series/DeregOnt.php`, onmt `C600.php`).
/// No public source settles how a C600 lists its ONU types (`show pon onu-type` (?)),
/// so that listing is not supported and the device alone judges a named type.
pub static ZTE_C600_PROVISIONING: Provisioning = Provisioning {
    vendor: Vendor::Zte,
    layout: "C620",
    unconfigured: UnconfiguredTable {
        serial: &[1, 3, 6, 1, 4, 1, 3902, 1082, 500, 2, 2, 11, 2, 1, 2],
        serial_encoding: UnconfiguredSerial::GponBytes,
        equipment: Some(&[1, 3, 6, 1, 4, 1, 3902, 1082, 500, 2, 2, 11, 2, 1, 8]),
        port_key: PortKey::IfIndex,
    },
    discover: Some(Discovery {
        command: "show pon onu uncfg",
        // (?) the C300's text without its code.
        none: "No related information to show.",
        format: DiscoveryFormat::ZteTitanUncfg,
    }),
    profiles: None,
    required: &[ProfileKind::OnuType],
    serial_kind: SerialKind::Gpon,
    first_index: 1,
    // (?) the C300's range.
    last_index: 128,
    modes: &[CliMode {
        enter: "interface gpon_olt-{pon}",
        prompt: "{host}(config-if-gpon_olt-{pon})#",
        depth: 3,
    }],
    register: &[
        "configure terminal",
        "interface gpon_olt-{pon}",
        "onu {onu} type {onu_type} sn {serial}",
        "end",
    ],
    deregister: &[
        "configure terminal",
        "interface gpon_olt-{pon}",
        "no onu {onu}",
        "end",
    ],
    // (?) the C300's codes and wording.
    refuse_index_taken: "%Code 32301-GPONSRV : The ONU has existed.",
    refuse_serial_taken: "%Code 32303-GPONSRV : The SN has existed.",
    refuse_unknown_profile: "%Code 32318-GPONSRV : The ONU type does not exist.",
};
