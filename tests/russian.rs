//! A client that prefers Russian (`Accept-Language: ru`) against the real service: every
//! kind of refusal comes with the same status and code as in English and a message with
//! no English word left (the service's own rule, `foreign_words`), and the sentences the
//! service returns as data — an OLT's session reasons, the event log's messages — are in
//! Russian too. Without the header, the same requests answer in English.

use crate::common;

use crate::common::{steady_sim, TestService};
use ponkeeper::http::russian::foreign_words;
use serde_json::Value;

/// A request that is refused: method, path, key, body and the code it earns.
type Refusal<'a> = (
    reqwest::Method,
    &'a str,
    Option<&'a str>,
    Option<&'a str>,
    &'static str,
);

/// Status, `Content-Language` and body of one request.
async fn ask(
    service: &TestService,
    method: reqwest::Method,
    path: &str,
    key: Option<&str>,
    body: Option<&str>,
    language: &str,
) -> (u16, Option<String>, Value) {
    let mut request = reqwest::Client::new()
        .request(method, format!("{}{path}", service.base))
        .header("Accept-Language", language);
    if let Some(key) = key {
        request = request.header("X-API-Key", key);
    }
    if let Some(body) = body {
        request = request
            .header("Content-Type", "application/json")
            .body(body.to_string());
    }
    let response = request.send().await.expect("HTTP request");
    let status = response.status().as_u16();
    let content_language = response
        .headers()
        .get("content-language")
        .map(|v| v.to_str().expect("text").to_string());
    (
        status,
        content_language,
        response.json().await.expect("JSON"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_russian_client_gets_every_refusal_and_the_services_sentences_in_russian() {
    let sim = steady_sim(1, 4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().join("data")).await;
    common::all_polled(&service).await;
    let (_, onus) = service.get("/onus?size=1").await;
    let onu = onus["data"][0]["id"].as_u64().expect("an ONU");
    let (full, read_only) = (
        Some(service.full.as_str()),
        Some(service.read_only.as_str()),
    );
    use reqwest::Method;
    let description = format!("/onus/{onu}/description");
    let refusals: Vec<Refusal> = vec![
        (Method::GET, "/olts/999", read_only, None, "NOT_FOUND"),
        (Method::GET, "/olts", None, None, "UNAUTHORIZED"),
        (
            Method::GET,
            "/olts",
            Some("pk_nonsense"),
            None,
            "UNAUTHORIZED",
        ),
        (Method::POST, "/olts/1/poll", read_only, None, "FORBIDDEN"),
        (
            Method::GET,
            "/onus?size=0",
            read_only,
            None,
            "INVALID_PARAMETER",
        ),
        (
            Method::GET,
            "/onus?size=",
            read_only,
            None,
            "INVALID_PARAMETER",
        ),
        (
            Method::GET,
            "/onus?status=LOST",
            read_only,
            None,
            "INVALID_PARAMETER",
        ),
        (
            Method::GET,
            "/onus/abc",
            read_only,
            None,
            "INVALID_PARAMETER",
        ),
        (Method::GET, "/nowhere", read_only, None, "NOT_FOUND"),
        (Method::DELETE, "/olts", full, None, "METHOD_NOT_ALLOWED"),
        (
            Method::POST,
            &description,
            full,
            Some(r#"{"description":"Баумана 7"}"#),
            "INVALID_PARAMETER",
        ),
        (
            Method::POST,
            &description,
            full,
            Some(r#"{"descr"#),
            "INVALID_BODY",
        ),
        (
            Method::POST,
            &description,
            full,
            Some(r#"{}"#),
            "INVALID_BODY",
        ),
    ];
    for (method, path, key, body, code) in refusals {
        let (status, language, russian) = ask(
            &service,
            method.clone(),
            path,
            key,
            body,
            "ru-RU,ru;q=0.9,en;q=0.5",
        )
        .await;
        let (english_status, english_language, english) =
            ask(&service, method.clone(), path, key, body, "en").await;
        let message = russian["error"]["message"].as_str().expect("a message");
        assert_eq!(russian["error"]["code"], code, "{method} {path}: {russian}");
        assert_eq!(
            (status, &russian["error"]["code"]),
            (english_status, &english["error"]["code"])
        );
        assert_eq!(language.as_deref(), Some("ru"), "{method} {path}");
        assert_eq!(english_language, None, "{method} {path}");
        assert!(
            foreign_words(message).is_empty(),
            "{method} {path}: {message} {:?}",
            foreign_words(message)
        );
        let english = english["error"]["message"].as_str().expect("a message");
        assert!(
            !foreign_words(english).is_empty(),
            "{method} {path}: the English is {english}"
        );
    }
    let (_, _, missing) = ask(&service, Method::GET, "/olts/999", read_only, None, "ru").await;
    assert_eq!(missing["error"]["message"], "нет OLT с id 999");

    // The session's reasons and the event log's messages.
    let (_, _, olt) = ask(&service, Method::GET, "/olts/1", read_only, None, "ru").await;
    let reasons: Vec<&str> = olt["data"]["session"]["transitions"]
        .as_array()
        .expect("transitions")
        .iter()
        .map(|t| t["reason"].as_str().expect("a reason"))
        .collect();
    assert!(reasons.contains(&"опрос удался"), "{reasons:?}");
    assert!(
        reasons.iter().all(|r| foreign_words(r).is_empty()),
        "{reasons:?}"
    );
    // A restart moves the session: an OLT_STATUS_CHANGED event to read.
    let (status, _) = service.post("/olts/1/restart-session").await;
    assert_eq!(status, 200);
    let events = common::eventually("an event", std::time::Duration::from_secs(20), || async {
        let (_, _, events) = ask(
            &service,
            Method::GET,
            "/events?size=50",
            read_only,
            None,
            "ru",
        )
        .await;
        (events["data"]
            .as_array()
            .is_some_and(|list| !list.is_empty()))
        .then_some(events)
    })
    .await;
    let messages: Vec<&str> = events["data"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| e["message"].as_str().expect("a message"))
        .collect();
    assert!(
        messages.iter().any(|m| m.contains("перешёл")),
        "{messages:?}"
    );
    assert!(
        messages.iter().all(|m| foreign_words(m).is_empty()),
        "{messages:?}"
    );
    let (_, _, events) = ask(
        &service,
        Method::GET,
        "/events?size=50",
        read_only,
        None,
        "en",
    )
    .await;
    assert!(events["data"][0]["message"]
        .as_str()
        .is_some_and(|m| !foreign_words(m).is_empty()));
    service.stop().await;
}
