//! What a device's terminal sends, read as a person at the keyboard would: carriage
//! returns, NULs and colour escapes dropped, a cursor moved back (`BS`, `ESC[nD`) and the
//! spaces it paints over the pager with (`ESC[37D` + 37 spaces + `ESC[37D` on a Huawei,
//! 10 `BS` + 10 spaces + 10 `BS` on a V-SOL) taken out whole, so the line the pager
//! interrupted goes on where it stopped; prompts recognised by their shape (a host name of
//! any printable characters, `>` or `#` last); and a command's reply split into what came
//! before the device's echo of it (unsolicited: an alarm printed at the idle prompt, a
//! prompt it printed again after one) and the output proper, without the lines the
//! profile names as unsolicited (syslog lines printed mid-output). docs/devices.md,
//! "Dialogue", says which device does what, with sources.

use crate::profile::commands::{CliProfile, LineShape};

/// A cursor moved back one place: what [`clean`] turns `BS` and `ESC[nD` into.
pub(super) const BACK: char = '\u{8}';

/// Text without carriage returns, NULs and escape sequences; a cursor moved back
/// (`BS`, `ESC[nD`) is kept as that many [`BACK`]s for [`erase`] to settle.
pub(super) fn clean(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' | '\0' => {}
            '\u{1b}' => {
                if chars.peek() != Some(&'[') {
                    continue;
                }
                chars.next();
                let mut count = String::new();
                for c in chars.by_ref() {
                    if c.is_ascii_digit() {
                        count.push(c);
                    } else {
                        if c == 'D' {
                            let n = count.parse::<usize>().unwrap_or(1).clamp(1, 512);
                            out.extend(std::iter::repeat_n(BACK, n));
                        }
                        if c.is_ascii_alphabetic() || c == '~' {
                            break;
                        }
                    }
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// `text` with every erase taken out: a run of [`BACK`]s, the spaces after it and the
/// run of [`BACK`]s after those (a pager painted over), or a lone run of [`BACK`]s.
/// The characters a terminal would have moved back over are not touched: the pager they
/// would erase is taken out where it is found ([`take_pager`]).
pub(super) fn erase(text: &str) -> String {
    if !text.contains(BACK) {
        return text.to_string();
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != BACK {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        while i < chars.len() && chars[i] == BACK {
            i += 1;
        }
        let spaces_end = (i..chars.len())
            .find(|&j| chars[j] != ' ')
            .unwrap_or(chars.len());
        if spaces_end > i && chars.get(spaces_end) == Some(&BACK) {
            i = spaces_end;
            while i < chars.len() && chars[i] == BACK {
                i += 1;
            }
        }
    }
    out
}

/// Whether `text` ends in the middle of an erase ([`BACK`]s, maybe spaces after them,
/// and nothing else yet): what follows may still belong to it.
pub(super) fn ends_in_erase(text: &str) -> bool {
    let trimmed = text.trim_end_matches(' ');
    trimmed.ends_with(BACK)
}

/// Takes the first pager out of `pending` (the profile's text, or its trimmed form,
/// with the share already shown that some devices print after it, `--More--(45%)`):
/// the text before it (a line it interrupted) and after it stay. Where it stood, if one
/// was there.
pub(super) fn take_pager(pending: &mut String, pager: &str) -> Option<usize> {
    for form in [pager, pager.trim()] {
        if form.is_empty() {
            continue;
        }
        if let Some(at) = pending.find(form) {
            let end = at + form.len();
            let end = end + share_shown(&pending[end..]);
            pending.replace_range(at..end, "");
            return Some(at);
        }
    }
    None
}

/// Whether `text` holds a pager (as [`take_pager`] finds one).
pub(super) fn has_pager(text: &str, pager: &str) -> bool {
    [pager, pager.trim()]
        .iter()
        .any(|form| !form.is_empty() && text.contains(form))
}

/// The length of a `(NN%)` at the start of `text` (1 to 3 digits), or 0.
fn share_shown(text: &str) -> usize {
    let Some(rest) = text.strip_prefix('(') else {
        return 0;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    match (1..=3).contains(&digits) && rest[digits..].starts_with("%)") {
        true => digits + 3,
        false => 0,
    }
}

/// The host name of a prompt line (`OLT-1>`, `ZXAN#`, `RT_01|192.0.2.4-Site_OLT> `) and
/// whether it is privileged (`#`), or `None` when `line` is not a prompt's shape.
pub(super) fn prompt_shape(line: &str) -> Option<(&str, bool)> {
    let line = line.trim();
    let privileged = line.ends_with('#');
    let host = line.strip_suffix('#').or_else(|| line.strip_suffix('>'))?;
    is_host(host).then_some((host, privileged))
}

/// A host name as a prompt shows it: 1 to 64 printable characters, no blank, and none
/// of the prompt's own marks.
pub(super) fn is_host(text: &str) -> bool {
    !text.is_empty()
        && text.chars().count() <= 64
        && text
            .chars()
            .all(|c| !c.is_whitespace() && !c.is_control() && !"#>".contains(c))
}

/// Whether `line` asks for a password (`Password:`, `password: `).
pub(super) fn asks_password(line: &str) -> bool {
    line.trim_end().to_ascii_lowercase().ends_with("password:")
}

/// A command's reply as its lines arrive: what came before the device's echo of the
/// command is unsolicited; after it, the output, less the profile's unsolicited lines.
pub(super) struct Reply<'a> {
    command: &'a str,
    profile: &'static CliProfile,
    pub echoed: bool,
    pub output: String,
    /// Lines taken for unsolicited (logged by the session, never output).
    pub unsolicited: Vec<String>,
}

impl<'a> Reply<'a> {
    pub fn new(command: &'a str, profile: &'static CliProfile) -> Self {
        Reply {
            command,
            profile,
            echoed: false,
            output: String::new(),
            unsolicited: Vec::new(),
        }
    }

    /// Takes one complete line (erases settled, no line break).
    pub fn take(&mut self, line: &str) {
        if !self.echoed {
            if is_echo(line, self.command) {
                self.echoed = true;
            } else if !line.trim().is_empty() {
                self.unsolicited.push(line.to_string());
            }
            return;
        }
        if self.profile.unsolicited.iter().any(|s| s.fits(line)) {
            self.unsolicited.push(line.to_string());
            return;
        }
        self.output.push_str(line);
        self.output.push('\n');
    }

    /// The unfinished last line is the echo (the device has not sent its line break yet).
    pub fn take_unfinished_echo(&mut self, line: &str) -> bool {
        if !self.echoed && is_echo(line, self.command) {
            self.echoed = true;
            return true;
        }
        false
    }
}

/// Whether `line` is the device's echo of `command`: the command after the prompt, or
/// alone.
fn is_echo(line: &str, command: &str) -> bool {
    let line = line.trim_end();
    let command = command.trim();
    if command.is_empty() {
        return prompt_shape(line).is_some() || line.trim().is_empty();
    }
    line.ends_with(command)
}

impl LineShape {
    /// Whether `line` has this shape.
    pub fn fits(&self, line: &str) -> bool {
        match self {
            LineShape::Prefix(prefix) => line.trim_start().starts_with(prefix),
            LineShape::DateTimeLead => date_time_lead(line.trim_start()),
        }
    }
}

/// `2026/05/25 18:50:59` (or with `-`) at the start of `line`.
fn date_time_lead(line: &str) -> bool {
    let b = line.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        b.get(range)
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
    };
    b.len() >= 19
        && digits(0..4)
        && matches!(b[4], b'/' | b'-')
        && digits(5..7)
        && b[7] == b[4]
        && digits(8..10)
        && b[10] == b' '
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19)
}

#[cfg(test)]
mod tests;
