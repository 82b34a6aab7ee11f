//! Where notifications go (docs/outages.md#notifications): one `[[notify]]` entry
//! ([`NotifyConfig`]) as the operator writes it, and [`resolve`], which checks every
//! entry and makes each a [`Channel`]: its filter and where it sends — a Telegram bot
//! ([`telegram`]) with its token read from the environment, or an SMTP relay ([`email`])
//! with its password read from the environment. A check names the entry, the key and the
//! reason. A leaf below the config: what sends from these is [`crate::notify`].

pub mod email;
pub mod telegram;

use crate::alarms::AlarmType;
use email::Mailer;
use ponkeeper_actors::domain::NodeId;
use ponkeeper_actors::events::Severity;
use serde::{Deserialize, Serialize};
use telegram::Bot;

/// Where a channel sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChannelKind {
    Telegram,
    Email,
}

/// How an e-mail channel speaks to its relay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TlsMode {
    /// Plain SMTP (a relay on the same host or a trusted network only).
    None,
    /// Plain, then upgraded with STARTTLS before anything is sent (port 587).
    #[default]
    Starttls,
    /// TLS from the first byte (port 465).
    Tls,
}

/// A Telegram chat: a number (`-1001234567890`) or a public channel's `@name`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ChatId {
    Number(i64),
    Name(String),
}

/// The language of a channel's messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MessageLanguage {
    Ru,
    #[default]
    En,
}

/// One `[[notify]]` entry (docs/outages.md#notifications).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotifyConfig {
    /// Unique; names the channel's cursor in the store.
    pub name: String,
    pub kind: ChannelKind,
    /// Telegram: the Bot API's address (a proxy or a test may stand in).
    #[serde(default)]
    pub api_url: Option<String>,
    /// Telegram: the variable holding the bot's token.
    #[serde(default)]
    pub token_env: Option<String>,
    /// Telegram: the chats each message goes to.
    #[serde(default)]
    pub chat_ids: Vec<ChatId>,
    #[serde(default)]
    pub smtp_host: Option<String>,
    /// Default: 25 without TLS, 587 with STARTTLS, 465 with TLS.
    #[serde(default)]
    pub smtp_port: Option<u16>,
    #[serde(default)]
    pub tls: Option<TlsMode>,
    #[serde(default)]
    pub username: Option<String>,
    /// The variable holding the SMTP password (with `username`).
    #[serde(default)]
    pub password_env: Option<String>,
    #[serde(default)]
    pub from: Option<String>,
    #[serde(default)]
    pub to: Vec<String>,
    /// The alarm types sent; empty: all.
    #[serde(default)]
    pub types: Vec<AlarmType>,
    /// Alarms below this are not sent.
    #[serde(default = "lowest")]
    pub min_severity: Severity,
    /// Only alarms of OLTs of these nodes; empty: all.
    #[serde(default)]
    pub nodes: Vec<NodeId>,
    /// Only alarms that reach a СЗО (socially significant object).
    #[serde(default)]
    pub szo_only: bool,
    #[serde(default)]
    pub language: MessageLanguage,
    /// Messages a minute at most; what waits beyond it goes out as one digest.
    #[serde(default = "twenty")]
    pub max_per_minute: u32,
    /// A raised alarm waits this long after its start before it is sent, so an outage
    /// still growing (its ONUs seen down over two reads) is sent whole.
    #[serde(default = "ten_seconds", with = "humantime_serde")]
    pub group_wait: std::time::Duration,
}

fn ten_seconds() -> std::time::Duration {
    std::time::Duration::from_secs(10)
}

fn lowest() -> Severity {
    Severity::Info
}

/// Telegram's own limit for messages to one group.
fn twenty() -> u32 {
    20
}

/// The public Bot API.
pub const TELEGRAM_API: &str = "https://api.telegram.org";

/// Where a channel's messages go.
pub enum Target {
    Telegram(Bot),
    Email(Mailer),
}

/// A checked channel.
pub struct Channel {
    pub config: NotifyConfig,
    pub target: Target,
}

/// Checks every entry and reads the secrets from the environment.
pub fn resolve(entries: &[NotifyConfig]) -> anyhow::Result<Vec<Channel>> {
    let mut names = std::collections::HashSet::new();
    let mut channels = Vec::with_capacity(entries.len());
    for entry in entries {
        let at = format!("notify entry `{}`", entry.name);
        if entry.name.trim().is_empty() || entry.name.len() > 64 {
            anyhow::bail!("notify entry: key `name`: must be 1 to 64 characters");
        }
        if !names.insert(entry.name.as_str()) {
            anyhow::bail!("{at}: key `name`: declared twice");
        }
        if entry.max_per_minute == 0 {
            anyhow::bail!("{at}: key `max_per_minute`: must be at least 1");
        }
        let target = match entry.kind {
            ChannelKind::Telegram => {
                foreign(&email_keys(entry), "telegram")
                    .map_err(|e| anyhow::anyhow!("{at}: {e}"))?;
                Target::Telegram(Bot::resolve(entry).map_err(|e| anyhow::anyhow!("{at}: {e}"))?)
            }
            ChannelKind::Email => {
                foreign(&telegram_keys(entry), "email")
                    .map_err(|e| anyhow::anyhow!("{at}: {e}"))?;
                Target::Email(Mailer::resolve(entry).map_err(|e| anyhow::anyhow!("{at}: {e}"))?)
            }
        };
        channels.push(Channel {
            config: entry.clone(),
            target,
        });
    }
    Ok(channels)
}

/// The Telegram keys `entry` sets.
fn telegram_keys(entry: &NotifyConfig) -> Vec<&'static str> {
    let mut set = Vec::new();
    if entry.api_url.is_some() {
        set.push("api_url");
    }
    if entry.token_env.is_some() {
        set.push("token_env");
    }
    if !entry.chat_ids.is_empty() {
        set.push("chat_ids");
    }
    set
}

/// The e-mail keys `entry` sets.
fn email_keys(entry: &NotifyConfig) -> Vec<&'static str> {
    let mut set = Vec::new();
    let keys = [
        ("smtp_host", entry.smtp_host.is_some()),
        ("smtp_port", entry.smtp_port.is_some()),
        ("tls", entry.tls.is_some()),
        ("username", entry.username.is_some()),
        ("password_env", entry.password_env.is_some()),
        ("from", entry.from.is_some()),
        ("to", !entry.to.is_empty()),
    ];
    for (key, present) in keys {
        if present {
            set.push(key);
        }
    }
    set
}

/// Refuses keys of the other kind: a typo'd kind must not pass as a channel sending nowhere.
fn foreign(keys: &[&str], kind: &str) -> Result<(), String> {
    match keys.first() {
        Some(key) => Err(format!(
            "key `{key}`: not a key of kind = \"{kind}\" (docs/outages.md#notifications)"
        )),
        None => Ok(()),
    }
}

/// The value of the environment variable named by `key` of an entry.
fn secret(key: &str, variable: Option<&str>) -> Result<String, String> {
    let Some(variable) = variable else {
        return Err(format!("key `{key}`: required"));
    };
    match std::env::var(variable) {
        Ok(value) if !value.trim().is_empty() => Ok(value.trim().to_string()),
        _ => Err(format!(
            "key `{key}`: the variable `{variable}` is not set or empty"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> NotifyConfig {
        toml::from_str(text).expect("an entry")
    }

    #[test]
    fn refuses_bad_entries_naming_the_key_and_the_reason() {
        std::env::set_var("NOTIFY_UNIT_TOKEN", "123456:ABC-def_1");
        std::env::set_var("NOTIFY_UNIT_BAD_TOKEN", "123456:ABC/../x");
        let telegram = "name = \"noc\"\nkind = \"telegram\"\n";
        let cases = [
            (
                format!("{telegram}chat_ids = [1]\n"),
                "notify entry `noc`: key `token_env`: required",
            ),
            (
                format!("{telegram}token_env = \"NOTIFY_UNIT_UNSET_71\"\nchat_ids = [1]\n"),
                "key `token_env`: the variable `NOTIFY_UNIT_UNSET_71` is not set or empty",
            ),
            (
                format!("{telegram}token_env = \"NOTIFY_UNIT_BAD_TOKEN\"\nchat_ids = [1]\n"),
                "key `token_env`: `NOTIFY_UNIT_BAD_TOKEN` holds no bot token",
            ),
            (
                format!("{telegram}token_env = \"NOTIFY_UNIT_TOKEN\"\n"),
                "key `chat_ids`: name at least one chat",
            ),
            (
                format!("{telegram}token_env = \"NOTIFY_UNIT_TOKEN\"\nchat_ids = [1]\nto = [\"a@b.example\"]\n"),
                "key `to`: not a key of kind = \"telegram\"",
            ),
            (
                format!("{telegram}token_env = \"NOTIFY_UNIT_TOKEN\"\nchat_ids = [1]\napi_url = \"ftp://x\"\n"),
                "key `api_url`: `ftp://x` is not an http:// or https:// URL with a host",
            ),
            (
                "name = \"mail\"\nkind = \"email\"\nfrom = \"noc@isp.example\"\nto = [\"a@isp.example\"]\n".to_string(),
                "notify entry `mail`: key `smtp_host`: required",
            ),
            (
                "name = \"mail\"\nkind = \"email\"\nsmtp_host = \"mx\"\nfrom = \"not an address\"\nto = [\"a@isp.example\"]\n".to_string(),
                "key `from`: `not an address` is no e-mail address",
            ),
            (
                "name = \"mail\"\nkind = \"email\"\nsmtp_host = \"mx\"\nfrom = \"noc@isp.example\"\nto = [\"a@isp.example\"]\nusername = \"noc\"\n".to_string(),
                "key `password_env`: required",
            ),
            (
                "name = \"mail\"\nkind = \"email\"\nsmtp_host = \"mx\"\nfrom = \"noc@isp.example\"\n".to_string(),
                "key `to`: name at least one address",
            ),
        ];
        for (text, expected) in cases {
            let error = match resolve(&[parse(&text)]) {
                Ok(_) => panic!("accepted:\n{text}"),
                Err(error) => error.to_string(),
            };
            assert!(error.contains(expected), "{error}\nwanted: {expected}");
        }
    }

    #[test]
    fn good_entries_resolve_and_names_are_unique() {
        std::env::set_var("NOTIFY_UNIT_TOKEN_2", "123456:ABC-def_1");
        let telegram = parse(
            "name = \"noc\"\nkind = \"telegram\"\ntoken_env = \"NOTIFY_UNIT_TOKEN_2\"\nchat_ids = [-1001, \"@noc\"]\nmin_severity = \"CRITICAL\"\ntypes = [\"SPLITTER_OUTAGE\"]\nlanguage = \"ru\"\n",
        );
        let email = parse(
            "name = \"mail\"\nkind = \"email\"\nsmtp_host = \"127.0.0.1\"\ntls = \"none\"\nfrom = \"ponkeeper <noc@isp.example>\"\nto = [\"duty@isp.example\"]\n",
        );
        assert_eq!(
            telegram.chat_ids,
            [ChatId::Number(-1001), ChatId::Name("@noc".into())]
        );
        assert_eq!(telegram.min_severity, Severity::Critical);
        let channels = resolve(&[telegram.clone(), email]).expect("good");
        assert_eq!(channels.len(), 2);
        let error = match resolve(&[telegram.clone(), telegram]) {
            Ok(_) => panic!("two of one name"),
            Err(error) => error.to_string(),
        };
        assert!(error.contains("key `name`: declared twice"), "{error}");
    }
}
