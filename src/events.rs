//! The service's side of events (docs/events.md): the `[events]` config section, starting the
//! device side's [`EventLog`] and handing it to the fleet view, and keeping its СЗО
//! bindings in step with the inventory, and an event as the API, the stream and webhooks
//! write it ([`EventItem`]), and a read of the log that waits for what is new
//! ([`wait_after`]). `GET /events` is [`crate::api`]'s `events`
//! module; the MCP tool `list_events` calls it.

use crate::clock::Clock;
use anyhow::bail;
use ponkeeper_actors::events::{Event, EventFilter, EventLog, EventSettings, EventType, Severity};
use ponkeeper_actors::inventory::Inventory;
use ponkeeper_actors::store::Store;
use ponkeeper_actors::supervisor::Fleet;
use serde::{Deserialize, Serialize};
use std::time::Duration;
use utoipa::ToSchema;

/// `[events]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EventsConfig {
    /// Events older than this are dropped.
    #[serde(with = "humantime_serde")]
    pub retention: Duration,
    /// This many LOS downs of one PON port (within `outages.window`, and at least
    /// `outages.port_share` of the port) make a `PON_OUTAGE` (docs/outages.md).
    pub pon_outage_min: u32,
    /// A PON port whose traffic (either way) stays at or above this share of its
    /// capacity…
    pub port_saturation_share: f64,
    /// …for this long is `PON_PORT_SATURATED` (docs/events.md).
    #[serde(with = "humantime_serde")]
    pub port_saturation_for: Duration,
}

impl Default for EventsConfig {
    fn default() -> Self {
        EventsConfig {
            retention: Duration::from_secs(30 * 86_400),
            pon_outage_min: 4,
            port_saturation_share: 0.9,
            port_saturation_for: Duration::from_secs(15 * 60),
        }
    }
}

impl EventsConfig {
    pub fn validate(&self) -> anyhow::Result<()> {
        if self.retention.is_zero() {
            bail!("key `events.retention`: must be above zero");
        }
        if self.pon_outage_min < 2 {
            bail!("key `events.pon_outage_min`: must be at least 2 (one ONU is not an outage)");
        }
        if !(self.port_saturation_share > 0.0 && self.port_saturation_share <= 1.0) {
            bail!("key `events.port_saturation_share`: must be above 0 and at most 1, e.g. 0.9");
        }
        Ok(())
    }

    /// When a PON port counts as saturated.
    pub fn saturation(&self) -> ponkeeper_actors::traffic::saturation::SaturationRule {
        ponkeeper_actors::traffic::saturation::SaturationRule {
            share: self.port_saturation_share,
            after: self.port_saturation_for,
        }
    }

    fn settings(&self) -> EventSettings {
        EventSettings {
            retention: self.retention,
        }
    }
}

/// Opens the event log and has the fleet view derive events into it from now on.
pub async fn start(
    config: &EventsConfig,
    store: &Store,
    fleet: &Fleet,
    inventory: &Inventory,
) -> anyhow::Result<EventLog> {
    let log = EventLog::start(store, config.settings())
        .await
        .map_err(|e| anyhow::anyhow!(e))?;
    bind_szo(&log, inventory);
    fleet.view().feed_events(log.clone());
    Ok(log)
}

/// Binds each СЗО of `inventory` to its ONU serial, for `SZO_DOWN` / `SZO_UP`.
pub fn bind_szo(log: &EventLog, inventory: &Inventory) {
    log.bind_szo(
        inventory
            .szo
            .iter()
            .map(|szo| (szo.onu_serial.clone(), szo.id)),
    );
}

/// An event as the API, the stream and webhooks show it (docs/events.md); unset ids are
/// null.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventItem {
    /// Increasing without gaps (in a cluster, each member's from its id block); the SSE
    /// `id:` alone and the webhook's `webhook-id`.
    pub id: u64,
    /// Local date-time.
    pub at: String,
    #[serde(rename = "type")]
    #[schema(inline)]
    pub kind: EventType,
    #[schema(inline)]
    pub severity: Severity,
    pub olt_id: Option<u32>,
    pub node_id: Option<u32>,
    pub pon_port: Option<String>,
    pub onu_id: Option<u64>,
    pub szo_id: Option<u32>,
    pub message: String,
    /// Type-specific details, e.g. `{"cause": "LOS", "outageId": 41}` for `ONU_DOWN`.
    #[schema(value_type = Object)]
    pub data: serde_json::Value,
    /// In a cluster: the member that recorded the event (each member numbers its own
    /// events); absent when the service runs alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub member: Option<String>,
}

/// `event` as the API, the stream and webhooks show it, its time in `clock`'s zone.
pub fn item(clock: &Clock, event: Event) -> EventItem {
    EventItem {
        id: event.id,
        at: clock.format(event.at),
        kind: event.kind,
        severity: event.severity,
        olt_id: event.olt_id,
        node_id: event.node_id,
        pon_port: event.pon_port,
        onu_id: event.onu_id,
        szo_id: event.szo_id,
        message: event.message,
        data: event.data,
        member: None,
    }
}

/// The events `filter` admits after id `after` (after the newest when `None`), at most
/// `limit`, waiting up to `wait` for the first; and the last id looked at, where the next
/// read starts. The log is read on the blocking pool, only when it has grown; an error
/// when the read fails or the log has closed.
pub async fn wait_after(
    log: &EventLog,
    filter: &EventFilter,
    after: Option<u64>,
    (limit, wait): (usize, Duration),
) -> Result<(Vec<Event>, u64), String> {
    let mut last = log.subscribe();
    let mut after = after.unwrap_or_else(|| *last.borrow());
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        if *last.borrow_and_update() > after {
            let (log, filter) = (log.clone(), filter.clone());
            let (events, seen) =
                tokio::task::spawn_blocking(move || log.after(after, &filter, limit))
                    .await
                    .map_err(|e| e.to_string())?
                    .map_err(|e| e.to_string())?;
            after = seen;
            if !events.is_empty() || tokio::time::Instant::now() >= deadline {
                return Ok((events, seen));
            }
            continue;
        }
        tokio::select! {
            changed = last.changed() => {
                if changed.is_err() {
                    return Err("the event log has closed".into());
                }
            }
            () = tokio::time::sleep_until(deadline) => break,
        }
    }
    Ok((Vec::new(), after))
}
