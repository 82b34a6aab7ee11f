//! `GET /events/stream` through the real service: an ONU going down in the simulator
//! arrives as an SSE message; a client that disconnects and comes back with
//! `Last-Event-ID` gets exactly the events it missed; a client that never reads does not
//! delay another; revoking the key ends the stream; a bad `Last-Event-ID` is refused.

use crate::common;

use crate::common::{all_polled, steady_sim, TestService};
use ponkeeper::records::AccessLevel;
use ponkeeper_actors::domain::OnuStatus;
use ponkeeper_actors::events::{Draft, Event, EventType, Severity};
use serde_json::Value;
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;

/// An open event stream.
struct Subscriber(common::sse::SseReader);

impl Subscriber {
    async fn open(service: &TestService, key: &str, query: &str, last: Option<u64>) -> Self {
        let mut request = reqwest::Client::new()
            .get(format!("{}/events/stream{query}", service.base))
            .header("X-API-Key", key);
        if let Some(last) = last {
            request = request.header("Last-Event-ID", last.to_string());
        }
        let response = request.send().await.expect("stream opens");
        assert_eq!(response.status(), 200);
        assert_eq!(
            response.headers()["content-type"].to_str().expect("text"),
            "text/event-stream"
        );
        Subscriber(common::sse::SseReader::new(response))
    }

    /// The next message as (id, event); `None` when the stream ended.
    async fn next(&mut self, patience: Duration) -> Option<(u64, Value)> {
        let (id, data) = self.0.next(patience).await?;
        Some((id.parse().expect("numeric id"), data))
    }
}

fn config_draft(id: u64) -> Draft {
    Draft {
        event: Event {
            id: 0,
            at: chrono::Utc::now(),
            kind: EventType::ConfigChanged,
            severity: Severity::Info,
            olt_id: Some(1),
            node_id: None,
            pon_port: None,
            onu_id: None,
            szo_id: None,
            message: format!("padding {id} {}", "x".repeat(400)),
            data: serde_json::json!({ "configId": id }),
        },
        serial: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_onu_down_is_streamed_and_a_reconnect_resumes_without_gap() {
    let sim = steady_sim(1, 16).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    all_polled(&service).await;
    let online: Vec<String> = sim
        .expected_onus(1)
        .into_iter()
        .filter(|o| o.status == OnuStatus::Online)
        .map(|o| o.serial.into())
        .collect();
    let mut first = Subscriber::open(&service, &service.read_only, "?type=ONU_DOWN", None).await;
    assert!(sim.set_onu_online(1, &online[0], false));
    let (id, event) = first.next(Duration::from_secs(10)).await.expect("an event");
    assert_eq!(event["type"], "ONU_DOWN");
    assert_eq!(event["id"], id);
    assert_eq!(event["data"]["cause"], "LOS");
    drop(first); // the client goes away

    // Missed while away: two more downs (and their comebacks, filtered out).
    assert!(sim.set_onu_online(1, &online[0], true));
    assert!(sim.set_onu_online(1, &online[1], false));
    assert!(sim.set_onu_online(1, &online[2], false));
    common::eventually("two more downs logged", Duration::from_secs(10), || async {
        let (_, body) = service.get("/events?type=ONU_DOWN").await;
        (body["meta"]["totalCount"] == 3).then_some(())
    })
    .await;
    let (_, body) = service.get("/events?type=ONU_DOWN").await;
    let mut expected: Vec<u64> = body["data"]
        .as_array()
        .expect("list")
        .iter()
        .map(|e| e["id"].as_u64().expect("id"))
        .collect();
    expected.reverse();
    let mut back = Subscriber::open(&service, &service.read_only, "?type=ONU_DOWN", Some(id)).await;
    let mut got = Vec::new();
    for _ in 0..2 {
        got.push(back.next(Duration::from_secs(5)).await.expect("an event").0);
    }
    assert_eq!(got, expected[1..].to_vec());
    // `?after=` is the same resume point; the next one live has the next id.
    let mut again = Subscriber::open(
        &service,
        &service.read_only,
        &format!("?after={id}&type=ONU_DOWN"),
        None,
    )
    .await;
    assert_eq!(
        again.next(Duration::from_secs(5)).await.expect("event").0,
        expected[1]
    );
    assert!(sim.set_onu_online(1, &online[3], false));
    let live = back.next(Duration::from_secs(10)).await.expect("live").0;
    assert!(live > expected[2], "{live} after {expected:?}");

    let (status, body) = reqwest::Client::new()
        .get(format!("{}/events/stream", service.base))
        .header("X-API-Key", &service.read_only)
        .header("Last-Event-ID", "yesterday")
        .send()
        .await
        .map(|r| r.status().as_u16())
        .map(|s| (s, ()))
        .expect("answer");
    assert_eq!((status, body), (400, ()));
    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_reads_delays_no_one_and_revoking_ends_a_stream() {
    let sim = steady_sim(1, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    // A raw client that asks for the stream from the start and never reads a byte.
    let addr = service
        .base
        .trim_start_matches("http://")
        .split('/')
        .next()
        .expect("addr")
        .to_string();
    let mut stuck = tokio::net::TcpStream::connect(&addr)
        .await
        .expect("connect");
    let request = format!(
        "GET /api/v1/external/events/stream?after=0 HTTP/1.1\r\nHost: {addr}\r\nX-API-Key: {}\r\n\r\n",
        service.read_only
    );
    stuck.write_all(request.as_bytes()).await.expect("write");
    let doomed = ponkeeper::keys::replace(
        &service.state.records,
        &service.state.keys,
        "doomed",
        AccessLevel::ReadOnly,
    )
    .await
    .expect("key");
    let mut reader = Subscriber::open(&service, &service.read_only, "", None).await;
    let mut revoked = Subscriber::open(&service, &doomed, "", None).await;

    // 20,000 events of ~600 bytes: far more than the stuck client's socket buffers hold.
    let started = Instant::now();
    let mut last = 0;
    for batch in 0..40 {
        let drafts = (0..500).map(|i| config_draft(batch * 500 + i)).collect();
        last = service
            .state
            .events
            .append(drafts)
            .await
            .expect("append")
            .last()
            .expect("one")
            .id;
    }
    let mut seen = 0;
    while seen < last {
        let (id, _) = reader
            .next(Duration::from_secs(10))
            .await
            .expect("an event");
        assert_eq!(id, seen + 1, "in order, none missing");
        seen = id;
    }
    let took = started.elapsed();
    assert!(took < Duration::from_secs(20), "the reader took {took:?}");
    assert_eq!(
        revoked
            .next(Duration::from_secs(5))
            .await
            .expect("an event")
            .0,
        1,
        "the doomed key still streams"
    );
    ponkeeper::keys::revoke(
        &service.state.records,
        Some(&service.state.keys),
        &[],
        "doomed",
    )
    .await
    .expect("revoke");
    let ended = async { while revoked.next(Duration::from_secs(10)).await.is_some() {} };
    tokio::time::timeout(Duration::from_secs(10), ended)
        .await
        .expect("a revoked key's stream ends");
    drop(stuck);
    service.stop().await;
    sim.shutdown().await;
}
