//! Huawei MA5600T / MA5800's provisioning table ([`Provisioning`]): the autofind table
//! and command, the line and service profiles an authorisation names, and the scripts
//! that register an ONT and remove it (docs/provisioning.md).

use crate::domain::Vendor;
use crate::profile::provisioning::{
    Discovery, DiscoveryFormat, ListingFormat, PortKey, ProfileKind, ProfileListing, Provisioning,
    SerialKind, UnconfiguredSerial, UnconfiguredTable,
};

/// Huawei P = 1.3.6.1.4.1.2011.6.128.1.1.2; hwGponDeviceAutoFindOntInfoTable is P.48.
pub static HUAWEI_PROVISIONING: Provisioning = Provisioning {
    vendor: Vendor::Huawei,
    layout: "MA5800",
    unconfigured: UnconfiguredTable {
        serial: &[1, 3, 6, 1, 4, 1, 2011, 6, 128, 1, 1, 2, 48, 1, 2],
        serial_encoding: UnconfiguredSerial::GponBytes,
        equipment: Some(&[1, 3, 6, 1, 4, 1, 2011, 6, 128, 1, 1, 2, 48, 1, 7]),
        port_key: PortKey::IfIndex,
    },
    discover: Some(Discovery {
        command: "display ont autofind all",
        none: "   Failure: The automatically found ONTs do not exist",
        format: DiscoveryFormat::HuaweiAutofind,
    }),
    profiles: Some(&[
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
    ]),
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
