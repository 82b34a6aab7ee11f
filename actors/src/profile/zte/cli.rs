//! ZTE's command lines as data ([`CliProfile`]): the C300 / C320's dialogue, and the
//! C600 / C620's, which is the same with the TITAN interface names and prompts.

use crate::profile::commands::{CliMacs, CliMode, CliProfile, MacTable};

/// ZTE C300 / C320.
pub static ZTE_CLI: CliProfile = CliProfile {
    user_prompt: "{host}>",
    setup: &["enable", "terminal length 0"],
    pager: "--More--",
    confirm: "[yes/no]",
    confirm_answer: "yes",
    error_markers: &[
        "%Error",
        "%Code",
        "% Invalid",
        "% Unknown",
        "% Ambiguous",
        "% Incomplete",
    ],
    // `show gpon onu uncfg` with nothing unconfigured (tests/fixtures/cli/zte).
    empty_answers: &["%Code 32310-GPONSRV : No related information to show"],
    unsolicited: &[],
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
            enter: "interface gpon-onu_{pon}:{onu}",
            prompt: "{host}(config-if)#",
            depth: 3,
        },
        CliMode {
            enter: "pon-onu-mng gpon-onu_{pon}:{onu}",
            prompt: "{host}(gpon-onu-mng)#",
            depth: 3,
        },
    ],
    exit: &["exit"],
    leave: "end",
    running_config: "show running-config",
    reboot: &[
        "configure terminal",
        "pon-onu-mng gpon-onu_{pon}:{onu}",
        "reboot",
        "end",
    ],
    set_vlan: &[
        "configure terminal",
        "interface gpon-onu_{pon}:{onu}",
        "no service-port 1",
        "service-port 1 vport 1 user-vlan {vlan} vlan {vlan}",
        "end",
    ],
    set_description: &[
        "configure terminal",
        "interface gpon-onu_{pon}:{onu}",
        "description {description}",
        "end",
    ],
    set_line_profile: &[],
    set_service_profile: &[],
    onu_section: Some("interface gpon-onu_{pon}:{onu}"),
    vlan_line: "service-port {_} vport {_} user-vlan {_} vlan {vlan}",
    macs: Some(CliMacs {
        port: "show mac gpon olt gpon-olt_{pon}",
        onu: "show mac gpon onu gpon-onu_{pon}:{onu}",
        format: MacTable::Zte,
    }),
};

/// ZTE C600 / C620 (docs/devices.md, "ZTE C6xx"): the C300's dialogue with the TITAN
/// interface names `gpon_onu-1/1/1:1` and their own prompts.
pub static ZTE_C600_CLI: CliProfile = CliProfile {
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
            enter: "interface gpon_onu-{pon}:{onu}",
            prompt: "{host}(config-if-gpon_onu-{pon}:{onu})#",
            depth: 3,
        },
        CliMode {
            enter: "pon-onu-mng gpon_onu-{pon}:{onu}",
            prompt: "{host}(config-gpon-onu-mng)#",
            depth: 3,
        },
    ],
    reboot: &[
        "configure terminal",
        "pon-onu-mng gpon_onu-{pon}:{onu}",
        "reboot",
        "end",
    ],
    set_vlan: &[
        "configure terminal",
        "interface gpon_onu-{pon}:{onu}",
        "no service-port 1",
        "service-port 1 vport 1 user-vlan {vlan} vlan {vlan}",
        "end",
    ],
    set_description: &[
        "configure terminal",
        "interface gpon_onu-{pon}:{onu}",
        "description {description}",
        "end",
    ],
    onu_section: Some("interface gpon_onu-{pon}:{onu}"),
    macs: Some(CliMacs {
        port: "show mac gpon olt gpon_olt-{pon}",
        onu: "show mac gpon onu gpon_onu-{pon}:{onu}",
        format: MacTable::ZteC600,
    }),
    ..ZTE_CLI
};
