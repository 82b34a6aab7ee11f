//! History reads from VictoriaMetrics, answered as the local tiers answer them
//! ([`crate::history::series`]): without a step, the points as written, through
//! `/api/v1/export` (each series' values joined by time into points); with one, buckets
//! of `step` seconds from the plan's origin through `query_range`, a query per series
//! giving each bucket's count, sum, least and greatest (`count_over_time`,
//! `sum_over_time`, `min_over_time`, `max_over_time`, summed across the ONU's series:
//! a new serial or port starts a new one). A bucket is asked at its last millisecond, so
//! its window holds exactly its whole seconds. VictoriaMetrics leaves out of
//! `query_range` what is younger than its `-search.latencyOffset` (30 s by default).

use super::{Client, OPTICS, OPTICS_READ, TRAFFIC};
use crate::cluster::history::PointKind;
use crate::error::ApiError;
use crate::history::series::{Plan, Summary};
use chrono::{DateTime, Utc};
use ponkeeper_actors::domain::OnuId;
use ponkeeper_actors::store::series::rollup::{Pick, Rollup, Stat};
use ponkeeper_actors::store::series::Sample;
use serde::Deserialize;
use std::collections::BTreeMap;

/// `kind`'s value series, in [`Sample::values`] order, and the one that counts its
/// points (none: the most any value has).
fn series_of(kind: PointKind) -> (&'static [&'static str], Option<&'static str>) {
    match kind {
        PointKind::Traffic => (&TRAFFIC, None),
        PointKind::Optics => (&OPTICS, Some(OPTICS_READ)),
    }
}

/// ONU `onu`'s points of `kind` (`P`) in `[from, to]` as `plan` says, buckets from
/// `origin`, at most `limit`, oldest first.
pub async fn read<P: Sample>(
    client: &Client,
    kind: PointKind,
    onu: OnuId,
    (from, to): (DateTime<Utc>, DateTime<Utc>),
    (plan, origin): (Plan, i64),
    limit: usize,
) -> Result<Vec<Summary<P>>, ApiError> {
    if limit == 0 {
        return Ok(Vec::new());
    }
    match plan.step {
        None => raw::<P>(client, kind, onu, (from, to), limit).await,
        Some(step) => buckets::<P>(client, kind, onu, (origin, to.timestamp()), step, limit).await,
    }
}

/// A line of `/api/v1/export`.
#[derive(Deserialize)]
struct Exported {
    metric: BTreeMap<String, String>,
    values: Vec<Option<f64>>,
    timestamps: Vec<i64>,
}

async fn raw<P: Sample>(
    client: &Client,
    kind: PointKind,
    onu: OnuId,
    (from, to): (DateTime<Utc>, DateTime<Utc>),
    limit: usize,
) -> Result<Vec<Summary<P>>, ApiError> {
    let (names, carrier) = series_of(kind);
    let every: Vec<&str> = names.iter().copied().chain(carrier).collect();
    let selector = format!("{{__name__=~\"{}\",onu=\"{onu}\"}}", every.join("|"));
    let text = client
        .get(
            "/api/v1/export",
            &[
                ("match[]", selector),
                ("start", from.timestamp().to_string()),
                ("end", to.timestamp().to_string()),
            ],
        )
        .await?;
    // Seconds → each value's (count, sum): one point a second, as the local store keeps.
    let mut points: BTreeMap<i64, Vec<Stat>> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let series: Exported = serde_json::from_str(line)
            .map_err(|e| ApiError::Internal(format!("VictoriaMetrics export: {e}")))?;
        let name = series.metric.get("__name__").map(String::as_str);
        let column = names.iter().position(|n| Some(*n) == name);
        for (value, millis) in series.values.iter().zip(&series.timestamps) {
            let stats = points
                .entry(millis.div_euclid(1000))
                .or_insert_with(|| vec![Stat::default(); P::VALUES]);
            if let (Some(column), Some(value)) = (column, value) {
                stats[column] = Stat {
                    count: 1,
                    min: *value,
                    avg: *value,
                    max: *value,
                };
            }
        }
    }
    Ok(points
        .into_iter()
        .take(limit)
        .filter_map(|(seconds, stats)| {
            let at = DateTime::from_timestamp(seconds, 0)?;
            Some(Summary::stored(P::from_stats(at, &stats, Pick::Avg)))
        })
        .collect())
}

/// One `query_range` answer.
#[derive(Deserialize)]
struct Range {
    data: RangeData,
}

#[derive(Deserialize)]
struct RangeData {
    result: Vec<RangeSeries>,
}

#[derive(Deserialize)]
struct RangeSeries {
    metric: BTreeMap<String, String>,
    values: Vec<(f64, String)>,
}

/// Each bucket's count, sum, least and greatest of one series.
type Figures = BTreeMap<i64, [f64; 4]>;
const FIGURES: [&str; 4] = ["count", "sum", "min", "max"];

async fn buckets<P: Sample>(
    client: &Client,
    kind: PointKind,
    onu: OnuId,
    (origin, to): (i64, i64),
    step: i64,
    limit: usize,
) -> Result<Vec<Summary<P>>, ApiError> {
    let step = step.max(1);
    let count = usize::try_from((to - origin).div_euclid(step) + 1)
        .unwrap_or(0)
        .min(limit);
    if count == 0 {
        return Ok(Vec::new());
    }
    let (names, carrier) = series_of(kind);
    let asked = names
        .iter()
        .copied()
        .chain(carrier)
        .map(|name| figures(client, name, onu, (origin, step, count)));
    let answers = futures::future::try_join_all(asked).await?;
    let (values, carried) = answers.split_at(names.len());
    let mut rows: BTreeMap<i64, Rollup> = BTreeMap::new();
    for (column, figures) in values.iter().enumerate() {
        for (bucket, [n, sum, min, max]) in figures {
            let row = rows.entry(*bucket).or_insert_with(|| Rollup {
                start: u32::try_from(origin + bucket * step).unwrap_or(0),
                count: 0,
                stats: vec![Stat::default(); P::VALUES],
            });
            let n = *n as u32;
            row.count = row.count.max(n);
            if n > 0 {
                row.stats[column] = Stat {
                    count: n,
                    min: *min,
                    avg: sum / f64::from(n),
                    max: *max,
                };
            }
        }
    }
    if let Some(carried) = carried.first() {
        for (bucket, [n, ..]) in carried {
            let start = u32::try_from(origin + bucket * step).unwrap_or(0);
            let row = rows.entry(*bucket).or_insert_with(|| Rollup {
                start,
                count: 0,
                stats: vec![Stat::default(); P::VALUES],
            });
            row.count = *n as u32;
        }
    }
    Ok(rows
        .values()
        .filter(|row| row.count > 0)
        .map(Summary::of)
        .collect())
}

/// Series `name` of ONU `onu`: each of `count` buckets of `step` seconds from `origin`
/// with its figures, by bucket number (buckets without points left out).
async fn figures(
    client: &Client,
    name: &str,
    onu: OnuId,
    (origin, step, count): (i64, i64, usize),
) -> Result<Figures, ApiError> {
    let selector = format!("{name}{{onu=\"{onu}\"}}[{step}s]");
    let parts: Vec<String> = FIGURES
        .iter()
        .map(|figure| {
            let aggregate = match *figure {
                "min" => "min",
                "max" => "max",
                _ => "sum",
            };
            format!(
                "label_set({aggregate}({figure}_over_time({selector})), \"figure\", \"{figure}\")"
            )
        })
        .collect();
    // A bucket's last millisecond: its window (t - step, t] is its whole seconds.
    let first = origin as f64 + step as f64 - 0.001;
    let last = first + (count as f64 - 1.0) * step as f64;
    let text = client
        .get(
            "/api/v1/query_range",
            &[
                ("query", format!("union({})", parts.join(", "))),
                ("start", format!("{first:.3}")),
                ("end", format!("{last:.3}")),
                ("step", format!("{step}s")),
                ("nocache", "1".into()),
            ],
        )
        .await?;
    let answer: Range = serde_json::from_str(&text)
        .map_err(|e| ApiError::Internal(format!("VictoriaMetrics query_range: {e}")))?;
    let mut figures = Figures::new();
    for series in answer.data.result {
        let Some(column) = series
            .metric
            .get("figure")
            .and_then(|f| FIGURES.iter().position(|g| g == f))
        else {
            continue;
        };
        for (at, value) in series.values {
            let bucket = ((at - first) / step as f64).round() as i64;
            let Ok(value) = value.parse::<f64>() else {
                continue;
            };
            figures.entry(bucket).or_insert([0.0; 4])[column] = value;
        }
    }
    Ok(figures)
}

impl Client {
    /// `GET path?query`'s body; an unreachable VictoriaMetrics or an error answer is a 500
    /// naming it.
    async fn get(&self, path: &str, query: &[(&str, String)]) -> Result<String, ApiError> {
        let failed = |e: String| ApiError::Internal(format!("history from VictoriaMetrics: {e}"));
        let answer = self
            .request(reqwest::Method::GET, path)
            .query(query)
            .send()
            .await
            .map_err(|e| failed(format!("{} unreachable: {e}", self.url())))?;
        let status = answer.status();
        let body = answer.text().await.map_err(|e| failed(e.to_string()))?;
        if !status.is_success() {
            return Err(failed(format!(
                "{status}: {}",
                body.chars().take(300).collect::<String>()
            )));
        }
        Ok(body)
    }
}
