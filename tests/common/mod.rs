//! Test harness: the real service (`App`) on `127.0.0.1:0` with an isolated data
//! directory, polling a simulated fleet over real UDP SNMP, and a small HTTP client.

pub mod audit;
pub mod ports;
pub mod raw;
pub mod replay;
pub mod serve;
pub mod sse;
pub mod tools;

use ponkeeper::app::App;
use ponkeeper::config::Config;
use ponkeeper::keys;
use ponkeeper::records::AccessLevel;
use ponkeeper_sim::{Dynamics, FleetSpec, SimFleet, DEFAULT_SSH_PASSWORD, SSH_PASSWORD_ENV};
use serde_json::Value;
use std::future::Future;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub struct TestService {
    pub base: String,
    pub full: String,
    pub read_only: String,
    pub data_dir: PathBuf,
    pub inventory_path: PathBuf,
    pub config: Config,
    /// The running service's state, for tests that look behind the API.
    pub state: ponkeeper::state::AppState,
    client: reqwest::Client,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<anyhow::Result<()>>>,
}

/// A frozen simulated fleet: values stay exactly as generated.
pub async fn steady_sim(olts: usize, onus_per_olt: usize) -> SimFleet {
    SimFleet::start(FleetSpec {
        dynamics: Dynamics::none(),
        ..FleetSpec::new(olts, onus_per_olt)
    })
    .await
    .expect("simulator starts")
}

/// Fast polling so state moves happen within a test's patience.
pub fn test_config(data_dir: PathBuf, inventory: PathBuf) -> Config {
    let mut config = Config {
        data_dir,
        inventory,
        ..Config::default()
    };
    config.polling.status_interval = Duration::from_millis(500);
    config.polling.timeout = Duration::from_millis(300);
    config.polling.retries = 0;
    config.polling.deadline = Duration::from_secs(3);
    config.polling.offline_after = 3;
    config
}

impl TestService {
    /// Starts the service on `sim`'s inventory in a fresh data directory, with the
    /// simulator's SSH password in the variable its inventory names.
    pub async fn start(sim: &SimFleet, data_dir: PathBuf) -> TestService {
        TestService::start_tuned(sim, data_dir, |_| {}).await
    }

    /// As [`TestService::start`], with `tune` applied to the test configuration first.
    pub async fn start_tuned(
        sim: &SimFleet,
        data_dir: PathBuf,
        tune: impl FnOnce(&mut Config),
    ) -> TestService {
        std::env::set_var(SSH_PASSWORD_ENV, DEFAULT_SSH_PASSWORD);
        std::fs::create_dir_all(&data_dir).expect("data dir");
        let inventory_path = data_dir.join("inventory.toml");
        std::fs::write(&inventory_path, sim.inventory().to_toml()).expect("inventory");
        let mut config = test_config(data_dir.clone(), inventory_path.clone());
        tune(&mut config);
        config.validate().expect("a valid test configuration");
        TestService::start_with(config, true).await
    }

    /// Starts the service with `config`; creates a FULL and a READ_ONLY key if asked.
    pub async fn start_with(config: Config, create_keys: bool) -> TestService {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let app = App::start(config.clone()).await.expect("service starts");
        let (mut full, mut read_only) = (String::new(), String::new());
        if create_keys {
            let state = &app.state;
            full = keys::replace(&state.records, &state.keys, "test-full", AccessLevel::Full)
                .await
                .expect("key");
            read_only = keys::replace(
                &state.records,
                &state.keys,
                "test-read-only",
                AccessLevel::ReadOnly,
            )
            .await
            .expect("key");
        }
        let state = app.state.clone();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(app.serve(listener, async {
            let _ = stopped.await;
        }));
        TestService {
            base: format!("http://{addr}/api/v1/external"),
            full,
            read_only,
            data_dir: config.data_dir.clone(),
            inventory_path: config.inventory.clone(),
            config,
            state,
            // The service closes a keep-alive connection idle for `http.idle_timeout`
            // (60 s); a pooled connection idle longer could be reused just as it closes
            // (an IncompleteMessage under load), so the pool lets go of it well before.
            client: reqwest::Client::builder()
                .pool_idle_timeout(Duration::from_secs(20))
                .build()
                .expect("an HTTP client"),
            stop: Some(stop),
            task: Some(task),
        }
    }

    pub async fn request(
        &self,
        method: reqwest::Method,
        path: &str,
        key: Option<&str>,
    ) -> (u16, Value) {
        let mut request = self.client.request(method, format!("{}{path}", self.base));
        if let Some(key) = key {
            request = request.header("X-API-Key", key);
        }
        let response = request.send().await.expect("HTTP request");
        let status = response.status().as_u16();
        let body: Value = response.json().await.expect("every answer is JSON");
        (status, body)
    }

    /// Creates a key through the running service's admin socket.
    pub async fn create_key(
        &self,
        name: &str,
        level: AccessLevel,
        rate: Option<&str>,
        allow_ip: &[&str],
    ) -> String {
        let request = ponkeeper::admin::AdminRequest::Create(keys::NewKey {
            name: name.into(),
            level,
            rate: rate.map(str::to_string),
            allow_ip: allow_ip.iter().map(|s| s.to_string()).collect(),
            key: None,
        });
        let answer = ponkeeper::admin::request(&self.data_dir, &request)
            .await
            .expect("admin socket")
            .expect("the service answers");
        answer
            .key
            .unwrap_or_else(|| panic!("key not created: {:?}", answer.error))
    }

    /// A request with extra headers; returns status, headers and body.
    pub async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        key: &str,
        headers: &[(&str, &str)],
    ) -> (u16, reqwest::header::HeaderMap, Value) {
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.base))
            .header("X-API-Key", key);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await.expect("HTTP request");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body: Value = response.json().await.expect("every answer is JSON");
        (status, headers, body)
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        self.request(reqwest::Method::GET, path, Some(&self.read_only))
            .await
    }

    pub async fn post(&self, path: &str) -> (u16, Value) {
        self.request(reqwest::Method::POST, path, Some(&self.full))
            .await
    }

    /// POSTs a raw body as JSON with the FULL key.
    pub async fn post_body(&self, path: &str, body: impl Into<reqwest::Body>) -> (u16, Value) {
        let response = self
            .client
            .post(format!("{}{path}", self.base))
            .header("X-API-Key", &self.full)
            .header("Content-Type", "application/json")
            .body(body)
            .send()
            .await
            .expect("HTTP request");
        let status = response.status().as_u16();
        let body: Value = response.json().await.expect("every answer is JSON");
        (status, body)
    }

    /// POSTs a JSON value with the FULL key.
    pub async fn post_json(&self, path: &str, body: &Value) -> (u16, Value) {
        self.post_body(path, body.to_string()).await
    }

    /// Stops the service the way SIGTERM does and waits for it.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            task.await.expect("serve task").expect("clean shutdown");
        }
    }
}

/// Polls `condition` until it yields a value or `timeout` passes.
pub async fn eventually<T, F, Fut>(what: &str, timeout: Duration, mut condition: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let started = Instant::now();
    loop {
        if let Some(value) = condition().await {
            return value;
        }
        assert!(
            started.elapsed() < timeout,
            "timed out after {timeout:?} waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits until every OLT of the service has left CONNECTING.
pub async fn all_polled(service: &TestService) {
    eventually("every OLT polled", Duration::from_secs(20), || async {
        let (_, body) = service.get("/olts?size=500").await;
        let items = body["data"].as_array()?;
        items
            .iter()
            .all(|o| o["status"] != "CONNECTING")
            .then_some(())
    })
    .await
}

/// `n` online ONUs in a row (by index) on the first port of OLT `olt` of `sim`, which
/// holds `port_size` ONUs: the ONUs a test hangs under one splitter.
pub fn online_in_a_row(
    sim: &SimFleet,
    olt: u32,
    port_size: usize,
    n: usize,
) -> Vec<ponkeeper_sim::ExpectedOnu> {
    let onus = sim.expected_onus(olt);
    let port = onus[0].pon_port.clone();
    let mut on_port: Vec<_> = onus.into_iter().filter(|o| o.pon_port == port).collect();
    on_port.sort_by_key(|o| o.onu_index);
    assert_eq!(on_port.len(), port_size, "OLT {olt}'s first port");
    let start = (0..=port_size - n)
        .find(|&s| {
            on_port[s..s + n]
                .iter()
                .all(|o| o.status == ponkeeper_actors::domain::OnuStatus::Online)
        })
        .unwrap_or_else(|| panic!("{n} online ONUs in a row"));
    on_port.drain(start..start + n).collect()
}
