//! The CLI half of a driver profile: how each vendor's command line is driven over SSH —
//! the setup lines after login, the pager and confirmation texts, the words that mean a
//! command was refused, the modes and their prompts, the scripts of the three ONU actions
//! and where the running configuration names an ONU's service VLAN. Like the SNMP tables,
//! this is data: the SSH client ([`crate::ssh`]) runs these scripts and the simulator's
//! SSH server ([`crate::sim`]) understands exactly these lines, so the two cannot drift.
//! This file holds the types ([`CliProfile`], [`CliMode`]) and the template engine; each
//! vendor family's profile is in its folder (`huawei/cli.rs`, `zte/cli.rs`,
//! `bdcom/cli.rs`), reached through [`super::Profile::cli`].
//!
//! Lines are templates: `{name}` is a value (`{pon}` `0/1/3`, `{board}` `0/1`, `{port}`
//! `3`, `{onu}`, `{vlan}`, `{description}`), `{_}` any one word and `{*}` the rest of the
//! line. [`render`] fills a template; [`capture`] matches a line against one.

use std::collections::HashMap;

/// A mode the CLI enters with a command, and the prompt it shows there.
#[derive(Debug, Clone, Copy)]
pub struct CliMode {
    /// The command that enters the mode (a template).
    pub enter: &'static str,
    /// The prompt there; `{host}` is the device's name, other values come from `enter`.
    pub prompt: &'static str,
    /// 1 privileged, 2 configuration, 3 a configuration sub-mode (entered from depth - 1).
    pub depth: u8,
}

/// How a vendor's command line is driven.
#[derive(Debug)]
pub struct CliProfile {
    /// The prompt right after login.
    pub user_prompt: &'static str,
    /// Sent once after login, in order: privileged mode, pager off.
    pub setup: &'static [&'static str],
    /// What the device prints when a page of output is full; the client answers with a space.
    pub pager: &'static str,
    /// Part of the question the device asks before a disruptive command.
    pub confirm: &'static str,
    /// The answer that confirms it.
    pub confirm_answer: &'static str,
    /// An output line starting with one of these means the command was refused.
    pub error_markers: &'static [&'static str],
    /// An output line starting with one of these means there is nothing to show: an
    /// empty answer, not a refusal, though some start with an error marker (Huawei's
    /// `Failure: There is not any MAC address record`).
    pub empty_answers: &'static [&'static str],
    /// Lines the device prints unasked in the middle of an output (syslog, alarms):
    /// never output, never stored.
    pub unsolicited: &'static [LineShape],
    pub modes: &'static [CliMode],
    /// One level up (at privileged level: log out).
    pub exit: &'static [&'static str],
    /// Straight back to privileged mode from any configuration mode.
    pub leave: &'static str,
    pub running_config: &'static str,
    /// Scripts run from privileged mode and ending there.
    pub reboot: &'static [&'static str],
    pub set_vlan: &'static [&'static str],
    pub set_description: &'static [&'static str],
    /// Scripts that give an ONU another line (bandwidth) or service profile, `{line}` and
    /// `{service}` as the OLT's profile listing names them; empty where no public source
    /// gives the command (501).
    pub set_line_profile: &'static [&'static str],
    pub set_service_profile: &'static [&'static str],
    /// Running configuration: the line that opens an ONU's own section, if the vendor
    /// gives ONUs one, and the line that names the service VLAN (with `{pon}`/`{onu}`
    /// here or in the section line).
    pub onu_section: Option<&'static str>,
    pub vlan_line: &'static str,
    /// How the CLI shows the MACs behind ONUs, where it is known ([`crate::macs`]).
    pub macs: Option<CliMacs>,
}

/// The shape of a line a device prints unasked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineShape {
    /// Starts (after blanks) with this text.
    Prefix(&'static str),
    /// Starts with a date and time, `2026/05/25 18:50:59` (or with `-`): a syslog line.
    DateTimeLead,
}

/// The commands that show the MACs learnt behind ONUs, and the table they print.
#[derive(Debug)]
pub struct CliMacs {
    /// Every MAC on one PON port (`{pon}`): the poll group's command, one per port.
    pub port: &'static str,
    /// The MACs behind one ONU (`{pon}`, `{onu}`): a refresh's command.
    pub onu: &'static str,
    pub format: MacTable,
}

/// The layout of a vendor's MAC table ([`crate::macs::cli`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MacTable {
    Huawei,
    /// C300 / C320: ONUs named `gpon-onu_R/S/P:N`.
    Zte,
    /// C600 / C620: ONUs named `gpon_onu-R/S/P:N`.
    ZteC600,
}

/// Whether `pon` may be put into a command line: numbers joined by slashes, nothing else.
pub fn is_safe_port(pon: &str) -> bool {
    let parts: Vec<&str> = pon.split('/').collect();
    (2..=4).contains(&parts.len())
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.len() <= 4 && p.bytes().all(|b| b.is_ascii_digit()))
}

/// Values that may contain spaces when captured (everything else is one word).
const TEXT_VALUES: [&str; 2] = ["description", "*"];

/// A template with its `{name}` values replaced; an unknown name stays as written.
pub fn render(template: &str, values: &HashMap<&str, String>) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                let name = &after[..close];
                match values.get(name) {
                    Some(value) => out.push_str(value),
                    None => {
                        out.push('{');
                        out.push_str(name);
                        out.push('}');
                    }
                }
                rest = &after[close + 1..];
            }
            None => {
                out.push_str(&rest[open..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

enum Part<'a> {
    Literal(&'a str),
    Value(&'a str),
}

fn parts(template: &str) -> Vec<Part<'_>> {
    let mut parts = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        if open > 0 {
            parts.push(Part::Literal(&rest[..open]));
        }
        parts.push(Part::Value(&rest[open + 1..open + close]));
        rest = &rest[open + close + 1..];
    }
    if !rest.is_empty() {
        parts.push(Part::Literal(rest));
    }
    parts
}

/// Matches a whole line (surrounding spaces ignored) against a template; the values it
/// names, or `None`. Words compare case-sensitively, as the devices' CLIs do not.
pub fn capture(template: &str, line: &str) -> Option<HashMap<String, String>> {
    let parts = parts(template);
    let mut values = HashMap::new();
    matches(&parts, line.trim(), &mut values).then_some(values)
}

fn matches(parts: &[Part<'_>], text: &str, values: &mut HashMap<String, String>) -> bool {
    let Some((first, rest)) = parts.split_first() else {
        return text.is_empty();
    };
    match first {
        Part::Literal(literal) => text
            .strip_prefix(literal)
            .is_some_and(|text| matches(rest, text, values)),
        Part::Value(name) => {
            if text.is_empty() {
                return false;
            }
            let spaces = TEXT_VALUES.contains(name);
            // Shortest value first, so a literal after it anchors the match.
            let ends = text
                .char_indices()
                .map(|(i, _)| i)
                .skip(1)
                .chain(std::iter::once(text.len()));
            for end in ends {
                let value = &text[..end];
                if !spaces && value.contains(char::is_whitespace) {
                    break;
                }
                if matches(rest, &text[end..], values) {
                    if *name != "_" && *name != "*" {
                        values.insert(name.to_string(), value.to_string());
                    }
                    return true;
                }
            }
            false
        }
    }
}

/// `{pon}`, `{board}` and `{port}` of a PON port name: `0/1/3` is board `0/1`, port `3`.
pub fn port_values(pon: &str) -> [(&'static str, String); 3] {
    let (board, port) = pon.rsplit_once('/').unwrap_or(("", pon));
    [
        ("pon", pon.to_string()),
        ("board", board.to_string()),
        ("port", port.to_string()),
    ]
}

/// The PON port a set of captured values names: `{pon}`, or `{board}/{port}`.
pub fn port_of(values: &HashMap<String, String>) -> Option<String> {
    values
        .get("pon")
        .cloned()
        .or_else(|| Some(format!("{}/{}", values.get("board")?, values.get("port")?)))
}

/// Every ONU's service VLAN in a running configuration: (port, ONU number) → VLAN. An
/// ONU's section lasts until the next line that is not indented.
pub fn service_vlans(profile: &CliProfile, config: &str) -> HashMap<(String, u32), u16> {
    let mut vlans = HashMap::new();
    let mut section: Option<HashMap<String, String>> = None;
    for line in config.lines() {
        let indented = line.starts_with(' ');
        if !indented {
            section = profile.onu_section.and_then(|t| capture(t, line));
        }
        let Some(mut values) = capture(profile.vlan_line, line) else {
            continue;
        };
        if let Some(section) = &section {
            for (name, value) in section {
                values.entry(name.clone()).or_insert_with(|| value.clone());
            }
        }
        let onu = values.get("onu").and_then(|v| v.parse::<u32>().ok());
        let vlan = values.get("vlan").and_then(|v| v.parse::<u16>().ok());
        if let (Some(port), Some(onu), Some(vlan)) = (port_of(&values), onu, vlan) {
            vlans.insert((port, onu), vlan);
        }
    }
    vlans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(pairs: &[(&'static str, &str)]) -> HashMap<&'static str, String> {
        pairs.iter().map(|(k, v)| (*k, v.to_string())).collect()
    }

    #[test]
    fn templates_render_and_capture_round_trip() {
        let line = render(
            "ont modify {port} {onu} desc \"{description}\"",
            &values(&[
                ("port", "3"),
                ("onu", "7"),
                ("description", "flat 12, floor 3"),
            ]),
        );
        assert_eq!(line, "ont modify 3 7 desc \"flat 12, floor 3\"");
        let got = capture("ont modify {port} {onu} desc \"{description}\"", &line).expect("match");
        assert_eq!(got["port"], "3");
        assert_eq!(got["onu"], "7");
        assert_eq!(got["description"], "flat 12, floor 3");
        let got = capture(
            "interface gpon-onu_{pon}:{onu}",
            "interface gpon-onu_1/1/2:5",
        )
        .expect("match");
        assert_eq!((got["pon"].as_str(), got["onu"].as_str()), ("1/1/2", "5"));
        assert!(capture("ont reset {port} {onu}", "ont reset 3").is_none());
        assert!(capture("ont reset {port} {onu}", "ont reset 3 7 8").is_none());
        assert!(capture("reboot", "reboot now").is_none());
    }

    #[test]
    fn service_vlans_are_read_per_vendor() {
        use crate::profile::{BDCOM, HUAWEI, ZTE};
        let huawei = "#\nservice-port 4 vlan 100 gpon 0/1/3 ont 7 gemport 1 multi-service user-vlan 100 tag-transform translate\n#\n";
        let vlans = service_vlans(HUAWEI.cli, huawei);
        assert_eq!(vlans.get(&("0/1/3".to_string(), 7)), Some(&100));
        let zte = "interface gpon-onu_1/1/2:5\n  description x\n  service-port 1 vport 1 user-vlan 1001 vlan 1001\n!\ninterface vlan 100\n  service-port 1 vport 1 user-vlan 9 vlan 9\n";
        let vlans = service_vlans(ZTE.cli, zte);
        assert_eq!(vlans.len(), 1);
        assert_eq!(vlans.get(&("1/1/2".to_string(), 5)), Some(&1001));
        let bdcom = "interface EPON0/1:3\n epon onu port 1 ctc vlan mode tag 300\n!\n";
        let vlans = service_vlans(BDCOM.cli, bdcom);
        assert_eq!(vlans.get(&("0/1".to_string(), 3)), Some(&300));
    }

    /// The ZTE running configuration of an operator's notes (tests/fixtures/cli/zte, its
    /// VLANs replaced by `xxx` and `yyy` by the author): no VLAN is read from words.
    #[test]
    fn a_captured_zte_configuration_names_no_vlan_it_does_not_hold() {
        let capture = include_str!(
            "../../../tests/fixtures/cli/zte/show-running-config-interface-gpon-onu.txt"
        );
        assert!(service_vlans(crate::profile::ZTE.cli, capture).is_empty());
        let numbered = capture.replace("xxx", "101").replace("yyy", "202");
        let vlans = service_vlans(crate::profile::ZTE.cli, &numbered);
        assert!(
            vlans.values().all(|v| [101, 202].contains(v)) && !vlans.is_empty(),
            "{vlans:?}"
        );
    }

    proptest::proptest! {
        /// Whatever a running configuration holds, reading its VLANs never panics.
        #[test]
        fn garbage_never_panics(text in "(.{0,60}\n){0,12}") {
            for profile in crate::profile::Profile::ALL {
                let _ = service_vlans(profile.cli, &text);
            }
        }
    }
}
