//! The outage book against a real fleet aggregate and a real sled archive, fed the drafts
//! event derivation makes (the helpers of `events/tests.rs`: OLT 7, six ONUs on 0/1/0
//! and two on 0/1/1): a port-wide LOS is one `PON_OUTAGE`, a splitter's is one
//! `SPLITTER_OUTAGE` (at the first-level splitter only when two of its branches are
//! dark), a dying-gasp group a `POWER_OUTAGE`, an OLT offline an `OLT_OUTAGE`; later
//! downs join, and each ends with `OUTAGE_CLEARED`, kept across a reopen.

use super::*;
use crate::domain::{DownCause, Onu, OnuStatus, SessionStatus, Subscriber};
use crate::events::tests::{a_view, down, time, update};
use crate::events::{derive, Draft, EventType};
use crate::fleet_view::FleetAggregate;

/// Applies `onus` as one poll of OLT 7 at `second` and answers the book's batch.
fn poll(
    book: &mut OutageBook,
    view: &mut FleetAggregate,
    plant: &Plant,
    second: i64,
    status: SessionStatus,
    onus: Vec<Onu>,
) -> Vec<Draft> {
    let change = update(view, false, status, time(second), onus);
    let drafts = derive(view, &change);
    assert!(view.apply(change));
    book.observe(Some(7), drafts, view, plant, time(second))
}

fn kinds(drafts: &[Draft]) -> Vec<(EventType, Option<u64>)> {
    drafts
        .iter()
        .map(|d| (d.event.kind, d.event.onu_id))
        .collect()
}

fn splitter(id: SplitterId, name: &str, parent: Option<SplitterId>) -> Splitter {
    Splitter {
        id,
        name: name.into(),
        olt_id: 7,
        pon_port: "0/1/0".into(),
        parent_id: parent,
        address: None,
        lat: None,
        lon: None,
        declared: false,
    }
}

/// The first `n` of `onus`, down with `cause` a minute in.
fn first(onus: &[Onu], n: usize, cause: DownCause) -> Vec<Onu> {
    onus[..n]
        .iter()
        .map(|o| down(o.clone(), cause, time(60)))
        .collect()
}

fn back(mut onu: Onu) -> Onu {
    onu.status = OnuStatus::Online;
    onu.last_down_cause = None;
    onu
}

#[test]
fn a_port_wide_los_is_one_pon_outage_its_downs_point_at_it_and_it_clears() {
    let (mut view, onus) = a_view();
    view.bind(
        2,
        Some(Subscriber {
            contract: Some("Д-2024/117".into()),
            ..Subscriber::default()
        }),
    );
    let mut book = OutageBook::new(OutageRules::default(), None, Vec::new());
    let plant = Plant::default();
    let downs = first(&onus, 5, DownCause::Los);
    let batch = poll(
        &mut book,
        &mut view,
        &plant,
        60,
        SessionStatus::Online,
        downs,
    );
    let mut expected = vec![(EventType::PonOutage, None)];
    expected.extend((1..=5).map(|id| (EventType::OnuDown, Some(id))));
    assert_eq!(kinds(&batch), expected);
    let outage = &book.list(&OutageFilter::default())[0];
    assert_eq!(outage.kind, OutageKind::PonOutage);
    assert_eq!(outage.onu_ids, vec![1, 2, 3, 4, 5]);
    assert_eq!(outage.contracts, vec!["Д-2024/117".to_string()]);
    assert_eq!(outage.cause, "feeder fibre of PON port 0/1/0");
    assert_eq!(batch[0].event.data["onusDown"], 5);
    assert_eq!(batch[0].event.data["onusOnPort"], 6);
    assert!(batch[1..]
        .iter()
        .all(|d| d.event.data["outageId"] == outage.id));
    // The sixth ONU of the port drops a minute later: it joins, no second outage.
    let sixth = down(onus[5].clone(), DownCause::Los, time(120));
    let batch = poll(
        &mut book,
        &mut view,
        &plant,
        120,
        SessionStatus::Online,
        vec![sixth],
    );
    assert_eq!(kinds(&batch), vec![(EventType::OnuDown, Some(6))]);
    assert_eq!(batch[0].event.data["outageId"], outage.id);
    assert_eq!(book.list(&OutageFilter::default())[0].onu_ids.len(), 6);
    // Light again on all but two: fewer dark than the port minimum ends it.
    let lit: Vec<Onu> = onus[..4].iter().map(|o| back(o.clone())).collect();
    let batch = poll(
        &mut book,
        &mut view,
        &plant,
        300,
        SessionStatus::Online,
        lit,
    );
    assert_eq!(
        batch.last().map(|d| d.event.kind),
        Some(EventType::OutageCleared)
    );
    let active = OutageFilter {
        active: Some(true),
        ..OutageFilter::default()
    };
    assert!(book.list(&active).is_empty());
}

#[test]
fn too_few_or_too_far_apart_downs_stay_single_onu_downs() {
    let (mut view, onus) = a_view();
    let mut book = OutageBook::new(OutageRules::default(), None, Vec::new());
    let plant = Plant::default();
    let two = vec![
        down(onus[0].clone(), DownCause::Los, time(60)),
        down(onus[1].clone(), DownCause::Los, time(60)),
    ];
    let batch = poll(&mut book, &mut view, &plant, 60, SessionStatus::Online, two);
    assert_eq!(batch.len(), 2);
    // Two more, ten minutes later: outside the window, not one fault with the first two.
    let later = vec![
        down(onus[2].clone(), DownCause::Los, time(660)),
        down(onus[3].clone(), DownCause::Los, time(660)),
    ];
    let batch = poll(
        &mut book,
        &mut view,
        &plant,
        660,
        SessionStatus::Online,
        later,
    );
    assert!(batch.iter().all(|d| d.event.kind == EventType::OnuDown));
    assert!(book.list(&OutageFilter::default()).is_empty());
}

#[test]
fn a_splitters_los_is_a_splitter_outage_and_two_dark_branches_put_it_upstream() {
    let (mut view, onus) = a_view();
    let mut plant = Plant::default();
    plant.apply(PlantChange::Splitters(vec![
        splitter(1, "ODB-1", None),
        splitter(2, "ODB-1.1", Some(1)),
        splitter(3, "ODB-1.2", Some(1)),
    ]));
    plant.apply(PlantChange::Place(vec![
        (1, Some(2)),
        (2, Some(2)),
        (3, Some(2)),
        (4, Some(3)),
        (5, Some(3)),
    ]));
    let rules = OutageRules::default();
    let mut book = OutageBook::new(rules, None, Vec::new());
    // ODB-1.1's three ONUs dark, ODB-1.2's lit: the fault is at ODB-1.1.
    let downs = first(&onus, 3, DownCause::Los);
    let batch = poll(
        &mut book,
        &mut view,
        &plant,
        60,
        SessionStatus::Online,
        downs,
    );
    assert_eq!(batch[0].event.kind, EventType::SplitterOutage);
    let outage = book.list(&OutageFilter::default())[0].clone();
    assert_eq!(
        (outage.splitter_id, outage.onu_ids.clone()),
        (Some(2), vec![1, 2, 3])
    );
    assert_eq!(outage.cause, "fibre at splitter ODB-1.1");
    // A fresh book, and both branches dark (4 of 6 on the port is a PON outage, so the
    // port minimum is raised): the fault is upstream, at ODB-1.
    let (mut view, onus) = a_view();
    let rules = OutageRules {
        port_min: 6,
        ..rules
    };
    let mut book = OutageBook::new(rules, None, Vec::new());
    let downs = first(&onus, 5, DownCause::Los);
    poll(
        &mut book,
        &mut view,
        &plant,
        60,
        SessionStatus::Online,
        downs,
    );
    let outages = book.list(&OutageFilter::default());
    assert_eq!(outages.len(), 1, "{outages:?}");
    assert_eq!(outages[0].splitter_id, Some(1));
    assert_eq!(outages[0].onu_ids, vec![1, 2, 3, 4, 5]);
}

#[test]
fn a_dying_gasp_group_is_a_power_outage_by_address_and_an_offline_olt_an_olt_outage() {
    let (mut view, onus) = a_view();
    for id in 1..=3 {
        view.bind(
            id,
            Some(Subscriber {
                address: Some("ул. Ленина, 5".into()),
                contract: Some(format!("D-{id}")),
                ..Subscriber::default()
            }),
        );
    }
    let mut book = OutageBook::new(OutageRules::default(), None, Vec::new());
    let plant = Plant::default();
    let gasps = first(&onus, 3, DownCause::DyingGasp);
    let batch = poll(
        &mut book,
        &mut view,
        &plant,
        60,
        SessionStatus::Online,
        gasps,
    );
    assert_eq!(batch[0].event.kind, EventType::PowerOutage);
    let outage = book.list(&OutageFilter::default())[0].clone();
    assert_eq!(outage.address.as_deref(), Some("ул. Ленина, 5"));
    assert_eq!(outage.contracts, vec!["D-1", "D-2", "D-3"]);
    // The OLT stops answering: every ONU it holds is in an OLT_OUTAGE, until it is back.
    let batch = poll(
        &mut book,
        &mut view,
        &plant,
        120,
        SessionStatus::Offline,
        Vec::new(),
    );
    assert_eq!(kinds(&batch).last(), Some(&(EventType::OltOutage, None)));
    let olt = OutageFilter {
        kind: Some(OutageKind::OltOutage),
        ..OutageFilter::default()
    };
    assert_eq!(book.list(&olt)[0].onu_ids.len(), 8);
    let batch = poll(
        &mut book,
        &mut view,
        &plant,
        180,
        SessionStatus::Online,
        Vec::new(),
    );
    assert!(batch
        .iter()
        .any(|d| d.event.kind == EventType::OutageCleared));
    assert!(book.list(&olt)[0].ended_at.is_some());
}

#[test]
fn the_archive_keeps_outages_across_a_reopen_and_drops_the_expired() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = crate::store::Store::open(dir.path()).expect("store");
    let archive = OutageArchive::open(&store).expect("archive");
    let (mut view, onus) = a_view();
    let mut book = OutageBook::new(OutageRules::default(), Some(archive.clone()), Vec::new());
    let downs = first(&onus, 5, DownCause::Los);
    let plant = Plant::default();
    poll(
        &mut book,
        &mut view,
        &plant,
        60,
        SessionStatus::Online,
        downs,
    );
    let kept = archive.load(time(0)).expect("load");
    assert_eq!(kept.len(), 1);
    assert!(kept[0].is_active());
    let reopened = OutageBook::new(OutageRules::default(), Some(archive.clone()), kept);
    assert_eq!(reopened.list(&OutageFilter::default())[0].onu_ids.len(), 5);
    // An ended outage older than the retention is dropped at load.
    let mut ended = reopened.list(&OutageFilter::default())[0].clone();
    ended.ended_at = Some(time(120));
    archive.save(&ended).expect("save");
    assert!(archive.load(time(121)).expect("load").is_empty());
}
