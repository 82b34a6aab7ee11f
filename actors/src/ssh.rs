//! The SSH command-line client an OLT actor drives its device with (russh). A
//! [`CliSession`] logs in with the inventory's credentials, opens an interactive shell on
//! a pseudo-terminal, waits for the prompt, runs the profile's setup lines (privileged
//! mode, pager off) and then runs one command at a time, each under a timeout: it reads
//! until the device shows a prompt again, answers a pager with a space and a confirmation
//! question with the profile's answer, and reports a line that starts with one of the
//! profile's error markers as a refusal carrying the device's own message.
//!
//! The session is owned by the OLT actor and lent to one action task at a time (see
//! [`crate::olt`]); dropping it closes the connection. Passwords are taken by value,
//! used once for authentication and never logged.
//!
//! The device's host key is checked during the key exchange, before the password is
//! sent: a target that names a fingerprint ([`CliTarget::host_key`]) refuses any other
//! key ([`CliError::HostKeyRefused`]); [`crate::host_keys`] decides which key that is.

use crate::profile::commands::CliProfile;
use russh::client;
use russh::keys::PublicKeyOrCertificate;
use russh::ChannelMsg;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// Why a CLI step failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CliError {
    #[error("SSH connection to {0} failed: {1}")]
    Connect(SocketAddr, String),
    #[error("SSH login as `{0}` was refused")]
    Login(String),
    #[error("the device did not answer `{command}` within {timeout:?}")]
    Timeout { command: String, timeout: Duration },
    #[error("the device refused `{command}`: {message}")]
    Rejected { command: String, message: String },
    #[error("the SSH session closed")]
    Closed,
    /// The device dropped the session before `command`'s output was complete.
    #[error("the SSH session closed while `{0}` was running")]
    ClosedDuring(String),
    /// The device showed another host key than the target names; nothing was sent.
    #[error("the SSH host key of {addr} is {offered}, not the expected {expected}; refused before logging in")]
    HostKeyRefused {
        addr: SocketAddr,
        expected: String,
        offered: String,
    },
    /// As `HostKeyRefused`, with where the expected key comes from
    /// ([`crate::host_keys::open_session`]).
    #[error("the SSH host key of {addr} changed: expected {expected} ({origin}), the device offered {offered}; refused before logging in")]
    HostKeyMismatch {
        addr: SocketAddr,
        expected: String,
        origin: String,
        offered: String,
    },
}

/// Checks the device's host key: notes its fingerprint and accepts it if the target
/// names no key or names this one.
struct Client {
    expected: Option<String>,
    offered: Arc<std::sync::Mutex<Option<String>>>,
}

impl client::Handler for Client {
    type Error = russh::Error;

    async fn check_server_key(
        &mut self,
        key: &PublicKeyOrCertificate,
    ) -> Result<bool, Self::Error> {
        let fingerprint = match key {
            PublicKeyOrCertificate::PublicKey { key, .. } => fingerprint_of(key),
            PublicKeyOrCertificate::Certificate(cert) => cert
                .public_key()
                .fingerprint(russh::keys::ssh_key::HashAlg::Sha256)
                .to_string(),
        };
        let accepted = self.expected.as_ref().is_none_or(|e| *e == fingerprint);
        if let Ok(mut offered) = self.offered.lock() {
            *offered = Some(fingerprint);
        }
        Ok(accepted)
    }
}

/// The SHA256 fingerprint of a public key, as OpenSSH prints it (`SHA256:` and unpadded
/// base64): the form in which host keys are compared, pinned and recorded.
pub fn fingerprint_of(key: &russh::keys::ssh_key::PublicKey) -> String {
    key.fingerprint(russh::keys::ssh_key::HashAlg::Sha256)
        .to_string()
}

/// Where and as whom to log in, and which host key the device must show.
#[derive(Clone)]
pub struct CliTarget {
    pub addr: SocketAddr,
    pub username: String,
    pub password: String,
    /// The SHA256 fingerprint (`SHA256:…`) the device's host key must have; `None`
    /// accepts any key (the caller records it, see [`crate::host_keys`]).
    pub host_key: Option<String>,
}

impl std::fmt::Debug for CliTarget {
    /// Never shows the password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CliTarget")
            .field("addr", &self.addr)
            .field("username", &self.username)
            .field("host_key", &self.host_key)
            .finish_non_exhaustive()
    }
}

/// A logged-in CLI session at privileged level.
pub struct CliSession {
    handle: client::Handle<Client>,
    channel: russh::Channel<client::Msg>,
    profile: &'static CliProfile,
    /// The device's name as its prompt shows it (`OLT-1` of `OLT-1>`).
    host: String,
    /// The fingerprint of the host key the device showed.
    host_key: String,
    /// Text received and not yet consumed.
    pending: String,
}

impl CliSession {
    /// Connects, logs in, waits for the first prompt and runs the profile's setup lines,
    /// all within `timeout` per step.
    pub async fn open(
        target: &CliTarget,
        profile: &'static CliProfile,
        timeout: Duration,
    ) -> Result<CliSession, CliError> {
        let mut session = CliSession::login(target, profile, timeout).await?;
        for line in profile.setup {
            session.run(line, timeout).await?;
        }
        Ok(session)
    }

    /// Connects and logs in, without the setup lines (the pager stays on).
    pub async fn login(
        target: &CliTarget,
        profile: &'static CliProfile,
        timeout: Duration,
    ) -> Result<CliSession, CliError> {
        let step = |e: russh::Error| CliError::Connect(target.addr, e.to_string());
        let config = Arc::new(client::Config {
            inactivity_timeout: None,
            keepalive_interval: Some(Duration::from_secs(30)),
            keepalive_max: 3,
            ..client::Config::default()
        });
        let offered = Arc::new(std::sync::Mutex::new(None));
        let client = Client {
            expected: target.host_key.clone(),
            offered: offered.clone(),
        };
        let offered_key = || offered.lock().ok().and_then(|o| o.clone());
        let connect = async {
            let mut handle =
                client::connect(config, target.addr, client)
                    .await
                    .map_err(|e| match (&e, &target.host_key, offered_key()) {
                        (russh::Error::UnknownKey, Some(expected), Some(offered)) => {
                            CliError::HostKeyRefused {
                                addr: target.addr,
                                expected: expected.clone(),
                                offered,
                            }
                        }
                        _ => step(e),
                    })?;
            let auth = handle
                .authenticate_password(target.username.clone(), target.password.clone())
                .await
                .map_err(step)?;
            if !auth.success() {
                return Err(CliError::Login(target.username.clone()));
            }
            let channel = handle.channel_open_session().await.map_err(step)?;
            channel
                .request_pty(true, "vt100", 200, 50, 0, 0, &[])
                .await
                .map_err(step)?;
            channel.request_shell(true).await.map_err(step)?;
            Ok((handle, channel))
        };
        let (handle, channel) =
            tokio::time::timeout(timeout, connect)
                .await
                .map_err(|_| CliError::Timeout {
                    command: "login".into(),
                    timeout,
                })??;
        let mut session = CliSession {
            handle,
            channel,
            profile,
            host: String::new(),
            host_key: offered_key().unwrap_or_default(),
            pending: String::new(),
        };
        // The first prompt names the host: `OLT-1>`.
        let suffix = profile.user_prompt.trim_start_matches("{host}");
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(line) = session.pending.rsplit('\n').next() {
                let line = line.trim();
                if let Some(host) = line.strip_suffix(suffix).filter(|h| is_host(h)) {
                    session.host = host.to_string();
                    session.pending.clear();
                    return Ok(session);
                }
            }
            session.receive(deadline, "login", timeout).await?;
        }
    }

    /// The device's name, as its prompt shows it.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The SHA256 fingerprint of the host key the device showed.
    pub fn host_key(&self) -> &str {
        &self.host_key
    }

    /// Sends one line and returns what the device printed before its next prompt (the
    /// echo of the line and the prompt itself left out).
    pub async fn run(&mut self, line: &str, timeout: Duration) -> Result<String, CliError> {
        let deadline = Instant::now() + timeout;
        self.pending.clear();
        self.send(line).await?;
        let mut output = String::new();
        loop {
            // Complete lines go to the output; the unfinished last line is examined.
            if let Some(end) = self.pending.rfind('\n') {
                output.push_str(&self.pending[..=end]);
                self.pending.drain(..=end);
            }
            let last = self.pending.trim();
            if self.is_prompt(last) {
                self.pending.clear();
                break;
            }
            if !last.is_empty() && last.contains(self.profile.pager.trim()) {
                self.pending.clear();
                self.send_raw(" ").await?;
                continue;
            }
            if !last.is_empty() && last.contains(self.profile.confirm) {
                output.push_str(last);
                output.push('\n');
                self.pending.clear();
                self.send(self.profile.confirm_answer).await?;
                continue;
            }
            self.receive(deadline, line, timeout).await?;
        }
        let output = strip_echo(&output, line);
        if let Some(message) = output.lines().map(str::trim).find(|l| {
            self.profile
                .error_markers
                .iter()
                .any(|marker| l.starts_with(marker))
        }) {
            return Err(CliError::Rejected {
                command: line.to_string(),
                message: message.to_string(),
            });
        }
        Ok(output)
    }

    /// Back to privileged mode after a script failed half-way.
    pub async fn leave(&mut self, timeout: Duration) -> Result<(), CliError> {
        self.run(self.profile.leave, timeout).await.map(|_| ())
    }

    /// Whether the connection is still up.
    pub fn is_closed(&self) -> bool {
        self.handle.is_closed()
    }

    fn is_prompt(&self, line: &str) -> bool {
        !self.host.is_empty()
            && line.starts_with(&self.host)
            && (line.ends_with('#') || line.ends_with('>'))
            && !line.contains(char::is_whitespace)
    }

    async fn send(&mut self, line: &str) -> Result<(), CliError> {
        self.send_raw(&format!("{line}\n")).await
    }

    async fn send_raw(&mut self, text: &str) -> Result<(), CliError> {
        self.channel
            .data(text.as_bytes())
            .await
            .map_err(|_| CliError::Closed)
    }

    /// Waits for the next data from the device and appends it, cleaned, to `pending`.
    async fn receive(
        &mut self,
        deadline: Instant,
        command: &str,
        timeout: Duration,
    ) -> Result<(), CliError> {
        let timed_out = || CliError::Timeout {
            command: command.to_string(),
            timeout,
        };
        loop {
            let message = tokio::time::timeout_at(deadline, self.channel.wait())
                .await
                .map_err(|_| timed_out())?;
            match message {
                Some(ChannelMsg::Data { data }) => {
                    self.pending.push_str(&clean(&data));
                    return Ok(());
                }
                Some(ChannelMsg::ExtendedData { data, .. }) => {
                    self.pending.push_str(&clean(&data));
                    return Ok(());
                }
                Some(ChannelMsg::Eof | ChannelMsg::Close) | None => {
                    return Err(CliError::ClosedDuring(command.to_string()))
                }
                Some(_) => {}
            }
        }
    }
}

fn is_host(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 64
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
}

/// Text without carriage returns, backspaces and ANSI escape sequences (Huawei moves
/// the cursor back over its pager line with `ESC[37D`).
fn clean(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' | '\u{8}' => {}
            '\u{1b}' => {
                if chars.peek() == Some(&'[') {
                    chars.next();
                    for c in chars.by_ref() {
                        if c.is_ascii_alphabetic() {
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

/// The output without the device's echo of the command line.
fn strip_echo(output: &str, line: &str) -> String {
    match output.split_once('\n') {
        Some((first, rest)) if first.trim() == line.trim() => rest.to_string(),
        _ => output.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_cleaned_of_terminal_control() {
        assert_eq!(clean(b"a\r\nb\x1b[37Dc"), "a\nbc");
        assert_eq!(strip_echo("scroll\nok\n", "scroll"), "ok\n");
        assert_eq!(strip_echo("other\nok\n", "scroll"), "other\nok\n");
    }

    proptest::proptest! {
        /// Whatever bytes a device sends, cleaning never panics and leaves no carriage
        /// return, backspace or escape sequence; text without them passes unchanged.
        #[test]
        fn any_device_output_is_cleaned(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..512)) {
            let text = clean(&bytes);
            let control = ['\r', '\u{8}', '\u{1b}'];
            proptest::prop_assert!(!text.contains(control), "{:?}", text);
            let _ = strip_echo(&text, "display current-configuration");
            let _ = is_host(&text);
        }

        #[test]
        fn plain_output_is_kept(text in "[a-zA-Z0-9 #:/.\n-]{0,200}") {
            proptest::prop_assert_eq!(clean(text.as_bytes()), text);
        }
    }
}
