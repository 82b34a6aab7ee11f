//! SNMP traps (docs/events.md): with `[traps] listen` set, a UDP listener takes v1 and v2c
//! traps, and one from an inventory OLT's address asks that OLT's actor for an immediate
//! poll — at most one per `traps.min_interval` per OLT; a trap inside that time gets one
//! poll at its end, never none ([`Debounce`]) — so an ONU that goes down is an event
//! within seconds instead of a poll interval. A trap is only a hint to poll: its
//! contents are not trusted or used, but its community must be one the service knows
//! (docs/events.md, "SNMP traps"). The sender is its IP address: a device sends traps
//! from whatever port it likes, so the port names nothing. Of the enabled OLTs at that
//! address, a trap polls those whose (v1/v2c) read community it carries — which also
//! tells apart OLTs that share one address behind NAT — or, when it carries
//! `traps.community` (the community OLTs send traps with, where that is not their read
//! community), every one of them. Anything else is counted (`ponkeeper_traps_total`) and
//! dropped: datagrams that are no v1/v2c trap, traps from addresses the inventory does
//! not hold, and traps whose community is neither, so that whoever can send from an OLT's
//! address but does not know its communities cannot make the service poll.
//! [`crate::app`] starts it with the `[traps]` section ([`crate::config::TrapsConfig`]).

use crate::state::AppState;
use ponkeeper_actors::domain::OltId;
use ponkeeper_actors::inventory::Inventory;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// Every `outcome` label of `ponkeeper_traps_total`, registered at 0 at start.
pub const OUTCOMES: [&str; 5] = [
    "polled",
    "debounced",
    "unknown_sender",
    "wrong_community",
    "malformed",
];

/// What became of one datagram (the `outcome` label of `ponkeeper_traps_total`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A poll of the sending OLT(s) was asked for at once.
    Polled,
    /// Every matching OLT was polled less than `min_interval` ago: its poll comes at the
    /// end of that time (or was already scheduled).
    Debounced,
    UnknownSender,
    /// From an OLT's address, with neither its read community nor `traps.community`.
    WrongCommunity,
    Malformed,
}

impl Outcome {
    fn label(self) -> &'static str {
        match self {
            Outcome::Polled => "polled",
            Outcome::Debounced => "debounced",
            Outcome::UnknownSender => "unknown_sender",
            Outcome::WrongCommunity => "wrong_community",
            Outcome::Malformed => "malformed",
        }
    }
}

/// Whether `datagram` is an SNMP v1 trap or a v2c trap (an inform, which wants an answer,
/// is not taken).
pub fn is_trap(datagram: &[u8]) -> bool {
    use snmp2::{MessageType, Pdu, Version};
    match Pdu::from_bytes(datagram) {
        Ok(pdu) => matches!(
            (pdu.version(), pdu.message_type),
            (Ok(Version::V1), MessageType::TrapV1) | (Ok(Version::V2C), MessageType::Trap)
        ),
        Err(_) => false,
    }
}

/// The OLTs a trap from `sender` may be about: every enabled one at its IP address,
/// whatever port it sent from.
pub fn senders(inventory: &Inventory, sender: SocketAddr) -> Vec<OltId> {
    let ip = sender.ip().to_canonical();
    inventory
        .olts
        .iter()
        .filter(|o| o.enabled && o.ip.to_canonical() == ip)
        .map(|o| o.id)
        .collect()
}

/// Of the OLTs `olts` a trap may be about, those polled for it: the v1/v2c OLTs whose
/// read community it carries (OLTs that share an address are told apart by a community
/// each); all of them when it carries `trap_community` (`traps.community`: a device's trap
/// community may differ from its read community, and SNMPv3 OLTs have none); none when it
/// carries neither — a trap whose community the service does not know is ignored.
pub fn named_by_community(
    inventory: &Inventory,
    olts: Vec<OltId>,
    datagram: &[u8],
    trap_community: Option<&str>,
) -> Vec<OltId> {
    use ponkeeper_actors::inventory::SnmpVersion;
    let Ok(pdu) = snmp2::Pdu::from_bytes(datagram) else {
        return Vec::new();
    };
    let named: Vec<OltId> = olts
        .iter()
        .copied()
        .filter(|id| {
            inventory.olts.iter().any(|o| {
                o.id == *id
                    && o.snmp.version != SnmpVersion::V3
                    && o.snmp.community.as_bytes() == pdu.community
            })
        })
        .collect();
    if !named.is_empty() {
        named
    } else if trap_community.is_some_and(|c| c.as_bytes() == pdu.community) {
        olts
    } else {
        Vec::new()
    }
}

/// When each OLT was (or will be) polled for a trap: at most one poll per
/// `min_interval`, and a trap inside that time is not lost but answered by one poll at
/// its end (so a second ONU going down a second after the first is seen seconds later,
/// not a poll interval later).
#[derive(Debug, Default)]
pub struct Debounce {
    last: HashMap<OltId, Instant>,
}

impl Debounce {
    /// When `olt` is to be polled for a trap at `now`: `Some(now)`, `Some(later)` (at the
    /// end of its `min_interval`), or `None` when a poll after `now` is already scheduled.
    pub fn when(&mut self, olt: OltId, now: Instant, min_interval: Duration) -> Option<Instant> {
        let at = match self.last.get(&olt) {
            Some(last) if *last > now => return None,
            Some(last) if now.duration_since(*last) < min_interval => *last + min_interval,
            _ => now,
        };
        self.last.insert(olt, at);
        Some(at)
    }
}

/// Binds `[traps] listen` if set; the listener runs until the task is aborted.
pub async fn start(app: &AppState) -> anyhow::Result<Option<tokio::task::JoinHandle<()>>> {
    let Some(listen) = app.config.traps.listen else {
        return Ok(None);
    };
    let socket = tokio::net::UdpSocket::bind(listen).await.map_err(|e| {
        anyhow::anyhow!("key `traps.listen`: cannot listen for traps on {listen}: {e}")
    })?;
    tracing::info!(%listen, "taking SNMP traps");
    Ok(Some(tokio::spawn(listen_for_traps(app.clone(), socket))))
}

async fn listen_for_traps(app: AppState, socket: tokio::net::UdpSocket) {
    let mut buffer = vec![0u8; 65_536];
    let mut debounce = Debounce::default();
    loop {
        let (len, sender) = match socket.recv_from(&mut buffer).await {
            Ok(received) => received,
            Err(error) => {
                tracing::warn!(%error, "trap socket error");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let outcome = take(&app, &mut debounce, &buffer[..len], sender);
        metrics::counter!("ponkeeper_traps_total", "outcome" => outcome.label()).increment(1);
    }
}

/// Handles one datagram from `sender`.
fn take(app: &AppState, debounce: &mut Debounce, datagram: &[u8], sender: SocketAddr) -> Outcome {
    if !is_trap(datagram) {
        tracing::debug!(%sender, "dropped a datagram that is no SNMP v1/v2c trap");
        return Outcome::Malformed;
    }
    let inventory = app.inventory();
    let candidates = senders(&inventory, sender);
    if candidates.is_empty() {
        tracing::debug!(%sender, "dropped a trap from an address the inventory does not hold");
        return Outcome::UnknownSender;
    }
    let trap_community = app.config.traps.community.as_deref();
    let olts = named_by_community(&inventory, candidates, datagram, trap_community);
    if olts.is_empty() {
        tracing::debug!(%sender, "dropped a trap whose community no OLT at its address has");
        return Outcome::WrongCommunity;
    }
    let now = Instant::now();
    let mut outcome = Outcome::Debounced;
    for id in olts {
        let Some(at) = debounce.when(id, now, app.config.traps.min_interval) else {
            continue; // a poll after this trap is already scheduled
        };
        if at == now {
            outcome = Outcome::Polled;
        }
        if let Some(handle) = app.fleet.olt(id) {
            tracing::debug!(olt = id, %sender, "trap: polling");
            tokio::spawn(async move {
                tokio::time::sleep_until(at.into()).await;
                poll_after(id, handle, chrono::Utc::now()).await;
            });
        }
    }
    outcome
}

/// Polls `handle`'s OLT so that a poll starts after `received`: a poll already running
/// when the trap came may have read the device before the change, so when `poll_now`
/// joined one of those, one more follows.
async fn poll_after(
    id: OltId,
    handle: ponkeeper_actors::olt::OltHandle,
    received: chrono::DateTime<chrono::Utc>,
) {
    for _ in 0..2 {
        if let Err(error) = handle.poll_now().await {
            tracing::debug!(olt = id, %error, "trap-triggered poll failed");
            return;
        }
        match handle.detail().await {
            Ok(detail) if detail.session.last_poll_at.is_some_and(|at| at >= received) => return,
            Ok(_) => {}
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests;
