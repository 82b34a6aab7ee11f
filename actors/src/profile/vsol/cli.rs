//! V-SOL's command lines as data ([`CliProfile`]). Log-in follows switcher-core's V-SOL
//! models (`terminal length 0`, `enable`). On the V1600G an ONU's description is set in
//! `interface gpon 0/P` with `onu N desc TEXT` (docs/devices.md, (?) no public source
//! shows the device answering it); no public source gives the V1600G's reboot or VLAN
//! commands or any of the V1600D's, so those answer 501 rather than guess.

use crate::profile::commands::{CliMode, CliProfile, LineShape};

/// V-SOL V1600D (EPON): the dialogue only; no scripts are known.
pub static VSOL_EPON_CLI: CliProfile = CliProfile {
    user_prompt: "{host}>",
    setup: &["enable", "terminal length 0"],
    // ` --More-- ` and a NUL, sometimes in the middle of a line; after the space that
    // answers it, 10 BS, 10 spaces, 10 BS (oxidized's recorded V1600G session).
    pager: " --More-- ",
    confirm: "[Y/N]",
    confirm_answer: "Y",
    error_markers: &["% Unknown command", "% Invalid", "% Incomplete", "Error"],
    empty_answers: &[],
    // Syslog lines printed into any session, mid-output too: `2026/05/25 18:51:33  ONU
    // Port Los …` (oxidized's `vsololt` model drops the same).
    unsolicited: &[LineShape::DateTimeLead],
    modes: &[
        CliMode {
            enter: "enable",
            prompt: "{host}#",
            depth: 1,
        },
        CliMode {
            enter: "configure terminal",
            prompt: "{host}(config)#",
            depth: 2,
        },
    ],
    exit: &["exit"],
    leave: "end",
    running_config: "show running-config",
    reboot: &[],
    set_vlan: &[],
    set_description: &[],
    set_line_profile: &[],
    set_service_profile: &[],
    onu_section: None,
    vlan_line: "",
    macs: None,
};

/// V-SOL V1600G / V1600GS (GPON): descriptions under `interface gpon 0/P`.
pub static VSOL_GPON_CLI: CliProfile = CliProfile {
    modes: &[
        CliMode {
            enter: "enable",
            prompt: "{host}#",
            depth: 1,
        },
        CliMode {
            enter: "configure terminal",
            prompt: "{host}(config)#",
            depth: 2,
        },
        CliMode {
            enter: "interface gpon {pon}",
            prompt: "{host}(config-pon-{pon})#",
            depth: 3,
        },
    ],
    set_description: &[
        "configure terminal",
        "interface gpon {pon}",
        "onu {onu} desc {description}",
        "end",
    ],
    macs: None,
    ..VSOL_EPON_CLI
};
