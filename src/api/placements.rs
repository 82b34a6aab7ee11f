//! `POST /placements/import` (FULL, docs/outages.md): many ONUs placed under splitters
//! in one request, from CSV — a line per ONU, `ONU,SPLITTER`, where the ONU is its id or
//! serial and the splitter its id or its name on the ONU's OLT (empty: take the ONU off
//! its splitter); `,` or `;` between fields, quotes where a name holds them, an optional
//! header line `onu,splitter`. A line that is not two fields is refused at once (400).
//! Every line is checked before any is applied: with a bad line nothing is placed and the
//! answer names the bad lines (400); `dryRun=true` checks and answers the whole report
//! with 200, placing nothing. At most 10,000 lines
//! and 1 MiB.

use super::doc::{ActorTimeout, BadInput, Refusals, TooLarge};
use super::splitters::fits;
use crate::error::ApiError;
use crate::http::{one, ApiResult, Flag, Query, Single};
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::State;
use ponkeeper_actors::domain::{Onu, OnuId};
use ponkeeper_actors::outages::{Splitter, SplitterId};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Lines one import takes at most.
const MAX_LINES: usize = 10_000;
/// Bad lines a refusal's message names (the report names them all).
const NAMED_IN_MESSAGE: usize = 10;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(import))
}

#[derive(Debug, Default, Deserialize, Serialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ImportQuery {
    /// Check every line and report, placing nothing.
    #[param(inline)]
    pub dry_run: Option<Flag>,
}

/// One line that cannot be applied.
#[derive(Debug, Serialize, ToSchema)]
pub struct BadLine {
    /// 1-based, counting the header.
    pub line: usize,
    pub text: String,
    pub reason: String,
}

/// What an import did, or would do.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    pub dry_run: bool,
    /// Lines read (without the header and blank lines).
    pub lines: usize,
    /// Placements made (0 on a dry run).
    pub applied: usize,
    pub bad: Vec<BadLine>,
}

/// A line as read: its number, its text and its two fields.
struct Line {
    number: usize,
    text: String,
    onu: String,
    splitter: String,
    /// How many fields it has (two are wanted).
    fields: usize,
}

/// The CSV's lines; `,` or `;` between fields (whichever the first line has).
fn lines(body: &[u8]) -> Result<Vec<Line>, ApiError> {
    let text = std::str::from_utf8(body)
        .map_err(|_| ApiError::InvalidBody("the CSV is not UTF-8 text".into()))?;
    let first = text.lines().next().unwrap_or("");
    let delimiter = if first.contains(';') && !first.contains(',') {
        b';'
    } else {
        b','
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut out = Vec::new();
    for record in reader.records() {
        let record =
            record.map_err(|e| ApiError::InvalidBody(format!("the CSV cannot be read: {e}")))?;
        let number = record.position().map_or(0, |p| p.line() as usize);
        let fields: Vec<&str> = record.iter().collect();
        if fields.iter().all(|f| f.is_empty()) {
            continue;
        }
        if out.is_empty()
            && fields
                .first()
                .is_some_and(|f| f.eq_ignore_ascii_case("onu"))
        {
            continue;
        }
        out.push(Line {
            number,
            text: fields.join(&(delimiter as char).to_string()),
            onu: fields.first().unwrap_or(&"").to_string(),
            splitter: fields.get(1).unwrap_or(&"").to_string(),
            fields: fields.len(),
        });
        if out.len() > MAX_LINES {
            return Err(ApiError::InvalidBody(format!(
                "the CSV has more than {MAX_LINES} lines; split it"
            )));
        }
    }
    Ok(out)
}

/// Every line's ONU row, found by id or serial through the fleet view in two questions.
async fn rows(app: &AppState, lines: &[Line]) -> Result<HashMap<String, Onu>, ApiError> {
    let (ids, serials): (Vec<&Line>, Vec<&Line>) =
        lines.iter().partition(|l| l.onu.parse::<OnuId>().is_ok());
    let view = app.fleet.view();
    let ids: Vec<OnuId> = ids.iter().filter_map(|l| l.onu.parse().ok()).collect();
    let by_id = view.onus_by_id(ids.clone()).await?;
    let serials: Vec<String> = serials.iter().map(|l| l.onu.to_uppercase()).collect();
    let by_serial = view.onus_by_serial(serials.clone()).await?;
    let mut found = HashMap::new();
    for (id, row) in ids.into_iter().zip(by_id) {
        if let Some(bound) = row {
            found.insert(id.to_string(), bound.onu);
        }
    }
    for (serial, row) in serials.into_iter().zip(by_serial) {
        if let Some(onu) = row {
            found.insert(serial, onu);
        }
    }
    Ok(found)
}

/// The placement a line asks for, or why it cannot be made.
fn resolve(
    line: &Line,
    rows: &HashMap<String, Onu>,
    splitters: &[Splitter],
) -> Result<(OnuId, Option<SplitterId>), String> {
    let key = if line.onu.parse::<OnuId>().is_ok() {
        line.onu.clone()
    } else {
        line.onu.to_uppercase()
    };
    let onu = rows
        .get(&key)
        .ok_or_else(|| format!("no ONU with id or serial `{}`", line.onu))?;
    if line.splitter.is_empty() {
        return Ok((onu.id, None));
    }
    let splitter = match line.splitter.parse::<SplitterId>() {
        Ok(id) => splitters.iter().find(|s| s.id == id),
        Err(_) => splitters
            .iter()
            .find(|s| s.olt_id == onu.olt_id && s.name.eq_ignore_ascii_case(&line.splitter)),
    }
    .ok_or_else(|| format!("no splitter `{}` on OLT {}", line.splitter, onu.olt_id))?;
    fits(onu, splitter)?;
    Ok((onu.id, Some(splitter.id)))
}

#[utoipa::path(
    post,
    path = "/placements/import",
    operation_id = "import_placements",
    tag = "outages",
    summary = "Place many ONUs under splitters from CSV",
    description = "FULL keys only. Body `text/csv`: a line per ONU, `ONU,SPLITTER` (ONU id or serial; splitter id or its name on the ONU's OLT; empty splitter takes the ONU off), `,` or `;` between fields, an optional header `onu,splitter`; at most 10,000 lines and 1 MiB. All or nothing: a bad line places nothing and the 400 names the bad lines; `dryRun=true` answers the report (every bad line, its text and why) and places nothing.",
    params(ImportQuery),
    request_body(content = String, content_type = "text/csv", example = "onu,splitter\nHWTC1A2B3C4D,ODB-12 Lenina 5\n2000049,3\n"),
    responses((status = 200, description = "what was placed, or on a dry run what would be", body = Single<ImportReport>), BadInput, ActorTimeout, TooLarge, Refusals)
)]
async fn import(
    State(app): State<AppState>,
    Query(query): Query<ImportQuery>,
    body: Bytes,
) -> ApiResult {
    let dry_run = query.dry_run.is_some_and(Flag::yes);
    let lines = lines(&body)?;
    if lines.is_empty() {
        return Err(ApiError::InvalidBody(
            "the CSV has no placement lines: send `ONU,SPLITTER` lines".into(),
        ));
    }
    // A line that is not two fields is not this CSV at all: refused even on a dry run.
    let malformed: Vec<String> = lines
        .iter()
        .filter(|l| l.fields != 2)
        .take(NAMED_IN_MESSAGE)
        .map(|l| format!("line {}: {} fields", l.number, l.fields))
        .collect();
    if !malformed.is_empty() {
        return Err(ApiError::InvalidBody(format!(
            "each line must be two fields, ONU and splitter: {}",
            malformed.join("; ")
        )));
    }
    let rows = rows(&app, &lines).await?;
    let splitters = app.records.splitters()?;
    let mut placements = Vec::with_capacity(lines.len());
    let mut bad = Vec::new();
    for line in &lines {
        match resolve(line, &rows, &splitters) {
            Ok(placement) => placements.push(placement),
            Err(reason) => bad.push(BadLine {
                line: line.number,
                text: line.text.clone(),
                reason,
            }),
        }
    }
    if !bad.is_empty() && !dry_run {
        let named: Vec<String> = bad
            .iter()
            .take(NAMED_IN_MESSAGE)
            .map(|b| format!("line {}: {}", b.line, b.reason))
            .collect();
        return Err(ApiError::InvalidBody(format!(
            "{} of {} lines cannot be applied, so none was: {}",
            bad.len(),
            lines.len(),
            named.join("; ")
        )));
    }
    let applied = if dry_run { 0 } else { placements.len() };
    if !dry_run {
        app.place(placements).await?;
    }
    one(ImportReport {
        dry_run,
        lines: lines.len(),
        applied,
        bad,
    })
}
