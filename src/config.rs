//! Service configuration (docs/operations.md): `config/ponkeeper.toml`, every key overridable by a
//! `PONKEEPER_*` environment variable (`PONKEEPER_POLLING__INTERVAL=10s`); a `PONKEEPER_*`
//! variable that names no key is refused like an unknown key in the file. Loading checks
//! everything up front and fails naming the file, the key and what is wrong, so a bad
//! value never surfaces later as odd behaviour.

use anyhow::{bail, Context};
use figment::providers::{Env, Format, Serialized, Toml};
use figment::Figment;
use ipnet::IpNet;
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

mod explain;
mod history;
pub mod history_backend;
mod polling;

pub use history::History;
pub use polling::Polling;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub listen: SocketAddr,
    /// The store lives here, and the admin socket.
    pub data_dir: PathBuf,
    pub inventory: PathBuf,
    /// `swagger` serves the OpenAPI docs.
    pub profiles: Vec<String>,
    /// `local` or an IANA zone name; API timestamps are written in it.
    pub timezone: String,
    /// CIDRs whose `X-Forwarded-For` is believed.
    pub trusted_proxies: Vec<IpNet>,
    pub http: Http,
    /// Origins (`https://noc.example`) whose browsers may call the API (CORS).
    pub cors_origins: Vec<String>,
    pub metrics: Metrics,
    pub paging: Paging,
    pub polling: Polling,
    /// `[storage]`: the room the store keeps on its disk.
    pub storage: Storage,
    pub optics: Optics,
    /// `[traffic]`: only the deprecated `history_retention` is left in it.
    pub traffic: TrafficHistory,
    /// `[history]`: how long each tier of the traffic and optics history is kept.
    pub history: History,
    pub macs: MacHistory,
    pub onu: OnuHistory,
    pub szo: SzoHistory,
    pub backup: Backup,
    pub rate_limit: RateLimit,
    pub audit: Audit,
    pub api_keys: Vec<ConfiguredKey>,
    pub events: crate::events::EventsConfig,
    pub outages: crate::outages::OutagesConfig,
    pub alarms: crate::alarms::AlarmsConfig,
    /// `[[webhooks]]` (docs/events.md): where events are POSTed, signed.
    pub webhooks: Vec<crate::webhooks::WebhookConfig>,
    /// `[[notify]]` (docs/outages.md#notifications): Telegram and e-mail channels.
    pub notify: Vec<crate::channels::NotifyConfig>,
    /// `[traps]` (docs/events.md): SNMP traps that trigger a poll.
    pub traps: TrapsConfig,
    /// `[cluster]` (docs/scale-out.md): other `serve` processes whose OLTs the node
    /// counters include; `None` runs alone.
    pub cluster: Option<crate::cluster::ClusterConfig>,
    /// The file this was loaded from (SIGHUP reads it again); not a key.
    #[serde(skip)]
    pub source: Option<PathBuf>,
    /// Deprecated keys the file used, each with what replaces it; logged at start.
    #[serde(skip)]
    pub deprecations: Vec<String>,
}

/// How long HTTP clients may hold a connection without using it, and how many may be
/// served at once ([`crate::app`]'s listener enforces them).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Http {
    /// Time a client has to send a request's whole head: from connecting, for its first
    /// request; from its first byte, for the next ones on a keep-alive connection.
    #[serde(with = "humantime_serde")]
    pub header_read_timeout: Duration,
    /// Time a keep-alive connection may wait for its next request.
    #[serde(with = "humantime_serde")]
    pub idle_timeout: Duration,
    /// Connections served at once; further ones wait to be accepted.
    pub max_connections: u32,
    /// Connections one client address may hold at once (an IPv6 client: its /64); a
    /// trusted proxy's are not counted. Further ones are closed at once.
    pub max_connections_per_address: u32,
    /// The share of `max_connections` that connections which have not yet presented a
    /// valid key may hold; past it the oldest of them is closed for the newcomer, so
    /// keyless clients can never crowd out keyed ones.
    pub unauthenticated_share: f64,
}

impl Http {
    /// How many connections that presented no valid key yet may be open at once.
    pub fn max_unauthenticated(&self) -> usize {
        ((f64::from(self.max_connections) * self.unauthenticated_share).floor() as usize).max(1)
    }
}

/// `[metrics]`: whether `/metrics` needs a key.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Metrics {
    pub public: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Paging {
    pub default_size: u32,
    pub max_size: u32,
}

/// `[storage]`: writes to the store are held back while the data directory's
/// filesystem has less than `min_free_mb` free, and resume by themselves once it has
/// (`ponkeeper_actors::store::space`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Storage {
    pub min_free_mb: u64,
}

impl Default for Storage {
    fn default() -> Self {
        Storage {
            min_free_mb: ponkeeper_actors::store::space::DEFAULT_MIN_FREE / (1024 * 1024),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Optics {
    pub warning_dbm: f64,
    pub critical_dbm: f64,
    #[serde(with = "humantime_serde")]
    pub history_step: Duration,
    /// Deprecated: `[history]` ([`Config::optics_history`]).
    #[serde(
        default,
        with = "humantime_serde",
        skip_serializing_if = "Option::is_none"
    )]
    pub history_retention: Option<Duration>,
}

/// `[macs]`: a MAC's sighting behind an ONU is kept this long after it was last seen
/// (docs/api.md, "MACs").
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MacHistory {
    #[serde(with = "humantime_serde")]
    pub retention: Duration,
}

impl Default for MacHistory {
    fn default() -> Self {
        MacHistory {
            retention: Duration::from_secs(90 * 86_400),
        }
    }
}

/// `[traffic]`: how long each ONU's rates were kept before `[history]`; deprecated
/// ([`Config::traffic_history`]).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrafficHistory {
    #[serde(
        default,
        with = "humantime_serde",
        skip_serializing_if = "Option::is_none"
    )]
    pub history_retention: Option<Duration>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OnuHistory {
    #[serde(with = "humantime_serde")]
    pub state_history_retention: Duration,
    /// State changes within `flap_window` that make an ONU flapping (`ONU_FLAPPING`).
    pub flap_count: u32,
    /// How far back changes count, and how long an ONU must stay quiet to stop flapping.
    #[serde(with = "humantime_serde")]
    pub flap_window: Duration,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SzoHistory {
    #[serde(with = "humantime_serde")]
    pub history_retention: Duration,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Backup {
    #[serde(with = "humantime_serde")]
    pub interval: Duration,
    /// Versions kept per OLT; the newest and those younger than 30 days always stay.
    pub keep_versions: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RateLimit {
    pub default: String,
}

/// Audit entries a minute's failed authentications may make, all addresses together,
/// unless `audit.refusals_per_minute` says otherwise ([`crate::audit`]).
pub const DEFAULT_REFUSALS_PER_MINUTE: u32 = 100;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Audit {
    pub reads: bool,
    /// Entries older than this are deleted.
    #[serde(with = "humantime_serde")]
    pub retention: Duration,
    /// Entries failed authentications may make in a minute, all client addresses
    /// together; the rest are counted in one summary entry ([`crate::audit::refusals`]).
    pub refusals_per_minute: u32,
}

impl Default for Audit {
    fn default() -> Self {
        Audit {
            reads: false,
            retention: Duration::from_secs(400 * 86_400),
            refusals_per_minute: DEFAULT_REFUSALS_PER_MINUTE,
        }
    }
}

/// A key managed as code: its SHA-256 in the config, never the key.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfiguredKey {
    pub name: String,
    pub sha256: String,
    pub level: String,
    #[serde(default)]
    pub rate: Option<String>,
    #[serde(default)]
    pub allow_ip: Vec<IpNet>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            data_dir: PathBuf::from("data"),
            inventory: PathBuf::from("config/inventory.toml"),
            profiles: Vec::new(),
            timezone: "local".into(),
            trusted_proxies: Vec::new(),
            http: Http::default(),
            cors_origins: Vec::new(),
            metrics: Metrics::default(),
            paging: Paging::default(),
            polling: Polling::default(),
            storage: Storage::default(),
            optics: Optics::default(),
            traffic: TrafficHistory::default(),
            history: History::default(),
            macs: MacHistory::default(),
            onu: OnuHistory::default(),
            szo: SzoHistory::default(),
            backup: Backup::default(),
            rate_limit: RateLimit::default(),
            audit: Audit::default(),
            api_keys: Vec::new(),
            events: crate::events::EventsConfig::default(),
            outages: crate::outages::OutagesConfig::default(),
            alarms: crate::alarms::AlarmsConfig::default(),
            webhooks: Vec::new(),
            notify: Vec::new(),
            traps: TrapsConfig::default(),
            cluster: None,
            source: None,
            deprecations: Vec::new(),
        }
    }
}

impl Default for Http {
    fn default() -> Self {
        Http {
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_connections: 10_000,
            max_connections_per_address: 256,
            unauthenticated_share: 0.5,
        }
    }
}

impl Default for Paging {
    fn default() -> Self {
        Paging {
            default_size: 20,
            max_size: 500,
        }
    }
}

impl Default for Optics {
    fn default() -> Self {
        Optics {
            warning_dbm: -25.0,
            critical_dbm: -27.0,
            history_step: Duration::from_secs(15 * 60),
            history_retention: None,
        }
    }
}

impl Default for OnuHistory {
    fn default() -> Self {
        OnuHistory {
            state_history_retention: Duration::from_secs(30 * 86_400),
            flap_count: 4,
            flap_window: Duration::from_secs(15 * 60),
        }
    }
}

impl Default for SzoHistory {
    fn default() -> Self {
        SzoHistory {
            history_retention: Duration::from_secs(400 * 86_400),
        }
    }
}

impl Default for Backup {
    fn default() -> Self {
        Backup {
            interval: Duration::from_secs(86_400),
            keep_versions: 100,
        }
    }
}

impl Default for RateLimit {
    fn default() -> Self {
        RateLimit {
            default: "100/s".into(),
        }
    }
}

impl Config {
    /// Loads `path` (which must exist), then `PONKEEPER_*` overrides, then validates.
    pub fn load(path: &Path) -> anyhow::Result<Config> {
        if !path.is_file() {
            bail!("config {}: no such file", path.display());
        }
        let mut config: Config = Figment::from(Serialized::defaults(Config::default()))
            .merge(Toml::file_exact(path))
            .merge(Env::prefixed("PONKEEPER_").split("__"))
            .extract()
            .map_err(|e| anyhow::anyhow!(explain::explain(e, path)))?;
        let given =
            Figment::from(Toml::file_exact(path)).merge(Env::prefixed("PONKEEPER_").split("__"));
        let status_given = given.find_value("polling.status_interval").is_ok();
        if let Some(old) = config.polling.interval.take() {
            if status_given {
                bail!(
                    "config {}: keys `polling.interval` and `polling.status_interval`: give only `status_interval` (`interval` is its old name)",
                    path.display()
                );
            }
            config.polling.status_interval = old;
            config.deprecations.push(
                "key `polling.interval` is deprecated: it is now `polling.status_interval`; the other poll groups have `identity_interval`, `optics_interval` and `olt_interval` (docs/polling.md)".into(),
            );
        }
        config.read_deprecated_retentions(given.find_value("history").is_ok());
        config
            .validate()
            .with_context(|| format!("config {}", path.display()))?;
        config.source = Some(path.to_path_buf());
        Ok(config)
    }

    /// Loads `path` for `serve`: [`Config::load`], and every secret its webhooks and
    /// notification channels name must be in the environment and well formed. The
    /// offline commands (`backup`, `restore`, `keys`) read only the data directory, so
    /// they take [`Config::load`] alone and run without the service's secrets.
    pub fn load_to_serve(path: &Path) -> anyhow::Result<Config> {
        let config = Config::load(path)?;
        config
            .check_secrets()
            .with_context(|| format!("config {}", path.display()))?;
        Ok(config)
    }

    /// Whether the secrets of `[[webhooks]]` and `[[notify]]` are set and well formed.
    pub fn check_secrets(&self) -> anyhow::Result<()> {
        crate::webhooks::resolve(&self.webhooks)?;
        crate::channels::resolve(&self.notify)?;
        Ok(())
    }

    /// Checks the values serde cannot: ranges, names, zone and rate syntax (not the
    /// secrets, which only `serve` needs: [`Config::check_secrets`]).
    pub fn validate(&self) -> anyhow::Result<()> {
        if self.http.header_read_timeout.is_zero() || self.http.idle_timeout.is_zero() {
            bail!("keys `http.header_read_timeout`, `http.idle_timeout`: must be above zero");
        }
        if self.http.max_connections == 0 {
            bail!("key `http.max_connections`: must be at least 1");
        }
        if self.http.max_connections_per_address == 0 {
            bail!("key `http.max_connections_per_address`: must be at least 1");
        }
        if !(self.http.unauthenticated_share > 0.0 && self.http.unauthenticated_share <= 1.0) {
            bail!("key `http.unauthenticated_share`: must be above 0 and at most 1");
        }
        if self.paging.max_size == 0 {
            bail!("key `paging.max_size`: must be at least 1");
        }
        if self.paging.default_size == 0 || self.paging.default_size > self.paging.max_size {
            bail!(
                "key `paging.default_size`: must be between 1 and paging.max_size ({})",
                self.paging.max_size
            );
        }
        self.polling.validate()?;
        if self.traps.community.as_deref().is_some_and(str::is_empty) {
            bail!("key `traps.community`: must not be empty (leave it unset instead)");
        }
        if self.audit.retention.is_zero() {
            bail!("key `audit.retention`: must be above zero");
        }
        self.validate_history()?;
        if self.onu.flap_count < 2 {
            bail!("key `onu.flap_count`: must be at least 2 (a down and an up)");
        }
        if self.onu.flap_window < Duration::from_secs(60) {
            bail!("key `onu.flap_window`: must be at least 1m");
        }
        if self.optics.critical_dbm > self.optics.warning_dbm {
            bail!("key `optics.critical_dbm`: must not be above optics.warning_dbm");
        }
        crate::clock::Clock::from_config(&self.timezone).context("key `timezone`")?;
        self.default_rate().context("key `rate_limit.default`")?;
        for origin in &self.cors_origins {
            crate::cors::parse_origin(origin).context("key `cors_origins`")?;
        }
        for profile in &self.profiles {
            if profile != "swagger" {
                bail!("key `profiles`: unknown profile `{profile}` (known: swagger)");
            }
        }
        self.events.validate()?;
        self.outages.validate()?;
        if self.traps.min_interval.is_zero() {
            bail!("key `traps.min_interval`: must be above zero");
        }
        let mut names = std::collections::HashSet::new();
        for key in &self.api_keys {
            let at = format!("api_keys entry `{}`", key.name);
            if !names.insert(key.name.as_str()) {
                bail!("{at}: name declared twice");
            }
            if key.sha256.len() != 64 || !key.sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
                bail!("{at}: key `sha256` must be 64 hex digits");
            }
            key.level
                .parse::<crate::records::AccessLevel>()
                .map_err(|e| anyhow::anyhow!("{at}: key `level`: {e}"))?;
            if let Some(rate) = &key.rate {
                rate.parse::<crate::rate_limit::Rate>()
                    .map_err(|e| anyhow::anyhow!("{at}: key `rate`: {e}"))?;
            }
        }
        Ok(())
    }

    pub fn default_rate(&self) -> anyhow::Result<crate::rate_limit::Rate> {
        self.rate_limit
            .default
            .parse()
            .map_err(|e: String| anyhow::anyhow!(e))
    }

    pub fn optics_thresholds(&self) -> ponkeeper_actors::domain::OpticsThresholds {
        ponkeeper_actors::domain::OpticsThresholds {
            warning_dbm: self.optics.warning_dbm,
            critical_dbm: self.optics.critical_dbm,
        }
    }

    pub fn swagger(&self) -> bool {
        self.profiles.iter().any(|p| p == "swagger")
    }
}

/// `[traps]`: SNMP traps that trigger a poll ([`crate::traps`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrapsConfig {
    /// UDP address to take traps on (`0.0.0.0:162`); unset: no listener.
    pub listen: Option<SocketAddr>,
    /// At most one trap-triggered poll per OLT in this time.
    #[serde(with = "humantime_serde")]
    pub min_interval: Duration,
    /// The community OLTs send traps with, where it is not their read community; unset:
    /// only a v1/v2c OLT's read community is taken.
    pub community: Option<String>,
}

impl Default for TrapsConfig {
    fn default() -> Self {
        TrapsConfig {
            listen: None,
            min_interval: Duration::from_secs(2),
            community: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Loading reads the process environment, which one test changes: tests that load
    /// hold this lock so no load reads the environment while it is being written.
    static ENVIRONMENT: std::sync::Mutex<()> = std::sync::Mutex::new(());

    fn environment() -> std::sync::MutexGuard<'static, ()> {
        ENVIRONMENT
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(super) fn load_text(text: &str) -> anyhow::Result<Config> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("ponkeeper.toml");
        std::fs::write(&path, text).expect("write");
        let _environment = environment();
        Config::load(&path)
    }

    #[test]
    fn the_old_interval_key_is_the_status_interval_with_a_warning() {
        let config = load_text("[polling]\ninterval = \"5s\"\n").expect("still read");
        assert_eq!(config.polling.status_interval, Duration::from_secs(5));
        assert_eq!(config.polling.interval, None);
        assert_eq!(config.deprecations.len(), 1);
        assert!(config.deprecations[0].contains("status_interval"));
        assert!(config.deprecations[0].contains("optics_interval"));
        let both = "[polling]\ninterval = \"5s\"\nstatus_interval = \"10s\"\n";
        let error = format!("{:#}", load_text(both).expect_err("both"));
        assert!(error.contains("give only `status_interval`"), "{error}");
        let config = load_text("[polling]\nstatus_interval = \"7s\"\n").expect("new key");
        assert_eq!(config.polling.status_interval, Duration::from_secs(7));
        assert!(config.deprecations.is_empty());
        let error = format!(
            "{:#}",
            load_text("[polling]\noptics_interval = \"0s\"\n").expect_err("zero")
        );
        assert!(error.contains("polling.optics_interval"), "{error}");
    }

    #[test]
    fn shipped_config_loads() {
        let config = {
            let _environment = environment();
            Config::load(Path::new("config/ponkeeper.toml")).expect("shipped config")
        };
        assert_eq!(config.polling.status_interval, Duration::from_secs(60));
        assert_eq!(config.paging.max_size, 500);
        assert_eq!(config.http.header_read_timeout, Duration::from_secs(10));
        assert_eq!(config.http.idle_timeout, Duration::from_secs(60));
        assert_eq!(config.http.max_connections, 10_000);
    }

    #[test]
    fn a_zero_connection_limit_is_refused() {
        let err = load_text("[http]\nmax_connections = 0\n").expect_err("invalid");
        assert!(
            format!("{err:#}").contains("http.max_connections"),
            "{err:#}"
        );
        let err = load_text("[http]\nidle_timeout = \"0s\"\n").expect_err("invalid");
        assert!(format!("{err:#}").contains("http.idle_timeout"), "{err:#}");
    }

    #[test]
    fn poll_thread_priority_is_a_nice_value() {
        assert_eq!(load_text("").expect("defaults").polling.worker_nice, 10);
        for bad in ["-1", "20"] {
            let err = load_text(&format!("[polling]\nworker_nice = {bad}\n")).expect_err(bad);
            assert!(
                format!("{err:#}").contains("polling.worker_nice"),
                "{err:#}"
            );
        }
    }

    #[test]
    fn shipped_inventory_is_valid_and_stays_on_loopback() {
        let inventory =
            ponkeeper_actors::inventory::Inventory::load(Path::new("config/inventory.toml"))
                .expect("shipped inventory");
        assert_eq!(inventory.olts.len(), 3);
        assert!(inventory.olts.iter().all(|o| o.ip.is_loopback()));
        // `ponkeeper sim` serves SSH on each OLT's SNMP port number: actions work as shipped.
        for olt in &inventory.olts {
            let ssh = olt.ssh.as_ref().expect("an ssh block");
            assert_eq!(ssh.port, olt.snmp.port, "OLT {}", olt.id);
            assert_eq!(ssh.username, ponkeeper_sim::SSH_USERNAME);
            assert_eq!(ssh.password_env, ponkeeper_sim::SSH_PASSWORD_ENV);
        }
    }

    #[test]
    fn bad_value_names_the_key() {
        let err = load_text("[polling]\ninterval = \"soon\"\n").expect_err("invalid");
        let text = format!("{err:#}");
        assert!(text.contains("polling.interval"), "{text}");
        assert!(text.contains("ponkeeper.toml"), "{text}");
        assert!(text.contains("\"30s\""), "an example of a duration: {text}");
        let err = load_text("listen_addr = \"127.0.0.1:8080\"\n").expect_err("unknown");
        let text = format!("{err:#}");
        assert!(text.contains("did you mean `listen`?"), "{text}");
    }

    #[test]
    fn unknown_key_is_refused() {
        let err = load_text("[paging]\nmax = 5\n").expect_err("invalid");
        assert!(format!("{err:#}").contains("max"), "{err:#}");
    }

    #[test]
    fn a_misspelt_key_names_the_file_and_the_closest_key() {
        let err = load_text("[polling]\nretrys = 2\n").expect_err("invalid");
        let text = format!("{err:#}");
        assert!(text.starts_with("config /"), "{text}");
        assert!(
            text.ends_with(
                "ponkeeper.toml: unknown key `polling.retrys`; did you mean `polling.retries`?"
            ),
            "{text}"
        );
    }

    #[test]
    fn environment_overrides_the_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("ponkeeper.toml");
        std::fs::write(&path, "[polling]\nretries = 2\n").expect("write");
        let config = {
            let _environment = environment();
            std::env::set_var("PONKEEPER_POLLING__RETRIES", "4");
            std::env::set_var("PONKEEPER_AUDIT__READS", "true");
            let config = Config::load(&path);
            std::env::remove_var("PONKEEPER_POLLING__RETRIES");
            std::env::remove_var("PONKEEPER_AUDIT__READS");
            config.expect("valid")
        };
        assert_eq!(config.polling.retries, 4);
        assert!(config.audit.reads);
    }

    #[test]
    fn unknown_environment_override_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("ponkeeper.toml");
        std::fs::write(&path, "").expect("write");
        let result = {
            let _environment = environment();
            std::env::set_var("PONKEEPER_POLING__INTERVAL", "5s");
            let result = Config::load(&path);
            std::env::remove_var("PONKEEPER_POLING__INTERVAL");
            result
        };
        let err = format!("{:#}", result.expect_err("a misspelt override is refused"));
        assert_eq!(
            err,
            "environment variable PONKEEPER_POLING__INTERVAL: unknown key `poling`; \
             did you mean PONKEEPER_POLLING__INTERVAL?"
        );
    }

    #[test]
    fn bad_timezone_is_refused() {
        let err = load_text("timezone = \"Mars/Olympus\"\n").expect_err("invalid");
        assert!(format!("{err:#}").contains("timezone"), "{err:#}");
    }
}
