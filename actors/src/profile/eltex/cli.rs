//! Eltex LTP-8X / LTP-4X's command line as data ([`CliProfile`]): the dialogue (prompts,
//! pager, confirmation, `configure`) as NOC Project's Eltex LTP profile drives it; an ONT
//! is named `<channel>/<ont>` (`interface ont 3/5`), and a change takes effect with
//! `do commit` (the reboot and description commands: (?) docs/devices.md names no public
//! source). VLANs come from the cross-connect profile an ONT's service names, not from
//! a number set on the ONT, so setting one is not supported (501) rather than guessed.

use crate::profile::commands::{CliMode, CliProfile};

/// Eltex LTP-8X / LTP-4X.
pub static ELTEX_CLI: CliProfile = CliProfile {
    user_prompt: "{host}#",
    // The pager is answered as it comes; no source names a command that turns it off.
    setup: &[],
    pager: "--More--",
    confirm: "[Yes/press any key for no]",
    confirm_answer: "Y",
    error_markers: &[
        "Error:",
        "% Unknown command",
        "% Invalid",
        "Unknown command",
        // NOC Project's Eltex LTP profile (tests/fixtures/cli/eltex).
        "Command not found",
        "Incomplete command",
        "Invalid argument",
    ],
    empty_answers: &[],
    unsolicited: &[],
    modes: &[
        CliMode {
            enter: "configure",
            prompt: "{host}(config)#",
            depth: 2,
        },
        CliMode {
            enter: "interface ont {port}/{onu}",
            prompt: "{host}(config)(if-ont-{port}/{onu})#",
            depth: 3,
        },
    ],
    exit: &["exit"],
    leave: "end",
    running_config: "show running-config",
    reboot: &["send omci reset interface ont {port}/{onu}"],
    set_vlan: &[],
    set_description: &[
        "configure",
        "interface ont {port}/{onu}",
        "description {description}",
        "do commit",
        "end",
    ],
    set_line_profile: &[],
    set_service_profile: &[],
    onu_section: None,
    vlan_line: "",
    macs: None,
};
