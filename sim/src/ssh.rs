//! The simulated OLT's SSH server (russh): password login with the fleet's credentials,
//! then an interactive shell per channel, each a [`Terminal`] speaking the vendor's CLI.
//! A pseudo-terminal request turns on echo, as on a real device; without one (OpenSSH
//! with piped input) lines are read the same way. Every OLT has its own listener and
//! shares its state with the SNMP agent, so what the CLI changes the poller sees.
//!
//! Each OLT has its own host key ([`HostKeySlot`]), which a test may replace between
//! logins (a replaced device, or a man in the middle): every connection is served with
//! the key in the slot when it was accepted.
//!
//! Two faults act here ([`super::fault`]): `ssh-mute` accepts the connection and the
//! login but never shows a prompt nor answers a line, and `ssh-drop` sends the first half
//! of an answer and then drops the connection.

use super::agent::OltShared;
use super::console::Terminal;
use super::fault::Fault;
use super::vendor::SimVendor;
use russh::keys::PrivateKey;
use russh::server::{Auth, ChannelOpenHandle, Msg, Session};
use russh::{Channel, ChannelId, Pty};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

/// Login and behaviour shared by every connection to one simulated OLT.
pub(crate) struct SshSettings {
    pub username: String,
    pub password: String,
    /// How long a rebooted ONU stays offline.
    pub reboot_time: Duration,
}

#[derive(Clone)]
struct SimSsh {
    olt: Arc<OltShared>,
    vendor: &'static SimVendor,
    settings: Arc<SshSettings>,
}

/// One simulated OLT's SSH host key.
pub(crate) struct HostKeySlot(std::sync::Mutex<PrivateKey>);

impl HostKeySlot {
    pub(crate) fn new(key: PrivateKey) -> HostKeySlot {
        HostKeySlot(std::sync::Mutex::new(key))
    }

    /// The key new connections are served with.
    pub(crate) fn get(&self) -> PrivateKey {
        match self.0.lock() {
            Ok(key) => key.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Replaces the key for the connections accepted from now on.
    pub(crate) fn set(&self, key: PrivateKey) {
        match self.0.lock() {
            Ok(mut slot) => *slot = key,
            Err(poisoned) => *poisoned.into_inner() = key,
        }
    }
}

/// Serves SSH on `listener` until the task is aborted (which ends every connection).
pub(crate) async fn serve(
    listener: TcpListener,
    host_key: Arc<HostKeySlot>,
    olt: Arc<OltShared>,
    vendor: &'static SimVendor,
    settings: Arc<SshSettings>,
) {
    use russh::server::Server as _;
    let mut server = SimSsh {
        olt,
        vendor,
        settings,
    };
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                tracing::warn!(%error, "simulated SSH server cannot accept");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let config = Arc::new(russh::server::Config {
            keys: vec![host_key.get()],
            auth_rejection_time: Duration::from_millis(100),
            auth_rejection_time_initial: Some(Duration::ZERO),
            inactivity_timeout: None,
            ..russh::server::Config::default()
        });
        let _ = stream.set_nodelay(true);
        let handler = server.new_client(Some(peer));
        connections.spawn(async move {
            match russh::server::run_stream(config, stream, handler).await {
                Ok(session) => {
                    if let Err(error) = session.await {
                        tracing::debug!(%error, "simulated SSH connection ended");
                    }
                }
                Err(error) => tracing::debug!(%error, "simulated SSH connection failed"),
            }
        });
        while connections.try_join_next().is_some() {}
    }
}

impl russh::server::Server for SimSsh {
    type Handler = Connection;

    fn new_client(&mut self, _peer: Option<std::net::SocketAddr>) -> Connection {
        Connection {
            server: self.clone(),
            terminals: HashMap::new(),
        }
    }
}

/// One SSH connection and its shells.
struct Connection {
    server: SimSsh,
    terminals: HashMap<ChannelId, Terminal>,
}

impl russh::server::Handler for Connection {
    type Error = russh::Error;

    async fn auth_password(&mut self, user: &str, password: &str) -> Result<Auth, Self::Error> {
        let settings = &self.server.settings;
        if user == settings.username && password == settings.password {
            Ok(Auth::Accept)
        } else {
            Ok(Auth::reject())
        }
    }

    async fn channel_open_session(
        &mut self,
        channel: Channel<Msg>,
        reply: ChannelOpenHandle,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        let terminal = Terminal::new(
            self.server.olt.clone(),
            self.server.vendor,
            self.server.settings.reboot_time,
        );
        self.terminals.insert(channel.id(), terminal);
        reply.accept().await;
        Ok(())
    }

    async fn pty_request(
        &mut self,
        channel: ChannelId,
        _term: &str,
        _col_width: u32,
        _row_height: u32,
        _pix_width: u32,
        _pix_height: u32,
        _modes: &[(Pty, u32)],
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        if let Some(terminal) = self.terminals.get_mut(&channel) {
            terminal.echo = true;
        }
        session.channel_success(channel)
    }

    async fn shell_request(
        &mut self,
        channel: ChannelId,
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        session.channel_success(channel)?;
        if self.server.olt.has(Fault::SshMute) {
            return Ok(());
        }
        if let Some(terminal) = self.terminals.get(&channel) {
            session.data(channel, terminal.greeting().into_bytes())?;
        }
        Ok(())
    }

    async fn exec_request(
        &mut self,
        channel: ChannelId,
        _data: &[u8],
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        // OLT CLIs take commands in an interactive shell only.
        session.channel_failure(channel)
    }

    async fn data(
        &mut self,
        channel: ChannelId,
        data: &[u8],
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        let Some(terminal) = self.terminals.get_mut(&channel) else {
            return Ok(());
        };
        let answer = terminal.input(data);
        if !answer.text.is_empty() && self.server.olt.has(Fault::SshDrop) {
            let half = answer.text.as_bytes()[..answer.text.len() / 2].to_vec();
            session.data(channel, half)?;
            self.terminals.clear();
            session.disconnect(
                russh::Disconnect::ByApplication,
                "simulated connection drop",
                "",
            )?;
            return Ok(());
        }
        if !answer.text.is_empty() {
            session.data(channel, answer.text.into_bytes())?;
        }
        if answer.close {
            self.terminals.remove(&channel);
            session.exit_status_request(channel, 0)?;
            session.eof(channel)?;
            session.close(channel)?;
        }
        Ok(())
    }

    async fn channel_eof(
        &mut self,
        channel: ChannelId,
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        if self.terminals.remove(&channel).is_some() {
            session.exit_status_request(channel, 0)?;
            session.close(channel)?;
        }
        Ok(())
    }
}
