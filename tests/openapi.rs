//! The OpenAPI document and Swagger UI (docs/api.md, "OpenAPI"): served without a key under the
//! `swagger` profile, 404 in the envelope without it; the document describes exactly the
//! endpoints of docs/api.md, and every route the service answers is in it (and no other).

use crate::common::{steady_sim, test_config, TestService};
use ponkeeper::records::AccessLevel;
use ponkeeper_sim::SimFleet;
use serde_json::Value;
use std::collections::BTreeSet;

/// docs/api.md's endpoints, as `METHOD path` under the API base.
const SPEC_ENDPOINTS: &[&str] = &[
    "GET /events",
    "GET /events/stream",
    "GET /webhooks",
    "GET /olts",
    "GET /olts/{id}",
    "GET /olts/{id}/onus",
    "GET /olts/{id}/vlans",
    "GET /olts/{id}/configs",
    "GET /olts/{id}/configs/{configId}",
    "GET /olts/{id}/configs/{configId}/diff",
    "GET /nodes",
    "GET /nodes/{id}",
    "GET /cluster",
    "GET /onus",
    "GET /onus/{id}",
    "GET /onus/{id}/downs",
    "GET /onus/{id}/optics",
    "GET /onus/{id}/optics/history",
    "GET /onus/{id}/traffic",
    "GET /onus/{id}/traffic/history",
    "GET /traffic/top",
    "GET /optics",
    "GET /vlans",
    "GET /unconfigured-onus",
    "GET /olts/{id}/unconfigured-onus",
    "GET /olts/{id}/onu-profiles",
    "POST /olts/{id}/onus/authorize",
    "POST /onus/{id}/deauthorize",
    "POST /onus/{id}/subscriber",
    "GET /szo",
    "GET /szo/{id}",
    "GET /szo/{id}/outages",
    "GET /szo/availability",
    "GET /audit-logs",
    "POST /olts/{id}/restart-session",
    "POST /olts/{id}/poll",
    // docs/devices.md: forget the SSH host key recorded on first use.
    "POST /olts/{id}/ssh/trust-host-key",
    "POST /olts/{id}/configs/backup",
    "POST /onus/{id}/optics/refresh",
    "POST /onus/{id}/macs/refresh",
    "GET /onus/{id}/macs",
    "GET /macs",
    "POST /onus/{id}/reboot",
    "POST /onus/{id}/vlan",
    "POST /onus/{id}/description",
    "POST /onus/{id}/profile",
    "POST /inventory/reload",
    // Beyond docs/api.md: the presented key's level, which MCP over stdio needs.
    "GET /whoami",
    // docs/outages.md: outages, alarms and the outside plant.
    "GET /outages",
    "GET /outages/{id}",
    "GET /alarms",
    "GET /alarms/{id}",
    "POST /alarms/{id}/ack",
    "GET /splitters",
    "POST /splitters",
    "GET /splitters/{id}",
    "DELETE /splitters/{id}",
    "POST /onus/{id}/placement",
    "POST /placements/import",
    "GET /notifications",
];

/// docs/operations.md's operations endpoints, at the root and without a key.
const OPERATIONS_ENDPOINTS: &[&str] = &["GET /healthz", "GET /readyz"];

const BASE: &str = "/api/v1/external";
const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

/// The service root (`http://127.0.0.1:PORT`).
fn root(service: &TestService) -> String {
    service
        .base
        .strip_suffix(BASE)
        .expect("base ends with the API path")
        .to_string()
}

/// The demo-like service on one simulated OLT, its data in a directory removed when the
/// returned guard drops.
async fn start(swagger: bool) -> (SimFleet, TestService, tempfile::TempDir) {
    let sim = steady_sim(1, 4).await;
    let guard = tempfile::tempdir().expect("tempdir");
    let dir = guard.path().to_path_buf();
    std::env::set_var(
        ponkeeper_sim::SSH_PASSWORD_ENV,
        ponkeeper_sim::DEFAULT_SSH_PASSWORD,
    );
    let inventory = dir.join("inventory.toml");
    std::fs::write(&inventory, sim.inventory().to_toml()).expect("inventory");
    let mut config = test_config(dir, inventory);
    if swagger {
        config.profiles = vec!["swagger".into()];
    }
    let service = TestService::start_with(config, true).await;
    (sim, service, guard)
}

async fn fetch(url: &str) -> (u16, String, String) {
    let response = reqwest::get(url).await.expect("HTTP request");
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    (status, content_type, response.text().await.expect("body"))
}

#[tokio::test]
async fn without_the_profile_the_docs_answer_404_in_the_envelope() {
    let (_sim, service, _dir) = start(false).await;
    let root = root(&service);
    for path in [
        "/swagger-ui",
        "/swagger-ui/",
        "/v3/api-docs",
        "/api-docs/openapi.json",
    ] {
        let (status, _, body) = fetch(&format!("{root}{path}")).await;
        assert_eq!(status, 404, "{path}");
        let body: Value = serde_json::from_str(&body).expect("JSON envelope");
        assert_eq!(body["success"], false, "{path}");
        assert_eq!(body["error"]["code"], "NOT_FOUND", "{path}");
    }
}

#[tokio::test]
async fn with_the_profile_the_docs_are_served_without_a_key() {
    let (_sim, service, _dir) = start(true).await;
    let root = root(&service);

    let (status, content_type, text) = fetch(&format!("{root}/v3/api-docs")).await;
    assert_eq!(status, 200);
    assert!(
        content_type.starts_with("application/json"),
        "{content_type}"
    );
    let spec: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(spec["openapi"], "3.1.0");
    let (status, _, copy) = fetch(&format!("{root}/api-docs/openapi.json")).await;
    assert_eq!(status, 200);
    assert_eq!(serde_json::from_str::<Value>(&copy).expect("JSON"), spec);

    // The X-API-Key scheme, required everywhere.
    let scheme = &spec["components"]["securitySchemes"]["apiKey"];
    assert_eq!(scheme["type"], "apiKey");
    assert_eq!(scheme["in"], "header");
    assert_eq!(scheme["name"], "X-API-Key");
    assert_eq!(spec["security"][0]["apiKey"], serde_json::json!([]));

    // `size` carries the configured bounds.
    let size = spec["paths"]["/api/v1/external/olts"]["get"]["parameters"]
        .as_array()
        .expect("parameters")
        .iter()
        .find(|p| p["name"] == "size")
        .expect("size parameter")
        .clone();
    assert_eq!(size["schema"]["minimum"], 1);
    assert_eq!(size["schema"]["maximum"], service.config.paging.max_size);

    // Every operation that needs a key documents the error envelope for 401, 403, 429
    // and 500; the operations endpoints need none, and say so.
    for (path, item) in spec["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("path item") {
            if !path.starts_with(BASE) {
                assert_eq!(operation["security"], serde_json::json!([{}]), "{path}");
                continue;
            }
            for status in ["200", "401", "403", "429", "500"] {
                assert!(
                    operation["responses"][status].is_object(),
                    "{method} {path} lacks {status}"
                );
            }
        }
    }

    // Swagger UI, from assets compiled into the binary.
    let (status, content_type, html) = fetch(&format!("{root}/swagger-ui/")).await;
    assert_eq!(status, 200);
    assert!(content_type.starts_with("text/html"), "{content_type}");
    assert!(html.contains("swagger-ui"), "{html}");
    let (status, _, config) = fetch(&format!("{root}/swagger-ui/swagger-initializer.js")).await;
    assert_eq!(status, 200);
    assert!(config.contains("/v3/api-docs"), "{config}");
    let (status, _, _) = fetch(&format!("{root}/swagger-ui/swagger-ui-bundle.js")).await;
    assert_eq!(status, 200);

    // The API itself still needs a key.
    let (status, body) = service.request(reqwest::Method::GET, "/olts", None).await;
    assert_eq!(status, 401);
    assert_eq!(body["error"]["code"], "UNAUTHORIZED");
}

/// The documented endpoints are exactly those of docs/api.md and docs/events.md.
#[test]
fn the_document_describes_exactly_the_spec_endpoints() {
    let spec = serde_json::to_value(ponkeeper::router::openapi(
        &ponkeeper::config::Config::default().paging,
    ))
    .expect("serializes");
    let (mut documented, mut operations) = (BTreeSet::new(), BTreeSet::new());
    for (path, item) in spec["paths"].as_object().expect("paths") {
        for method in METHODS {
            if item.get(method).is_none() {
                continue;
            }
            match path.strip_prefix(BASE) {
                Some(rest) => documented.insert(format!("{} {rest}", method.to_uppercase())),
                None => operations.insert(format!("{} {path}", method.to_uppercase())),
            };
        }
    }
    let expected: BTreeSet<String> = SPEC_ENDPOINTS.iter().map(|e| e.to_string()).collect();
    assert_eq!(documented, expected);
    let expected: BTreeSet<String> = OPERATIONS_ENDPOINTS.iter().map(|e| e.to_string()).collect();
    assert_eq!(operations, expected);
}

/// The OLT's `family` (the list's filter and the item's field) names every table layout
/// the service reads, in the served document and in docs/api.md, so an integrator can
/// filter on each without reading the code.
#[test]
fn the_family_filter_and_field_name_every_layout() {
    let spec = serde_json::to_value(ponkeeper::router::openapi(
        &ponkeeper::config::Config::default().paging,
    ))
    .expect("serializes");
    let parameters = spec["paths"][format!("{BASE}/olts")]["get"]["parameters"]
        .as_array()
        .expect("GET /olts has parameters");
    let filter = parameters
        .iter()
        .find(|p| p["name"] == "family")
        .expect("GET /olts has a `family` filter");
    assert_eq!(filter["in"], "query");
    let filter = filter["description"].as_str().expect("described");
    let field = spec["components"]["schemas"]["OltItem"]["properties"]["family"]["description"]
        .as_str()
        .expect("OltItem.family is described");
    let api_md = std::fs::read_to_string("docs/api.md").expect("docs/api.md");
    for profile in ponkeeper_actors::profile::Profile::ALL {
        let name = format!("`{}`", profile.layout);
        assert!(filter.contains(&name), "the filter lacks {name}: {filter}");
        assert!(field.contains(&name), "the field lacks {name}: {field}");
        assert!(api_md.contains(&name), "docs/api.md lacks {name}");
    }
}

/// Every documented operation reaches a handler, and every other method on those paths
/// is 405: the router and the document are the same list.
#[tokio::test]
async fn every_route_is_documented_and_every_documented_route_exists() {
    let (_sim, service, _dir) = start(false).await;
    let spec = serde_json::to_value(ponkeeper::router::openapi(&service.config.paging))
        .expect("serializes");
    // Over a hundred requests at once: more than the default rate allows.
    let key = service
        .create_key("routes", AccessLevel::Full, Some("10000/s"), &[])
        .await;
    let client = reqwest::Client::new();
    for (path, item) in spec["paths"].as_object().expect("paths") {
        // Ids nothing has, so no action really runs.
        let concrete = path
            .replace("{id}", "999999")
            .replace("{configId}", "999999");
        for method in METHODS {
            let verb: reqwest::Method = method.to_uppercase().parse().expect("method");
            if concrete.ends_with("/events/stream") && method == "get" {
                // The stream stays open: its answer's head is all there is to check.
                let response = client
                    .get(format!("{}{concrete}", root(&service)))
                    .header("X-API-Key", &key)
                    .send()
                    .await
                    .expect("stream opens");
                assert_eq!(response.status(), 200);
                continue;
            }
            let response = client
                .request(verb, format!("{}{concrete}", root(&service)))
                .header("X-API-Key", &key)
                .send()
                .await
                .expect("HTTP request");
            let status = response.status().as_u16();
            let body: Value = response.json().await.expect("every answer is JSON");
            let message = body["error"]["message"].as_str().unwrap_or_default();
            if item.get(method).is_some() {
                assert_ne!(status, 405, "{method} {path}: {body}");
                assert!(
                    !message.starts_with("no resource at"),
                    "{method} {path} has no route: {body}"
                );
            } else {
                assert_eq!(
                    status, 405,
                    "{method} {path} answers but is undocumented: {body}"
                );
                assert_eq!(body["error"]["code"], "METHOD_NOT_ALLOWED");
            }
        }
    }
}

/// Both history answers document what their points are (`meta.resolution`, `meta.step`)
/// and a summary's spread (`min`, `max`, `count`), as docs/api.md describes them.
#[test]
fn the_history_answers_say_their_resolution_and_spread() {
    let spec = serde_json::to_value(ponkeeper::router::openapi(
        &ponkeeper::config::Config::default().paging,
    ))
    .expect("serializes");
    let schemas = &spec["components"]["schemas"];
    // A schema, or the one it refers to (a generic envelope's parts are inline).
    let named = |schema: &Value| match schema["$ref"].as_str() {
        Some(name) => schemas[name.rsplit('/').next().expect("a name")].clone(),
        None => schema.clone(),
    };
    for (path, item) in [
        ("traffic", "TrafficPointItem"),
        ("optics", "OpticsHistoryItem"),
    ] {
        let get = &spec["paths"][format!("{BASE}/onus/{{id}}/{path}/history")]["get"];
        let answer = named(&get["responses"]["200"]["content"]["application/json"]["schema"]);
        let meta = named(&answer["properties"]["meta"]);
        let resolution = named(&meta["properties"]["resolution"]);
        assert_eq!(
            resolution["enum"],
            serde_json::json!(["raw", "hourly", "daily"])
        );
        assert!(meta["properties"]["step"].is_object(), "{meta}");
        let point = named(&answer["properties"]["data"]["items"]);
        let own = point["allOf"].get(1).unwrap_or(&point);
        for field in ["min", "max", "count"] {
            assert!(own["properties"][field].is_object(), "{item}: {field}");
        }
        let step = get["parameters"].as_array().expect("parameters").iter();
        assert_eq!(step.filter(|p| p["name"] == "step").count(), 1, "{path}");
    }
}
