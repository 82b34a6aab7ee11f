//! Polling that protects the OLT (docs/polling.md), end to end: the real service on
//! 127.0.0.1:0 polls a simulated mixed fleet whose OLTs charge OMCI time for optics and
//! count every ONU's reads (the simulator's `stats`). Each group is read as often as its
//! interval says and no more, a status change shows within the status interval while the
//! other groups wait far longer, a read-now of one ONU's optics is served at once within
//! the OLT's budget, and an OLT that answers slowly is throttled without slowing the rest.

use crate::common;

use crate::common::{eventually, TestService};
use ponkeeper::config::Config;
use ponkeeper_sim::{Dynamics, Fault, FaultSet, FleetSpec, FleetVendors, SimFleet};
use serde_json::Value;
use std::time::{Duration, Instant};

async fn mixed_sim(olts: usize, onus: usize, reboot: Duration) -> SimFleet {
    SimFleet::start(FleetSpec {
        vendors: FleetVendors::Mixed,
        dynamics: Dynamics::none(),
        reboot_time: reboot,
        ..FleetSpec::new(olts, onus)
    })
    .await
    .expect("simulator starts")
}

/// Status every `status`, optics every `optics`, identity, the OLT's tables, the
/// traffic counters and the MACs hourly.
fn intervals(status: Duration, optics: Duration) -> impl FnOnce(&mut Config) {
    move |config| {
        config.polling.status_interval = status;
        config.polling.optics_interval = Some(optics);
        config.polling.identity_interval = Duration::from_secs(3600);
        config.polling.olt_interval = Duration::from_secs(3600);
        config.polling.traffic_interval = Duration::from_secs(3600);
        // MAC sweeps go over SSH to the same simulator process: hourly, so the status
        // polls' latencies these tests judge are the SNMP agent's alone.
        config.polling.macs_interval = Duration::from_secs(3600);
        config.polling.deadline = Duration::from_secs(10);
    }
}

/// Waits until every OLT has had its first poll (which reads every group).
async fn first_reads(service: &TestService, olts: u32) {
    common::all_polled(service).await;
    for olt in 1..=olts {
        eventually("the first optics read", Duration::from_secs(20), || async {
            let (_, body) = service.get(&format!("/olts/{olt}")).await;
            body["data"]["polling"]["groups"][2]["lastReadAt"]
                .is_string()
                .then_some(())
        })
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_onu_is_read_as_often_as_its_groups_intervals_say() {
    let sim = mixed_sim(30, 32, Duration::from_secs(5)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let tune = intervals(Duration::from_secs(2), Duration::from_secs(40));
    let service = TestService::start_tuned(&sim, dir.path().join("data"), tune).await;
    first_reads(&service, 30).await;
    sim.reset_stats();
    tokio::time::sleep(Duration::from_secs(60)).await;
    let stats = sim.stats();
    assert_eq!(stats.olts.len(), 30);
    for olt in &stats.olts {
        let (optics, status) = (&olt.onu_optics_reads, &olt.onu_status_reads);
        // 60 s of a 40 s sweep spread over the interval: every ONU once or twice.
        assert!(
            optics.min >= 1 && optics.max <= 2,
            "OLT {}: optics reads {optics:?}",
            olt.id
        );
        // A status read every 2 s: about 30 in 60 s.
        assert!(status.min >= 20, "OLT {}: status reads {status:?}", olt.id);
        // The default budget: 20 requests a second at most.
        assert!(
            olt.peak_requests_per_second <= 21,
            "OLT {}: {} requests in one second",
            olt.id,
            olt.peak_requests_per_second
        );
    }
    let (_, olt) = service.get("/olts/1").await;
    let groups = &olt["data"]["polling"]["groups"];
    let names: Vec<&str> = (0..5).filter_map(|i| groups[i]["group"].as_str()).collect();
    assert_eq!(names, ["status", "identity", "optics", "olt", "traffic"]);
    assert_eq!(groups[0]["intervalSeconds"], 2.0);
    assert_eq!(groups[2]["intervalSeconds"], 40.0);
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rebooted_onu_is_offline_within_the_status_interval() {
    let sim = mixed_sim(3, 8, Duration::from_secs(6)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let tune = intervals(Duration::from_secs(2), Duration::from_secs(3600));
    let service = TestService::start_tuned(&sim, dir.path().join("data"), tune).await;
    first_reads(&service, 3).await;
    for olt in 1..=3 {
        let (_, body) = service
            .get(&format!("/olts/{olt}/onus?status=ONLINE&size=1"))
            .await;
        let id = body["data"][0]["id"].as_u64().expect("an ONLINE ONU");
        let (status, body) = service.post(&format!("/onus/{id}/reboot")).await;
        assert_eq!(status, 200, "{body}");
        let rebooted = Instant::now();
        eventually(
            "OFFLINE within the status interval + 2 s",
            Duration::from_secs(4),
            || async {
                let (_, onu) = service.get(&format!("/onus/{id}")).await;
                (onu["data"]["status"] == "OFFLINE").then_some(())
            },
        )
        .await;
        assert!(rebooted.elapsed() <= Duration::from_secs(4));
    }
    service.stop().await;
}

/// The local time the service writes (no offset), as it would write it now.
fn local_now() -> chrono::NaiveDateTime {
    chrono::Local::now().naive_local()
}

fn service_time(value: &Value) -> chrono::NaiveDateTime {
    let text = value.as_str().unwrap_or_else(|| panic!("a time: {value}"));
    chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S").expect("a service time")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_now_is_served_at_once_and_the_budget_bounds_a_burst() {
    let sim = mixed_sim(2, 32, Duration::from_secs(5)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let tune = intervals(Duration::from_secs(2), Duration::from_secs(3600));
    let service = TestService::start_tuned(&sim, dir.path().join("data"), tune).await;
    first_reads(&service, 2).await;
    let (_, body) = service.get("/olts/1/onus?size=100").await;
    let ids: Vec<u64> = body["data"]
        .as_array()
        .expect("ONUs")
        .iter()
        .filter_map(|o| o["id"].as_u64())
        .collect();
    assert_eq!(ids.len(), 32);

    // One read now: a reading of the last seconds, and one more optics read of the OLT.
    sim.reset_stats();
    let asked = local_now() - chrono::Duration::seconds(1);
    let (status, body) = service
        .post(&format!("/onus/{}/optics/refresh", ids[0]))
        .await;
    assert_eq!(status, 200, "{body}");
    let read_at = service_time(&body["data"]["opticsAt"]);
    assert!(read_at >= asked, "{body}");
    assert!(
        read_at <= local_now() + chrono::Duration::seconds(1),
        "{body}"
    );
    assert_eq!(body["data"]["onuId"], ids[0]);
    assert_eq!(sim.stats().olts[0].onu_optics_reads.total, 1);

    // Fifty at once: the budget takes what it can and tells the rest when to come back.
    sim.reset_stats();
    let asks = (0..50).map(|i| {
        let path = format!("/onus/{}/optics/refresh", ids[i % ids.len()]);
        let full = service.full.clone();
        let service = &service;
        async move {
            let (status, headers, body) =
                service.send(reqwest::Method::POST, &path, &full, &[]).await;
            (status, headers.get("retry-after").cloned(), body)
        }
    });
    let answers = futures::future::join_all(asks).await;
    let served = answers.iter().filter(|(s, _, _)| *s == 200).count();
    let refused: Vec<_> = answers.iter().filter(|(s, _, _)| *s == 429).collect();
    assert_eq!(served + refused.len(), 50, "{answers:?}");
    assert!(served >= 1, "{answers:?}");
    assert!(
        !refused.is_empty(),
        "50 at once fit a budget of 20 a second?"
    );
    for (_, retry_after, body) in &refused {
        assert_eq!(body["error"]["code"], "RATE_LIMITED", "{body}");
        let seconds: u64 = retry_after
            .as_ref()
            .and_then(|v| v.to_str().ok()?.parse().ok())
            .expect("Retry-After in seconds");
        assert!(seconds >= 1);
    }
    let reads = sim.stats().olts[0].onu_optics_reads.total;
    assert!(
        reads >= 1 && reads <= served as u64,
        "{reads} optics reads for {served} served refreshes"
    );
    service.stop().await;
}

/// The median over a few polls of OLTs `olts`' last status read, in milliseconds.
async fn status_sweep_ms(service: &TestService, olts: std::ops::RangeInclusive<u32>) -> f64 {
    let mut samples = Vec::new();
    for _ in 0..5 {
        for olt in olts.clone() {
            let (_, body) = service.get(&format!("/olts/{olt}")).await;
            let took = &body["data"]["polling"]["groups"][0]["lastDurationMs"];
            samples.push(took.as_f64().expect("a status read"));
        }
        tokio::time::sleep(Duration::from_millis(1100)).await;
    }
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_olt_is_throttled_and_the_others_keep_their_pace() {
    let sim = mixed_sim(6, 16, Duration::from_secs(5)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let tune = intervals(Duration::from_secs(1), Duration::from_secs(3600));
    let service = TestService::start_tuned(&sim, dir.path().join("data"), tune).await;
    first_reads(&service, 6).await;
    // A few calm polls teach each OLT its baseline.
    let before = status_sweep_ms(&service, 2..=6).await;
    let (_, olt) = service.get("/olts/1").await;
    assert_eq!(olt["data"]["polling"]["throttled"], false, "{olt}");

    sim.set_faults(
        1,
        FaultSet::new().with(Fault::Slow(Duration::from_millis(80))),
    );
    let throttled = eventually("OLT 1 throttled", Duration::from_secs(15), || async {
        let (_, olt) = service.get("/olts/1").await;
        let polling = olt["data"]["polling"].clone();
        (polling["throttled"] == true).then_some(polling)
    })
    .await;
    let reason = throttled["throttleReason"].as_str().expect("a reason");
    assert!(reason.contains("latency"), "{reason}");
    assert!(
        throttled["requestsPerSecond"].as_f64() < throttled["maxRequestsPerSecond"].as_f64(),
        "{throttled}"
    );
    let after = status_sweep_ms(&service, 2..=6).await;
    assert!(
        after <= before * 1.1 + 10.0,
        "the other OLTs' status read went from {before} ms to {after} ms"
    );
    sim.set_faults(1, FaultSet::new());
    service.stop().await;
}

/// The warning that an OLT answers no per-ONU optics judges only the ONUs whose optics a
/// poll asked for: the polls right after a session restart read status alone (optics
/// are an hour away here) and say nothing of the device's optics.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_between_optics_reads_raises_no_optics_warning() {
    let sim = mixed_sim(1, 8, Duration::from_secs(1)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let tune = intervals(Duration::from_millis(500), Duration::from_secs(3600));
    let service = TestService::start_tuned(&sim, dir.path().join("data"), tune).await;
    first_reads(&service, 1).await;
    let warned = |body: &Value| {
        body["data"]["session"]["warnings"]
            .as_array()
            .is_some_and(|w| {
                w.iter()
                    .any(|w| w.as_str().is_some_and(|w| w.contains("optics reading")))
            })
    };
    let (_, olt) = service.get("/olts/1").await;
    assert!(!warned(&olt), "{}", olt["data"]["session"]);
    for _ in 0..3 {
        let (status, body) = service.post("/olts/1/restart-session").await;
        assert_eq!(status, 200, "{body}");
        for _ in 0..4 {
            tokio::time::sleep(Duration::from_millis(300)).await;
            let (_, olt) = service.get("/olts/1").await;
            assert!(!warned(&olt), "{}", olt["data"]["session"]);
        }
    }
    service.stop().await;
}
