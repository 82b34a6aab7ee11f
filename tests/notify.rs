//! Notifications through the real service, to real receivers: an SMTP server no one here
//! wrote (aiosmtpd, `scripts/smtp_sink.py`) and a loopback HTTP server speaking the
//! Telegram Bot API's `sendMessage` (it records each request, and refuses the first with
//! `429` and a `retry_after`, as Telegram does under load). A simulated splitter cut of 12
//! ONUs on a 64-ONU port is one message a chat and one e-mail naming the splitter, the
//! ONUs and their subscribers, and one more each when it clears — not twelve. And
//! `kill -9` of `ponkeeper serve` while messages go out loses none of them. A Bot API
//! that asks for a wait of 2^64 - 1 seconds, with a 20 KB description that holds a line
//! break, is heeded for 5 minutes at most and quoted cut and escaped.

use crate::common;

use crate::common::serve::Serve;
use crate::common::{all_polled, eventually, test_config, tools, TestService};
use ponkeeper::channels::NotifyConfig;
use ponkeeper_actors::domain::{OnuStatus, Vendor};
use ponkeeper_sim::{Dynamics, FleetSpec, FleetVendors, SimFleet};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};

/// What a receiver got so far.
type Seen = Arc<Mutex<Vec<Value>>>;

fn seen(list: &Seen) -> Vec<Value> {
    list.lock().expect("lock").clone()
}

/// The Bot API stand-in: `POST …/bot{token}/sendMessage`, each request kept as
/// `{"path", "status", "chatId", "text"}`.
struct BotApi {
    url: String,
    requests: Seen,
    _server: tokio::task::JoinHandle<()>,
}

impl BotApi {
    /// Answers `429` to the first `refuse_first` requests, then `ok` after `delay`.
    async fn start(refuse_first: usize, delay: Duration) -> BotApi {
        let refusal = json!({"ok": false, "error_code": 429, "description": "Too Many Requests: retry after 1", "parameters": {"retry_after": 1}});
        BotApi::refusing(refuse_first, delay, refusal).await
    }

    /// As [`BotApi::start`], refusing with `refusal` as the 429's body.
    async fn refusing(refuse_first: usize, delay: Duration, refusal: Value) -> BotApi {
        let requests: Seen = Arc::default();
        let kept = requests.clone();
        let handler = move |uri: axum::http::Uri, body: axum::body::Bytes| {
            let kept = kept.clone();
            let refusal = refusal.clone();
            async move {
                tokio::time::sleep(delay).await;
                let body: Value = serde_json::from_slice(&body).unwrap_or_default();
                let mut kept = kept.lock().expect("lock");
                let refuse = kept.len() < refuse_first;
                let status = if refuse { 429 } else { 200 };
                kept.push(json!({
                    "path": uri.path(),
                    "status": status,
                    "chatId": body["chat_id"],
                    "text": body["text"],
                }));
                let answer = if refuse {
                    refusal
                } else {
                    json!({"ok": true, "result": {"message_id": kept.len()}})
                };
                (
                    axum::http::StatusCode::from_u16(status).expect("status"),
                    axum::Json(answer),
                )
            }
        };
        let app = axum::Router::new().fallback(handler);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("http://{}/telegram", listener.local_addr().expect("addr"));
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        BotApi {
            url,
            requests,
            _server: server,
        }
    }

    /// The texts Telegram took, in order.
    fn taken(&self) -> Vec<Value> {
        seen(&self.requests)
            .into_iter()
            .filter(|r| r["status"] == 200)
            .collect()
    }
}

/// The SMTP server: `scripts/smtp_sink.py` as a child process.
struct SmtpSink {
    port: u16,
    mails: Seen,
    _child: tokio::process::Child,
}

impl SmtpSink {
    /// Starts it, or `None` (the test skips) when Python with aiosmtpd is missing.
    async fn start(test: &str) -> Option<SmtpSink> {
        let python = std::env::var_os("WEBHOOK_PYTHON")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python"));
        let usable = std::process::Command::new(&python)
            .args(["-c", "import aiosmtpd"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        let tool = format!("Python with aiosmtpd ({})", python.display());
        if !tools::present(test, &tool, usable) {
            return None;
        }
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/smtp_sink.py");
        let mut child = tokio::process::Command::new(python)
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the SMTP sink starts");
        let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let first = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
            .await
            .expect("the sink prints its port")
            .expect("read")
            .expect("a line");
        let port: Value = serde_json::from_str(&first).expect("JSON");
        let mails: Seen = Arc::default();
        let kept = mails.clone();
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                let mail: Value = serde_json::from_str(&line).expect("the sink prints JSON");
                kept.lock().expect("lock").push(mail);
            }
        });
        Some(SmtpSink {
            port: port["port"].as_u64().expect("port") as u16,
            mails,
            _child: child,
        })
    }
}

fn channel(text: &str) -> NotifyConfig {
    toml::from_str(text).expect("a [[notify]] entry")
}

/// Waits until `list` holds at least `n` entries `keep` admits, and answers those.
async fn at_least(
    what: &str,
    n: usize,
    list: impl Fn() -> Vec<Value>,
    keep: impl Fn(&Value) -> bool,
) -> Vec<Value> {
    eventually(what, Duration::from_secs(60), || async {
        let kept: Vec<Value> = list().into_iter().filter(&keep).collect();
        (kept.len() >= n).then_some(kept)
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_splitter_cut_is_one_message_a_chat_and_one_mail_and_one_more_when_it_clears() {
    let test = "a_splitter_cut_is_one_message_a_chat_and_one_mail_and_one_more_when_it_clears";
    let Some(smtp) = SmtpSink::start(test).await else {
        return;
    };
    let bot = BotApi::start(1, Duration::ZERO).await;
    std::env::set_var("NOTIFY_TEST_BOT_TOKEN", "123456:TEST-token_1");
    let sim = SimFleet::start(FleetSpec {
        dynamics: Dynamics::none(),
        vendors: FleetVendors::One(Vendor::Bdcom),
        ..FleetSpec::new(1, 256)
    })
    .await
    .expect("simulator starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let inventory = dir.path().join("inventory.toml");
    std::fs::write(&inventory, sim.inventory().to_toml()).expect("inventory");
    let mut config = test_config(dir.path().to_path_buf(), inventory);
    config.polling.timeout = Duration::from_secs(2);
    config.polling.deadline = Duration::from_secs(30);
    config.notify = vec![
        channel(&format!(
            "name = \"noc-telegram\"\nkind = \"telegram\"\napi_url = \"{}\"\ntoken_env = \"NOTIFY_TEST_BOT_TOKEN\"\nchat_ids = [-1001, \"@noc_duty\"]\nmin_severity = \"WARNING\"\nlanguage = \"ru\"\ngroup_wait = \"3s\"\n",
            bot.url
        )),
        channel(&format!(
            "name = \"noc-mail\"\nkind = \"email\"\nsmtp_host = \"127.0.0.1\"\nsmtp_port = {}\ntls = \"none\"\nfrom = \"ponkeeper <ponkeeper@isp.example>\"\nto = [\"duty@isp.example\", \"chief@isp.example\"]\ntypes = [\"SPLITTER_OUTAGE\", \"PON_OUTAGE\"]\ngroup_wait = \"3s\"\n",
            smtp.port
        )),
    ];
    let service = TestService::start_with(config, true).await;
    all_polled(&service).await;

    // Twelve online ONUs in a row on the first 64-ONU port hang under splitter ODB-12,
    // each with a subscriber.
    let twelve = common::online_in_a_row(&sim, 1, 64, 12);
    let port = twelve[0].pon_port.clone();
    let (status, splitter) = service
        .post_json(
            "/splitters",
            &json!({"name": "ODB-12", "oltId": 1, "ponPort": port, "address": "ул. Ленина, 5"}),
        )
        .await;
    assert_eq!(status, 200, "{splitter}");
    let splitter_id = splitter["data"]["id"].as_u64().expect("id");
    let rows = eventually("the twelve listed", Duration::from_secs(20), || async {
        let (_, page) = service.get("/onus?size=500").await;
        let rows: Vec<Value> = page["data"]
            .as_array()?
            .iter()
            .filter(|r| twelve.iter().any(|o| r["serial"] == o.serial.as_str()))
            .cloned()
            .collect();
        (rows.len() == 12).then_some(rows)
    })
    .await;
    let mut subscribers = Vec::new();
    for (n, row) in rows.iter().enumerate() {
        let id = &row["id"];
        let place = json!({"splitterId": splitter_id});
        let (status, body) = service
            .post_json(&format!("/onus/{id}/placement"), &place)
            .await;
        assert_eq!(status, 200, "{body}");
        let (contract, name) = (format!("Д-{:02}", n + 1), format!("Абонент {}", n + 1));
        let bind = json!({"contract": contract, "name": name});
        let (status, body) = service
            .post_json(&format!("/onus/{id}/subscriber"), &bind)
            .await;
        assert_eq!(status, 200, "{body}");
        subscribers.push(format!("{contract} {name}"));
    }

    let (first, last) = (twelve[0].onu_index, twelve[11].onu_index);
    sim.apply_faults(
        &format!("los:{port}:{first}-{last}@1")
            .parse()
            .expect("a fault"),
    )
    .expect("the simulator takes it");
    let raised = |m: &Value| {
        m["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("🔴 Авария сплиттера"))
    };
    let messages = at_least("the outage in both chats", 2, || bot.taken(), raised).await;
    // The refused first chat is sent again; the other is not.
    let chats: Vec<String> = messages.iter().map(|m| m["chatId"].to_string()).collect();
    assert_eq!(chats, ["\"@noc_duty\"", "-1001"]);
    let text = messages[0]["text"].as_str().expect("text");
    assert!(
        messages[0]["path"] == "/telegram/bot123456:TEST-token_1/sendMessage",
        "{messages:?}"
    );
    assert!(text.contains("ONU без связи 12"), "{text}");
    assert!(text.contains("Сплиттер: ODB-12, ул. Ленина, 5"), "{text}");
    for subscriber in &subscribers {
        assert!(
            text.contains(subscriber.as_str()),
            "{subscriber} not in\n{text}"
        );
    }
    let mails = at_least("the outage by mail", 1, || seen(&smtp.mails), |_| true).await;
    assert_eq!(
        mails[0]["to"],
        json!(["duty@isp.example", "chief@isp.example"])
    );
    let subject = mails[0]["subject"].as_str().expect("subject");
    assert!(
        subject.starts_with("🔴 Splitter outage — OLT 1 ("),
        "{subject}"
    );
    assert!(subject.ends_with(": ONUs down 12"), "{subject}");
    let body = mails[0]["body"].as_str().expect("body");
    assert!(body.contains("Splitter: ODB-12, ул. Ленина, 5"), "{body}");
    assert!(
        subscribers.iter().all(|s| body.contains(s.as_str())),
        "{body}"
    );

    sim.clear_faults(1);
    let cleared = |m: &Value| {
        m["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("✅ Устранено: Авария сплиттера"))
    };
    at_least("the clear in both chats", 2, || bot.taken(), cleared).await;
    let mails = at_least("the clear by mail", 2, || seen(&smtp.mails), |_| true).await;
    assert!(mails[1]["subject"]
        .as_str()
        .expect("subject")
        .starts_with("✅ Cleared: Splitter outage"));
    // Settled: four messages (two chats, raise and clear) after one refusal, two mails.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let requests = seen(&bot.requests);
    assert_eq!(requests[0]["status"], 429, "{requests:?}");
    assert_eq!(bot.taken().len(), 4, "not one a ONU: {:?}", bot.taken());
    assert_eq!(seen(&smtp.mails).len(), 2);
    let (status, list) = service.get("/notifications").await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["data"][0]["name"], "noc-telegram");
    assert_eq!(list["data"][0]["sent"], 2);
    assert_eq!(list["data"][1]["sent"], 2);
    service.stop().await;
}

/// `(alarm id, cleared)` of a message, from its last line and its mark.
fn alarm_of(text: &str) -> (u64, bool) {
    let id = text
        .lines()
        .last()
        .and_then(|l| l.strip_prefix("Alarm "))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no alarm id in {text}"));
    (id, text.starts_with("✅"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_while_sending_loses_no_message() {
    // Slow to take each message, so the kill finds most still to send.
    let bot = BotApi::start(0, Duration::from_millis(250)).await;
    let token = ("NOTIFY_TEST_BOT_TOKEN_KILL", "654321:kill-9");
    let sim = SimFleet::start(FleetSpec {
        dynamics: Dynamics::none(),
        vendors: FleetVendors::One(Vendor::Huawei),
        ..FleetSpec::new(1, 128)
    })
    .await
    .expect("simulator starts");
    let entry = format!(
        "[[notify]]\nname = \"noc\"\nkind = \"telegram\"\napi_url = \"{}\"\ntoken_env = \"{}\"\nchat_ids = [42]\nmax_per_minute = 1000\ngroup_wait = \"0s\"\n",
        bot.url, token.0
    );
    let mut serve = Serve::prepare(&sim, &[token], &entry);
    serve.start().await;
    // One ONU down on each port: lone downs, an alarm each (no port is an outage).
    let mut lone = Vec::new();
    let onus = sim.expected_onus(1);
    for onu in onus.iter().filter(|o| o.status == OnuStatus::Online) {
        if lone
            .iter()
            .all(|l: &&ponkeeper_sim::ExpectedOnu| l.pon_port != onu.pon_port)
        {
            lone.push(onu);
        }
    }
    assert!(lone.len() >= 8, "{} ports", lone.len());
    for onu in &lone {
        assert!(sim.set_onu_online(1, &onu.serial, false));
    }
    at_least("some messages", 3, || bot.taken(), |_| true).await;
    serve.kill_9().await;
    let before = bot.taken().len();
    assert!(before < lone.len(), "all sent before the kill");
    serve.start().await;
    for onu in &lone {
        assert!(sim.set_onu_online(1, &onu.serial, true));
    }
    // Every down and every return, each at least once.
    let (distinct, repeats) = eventually(
        "every alarm raised and cleared",
        Duration::from_secs(60),
        || async {
            let mut distinct: Vec<(u64, bool)> = Vec::new();
            let mut repeats = 0;
            for message in bot.taken() {
                let key = alarm_of(message["text"].as_str().expect("text"));
                if distinct.contains(&key) {
                    repeats += 1;
                } else {
                    distinct.push(key);
                }
            }
            (distinct.len() == 2 * lone.len()).then_some((distinct, repeats))
        },
    )
    .await;
    let all = bot.taken();
    let raised = distinct.iter().filter(|(_, cleared)| !cleared).count();
    assert_eq!(raised, lone.len(), "{all:?}");
    // At most the message in flight when the process died is sent twice.
    assert!(repeats <= 1, "{repeats} repeats: {all:?}");
    serve.kill_9().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_retry_after_and_a_forged_description_are_bounded() {
    let forged = format!(
        "Too Many Requests\r\n2026-12-02T06:00:00Z  INFO ponkeeper: forged {}",
        "x".repeat(20_000)
    );
    let refusal = json!({"ok": false, "error_code": 429, "description": forged,
        "parameters": {"retry_after": u64::MAX}});
    let bot = BotApi::refusing(1, Duration::ZERO, refusal).await;
    std::env::set_var("NOTIFY_TEST_BOT_TOKEN_BOUND", "123456:bound");
    let sim = SimFleet::start(FleetSpec {
        dynamics: Dynamics::none(),
        vendors: FleetVendors::One(Vendor::Huawei),
        ..FleetSpec::new(1, 8)
    })
    .await
    .expect("simulator starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let inventory = dir.path().join("inventory.toml");
    std::fs::write(&inventory, sim.inventory().to_toml()).expect("inventory");
    let mut config = test_config(dir.path().to_path_buf(), inventory);
    config.timezone = "UTC".into();
    config.notify = vec![channel(&format!(
        "name = \"noc\"\nkind = \"telegram\"\napi_url = \"{}\"\ntoken_env = \"NOTIFY_TEST_BOT_TOKEN_BOUND\"\nchat_ids = [42]\ngroup_wait = \"0s\"\n",
        bot.url
    ))];
    let service = TestService::start_with(config, true).await;
    all_polled(&service).await;
    let online = sim.expected_onus(1);
    let onu = online.iter().find(|o| o.status == OnuStatus::Online);
    assert!(sim.set_onu_online(1, &onu.expect("an online ONU").serial, false));

    let channel = eventually("the refusal noted", Duration::from_secs(60), || async {
        let (_, list) = service.get("/notifications").await;
        let channel = list["data"][0].clone();
        (channel["failures"] == 1).then_some(channel)
    })
    .await;
    let refused_at = chrono::Utc::now().naive_utc();
    let next = channel["nextAttemptAt"]
        .as_str()
        .expect("when it tries again");
    let next = chrono::NaiveDateTime::parse_from_str(next, "%Y-%m-%dT%H:%M:%S")
        .or_else(|_| chrono::NaiveDateTime::parse_from_str(next, "%Y-%m-%dT%H:%M:%S%.f"))
        .unwrap_or_else(|e| panic!("{next}: {e}"));
    let wait = next - refused_at;
    assert!(
        wait <= chrono::TimeDelta::seconds(301),
        "the next attempt is {wait} away"
    );
    let said = channel["lastError"].as_str().expect("the reason");
    assert!(
        said.chars().count() < 400,
        "{} characters",
        said.chars().count()
    );
    assert!(!said.contains(['\r', '\n']), "{said}");
    assert!(said.contains("Too Many Requests"), "{said}");
    service.stop().await;
}
