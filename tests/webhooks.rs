//! Webhooks through the real service, delivering to a real local HTTP receiver
//! (`scripts/webhook_receiver.py`) that checks every signature with PyPI's
//! `standardwebhooks`, an implementation no one here wrote: an ONU going down in the
//! simulator arrives as a signed `ONU_DOWN`; a receiver answering 500 gets the same event
//! again (same `webhook-id`) before the next one; `kill -9` of `ponkeeper serve` in the
//! middle of delivery loses nothing; a bad webhook stops start-up and a SIGHUP reload
//! naming the file, the key and the reason, and a refused reload keeps the old webhooks.

use crate::common::serve::Serve;
use crate::common::{all_polled, eventually, steady_sim, tools, TestService};
use ponkeeper::webhooks::WebhookConfig;
use ponkeeper_actors::domain::OnuStatus;
use ponkeeper_actors::events::EventType;
use ponkeeper_sim::SimFleet;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};

/// The Standard Webhooks reference secret (24 bytes).
const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

/// The receiver script as a child process, and the lines it printed so far.
struct Receiver {
    port: u16,
    lines: tokio::sync::mpsc::UnboundedReceiver<Value>,
    seen: Vec<Value>,
    _child: tokio::process::Child,
}

impl Receiver {
    /// Starts it, or `None` (the test skips) when Python with `standardwebhooks` is missing.
    async fn start(test: &str, fail_first: u32, delay_ms: u32) -> Option<Receiver> {
        let python = std::env::var_os("WEBHOOK_PYTHON")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python"));
        let usable = std::process::Command::new(&python)
            .args(["-c", "import standardwebhooks"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        let tool = format!("Python with standardwebhooks ({})", python.display());
        if !tools::present(test, &tool, usable) {
            return None;
        }
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/webhook_receiver.py");
        let mut child = tokio::process::Command::new(python)
            .arg(script)
            .args(["--secret", SECRET])
            .args(["--fail-first", &fail_first.to_string()])
            .args(["--delay-ms", &delay_ms.to_string()])
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the receiver starts");
        let stdout = child.stdout.take().expect("stdout");
        let (send, mut lines) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut reader = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = reader.next_line().await {
                let value: Value = serde_json::from_str(&line).expect("the receiver prints JSON");
                if send.send(value).is_err() {
                    break;
                }
            }
        });
        let first = tokio::time::timeout(Duration::from_secs(10), lines.recv())
            .await
            .expect("the receiver prints its port")
            .expect("a line");
        let port = first["port"].as_u64().expect("port") as u16;
        Some(Receiver {
            port,
            lines,
            seen: Vec::new(),
            _child: child,
        })
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/hooks/ponkeeper", self.port)
    }

    /// Waits until `done` holds for the requests received so far, and returns them.
    async fn until(
        &mut self,
        what: &str,
        timeout: Duration,
        done: impl Fn(&[Value]) -> bool,
    ) -> Vec<Value> {
        let deadline = tokio::time::Instant::now() + timeout;
        while !done(&self.seen) {
            match tokio::time::timeout_at(deadline, self.lines.recv()).await {
                Ok(Some(line)) => self.seen.push(line),
                Ok(None) => panic!("the receiver exited while waiting for {what}"),
                Err(_) => panic!(
                    "timed out after {timeout:?} waiting for {what}; received {:#?}",
                    self.seen
                ),
            }
        }
        self.seen.clone()
    }
}

/// The ids a receiver took (answered 2xx), first time each, in arrival order.
fn first_deliveries(seen: &[Value]) -> Vec<u64> {
    let mut ids = Vec::new();
    for line in seen.iter().filter(|l| l["status"] == 204) {
        assert_eq!(line["verified"], true, "{line}");
        let id: u64 = line["id"].as_str().expect("id").parse().expect("decimal");
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids
}

fn online_serials(sim: &SimFleet) -> Vec<String> {
    sim.expected_onus(1)
        .into_iter()
        .filter(|o| o.status == OnuStatus::Online)
        .map(|o| o.serial.into())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_onu_down_arrives_signed_and_a_500_is_retried_before_the_next_event() {
    let test = "an_onu_down_arrives_signed_and_a_500_is_retried_before_the_next_event";
    let Some(mut receiver) = Receiver::start(test, 1, 0).await else {
        return;
    };
    let sim = steady_sim(1, 8).await;
    let serial = online_serials(&sim)[0].clone();
    std::env::set_var("WEBHOOK_TEST_SECRET_SIGNED", SECRET);
    let dir = tempfile::tempdir().expect("tempdir");
    let url = receiver.url();
    let service = TestService::start_tuned(&sim, dir.path().join("data"), |config| {
        config.webhooks = vec![WebhookConfig {
            name: "billing".into(),
            url,
            secret_env: "WEBHOOK_TEST_SECRET_SIGNED".into(),
            types: vec![EventType::OnuDown, EventType::OnuUp],
        }];
    })
    .await;
    all_polled(&service).await;

    assert!(sim.set_onu_online(1, &serial, false));
    let seen = receiver
        .until("the ONU_DOWN, refused once", Duration::from_secs(15), |s| {
            !s.is_empty()
        })
        .await;
    assert_eq!(seen[0]["status"], 500);
    assert_eq!(seen[0]["verified"], true, "{}", seen[0]);
    let down = seen[0]["event"].clone();
    assert_eq!(down["type"], "ONU_DOWN");
    assert_eq!(down["severity"], "WARNING");
    assert_eq!(down["data"]["cause"], "LOS");
    assert_eq!(seen[0]["id"], down["id"].as_u64().expect("id").to_string());
    let (_, onus) = service.get(&format!("/onus?q={serial}")).await;
    assert_eq!(down["onuId"], onus["data"][0]["id"]);
    assert_eq!(down["oltId"], 1);

    // While it retries, GET /webhooks (READ_ONLY) says why, and never the secret.
    let (status, hooks) = service.get("/webhooks").await;
    assert_eq!(status, 200, "{hooks}");
    let hook = &hooks["data"][0];
    assert_eq!(hook["name"], "billing");
    assert_eq!(hook["url"], receiver.url());
    assert_eq!(hook["types"], serde_json::json!(["ONU_DOWN", "ONU_UP"]));
    assert!(!hooks.to_string().contains("MfKQ9r8"), "{hooks}");
    assert!(
        !hooks.to_string().contains("WEBHOOK_TEST_SECRET"),
        "{hooks}"
    );

    // The retry comes after a second's backoff, with the same id and a valid signature,
    // and the ONU_UP only after it.
    assert!(sim.set_onu_online(1, &serial, true));
    let seen = receiver
        .until("the retry and the ONU_UP", Duration::from_secs(20), |s| {
            s.len() >= 3
        })
        .await;
    assert_eq!(seen.len(), 3, "{seen:#?}");
    assert_eq!(seen[1]["status"], 204);
    assert_eq!(seen[1]["id"], seen[0]["id"]);
    assert_eq!(seen[1]["event"], down);
    let retry_after = seen[1]["timestamp"]
        .as_str()
        .and_then(|t| t.parse::<i64>().ok())
        .expect("ts")
        - seen[0]["timestamp"]
            .as_str()
            .and_then(|t| t.parse::<i64>().ok())
            .expect("ts");
    assert!(
        (0..=3).contains(&retry_after),
        "retried {retry_after} s later"
    );
    assert_eq!(seen[2]["event"]["type"], "ONU_UP");
    assert_eq!(seen[2]["event"]["onuId"], down["onuId"]);
    assert!(seen[2]["event"]["id"].as_u64() > down["id"].as_u64());
    assert_eq!(first_deliveries(&seen).len(), 2);

    let hook = eventually("the webhook caught up", Duration::from_secs(5), || async {
        let (_, hooks) = service.get("/webhooks").await;
        let hook = hooks["data"][0].clone();
        (hook["lag"] == 0).then_some(hook)
    })
    .await;
    assert_eq!(hook["deliveredUpTo"], service.state.events.last_id());
    assert_eq!(hook["lastStatus"], 204);
    assert_eq!(hook["lastError"], Value::Null);
    assert_eq!(hook["failures"], 0);
    assert_eq!(hook["nextAttemptAt"], Value::Null);
    assert!(hook["lastAttemptAt"].is_string());

    service.stop().await;
    sim.shutdown().await;
}

fn hook(name: &str, url: &str, secret_env: &str) -> String {
    format!("[[webhooks]]\nname = \"{name}\"\nurl = \"{url}\"\nsecret_env = \"{secret_env}\"\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_under_delivery_loses_nothing_and_keeps_the_order() {
    let test = "kill_9_under_delivery_loses_nothing_and_keeps_the_order";
    let Some(mut receiver) = Receiver::start(test, 0, 20).await else {
        return;
    };
    let sim = steady_sim(1, 64).await;
    let env = "WEBHOOK_TEST_SECRET_KILL";
    let mut serve = Serve::prepare(&sim, &[(env, SECRET)], &hook("noc", &receiver.url(), env));
    serve.start().await;
    let baseline = serve.event_ids().await.last().copied().unwrap_or(0);

    let serials = online_serials(&sim);
    assert!(serials.len() >= 40, "{} online", serials.len());
    for serial in &serials {
        assert!(sim.set_onu_online(1, serial, false));
    }
    // Killed with part of the downs delivered: the receiver answers in 20 ms each.
    receiver
        .until("some deliveries", Duration::from_secs(20), |s| {
            s.len() >= 10
        })
        .await;
    serve.kill_9().await;
    let before_kill = receiver.seen.len();
    assert!(before_kill < serials.len(), "all delivered before the kill");

    serve.start().await;
    for serial in &serials {
        assert!(sim.set_onu_online(1, serial, true));
    }
    let ups = eventually("every ONU_UP logged", Duration::from_secs(20), || async {
        let (_, body) = serve.get("/events?type=ONU_UP&size=1").await?;
        (body["meta"]["totalCount"].as_u64()? == serials.len() as u64).then_some(())
    });
    ups.await;
    let all = serve.event_ids().await;
    let last = *all.last().expect("events");
    let expected: Vec<u64> = (baseline + 1..=last).collect();
    assert_eq!(all, (1..=last).collect::<Vec<_>>(), "the log has gaps");
    assert!(
        expected.len() > 2 * serials.len(),
        "{} events",
        expected.len()
    );
    let seen = receiver
        .until("every event delivered", Duration::from_secs(60), |s| {
            first_deliveries(s).last() == Some(&last)
        })
        .await;
    assert_eq!(first_deliveries(&seen), expected);
    // Every request was signed right, the redelivered ones too.
    assert!(seen.iter().all(|l| l["verified"] == true));
    serve.kill_9().await;
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_webhook_stops_start_up_and_a_refused_reload_keeps_the_old_ones() {
    let sim = steady_sim(1, 4).await;
    let env = "WEBHOOK_TEST_SECRET_RELOAD";

    // Start-up: an unset variable, named with the file, the key and how to make a secret.
    let broken = Serve::prepare(
        &sim,
        &[(env, SECRET)],
        &hook("billing", "http://127.0.0.1:9/h", "WEBHOOK_TEST_NEVER_SET"),
    );
    let output = broken
        .command(&["serve"])
        .output()
        .await
        .expect("serve runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    for part in [
        broken.config.display().to_string().as_str(),
        "webhooks entry `billing`: key `secret_env`: the variable `WEBHOOK_TEST_NEVER_SET` is not set",
        "openssl rand -base64 32",
    ] {
        assert!(stderr.contains(part), "{part:?} not in {stderr}");
    }

    let mut serve = Serve::prepare(
        &sim,
        &[(env, SECRET)],
        &hook("billing", "http://127.0.0.1:9/h", env),
    );
    serve.start().await;
    let names = |body: Value| -> Vec<String> {
        body["data"]
            .as_array()
            .expect("list")
            .iter()
            .map(|h| h["name"].as_str().expect("name").to_string())
            .collect()
    };
    let (_, body) = serve.get("/webhooks").await.expect("webhooks");
    assert_eq!(names(body), ["billing"]);

    serve.rewrite_tail(
        "[[webhooks]]",
        &hook("noc", "billing.example/no-scheme", env),
    );
    serve.signal("HUP").await;
    let line = eventually(
        "the refused reload logged",
        Duration::from_secs(10),
        || async {
            serve
                .log()
                .lines()
                .find(|l| l.contains("SIGHUP: config refused"))
                .map(str::to_string)
        },
    )
    .await;
    for part in [
        serve.config.display().to_string().as_str(),
        "webhooks entry `noc`: key `url`: `billing.example/no-scheme` does not parse",
    ] {
        assert!(line.contains(part), "{part:?} not in {line}");
    }
    let (_, body) = serve.get("/webhooks").await.expect("webhooks");
    assert_eq!(names(body), ["billing"]);

    serve.rewrite_tail("[[webhooks]]", &hook("noc", "http://127.0.0.1:9/noc", env));
    serve.signal("HUP").await;
    eventually("the new webhooks", Duration::from_secs(10), || async {
        let (_, body) = serve.get("/webhooks").await?;
        (names(body) == ["noc"]).then_some(())
    })
    .await;
    serve.kill_9().await;
    sim.shutdown().await;
}
