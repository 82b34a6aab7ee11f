//! The writer task: takes the poll path's history points off the export channel, makes a
//! batch of them every [`BATCH_EVERY`] (or at [`BATCH_POINTS`]), puts it in the
//! [`Backlog`] and sends the backlog to `/api/v1/import` oldest first. A send that fails
//! (VictoriaMetrics unreachable, or an error answer) leaves the batch where it is and is
//! tried again at the next batch; a batch VictoriaMetrics refuses as malformed (400) is
//! dropped with a warning, since sending it again would only hold up the others.

use super::backlog::Backlog;
use super::{Client, OPTICS, OPTICS_READ, TRAFFIC};
use ponkeeper_actors::history_export::{ExportReceiver, ExportedPoint, SeriesLabels};
use std::collections::BTreeMap;
use std::time::Duration;

/// How often the points received are made a batch and the backlog is sent.
pub const BATCH_EVERY: Duration = Duration::from_secs(2);
/// A batch is made early at this many points.
const BATCH_POINTS: usize = 50_000;

/// Runs until the channel closes (every sender gone), then makes a last batch (on disk:
/// sent by the next run if not now).
pub async fn run(client: Client, mut backlog: Backlog, mut points: ExportReceiver) {
    let mut pending: Vec<(SeriesLabels, ExportedPoint)> = Vec::new();
    let mut every = tokio::time::interval(BATCH_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let open = tokio::select! {
            received = points.recv() => match received {
                Some(more) => {
                    pending.extend(more);
                    if pending.len() < BATCH_POINTS {
                        continue;
                    }
                    true
                }
                None => false,
            },
            _ = every.tick() => true,
        };
        if !pending.is_empty() {
            let batch = encode(&std::mem::take(&mut pending));
            if let Err(error) = backlog.push(&batch) {
                tracing::error!(%error, "cannot keep a history batch on disk; it is lost");
                metrics::counter!("ponkeeper_history_backlog_dropped_batches_total").increment(1);
            }
        }
        send_backlog(&client, &mut backlog).await;
        if !open {
            return;
        }
    }
}

/// Sends the backlog's batches oldest first until it is empty or a send fails.
async fn send_backlog(client: &Client, backlog: &mut Backlog) {
    loop {
        let batch = match backlog.oldest() {
            Ok(Some(batch)) => batch,
            Ok(None) => return,
            Err(error) => {
                tracing::error!(%error, "cannot read a history batch; dropping it");
                let _ = backlog.drop_oldest("unreadable");
                continue;
            }
        };
        match client.import(batch).await {
            Ok(()) => {
                backlog.note_send(None);
                if let Err(error) = backlog.remove_oldest() {
                    tracing::error!(%error, "cannot remove a sent history batch");
                    return;
                }
            }
            Err(Failure::Refused(why)) => {
                let _ = backlog.drop_oldest(&format!("VictoriaMetrics refused it: {why}"));
            }
            Err(Failure::Later(why)) => {
                tracing::debug!(%why, "history batches wait for VictoriaMetrics");
                backlog.note_send(Some(why));
                return;
            }
        }
    }
}

/// Why a send failed.
enum Failure {
    /// The batch itself was refused: sending it again would fail again.
    Refused(String),
    /// Unreachable, or an error answer: try again later.
    Later(String),
}

impl Client {
    /// `POST /api/v1/import` with `batch` (JSON lines).
    async fn import(&self, batch: Vec<u8>) -> Result<(), Failure> {
        let answer = self
            .request(reqwest::Method::POST, "/api/v1/import")
            .body(batch)
            .send()
            .await
            .map_err(|e| Failure::Later(format!("{} unreachable: {e}", self.url())))?;
        let status = answer.status();
        if status.is_success() {
            return Ok(());
        }
        let body = answer.text().await.unwrap_or_default();
        let why = format!("{status}: {}", body.chars().take(300).collect::<String>());
        if status == reqwest::StatusCode::BAD_REQUEST {
            Err(Failure::Refused(why))
        } else {
            Err(Failure::Later(why))
        }
    }
}

/// One series of a batch: its values and their times (milliseconds).
#[derive(Default)]
struct Series {
    values: Vec<f64>,
    timestamps: Vec<i64>,
}

/// `points` as JSON lines of `/api/v1/import`, a line per series. Times are whole seconds,
/// as the local store keeps them; a value a point lacks is left out of its series.
pub fn encode(points: &[(SeriesLabels, ExportedPoint)]) -> Vec<u8> {
    let mut series: BTreeMap<(&SeriesLabels, &str), Series> = BTreeMap::new();
    for (labels, point) in points {
        let (at, values) = values_of(point);
        let millis = at.timestamp() * 1000;
        for (name, value) in values {
            if let Some(value) = value.filter(|v| v.is_finite()) {
                let entry = series.entry((labels, name)).or_default();
                entry.values.push(value);
                entry.timestamps.push(millis);
            }
        }
    }
    let mut out = Vec::new();
    for ((labels, name), series) in series {
        let mut metric = serde_json::Map::new();
        metric.insert("__name__".into(), name.into());
        metric.insert("olt".into(), labels.olt.to_string().into());
        metric.insert("onu".into(), labels.onu.to_string().into());
        if !labels.serial.is_empty() {
            metric.insert("serial".into(), labels.serial.as_str().into());
        }
        if !labels.pon.is_empty() {
            metric.insert("pon".into(), labels.pon.as_str().into());
        }
        if let Some(node) = labels.node {
            metric.insert("node".into(), node.to_string().into());
        }
        let line = serde_json::json!({
            "metric": metric,
            "values": series.values,
            "timestamps": series.timestamps,
        });
        out.extend(line.to_string().into_bytes());
        out.push(b'\n');
    }
    out
}

/// A point's time and its values by series name.
fn values_of(
    point: &ExportedPoint,
) -> (
    chrono::DateTime<chrono::Utc>,
    Vec<(&'static str, Option<f64>)>,
) {
    use ponkeeper_actors::store::series::Sample;
    match point {
        ExportedPoint::Traffic(p) => (p.at, TRAFFIC.into_iter().zip(p.values()).collect()),
        ExportedPoint::Optics(p) => {
            let mut values: Vec<_> = OPTICS.into_iter().zip(p.values()).collect();
            // Every optics point, whatever it read.
            values.push((OPTICS_READ, Some(1.0)));
            (p.at, values)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ponkeeper_actors::domain::{OpticsLevel, OpticsPoint};
    use ponkeeper_actors::traffic::TrafficPoint;

    #[test]
    fn a_batch_is_a_json_line_per_series_with_its_labels() {
        let at = |s: i64| chrono::DateTime::from_timestamp(s, 0).expect("time");
        let labels = SeriesLabels {
            olt: 1,
            onu: 123,
            serial: "HWTC0001".into(),
            pon: "0/1/3".into(),
            node: None,
        };
        let traffic = |s, bps| {
            ExportedPoint::Traffic(TrafficPoint {
                at: at(s),
                in_bps: Some(bps),
                out_bps: None,
            })
        };
        let optics = ExportedPoint::Optics(OpticsPoint {
            at: at(10),
            rx_power: None,
            tx_power: None,
            olt_rx_power: None,
            temperature: None,
            voltage: None,
            bias_current: None,
            level: OpticsLevel::Unknown,
        });
        let batch = encode(&[
            (labels.clone(), traffic(10, 5.0)),
            (labels.clone(), traffic(11, 6.5)),
            (labels, optics),
        ]);
        let lines: Vec<serde_json::Value> = String::from_utf8(batch)
            .expect("text")
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON"))
            .collect();
        assert_eq!(lines.len(), 2, "{lines:?}");
        let read = &lines[0];
        assert_eq!(read["metric"]["__name__"], OPTICS_READ);
        assert_eq!(read["values"], serde_json::json!([1.0]));
        let rates = &lines[1];
        assert_eq!(
            rates["metric"],
            serde_json::json!({"__name__": TRAFFIC[0], "olt": "1", "onu": "123",
                "serial": "HWTC0001", "pon": "0/1/3"})
        );
        assert_eq!(rates["values"], serde_json::json!([5.0, 6.5]));
        assert_eq!(rates["timestamps"], serde_json::json!([10_000, 11_000]));
    }
}
