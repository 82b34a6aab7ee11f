//! A replay console: an SSH server (russh) that speaks as a real OLT's terminal spoke in
//! a public capture (`tests/fixtures/cli/`). It shows the capture's banner and prompts,
//! asks for the enable password where the device did (and checks it), answers each
//! command the test lists with the capture's bytes — sent in the chunks the device sent
//! them, each pager waiting for its key and followed by the device's own erase — asks the
//! confirmation a command asks, prints alarm lines at the idle prompt (followed by the
//! prompt again) and in the middle of an output, and echoes what is typed, as a device
//! on a pseudo-terminal does. Every line received is kept for the test to read.

use russh::server::{Auth, ChannelOpenHandle, Msg, Session};
use russh::{Channel, ChannelId, Pty};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tokio::net::TcpListener;

/// The fixtures of one vendor.
pub fn fixture(vendor: &str, file: &str) -> Vec<u8> {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "tests/fixtures/cli",
        vendor,
        file,
    ]
    .iter()
    .collect();
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// How a device answers one command: the lines it matches (a prefix, or the whole line
/// when it ends with `$`), the bytes it prints (pagers marked by where the device
/// waited), the prompt it shows after, and a question it asks first.
#[derive(Clone)]
pub struct Answer {
    pub command: String,
    /// The output in the chunks the device sent: after each but the last it waits for
    /// a key (it printed its pager there).
    pub chunks: Vec<Vec<u8>>,
    /// The prompt after it (a mode's prompt); `None`: the current one.
    pub prompt: Option<String>,
    /// A question before the output, answered with any line.
    pub confirm: Option<String>,
    /// The prompt after it made from the command (an interface's mode names it).
    pub prompt_of: Option<fn(&str) -> String>,
}

impl Answer {
    pub fn new(command: &str, output: impl Into<Vec<u8>>) -> Answer {
        Answer {
            command: command.into(),
            chunks: vec![output.into()],
            prompt: None,
            confirm: None,
            prompt_of: None,
        }
    }

    pub fn then_prompt(mut self, prompt: &str) -> Answer {
        self.prompt = Some(prompt.into());
        self
    }

    /// The prompt after it is `prompt_of(the command received)`.
    pub fn then_prompt_of(mut self, prompt_of: fn(&str) -> String) -> Answer {
        self.prompt_of = Some(prompt_of);
        self
    }

    pub fn confirming(mut self, question: &str) -> Answer {
        self.confirm = Some(question.into());
        self
    }

    /// `output` split after every `pager` (the device waited there for a key).
    pub fn paged(command: &str, output: &[u8], pager: &[u8]) -> Answer {
        let mut chunks = Vec::new();
        let mut rest = output;
        while let Some(at) = find(rest, pager) {
            chunks.push(rest[..at + pager.len()].to_vec());
            rest = &rest[at + pager.len()..];
        }
        chunks.push(rest.to_vec());
        Answer {
            chunks,
            ..Answer::new(command, Vec::new())
        }
    }

    fn fits(&self, line: &str) -> bool {
        match self.command.strip_suffix('$') {
            Some(whole) => line.trim() == whole,
            None => line.trim().starts_with(self.command.as_str()),
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// A device's dialogue.
#[derive(Clone)]
pub struct Dialogue {
    pub banner: Vec<u8>,
    pub user_prompt: String,
    pub privileged_prompt: String,
    /// The login lands at the privileged prompt (no `enable`).
    pub lands_privileged: bool,
    /// `enable` asks this (`Password: `) and wants [`Dialogue::enable_password`].
    pub enable_asks: Option<String>,
    pub enable_password: String,
    /// What the device says to a command it does not know.
    pub unknown: String,
    pub answers: Vec<Answer>,
    /// Printed at the idle prompt after each command's prompt, then the prompt again.
    pub idle_alarm: Option<String>,
    /// Printed in the middle of each multi-line output (after its first line).
    pub output_alarm: Option<String>,
}

/// A running replay console.
pub struct Console {
    pub port: u16,
    /// Every line received, passwords included, in order.
    pub received: Arc<Mutex<Vec<String>>>,
    _server: tokio::task::JoinHandle<()>,
}

impl Console {
    pub async fn start(dialogue: Dialogue, password: &str) -> Console {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let received = Arc::new(Mutex::new(Vec::new()));
        let shared = Shared {
            dialogue: Arc::new(dialogue),
            password: password.into(),
            received: received.clone(),
        };
        let key = russh::keys::PrivateKey::from(
            russh::keys::ssh_key::private::Ed25519Keypair::from_seed(&rand::random()),
        );
        let server = tokio::spawn(async move {
            let config = Arc::new(russh::server::Config {
                keys: vec![key],
                auth_rejection_time: std::time::Duration::from_millis(50),
                auth_rejection_time_initial: Some(std::time::Duration::ZERO),
                ..Default::default()
            });
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let handler = Connection {
                    shared: shared.clone(),
                    terminal: None,
                };
                let config = config.clone();
                tokio::spawn(async move {
                    if let Ok(session) = russh::server::run_stream(config, stream, handler).await {
                        let _ = session.await;
                    }
                });
            }
        });
        Console {
            port,
            received,
            _server: server,
        }
    }

    pub fn received(&self) -> Vec<String> {
        self.received.lock().expect("lock").clone()
    }
}

#[derive(Clone)]
struct Shared {
    dialogue: Arc<Dialogue>,
    password: String,
    received: Arc<Mutex<Vec<String>>>,
}

/// What the terminal waits for.
enum Waiting {
    Line,
    EnablePassword,
    Confirm(Answer),
    /// A key for the pager: the chunks still to send and the prompt after them.
    Pager(VecDeque<Vec<u8>>, Option<String>),
}

struct Terminal {
    prompt: String,
    line: String,
    waiting: Waiting,
}

struct Connection {
    shared: Shared,
    terminal: Option<(ChannelId, Terminal)>,
}

impl Connection {
    /// What the terminal sends back for `bytes` typed.
    fn typed(&mut self, bytes: &[u8]) -> Vec<u8> {
        let Some((_, terminal)) = self.terminal.as_mut() else {
            return Vec::new();
        };
        let dialogue = self.shared.dialogue.clone();
        let mut out = Vec::new();
        for &byte in bytes {
            if let Waiting::Pager(chunks, prompt) = &mut terminal.waiting {
                let next = chunks.pop_front().unwrap_or_default();
                out.extend_from_slice(&next);
                if chunks.is_empty() {
                    if let Some(prompt) = prompt.take() {
                        terminal.prompt = prompt;
                    }
                    out.extend_from_slice(terminal.prompt.as_bytes());
                    terminal.waiting = Waiting::Line;
                }
                continue;
            }
            match byte {
                b'\r' | b'\n' => {
                    if byte == b'\n' && terminal.line.is_empty() && out.ends_with(b"\r\n") {
                        continue;
                    }
                    let line = std::mem::take(&mut terminal.line);
                    self.shared
                        .received
                        .lock()
                        .expect("lock")
                        .push(line.clone());
                    let secret = matches!(terminal.waiting, Waiting::EnablePassword);
                    if !secret {
                        out.extend_from_slice(b"\r\n");
                    }
                    answer(&dialogue, &self.shared.password, terminal, &line, &mut out);
                }
                byte if byte >= 0x20 => {
                    terminal.line.push(char::from(byte));
                    if !matches!(terminal.waiting, Waiting::EnablePassword) {
                        out.push(byte);
                    }
                }
                _ => {}
            }
        }
        out
    }
}

/// The device's answer to `line` in `terminal`'s state.
fn answer(
    dialogue: &Dialogue,
    password: &str,
    terminal: &mut Terminal,
    line: &str,
    out: &mut Vec<u8>,
) {
    match std::mem::replace(&mut terminal.waiting, Waiting::Line) {
        Waiting::EnablePassword => {
            let wanted = if dialogue.enable_password.is_empty() {
                password
            } else {
                dialogue.enable_password.as_str()
            };
            if line == wanted {
                terminal.prompt = dialogue.privileged_prompt.clone();
            } else {
                out.extend_from_slice(b"\r\n% Bad passwords\r\n");
            }
            out.extend_from_slice(b"\r\n");
            out.extend_from_slice(terminal.prompt.as_bytes());
            return;
        }
        Waiting::Confirm(answer) => return show(dialogue, terminal, answer, out),
        _ => {}
    }
    if line.trim() == "enable" && terminal.prompt == dialogue.user_prompt {
        if let Some(question) = &dialogue.enable_asks {
            out.extend_from_slice(question.as_bytes());
            terminal.waiting = Waiting::EnablePassword;
            return;
        }
        terminal.prompt = dialogue.privileged_prompt.clone();
        out.extend_from_slice(terminal.prompt.as_bytes());
        return;
    }
    if line.trim().is_empty() {
        out.extend_from_slice(terminal.prompt.as_bytes());
        return;
    }
    let found = dialogue.answers.iter().find(|a| a.fits(line)).cloned();
    let found = found.map(|mut answer| {
        if let Some(prompt_of) = answer.prompt_of {
            answer.prompt = Some(prompt_of(line.trim()));
        }
        answer
    });
    match found {
        Some(answer) if answer.confirm.is_some() => {
            out.extend_from_slice(answer.confirm.as_deref().unwrap_or_default().as_bytes());
            terminal.waiting = Waiting::Confirm(answer);
        }
        Some(answer) => show(dialogue, terminal, answer, out),
        None => {
            out.extend_from_slice(dialogue.unknown.as_bytes());
            out.extend_from_slice(terminal.prompt.as_bytes());
        }
    }
}

/// Sends `answer`'s first chunk (with the alarm after its first line) and waits for the
/// pager's key if there are more.
fn show(dialogue: &Dialogue, terminal: &mut Terminal, answer: Answer, out: &mut Vec<u8>) {
    let mut chunks: VecDeque<Vec<u8>> = answer.chunks.into();
    let mut first = chunks.pop_front().unwrap_or_default();
    if let (Some(alarm), Some(end)) = (&dialogue.output_alarm, find(&first, b"\n")) {
        let line = format!("{alarm}\r\n");
        first.splice(end + 1..end + 1, line.into_bytes());
    }
    out.extend_from_slice(&first);
    if chunks.is_empty() {
        if let Some(prompt) = answer.prompt {
            terminal.prompt = prompt;
        }
        out.extend_from_slice(terminal.prompt.as_bytes());
        if let Some(alarm) = &dialogue.idle_alarm {
            out.extend_from_slice(format!("\r\n{alarm}\r\n{}", terminal.prompt).as_bytes());
        }
    } else {
        terminal.waiting = Waiting::Pager(chunks, answer.prompt);
    }
}

impl russh::server::Handler for Connection {
    type Error = russh::Error;

    async fn auth_password(&mut self, _user: &str, password: &str) -> Result<Auth, Self::Error> {
        Ok(match password == self.shared.password {
            true => Auth::Accept,
            false => Auth::reject(),
        })
    }

    async fn channel_open_session(
        &mut self,
        channel: Channel<Msg>,
        reply: ChannelOpenHandle,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        let dialogue = &self.shared.dialogue;
        let prompt = match dialogue.lands_privileged {
            true => dialogue.privileged_prompt.clone(),
            false => dialogue.user_prompt.clone(),
        };
        let terminal = Terminal {
            prompt,
            line: String::new(),
            waiting: Waiting::Line,
        };
        self.terminal = Some((channel.id(), terminal));
        reply.accept().await;
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    async fn pty_request(
        &mut self,
        channel: ChannelId,
        _term: &str,
        _w: u32,
        _h: u32,
        _pw: u32,
        _ph: u32,
        _modes: &[(Pty, u32)],
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        session.channel_success(channel)
    }

    async fn shell_request(
        &mut self,
        channel: ChannelId,
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        session.channel_success(channel)?;
        if let Some((_, terminal)) = &self.terminal {
            let mut greeting = self.shared.dialogue.banner.clone();
            greeting.extend_from_slice(terminal.prompt.as_bytes());
            session.data(channel, greeting)?;
        }
        Ok(())
    }

    async fn data(
        &mut self,
        channel: ChannelId,
        data: &[u8],
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        let out = self.typed(data);
        if !out.is_empty() {
            session.data(channel, out)?;
        }
        Ok(())
    }
}
