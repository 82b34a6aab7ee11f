//! Three real `ponkeeper serve` members on loopback over one simulated fleet of 30 OLTs,
//! every member with the same inventory (docs/scale-out.md):
//!
//! - each OLT is polled by exactly one member, as the simulator sees it (it counts each
//!   OLT's requests by the process that owns their source socket);
//! - `GET /olts`, `/onus`, `/onus?q=`, `/optics` and `/nodes` on each member hold the whole
//!   fleet, paged exactly; a question or an action about any OLT or ONU is answered
//!   through any member;
//! - `kill -9` of a member: the others poll its OLTs within `takeover_after` and a few
//!   heartbeats, and every read is whole again; started again, it gets its OLTs back and
//!   each OLT is again polled by one member;
//! - `SIGSTOP` of a member: the other two keep acting; the stopped one, resumed alone with
//!   its peers gone, refuses actions with 503 `NO_QUORUM`;
//! - `kill -9` of two members, one after the other, with `takeover_after` long: two of
//!   three still act and write; the last one refuses actions and writes (splitters, a
//!   placement import) with 503 `NO_QUORUM` a few heartbeats after the second kill, long
//!   before its peers' OLTs would move, and `GET /cluster` says it has no quorum.

use crate::common;

use crate::cluster_members::{
    member_ports, settled, start_three, start_three_taking_over_after, until, until_within,
    Authority, Member, NAMES, OLTS, ONE_AT_A_TIME, ONUS_PER_OLT,
};
use ponkeeper_actors::domain::{OltId, OnuStatus};
use ponkeeper_sim::SimFleet;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

/// Counts requests by process afresh and waits until every OLT has been polled since;
/// then each OLT's pollers, by pid.
async fn pollers(sim: &SimFleet, members: &[&Member]) -> BTreeMap<OltId, BTreeSet<u32>> {
    sim.count_sources(members.iter().map(|m| m.pid()).collect());
    sim.reset_sources();
    // Two whole poll intervals after every OLT was seen: a second poller would show.
    until("every OLT polled since the count began", || async {
        let seen = sim.requests_by_source();
        if seen.len() == OLTS {
            Ok(())
        } else {
            Err(format!("{} of {OLTS} OLTs polled", seen.len()))
        }
    })
    .await;
    sim.reset_sources();
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let counts = until("every OLT polled again", || async {
        let seen = sim.requests_by_source();
        if seen.len() == OLTS {
            Ok(seen)
        } else {
            Err(format!("{} of {OLTS} OLTs polled", seen.len()))
        }
    })
    .await;
    counts
        .into_iter()
        .map(|(olt, by)| (olt, by.into_keys().collect()))
        .collect()
}

/// Each OLT has one poller, one of `members`. A request the simulator read only after
/// its sender had closed the socket (a poll that timed out) cannot be attributed; it
/// counts under pid 0 and is left out here.
fn one_poller_each(pollers: &BTreeMap<OltId, BTreeSet<u32>>, members: &[&Member]) {
    let pids: BTreeSet<u32> = members.iter().map(|m| m.pid()).collect();
    for (olt, by) in pollers {
        let by: BTreeSet<u32> = by.iter().copied().filter(|pid| *pid != 0).collect();
        assert_eq!(by.len(), 1, "OLT {olt} is polled by {by:?}");
        assert!(
            by.is_subset(&pids),
            "OLT {olt} is polled by {by:?}, not a member of {pids:?}"
        );
    }
}

/// `(OLTs, ONUs, ONUs online)` of the simulated OLTs in `olts`.
fn totals(sim: &SimFleet, olts: impl Iterator<Item = OltId>) -> (u64, u64, u64) {
    let olts: Vec<OltId> = olts.collect();
    let onus: Vec<_> = olts
        .iter()
        .flat_map(|olt| sim.expected_onus(*olt))
        .collect();
    let online = onus
        .iter()
        .filter(|o| o.status == OnuStatus::Online)
        .count();
    (olts.len() as u64, onus.len() as u64, online as u64)
}

/// Every fleet-wide read through `member` holds the whole fleet.
async fn reads_are_whole(sim: &SimFleet, member: &Member) {
    let (olts, onus, _) = totals(sim, 1..=OLTS as OltId);
    // `GET /nodes` counts the OLTs that belong to a node.
    let noded = sim
        .inventory()
        .olts
        .iter()
        .filter(|o| o.node.is_some())
        .map(|o| o.id)
        .collect::<Vec<_>>();
    let in_nodes = totals(sim, noded.into_iter());
    until(
        &format!("{} answers for the whole fleet", member.name),
        || async {
            let (ids, total) = member.page("/olts?size=100", "id").await;
            let all: Vec<u64> = (1..=olts).collect();
            if ids != all || total != olts {
                return Err(format!("/olts: {total} OLTs, {ids:?}"));
            }
            let (ids, total) = member.page("/olts?page=1&size=7", "id").await;
            if ids != (8..=14).collect::<Vec<u64>>() || total != olts {
                return Err(format!("/olts page 1 of 7: {ids:?} of {total}"));
            }
            let (ids, total) = member.page("/onus?size=500", "id").await;
            let distinct: BTreeSet<u64> = ids.iter().copied().collect();
            let sorted = ids.windows(2).all(|w| w[0] < w[1]);
            if total != onus || distinct.len() as u64 != onus || !sorted {
                return Err(format!(
                    "/onus: {total} in all, {} distinct, sorted {sorted}",
                    distinct.len()
                ));
            }
            let (worst, total) = member.page("/optics?size=500", "onuId").await;
            if total != onus || worst.len() as u64 != onus {
                return Err(format!("/optics: {} of {total}", worst.len()));
            }
            let nodes = member.get("/nodes?size=100").await;
            let sum = |f: &str| {
                nodes["data"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|n| n[f].as_u64())
                    .sum::<u64>()
            };
            let counted = (sum("oltCount"), sum("onuTotal"), sum("onuOnline"));
            if counted != in_nodes {
                return Err(format!("/nodes: {counted:?} instead of {in_nodes:?}"));
            }
            Ok(())
        },
    )
    .await;
}

/// Every OLT, and an ONU found by its serial, through `member`.
async fn single_reads_go_to_the_owner(sim: &SimFleet, member: &Member) {
    for olt in 1..=OLTS as OltId {
        let body = member.get(&format!("/olts/{olt}")).await;
        assert_eq!(
            body["data"]["id"].as_u64(),
            Some(u64::from(olt)),
            "GET /olts/{olt} through {}",
            member.name
        );
    }
    let serial = sim.expected_onus(OLTS as OltId)[0].serial.clone();
    let found = member.get(&format!("/onus?q={serial}")).await;
    let items = found["data"].as_array().cloned().unwrap_or_default();
    assert_eq!(
        items.len(),
        1,
        "/onus?q={serial} through {}: {found}",
        member.name
    );
    let id = items[0]["id"].as_u64().expect("an ONU id");
    let onu = member.get(&format!("/onus/{id}")).await;
    assert_eq!(
        onu["data"]["serial"].as_str(),
        Some(serial.as_str()),
        "GET /onus/{id} through {}",
        member.name
    );
}

/// Every ONU's id by serial, as `member` lists them.
async fn ids_by_serial(member: &Member) -> BTreeMap<String, u64> {
    let body = member.get("/onus?size=500").await;
    body["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| Some((o["serial"].as_str()?.to_string(), o["id"].as_u64()?)))
        .collect()
}

/// Waits until `member` holds the ids of every ONU the other members allocated.
async fn ids_copied(member: &Member) {
    until(
        &format!("{} copies the others' ONU ids", member.name),
        || async {
            let own = member.members().await.get(member.name).map_or(0, |m| m.3);
            let wanted = (OLTS as u64 - own) * ONUS_PER_OLT as u64;
            let text = member.text("/metrics").await;
            let copied = text
                .lines()
                .find_map(|l| l.strip_prefix("ponkeeper_cluster_onu_ids_copied_total "))
                .and_then(|v| v.trim().parse::<u64>().ok())
                .unwrap_or(0);
            if copied == wanted {
                Ok(())
            } else {
                Err(format!("{copied} of {wanted}"))
            }
        },
    )
    .await;
}

/// When each optics point of ONU `id` was taken, as `member` reads its whole history (the
/// default period, the last day, holds the test; a period from before the raw points kept
/// would be answered from rollups).
async fn history_times(member: &Member, id: u64) -> Vec<chrono::NaiveDateTime> {
    let body = member
        .get(&format!("/onus/{id}/optics/history?limit=5000"))
        .await;
    body["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["measuredAt"].as_str())
        .filter_map(|t| chrono::NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S").ok())
        .collect()
}

/// The longest time between two points in a row.
fn largest_gap(times: &[chrono::NaiveDateTime]) -> chrono::Duration {
    times
        .windows(2)
        .map(|w| w[1] - w[0])
        .max()
        .unwrap_or_else(chrono::Duration::zero)
}

/// An ONU on an OLT the hash gives to charlie, by its id among `ids` (serial → id).
fn charlies_onu(sim: &SimFleet, ids: &BTreeMap<String, u64>) -> u64 {
    let olt = (1..=OLTS as OltId)
        .find(|olt| ponkeeper::cluster::ownership::owner(NAMES, *olt) == Some("charlie"))
        .expect("charlie owns an OLT");
    ids[sim.expected_onus(olt)[0].serial.as_str()]
}

#[tokio::test(flavor = "multi_thread")]
async fn three_members_share_the_fleet_answer_for_all_of_it_and_take_over_a_lost_one() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let sim = common::steady_sim(OLTS, ONUS_PER_OLT).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let mut members = start_three(&sim.inventory(), dir.path()).await;
    let all: Vec<&Member> = members.iter().collect();
    settled(&all).await;
    one_poller_each(&pollers(&sim, &all).await, &all);
    for member in &members {
        reads_are_whole(&sim, member).await;
    }
    single_reads_go_to_the_owner(&sim, &members[0]).await;
    // The event log through any member holds every member's events, each named.
    for member in &members {
        let events = member.get("/events?size=500").await;
        let recorders: BTreeSet<&str> = events["data"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| e["member"].as_str())
            .collect();
        assert_eq!(
            recorders,
            BTreeSet::from(NAMES),
            "/events through {}",
            member.name
        );
    }
    let ids = ids_by_serial(&members[0]).await;
    assert_eq!(ids.len(), OLTS * ONUS_PER_OLT);
    ids_copied(&members[0]).await;
    ids_copied(&members[1]).await;

    // Lost: kill -9 charlie; alpha and bravo poll its OLTs and answer for all of them.
    let lost_at = Instant::now();
    let lost_utc = chrono::Utc::now().naive_utc();
    members[2].child.kill().await.expect("kill");
    let survivors: Vec<&Member> = members[..2].iter().collect();
    let by = until("alpha and bravo poll every OLT", || async {
        let seen = survivors[0].members().await;
        let olts: u64 = ["alpha", "bravo"]
            .iter()
            .filter_map(|n| seen.get(*n))
            .map(|m| m.3)
            .sum();
        if olts == OLTS as u64 {
            Ok(lost_at.elapsed())
        } else {
            Err(format!("{seen:?}"))
        }
    })
    .await;
    eprintln!("takeover: every OLT run by the two survivors {by:?} after the kill");
    one_poller_each(&pollers(&sim, &survivors).await, &survivors);
    reads_are_whole(&sim, &members[0]).await;
    reads_are_whole(&sim, &members[1]).await;
    assert_eq!(
        ids_by_serial(&members[1]).await,
        ids,
        "ONU ids kept across the takeover"
    );

    // Back, fifteen seconds after the kill: charlie gets its OLTs back once it has polled
    // them; one poller each again.
    tokio::time::sleep_until((lost_at + Duration::from_secs(15)).into()).await;
    let back_utc = chrono::Utc::now().naive_utc();
    let charlie = &mut members[2];
    charlie.child = Member::spawn(&charlie.dir);
    let all: Vec<&Member> = members.iter().collect();
    settled(&all).await;
    let charlie = members[2].members().await;
    assert!(
        charlie.get("charlie").is_some_and(|s| s.3 > 0),
        "charlie runs OLTs again: {charlie:?}"
    );
    one_poller_each(&pollers(&sim, &all).await, &all);
    reads_are_whole(&sim, &members[2]).await;
    assert_eq!(
        ids_by_serial(&members[2]).await,
        ids,
        "ONU ids kept across the hand-back"
    );

    // One of charlie's ONUs has one history through every member: before the kill, while
    // alpha or bravo held its OLT, and after charlie took it back, with no gap between.
    let onu = charlies_onu(&sim, &ids);
    let times = history_times(&members[2], onu).await;
    let (first, last) = (times.first().copied(), times.last().copied());
    assert!(
        first.is_some_and(|t| t < lost_utc),
        "points before the kill: {first:?}"
    );
    assert!(
        last.is_some_and(|t| t > back_utc),
        "points after the return: {last:?}"
    );
    let gap = largest_gap(&times);
    assert!(
        gap < chrono::Duration::seconds(8),
        "a {gap} gap in {} points",
        times.len()
    );
    for member in &members[..2] {
        let through = history_times(member, onu).await;
        assert_eq!(
            through.first().copied(),
            first,
            "the history through {}",
            member.name
        );
        assert!(
            largest_gap(&through) < chrono::Duration::seconds(8),
            "through {}",
            member.name
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_member_without_a_majority_in_sight_refuses_actions() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let sim = common::steady_sim(OLTS, 2).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let mut members = start_three(&sim.inventory(), dir.path()).await;
    settled(&members.iter().collect::<Vec<_>>()).await;

    // Charlie stopped: alpha and bravo, two of three, still act on every OLT.
    members[2].signal("-STOP");
    // Past `takeover_after` (1.5 s) and a few heartbeats: charlie's OLTs have new owners.
    tokio::time::sleep(Duration::from_secs(3)).await;
    for olt in [1, 2, 3, OLTS] {
        let (status, body) = members[0]
            .request(reqwest::Method::POST, &format!("/olts/{olt}/poll"))
            .await;
        assert!(
            (200..300).contains(&status),
            "POST /olts/{olt}/poll through alpha: {status} {body}"
        );
    }
    // The audit log through bravo holds each of those actions once, as alpha logged them.
    let audit = members[1].get("/audit-logs?size=500").await;
    let polls: Vec<String> = audit["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["path"].as_str())
        .filter(|p| p.ends_with("/poll"))
        .map(String::from)
        .collect();
    assert_eq!(polls.len(), 4, "{polls:?}");
    assert!(
        polls.contains(&format!("/api/v1/external/olts/{OLTS}/poll")),
        "{polls:?}"
    );

    // Alpha and bravo gone, charlie resumed alone: no majority, no action.
    members[0].child.kill().await.expect("kill");
    members[1].child.kill().await.expect("kill");
    members[2].signal("-CONT");
    let (status, body) = until("charlie answers again", || async {
        match members[2]
            .request(reqwest::Method::POST, "/olts/1/poll")
            .await
        {
            (0, _) => Err("no answer".to_string()),
            answer => Ok(answer),
        }
    })
    .await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"]["code"], "NO_QUORUM", "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("alpha") && message.contains("bravo"),
        "{message}"
    );
    // Reads go on.
    let (status, _) = members[2]
        .request(reqwest::Method::GET, "/olts?size=5")
        .await;
    assert_eq!(status, 200);
}

/// The writes of the quorum test through `member`: an action on `olt`, a new splitter
/// `name` on `olt`'s port `port`, and `csv` imported as placements.
async fn write(
    member: &Member,
    olt: OltId,
    (name, port): (&str, &str),
    csv: &str,
) -> [(u16, Value); 3] {
    let poll = member
        .request(reqwest::Method::POST, &format!("/olts/{olt}/poll"))
        .await;
    let splitter = json!({"name": name, "oltId": olt, "ponPort": port}).to_string();
    let splitter = member
        .post("/splitters", ("application/json", splitter))
        .await;
    let import = member
        .post("/placements/import", ("text/csv", csv.to_string()))
        .await;
    [poll, splitter, import]
}

#[tokio::test(flavor = "multi_thread")]
async fn the_quorum_is_the_peers_heard_now_and_every_write_needs_it() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let sim = common::steady_sim(OLTS, 2).await;
    let dir = tempfile::tempdir().expect("tempdir");
    // A silent member's OLTs move only after two minutes; the quorum must not wait that.
    let mut members = start_three_taking_over_after(&sim.inventory(), dir.path(), "120s").await;
    settled(&members.iter().collect::<Vec<_>>()).await;
    let olt = (1..=OLTS as OltId)
        .find(|olt| ponkeeper::cluster::ownership::owner(NAMES, *olt) == Some("alpha"))
        .expect("alpha owns an OLT");
    let onu = sim.expected_onus(olt).remove(0);

    // Charlie killed: alpha still hears bravo, two of three, past the quorum's window.
    members[2].child.kill().await.expect("kill");
    tokio::time::sleep(Duration::from_secs(3)).await;
    // The ONU placed under the splitter just made, by its name.
    let csv = format!("onu,splitter\n{},ODB-1\n", onu.serial);
    let [poll, created, import] = write(&members[0], olt, ("ODB-1", &onu.pon_port), &csv).await;
    assert!(
        (200..300).contains(&poll.0),
        "an action, two of three: {poll:?}"
    );
    assert_eq!(created.0, 200, "a splitter, two of three: {created:?}");
    assert_eq!(
        (import.0, &import.1["data"]["applied"]),
        (200, &json!(1)),
        "an import, two of three: {import:?}"
    );
    assert_eq!(members[0].get("/cluster").await["data"]["quorum"], true);

    // Bravo killed too: alpha alone of three refuses every write within a few
    // heartbeats, though `takeover_after` is far off. Waited for up to 15 s.
    let killed = Instant::now();
    members[1].child.kill().await.expect("kill");
    let refused = until_within(
        Duration::from_secs(15),
        "alpha, alone, refuses an action",
        || async {
            let answer = members[0]
                .request(reqwest::Method::POST, &format!("/olts/{olt}/poll"))
                .await;
            match answer {
                (503, body) => Ok(body),
                other => Err(format!("{other:?}")),
            }
        },
        String::new,
    )
    .await;
    eprintln!("NO_QUORUM {:?} after the second kill", killed.elapsed());
    let [_, splitter, import] = write(&members[0], olt, ("ODB-2", &onu.pon_port), &csv).await;
    for (what, (status, body)) in [
        ("an action", (503, refused)),
        ("POST /splitters", splitter),
        ("POST /placements/import", import),
    ] {
        assert_eq!(
            (status, &body["error"]["code"]),
            (503, &json!("NO_QUORUM")),
            "{what}: {body}"
        );
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("bravo") && message.contains("charlie"),
            "{what} names the unseen members: {message}"
        );
    }
    let cluster = members[0].get("/cluster").await;
    assert_eq!(cluster["data"]["quorum"], false, "{cluster}");
    // Reads go on, and nothing was written.
    let listed = members[0].get(&format!("/splitters?oltId={olt}")).await;
    assert_eq!(listed["meta"]["totalCount"], 1, "{listed}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_member_of_another_ca_and_garbage_on_the_cluster_port_are_refused() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let sim = common::steady_sim(OLTS, 1).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let inventory = sim.inventory();
    let ports = member_ports();
    let (ours, theirs) = (Authority::new(), Authority::new());
    let alpha = Member::start(dir.path(), "alpha", &inventory, &ports, (&ours, None)).await;
    let bravo = Member::start(dir.path(), "bravo", &inventory, &ports, (&ours, None)).await;
    let mut charlie =
        Member::start(dir.path(), "charlie", &inventory, &ports, (&theirs, None)).await;

    // Raw garbage on alpha's cluster port, once it listens: no TLS session, nothing else
    // harmed.
    let mut garbage = until("alpha's cluster port listens", || async {
        tokio::net::TcpStream::connect(("127.0.0.1", ports[0].1))
            .await
            .map_err(|e| e.to_string())
    })
    .await;
    tokio::io::AsyncWriteExt::write_all(&mut garbage, &[0x16, 0x03, 0x01, 0xff, 0xff, 0xde, 0xad])
        .await
        .expect("garbage sent");

    // Alpha and bravo link and share the fleet between them; charlie links to neither.
    settled(&[&alpha, &bravo]).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    for member in [&alpha, &bravo] {
        let seen = member.members().await;
        assert!(
            seen.get("charlie").is_some_and(|c| !c.1),
            "{} sees charlie: {seen:?}",
            member.name
        );
    }
    let alone = charlie.members().await;
    assert!(
        alone.iter().all(|(name, m)| name == "charlie" || !m.1),
        "charlie sees a peer: {alone:?}"
    );
    assert!(
        charlie.child.try_wait().expect("wait").is_none(),
        "charlie stays up"
    );
    let log = std::fs::read_to_string(alpha.dir.join("serve.log")).expect("alpha's log");
    assert!(
        log.contains("TLS refused"),
        "alpha logs the refusals:\n{log}"
    );
    let (status, _) = alpha.request(reqwest::Method::GET, "/cluster").await;
    assert_eq!(status, 200, "alpha serves on");
}
