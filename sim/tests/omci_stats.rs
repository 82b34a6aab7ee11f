//! The simulated OLTs' OMCI charge and read counters, over real UDP SNMP with the client
//! the service polls with: a status walk reads each ONU's status once and no optics; an
//! optics walk reads each ONU's optics once and takes its OLT's OMCI time, while a
//! status GET to the same OLT meanwhile is answered at once; optics walks to one OLT
//! queue, to OLTs sharing a socket they do not; and the control socket's `stats`
//! reports the counters as JSON, `stats reset` zeroes them, and bad requests are refused.

use ponkeeper_actors::domain::{OltId, Vendor};
use ponkeeper_actors::inventory::SnmpVersion;
use ponkeeper_actors::profile::{OnuField, Profile};
use ponkeeper_actors::snmp::{ClientSettings, SnmpClient, SnmpValue};
use ponkeeper_sim::{Dynamics, FleetSpec, FleetStats, OltStats, ReadSpread, SimFleet};
use std::path::Path;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;

const OPTICS: [OnuField; 6] = [
    OnuField::RxPower,
    OnuField::TxPower,
    OnuField::OltRxPower,
    OnuField::Temperature,
    OnuField::Voltage,
    OnuField::BiasCurrent,
];

fn huawei() -> &'static Profile {
    Profile::for_vendor(Vendor::Huawei)
}

fn column(field: OnuField) -> &'static [u32] {
    huawei().column(field).expect("Huawei has the column").oid
}

/// A frozen fleet of Huawei OLTs charging `omci_cost` per ONU's optics.
async fn fleet(olts: usize, onus: usize, omci_cost: Duration, per_socket: usize) -> SimFleet {
    SimFleet::start(FleetSpec {
        dynamics: Dynamics::none(),
        omci_cost,
        olts_per_socket: per_socket,
        ..FleetSpec::new(olts, onus)
    })
    .await
    .expect("fleet starts")
}

/// A v2c client for OLT `id`, asking for `bulk_varbinds` varbinds per GETBULK.
fn client(sim: &SimFleet, id: OltId, bulk_varbinds: u32) -> SnmpClient {
    let inventory = sim.inventory();
    let olt = inventory.olts.iter().find(|o| o.id == id).expect("the OLT");
    SnmpClient::new(
        sim.olt_addr(id).expect("an address"),
        &olt.snmp.community,
        SnmpVersion::V2c,
        ClientSettings {
            timeout: Duration::from_secs(3),
            retries: 0,
            bulk_varbinds,
        },
    )
}

/// Walks the optics columns of OLT `id` once; returns the rows of each column.
async fn walk_optics(mut client: SnmpClient) -> Vec<usize> {
    let columns: Vec<&[u32]> = OPTICS.iter().map(|&f| column(f)).collect();
    let walked = client.walk_columns(&columns).await.expect("optics walk");
    walked.iter().map(Vec::len).collect()
}

fn olt(stats: &FleetStats, id: OltId) -> &OltStats {
    stats
        .olts
        .iter()
        .find(|o| o.id == id)
        .expect("the OLT's stats")
}

fn spread(min: u32, max: u32, total: u64) -> ReadSpread {
    ReadSpread { min, max, total }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_status_walk_reads_each_onus_status_once_and_no_optics() {
    let sim = fleet(1, 32, Duration::from_millis(5), 1).await;
    let mut snmp = client(&sim, 1, 20);
    let rows = snmp
        .walk_columns(&[column(OnuField::Status)])
        .await
        .expect("status walk");
    assert_eq!(rows[0].len(), 32);
    let stats = sim.stats();
    let one = olt(&stats, 1);
    assert_eq!(one.onu_status_reads, spread(1, 1, 32));
    assert_eq!(one.onu_optics_reads, spread(0, 0, 0));
    // 32 rows at 20 a request, and one more that finds the column ended.
    assert_eq!(one.requests, 2);
    assert!((1..=2).contains(&one.peak_requests_per_second), "{one:?}");
    snmp.walk_columns(&[column(OnuField::Status)])
        .await
        .expect("second walk");
    assert_eq!(olt(&sim.stats(), 1).onu_status_reads, spread(2, 2, 64));
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_optics_walk_waits_for_omci_but_a_status_get_does_not() {
    let cost = Duration::from_millis(5);
    let sim = fleet(1, 32, cost, 1).await;
    // The instance of the last ONU's status, from a status walk.
    let status = client(&sim, 1, 64)
        .walk_columns(&[column(OnuField::Status)])
        .await
        .expect("status walk");
    let (last_row, _) = status[0].last().expect("rows");
    let mut status_oid = column(OnuField::Status).to_vec();
    status_oid.extend(last_row);
    sim.reset_stats();

    let started = Instant::now();
    // 6 columns × 10 rows a request: 10 ONUs, 50 ms of OMCI, per answer.
    let walk = tokio::spawn(walk_optics(client(&sim, 1, 60)));
    tokio::time::sleep(Duration::from_millis(30)).await;
    let asked = Instant::now();
    let got = client(&sim, 1, 60)
        .get(&[&status_oid])
        .await
        .expect("status GET");
    let status_took = asked.elapsed();
    assert!(matches!(got[0], SnmpValue::Integer(_)), "{got:?}");
    assert!(
        !walk.is_finished(),
        "the optics walk is still under way when the status GET is answered"
    );
    assert!(
        status_took < Duration::from_millis(60),
        "the status GET waited {status_took:?} behind the optics"
    );
    let rows = walk.await.expect("walk task");
    let took = started.elapsed();
    assert_eq!(rows, [32; 6]);
    assert!(took >= cost * 32, "32 ONUs × 5 ms of OMCI took {took:?}");
    let stats = sim.stats();
    let one = olt(&stats, 1);
    assert_eq!(one.onu_optics_reads, spread(1, 1, 32));
    assert_eq!(one.onu_status_reads, spread(0, 1, 1), "the one status GET");
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn optics_walks_queue_on_one_olt_but_not_across_a_shared_socket() {
    let cost = Duration::from_millis(5);
    let sim = fleet(2, 32, cost, 2).await;
    assert_eq!(sim.olt_addr(1), sim.olt_addr(2), "one socket for both");
    // One OLT, two walks at once: the second waits for the first's OMCI queries.
    let started = Instant::now();
    let (a, b) = tokio::join!(
        walk_optics(client(&sim, 1, 60)),
        walk_optics(client(&sim, 1, 60))
    );
    let same_olt = started.elapsed();
    assert_eq!((a, b), (vec![32; 6], vec![32; 6]));
    assert!(
        same_olt >= cost * 64,
        "two walks of 32 ONUs on one OLT took {same_olt:?}"
    );
    assert_eq!(olt(&sim.stats(), 1).onu_optics_reads, spread(2, 2, 64));
    // Two OLTs on the socket: each has its own OMCI channel.
    let started = Instant::now();
    let (a, b) = tokio::join!(
        walk_optics(client(&sim, 1, 60)),
        walk_optics(client(&sim, 2, 60))
    );
    let two_olts = started.elapsed();
    assert_eq!((a, b), (vec![32; 6], vec![32; 6]));
    assert!(two_olts >= cost * 32, "{two_olts:?}");
    assert!(
        two_olts < cost * 64,
        "OLT 2 waited for OLT 1's OMCI: {two_olts:?}"
    );
    sim.shutdown().await;
}

/// Sends each request line over the control socket at `path`; returns the replies.
async fn control(path: &Path, requests: &[&str]) -> Vec<String> {
    let stream = UnixStream::connect(path).await.expect("connects");
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    let mut replies = Vec::new();
    for request in requests {
        write
            .write_all(format!("{request}\n").as_bytes())
            .await
            .expect("write");
        let reply = tokio::time::timeout(Duration::from_secs(5), lines.next_line())
            .await
            .expect("a reply in time")
            .expect("read")
            .expect("a line");
        replies.push(reply);
    }
    replies
}

/// A fleet of two OLTs × 8 ONUs with a control socket, after OLT 1 was read: two status
/// walks, three more status GETs of its first ONU, one optics walk and one more Rx GET
/// of its first ONU.
async fn read_fleet(dir: &Path) -> SimFleet {
    let mut sim = fleet(2, 8, Duration::from_millis(1), 1).await;
    sim.serve_control(&dir.join("control.sock"))
        .expect("control socket");
    let mut snmp = client(&sim, 1, 16);
    let mut first = Vec::new();
    for _ in 0..2 {
        let rows = snmp
            .walk_columns(&[column(OnuField::Status)])
            .await
            .expect("status walk");
        first = rows[0][0].0.to_vec();
    }
    let mut status = column(OnuField::Status).to_vec();
    status.extend(&first);
    for _ in 0..3 {
        snmp.get(&[&status]).await.expect("status GET");
    }
    walk_optics(client(&sim, 1, 16)).await;
    let mut rx = column(OnuField::RxPower).to_vec();
    rx.extend(&first);
    snmp.get(&[&rx]).await.expect("Rx GET");
    sim
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stats_over_the_control_socket_report_and_reset_the_counters() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sim = read_fleet(dir.path()).await;
    let path = dir.path().join("control.sock");
    let replies = control(&path, &["stats", "stats reset", "stats"]).await;
    let json = replies[0].strip_prefix("ok ").expect("ok and the JSON");
    let value: serde_json::Value = serde_json::from_str(json).expect("JSON");
    let keys = |v: &serde_json::Value| -> Vec<String> {
        let mut keys: Vec<String> = v.as_object().expect("an object").keys().cloned().collect();
        keys.sort();
        keys
    };
    assert_eq!(keys(&value), ["olts"]);
    let olts = value["olts"].as_array().expect("an array");
    assert_eq!(olts.len(), 2);
    for olt in olts {
        assert_eq!(
            keys(olt),
            [
                "id",
                "onuOpticsReads",
                "onuStatusReads",
                "peakRequestsPerSecond",
                "requests"
            ]
        );
        assert_eq!(keys(&olt["onuStatusReads"]), ["max", "min", "total"]);
        assert_eq!(keys(&olt["onuOpticsReads"]), ["max", "min", "total"]);
    }
    assert_eq!(
        (olts[0]["id"].as_u64(), olts[1]["id"].as_u64()),
        (Some(1), Some(2))
    );
    let stats: FleetStats = serde_json::from_str(json).expect("FleetStats");
    let one = olt(&stats, 1);
    // Each walk reads every status once; the first ONU is read three more times.
    assert_eq!(one.onu_status_reads, spread(2, 5, 2 * 8 + 3));
    assert_eq!(one.onu_optics_reads, spread(1, 2, 8 + 1));
    // 2 status walks of 1 request (16 rows asked, 8 there), 3 GETs, an optics walk of
    // 5 requests (16 varbinds over 6 columns: 2 rows each, 4 requests for 8 rows and
    // 1 that finds the columns ended), 1 GET.
    assert_eq!(one.requests, 2 + 3 + 5 + 1, "{one:?}");
    assert!(one.peak_requests_per_second >= 1);
    assert!(u64::from(one.peak_requests_per_second) <= one.requests);
    let two = olt(&stats, 2);
    assert_eq!(
        (two.requests, two.onu_status_reads, two.onu_optics_reads),
        (0, spread(0, 0, 0), spread(0, 0, 0))
    );
    assert_eq!(replies[1], "ok");
    let after: FleetStats =
        serde_json::from_str(replies[2].strip_prefix("ok ").expect("ok")).expect("JSON");
    for olt in &after.olts {
        assert_eq!(olt.requests, 0, "{olt:?}");
        assert_eq!(olt.peak_requests_per_second, 0, "{olt:?}");
        assert_eq!(olt.onu_status_reads, spread(0, 0, 0));
        assert_eq!(olt.onu_optics_reads, spread(0, 0, 0));
    }
    assert_eq!(after, sim.stats(), "the socket and the library agree");
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_stats_requests_are_refused_and_change_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sim = read_fleet(dir.path()).await;
    let before = sim.stats();
    let path = dir.path().join("control.sock");
    let replies = control(&path, &["stats foo", "stats reset now", "statistics"]).await;
    for reply in &replies {
        assert!(reply.starts_with("error: "), "{reply}");
    }
    assert!(replies[0].contains("`foo`"), "{}", replies[0]);
    assert!(replies[2].contains("stats [reset]"), "{}", replies[2]);
    assert_eq!(sim.stats(), before, "nothing was reset");
    assert_ne!(olt(&before, 1).onu_status_reads.total, 0);
    sim.shutdown().await;
}
