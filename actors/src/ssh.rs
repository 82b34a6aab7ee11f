//! The SSH command-line client an OLT actor drives its device with (russh). A
//! [`CliSession`] logs in with the inventory's credentials, opens an interactive shell on
//! a pseudo-terminal, waits for the prompt (any host name; a session that lands privileged
//! skips `enable`), runs the profile's setup lines (privileged mode, with the enable
//! password when the device asks; pager off) and then runs one command at a time, each
//! under a timeout: it waits for the device's echo of the command (what came before is
//! unsolicited, logged and dropped), reads until the device shows a prompt again,
//! answers a pager with a space (keeping the line it interrupted, dropping its erase) and
//! a confirmation question with the profile's answer, takes the profile's "nothing to
//! show" lines for an empty answer, and reports a line that starts with one of the
//! profile's error markers as a refusal carrying the device's own message
//! ([`dialogue`] reads the terminal's text).
//!
//! The session is owned by the OLT actor and lent to one action task at a time (see
//! [`crate::olt`]); dropping it closes the connection. Passwords are taken by value,
//! used once for authentication and never logged.
//!
//! The device's host key is checked during the key exchange, before the password is
//! sent: a target that names a fingerprint ([`CliTarget::host_key`]) refuses any other
//! key ([`CliError::HostKeyRefused`]); [`crate::host_keys`] decides which key that is.

mod dialogue;

use crate::profile::commands::CliProfile;
use dialogue::{
    asks_password, clean, ends_in_erase, erase, has_pager, prompt_shape, take_pager, Reply,
};
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
    /// What to answer when `enable` asks for a password; `None`: the login password
    /// (V-SOL's enable password is the login's, oxidized's `vsololt` model).
    pub enable_password: Option<String>,
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
    /// Whether the login landed at a privileged prompt (`#`): `enable` is skipped.
    privileged: bool,
    /// The answer to `enable`'s password question.
    enable_password: String,
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
        let enable = profile.modes.iter().find(|m| m.depth == 1).map(|m| m.enter);
        for line in profile.setup {
            if session.privileged && Some(*line) == enable {
                continue;
            }
            match session.run(line, timeout).await {
                // A pager or width setting a firmware does not know (a V1600G refuses
                // `terminal length 0`) costs nothing: the pager is answered as it comes.
                Err(CliError::Rejected { message, .. }) if Some(*line) != enable => {
                    tracing::info!(host = %session.host, %line, %message, "setup line refused; going on");
                }
                other => {
                    other?;
                }
            }
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
            privileged: false,
            enable_password: target
                .enable_password
                .clone()
                .unwrap_or_else(|| target.password.clone()),
            host_key: offered_key().unwrap_or_default(),
            pending: String::new(),
        };
        session.await_first_prompt(timeout).await?;
        Ok(session)
    }

    /// Waits for the first prompt, which names the host whatever its characters
    /// (`OLT-1>`, `ZXAN#`, `RT_01|192.0.2.4-Site_OLT> `) and says whether the login
    /// landed privileged.
    async fn await_first_prompt(&mut self, timeout: Duration) -> Result<(), CliError> {
        let deadline = Instant::now() + timeout;
        loop {
            let last = erase(self.pending.rsplit('\n').next().unwrap_or_default());
            if let Some((host, privileged)) = prompt_shape(&last) {
                self.host = host.to_string();
                self.privileged = privileged;
                self.pending.clear();
                return Ok(());
            }
            self.receive(deadline, "login", timeout).await?;
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

    /// Sends one line and returns what the device printed between its echo of the line
    /// and its next prompt. Lines before the echo (an alarm printed at the idle prompt, a
    /// prompt printed again) are logged and dropped.
    pub async fn run(&mut self, line: &str, timeout: Duration) -> Result<String, CliError> {
        let deadline = Instant::now() + timeout;
        let before = std::mem::take(&mut self.pending);
        self.drop_unsolicited(before.lines());
        self.send(line).await?;
        let mut reply = Reply::new(line, self.profile);
        let enables = self
            .profile
            .modes
            .iter()
            .any(|m| m.depth == 1 && m.enter == line);
        let mut password_sent = false;
        // Where the last pager stood, until its erase arrives: what the device prints in
        // between (a line break and an alarm, on a V-SOL) is not output.
        let mut after_pager: Option<usize> = None;
        loop {
            // The last pager's erase first: a page may end in the next pager already.
            self.settle_pager_erase(&mut after_pager, &mut reply);
            // A device that paints no erase (BDCOM): the next pager came first, so what
            // followed the last one was output.
            if after_pager.is_some_and(|at| has_pager(&self.pending[at..], self.profile.pager)) {
                after_pager = None;
            }
            if after_pager.is_none() {
                if let Some(at) = take_pager(&mut self.pending, self.profile.pager) {
                    after_pager = Some(at);
                    self.send_raw(" ").await?;
                    continue;
                }
            }
            // Complete lines go to the reply; the unfinished last line is examined.
            if self.take_complete_lines(&mut after_pager, &mut reply) {
                break;
            }
            if ends_in_erase(&self.pending) {
                self.receive(deadline, line, timeout).await?;
                continue;
            }
            let last = erase(self.pending.rsplit('\n').next().unwrap_or_default());
            if self.is_prompt(&last) {
                // A page with no erase before the prompt: what followed its pager was output.
                if after_pager.take().is_some() {
                    let rest = std::mem::take(&mut self.pending);
                    let lines: Vec<&str> = rest.lines().collect();
                    for text in &lines[..lines.len().saturating_sub(1)] {
                        reply.take(&erase(text));
                    }
                }
                self.pending.clear();
                if reply.echoed {
                    break;
                }
                // A prompt before the echo: one printed again after an unsolicited line.
                continue;
            }
            if reply.take_unfinished_echo(&last) {
                self.pending.clear();
                continue;
            }
            if reply.echoed && enables && asks_password(&last) {
                if password_sent {
                    return Err(CliError::Rejected {
                        command: line.to_string(),
                        message: "the device asked for the enable password again: it refused the one given".into(),
                    });
                }
                password_sent = true;
                self.pending.clear();
                let password = self.enable_password.clone();
                self.send(&password).await?;
                continue;
            }
            if reply.echoed && !last.trim().is_empty() && last.contains(self.profile.confirm) {
                reply.take(last.trim_end());
                self.pending.clear();
                self.send(self.profile.confirm_answer).await?;
                continue;
            }
            self.receive(deadline, line, timeout).await?;
        }
        self.drop_unsolicited(reply.unsolicited.iter().map(String::as_str));
        self.answer(line, reply.output)
    }

    /// Once the erase after the last pager has arrived, what the device printed between
    /// the pager and its erase goes to `reply` as unsolicited, and the pager is settled.
    fn settle_pager_erase(&mut self, after_pager: &mut Option<usize>, reply: &mut Reply) {
        let Some(at) = *after_pager else {
            return;
        };
        if let Some(back) = self.pending[at..].find(dialogue::BACK) {
            let between: String = self.pending.drain(at..at + back).collect();
            reply
                .unsolicited
                .extend(between.lines().map(str::to_string));
            *after_pager = None;
        }
    }

    /// Moves the complete lines before any unsettled pager into `reply`; `true` when one
    /// of them was the prompt that ends the output (what came after it, in the same
    /// read, is unsolicited: an alarm and the prompt printed again).
    fn take_complete_lines(&mut self, after_pager: &mut Option<usize>, reply: &mut Reply) -> bool {
        let settled = after_pager.unwrap_or(self.pending.len());
        let Some(end) = self.pending[..settled].rfind('\n') else {
            return false;
        };
        let complete: String = self.pending.drain(..=end).collect();
        *after_pager = after_pager.map(|at| at - (end + 1));
        let mut ended = false;
        for text in erase(&complete).lines() {
            if ended {
                reply.unsolicited.push(text.to_string());
            } else if reply.echoed && self.is_prompt(text) {
                ended = true;
            } else {
                reply.take(text);
            }
        }
        if ended {
            reply.unsolicited.push(std::mem::take(&mut self.pending));
        }
        ended
    }

    /// The output, or the refusal an error marker in it names; a profile's "nothing to
    /// show" line is an empty answer, not a refusal.
    fn answer(&self, command: &str, output: String) -> Result<String, CliError> {
        let lines = || output.lines().map(str::trim);
        if lines().any(|l| self.profile.empty_answers.iter().any(|e| l.starts_with(e))) {
            return Ok(String::new());
        }
        if let Some(message) = lines().find(|l| {
            self.profile
                .error_markers
                .iter()
                .any(|marker| l.starts_with(marker))
        }) {
            return Err(CliError::Rejected {
                command: command.to_string(),
                message: message.to_string(),
            });
        }
        Ok(output)
    }

    /// Logs lines the device printed unasked (never output).
    fn drop_unsolicited<'l>(&self, lines: impl Iterator<Item = &'l str>) {
        for text in lines.map(erase).filter(|l| !l.trim().is_empty()) {
            if !self.is_prompt(&text) {
                tracing::debug!(host = %self.host, line = %text.trim(), "unsolicited line from the device");
            }
        }
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
        let line = line.trim();
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
