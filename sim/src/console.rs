//! The simulated OLT's command line: one [`Terminal`] per SSH shell, driven by the very
//! CLI table the client uses ([`ponkeeper_actors::profile::commands`]). It knows the vendor's modes and
//! prompts, the setup lines, the running-configuration command and every line of the
//! three action scripts, and refuses anything else with the vendor's own error text.
//! A line of the reboot script takes the ONU offline (seen by the SNMP agent) for the
//! fleet's reboot time; an ONU held down by a fibre or power cut (`model/cut.rs`) is
//! neither reset nor brought back, since no reset reaches it. VLAN and description lines
//! change the ONU, so the next SNMP poll and the next running configuration show the
//! change. Long output is paged until the pager is turned off, as on the real devices.
//!
//! The running configurations (one renderer per vendor, chosen by the
//! [`super::vendor::SimVendor`] table) include every ONU's description and service-port
//! VLAN, and nothing that changes by itself, so an untouched OLT's configuration is
//! identical from one backup to the next.

use super::agent::OltShared;
use super::model::{held, SimOlt};
use super::vendor::SimVendor;
use ponkeeper_actors::macs::{Mac, MacSighting};
use ponkeeper_actors::profile::commands::{capture, port_of, render, CliProfile};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

/// Lines of output per page while the pager is on.
mod configs;
pub(crate) use configs::running_config;

const PAGE_LINES: usize = 24;

/// What a line of an action script does to the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Effect {
    Reboot,
    SetVlan,
    ClearVlan,
    SetDescription,
    SetLineProfile,
    SetServiceProfile,
    /// A line of a description script that names no description (Eltex's `do commit`):
    /// accepted, nothing changes.
    Accept,
}

/// What the terminal waits for besides a command.
enum Awaiting {
    /// A yes/no answer before the effect runs.
    Confirm(Effect, HashMap<String, String>),
    Logout,
}

/// Where the SSH server sends the terminal's answer.
pub(crate) struct Answer {
    pub text: String,
    /// The session ends after the text.
    pub close: bool,
}

/// One interactive CLI session.
pub(crate) struct Terminal {
    olt: Arc<OltShared>,
    vendor: &'static SimVendor,
    reboot_time: Duration,
    host: String,
    /// Prompts of the modes entered, outermost first (user mode's at index 0).
    prompts: Vec<String>,
    /// Values the enclosing sub-mode was entered with (`{board}`, `{pon}`, `{onu}`).
    mode_values: HashMap<String, String>,
    pager: bool,
    paged: VecDeque<String>,
    awaiting: Option<Awaiting>,
    /// Echo typed characters (a pseudo-terminal was requested).
    pub echo: bool,
    line: String,
    last_was_cr: bool,
}

impl Terminal {
    pub fn new(olt: Arc<OltShared>, vendor: &'static SimVendor, reboot_time: Duration) -> Self {
        let host = super::lock(&olt).sys_name.clone();
        let user_prompt = render_prompt(cli(vendor).user_prompt, &host, &HashMap::new());
        // A CLI without a privileged mode to enter (Eltex) logs in privileged.
        let privileged = !cli(vendor).modes.iter().any(|mode| mode.depth == 1);
        let prompts = match privileged {
            true => vec![user_prompt.clone(), user_prompt],
            false => vec![user_prompt],
        };
        Terminal {
            olt,
            vendor,
            reboot_time,
            host,
            prompts,
            mode_values: HashMap::new(),
            pager: true,
            paged: VecDeque::new(),
            awaiting: None,
            echo: false,
            line: String::new(),
            last_was_cr: false,
        }
    }

    /// What the user sees when the shell starts.
    pub fn greeting(&self) -> String {
        format!(
            "\r\n  Welcome to the {} simulator ({})\r\n\r\n{}",
            self.vendor.model,
            self.vendor.profile.vendor,
            self.prompt()
        )
    }

    fn prompt(&self) -> &str {
        self.prompts.last().map(String::as_str).unwrap_or(">")
    }

    fn depth(&self) -> u8 {
        u8::try_from(self.prompts.len().saturating_sub(1)).unwrap_or(u8::MAX)
    }

    /// Consumes bytes typed by the client; returns what to send back.
    pub fn input(&mut self, bytes: &[u8]) -> Answer {
        let mut out = String::new();
        let mut close = false;
        for &byte in bytes {
            if close {
                break;
            }
            if !self.paged.is_empty() {
                self.page_key(byte, &mut out);
                continue;
            }
            match byte {
                b'\r' | b'\n' => {
                    let after_cr = byte == b'\n' && self.last_was_cr;
                    self.last_was_cr = byte == b'\r';
                    if after_cr {
                        continue;
                    }
                    if self.echo {
                        out.push_str("\r\n");
                    }
                    let line = std::mem::take(&mut self.line);
                    if self.olt.has(super::fault::Fault::SshMute) {
                        self.log(&line);
                        continue;
                    }
                    let answer = self.line(&line);
                    out.push_str(&answer.text);
                    close = answer.close;
                }
                0x7f | 0x08 => {
                    self.last_was_cr = false;
                    if self.line.pop().is_some() && self.echo {
                        out.push_str("\u{8} \u{8}");
                    }
                }
                byte if byte >= 0x20 => {
                    self.last_was_cr = false;
                    self.line.push(char::from(byte));
                    if self.echo {
                        out.push(char::from(byte));
                    }
                }
                _ => self.last_was_cr = false,
            }
        }
        Answer {
            text: out.replace("\r\n", "\n").replace('\n', "\r\n"),
            close,
        }
    }

    fn page_key(&mut self, byte: u8, out: &mut String) {
        // Huawei moves the cursor back over its pager line before going on.
        out.push_str("\u{1b}[37D");
        if byte == b'q' || byte == b'Q' {
            self.paged.clear();
            out.push('\n');
            out.push_str(self.prompt());
            return;
        }
        self.show_page(out);
    }

    fn show_page(&mut self, out: &mut String) {
        for _ in 0..PAGE_LINES {
            let Some(line) = self.paged.pop_front() else {
                break;
            };
            out.push_str(&line);
            out.push('\n');
        }
        if self.paged.is_empty() {
            out.push_str(self.prompt());
        } else {
            out.push_str(cli(self.vendor).pager);
        }
    }

    fn log(&self, line: &str) {
        let line = line.trim();
        if line.is_empty() {
            return;
        }
        match self.olt.commands.lock() {
            Ok(mut log) => log.push(line.to_string()),
            Err(poisoned) => poisoned.into_inner().push(line.to_string()),
        }
    }

    /// Output of a command and the prompt after it.
    fn reply(&mut self, output: String) -> Answer {
        let mut text = output;
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        if self.pager && text.lines().count() > PAGE_LINES {
            self.paged = text.lines().map(str::to_string).collect();
            let mut out = String::new();
            self.show_page(&mut out);
            return Answer {
                text: out,
                close: false,
            };
        }
        text.push_str(self.prompt());
        Answer { text, close: false }
    }

    /// Answers one line typed at the prompt.
    fn line(&mut self, line: &str) -> Answer {
        self.log(line);
        let line = line.trim();
        if let Some(awaiting) = self.awaiting.take() {
            return self.confirmation(awaiting, line);
        }
        if line.is_empty() {
            return self.reply(String::new());
        }
        if let Some(answer) = self.change_mode(line) {
            return answer;
        }
        self.command(line)
    }

    /// The answer to a yes/no question: a yes logs out or runs the awaited effect, anything
    /// else cancels it.
    fn confirmation(&mut self, awaiting: Awaiting, line: &str) -> Answer {
        let profile = cli(self.vendor);
        let yes = line.eq_ignore_ascii_case(profile.confirm_answer)
            || line.eq_ignore_ascii_case("y")
            || line.eq_ignore_ascii_case("yes");
        match (awaiting, yes) {
            (Awaiting::Logout, true) => Answer {
                text: "\n  Check whether system data has been changed. Logged out.\n".into(),
                close: true,
            },
            (Awaiting::Confirm(effect, values), true) => {
                let output = self.apply(effect, &values);
                self.reply(output)
            }
            (_, false) => self.reply(String::new()),
        }
    }

    /// Leaves a mode (asking before logging out of the outermost) or enters one, when the
    /// line is such a command; `None` otherwise.
    fn change_mode(&mut self, line: &str) -> Option<Answer> {
        let profile = cli(self.vendor);
        let depth = self.depth();
        if profile.exit.contains(&line) {
            if depth <= 1 {
                self.awaiting = Some(Awaiting::Logout);
                return Some(Answer {
                    text: format!("  Are you sure to log out? {}[n]:", profile.confirm),
                    close: false,
                });
            }
            self.prompts.pop();
            if self.depth() < 3 {
                self.mode_values.clear();
            }
            return Some(self.reply(String::new()));
        }
        if line == profile.leave && depth >= 2 {
            self.prompts.truncate(2);
            self.mode_values.clear();
            return Some(self.reply(String::new()));
        }
        for mode in profile
            .modes
            .iter()
            .chain(super::provisioning::modes(self.vendor))
        {
            // Sub-modes may also be entered from a sibling sub-mode.
            let reachable = mode.depth == depth + 1 || (mode.depth == 3 && depth == 3);
            if !reachable {
                continue;
            }
            if let Some(values) = capture(mode.enter, line) {
                if mode.depth == 3 && depth == 3 {
                    self.prompts.pop();
                }
                let prompt = render_prompt(mode.prompt, &self.host, &values);
                self.prompts.push(prompt);
                if mode.depth == 3 {
                    self.mode_values = values;
                }
                return Some(self.reply(String::new()));
            }
        }
        None
    }

    /// Runs a command in the current mode: the running configuration, a setup line or a
    /// line of an action script (the reboot asks first); anything else is refused.
    fn command(&mut self, line: &str) -> Answer {
        let profile = cli(self.vendor);
        if profile.setup.contains(&line) {
            // `scroll`, `terminal length 0`: no more pages. `undo smart`: nothing to show.
            // (V-SOL turns the pager off before `enable`.)
            self.pager = false;
            return self.reply(String::new());
        }
        if self.depth() == 0 {
            return self.reply(self.vendor.error_unknown.to_string());
        }
        if line == profile.running_config {
            let config = running_config(&super::lock(&self.olt), self.vendor);
            return self.reply(config);
        }
        if let Some((effect, mut values)) = effect_of(profile, line) {
            for (name, value) in &self.mode_values {
                values.entry(name.clone()).or_insert_with(|| value.clone());
            }
            if effect == Effect::Reboot {
                self.awaiting = Some(Awaiting::Confirm(effect, values));
                return Answer {
                    text: format!("  Are you sure to reset the ONT? {}[n]:", profile.confirm),
                    close: false,
                };
            }
            let output = self.apply(effect, &values);
            return self.reply(output);
        }
        let macs = mac_table(profile, &super::lock(&self.olt), line);
        if let Some(output) = macs {
            return self.reply(output);
        }
        let (vendor, depth) = (self.vendor, self.depth());
        let provisioned = super::provisioning::command(
            &mut super::lock(&self.olt),
            vendor,
            &self.mode_values,
            depth,
            line,
        );
        if let Some(output) = provisioned {
            return self.reply(output);
        }
        self.reply(self.vendor.error_unknown.to_string())
    }

    /// Carries out an effect; returns the device's output (empty on success).
    fn apply(&self, effect: Effect, values: &HashMap<String, String>) -> String {
        if effect == Effect::Accept {
            return String::new();
        }
        let port = port_of(values).or_else(|| self.port_by_number(values));
        let number = values.get("onu").and_then(|n| n.parse::<u32>().ok());
        let mut olt = super::lock(&self.olt);
        let vlan = values.get("vlan").and_then(|v| v.parse::<u16>().ok());
        if effect == Effect::SetVlan
            && !vlan.is_some_and(|v| olt.vlans.iter().any(|(id, _)| *id == v))
        {
            return self.vendor.error_no_vlan.to_string();
        }
        let SimOlt {
            ports, onus, cuts, ..
        } = &mut *olt;
        let Some(onu) = onus.iter_mut().find(|onu| {
            Some(onu.ont_id) == number && port.as_deref() == Some(ports[onu.port].name.as_str())
        }) else {
            return self.vendor.error_no_onu.to_string();
        };
        match effect {
            // No reset reaches an ONU without light or power.
            Effect::Reboot if held(cuts, onu) => {}
            Effect::Reboot => {
                onu.online = false;
                // Huawei reports it (down cause 9, reset); ZTE's and BDCOM's status cannot.
                onu.last_down_cause = Some(ponkeeper_actors::domain::DownCause::Reboot);
                onu.outage_ticks_left = None;
                onu.reboots += 1;
                let generation = onu.reboots;
                let (row, shared, after) = (onu.row, self.olt.clone(), self.reboot_time);
                tokio::spawn(async move {
                    tokio::time::sleep(after).await;
                    let mut olt = super::lock(&shared);
                    let SimOlt { onus, cuts, .. } = &mut *olt;
                    // A cut that came meanwhile keeps it down.
                    if let Some(onu) = onus
                        .iter_mut()
                        .find(|o| o.row == row && o.reboots == generation && !held(cuts, o))
                    {
                        onu.online = true;
                    }
                });
            }
            Effect::SetVlan => onu.vlan = vlan,
            Effect::ClearVlan => onu.vlan = None,
            Effect::SetDescription => {
                onu.description = values.get("description").cloned().unwrap_or_default();
            }
            Effect::SetLineProfile | Effect::SetServiceProfile => {
                let (slot, key, known) = match effect {
                    Effect::SetLineProfile => (0, "line", &super::provisioning::LINE_PROFILES),
                    _ => (1, "service", &super::provisioning::SERVICE_PROFILES),
                };
                let id = values.get(key).cloned().unwrap_or_default();
                if !known.iter().any(|(known, _)| *known == id) {
                    return format!("Failure: The {key} profile {id} does not exist");
                }
                onu.profiles[slot] = Some(id);
            }
            Effect::Accept => {}
        }
        String::new()
    }
}

impl Terminal {
    /// The port a command names by its number alone (Eltex's `interface ont 3/5` is
    /// channel 3 of the one slot), when exactly one port has that number.
    fn port_by_number(&self, values: &HashMap<String, String>) -> Option<String> {
        let number: u32 = values.get("port")?.parse().ok()?;
        let olt = super::lock(&self.olt);
        let mut named = olt.ports.iter().filter(|p| p.position.port == number);
        let port = named.next()?;
        named.next().is_none().then(|| port.name.clone())
    }
}

/// The MAC table a `display mac-address` / `show mac gpon` line asks for, in the
/// vendor's layout; `None` for any other line.
fn mac_table(profile: &CliProfile, olt: &SimOlt, line: &str) -> Option<String> {
    let macs = profile.macs.as_ref()?;
    let (values, one) = match capture(macs.port, line) {
        Some(values) => (values, false),
        None => (capture(macs.onu, line)?, true),
    };
    let pon = port_of(&values)?;
    let number: Option<u32> = values.get("onu").and_then(|n| n.parse().ok());
    let rows: Vec<MacSighting> = olt
        .shown_macs()
        .filter_map(|entry| {
            let onu = olt.onus.get(entry.onu)?;
            let port = &olt.ports.get(onu.port)?.name;
            let fits = *port == pon && (!one || number == Some(onu.ont_id));
            fits.then(|| MacSighting {
                pon_port: port.clone(),
                onu_index: onu.ont_id,
                mac: Mac(entry.mac),
                vlan: Some(entry.vlan),
            })
        })
        .collect();
    Some(ponkeeper_actors::macs::cli::render(macs.format, &rows))
}

fn cli(vendor: &SimVendor) -> &'static CliProfile {
    vendor.profile.cli
}

fn render_prompt(template: &str, host: &str, values: &HashMap<String, String>) -> String {
    let mut all: HashMap<&str, String> = values
        .iter()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect();
    all.insert("host", host.to_string());
    render(template, &all)
}

/// The effect of a line of one of the action scripts, with the values it names.
fn effect_of(profile: &CliProfile, line: &str) -> Option<(Effect, HashMap<String, String>)> {
    let scripts = [
        (profile.reboot, Effect::Reboot),
        (profile.set_vlan, Effect::SetVlan),
        (profile.set_description, Effect::SetDescription),
        (profile.set_line_profile, Effect::SetLineProfile),
        (profile.set_service_profile, Effect::SetServiceProfile),
    ];
    for (script, effect) in scripts {
        for template in script {
            let structural = *template == profile.leave
                || profile.exit.contains(template)
                || profile.modes.iter().any(|m| m.enter == *template);
            if structural {
                continue;
            }
            if let Some(values) = capture(template, line) {
                let effect = match effect {
                    Effect::SetVlan if !template.contains("{vlan}") => Effect::ClearVlan,
                    Effect::SetDescription if !template.contains("{description}") => Effect::Accept,
                    other => other,
                };
                return Some((effect, values));
            }
        }
    }
    None
}
