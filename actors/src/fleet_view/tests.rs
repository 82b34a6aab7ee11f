//! The fleet view against the fan-out it replaces: any sequence of published changes
//! (snapshots, deltas from [`diff_onus`], removals, late messages of replaced actors)
//! must leave the view answering exactly what asking every OLT's own state answers, with
//! each OLT's table queried by [`OnuTable::query`] and the pages merged, as the API did.
//! The same comparison on a live fleet of OLT actors and the simulator is
//! `actors/tests/fleet_view_live.rs`.

use super::*;
use crate::domain::{
    DownCause, OnuId, OnuStatus, OpticsLevel, PonPortStats, Reading, SessionStatus, Vendor,
};
use crate::onu_table::{OnuFilter, OnuQuery, OnuTable};
use chrono::{DateTime, TimeZone, Utc};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;

const THRESHOLDS: OpticsThresholds = OpticsThresholds {
    warning_dbm: -25.0,
    critical_dbm: -27.0,
};
const WORDS: [&str; 6] = ["Иванов", "Lenina", "school", "kv 12", "ПЕТРОВ", "hwtc"];
const PORTS: [&str; 3] = ["0/1/0", "0/1/1", "gpon_olt-1/1/1"];

/// What one OLT actor holds: the state the view must agree with.
#[derive(Clone)]
struct ActorState {
    incarnation: u64,
    summary: OltSummary,
    ports: Vec<PonPortStats>,
    vlans: Vec<(u16, String)>,
    polled_at: Option<DateTime<Utc>>,
    onus: Vec<Onu>,
}

fn time(step: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 23, 0, 0, 0)
        .single()
        .expect("a valid time")
        + chrono::Duration::seconds(i64::from(step) * 30)
}

fn random_onu(rng: &mut StdRng, olt: OltId, id: OnuId, at: DateTime<Utc>) -> Onu {
    let online = rng.random_bool(0.7);
    Onu {
        id,
        olt_id: olt,
        pon_port: PORTS[rng.random_range(0..PORTS.len())].into(),
        onu_index: rng.random_range(1..64),
        serial: format!("HWTC{id:04X}").into(),
        description: format!(
            "{} {}",
            WORDS[rng.random_range(0..WORDS.len())],
            rng.random_range(0..5)
        )
        .into(),
        status: if online {
            OnuStatus::Online
        } else {
            OnuStatus::Offline
        },
        last_down_cause: (!online).then_some(DownCause::Los),
        distance: Some(rng.random_range(100..9000)),
        rx_power: rng
            .random_bool(0.85)
            .then(|| f64::from(rng.random_range(-3000..-1500)) / 100.0)
            .into(),
        tx_power: Some(2.0).into(),
        olt_rx_power: Reading::NONE,
        temperature: Reading::NONE,
        voltage: Reading::NONE,
        bias_current: Reading::NONE,
        vlan: rng.random_bool(0.8).then(|| rng.random_range(100..103)),
        last_update: at,
        optics_at: None,
    }
}

fn summary_of(olt: OltId, node: Option<NodeId>, status: SessionStatus, onus: &[Onu]) -> OltSummary {
    OltSummary {
        id: olt,
        ip: std::net::IpAddr::from([127, 0, 0, olt as u8]),
        vendor: Some(Vendor::ALL[olt as usize % 3]),
        family: [Some("MA5800"), Some("GP3600"), None][olt as usize % 3],
        model: "MA5800".into(),
        city: if olt % 2 == 0 { "Kazan" } else { "Пермь" }.into(),
        node,
        status,
        status_since: time(0),
        total_ports: PORTS.len() as u32,
        total_onu: onus.len() as u32,
        onu_online: onus
            .iter()
            .filter(|o| o.status == OnuStatus::Online)
            .count() as u32,
        last_update: time(0),
    }
}

/// A random next state of `old` after a poll or an action at step `step`.
fn evolve(rng: &mut StdRng, old: &ActorState, step: u32, next_id: &mut OnuId) -> ActorState {
    let mut next = old.clone();
    let polled = rng.random_bool(0.7);
    let at = time(step);
    for onu in next.onus.iter_mut() {
        if polled && rng.random_bool(0.9) {
            onu.last_update = at;
        }
        if rng.random_bool(0.2) {
            onu.status = if onu.status == OnuStatus::Online {
                OnuStatus::Offline
            } else {
                OnuStatus::Online
            };
        }
        if rng.random_bool(0.2) {
            onu.rx_power = Some(f64::from(rng.random_range(-3000..-1500)) / 100.0).into();
        } else if rng.random_bool(0.05) {
            onu.rx_power = Reading::NONE; // an ONU that stopped answering its optics query
        }
        if rng.random_bool(0.05) {
            onu.description = WORDS[rng.random_range(0..WORDS.len())].into();
        }
        if rng.random_bool(0.05) {
            onu.vlan = Some(rng.random_range(100..103));
        }
    }
    next.onus.retain(|_| rng.random_bool(0.95));
    for _ in 0..rng.random_range(0..3) {
        *next_id += 1;
        next.onus
            .push(random_onu(rng, old.summary.id, *next_id, at));
    }
    if polled {
        next.polled_at = Some(at);
    }
    let statuses = [
        SessionStatus::Online,
        SessionStatus::Degraded,
        SessionStatus::Offline,
    ];
    let status = statuses[rng.random_range(0..statuses.len())];
    next.summary = summary_of(old.summary.id, old.summary.node, status, &next.onus);
    next.summary.last_update = next.polled_at.unwrap_or(time(0));
    if rng.random_bool(0.2) {
        next.vlans
            .push((100 + rng.random_range(0..4), "vlan".into()));
    }
    next
}

fn snapshot(state: &ActorState) -> FleetChange {
    FleetChange::Olt(Box::new(OltUpdate {
        olt: state.summary.id,
        incarnation: state.incarnation,
        snapshot: true,
        summary: state.summary.clone(),
        ports: Some(state.ports.clone()),
        vlans: Some(state.vlans.clone()),
        polled_at: state.polled_at,
        table: std::sync::Arc::new(state.onus.clone()),
        onus: diff_onus(&[], None, &state.onus, state.polled_at),
    }))
}

fn delta(old: &ActorState, new: &ActorState) -> FleetChange {
    FleetChange::Olt(Box::new(OltUpdate {
        olt: new.summary.id,
        incarnation: new.incarnation,
        snapshot: false,
        summary: new.summary.clone(),
        ports: (old.ports != new.ports).then(|| new.ports.clone()),
        vlans: (old.vlans != new.vlans).then(|| new.vlans.clone()),
        polled_at: new.polled_at,
        table: std::sync::Arc::new(new.onus.clone()),
        onus: diff_onus(&old.onus, old.polled_at, &new.onus, new.polled_at),
    }))
}

/// The fan-out: every actor's table queried on its own, the pages merged.
fn fan_out(
    actors: &BTreeMap<OltId, ActorState>,
    search: &OnuSearch,
    order: OnuOrder,
    window: Window,
) -> Page<Onu> {
    let query = OnuQuery {
        filter: OnuFilter {
            status: search.status,
            pon_port: search.pon_port.clone(),
            serial: search.serial.clone(),
            text: search.text.clone(),
            level: search.level,
        },
        order,
        limit: window.offset + window.limit,
        thresholds: THRESHOLDS,
    };
    let (mut total, mut merged) = (0, Vec::new());
    for state in actors.values() {
        let in_scope = search.olt_id.is_none_or(|id| id == state.summary.id)
            && search.node_id.is_none_or(|n| state.summary.node == Some(n));
        if in_scope {
            let page = OnuTable::new(state.onus.clone()).query(&query);
            total += page.total;
            merged.extend(page.onus);
        }
    }
    merged.sort_by(|a, b| order.compare(a, b));
    Page {
        total,
        items: merged
            .into_iter()
            .skip(window.offset)
            .take(window.limit)
            .collect(),
    }
}

fn random_search(rng: &mut StdRng) -> OnuSearch {
    let texts = ["иван", "hwtc000", "le", "SCHOOL 1", "kv", "hwtc0007", "zzz"];
    let levels = OpticsLevel::ALL;
    OnuSearch {
        olt_id: rng.random_bool(0.2).then(|| rng.random_range(1..5)),
        node_id: rng.random_bool(0.2).then(|| rng.random_range(1..3)),
        status: rng.random_bool(0.3).then(|| {
            if rng.random_bool(0.5) {
                OnuStatus::Online
            } else {
                OnuStatus::Offline
            }
        }),
        pon_port: rng
            .random_bool(0.2)
            .then(|| PORTS[rng.random_range(0..3)].to_uppercase()),
        serial: rng
            .random_bool(0.15)
            .then(|| format!("hwtc{:04x}", rng.random_range(0..24u32))),
        text: rng
            .random_bool(0.3)
            .then(|| texts[rng.random_range(0..texts.len())].to_string()),
        level: rng
            .random_bool(0.3)
            .then(|| levels[rng.random_range(0..levels.len())]),
        ..OnuSearch::default()
    }
}

fn assert_agrees(view: &FleetAggregate, actors: &BTreeMap<OltId, ActorState>, rng: &mut StdRng) {
    let summaries: Vec<OltSummary> = actors.values().map(|s| s.summary.clone()).collect();
    assert_eq!(view.summaries(None), summaries);
    for node in 1..3 {
        let mine: Vec<&OltSummary> = summaries.iter().filter(|s| s.node == Some(node)).collect();
        let expected = NodeCounters {
            olt_count: mine.len() as u32,
            onu_total: mine.iter().map(|s| u64::from(s.total_onu)).sum(),
            onu_online: mine.iter().map(|s| u64::from(s.onu_online)).sum(),
        };
        assert_eq!(view.node_counters(&[node]), vec![expected]);
    }
    let status = Some(SessionStatus::Online);
    let filter = OltFilter {
        status,
        ..OltFilter::default()
    };
    let online: Vec<OltSummary> = summaries
        .iter()
        .filter(|s| s.status == SessionStatus::Online)
        .cloned()
        .collect();
    let window = Window {
        offset: 1,
        limit: 2,
    };
    assert_eq!(
        view.olts(&filter, window),
        Page {
            total: online.len(),
            items: online.into_iter().skip(1).take(2).collect()
        }
    );
    // The layout filter ignores case and matches no OLT whose layout is not known yet.
    let filter = OltFilter {
        family: Some("gp3600".into()),
        ..OltFilter::default()
    };
    let gp3600: Vec<OltSummary> = summaries
        .iter()
        .filter(|s| s.family == Some("GP3600"))
        .cloned()
        .collect();
    assert_eq!(
        view.olts(
            &filter,
            Window {
                offset: 0,
                limit: usize::MAX
            }
        )
        .items,
        gp3600,
        "family=gp3600"
    );
    let vlans: Vec<FleetVlan> = actors
        .values()
        .flat_map(|s| {
            s.vlans.iter().map(|(id, name)| FleetVlan {
                olt_id: s.summary.id,
                vlan_id: *id,
                name: name.clone(),
                onu_count: s.onus.iter().filter(|o| o.vlan == Some(*id)).count() as u32,
            })
        })
        .collect();
    assert_eq!(view.vlans(&OnuSearch::default(), None), vlans);
    for _ in 0..12 {
        let search = random_search(rng);
        let order = if rng.random_bool(0.5) {
            OnuOrder::Id
        } else {
            OnuOrder::WorstRx
        };
        let window = Window {
            offset: rng.random_range(0..4),
            limit: rng.random_range(1..400),
        };
        assert_eq!(
            view.onus(&search, order, window),
            fan_out(actors, &search, order, window),
            "{search:?} {order:?} {window:?}"
        );
    }
}

/// Runs `steps` random steps from `seed`, checking the view after each.
fn run(seed: u64, steps: u32) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut view = FleetAggregate::new(THRESHOLDS);
    let mut actors: BTreeMap<OltId, ActorState> = BTreeMap::new();
    let mut incarnation = 0;
    let mut next_id: OnuId = 0;
    let mut late: Vec<FleetChange> = Vec::new();
    for step in 1..=steps {
        let olt: OltId = rng.random_range(1..5);
        match (actors.get(&olt).cloned(), rng.random_range(0..10)) {
            (None, _) | (Some(_), 0) => {
                // The actor starts (or restarts after a crash) and publishes its snapshot.
                incarnation += 1;
                let onus: Vec<Onu> = (0..rng.random_range(0..12))
                    .map(|_| {
                        next_id += 1;
                        random_onu(&mut rng, olt, next_id, time(step))
                    })
                    .collect();
                let node = (olt % 3 != 0).then_some(1 + olt % 2);
                let state = ActorState {
                    incarnation,
                    summary: summary_of(olt, node, SessionStatus::Connecting, &onus),
                    ports: vec![PonPortStats {
                        name: PORTS[0].into(),
                        onu_total: onus.len() as u32,
                        onu_online: 0,
                    }],
                    vlans: vec![(100, "internet".into())],
                    polled_at: rng.random_bool(0.5).then_some(time(step)),
                    onus,
                };
                view.apply(snapshot(&state));
                actors.insert(olt, state);
            }
            (Some(old), 1) => {
                // Removed from the inventory; a late delta of the removed actor follows.
                view.apply(FleetChange::Removed {
                    olt,
                    incarnation: old.incarnation,
                });
                late.push(delta(&old, &evolve(&mut rng, &old, step, &mut next_id)));
                actors.remove(&olt);
            }
            (Some(old), _) => {
                let new = evolve(&mut rng, &old, step, &mut next_id);
                let change = delta(&old, &new);
                if rng.random_bool(0.1) {
                    late.push(change.clone());
                }
                view.apply(change);
                actors.insert(olt, new);
            }
        }
        // Messages of replaced or removed actors arrive late and must change nothing.
        if rng.random_bool(0.2) {
            if let Some(change) = late.pop() {
                let replaced = match &change {
                    FleetChange::Olt(u) => actors
                        .get(&u.olt)
                        .is_none_or(|s| s.incarnation != u.incarnation),
                    FleetChange::Removed { .. }
                    | FleetChange::ConfigStored { .. }
                    | FleetChange::Discovered { .. }
                    | FleetChange::MacsMoved { .. }
                    | FleetChange::PortSaturation { .. } => true,
                };
                if replaced {
                    assert!(!view.apply(change), "a late message was applied");
                }
            }
        }
        assert_agrees(&view, &actors, &mut rng);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn any_sequence_of_changes_answers_as_the_fan_out(seed in any::<u64>(), steps in 1u32..40) {
        run(seed, steps);
    }
}

#[test]
fn a_long_run_agrees_too() {
    run(20261123, 400);
}
