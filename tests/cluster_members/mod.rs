//! The harness of `tests/cluster.rs`: a cluster CA made at test time ([`Authority`]),
//! one real `ponkeeper serve` member with its configuration, key and HTTP client
//! ([`Member`]), three of them started and settled ([`start_three`], [`settled`]), and
//! [`until`], which waits for a condition with the cluster's patience.

use ponkeeper_actors::inventory::Inventory;
use ponkeeper_sim::{DEFAULT_SSH_PASSWORD, SSH_PASSWORD_ENV};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

pub const BINARY: &str = env!("CARGO_BIN_EXE_ponkeeper");
pub const COOKIE: &str = "loopback-cluster-cookie-for-tests";
pub const OLTS: usize = 30;
pub const ONUS_PER_OLT: usize = 8;
pub const NAMES: [&str; 3] = ["alpha", "bravo", "charlie"];
/// How long any one condition of these tests may take to come true.
pub const PATIENCE: Duration = Duration::from_secs(45);
/// How long a member stays silent before the others take its OLTs, in these tests.
pub const TAKEOVER_AFTER: &str = "1500ms";

/// One test at a time: each runs three members and a simulator, which two cores hold for
/// one test but not for three.
pub static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Each member's HTTP and cluster ports, all six different and from below the
/// ephemeral range (`common::ports`).
pub fn member_ports() -> [(u16, u16); 3] {
    let ports = crate::common::ports::unused::<6>();
    std::array::from_fn(|m| (ports[2 * m], ports[2 * m + 1]))
}

/// A certificate authority of a cluster, made for the test.
pub struct Authority {
    cert: rcgen::Certificate,
    key: rcgen::KeyPair,
}

impl Authority {
    pub fn new() -> Authority {
        let key = rcgen::KeyPair::generate().expect("CA key");
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("CA params");
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        let cert = params.self_signed(&key).expect("CA certificate");
        Authority { cert, key }
    }

    /// A certificate for the member `name` (its name as the DNS name) written to `dir`
    /// with its key and this CA; the `[cluster.tls]` lines that name them.
    pub fn issue(&self, name: &str, dir: &Path) -> String {
        let key = rcgen::KeyPair::generate().expect("member key");
        let mut params = rcgen::CertificateParams::new(vec![name.to_string()]).expect("params");
        params.extended_key_usages = vec![
            rcgen::ExtendedKeyUsagePurpose::ServerAuth,
            rcgen::ExtendedKeyUsagePurpose::ClientAuth,
        ];
        let cert = params
            .signed_by(&key, &self.cert, &self.key)
            .expect("signed");
        let (cert_path, key_path, ca_path) = (
            dir.join("member.pem"),
            dir.join("member.key"),
            dir.join("ca.pem"),
        );
        std::fs::write(&cert_path, cert.pem()).expect("cert");
        std::fs::write(&key_path, key.serialize_pem()).expect("key");
        std::fs::write(&ca_path, self.cert.pem()).expect("ca");
        format!("cert = {cert_path:?}\nkey = {key_path:?}\nca = {ca_path:?}\n")
    }
}

/// One member: a `serve` child with its HTTP port, cluster port and store.
pub struct Member {
    pub name: &'static str,
    pub child: tokio::process::Child,
    pub dir: PathBuf,
    pub base: String,
    pub key: String,
    pub client: reqwest::Client,
}

impl Member {
    /// Writes the member's configuration (every member: `cluster` names all three with
    /// their cluster ports; TLS with a certificate `ca` issues) and starts it.
    pub async fn start(
        dir: &Path,
        name: &'static str,
        inventory: &Inventory,
        ports: &[(u16, u16); 3],
        (ca, key): (&Authority, Option<&str>),
    ) -> Member {
        Member::start_taking_over_after(dir, name, inventory, ports, (ca, key), TAKEOVER_AFTER)
            .await
    }

    /// [`Member::start`] with `takeover_after` (humantime text) in place of the tests'
    /// [`TAKEOVER_AFTER`].
    pub async fn start_taking_over_after(
        dir: &Path,
        name: &'static str,
        inventory: &Inventory,
        ports: &[(u16, u16); 3],
        (ca, key): (&Authority, Option<&str>),
        takeover_after: &str,
    ) -> Member {
        let me = NAMES
            .iter()
            .position(|n| *n == name)
            .expect("a member name");
        let (http, listen) = ports[me];
        let dir = dir.join(name);
        std::fs::create_dir_all(&dir).expect("dir");
        let inventory_path = dir.join("inventory.toml");
        std::fs::write(&inventory_path, inventory.to_toml()).expect("inventory");
        let tls = ca.issue(name, &dir);
        let peers: Vec<String> = NAMES
            .iter()
            .zip(ports)
            .filter(|(n, _)| **n != name)
            .map(|(n, (_, port))| format!("{{ name = \"{n}\", address = \"127.0.0.1:{port}\" }}"))
            .collect();
        std::fs::write(
            dir.join("ponkeeper.toml"),
            format!(
                "listen = \"127.0.0.1:{http}\"\ndata_dir = {data:?}\ninventory = {inventory_path:?}\n\
                 timezone = \"UTC\"\n\n\
                 [polling]\nstatus_interval = \"500ms\"\ntimeout = \"300ms\"\nretries = 0\n\
                 optics_interval = \"1s\"\n\n[optics]\nhistory_step = \"1s\"\n\n\
                 [cluster]\nname = \"{name}\"\nlisten = \"127.0.0.1:{listen}\"\n\
                 peers = [{peers}]\ncookie_env = \"CLUSTER_COOKIE\"\n\
                 heartbeat = \"200ms\"\ntakeover_after = \"{takeover_after}\"\n\n[cluster.tls]\n{tls}",
                data = dir.join("data"),
                peers = peers.join(", "),
            ),
        )
        .expect("config");
        // With `key`: that key, made by another member (`keys create --key-env`).
        let mut create = tokio::process::Command::new(BINARY);
        create
            .args([
                "keys", "create", "--name", "ops", "--level", "FULL", "--config",
            ])
            .arg(dir.join("ponkeeper.toml"));
        if let Some(key) = key {
            create
                .args(["--key-env", "CLUSTER_KEY"])
                .env("CLUSTER_KEY", key);
        }
        let key = create.output().await.expect("keys create");
        assert!(key.status.success(), "{key:?}");
        Member {
            name,
            child: Member::spawn(&dir),
            dir,
            base: format!("http://127.0.0.1:{http}/api/v1/external"),
            key: String::from_utf8(key.stdout)
                .expect("utf-8")
                .trim()
                .to_string(),
            client: reqwest::Client::new(),
        }
    }

    pub fn spawn(dir: &Path) -> tokio::process::Child {
        tokio::process::Command::new(BINARY)
            .args(["serve", "--config"])
            .arg(dir.join("ponkeeper.toml"))
            .env("CLUSTER_COOKIE", COOKIE)
            .env(SSH_PASSWORD_ENV, DEFAULT_SSH_PASSWORD)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("serve.log")).expect("log"))
            .kill_on_drop(true)
            .spawn()
            .expect("serve starts")
    }

    pub fn pid(&self) -> u32 {
        self.child.id().expect("a running member has a pid")
    }

    pub fn signal(&self, signal: &str) {
        let status = std::process::Command::new("kill")
            .args([signal, &self.pid().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill {signal}");
    }

    pub async fn request(&self, method: reqwest::Method, path: &str) -> (u16, Value) {
        self.send(method, path, None).await
    }

    /// A POST of `body` (its content type, its text); 0 when no answer came.
    pub async fn post(&self, path: &str, (content_type, body): (&str, String)) -> (u16, Value) {
        self.send(reqwest::Method::POST, path, Some((content_type, body)))
            .await
    }

    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<(&str, String)>,
    ) -> (u16, Value) {
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.base))
            .header("X-API-Key", &self.key)
            .timeout(Duration::from_secs(10));
        if let Some((content_type, body)) = body {
            request = request.header("Content-Type", content_type).body(body);
        }
        let answer = request.send().await;
        match answer {
            Ok(response) => {
                let status = response.status().as_u16();
                (status, response.json().await.unwrap_or(Value::Null))
            }
            Err(_) => (0, Value::Null),
        }
    }

    /// A GET's body as text (empty on failure); `path` from the server's root.
    pub async fn text(&self, path: &str) -> String {
        let root = self.base.trim_end_matches("/api/v1/external");
        let answer = self
            .client
            .get(format!("{root}{path}"))
            .header("X-API-Key", &self.key)
            .send()
            .await;
        match answer {
            Ok(response) => response.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        }
    }

    pub async fn get(&self, path: &str) -> Value {
        let (status, body) = self.request(reqwest::Method::GET, path).await;
        if status == 200 {
            body
        } else {
            Value::Null
        }
    }

    /// `GET /cluster` as this member sees it: name → (live, in sight, ready, OLTs).
    pub async fn members(&self) -> BTreeMap<String, (bool, bool, bool, u64)> {
        let body = self.get("/cluster").await;
        body["data"]["members"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|m| {
                let flag = |f: &str| m[f].as_bool().unwrap_or(false);
                let name = m["name"].as_str().unwrap_or_default().to_string();
                (
                    name,
                    (
                        flag("live"),
                        flag("inSight"),
                        flag("ready"),
                        m["olts"].as_u64().unwrap_or(0),
                    ),
                )
            })
            .collect()
    }

    /// The ids of a list's page and its `totalCount`.
    pub async fn page(&self, path: &str, id_field: &str) -> (Vec<u64>, u64) {
        let body = self.get(path).await;
        let ids = body["data"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|item| item[id_field].as_u64())
            .collect();
        (ids, body["meta"]["totalCount"].as_u64().unwrap_or(0))
    }
}

/// Every member sees all of `members` live, in sight and ready, and their OLTs add up to
/// the fleet.
pub async fn settled(members: &[&Member]) {
    let names: BTreeSet<&str> = members.iter().map(|m| m.name).collect();
    for member in members {
        until_telling(
            &format!("{} sees the cluster settled", member.name),
            || async {
                let seen = member.members().await;
                let ok = names
                    .iter()
                    .all(|n| seen.get(*n).is_some_and(|(l, s, r, _)| *l && *s && *r));
                let olts: u64 = seen
                    .iter()
                    .filter(|(n, _)| names.contains(n.as_str()))
                    .map(|(_, m)| m.3)
                    .sum();
                if ok && olts == OLTS as u64 {
                    Ok(())
                } else {
                    Err(format!("{seen:?}"))
                }
            },
            || log_tails(members),
        )
        .await;
    }
}

/// Alpha, bravo and charlie over `inventory`, linked with TLS, each with its own store
/// and alpha's key (so one key works on every member).
pub async fn start_three(inventory: &Inventory, dir: &Path) -> Vec<Member> {
    start_three_taking_over_after(inventory, dir, TAKEOVER_AFTER).await
}

/// [`start_three`] with `takeover_after` (humantime text).
pub async fn start_three_taking_over_after(
    inventory: &Inventory,
    dir: &Path,
    takeover_after: &str,
) -> Vec<Member> {
    let ports = member_ports();
    let ca = Authority::new();
    let mut members: Vec<Member> = Vec::new();
    for name in NAMES {
        // Alpha makes the key; the others take it.
        let key = members.first().map(|alpha| alpha.key.clone());
        let ca = (&ca, key.as_deref());
        let member =
            Member::start_taking_over_after(dir, name, inventory, &ports, ca, takeover_after).await;
        members.push(member);
    }
    members
}

/// Waits until `check` gives `Ok`, asking again every 200 ms; panics after
/// [`PATIENCE`] with `what` and the last `Err`.
pub async fn until<T, F, Fut>(what: &str, check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, String>>,
{
    until_telling(what, check, String::new).await
}

/// [`until`], adding what `tell` says to the panic.
pub async fn until_telling<T, F, Fut>(what: &str, check: F, tell: impl Fn() -> String) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, String>>,
{
    until_within(PATIENCE, what, check, tell).await
}

/// [`until_telling`], giving up after `patience`.
pub async fn until_within<T, F, Fut>(
    patience: Duration,
    what: &str,
    mut check: F,
    tell: impl Fn() -> String,
) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, String>>,
{
    let deadline = Instant::now() + patience;
    loop {
        match check().await {
            Ok(done) => return done,
            Err(last) if Instant::now() > deadline => panic!("{what}: {last}{}", tell()),
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

/// The last lines of each member's `serve.log`: why a member that never joined did not.
pub fn log_tails(members: &[&Member]) -> String {
    members
        .iter()
        .map(|member| {
            let log = std::fs::read_to_string(member.dir.join("serve.log")).unwrap_or_default();
            let lines: Vec<&str> = log.lines().collect();
            let tail = lines[lines.len().saturating_sub(12)..].join("\n");
            format!("\n--- {}'s serve.log, last lines:\n{tail}", member.name)
        })
        .collect()
}
