//! SNR-OLT-GPON's command line: no public source gives it (docs/devices.md, "SNR"), so
//! the profile names no scripts and every CLI action on an SNR OLT answers 501
//! `NOT_SUPPORTED` naming the family rather than send a guess to a device. The prompts
//! and markers are the common `host#` dialogue, used only to log in.

use crate::profile::commands::{CliMode, CliProfile};

/// SNR-OLT-GPON: no known scripts.
pub static SNR_CLI: CliProfile = CliProfile {
    user_prompt: "{host}>",
    setup: &["enable"],
    pager: "--More--",
    confirm: "[Y/N]",
    confirm_answer: "y",
    error_markers: &["% Unknown command", "% Invalid", "Error:"],
    empty_answers: &[],
    unsolicited: &[],
    modes: &[CliMode {
        enter: "enable",
        prompt: "{host}#",
        depth: 1,
    }],
    exit: &["exit"],
    leave: "end",
    running_config: "",
    reboot: &[],
    set_vlan: &[],
    set_description: &[],
    set_line_profile: &[],
    set_service_profile: &[],
    onu_section: None,
    vlan_line: "",
    macs: None,
};
