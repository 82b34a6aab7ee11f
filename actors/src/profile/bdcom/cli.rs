//! BDCOM's command lines as data ([`CliProfile`]): the EPON OLTs' dialogue, and the GPON
//! OLTs', which is the same on `GPON0/1:1` interfaces.

use crate::profile::commands::{CliMode, CliProfile};

/// BDCOM P3310 / P3600 (EPON).
pub static BDCOM_CLI: CliProfile = CliProfile {
    user_prompt: "{host}>",
    setup: &["enable", "terminal length 0"],
    // ` --More-- ` at a line's start (NOC Project's BDCOM profile: `^ --More-- `).
    pager: " --More-- ",
    // NOC Project's BDCOM profile answers `(y/n) [n]` (tests/fixtures/cli/bdcom).
    confirm: "(y/n)",
    confirm_answer: "y",
    error_markers: &["% Unknown command", "% Invalid", "% Incomplete", "Error:"],
    empty_answers: &[],
    unsolicited: &[],
    modes: &[
        CliMode {
            enter: "enable",
            prompt: "{host}#",
            depth: 1,
        },
        CliMode {
            enter: "config",
            prompt: "{host}_config#",
            depth: 2,
        },
        CliMode {
            enter: "interface EPON{pon}:{onu}",
            prompt: "{host}_config_epon{pon}:{onu}#",
            depth: 3,
        },
    ],
    exit: &["exit"],
    leave: "end",
    running_config: "show running-config",
    reboot: &["epon reboot onu interface EPON{pon}:{onu}"],
    set_vlan: &[
        "config",
        "interface EPON{pon}:{onu}",
        "epon onu port 1 ctc vlan mode tag {vlan}",
        "end",
    ],
    set_description: &[
        "config",
        "interface EPON{pon}:{onu}",
        "description {description}",
        "end",
    ],
    set_line_profile: &[],
    set_service_profile: &[],
    onu_section: Some("interface EPON{pon}:{onu}"),
    vlan_line: "epon onu port {_} ctc vlan mode tag {vlan}",
    macs: None,
};

/// BDCOM GP3600 (GPON): the EPON dialogue on `GPON0/1:1` interfaces.
pub static BDCOM_GPON_CLI: CliProfile = CliProfile {
    modes: &[
        CliMode {
            enter: "enable",
            prompt: "{host}#",
            depth: 1,
        },
        CliMode {
            enter: "config",
            prompt: "{host}_config#",
            depth: 2,
        },
        CliMode {
            enter: "interface GPON{pon}:{onu}",
            prompt: "{host}_config_gpon{pon}:{onu}#",
            depth: 3,
        },
    ],
    reboot: &["gpon reboot onu interface GPON{pon}:{onu}"],
    set_vlan: &[
        "config",
        "interface GPON{pon}:{onu}",
        "gpon onu port 1 vlan mode tag {vlan}",
        "end",
    ],
    set_description: &[
        "config",
        "interface GPON{pon}:{onu}",
        "description {description}",
        "end",
    ],
    onu_section: Some("interface GPON{pon}:{onu}"),
    vlan_line: "gpon onu port {_} vlan mode tag {vlan}",
    macs: None,
    ..BDCOM_CLI
};
