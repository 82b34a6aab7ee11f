//! Turns a change an OLT actor published ([`FleetChange`]) into event drafts, by
//! comparing it with what the fleet view held before folding it in: the OLT's status
//! (`OLT_STATUS_CHANGED`), each ONU row's status (`ONU_DOWN` / `ONU_UP`) and optics level
//! (`OPTICS_LEVEL_CHANGED`), a new running-config version (`CONFIG_CHANGED`), and
//! unconfigured ONUs a poll saw for the first time (`ONU_DISCOVERED`). Outages are the
//! outage book's, which reads these drafts ([`crate::outages`]). The fleet view
//! actor calls [`derive`] before it folds the change into its rows and keeps the drafts
//! only if the change was applied. What derivation reads of those rows is the
//! [`HeldRows`] trait, which the fleet view's aggregate implements: the events module
//! depends on what OLT actors publish ([`crate::published`]), never on the fleet view.
//! Pure: no clock but the change's own times, no I/O.
//!
//! Left out on purpose: an OLT's first move from CONNECTING to ONLINE (every start of the
//! service would report every OLT), a registered ONU seen for the first time, and optics moves to or from UNKNOWN (an ONU that goes offline loses
//! its reading; its `ONU_DOWN` says so).

use super::record::{Draft, Event, EventType, Severity};
use crate::domain::{DownCause, OltId, Onu, OnuId, OnuStatus, OpticsLevel, SessionStatus};
use crate::published::{FleetChange, OltSummary, OltUpdate, OnuChange};
use chrono::{DateTime, Utc};
use serde_json::json;

/// What derivation reads of the fleet as the fleet view held it before a change.
pub trait HeldRows {
    /// The summary held of OLT `olt`; `None` before its first publish.
    fn olt_summary(&self, olt: OltId) -> Option<&OltSummary>;
    /// The row held of ONU `id`.
    fn known_onu(&self, id: OnuId) -> Option<&Onu>;
    /// The optics level of an Rx power under the view's thresholds.
    fn level(&self, rx_power: Option<f64>) -> OpticsLevel;
}

/// The drafts `change` gives against `view` as it was before the change.
pub fn derive(view: &impl HeldRows, change: &FleetChange) -> Vec<Draft> {
    match change {
        FleetChange::Olt(update) => derive_update(view, update),
        FleetChange::Removed { .. } => Vec::new(),
        FleetChange::Discovered { olt, onus, .. } => discovered(view, *olt, onus),
        FleetChange::MacsMoved { olt, moves, .. } => macs_moved(view, *olt, moves),
        FleetChange::PortSaturation { olt, changes, .. } => port_saturation(view, *olt, changes),
        FleetChange::ConfigStored {
            olt,
            backup_id,
            taken_at,
            ..
        } => {
            let node = view.olt_summary(*olt).and_then(|s| s.node);
            vec![draft(Event {
                at: *taken_at,
                kind: EventType::ConfigChanged,
                severity: Severity::Info,
                olt_id: Some(*olt),
                node_id: node,
                message: format!("OLT {olt}: a backup stored a new running-config version"),
                data: json!({ "configId": backup_id }),
                ..blank(*taken_at)
            })]
        }
    }
}

/// `PON_PORT_SATURATED` (WARNING) for each port that became saturated,
/// `PON_PORT_SATURATION_CLEARED` (INFO) for each that stopped.
fn port_saturation(
    view: &impl HeldRows,
    olt: OltId,
    changes: &[crate::traffic::saturation::SaturationChange],
) -> Vec<Draft> {
    let node = view.olt_summary(olt).and_then(|s| s.node);
    let at = Utc::now();
    changes
        .iter()
        .map(|change| {
            let percent = (change.utilisation * 100.0).round();
            let way = match change.direction {
                "in" => "upstream",
                _ => "downstream",
            };
            let (kind, severity, message) = if change.saturated {
                (
                    EventType::PonPortSaturated,
                    Severity::Warning,
                    format!(
                        "PON port {} of OLT {olt} is saturated: {way} at {percent}% of its capacity",
                        change.port
                    ),
                )
            } else {
                (
                    EventType::PonPortSaturationCleared,
                    Severity::Info,
                    format!(
                        "PON port {} of OLT {olt} is no longer saturated ({way} at {percent}%)",
                        change.port
                    ),
                )
            };
            draft(Event {
                kind,
                severity,
                olt_id: Some(olt),
                node_id: node,
                pon_port: Some(change.port.clone()),
                message,
                data: json!({
                    "port": change.port,
                    "direction": change.direction,
                    "utilisation": (change.utilisation * 10_000.0).round() / 10_000.0,
                    "since": change.since,
                }),
                ..blank(at)
            })
        })
        .collect()
}

/// One `MAC_MOVED` per MAC that showed up behind another ONU.
fn macs_moved(view: &impl HeldRows, olt: OltId, moves: &[crate::macs::MacMove]) -> Vec<Draft> {
    let node = view.olt_summary(olt).and_then(|s| s.node);
    moves
        .iter()
        .map(|moved| {
            draft(Event {
                kind: EventType::MacMoved,
                olt_id: Some(olt),
                node_id: node,
                pon_port: Some(moved.owner.pon_port.clone()),
                onu_id: Some(moved.to),
                message: match moved.vlan {
                    Some(vlan) => format!(
                        "MAC {} moved from ONU {} to ONU {} (VLAN {vlan})",
                        moved.mac, moved.from, moved.to
                    ),
                    None => format!(
                        "MAC {} moved from ONU {} to ONU {}",
                        moved.mac, moved.from, moved.to
                    ),
                },
                data: json!({
                    "mac": moved.mac.to_string(),
                    "fromOnuId": moved.from,
                    "toOnuId": moved.to,
                    "vlan": moved.vlan,
                }),
                ..blank(moved.at)
            })
        })
        .collect()
}

/// One `ONU_DISCOVERED` per ONU the OLT shows unconfigured for the first time.
fn discovered(
    view: &impl HeldRows,
    olt: OltId,
    onus: &[crate::provision::UnconfiguredOnu],
) -> Vec<Draft> {
    let node = view.olt_summary(olt).and_then(|s| s.node);
    onus.iter()
        .map(|onu| {
            draft(Event {
                kind: EventType::OnuDiscovered,
                olt_id: Some(olt),
                node_id: node,
                pon_port: Some(onu.pon_port.to_string()),
                message: format!(
                    "OLT {olt} port {}: unconfigured ONU {} appeared",
                    onu.pon_port, onu.serial
                ),
                data: json!({ "serial": onu.serial, "equipmentId": onu.equipment_id }),
                ..blank(onu.first_seen_at)
            })
        })
        .collect()
}

fn derive_update(view: &impl HeldRows, update: &OltUpdate) -> Vec<Draft> {
    let Some(old) = view.olt_summary(update.olt) else {
        return Vec::new(); // the first word of this OLT: nothing to compare with
    };
    let at = update.polled_at.unwrap_or(update.summary.last_update);
    let mut drafts = Vec::new();
    if let Some(d) = status_move(old, &update.summary) {
        drafts.push(d);
    }
    let mut rows: Vec<(&Onu, &Onu)> = update
        .onus
        .iter()
        .filter_map(|change| match change {
            OnuChange::Upsert(id) => Some((view.known_onu(*id)?, update.row(*id)?)),
            OnuChange::Remove(_) => None,
        })
        .collect();
    rows.sort_by_key(|(_, now)| now.id);
    for (was, now) in &rows {
        if goes_down(was, now) {
            drafts.push(onu_down(now, &update.summary, at));
        } else if was.status == OnuStatus::Offline && now.status == OnuStatus::Online {
            drafts.push(onu_draft(
                EventType::OnuUp,
                Severity::Info,
                now,
                &update.summary,
                at,
                format!("ONU {} is back online", now.serial),
                json!({}),
            ));
        }
        if let Some(d) = optics_move(view, was, now, &update.summary, at) {
            drafts.push(d);
        }
    }
    drafts
}

fn goes_down(was: &Onu, now: &Onu) -> bool {
    was.status == OnuStatus::Online && now.status == OnuStatus::Offline
}

fn status_move(old: &OltSummary, new: &OltSummary) -> Option<Draft> {
    let (from, to) = (old.status, new.status);
    if from == to || (from == SessionStatus::Connecting && to == SessionStatus::Online) {
        return None;
    }
    let severity = match to {
        SessionStatus::Degraded | SessionStatus::Offline => Severity::Warning,
        _ => Severity::Info,
    };
    let reason = match to {
        SessionStatus::Online => "a poll succeeded",
        SessionStatus::Degraded => "a poll failed",
        SessionStatus::Offline => "polls failed offline_after times in a row",
        SessionStatus::Disabled => "disabled in the inventory",
        SessionStatus::Connecting => "the session restarted",
    };
    Some(draft(Event {
        kind: EventType::OltStatusChanged,
        severity,
        olt_id: Some(new.id),
        node_id: new.node,
        message: format!("OLT {} went from {from} to {to}", new.id),
        data: json!({ "from": from, "to": to, "reason": reason }),
        ..blank(new.status_since)
    }))
}

fn onu_down(onu: &Onu, olt: &OltSummary, at: DateTime<Utc>) -> Draft {
    let cause = onu.last_down_cause.unwrap_or(DownCause::Unknown);
    let cause_name = serde_json::to_value(cause)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    onu_draft(
        EventType::OnuDown,
        Severity::Warning,
        onu,
        olt,
        at,
        format!("ONU {} went offline ({cause_name})", onu.serial),
        json!({ "cause": cause }),
    )
}

fn optics_move(
    view: &impl HeldRows,
    was: &Onu,
    now: &Onu,
    olt: &OltSummary,
    at: DateTime<Utc>,
) -> Option<Draft> {
    let (from, to) = (
        view.level(was.rx_power.get()),
        view.level(now.rx_power.get()),
    );
    if from == to || from == OpticsLevel::Unknown || to == OpticsLevel::Unknown {
        return None;
    }
    let severity = match to {
        OpticsLevel::Critical => Severity::Critical,
        OpticsLevel::Warning => Severity::Warning,
        _ => Severity::Info,
    };
    Some(onu_draft(
        EventType::OpticsLevelChanged,
        severity,
        now,
        olt,
        at,
        format!(
            "ONU {}: optics level {} -> {}",
            now.serial,
            from.as_str(),
            to.as_str()
        ),
        json!({ "from": from, "to": to, "rxPower": now.rx_power }),
    ))
}

fn onu_draft(
    kind: EventType,
    severity: Severity,
    onu: &Onu,
    olt: &OltSummary,
    at: DateTime<Utc>,
    message: String,
    data: serde_json::Value,
) -> Draft {
    let mut d = draft(Event {
        kind,
        severity,
        olt_id: Some(onu.olt_id),
        node_id: olt.node,
        pon_port: Some(onu.pon_port.to_string()),
        onu_id: Some(onu.id),
        message,
        data,
        ..blank(at)
    });
    d.serial = Some(onu.serial.to_string());
    d
}

fn draft(event: Event) -> Draft {
    Draft {
        event,
        serial: None,
    }
}

/// An event with every optional field unset, for struct update syntax.
fn blank(at: DateTime<Utc>) -> Event {
    Event {
        id: 0,
        at,
        kind: EventType::OnuUp,
        severity: Severity::Info,
        olt_id: None,
        node_id: None,
        pon_port: None,
        onu_id: None,
        szo_id: None,
        message: String::new(),
        data: json!({}),
    }
}
