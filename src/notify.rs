//! Notifications (docs/outages.md#notifications): the `[[notify]]` channels of the config
//! — Telegram (the Bot API's `sendMessage`) and e-mail (SMTP) — checked when the config
//! is loaded ([`resolve`]: a missing key of the channel's kind, a key of the other kind,
//! an unset token or password variable, an address that does not parse stop start-up and
//! a SIGHUP reload, naming the entry, the key and the reason), and the running set
//! ([`Notifiers`]) that [`crate::app`] starts and [`crate::jobs`] replaces on SIGHUP.
//!
//! The channels themselves (config, Telegram, SMTP) are [`crate::channels`]. What is sent is the alarms' change log ([`crate::alarms::changes`]): one message when
//! an alarm is raised and one when it clears. Grouping comes from the alarms themselves —
//! an outage is one alarm however many ONUs it took down, and their own downs raise none —
//! and from the rate cap: past `max_per_minute`, what waits goes out as one digest. Each
//! channel reads the log from its own cursor and moves it only once the message was taken
//! ([`delivery`]), so a restart loses nothing. The words are [`render`]'s, in Russian or
//! English; the facts they name (the OLT, its node, the contracts, the СЗО) are gathered
//! at send time ([`facts`]).

pub mod delivery;
pub mod facts;
pub mod render;

pub use delivery::ChannelStatus;

use crate::alarms::Alarms;
use crate::channels::{Channel, NotifyConfig};
use crate::clock::Clock;
use crate::tasks::{Running, TaskSet};
use ponkeeper_actors::store::Store;
use std::sync::{Arc, Mutex};

/// The running channels; cheap to clone. Empty until [`Notifiers::apply`].
#[derive(Clone, Default)]
pub struct Notifiers {
    running: TaskSet<NotifyConfig, ChannelStatus>,
}

impl Notifiers {
    /// Replaces the running channels with `channels`, each reading the alarms' change log
    /// from its cursor in the store. A message in flight when its old task stops is sent
    /// again by the new one: at least once.
    pub fn apply(
        &self,
        (store, alarms, clock): (&Store, &Alarms, Clock),
        facts: facts::Gatherer,
        channels: Vec<Channel>,
    ) -> anyhow::Result<()> {
        let Some(changes) = alarms.changes().cloned() else {
            anyhow::bail!("notifications start after the alarms");
        };
        let cursors = delivery::Cursors::open(store)?;
        let mut fresh = Vec::with_capacity(channels.len());
        for channel in channels {
            let status = Arc::new(Mutex::new(ChannelStatus::default()));
            let config = channel.config.clone();
            let task = tokio::spawn(delivery::run(
                delivery::Feed {
                    changes: changes.clone(),
                    alarms: alarms.clone(),
                    facts: facts.clone(),
                    clock,
                },
                channel,
                cursors.clone(),
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

    /// Stops every channel (at shutdown).
    pub fn stop(&self) {
        self.running.stop();
    }

    /// Each channel's config and delivery state, in config order.
    pub fn statuses(&self) -> Vec<(NotifyConfig, ChannelStatus)> {
        self.running.statuses()
    }
}
