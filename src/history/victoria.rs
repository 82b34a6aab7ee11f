//! The history kept in VictoriaMetrics (`[history] backend = "victoriametrics"`,
//! docs/operations.md, "History"). The poll path hands its points to
//! [`ponkeeper_actors::history_export`]; the [`writer`] task batches them every few
//! seconds into JSON lines of `/api/v1/import` (one line a series: `__name__` of
//! [`TRAFFIC`] or [`OPTICS`], labels `olt`, `onu`, `serial`, `pon` and `node` when the
//! OLT has one), puts each batch on disk in the [`backlog`] and sends the backlog oldest
//! first, so batches wait out an unreachable or failing VictoriaMetrics, up to
//! `backlog_max` bytes. The history reads ask it back ([`read`]): raw points through
//! `/api/v1/export`, buckets through `query_range`, in the answers' usual shapes.

pub mod backlog;
pub mod read;
pub mod writer;

use crate::config::history_backend::Victoria;
use std::time::Duration;

/// The traffic series: in, then out bits a second.
pub const TRAFFIC: [&str; 2] = [
    "ponkeeper_onu_traffic_in_bps",
    "ponkeeper_onu_traffic_out_bps",
];

/// The optics series, in the order of [`ponkeeper_actors::store::series::Sample::values`]:
/// Rx, Tx and OLT Rx power (dBm), temperature (°C), voltage (V), bias current (mA), and
/// the level's rank (1 OK, 2 warning, 3 critical; none when unknown).
pub const OPTICS: [&str; 7] = [
    "ponkeeper_onu_optics_rx_dbm",
    "ponkeeper_onu_optics_tx_dbm",
    "ponkeeper_onu_optics_olt_rx_dbm",
    "ponkeeper_onu_optics_temperature_celsius",
    "ponkeeper_onu_optics_voltage_volts",
    "ponkeeper_onu_optics_bias_milliamperes",
    "ponkeeper_onu_optics_level",
];

/// 1 at every optics point, whatever it read: what a point with no reading leaves, and
/// how many points a bucket stands for.
pub const OPTICS_READ: &str = "ponkeeper_onu_optics_read";

/// How long one request to VictoriaMetrics may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// A VictoriaMetrics reached over HTTP (the service's reqwest), with basic auth when
/// configured; cheap to clone.
#[derive(Clone, Debug)]
pub struct Client {
    http: reqwest::Client,
    target: Victoria,
}

impl Client {
    pub fn new(target: Victoria) -> anyhow::Result<Client> {
        let http = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .build()?;
        Ok(Client { http, target })
    }

    pub fn url(&self) -> &str {
        &self.target.url
    }

    pub fn backlog_max(&self) -> u64 {
        self.target.backlog_max
    }

    /// A request to `path` (from the root, `/api/v1/…`), authenticated.
    fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let request = self
            .http
            .request(method, format!("{}{path}", self.target.url));
        match &self.target.auth {
            Some((user, password)) => request.basic_auth(user, Some(password)),
            None => request,
        }
    }
}
