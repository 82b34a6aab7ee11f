//! Prometheus metrics at `GET /metrics` (behind the API key, any level), through the
//! `metrics` facade and its Prometheus exporter. Counters and histograms are recorded
//! where things happen: polls, CLI actions and actor failures in the actors crate, HTTP
//! requests in the outermost middleware ([`crate::audit::record`]). Gauges that describe
//! the present — OLTs per status, ONUs, resident memory, open descriptors, live tokio
//! tasks — are read when scraped, so they are never stale; the fleet's come from the
//! fleet view, the one aggregate of what the OLT actors publish, in one question.
//!
//! | metric | kind | labels |
//! |---|---|---|
//! | `ponkeeper_olts` | gauge | `status` |
//! | `ponkeeper_onus`, `ponkeeper_onus_online` | gauge | |
//! | `ponkeeper_olt_status` | gauge (1) | `olt`, `status` |
//! | `ponkeeper_olt_onus`, `ponkeeper_olt_onus_online` | gauge | `olt` |
//! | `ponkeeper_pon_port_onus`, `ponkeeper_pon_port_onus_online` | gauge | `olt`, `port` |
//! | `ponkeeper_polls_total` | counter | `result` = success, failure |
//! | `ponkeeper_poll_duration_seconds` | histogram | |
//! | `ponkeeper_poll_varbinds_total` | counter | |
//! | `ponkeeper_cli_actions_total` | counter | `result` |
//! | `ponkeeper_olt_actor_failures_total` | counter | `outcome` = restarted, stopped, given_up |
//! | `ponkeeper_http_requests_total` | counter | `method`, `status` |
//! | `ponkeeper_http_request_duration_seconds` | histogram | |
//! | `ponkeeper_process_resident_memory_bytes`, `ponkeeper_process_open_fds` | gauge | |
//! | `ponkeeper_runtime_alive_tasks` | gauge | |
//! | `ponkeeper_poll_failures_total` | counter | `kind` = timeout, deadline, unreachable, agent_error, protocol |
//! | `ponkeeper_snmp_timeouts_total` | counter | (each SNMP request attempt without an answer) |
//! | `ponkeeper_poll_group_reads_total` | counter | `olt`, `group` = status, identity, optics, olt (polls that read it) |
//! | `ponkeeper_onu_optics_reads_total` | counter | `olt` (ONUs whose optics were read) |
//! | `ponkeeper_olt_requests_per_second`, `ponkeeper_olt_max_requests_per_second` | gauge | `olt` (the pace now, its ceiling) |
//! | `ponkeeper_olt_throttled` | gauge (0/1) | `olt` |
//! | `ponkeeper_olt_latency_p50_seconds`, `ponkeeper_olt_latency_p95_seconds` | gauge | `olt` (the last poll's requests) |
//! | `ponkeeper_webhook_deliveries_total` | counter | `webhook`, `outcome` = delivered, failed (each attempt) |
//! | `ponkeeper_webhook_lag` | gauge | `webhook` (events logged after its cursor) |
//! | `ponkeeper_notifications_total` | counter | `channel` (messages taken, a digest once) |
//! | `ponkeeper_traps_total` | counter | `outcome` = polled, debounced, unknown_sender, wrong_community, malformed |
//! | `ponkeeper_http_connections_refused_total` | counter | `reason` = per_address, unauthenticated_share |
//! | `ponkeeper_cluster_connections_refused_total` | counter | (with `[cluster]`) |
//! | `ponkeeper_history_backlog_batches`, `ponkeeper_history_backlog_bytes` | gauge | (with `[history] backend = "victoriametrics"`, `crate::history::victoria::backlog`) |
//! | `ponkeeper_history_backlog_dropped_batches_total` | counter | (the same) |
//!
//! The node and worst-signal series are in [`fleet_series`]. The failure counters are
//! registered at 0 when the recorder is installed, so a dashboard finds them before the
//! first failure.

use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use ponkeeper_actors::domain::SessionStatus;
use ponkeeper_actors::fleet_view::OltGauges;
use std::sync::OnceLock;

mod fleet_series;

/// Upper bounds of the poll duration buckets, in seconds.
const POLL_BUCKETS: &[f64] = &[0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];
/// Upper bounds of the HTTP request duration buckets, in seconds.
const HTTP_BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0, 30.0,
];

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// Installs the process-wide recorder (once; later calls return the same handle).
/// `None` if another recorder was installed first, e.g. by an embedding program.
pub fn install() -> Option<&'static PrometheusHandle> {
    HANDLE
        .get_or_init(|| {
            let recorder = PrometheusBuilder::new()
                .set_buckets_for_metric(
                    Matcher::Full("ponkeeper_poll_duration_seconds".into()),
                    POLL_BUCKETS,
                )
                .and_then(|b| {
                    b.set_buckets_for_metric(
                        Matcher::Full("ponkeeper_http_request_duration_seconds".into()),
                        HTTP_BUCKETS,
                    )
                })
                .ok()?
                .build_recorder();
            let handle = recorder.handle();
            match metrics::set_global_recorder(recorder) {
                Ok(()) => {
                    register_failure_counters();
                    Some(handle)
                }
                Err(error) => {
                    tracing::warn!(%error, "metrics recorder not installed; /metrics is off");
                    None
                }
            }
        })
        .as_ref()
}

/// `GET /metrics`: the Prometheus text format.
pub async fn endpoint(State(app): State<AppState>) -> Response {
    let Some(handle) = install() else {
        return ApiError::Internal("the metrics recorder is not installed".into()).into_response();
    };
    let gauges = match app.fleet.view().gauges().await {
        Ok(gauges) => gauges,
        Err(error) => return ApiError::from(error).into_response(),
    };
    for status in SessionStatus::ALL {
        let count = gauges.iter().filter(|g| g.summary.status == status).count();
        metrics::gauge!("ponkeeper_olts", "status" => status.as_str()).set(count as f64);
    }
    let onus: u64 = gauges.iter().map(|g| u64::from(g.summary.total_onu)).sum();
    let online: u64 = gauges.iter().map(|g| u64::from(g.summary.onu_online)).sum();
    metrics::gauge!("ponkeeper_onus").set(onus as f64);
    metrics::gauge!("ponkeeper_onus_online").set(online as f64);
    if let Some(rss) = resident_memory_bytes() {
        metrics::gauge!("ponkeeper_process_resident_memory_bytes").set(rss as f64);
    }
    if let Ok(fds) = std::fs::read_dir("/proc/self/fd") {
        metrics::gauge!("ponkeeper_process_open_fds").set(fds.count() as f64);
    }
    let tasks = tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks();
    metrics::gauge!("ponkeeper_runtime_alive_tasks").set(tasks as f64);
    let mut text = handle.render();
    per_olt(&mut text, &gauges);
    fleet_series::write(&mut text, &app).await;
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response()
}

/// The failure counters at 0 (poll failures by kind, SNMP timeouts, actor failures,
/// refused connections, traps by outcome), so alerts on their rate work from the start.
fn register_failure_counters() {
    for kind in ponkeeper_actors::snmp::DeviceError::KINDS {
        metrics::counter!("ponkeeper_poll_failures_total", "kind" => kind).increment(0);
    }
    metrics::counter!("ponkeeper_snmp_timeouts_total").increment(0);
    for result in ["success", "failure"] {
        metrics::counter!("ponkeeper_cli_actions_total", "result" => result).increment(0);
    }
    for outcome in ["restarted", "stopped", "given_up"] {
        metrics::counter!("ponkeeper_olt_actor_failures_total", "outcome" => outcome).increment(0);
    }
    for reason in ["per_address", "unauthenticated_share"] {
        metrics::counter!("ponkeeper_http_connections_refused_total", "reason" => reason)
            .increment(0);
    }
    for outcome in crate::traps::OUTCOMES {
        metrics::counter!("ponkeeper_traps_total", "outcome" => outcome).increment(0);
    }
}

/// The per-OLT and per-port series, written from the fleet view's rows at each scrape, so
/// an OLT that left the inventory leaves no stale series behind.
fn per_olt(text: &mut String, gauges: &[OltGauges]) {
    use std::fmt::Write;
    let _ = writeln!(
        text,
        "# HELP ponkeeper_olt_status 1 for the OLT's session status\n\
         # TYPE ponkeeper_olt_status gauge"
    );
    for g in gauges {
        let _ = writeln!(
            text,
            "ponkeeper_olt_status{{olt=\"{}\",status=\"{}\"}} 1",
            g.summary.id,
            g.summary.status.as_str()
        );
    }
    for (name, help, online) in [
        ("ponkeeper_olt_onus", "ONUs of the OLT", false),
        ("ponkeeper_olt_onus_online", "online ONUs of the OLT", true),
    ] {
        let _ = writeln!(text, "# HELP {name} {help}\n# TYPE {name} gauge");
        for g in gauges {
            let count = if online {
                g.summary.onu_online
            } else {
                g.summary.total_onu
            };
            let _ = writeln!(text, "{name}{{olt=\"{}\"}} {count}", g.summary.id);
        }
    }
    for (name, help, online) in [
        ("ponkeeper_pon_port_onus", "ONUs on the PON port", false),
        (
            "ponkeeper_pon_port_onus_online",
            "online ONUs on the PON port",
            true,
        ),
    ] {
        let _ = writeln!(text, "# HELP {name} {help}\n# TYPE {name} gauge");
        for g in gauges {
            for port in &g.ports {
                let count = if online {
                    port.onu_online
                } else {
                    port.onu_total
                };
                let _ = writeln!(
                    text,
                    "{name}{{olt=\"{}\",port=\"{}\"}} {count}",
                    g.summary.id,
                    label(&port.name)
                );
            }
        }
    }
}

/// A label value in the text format: backslash, quote and newline escaped.
fn label(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// Resident set size of this process, from `VmRSS` in `/proc/self/status` (Linux).
pub fn resident_memory_bytes() -> Option<u64> {
    resident_memory_bytes_of("/proc/self/status")
}

/// Resident set size from `VmRSS` of a `/proc/<pid>/status` file.
pub fn resident_memory_bytes_of(status: &str) -> Option<u64> {
    let status = std::fs::read_to_string(status).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
