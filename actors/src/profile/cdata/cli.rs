//! C-Data FD16xx's command line as data ([`CliProfile`]): ONUs are named by port and
//! number under `interface gpon 0/0` (`ont reboot 3 7`), `save` keeps a change. No
//! public source gives how an ONU's service VLAN is set, so that is not supported (501)
//! rather than guessed. Sources: docs/devices.md, "C-Data".

use crate::profile::commands::{CliMode, CliProfile};

/// C-Data FD16xx (GPON).
pub static CDATA_CLI: CliProfile = CliProfile {
    user_prompt: "{host}>",
    setup: &["enable", "terminal length 0"],
    pager: "--More ( Press 'Q' to quit )--",
    confirm: "(y/n)",
    confirm_answer: "y",
    // `Unknown command: (` is NOC Project's C-Data refusal (tests/fixtures/cli/cdata).
    error_markers: &[
        "% Unknown command",
        "Unknown command",
        "% Invalid",
        "Error:",
        "Failure:",
    ],
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
            prompt: "{host}(config)#",
            depth: 2,
        },
        CliMode {
            enter: "interface gpon {board}",
            prompt: "{host}(config-interface-gpon-{board})#",
            depth: 3,
        },
    ],
    exit: &["exit"],
    leave: "end",
    running_config: "show running-config",
    reboot: &[
        "config",
        "interface gpon {board}",
        "ont reboot {port} {onu}",
        "end",
    ],
    set_vlan: &[],
    set_description: &[
        "config",
        "interface gpon {board}",
        "ont description {port} {onu} {description}",
        "end",
    ],
    set_line_profile: &[],
    set_service_profile: &[],
    onu_section: None,
    vlan_line: "",
    macs: None,
};
