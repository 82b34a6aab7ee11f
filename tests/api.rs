//! The REST API end to end: the real server on `127.0.0.1:0`, polling a simulated fleet
//! over real UDP SNMP. Expected values come from the simulator's own model of each OLT.

use crate::common;

use crate::common::{all_polled, eventually, steady_sim, TestService};
use ponkeeper::admin::{self, AdminRequest};
use ponkeeper::config::ConfiguredKey;
use ponkeeper::keys::NewKey;
use ponkeeper::records::AccessLevel;
use ponkeeper_actors::domain::OnuStatus;
use ponkeeper_sim::SimFleet;
use reqwest::Method;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn ids(body: &Value) -> Vec<u64> {
    body["data"]
        .as_array()
        .expect("data is a list")
        .iter()
        .map(|o| o["id"].as_u64().expect("id"))
        .collect()
}

fn online(sim: &SimFleet, olt: u32) -> u64 {
    sim.expected_onus(olt)
        .iter()
        .filter(|o| o.status == OnuStatus::Online)
        .count() as u64
}

fn assert_invalid(status: u16, body: &Value, parameter: &str) {
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["success"], false);
    assert_eq!(body["error"]["code"], "INVALID_PARAMETER");
    let message = body["error"]["message"].as_str().expect("message");
    assert!(message.contains(&format!("`{parameter}`")), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn olt_list_has_the_seed_shape_and_every_filter() {
    let sim = steady_sim(8, 12).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    all_polled(&service).await;
    let inventory = sim.inventory();

    let (status, body) = service.get("/olts").await;
    assert_eq!(status, 200);
    assert_eq!(body["success"], true);
    assert_eq!(
        body["meta"],
        json!({"page": 0, "size": 20, "totalCount": 8})
    );
    assert_eq!(ids(&body), vec![1, 2, 3, 4, 5, 6, 7, 8]);
    for (item, spec) in body["data"]
        .as_array()
        .expect("list")
        .iter()
        .zip(&inventory.olts)
    {
        let mut fields: Vec<&str> = item
            .as_object()
            .expect("object")
            .keys()
            .map(|k| k.as_str())
            .collect();
        fields.sort_unstable();
        assert_eq!(
            fields,
            [
                "city",
                "family",
                "id",
                "ip",
                "lastUpdate",
                "model",
                "node",
                "onuOffline",
                "onuOnline",
                "status",
                "totalOnu",
                "totalPorts",
                "vendor"
            ]
        );
        assert_eq!(item["ip"], "127.0.0.1");
        assert_eq!(item["vendor"], "huawei");
        assert_eq!(item["family"], "MA5800");
        assert_eq!(item["model"], spec.model.as_str());
        assert_eq!(item["city"], spec.city.as_str());
        assert_eq!(item["status"], "ONLINE");
        assert_eq!(item["totalOnu"], 12);
        let (online, offline) = (&item["onuOnline"], &item["onuOffline"]);
        assert_eq!(
            online.as_u64().zip(offline.as_u64()).map(|(a, b)| a + b),
            Some(12)
        );
        assert_eq!(item["totalPorts"], sim.expected_ports(spec.id).len() as u64);
        let last_update = item["lastUpdate"].as_str().expect("lastUpdate is a string");
        assert!(
            chrono::NaiveDateTime::parse_from_str(last_update, "%Y-%m-%dT%H:%M:%S").is_ok(),
            "local date-time without offset: {last_update}"
        );
        match spec.node.and_then(|n| inventory.node(n)) {
            Some(node) => assert_eq!(
                item["node"],
                json!({"id": node.id, "name": node.name, "city": node.city})
            ),
            None => assert_eq!(item["node"], Value::Null),
        }
    }
    assert_eq!(
        body["data"][4]["node"],
        Value::Null,
        "OLT 5 is bound to no node"
    );

    let (_, body) = service.get("/olts?size=3&page=2").await;
    assert_eq!(ids(&body), vec![7, 8]);
    assert_eq!(body["meta"], json!({"page": 2, "size": 3, "totalCount": 8}));
    let (_, body) = service.get("/olts?page=9").await;
    assert_eq!(ids(&body), Vec::<u64>::new());
    assert_eq!(body["meta"]["totalCount"], 8);

    let node2 = inventory.node(2).expect("node 2").name.clone();
    for (query, expected) in [
        ("vendor=huawei", vec![1, 2, 3, 4, 5, 6, 7, 8]),
        ("vendor=HUAWEI", vec![1, 2, 3, 4, 5, 6, 7, 8]),
        ("vendor=zte", vec![]),
        ("family=ma5800&city=Ufa", vec![2, 6]),
        ("family=GP3600", vec![]),
        ("city=Ufa", vec![2, 6]),
        ("nodeId=2", vec![2, 6]),
        (&format!("node={node2}"), vec![2, 6]),
        ("node=Nowhere", vec![]),
        ("nodeId=99", vec![]),
        ("status=ONLINE", vec![1, 2, 3, 4, 5, 6, 7, 8]),
        ("status=OFFLINE", vec![]),
        ("city=Kazan", vec![1, 5]),
        ("city=Kazan&nodeId=1", vec![1]),
        ("status=ONLINE&city=Ufa&size=1", vec![2]),
    ] {
        let (status, body) = service.get(&format!("/olts?{query}")).await;
        assert_eq!(status, 200, "{query}: {body}");
        assert_eq!(ids(&body), expected, "{query}");
    }
    let (_, body) = service.get("/olts?city=Ufa&size=1").await;
    assert_eq!(body["meta"]["totalCount"], 2);

    for (query, parameter) in [
        ("page=-1", "page"),
        ("page=abc", "page"),
        ("size=0", "size"),
        ("size=501", "size"),
        ("size=100000", "size"),
        ("status=UP", "status"),
        ("status=online", "status"),
        ("nodeId=x", "nodeId"),
    ] {
        let (status, body) = service.get(&format!("/olts?{query}")).await;
        assert_invalid(status, &body, parameter);
    }
    let (status, body) = service.get("/olts/abc").await;
    assert_invalid(status, &body, "id");
    let (status, body) = service.get("/olts/99").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (404, Some("NOT_FOUND"))
    );

    let (status, body) = service.get("/olts/1").await;
    assert_eq!(status, 200);
    let detail = &body["data"];
    assert_eq!(detail["onuOnline"], online(&sim, 1));
    assert_eq!(detail["sysName"], "OLT-1");
    assert_eq!(detail["family"], "MA5800");
    assert_eq!(detail["firmware"].as_str(), sim.firmware(1).as_deref());
    assert_eq!(detail["session"]["status"], "ONLINE");
    assert_eq!(detail["session"]["failuresInRow"], 0);
    let ports: Vec<&str> = detail["ports"]
        .as_array()
        .expect("ports")
        .iter()
        .map(|p| p["name"].as_str().expect("name"))
        .collect();
    assert_eq!(ports, sim.expected_ports(1));

    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn node_counters_are_sums_over_their_olts() {
    let sim = steady_sim(9, 10).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    all_polled(&service).await;
    let inventory = sim.inventory();

    let (status, body) = service.get("/nodes").await;
    assert_eq!(status, 200);
    assert_eq!(
        body["meta"],
        json!({"page": 0, "size": 20, "totalCount": inventory.nodes.len()})
    );
    for (item, node) in body["data"]
        .as_array()
        .expect("list")
        .iter()
        .zip(&inventory.nodes)
    {
        let olts: Vec<u32> = inventory
            .olts
            .iter()
            .filter(|o| o.node == Some(node.id))
            .map(|o| o.id)
            .collect();
        let expected = json!({
            "id": node.id,
            "name": node.name,
            "city": node.city,
            "description": node.description,
            "oltCount": olts.len(),
            "onuTotal": olts.iter().map(|&o| sim.expected_onus(o).len() as u64).sum::<u64>(),
            "onuOnline": olts.iter().map(|&o| online(&sim, o)).sum::<u64>(),
        });
        assert_eq!(item, &expected);
        let (_, one) = service.get(&format!("/nodes/{}", node.id)).await;
        assert_eq!(one["data"], expected);
    }
    // Node 1 holds OLTs 1 and 9 (OLT 5 is unbound), ten ONUs each.
    let (_, one) = service.get("/nodes/1").await;
    assert_eq!(one["data"]["oltCount"], 2);
    assert_eq!(one["data"]["onuTotal"], 20);

    let (_, body) = service.get("/nodes?city=Ufa").await;
    assert_eq!(ids(&body), vec![2]);
    let (_, body) = service.get("/nodes?size=2&page=1").await;
    assert_eq!(ids(&body), vec![3, 4]);
    let (status, body) = service.get("/nodes/99").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (404, Some("NOT_FOUND"))
    );
    let (status, body) = service.get("/nodes?size=0").await;
    assert_invalid(status, &body, "size");

    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_levels_and_envelopes() {
    let sim = steady_sim(2, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;

    let (status, body) = service.request(Method::GET, "/olts", None).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (401, Some("UNAUTHORIZED"))
    );
    assert_eq!(body["success"], false);
    let (status, body) = service
        .request(Method::GET, "/olts", Some("pk_not-a-key"))
        .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (401, Some("UNAUTHORIZED"))
    );
    let (status, _) = service.request(Method::GET, "/no/such/route", None).await;
    assert_eq!(status, 401, "the key is checked before the route");

    let (status, body) = service
        .request(Method::POST, "/olts/1/poll", Some(&service.read_only))
        .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (403, Some("FORBIDDEN"))
    );
    let (status, body) = service.post("/olts/1/poll").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["id"], 1);
    assert_eq!(body["data"]["status"], "ONLINE");
    assert_eq!(body["data"]["totalOnu"], 4);

    let (status, body) = service.get("/no/such/route").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (404, Some("NOT_FOUND"))
    );
    let (status, body) = service
        .request(Method::DELETE, "/olts/1", Some(&service.full))
        .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (405, Some("METHOD_NOT_ALLOWED"))
    );
    let (status, body) = service
        .request(Method::GET, "/olts/1/poll", Some(&service.full))
        .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (405, Some("METHOD_NOT_ALLOWED"))
    );

    // Key management through the admin socket takes effect at once.
    let created = admin::request(
        &service.data_dir,
        &AdminRequest::Create(NewKey {
            name: "billing".into(),
            level: AccessLevel::ReadOnly,
            rate: Some("20/s".into()),
            allow_ip: vec!["127.0.0.0/8".into()],
            key: None,
        }),
    )
    .await
    .expect("admin socket")
    .expect("the service answers");
    let billing = created.key.expect("new key");
    let (status, _) = service.request(Method::GET, "/olts", Some(&billing)).await;
    assert_eq!(status, 200);
    let listing = admin::request(&service.data_dir, &AdminRequest::List)
        .await
        .expect("admin socket")
        .expect("answer")
        .keys
        .expect("keys");
    let names: Vec<&str> = listing.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["billing", "test-full", "test-read-only"]);
    let used: Vec<bool> = listing.iter().map(|k| k.last_used_at.is_some()).collect();
    assert_eq!(used, [true, true, true], "each key made a request above");
    assert_eq!(listing[0].rate.as_deref(), Some("20/s"));
    assert_eq!(listing[0].allow_ip, ["127.0.0.0/8"]);
    assert!(
        !serde_json::to_string(&listing)
            .expect("json")
            .contains(&billing),
        "never the key"
    );

    let revoked = admin::request(
        &service.data_dir,
        &AdminRequest::Revoke {
            name: "billing".into(),
        },
    )
    .await
    .expect("admin socket")
    .expect("answer");
    assert_eq!(revoked.error, None);
    let (status, _) = service.request(Method::GET, "/olts", Some(&billing)).await;
    assert_eq!(status, 401, "a revoked key stops at once");

    let whitelisted = admin::request(
        &service.data_dir,
        &AdminRequest::Create(NewKey {
            name: "remote".into(),
            level: AccessLevel::Full,
            rate: None,
            allow_ip: vec!["10.0.0.0/8".into()],
            key: None,
        }),
    )
    .await
    .expect("admin socket")
    .expect("answer")
    .key
    .expect("key");
    let (status, body) = service
        .request(Method::GET, "/olts", Some(&whitelisted))
        .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (403, Some("IP_NOT_ALLOWED"))
    );

    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_declared_in_the_config_work() {
    let sim = steady_sim(1, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let inventory = dir.path().join("inventory.toml");
    std::fs::write(&inventory, sim.inventory().to_toml()).expect("inventory");
    let mut config = common::test_config(dir.path().to_path_buf(), inventory);
    let key = "pk_configured_key_for_automation_0123456789";
    config.api_keys = vec![ConfiguredKey {
        name: "automation".into(),
        sha256: ponkeeper::keys::sha256_hex(key),
        level: "FULL".into(),
        rate: None,
        allow_ip: vec![],
    }];
    config.validate().expect("valid config");
    let service = TestService::start_with(config, false).await;
    let (status, body) = service
        .request(Method::POST, "/olts/1/poll", Some(key))
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, _) = service
        .request(
            Method::GET,
            "/olts",
            Some("pk_configured_key_for_automation_012345678"),
        )
        .await;
    assert_eq!(status, 401);
    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_olt_degrades_alone_and_restart_session_recovers_it() {
    let sim = steady_sim(4, 8).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    all_polled(&service).await;

    sim.set_silent(2, true);
    eventually("OLT 2 DEGRADED", Duration::from_secs(10), || async {
        let (_, body) = service.get("/olts/2").await;
        (body["data"]["status"] == "DEGRADED").then_some(())
    })
    .await;
    let detail = eventually("OLT 2 OFFLINE", Duration::from_secs(15), || async {
        let (_, body) = service.get("/olts/2").await;
        (body["data"]["status"] == "OFFLINE").then_some(body["data"].clone())
    })
    .await;
    let session = &detail["session"];
    assert!(session["failuresInRow"].as_u64().expect("failures") >= 3);
    let last_error = session["lastError"].as_str().expect("lastError");
    assert!(
        last_error.contains("no answer within 300ms"),
        "{last_error}"
    );
    let moves: Vec<&str> = session["transitions"]
        .as_array()
        .expect("transitions")
        .iter()
        .map(|t| t["to"].as_str().expect("to"))
        .collect();
    assert_eq!(moves, ["CONNECTING", "ONLINE", "DEGRADED", "OFFLINE"]);
    assert_eq!(detail["totalOnu"], 8, "the last known ONU table is kept");

    let (_, body) = service.get("/olts?status=ONLINE").await;
    assert_eq!(ids(&body), vec![1, 3, 4], "the other OLTs stay ONLINE");
    let (_, body) = service.get("/olts?status=OFFLINE").await;
    assert_eq!(ids(&body), vec![2]);

    // Queries are answered from memory even while the hung OLT's poll is in flight.
    let started = Instant::now();
    for _ in 0..20 {
        let (status, _) = service.get("/olts/2").await;
        assert_eq!(status, 200);
    }
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "20 queries took {:?}",
        started.elapsed()
    );

    // Still hung: restart-session answers after the first poll of the new session fails.
    let (status, body) = service.post("/olts/2/restart-session").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["status"], "DEGRADED");

    sim.set_silent(2, false);
    let (status, body) = service.post("/olts/2/restart-session").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["status"], "ONLINE");
    let (_, body) = service.get("/olts/2").await;
    let transitions = body["data"]["session"]["transitions"]
        .as_array()
        .expect("transitions");
    let last_two: Vec<(&str, &str)> = transitions[transitions.len() - 2..]
        .iter()
        .map(|t| {
            (
                t["to"].as_str().expect("to"),
                t["reason"].as_str().expect("reason"),
            )
        })
        .collect();
    assert_eq!(
        last_two,
        [
            ("CONNECTING", "session restarted on request"),
            ("ONLINE", "poll succeeded")
        ]
    );
    assert_eq!(body["data"]["session"]["failuresInRow"], 0);
    assert_eq!(body["data"]["session"]["lastError"], Value::Null);

    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn state_survives_a_restart_and_is_served_before_the_first_poll() {
    let sim = steady_sim(5, 10).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    all_polled(&service).await;
    let (_, olts_before) = service.get("/olts").await;
    let (_, nodes_before) = service.get("/nodes").await;
    let config = service.config.clone();
    service.stop().await;

    // No device answers after the restart: whatever is served comes from sled.
    for olt in 1..=5 {
        sim.set_silent(olt, true);
    }
    let service = TestService::start_with(config, true).await;
    let (_, olts_after) = service.get("/olts").await;
    let (_, nodes_after) = service.get("/nodes").await;
    assert_eq!(nodes_after, nodes_before);
    for (before, after) in olts_before["data"]
        .as_array()
        .expect("list")
        .iter()
        .zip(olts_after["data"].as_array().expect("list"))
    {
        for field in ["id", "node", "totalOnu", "totalPorts", "lastUpdate"] {
            assert_eq!(after[field], before[field], "{field}");
        }
        let status = after["status"].as_str().expect("status");
        assert!(status == "CONNECTING" || status == "DEGRADED", "{status}");
    }
    service.stop().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inventory_reload_reconciles_and_refuses_a_broken_file() {
    let sim = steady_sim(3, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    all_polled(&service).await;

    let mut inventory = sim.inventory();
    inventory.olts.retain(|o| o.id != 2);
    inventory.olts[1].enabled = false; // OLT 3
    std::fs::write(&service.inventory_path, inventory.to_toml()).expect("write");
    let (status, body) = service.post("/inventory/reload").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["data"],
        json!({"nodes": 4, "olts": 2, "added": 0, "removed": 1, "changed": 1, "unchanged": 1})
    );
    let (_, body) = service.get("/olts").await;
    assert_eq!(ids(&body), vec![1, 3]);
    assert_eq!(body["data"][1]["status"], "DISABLED");
    let (status, _) = service.get("/olts/2").await;
    assert_eq!(status, 404);
    let (status, body) = service.post("/olts/3/poll").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (409, Some("CONFLICT"))
    );
    let (status, body) = service.post("/olts/3/restart-session").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (409, Some("CONFLICT"))
    );

    let broken = inventory.to_toml().replacen("node = 1", "node = 42", 1);
    std::fs::write(&service.inventory_path, broken).expect("write");
    let (status, body) = service.post("/inventory/reload").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (422, Some("INVALID_INVENTORY")),
        "{body}"
    );
    let message = body["error"]["message"].as_str().expect("message");
    assert!(message.contains("inventory.toml: line "), "{message}");
    assert!(message.contains("field `node`"), "{message}");
    let (_, body) = service.get("/olts").await;
    assert_eq!(ids(&body), vec![1, 3], "the old inventory stays");

    service.stop().await;
    sim.shutdown().await;
}

/// The value of the sample `name` (labels included, as rendered) in a Prometheus text.
fn sample(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_describe_the_fleet_polls_and_requests() {
    let sim = steady_sim(2, 16).await;
    let dir = tempfile::tempdir().expect("tempdir");
    // OLT 1 must stay ONLINE on a loaded machine: a 300 ms timeout without a retry
    // made it DEGRADED now and then, and the counts below wrong.
    let service = TestService::start_tuned(&sim, dir.path().join("data"), |config| {
        config.polling.timeout = Duration::from_secs(1);
        config.polling.retries = 1;
    })
    .await;
    all_polled(&service).await;
    sim.set_silent(2, true);
    eventually("OLT 2 OFFLINE", Duration::from_secs(20), || async {
        let (_, body) = service.get("/olts/2").await;
        (body["data"]["status"] == "OFFLINE").then_some(())
    })
    .await;
    let url = service.base.replace("/api/v1/external", "/metrics");
    let client = reqwest::Client::new();

    let refused = client.get(&url).send().await.expect("answered");
    assert_eq!(refused.status().as_u16(), 401);
    let body: Value = refused.json().await.expect("an envelope");
    assert_eq!(body["error"]["code"], "UNAUTHORIZED");

    let response = client
        .get(&url)
        .header("X-API-Key", &service.read_only)
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status().as_u16(), 200);
    let content_type = response.headers()["content-type"].to_str().expect("text");
    assert!(content_type.starts_with("text/plain"), "{content_type}");
    let text = response.text().await.expect("text");

    assert_eq!(
        sample(&text, "ponkeeper_olts{status=\"ONLINE\"}"),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(&text, "ponkeeper_olts{status=\"OFFLINE\"}"),
        Some(1.0)
    );
    assert_eq!(
        sample(&text, "ponkeeper_olts{status=\"DISABLED\"}"),
        Some(0.0)
    );
    assert_eq!(sample(&text, "ponkeeper_onus"), Some(32.0));
    // Per OLT and per port, from the fleet view.
    assert_eq!(
        sample(&text, "ponkeeper_olt_status{olt=\"1\",status=\"ONLINE\"}"),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(&text, "ponkeeper_olt_status{olt=\"2\",status=\"OFFLINE\"}"),
        Some(1.0)
    );
    assert_eq!(sample(&text, "ponkeeper_olt_onus{olt=\"1\"}"), Some(16.0));
    assert_eq!(
        sample(&text, "ponkeeper_olt_onus_online{olt=\"1\"}"),
        Some(online(&sim, 1) as f64)
    );
    let port_total: f64 = text
        .lines()
        .filter(|l| l.starts_with("ponkeeper_pon_port_onus{olt=\"1\","))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum();
    assert_eq!(port_total, 16.0, "{text}");
    assert_eq!(
        sample(&text, "ponkeeper_onus_online"),
        Some((online(&sim, 1) + online(&sim, 2)) as f64)
    );
    assert!(sample(&text, "ponkeeper_polls_total{result=\"success\"}").is_some_and(|n| n >= 2.0));
    assert!(sample(&text, "ponkeeper_polls_total{result=\"failure\"}").is_some_and(|n| n >= 3.0));
    assert!(sample(&text, "ponkeeper_poll_varbinds_total").is_some_and(|n| n > 0.0));
    assert!(text.contains("ponkeeper_poll_duration_seconds_bucket{le=\"0.1\"}"));
    assert!(
        sample(
            &text,
            "ponkeeper_http_requests_total{method=\"GET\",status=\"200\"}"
        )
        .is_some_and(|n| n > 0.0),
        "{text}"
    );
    assert!(sample(
        &text,
        "ponkeeper_http_requests_total{method=\"GET\",status=\"401\"}"
    )
    .is_some_and(|n| n >= 1.0));
    let rss = sample(&text, "ponkeeper_process_resident_memory_bytes").expect("rss");
    assert!(rss > 1e6, "{rss}");
    assert!(sample(&text, "ponkeeper_runtime_alive_tasks").is_some_and(|n| n > 0.0));
    assert!(sample(&text, "ponkeeper_process_open_fds").is_some_and(|n| n > 0.0));
    service.stop().await;
    sim.shutdown().await;
}
