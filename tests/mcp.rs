//! MCP over Streamable HTTP at `/mcp` through the real server, spoken as plain JSON-RPC:
//! the key checks (key, IP whitelist, rate), tools listed per level, a READ_ONLY key refused a FULL tool (and the
//! refusal audited), a rate-limited key counted once per MCP request, and tool results
//! that are the REST data.

use crate::common::{all_polled, eventually, steady_sim, TestService};
use ponkeeper::records::AccessLevel;
use ponkeeper_sim::{Dynamics, FleetSpec, SimFleet};
use serde_json::{json, Value};
use std::time::Duration;

const PROTOCOL: &str = "2025-06-18";

/// The service's root URL (`base` without the API path).
fn root(service: &TestService) -> String {
    service
        .base
        .strip_suffix(ponkeeper::http::BASE)
        .expect("base ends with the API path")
        .to_string()
}

/// One JSON-RPC message to `/mcp`; returns the HTTP status and the JSON answer (from a
/// JSON body or the first SSE `data:` line), `Null` when there is no body.
async fn mcp(service: &TestService, key: Option<&str>, message: Value) -> (u16, Value) {
    let mut request = reqwest::Client::new()
        .post(format!("{}/mcp", root(service)))
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .header("MCP-Protocol-Version", PROTOCOL)
        .body(message.to_string());
    if let Some(key) = key {
        request = request.header("X-API-Key", key);
    }
    let response = request.send().await.expect("HTTP request");
    let status = response.status().as_u16();
    let text = response.text().await.expect("body");
    let json_text = text
        .lines()
        .find_map(|line| line.strip_prefix("data:"))
        .map(str::trim)
        .filter(|data| !data.is_empty())
        .unwrap_or(text.trim());
    let body = if json_text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(json_text).unwrap_or_else(|e| panic!("{e}: {text}"))
    };
    (status, body)
}

async fn initialize(service: &TestService, key: &str) {
    let (status, body) = mcp(
        service,
        Some(key),
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "ponkeeper-test", "version": "1"}
        }}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["serverInfo"]["name"], "ponkeeper", "{body}");
    let (status, _) = mcp(
        service,
        Some(key),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert!(status == 202 || status == 200, "{status}");
}

async fn tool_names(service: &TestService, key: &str) -> Vec<String> {
    let (status, body) = mcp(
        service,
        Some(key),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let tools = body["result"]["tools"].as_array().expect("tools");
    for tool in tools {
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        assert!(
            tool["description"].as_str().is_some_and(|d| d.len() > 40),
            "{tool}"
        );
    }
    let mut names: Vec<String> = tools
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect();
    names.sort();
    names
}

async fn call(service: &TestService, key: &str, name: &str, arguments: Value) -> Value {
    let (status, body) = mcp(
        service,
        Some(key),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
               "params": {"name": name, "arguments": arguments}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    body["result"].clone()
}

const READ_TOOLS: [&str; 33] = [
    "diff_olt_config",
    "find_mac",
    "find_onu",
    "get_alarm",
    "get_node",
    "get_olt",
    "get_olt_config",
    "get_onu",
    "get_onu_macs",
    "get_onu_optics",
    "get_onu_optics_history",
    "get_onu_traffic",
    "get_onu_traffic_history",
    "get_outage",
    "get_splitter",
    "get_szo",
    "get_szo_outages",
    "list_alarms",
    "list_audit_logs",
    "list_events",
    "list_low_signal_onus",
    "list_nodes",
    "list_olt_configs",
    "list_olts",
    "list_onu_profiles",
    "list_onus",
    "list_outages",
    "list_splitters",
    "list_szo",
    "list_unconfigured_onus",
    "list_vlans",
    "szo_availability_report",
    "top_traffic",
];

const FULL_TOOLS: [&str; 15] = [
    "acknowledge_alarm",
    "authorize_onu",
    "backup_olt_config",
    "bind_subscriber",
    "create_splitter",
    "deauthorize_onu",
    "place_onu",
    "poll_olt",
    "reboot_onu",
    "refresh_onu_macs",
    "refresh_onu_optics",
    "restart_olt_session",
    "set_onu_description",
    "set_onu_profile",
    "set_onu_vlan",
];

/// The tools named in a documentation file's MCP table row (reads, then actions).
fn tools_named_in(file: &str) -> (Vec<String>, Vec<String>) {
    let text = std::fs::read_to_string(file).expect("the documentation file");
    let row = text
        .lines()
        .find(|l| l.starts_with("| `list_olts`"))
        .unwrap_or_else(|| panic!("{file}: no MCP tool table"));
    let cells: Vec<&str> = row.split('|').collect();
    let names = |cell: &str| {
        let mut names: Vec<String> = cell
            .split('`')
            .filter(|n| n.chars().all(|c| c.is_ascii_lowercase() || c == '_') && !n.is_empty())
            .map(str::to_string)
            .collect();
        names.sort();
        names
    };
    (names(cells[1]), names(cells[2]))
}

/// The README and docs/api.md name exactly the tools the server lists (the test below
/// checks these lists against the server).
#[test]
fn the_documented_tool_tables_name_every_tool() {
    for file in ["README.md", "docs/api.md"] {
        let (reads, actions) = tools_named_in(file);
        assert_eq!(reads, READ_TOOLS, "{file}: read tools");
        assert_eq!(actions, FULL_TOOLS, "{file}: FULL tools");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_lists_tools_by_level_and_refuses_full_tools_to_read_only_keys() {
    let sim = steady_sim(2, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    all_polled(&service).await;

    // No key, or a wrong one: refused before MCP sees the message, in the envelope.
    let hello = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let (status, body) = mcp(&service, None, hello.clone()).await;
    assert_eq!(status, 401);
    assert_eq!(body["error"]["code"], "UNAUTHORIZED");
    let (status, _) = mcp(&service, Some("pk_wrong"), hello).await;
    assert_eq!(status, 401);

    // FULL sees every tool; READ_ONLY only the reads.
    initialize(&service, &service.full).await;
    let mut all: Vec<&str> = READ_TOOLS
        .iter()
        .chain(FULL_TOOLS.iter())
        .copied()
        .collect();
    all.sort();
    assert_eq!(tool_names(&service, &service.full).await, all);
    initialize(&service, &service.read_only).await;
    assert_eq!(tool_names(&service, &service.read_only).await, READ_TOOLS);

    // A read: the REST data and meta as structured content.
    let result = call(
        &service,
        &service.read_only,
        "list_olts",
        json!({"size": 1}),
    )
    .await;
    assert_eq!(result["isError"], false, "{result}");
    let olts = &result["structuredContent"];
    assert_eq!(olts["meta"]["totalCount"], 2, "{result}");
    assert_eq!(olts["meta"]["size"], 1);
    assert_eq!(olts["data"].as_array().map(Vec::len), Some(1));
    assert_eq!(olts["data"][0]["id"], 1);

    // find_onu by serial finds the ONU the REST API knows.
    let (_, onus) = service.get("/onus?size=1").await;
    let serial = onus["data"][0]["serial"].as_str().expect("serial");
    let result = call(
        &service,
        &service.read_only,
        "find_onu",
        json!({"serial": serial}),
    )
    .await;
    assert_eq!(
        result["structuredContent"]["data"][0]["serial"], serial,
        "{result}"
    );
    assert_eq!(result["structuredContent"]["meta"]["totalCount"], 1);

    // REST errors come back as tool errors with the envelope's code.
    let result = call(
        &service,
        &service.read_only,
        "get_olt",
        json!({"oltId": 99}),
    )
    .await;
    assert_eq!(result["isError"], true);
    assert_eq!(result["structuredContent"]["code"], "NOT_FOUND", "{result}");
    assert_eq!(result["structuredContent"]["httpStatus"], 404);

    // A READ_ONLY key calling a FULL tool anyway is refused, and the refusal is audited.
    let result = call(
        &service,
        &service.read_only,
        "restart_olt_session",
        json!({"oltId": 1}),
    )
    .await;
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(result["structuredContent"]["code"], "FORBIDDEN", "{result}");
    let (_, audit) = service
        .request(
            reqwest::Method::GET,
            "/audit-logs?action=olt.restart_session",
            Some(&service.full),
        )
        .await;
    let entry = &audit["data"][0];
    assert_eq!(entry["keyName"], "test-read-only", "{audit}");
    assert_eq!(entry["result"], "FAILURE");
    assert_eq!(entry["errorCode"], "FORBIDDEN");
    assert_eq!(entry["path"], "/api/v1/external/olts/1/restart-session");
    assert_eq!(entry["clientIp"], "127.0.0.1");
    assert_eq!(entry["channel"], "MCP", "a tool call, not a REST request");

    // The FULL key may, and its action is audited as its own.
    let result = call(
        &service,
        &service.full,
        "restart_olt_session",
        json!({"oltId": 1}),
    )
    .await;
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(result["structuredContent"]["data"]["id"], 1);
    eventually("the restart audited", Duration::from_secs(5), || async {
        let (_, audit) = service
            .request(
                reqwest::Method::GET,
                "/audit-logs?action=olt.restart_session&result=SUCCESS",
                Some(&service.full),
            )
            .await;
        (audit["data"][0]["keyName"] == "test-full" && audit["data"][0]["channel"] == "MCP")
            .then_some(())
    })
    .await;

    // Arguments outside the schema's bounds are refused by the REST validation.
    let result = call(
        &service,
        &service.read_only,
        "list_onus",
        json!({"size": 100000}),
    )
    .await;
    assert_eq!(
        result["structuredContent"]["code"], "INVALID_PARAMETER",
        "{result}"
    );

    // whoami, which `ponkeeper mcp` asks at start.
    let (status, body) = service.get("/whoami").await;
    assert_eq!(status, 200);
    assert_eq!(
        body["data"],
        json!({"keyName": "test-read-only", "level": "READ_ONLY"})
    );
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_tool_call_counts_once_against_the_key_rate() {
    let sim = steady_sim(1, 2).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    let limited = service
        .create_key("limited", AccessLevel::ReadOnly, Some("3/m"), &[])
        .await;
    // Three MCP requests fit the burst of 3, each with its REST call inside; a fourth
    // request is refused at the door.
    for _ in 0..3 {
        let result = call(&service, &limited, "list_nodes", json!({})).await;
        assert_eq!(result["isError"], false, "{result}");
    }
    let (status, body) = mcp(
        &service,
        Some(&limited),
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}),
    )
    .await;
    assert_eq!(status, 429, "{body}");
    assert_eq!(body["error"]["code"], "RATE_LIMITED");
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_whitelisted_elsewhere_is_refused_at_mcp_and_the_refusal_audited() {
    let sim = steady_sim(1, 2).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    let remote_only = service
        .create_key("remote-only", AccessLevel::Full, None, &["10.0.0.0/8"])
        .await;
    let (status, body) = mcp(
        &service,
        Some(&remote_only),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error"]["code"], "IP_NOT_ALLOWED");
    let (_, audit) = service
        .request(
            reqwest::Method::GET,
            "/audit-logs?keyName=remote-only",
            Some(&service.full),
        )
        .await;
    assert_eq!(audit["data"][0]["path"], "/mcp", "{audit}");
    assert_eq!(audit["data"][0]["errorCode"], "IP_NOT_ALLOWED");
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_low_signal_onus_defaults_to_warning_and_critical_with_who_they_are() {
    let sim = steady_sim(3, 16).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    all_polled(&service).await;
    initialize(&service, &service.read_only).await;

    // What REST says: the whole list worst first, and the two levels' counts.
    let (_, all) = service.get("/optics?size=500").await;
    let needing: Vec<Value> = all["data"]
        .as_array()
        .expect("data")
        .iter()
        .filter(|r| r["level"] == "CRITICAL" || r["level"] == "WARNING")
        .cloned()
        .collect();
    let mut counted = 0;
    for level in ["CRITICAL", "WARNING"] {
        let (_, body) = service.get(&format!("/optics?level={level}&size=1")).await;
        counted += body["meta"]["totalCount"].as_u64().expect("count");
    }
    assert_eq!(counted as usize, needing.len());
    assert!(!needing.is_empty(), "the seed gives weak signals: {all}");

    let result = call(
        &service,
        &service.read_only,
        "list_low_signal_onus",
        json!({"size": 500}),
    )
    .await;
    let content = &result["structuredContent"];
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(content["meta"]["totalCount"], counted, "{result}");
    assert_eq!(content["data"], Value::Array(needing.clone()));
    for reading in &needing {
        for field in ["serial", "description", "oltId", "ponPort", "rxPower"] {
            assert!(!reading[field].is_null(), "{field} in {reading}");
        }
    }

    // A later page of the default list is that stretch of the same list.
    if needing.len() > 2 {
        let result = call(
            &service,
            &service.read_only,
            "list_low_signal_onus",
            json!({"page": 1, "size": 2}),
        )
        .await;
        let end = needing.len().min(4);
        assert_eq!(
            result["structuredContent"]["data"],
            Value::Array(needing[2..end].to_vec())
        );
    }

    // One level asked for is that level alone.
    let result = call(
        &service,
        &service.read_only,
        "list_low_signal_onus",
        json!({"level": "OK", "size": 500}),
    )
    .await;
    let ok = result["structuredContent"]["data"]
        .as_array()
        .expect("data")
        .clone();
    assert!(ok.iter().all(|r| r["level"] == "OK"), "{result}");
    service.stop().await;
    sim.shutdown().await;
}

/// The provisioning tools in the order their descriptions give a model: an unconfigured
/// ONU, the OLT's profiles, the authorisation (the new ONU with its id), its removal —
/// each the REST answer, a READ_ONLY key refused the FULL ones, a bad field named.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provisioning_tools_authorise_and_remove_an_onu() {
    let sim = SimFleet::start(FleetSpec {
        dynamics: Dynamics::none(),
        ..FleetSpec::new(1, 8)
    })
    .await
    .expect("simulator");
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().to_path_buf()).await;
    all_polled(&service).await;
    initialize(&service, &service.full).await;

    let listed = call(
        &service,
        &service.read_only,
        "list_unconfigured_onus",
        json!({"oltId": 1}),
    )
    .await;
    let (port, serial, _) = sim.expected_unconfigured(1)[0].clone();
    let items = listed["structuredContent"]["data"]
        .as_array()
        .expect("items");
    assert_eq!(items.len(), sim.expected_unconfigured(1).len(), "{listed}");
    assert!(items
        .iter()
        .any(|o| o["serial"] == serial.as_str() && o["ponPort"] == port.as_str()));

    let profiles = call(
        &service,
        &service.read_only,
        "list_onu_profiles",
        json!({"oltId": 1}),
    )
    .await;
    let kinds: Vec<&str> = profiles["structuredContent"]["data"]
        .as_array()
        .expect("profiles")
        .iter()
        .filter_map(|p| p["kind"].as_str())
        .collect();
    assert!(
        kinds.contains(&"LINE") && kinds.contains(&"SERVICE"),
        "{profiles}"
    );

    let args = json!({"oltId": 1, "ponPort": port, "serial": serial,
                      "lineProfile": "10", "serviceProfile": "20", "vlan": 100});
    let refused = call(&service, &service.read_only, "authorize_onu", args.clone()).await;
    assert_eq!(refused["isError"], true);
    assert_eq!(refused["structuredContent"]["code"], "FORBIDDEN");
    let mut bad = args.clone();
    bad["serial"] = "HWTC1234;reboot".into();
    let refused = call(&service, &service.full, "authorize_onu", bad).await;
    assert_eq!(refused["structuredContent"]["code"], "INVALID_PARAMETER");
    assert!(refused["structuredContent"]["message"]
        .as_str()
        .expect("text")
        .contains("`serial`"));

    let authorised = call(&service, &service.full, "authorize_onu", args).await;
    assert_ne!(authorised["isError"], true, "{authorised}");
    let onu = &authorised["structuredContent"]["data"];
    assert_eq!(onu["serial"], serial.as_str(), "{authorised}");
    assert_eq!(onu["ponPort"], port.as_str());
    let id = onu["id"].as_u64().expect("the new ONU's id");

    let bound = call(
        &service,
        &service.full,
        "bind_subscriber",
        json!({"onuId": id, "contract": "Д-100234", "name": "Иванова Мария"}),
    )
    .await;
    assert_ne!(bound["isError"], true, "{bound}");
    assert_eq!(
        bound["structuredContent"]["data"]["subscriber"]["name"],
        "Иванова Мария"
    );
    let found = call(
        &service,
        &service.read_only,
        "find_onu",
        json!({"q": "иванова"}),
    )
    .await;
    let hits = found["structuredContent"]["data"].as_array().expect("hits");
    assert_eq!(hits.len(), 1, "{found}");
    assert_eq!(hits[0]["id"], id);

    let removed = call(
        &service,
        &service.full,
        "deauthorize_onu",
        json!({"onuId": id}),
    )
    .await;
    assert_ne!(removed["isError"], true, "{removed}");
    let (status, _) = service.get(&format!("/onus/{id}")).await;
    assert_eq!(status, 404, "the ONU left the lists");
    service.stop().await;
    sim.shutdown().await;
}
