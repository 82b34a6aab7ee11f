//! BDCOM's provisioning table ([`Provisioning`]): the unbound-ONU table and command and
//! the scripts that bind an ONU's MAC to a sequence number and unbind it
//! (docs/provisioning.md). BDCOM names no profiles.

use crate::domain::Vendor;
use crate::profile::commands::CliMode;
use crate::profile::provisioning::{
    PortKey, Provisioning, SerialKind, UnconfiguredSerial, UnconfiguredTable,
};

/// BDCOM P3310 (EPON): no profiles; ONUs are bound by MAC to a sequence number.
pub static BDCOM_PROVISIONING: Provisioning = Provisioning {
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
