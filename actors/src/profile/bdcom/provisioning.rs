//! BDCOM's provisioning tables ([`Provisioning`]), one per family: the unbound-ONU table
//! and command and the scripts that bind an ONU to a sequence number and unbind it — by
//! MAC on the EPON OLTs (`epon bind-onu mac …` in `interface EPON0/1`), by serial on the
//! GP3600 (`gpon bind-onu sn …` in `interface GPON0/1`) (docs/provisioning.md,
//! docs/devices.md). BDCOM names no profiles.

use crate::domain::Vendor;
use crate::profile::commands::CliMode;
use crate::profile::provisioning::{
    Discovery, DiscoveryFormat, PortKey, Provisioning, SerialKind, UnconfiguredSerial,
    UnconfiguredTable,
};

/// BDCOM P3310 (EPON): no profiles; ONUs are bound by MAC to a sequence number.
pub static BDCOM_PROVISIONING: Provisioning = Provisioning {
    vendor: Vendor::Bdcom,
    layout: "P3310",
    unconfigured: UnconfiguredTable {
        // (?) the GP3600's unbound-ONU column (NMS-GPON-MIB), served with EPON MACs.
        serial: &[1, 3, 6, 1, 4, 1, 3320, 10, 2, 8, 1, 6],
        serial_encoding: UnconfiguredSerial::DottedMac,
        equipment: None,
        port_key: PortKey::IfIndex,
    },
    // (?) whether inactive-onu lists unbound ONUs.
    discover: Some(Discovery {
        command: "show epon inactive-onu",
        none: "% No inactive ONU.",
        format: DiscoveryFormat::BdcomMacRows,
    }),
    profiles: Some(&[]),
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

/// BDCOM GP3600 (GPON): ONUs are bound by serial, written `HWTC:1A2B3C4D`, to a
/// sequence number: `gpon bind-onu sn HWTC:1A2B3C4D N` in `interface GPON0/P` (as
/// running configurations print it), removed with `no gpon bind-onu sequence N`
/// (switcher-core `BDcom/GP3600/OntDelete.php`). Unbound ONUs: NMS-GPON-MIB's
/// `3320.10.2.8.1.6.<port ifIndex>.<n>`, the serial as text (switcher-core
/// `GP3600/UnregisteredOnts.php`). No source gives a CLI command that lists unbound
/// ONUs (`show gpon inactive-onu` lists bound ONUs that are offline), so there is none.
pub static BDCOM_GPON_PROVISIONING: Provisioning = Provisioning {
    vendor: Vendor::Bdcom,
    layout: "GP3600",
    unconfigured: UnconfiguredTable {
        serial: &[1, 3, 6, 1, 4, 1, 3320, 10, 2, 8, 1, 6],
        serial_encoding: UnconfiguredSerial::GponText,
        equipment: None,
        port_key: PortKey::IfIndex,
    },
    discover: None,
    profiles: Some(&[]),
    required: &[],
    serial_kind: SerialKind::GponColon,
    first_index: 1,
    // (?) 128 ONUs a port, as the GP3600-16B's ONU interfaces are numbered.
    last_index: 128,
    // The prompt as BDCOM's GPON OLTs show it (`Switch_config_gpon0/1#`).
    modes: &[CliMode {
        enter: "interface GPON{pon}",
        prompt: "{host}_config_gpon{pon}#",
        depth: 3,
    }],
    register: &[
        "config",
        "interface GPON{pon}",
        "gpon bind-onu sn {serial} {onu}",
        "end",
    ],
    deregister: &[
        "config",
        "interface GPON{pon}",
        "no gpon bind-onu sequence {onu}",
        "end",
    ],
    // (?) all three, worded as the EPON ones.
    refuse_index_taken: "% Invalid input: the ONU sequence is already bound.",
    refuse_serial_taken: "% Invalid input: the SN is already bound.",
    refuse_unknown_profile: "% Invalid input: unknown profile.",
};
