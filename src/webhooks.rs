//! Webhooks (docs/events.md), managed as code: the `[[webhooks]]` entries of the config
//! ([`WebhookConfig`]), checked when the config is loaded (a URL that does not parse, a
//! `secret_env` that is unset or holds no `whsec_` secret stop start-up and reload, naming
//! the file, the key and the reason), and the running set ([`Webhooks`]) that
//! [`crate::app`] starts and [`crate::jobs`] replaces on SIGHUP. Each webhook has
//! its own delivery task ([`delivery`]), its cursor in sled, and a [`DeliveryStatus`] that
//! `GET /webhooks` ([`crate::api`]'s `webhooks` module) and `/metrics` read. Signing is
//! [`signature`].

use crate::clock::Clock;
use crate::tasks::{Running, TaskSet};
use ponkeeper_actors::events::EventLog;
use ponkeeper_actors::events::EventType;
use ponkeeper_actors::store::Store;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};

pub mod delivery;
pub mod signature;

pub use delivery::DeliveryStatus;
use signature::{Secrets, MAKE_ONE};

/// One `[[webhooks]]` entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebhookConfig {
    /// Unique; names the webhook's cursor in the store, so renaming one starts it afresh.
    pub name: String,
    /// An `http://` or `https://` URL; each event is POSTed to it.
    pub url: String,
    /// The environment variable holding the secret (`whsec_…`, or two during a rotation).
    pub secret_env: String,
    /// The event types sent; empty: all.
    #[serde(default)]
    pub types: Vec<EventType>,
}

/// A checked webhook: its config, parsed URL and secrets.
#[derive(Debug, Clone)]
pub struct Webhook {
    pub config: WebhookConfig,
    pub url: reqwest::Url,
    pub secrets: Secrets,
}

/// Checks every entry (names unique, URL, secret) and reads the secrets from the
/// environment. Errors name the entry, the key and the reason.
pub fn resolve(entries: &[WebhookConfig]) -> anyhow::Result<Vec<Webhook>> {
    let mut names = std::collections::HashSet::new();
    let mut hooks = Vec::with_capacity(entries.len());
    for entry in entries {
        let at = format!("webhooks entry `{}`", entry.name);
        if entry.name.trim().is_empty() || entry.name.len() > 64 {
            anyhow::bail!("webhooks entry: key `name`: must be 1 to 64 characters");
        }
        if !names.insert(entry.name.as_str()) {
            anyhow::bail!("{at}: key `name`: declared twice");
        }
        let url = reqwest::Url::parse(&entry.url)
            .map_err(|e| anyhow::anyhow!("{at}: key `url`: `{}` does not parse: {e}", entry.url))?;
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
            anyhow::bail!(
                "{at}: key `url`: `{}` is not an http:// or https:// URL with a host",
                entry.url
            );
        }
        let value = std::env::var(&entry.secret_env).map_err(|_| {
            anyhow::anyhow!(
                "{at}: key `secret_env`: the variable `{}` is not set; {MAKE_ONE}",
                entry.secret_env
            )
        })?;
        let secrets = Secrets::parse(&value)
            .map_err(|e| anyhow::anyhow!("{at}: key `secret_env`: `{}`: {e}", entry.secret_env))?;
        hooks.push(Webhook {
            config: entry.clone(),
            url,
            secrets,
        });
    }
    Ok(hooks)
}

/// The running webhooks; cheap to clone. Empty until [`Webhooks::apply`].
#[derive(Clone, Default)]
pub struct Webhooks {
    running: TaskSet<WebhookConfig, DeliveryStatus>,
}

impl Webhooks {
    /// Replaces the running set with `hooks`: every old task stops (a delivery in flight is
    /// sent again by the new one: at least once) and each hook gets a task reading from its
    /// cursor in `store`, delivering from `events` with times in `clock`'s zone.
    pub fn apply(
        &self,
        (store, events, clock): (&Store, &EventLog, Clock),
        hooks: Vec<Webhook>,
    ) -> anyhow::Result<()> {
        let cursors = delivery::Cursors::open(store)?;
        let client = delivery::client()?;
        let mut fresh = Vec::with_capacity(hooks.len());
        for webhook in hooks {
            let status = Arc::new(Mutex::new(DeliveryStatus::default()));
            let config = webhook.config.clone();
            let task = tokio::spawn(delivery::run(
                (events.clone(), clock),
                webhook,
                cursors.clone(),
                client.clone(),
                status.clone(),
            ));
            fresh.push(Running {
                config,
                status,
                task,
            });
        }
        self.running.replace(fresh);
        Ok(())
    }

    /// Stops every delivery task (at shutdown).
    pub fn stop(&self) {
        self.running.stop();
    }

    /// Each webhook's config and delivery state, in config order.
    pub fn statuses(&self) -> Vec<(WebhookConfig, DeliveryStatus)> {
        self.running.statuses()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, url: &str, secret_env: &str) -> WebhookConfig {
        WebhookConfig {
            name: name.into(),
            url: url.into(),
            secret_env: secret_env.into(),
            types: Vec::new(),
        }
    }

    #[test]
    fn refuses_bad_entries_naming_the_key_and_the_reason() {
        // A variable no other test sets; PATH is set everywhere but holds no secret.
        let cases = [
            (
                entry("a", "billing.example/hook", "PATH"),
                "webhooks entry `a`: key `url`: `billing.example/hook` does not parse",
            ),
            (
                entry("a", "ftp://billing.example/", "PATH"),
                "key `url`: `ftp://billing.example/` is not an http:// or https:// URL",
            ),
            (
                entry("a", "http://billing.example/", "PONKEEPER_TEST_UNSET_SECRET_93"),
                "key `secret_env`: the variable `PONKEEPER_TEST_UNSET_SECRET_93` is not set; make one with `echo whsec_$(openssl rand -base64 32)`",
            ),
            (
                entry("a", "http://billing.example/", "PATH"),
                "key `secret_env`: `PATH`: a secret must start with `whsec_`",
            ),
        ];
        for (entry, expected) in cases {
            let error = resolve(&[entry]).expect_err("refused").to_string();
            assert!(error.contains(expected), "{error}\nwanted: {expected}");
        }
        // A variable of this test alone.
        std::env::set_var(
            "WEBHOOK_UNIT_TEST_SECRET",
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        );
        let good = entry("a", "https://x.example/hook", "WEBHOOK_UNIT_TEST_SECRET");
        assert_eq!(resolve(std::slice::from_ref(&good)).expect("good").len(), 1);
        let error = resolve(&[good.clone(), good])
            .expect_err("twice")
            .to_string();
        assert_eq!(error, "webhooks entry `a`: key `name`: declared twice");
        assert_eq!(resolve(&[]).expect("nothing to check").len(), 0);
    }
}
