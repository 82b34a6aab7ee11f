//! Huawei MA5600T / MA5800's command line as data ([`CliProfile`]): the setup lines, the
//! pager and confirmation texts, the error markers, the modes and prompts, the scripts
//! of the three ONU actions and the running configuration's service-port line.

use crate::profile::commands::{CliMacs, CliMode, CliProfile, LineShape, MacTable};

/// Huawei MA5600T / MA5800 (docs/devices.md, "Huawei MA5600T / MA5800").
pub static HUAWEI_CLI: CliProfile = CliProfile {
    user_prompt: "{host}>",
    setup: &["enable", "undo smart", "scroll"],
    pager: "---- More ( Press 'Q' to break ) ----",
    confirm: "(y/n)",
    confirm_answer: "y",
    error_markers: &["% Unknown command", "% Parameter error", "Failure:", "% Incomplete"],
    // Nothing to show (a port without MACs, no ONT found) or nothing to remove (`undo
    // service-port` on an ONT without one): tests/fixtures/cli/huawei/dialogue.toml.
    empty_answers: &[
        "Failure: There is not any MAC address record",
        "Failure: The automatically found ONTs do not exist",
        "Failure: No service virtual port can be operated",
    ],
    // A slow command's `  Command is being executed. Please wait` lines (named by the
    // public record of real consoles; no capture holds one, tests/fixtures/cli/README.md).
    unsolicited: &[LineShape::Prefix("Command is being executed")],
    modes: &[
        CliMode {
            enter: "enable",
            prompt: "{host}#",
            depth: 1,
        },
        CliMode {
            enter: "config",
            prompt: "{host}(config)#",
            depth: 2,
        },
        CliMode {
            enter: "interface gpon {board}",
            prompt: "{host}(config-if-gpon-{board})#",
            depth: 3,
        },
    ],
    exit: &["quit"],
    leave: "return",
    running_config: "display current-configuration",
    reboot: &[
        "config",
        "interface gpon {board}",
        "ont reset {port} {onu}",
        "return",
    ],
    set_vlan: &[
        "config",
        "undo service-port port {pon} ont {onu}",
        "service-port vlan {vlan} gpon {pon} ont {onu} gemport 1 multi-service user-vlan {vlan} tag-transform translate",
        "return",
    ],
    set_description: &[
        "config",
        "interface gpon {board}",
        "ont modify {port} {onu} desc \"{description}\"",
        "return",
    ],
    // `ont modify F/S/P N ont-lineprofile-id …` / `ont-srvprofile-id …` in the board's
    // GPON mode (Huawei's command reference for `ont modify`; docs/devices.md).
    set_line_profile: &[
        "config",
        "interface gpon {board}",
        "ont modify {port} {onu} ont-lineprofile-id {line}",
        "return",
    ],
    set_service_profile: &[
        "config",
        "interface gpon {board}",
        "ont modify {port} {onu} ont-srvprofile-id {service}",
        "return",
    ],
    onu_section: None,
    vlan_line: "service-port {_} vlan {vlan} gpon {pon} ont {onu} {*}",
    macs: Some(CliMacs {
        port: "display mac-address port {pon}",
        onu: "display mac-address ont {pon} {onu}",
        format: MacTable::Huawei,
    }),
};
