//! What each member records, read as one through any member (docs/scale-out.md): three
//! real `ponkeeper serve` members over 30 simulated OLTs, with a СЗО object bound to an
//! ONU of every OLT, and one API key (alpha's, given to the others with `keys create
//! --key-env`).
//!
//! - `/events/stream` through alpha carries every member's events, each naming its
//!   member; its SSE id is a position in every member's log, and a client that comes back
//!   to bravo with it as `Last-Event-ID` gets exactly the events it missed;
//! - `/szo` through each member binds every object, whichever member polls its ONU, and
//!   `/szo/availability` reads each object's history from the member that recorded it;
//! - `/alarms` through each member holds every member's alarms, and one recorded by
//!   bravo is acknowledged through alpha and reads so through charlie;
//! - config versions of an OLT taken by two members (charlie, then its taker while
//!   charlie was down) list as one history through every member, and diff across them;
//! - a splitter on an OLT of the inventory is taken through a member that does not run
//!   that OLT (splitters are each member's records: docs/scale-out.md, "Not yet").

use crate::cluster_members;
use crate::common;

use crate::cluster_members::{settled, start_three, until, Member, NAMES, OLTS, ONE_AT_A_TIME};
use ponkeeper::cluster::ownership::owner;
use ponkeeper_actors::domain::{OltId, OnuStatus};
use ponkeeper_actors::inventory::{SzoSpec, SzoType};
use ponkeeper_sim::SimFleet;
use serde_json::Value;
use std::collections::BTreeSet;
use std::time::Duration;

/// An open event stream through one member.
struct Subscriber(common::sse::SseReader);

impl Subscriber {
    async fn open(member: &Member, query: &str, last: Option<&str>) -> Subscriber {
        let mut request = member
            .client
            .get(format!("{}/events/stream{query}", member.base))
            .header("X-API-Key", &member.key);
        if let Some(last) = last {
            request = request.header("Last-Event-ID", last);
        }
        let response = request.send().await.expect("stream opens");
        assert_eq!(response.status(), 200, "the stream through {}", member.name);
        Subscriber(common::sse::SseReader::new(response))
    }

    /// The next message as (SSE id, member, event id).
    async fn next(&mut self) -> (String, String, u64) {
        let (id, data) = self
            .0
            .next(Duration::from_secs(20))
            .await
            .expect("the stream goes on");
        let member = data["member"].as_str().expect("member").to_string();
        (id, member, data["id"].as_u64().expect("id"))
    }
}

/// The online ONUs of an OLT, by serial.
fn online(sim: &SimFleet, olt: OltId) -> Vec<String> {
    sim.expected_onus(olt)
        .into_iter()
        .filter(|o| o.status == OnuStatus::Online)
        .map(|o| o.serial.to_string())
        .collect()
}

/// The first OLT each member owns, in the order of [`NAMES`].
fn one_olt_of_each() -> Vec<OltId> {
    NAMES
        .iter()
        .map(|name| {
            (1..=OLTS as OltId)
                .find(|olt| owner(NAMES, *olt) == Some(name))
                .expect("each member owns an OLT")
        })
        .collect()
}

/// An object bound to the last online ONU of each OLT.
fn registry(sim: &SimFleet) -> Vec<SzoSpec> {
    (1..=OLTS as OltId)
        .map(|olt| SzoSpec {
            id: olt,
            name: format!("School {olt}"),
            kind: SzoType::School,
            city: "Kazan".into(),
            address: String::new(),
            onu_serial: online(sim, olt).pop().expect("an online ONU"),
            bandwidth_mbps: 100,
            connected_at: chrono::NaiveDate::from_ymd_opt(2021, 6, 1).expect("date"),
            sla_percent: 99.5,
        })
        .collect()
}

async fn the_stream_carries_every_member_and_resumes_anywhere(sim: &SimFleet, members: &[Member]) {
    let olts = one_olt_of_each();
    let mut first = Subscriber::open(&members[0], "?type=ONU_DOWN", None).await;
    // The followers learn where each member's log stands before anything happens.
    tokio::time::sleep(Duration::from_secs(2)).await;
    for olt in &olts {
        assert!(sim.set_onu_online(*olt, &online(sim, *olt)[0], false));
    }
    let mut got = Vec::new();
    for _ in 0..3 {
        got.push(first.next().await);
    }
    let recorders: BTreeSet<&str> = got.iter().map(|(_, m, _)| m.as_str()).collect();
    assert_eq!(recorders, BTreeSet::from(NAMES), "{got:?}");
    drop(first);

    // Back through bravo from the first message: exactly the other two, then what is new.
    let mut back = Subscriber::open(&members[1], "?type=ONU_DOWN", Some(&got[0].0)).await;
    let mut again = BTreeSet::new();
    for _ in 0..2 {
        let (_, member, id) = back.next().await;
        again.insert((member, id));
    }
    let missed: BTreeSet<(String, u64)> =
        got[1..].iter().map(|(_, m, i)| (m.clone(), *i)).collect();
    assert_eq!(again, missed);
    let olt = olts[2];
    assert!(sim.set_onu_online(olt, &online(sim, olt)[0], false));
    let (id, member, _) = back.next().await;
    assert_eq!(member, "charlie", "the next event is the new one");
    assert!(
        id.contains("alpha:") && id.contains("bravo:") && id.contains("charlie:"),
        "{id}"
    );
    // A position that is neither an id nor `member:id` pairs is refused.
    let refused = members[2]
        .client
        .get(format!("{}/events/stream", members[2].base))
        .header("X-API-Key", &members[2].key)
        .header("Last-Event-ID", "alpha:1,alpha")
        .send()
        .await
        .expect("answered");
    assert_eq!(refused.status(), 400);
}

async fn szo_is_bound_and_read_through_every_member(
    sim: &SimFleet,
    members: &[Member],
    since: &str,
) {
    for member in members {
        let body = member.get("/szo?size=100").await;
        let items = body["data"].as_array().cloned().unwrap_or_default();
        assert_eq!(items.len(), OLTS, "/szo through {}: {body}", member.name);
        for item in &items {
            let olt = item["id"].as_u64().expect("id") as OltId;
            assert_eq!(item["oltId"], olt, "{item}");
            let expected = if online(sim, olt).is_empty() {
                "DOWN"
            } else {
                "UP"
            };
            assert_eq!(item["status"], expected, "through {}: {item}", member.name);
        }
    }
    // Every object has time up in the report, read from whichever member polled it.
    until("every object has time up", || async {
        let now = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S");
        let report = members[0]
            .get(&format!("/szo/availability?size=100&from={since}&to={now}"))
            .await;
        let items = report["data"].as_array().cloned().unwrap_or_default();
        let up = items
            .iter()
            .filter(|i| i["upSeconds"].as_u64() > Some(0))
            .count();
        if items.len() == OLTS && up == OLTS {
            Ok(())
        } else {
            Err(format!("{up} of {} up: {report}", items.len()))
        }
    })
    .await;
}

/// The alarms of the four ONUs the stream saw go down (an ONU down no outage explains).
async fn alarms_are_read_and_acknowledged_through_any_member(members: &[Member]) {
    let blocks = |body: &Value| -> BTreeSet<u64> {
        body["data"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a["id"].as_u64())
            .map(|id| id >> 48)
            .collect()
    };
    let whole = until("every member's ONU-down alarms through alpha", || async {
        let body = members[0].get("/alarms?type=ONU_DOWN&size=100").await;
        match (blocks(&body), body["meta"]["totalCount"].as_u64()) {
            (b, Some(4)) if b == BTreeSet::from([0, 1, 2]) => Ok(body),
            _ => Err(body.to_string()),
        }
    })
    .await;
    for member in &members[1..] {
        let body = member.get("/alarms?type=ONU_DOWN&size=100").await;
        assert_eq!(
            body["data"], whole["data"],
            "/alarms through {}",
            member.name
        );
    }
    // Bravo's alarm, acknowledged through alpha, reads acknowledged through charlie.
    let bravos = whole["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a["id"].as_u64())
        .find(|id| id >> 48 == 1)
        .expect("one of bravo's");
    let acked = members[0]
        .client
        .post(format!("{}/alarms/{bravos}/ack", members[0].base))
        .header("X-API-Key", &members[0].key)
        .json(&serde_json::json!({ "comment": "seen from alpha" }))
        .send()
        .await
        .expect("answered");
    assert_eq!(acked.status(), 200);
    let through = members[2].get(&format!("/alarms/{bravos}")).await;
    assert_eq!(through["data"]["comment"], "seen from alpha", "{through}");
    assert_eq!(through["data"]["acknowledgedBy"], "ops");
}

/// A splitter on bravo's OLT, through alpha, which does not run it: taken, its port as
/// given; an OLT the inventory does not hold is still refused, and bravo, which runs the
/// OLT, still checks the port against the OLT's.
async fn a_splitter_is_taken_for_any_olt_of_the_inventory(sim: &SimFleet, members: &[Member]) {
    let olt = one_olt_of_each()[1];
    let port = sim.expected_onus(olt)[0].pon_port.clone();
    let splitter = |name: &str, olt: OltId, port: &str| {
        let body = serde_json::json!({"name": name, "oltId": olt, "ponPort": port});
        ("application/json", body.to_string())
    };
    let (status, created) = members[0]
        .post("/splitters", splitter("ODB-7", olt, &port))
        .await;
    assert_eq!(
        status, 200,
        "a splitter on bravo's OLT {olt} through alpha: {created}"
    );
    assert_eq!(created["data"]["oltId"], olt, "{created}");
    let listed = members[0].get(&format!("/splitters?oltId={olt}")).await;
    assert_eq!(listed["meta"]["totalCount"], 1, "{listed}");
    let (status, refused) = members[0]
        .post("/splitters", splitter("ODB-8", 9999, &port))
        .await;
    assert_eq!(
        (status, &refused["error"]["code"]),
        (400, &Value::from("INVALID_PARAMETER")),
        "{refused}"
    );
    let (status, refused) = members[1]
        .post("/splitters", splitter("ODB-9", olt, "9/9/9"))
        .await;
    assert_eq!(status, 400, "a port bravo's OLT does not have: {refused}");
}

#[tokio::test(flavor = "multi_thread")]
async fn every_members_records_read_as_one_through_any_member() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let sim = common::steady_sim(OLTS, cluster_members::ONUS_PER_OLT).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let since = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S").to_string();
    let mut inventory = sim.inventory();
    inventory.szo = registry(&sim);
    let mut members = start_three(&inventory, dir.path()).await;
    // One key, made by alpha and given to the others, works on every member.
    assert!(members.iter().all(|m| m.key == members[0].key));
    let all: Vec<&Member> = members.iter().collect();
    settled(&all).await;
    szo_is_bound_and_read_through_every_member(&sim, &members, &since).await;
    the_stream_carries_every_member_and_resumes_anywhere(&sim, &members).await;
    alarms_are_read_and_acknowledged_through_any_member(&members).await;
    a_splitter_is_taken_for_any_olt_of_the_inventory(&sim, &members).await;

    // Config versions: charlie backs up one of its OLTs, is killed, its taker backs the
    // OLT up again, and charlie comes back.
    let olt = one_olt_of_each()[2];
    let backup = format!("/olts/{olt}/configs/backup");
    let (status, first) = members[0].request(reqwest::Method::POST, &backup).await;
    assert_eq!(status, 200, "{first}");
    let first = first["data"]["id"].as_u64().expect("id");
    members[2].child.kill().await.expect("kill");
    let survivors: Vec<&Member> = members[..2].iter().collect();
    let second = until("the taker backs the OLT up", || async {
        let (status, body) = survivors[1].request(reqwest::Method::POST, &backup).await;
        match body["data"]["id"].as_u64() {
            Some(id) if status == 200 && id != first => Ok(id),
            _ => Err(format!("{status} {body}")),
        }
    })
    .await;
    let charlie = &mut members[2];
    charlie.child = Member::spawn(&charlie.dir);
    let all: Vec<&Member> = members.iter().collect();
    settled(&all).await;
    for member in &members {
        let (ids, total) = member.page(&format!("/olts/{olt}/configs"), "id").await;
        assert_eq!(
            (ids, total),
            (vec![second, first], 2),
            "through {}",
            member.name
        );
        let diff = member
            .get(&format!("/olts/{olt}/configs/{second}/diff"))
            .await;
        assert_eq!(
            diff["data"]["from"], first,
            "through {}: {diff}",
            member.name
        );
        let older = member.get(&format!("/olts/{olt}/configs/{first}")).await;
        assert_eq!(older["data"]["sha256"], diff_sha(member, olt, second).await);
        assert!(
            older["data"]["content"]
                .as_str()
                .is_some_and(|c| !c.is_empty()),
            "{older}"
        );
    }
    // Charlie, back, kept the taker's version as the latest: the same text again is no
    // new version, and the backup answers the taker's version.
    until("charlie knows the latest version", || async {
        let (status, body) = members[1].request(reqwest::Method::POST, &backup).await;
        match (
            status,
            body["data"]["id"].as_u64(),
            &body["data"]["changed"],
        ) {
            (200, Some(id), Value::Bool(false)) if id == second => Ok(()),
            _ => Err(format!("{status} {body}")),
        }
    })
    .await;
    let (_, total) = members[0].page(&format!("/olts/{olt}/configs"), "id").await;
    assert_eq!(total, 2);
}

/// The `sha256` of version `id` of `olt`.
async fn diff_sha(member: &Member, olt: OltId, id: u64) -> Value {
    member.get(&format!("/olts/{olt}/configs/{id}")).await["data"]["sha256"].clone()
}
