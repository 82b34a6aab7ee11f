//! What the third security probe found (issue 55), each replayed through the real server
//! the way the probe did it: 60 KB hostile values on GET parameters for a client that
//! prefers Russian (the phrase book once took about the fourth power of their length,
//! and `/macs` echoed them whole), a value whose words look like the sentence around it,
//! an error envelope too large to translate, invisible characters in names and comments,
//! splitter names that differ only by them, CSV imports with conflicting rows or sent as
//! JSON, a dry run over a megabyte of bad lines, `{}` as a placement, and a placement
//! naming a splitter deleted before it. The Telegram findings are in `notify`, the backup's
//! in `backup`, the cluster's in the cluster suite.

use crate::common::{all_polled, steady_sim, TestService};
use reqwest::Method;
use serde_json::{json, Value};
use std::time::Duration;

/// The most a translated message may hold: the phrase book's cap (4,096 bytes of the
/// English sentence) after a Russian lead, with room for the lead.
const MOST_MESSAGE_BYTES: usize = 4096 + 512;

/// Status and body of a GET with `Accept-Language: ru` and the READ_ONLY key, given a
/// minute at most: the old phrase book took about two minutes over 60 KB.
async fn in_russian(service: &TestService, path_and_query: &str) -> (u16, Value) {
    let request = reqwest::Client::new()
        .get(format!("{}{path_and_query}", service.base))
        .header("X-API-Key", &service.read_only)
        .header("Accept-Language", "ru")
        .send();
    let what = &path_and_query[..path_and_query.len().min(60)];
    let response = tokio::time::timeout(Duration::from_secs(60), request)
        .await
        .unwrap_or_else(|_| panic!("GET {what}… took over a minute"))
        .unwrap_or_else(|e| panic!("GET {what}…: {}", e.without_url()));
    let status = response.status().as_u16();
    (status, response.json().await.expect("every answer is JSON"))
}

/// A query value of 60 KB as sent, built to be costly for a matcher that tries every
/// split point: blanks, backticks, backslashes and the phrase book's own words, over and
/// over, percent-encoded where a URL needs it.
fn hostile(n: usize) -> String {
    let pieces = [
        " ",
        "` at line 1 column ",
        "\\`",
        "must be ",
        " not found",
        "{}",
        "  ",
        "`",
    ];
    let mut value = String::new();
    let mut piece = n;
    while value.len() < 60_000 {
        value.push_str(&encoded(pieces[piece % pieces.len()]));
        piece += 1;
    }
    value
}

/// `value` percent-encoded where a query value needs it.
fn encoded(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b.is_ascii_alphanumeric() {
            true => (b as char).to_string(),
            false => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_values_in_russian_are_answered_cut_with_their_code() {
    let sim = steady_sim(1, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().join("data")).await;
    all_polled(&service).await;
    let targets = [
        "/macs?mac=",
        "/olts?page=",
        "/onus?size=",
        "/onus?status=",
        "/audit-logs?result=",
        "/events?from=",
        "/alarms?severity=",
        "/onus/1/traffic/history?step=",
        "/traffic/top?size=",
    ];
    for (n, target) in targets.iter().enumerate() {
        let (status, body) = in_russian(&service, &format!("{target}{}", hostile(n))).await;
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert_eq!(status, 400, "{target}: {}", cut(&body.to_string()));
        assert!(
            matches!(body["error"]["code"].as_str(), Some("INVALID_PARAMETER")),
            "{target}: {}",
            cut(&body.to_string())
        );
        assert!(
            message.len() <= MOST_MESSAGE_BYTES,
            "{target}: a message of {} bytes",
            message.len()
        );
    }
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_value_that_looks_like_the_sentence_is_quoted_not_translated() {
    let sim = steady_sim(1, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().join("data")).await;
    let value = "x` at line 1 column 2";
    let (status, body) = in_russian(&service, &format!("/olts?page={}", encoded(value))).await;
    assert_eq!(status, 400, "{body}");
    let message = body["error"]["message"].as_str().expect("message");
    // The value stands as the client sent it, its backtick escaped so it cannot close the
    // quotation it stands in; none of its words became Russian.
    assert!(message.contains("`x\\` at line 1 column 2`"), "{message}");
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_too_large_to_translate_keeps_its_code_and_a_cut_message() {
    let sim = steady_sim(1, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().join("data")).await;
    let client = reqwest::Client::new();
    // A JSON body whose one field's name is 60 KB: the parser names it in its refusal.
    // And a CSV import of one line of a megabyte: the refusal names the bad line.
    let json = format!("{{\"{}\": 1}}", "n".repeat(60_000));
    let csv = format!("{},1\n", "N".repeat(1_000_000));
    for (path, content_type, body) in [
        ("/splitters", "application/json", json),
        ("/placements/import", "text/csv", csv),
    ] {
        let response = client
            .post(format!("{}{path}", service.base))
            .header("X-API-Key", &service.full)
            .header("Accept-Language", "ru")
            .header("Content-Type", content_type)
            .body(body)
            .send()
            .await
            .expect("HTTP request");
        assert_eq!(response.status(), 400, "{path}");
        let envelope: Value = response
            .json()
            .await
            .expect("the envelope, not an empty body");
        let message = envelope["error"]["message"].as_str().expect("message");
        assert_eq!(
            envelope["error"]["code"],
            "INVALID_BODY",
            "{path}: {}",
            cut(message)
        );
        assert!(
            message.len() <= MOST_MESSAGE_BYTES,
            "{path}: {} bytes",
            message.len()
        );
    }
    service.stop().await;
}

/// The first 200 characters of `text`, for an assertion's message.
fn cut(text: &str) -> String {
    text.chars().take(200).collect()
}

/// A FULL-key request with a JSON body; status and envelope.
async fn write(service: &TestService, method: Method, path: &str, body: &Value) -> (u16, Value) {
    let response = reqwest::Client::new()
        .request(method, format!("{}{path}", service.base))
        .header("X-API-Key", &service.full)
        .header("Content-Type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("HTTP request");
    let status = response.status().as_u16();
    (status, response.json().await.expect("JSON"))
}

/// A CSV import of `csv` sent as `content_type`.
async fn import(
    service: &TestService,
    query: &str,
    csv: String,
    content_type: &str,
) -> (u16, Value) {
    let response = reqwest::Client::new()
        .post(format!("{}/placements/import{query}", service.base))
        .header("X-API-Key", &service.full)
        .header("Content-Type", content_type)
        .body(csv)
        .send()
        .await
        .expect("HTTP request");
    let status = response.status().as_u16();
    (status, response.json().await.expect("JSON"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_and_comments_refuse_invisible_characters_and_compare_composed() {
    let sim = steady_sim(1, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().join("data")).await;
    all_polled(&service).await;
    let port = sim.expected_onus(1)[0].pon_port.clone();
    let splitter = |name: &str| json!({"name": name, "oltId": 1, "ponPort": port});
    let (status, body) = write(&service, Method::POST, "/splitters", &splitter("ODB-1")).await;
    assert_eq!(status, 200, "{body}");
    for invisible in [
        "\u{200b}",
        "\u{200e}",
        "\u{200f}",
        "\u{061c}",
        "\u{feff}",
        "\u{ad}",
        "\u{e0041}",
    ] {
        let name = format!("ODB{invisible}-1");
        let (status, body) = write(&service, Method::POST, "/splitters", &splitter(&name)).await;
        assert_eq!(status, 400, "{name:?} was taken: {body}");
        assert_eq!(body["error"]["code"], "INVALID_PARAMETER");
        let address = json!({"name": "ODB-2", "oltId": 1, "ponPort": port, "address": format!("ул. Ленина{invisible}, 5")});
        let (status, body) = write(&service, Method::POST, "/splitters", &address).await;
        assert_eq!(status, 400, "address with {invisible:?} was taken: {body}");
    }
    // "É" composed and decomposed are one name.
    let (status, body) = write(
        &service,
        Method::POST,
        "/splitters",
        &splitter("ODB-\u{c9}"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = write(
        &service,
        Method::POST,
        "/splitters",
        &splitter("ODB-E\u{301}"),
    )
    .await;
    assert_eq!(status, 409, "a second splitter of the same name: {body}");
    // An acknowledgement's comment follows the same rule as names.
    let ack = json!({"comment": "checked \u{202e}kcab"});
    let (status, body) = write(&service, Method::POST, "/alarms/1/ack", &ack).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], "INVALID_PARAMETER");
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn imports_refuse_conflicts_and_other_types_and_their_reports_are_bounded() {
    let sim = steady_sim(1, 8).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().join("data")).await;
    all_polled(&service).await;
    let onus = sim.expected_onus(1);
    let port = onus[0].pon_port.clone();
    let twin = onus
        .iter()
        .find(|o| o.pon_port == port && o.serial != onus[0].serial);
    let twin = twin.expect("two ONUs on one port");
    let mut ids = Vec::new();
    for name in ["ODB-A", "ODB-B"] {
        let body = json!({"name": name, "oltId": 1, "ponPort": port});
        let (status, body) = write(&service, Method::POST, "/splitters", &body).await;
        assert_eq!(status, 200, "{body}");
        ids.push(body["data"]["id"].as_u64().expect("id"));
    }

    // Two lines placing one ONU under two splitters: a bad line, nothing placed.
    let serial = &onus[0].serial;
    let csv = format!(
        "onu,splitter\n{serial},ODB-A\n{},ODB-A\n{serial},ODB-B\n",
        twin.serial
    );
    let (status, body) = import(&service, "", csv.clone(), "text/csv").await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], "INVALID_BODY");
    let (status, report) = import(&service, "?dryRun=true", csv.clone(), "text/csv").await;
    assert_eq!(status, 200, "{report}");
    let report = &report["data"];
    assert_eq!(report["badLines"], 1, "{report}");
    assert_eq!(report["bad"][0]["line"], 4, "{report}");

    // The same lines sent as JSON are not read as CSV.
    let (status, body) = import(&service, "", csv, "application/json").await;
    assert_eq!(status, 415, "{body}");
    assert_eq!(body["error"]["code"], "UNSUPPORTED_MEDIA_TYPE");

    // A megabyte of bad lines: counted, the first hundred listed, each cut.
    let long = "Z".repeat(90);
    let lines: String = (0..9_000).map(|n| format!("NO{n}{long},ODB-A\n")).collect();
    let (status, report) = import(&service, "?dryRun=true", lines, "text/csv").await;
    assert_eq!(status, 200, "{}", cut(&report.to_string()));
    let report = &report["data"];
    assert_eq!(report["badLines"], 9_000);
    let listed = report["bad"].as_array().expect("bad lines");
    assert_eq!(listed.len(), 100);
    assert!(listed
        .iter()
        .all(|b| b["text"].as_str().expect("text").chars().count() <= 65));
    assert!(
        report.to_string().len() < 100_000,
        "{} bytes",
        report.to_string().len()
    );
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_placement_needs_an_explicit_null() {
    let sim = steady_sim(1, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().join("data")).await;
    all_polled(&service).await;
    let port = sim.expected_onus(1)[0].pon_port.clone();
    let (_, page) = service.get(&format!("/onus?size=1&ponPort={port}")).await;
    let onu = page["data"][0]["id"].as_u64().expect("an ONU");
    let place = format!("/onus/{onu}/placement");
    let body = json!({"name": "ODB-1", "oltId": 1, "ponPort": port});
    let (status, first) = write(&service, Method::POST, "/splitters", &body).await;
    assert_eq!(status, 200, "{first}");
    let first = first["data"]["id"].as_u64().expect("id");
    let (status, body) = write(
        &service,
        Method::POST,
        &place,
        &json!({"splitterId": first}),
    )
    .await;
    assert_eq!(status, 200, "{body}");

    // `{}` takes nothing off: the field must be given, `null` to remove.
    let (status, body) = write(&service, Method::POST, &place, &json!({})).await;
    assert_eq!(status, 400, "{body}");
    let kept = service.state.records.placement(onu).expect("placement");
    assert_eq!(kept, Some(first as u32), "`{{}}` took the ONU off");
    let (status, body) = write(&service, Method::POST, &place, &json!({"splitterId": null})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        service.state.records.placement(onu).expect("placement"),
        None
    );
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_splitters_id_is_never_reused_and_nothing_lands_under_a_deleted_one() {
    let sim = steady_sim(1, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().join("data")).await;
    all_polled(&service).await;
    let port = sim.expected_onus(1)[0].pon_port.clone();
    let (_, page) = service.get(&format!("/onus?size=1&ponPort={port}")).await;
    let onu = page["data"][0]["id"].as_u64().expect("an ONU");
    let place = format!("/onus/{onu}/placement");
    let body = json!({"name": "ODB-1", "oltId": 1, "ponPort": port});
    let (status, first) = write(&service, Method::POST, "/splitters", &body).await;
    assert_eq!(status, 200, "{first}");
    let first = first["data"]["id"].as_u64().expect("id");

    // A deleted splitter's id is never given again.
    let path = format!("/splitters/{first}");
    let (status, body) = write(&service, Method::DELETE, &path, &json!({})).await;
    assert_eq!(status, 200, "{body}");
    let body = json!({"name": "ODB-2", "oltId": 1, "ponPort": port});
    let (status, second) = write(&service, Method::POST, "/splitters", &body).await;
    assert_eq!(status, 200, "{second}");
    assert!(
        second["data"]["id"].as_u64().expect("id") > first,
        "{second}"
    );

    // The race's losing order, replayed: the handler checked the splitter, then it was
    // deleted, then the placement is written. Under the deletion's lock, it is refused.
    let records = &service.state.records;
    let late = records
        .place(&[(onu, Some(first as u32))])
        .await
        .expect("store");
    assert_eq!(
        late,
        Err(first as u32),
        "placed under deleted splitter {first}"
    );
    assert_eq!(records.placement(onu).expect("placement"), None);

    // A placement racing the deletion of its splitter lands before it (and goes with
    // it) or is refused: never a placement under a splitter that is gone.
    for round in 0..40 {
        let body = json!({"name": format!("ODB-race-{round}"), "oltId": 1, "ponPort": port});
        let (status, created) = write(&service, Method::POST, "/splitters", &body).await;
        assert_eq!(status, 200, "{created}");
        let id = created["data"]["id"].as_u64().expect("id");
        let path = format!("/splitters/{id}");
        let (target, nothing) = (json!({"splitterId": id}), json!({}));
        let (deleted, placed) = tokio::join!(
            write(&service, Method::DELETE, &path, &nothing),
            write(&service, Method::POST, &place, &target),
        );
        assert_eq!(deleted.0, 200, "{}", deleted.1);
        assert!([200, 400, 404].contains(&placed.0), "{}", placed.1);
        let records = &service.state.records;
        if let Some(under) = records.placement(onu).expect("placement") {
            assert!(
                records.splitter(under).expect("splitter").is_some(),
                "round {round}: ONU {onu} placed under splitter {under}, which is gone"
            );
        }
    }
    service.stop().await;
}
