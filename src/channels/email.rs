//! An e-mail channel: one message to every address of `to`, through the configured SMTP
//! relay (lettre), in plain text, UTF-8. `tls = "starttls"` (the default) upgrades the
//! connection before the login or the message — a relay that offers no STARTTLS gets
//! neither —; `"tls"` speaks TLS from the first byte; `"none"` is plain SMTP, for a relay
//! on the same host. Certificates are checked against the system's roots.

use super::{secret, NotifyConfig, TlsMode};
use lettre::message::{header::ContentType, Mailbox};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use std::time::Duration;

/// How long one SMTP command may take.
const SMTP_TIMEOUT: Duration = Duration::from_secs(20);

pub struct Mailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    to: Vec<Mailbox>,
}

impl Mailer {
    pub fn resolve(entry: &NotifyConfig) -> Result<Mailer, String> {
        let host = entry
            .smtp_host
            .as_deref()
            .filter(|h| !h.trim().is_empty())
            .ok_or("key `smtp_host`: required")?;
        let mailbox = |key: &str, text: &str| -> Result<Mailbox, String> {
            text.parse()
                .map_err(|_| format!("key `{key}`: `{text}` is no e-mail address"))
        };
        let from = mailbox("from", entry.from.as_deref().ok_or("key `from`: required")?)?;
        if entry.to.is_empty() {
            return Err("key `to`: name at least one address".into());
        }
        let to = entry
            .to
            .iter()
            .map(|a| mailbox("to", a))
            .collect::<Result<Vec<_>, _>>()?;
        let mode = entry.tls.unwrap_or_default();
        let port = entry.smtp_port.unwrap_or(match mode {
            TlsMode::None => 25,
            TlsMode::Starttls => 587,
            TlsMode::Tls => 465,
        });
        let tls = match mode {
            TlsMode::None => Tls::None,
            TlsMode::Starttls | TlsMode::Tls => {
                let parameters = TlsParameters::new(host.to_string())
                    .map_err(|e| format!("key `smtp_host`: `{host}`: {e}"))?;
                if mode == TlsMode::Tls {
                    Tls::Wrapper(parameters)
                } else {
                    Tls::Required(parameters)
                }
            }
        };
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(host)
            .port(port)
            .tls(tls)
            .timeout(Some(SMTP_TIMEOUT));
        match (&entry.username, &entry.password_env) {
            (Some(user), variable) => {
                let password = secret("password_env", variable.as_deref())?;
                builder = builder.credentials(Credentials::new(user.clone(), password));
            }
            (None, Some(_)) => return Err("key `password_env`: set with `username` only".into()),
            (None, None) => {}
        }
        Ok(Mailer {
            transport: builder.build(),
            from,
            to,
        })
    }

    /// Sends one message with `subject` and `text` to every address.
    pub async fn send(&self, subject: &str, text: &str) -> Result<(), String> {
        let mut message = Message::builder()
            .from(self.from.clone())
            .subject(subject)
            .header(ContentType::TEXT_PLAIN);
        for to in &self.to {
            message = message.to(to.clone());
        }
        let message = message
            .body(text.to_string())
            .map_err(|e| format!("cannot build the message: {e}"))?;
        self.transport
            .send(message)
            .await
            .map(|_| ())
            .map_err(|e| format!("the SMTP relay refused or failed: {e}"))
    }
}
