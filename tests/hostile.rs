//! Hostile HTTP input against the real server, sent as raw bytes over TCP so nothing in a
//! client library tidies it first: huge and deeply nested bodies, invalid UTF-8 in the
//! body, path, query and headers, absurd query strings and header sets. Every answer is
//! the error envelope with a 4xx code (never a 500, never a dropped connection without
//! an answer), and the service answers normally afterwards.

use crate::common;

use crate::common::raw::{head, json_post, raw};
use crate::common::TestService;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_requests_get_envelopes_and_the_service_carries_on() {
    let sim = common::steady_sim(1, 8).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let service = TestService::start(&sim, dir.path().join("data")).await;
    common::all_polled(&service).await;
    let (_, body) = service.get("/olts/1/onus?size=1").await;
    let onu = body["data"][0]["id"].as_u64().expect("an ONU id");
    let key = service.full.clone();
    let vlan = format!("/onus/{onu}/vlan");

    // Bodies: huge, deeply nested, invalid UTF-8, not JSON at all.
    let huge = vec![b' '; 8 * 1024 * 1024];
    raw(&service, &json_post(vlan.as_bytes(), &key, &huge), &huge)
        .await
        .assert_error(413, "PAYLOAD_TOO_LARGE");
    let deep = format!("{}{}", "[".repeat(30_000), "]".repeat(30_000));
    raw(
        &service,
        &json_post(vlan.as_bytes(), &key, deep.as_bytes()),
        deep.as_bytes(),
    )
    .await
    .assert_error(400, "INVALID_BODY");
    let deep_object = format!("{}1{}", "{\"vlan\":".repeat(5_000), "}".repeat(5_000));
    raw(
        &service,
        &json_post(vlan.as_bytes(), &key, deep_object.as_bytes()),
        deep_object.as_bytes(),
    )
    .await
    .assert_error(400, "INVALID_BODY");
    let not_utf8 = b"{\"description\": \"\xff\xfe\xc0\xaf\"}";
    raw(
        &service,
        &json_post(
            format!("/onus/{onu}/description").as_bytes(),
            &key,
            not_utf8,
        ),
        not_utf8,
    )
    .await
    .assert_error(400, "INVALID_BODY");
    let nul = b"{\"vlan\": 1\x00}";
    raw(&service, &json_post(vlan.as_bytes(), &key, nul), nul)
        .await
        .assert_error(400, "INVALID_BODY");
    // A length that promises more than ever comes: the server gives up, not waits forever.
    let short = b"{\"vlan\":";
    let mut lying = json_post(vlan.as_bytes(), &key, short);
    lying.extend_from_slice(b"\r\nX-Note: the body below is 8 bytes, not 9");
    let lying = String::from_utf8(lying)
        .expect("ascii")
        .replace("Content-Length: 8", "Content-Length: 9");
    let answer = raw(&service, lying.as_bytes(), short).await;
    assert!(answer.status == 400 || answer.status == 408, "{answer:?}");

    // Paths and query strings: invalid UTF-8, overflows, absurd lengths and counts.
    raw(&service, &head("GET", b"/olts/%FF%FE", &key, &[]), b"")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    raw(
        &service,
        &head("GET", b"/onus/99999999999999999999999", &key, &[]),
        b"",
    )
    .await
    .assert_error(400, "INVALID_PARAMETER");
    raw(
        &service,
        &head("GET", b"/olts?status=%FF%FE", &key, &[]),
        b"",
    )
    .await
    .assert_error(400, "INVALID_PARAMETER");
    raw(&service, &head("GET", b"/olts?size=-1", &key, &[]), b"")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    raw(
        &service,
        &head("GET", b"/onus?page=18446744073709551616", &key, &[]),
        b"",
    )
    .await
    .assert_error(400, "INVALID_PARAMETER");
    let many = format!("/onus?{}", "q=a&".repeat(5_000));
    let answer = raw(&service, &head("GET", many.as_bytes(), &key, &[]), b"").await;
    assert!(answer.status < 500, "{answer:?}");
    answer.envelope();
    let long = format!("/onus?q={}", "x".repeat(60_000));
    let answer = raw(&service, &head("GET", long.as_bytes(), &key, &[]), b"").await;
    assert!(answer.status < 500, "{answer:?}");
    let long_path = format!("/olts/{}", "9".repeat(60_000));
    raw(&service, &head("GET", long_path.as_bytes(), &key, &[]), b"")
        .await
        .assert_error(400, "INVALID_PARAMETER");

    // Headers: a key that is not UTF-8, a huge key, a flood of headers.
    raw(
        &service,
        &head(
            "GET",
            b"/olts",
            "pk_\u{ff}",
            &[b"X-Api-Key-Extra: \xff\xfe"],
        ),
        b"",
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    let mut bad_key = head("GET", b"/olts", "", &[]);
    bad_key.extend_from_slice(b"pk_\xff\xfe\xfd");
    raw(&service, &bad_key, b"")
        .await
        .assert_error(401, "UNAUTHORIZED");
    let huge_key = "k".repeat(20_000);
    raw(&service, &head("GET", b"/olts", &huge_key, &[]), b"")
        .await
        .assert_error(401, "UNAUTHORIZED");
    let flood: Vec<Vec<u8>> = (0..90)
        .map(|i| format!("X-Filler-{i}: {}", "v".repeat(100)).into_bytes())
        .collect();
    let flood: Vec<&[u8]> = flood.iter().map(Vec::as_slice).collect();
    let answer = raw(&service, &head("GET", b"/olts", &key, &flood), b"").await;
    assert_eq!(answer.status, 200, "{answer:?}");
    let forwarded = format!("X-Forwarded-For: {}", "1.2.3.4, ".repeat(2_000));
    let answer = raw(
        &service,
        &head("GET", b"/olts", &key, &[forwarded.as_bytes()]),
        b"",
    )
    .await;
    assert_eq!(answer.status, 200, "{answer:?}");

    // Still serving, and nothing the hostile requests sent was applied.
    let (status, body) = service.get(&format!("/onus/{onu}")).await;
    assert_eq!(status, 200, "{body}");
    let expected = sim.expected_onus(1);
    let serial = body["data"]["serial"].as_str().expect("serial");
    let original = expected
        .iter()
        .find(|o| o.serial.eq_ignore_ascii_case(serial))
        .expect("the ONU is the simulator's");
    assert_eq!(body["data"]["description"], original.description.as_str());
    service.stop().await;
    sim.shutdown().await;
}
