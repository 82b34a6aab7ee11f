//! `POST /placements/import` (FULL, docs/outages.md): many ONUs placed under splitters
//! in one request, from CSV — a line per ONU, `ONU,SPLITTER`, where the ONU is its id or
//! serial and the splitter its id or its name on the ONU's OLT (empty: take the ONU off
//! its splitter); `,` or `;` between fields, quotes where a name holds them, an optional
//! header line `onu,splitter`. A line that is not two fields is refused at once (400).
//! Every line is checked before any is applied: with a bad line nothing is placed and the
//! answer names the bad lines (400); `dryRun=true` checks and answers the report with
//! 200, placing nothing (the bad lines counted, the first 100 listed). Two lines for
//! one ONU that place it differently are both kept from applying. The body must be sent
//! as `text/csv`. At most 10,000 lines and 1 MiB.

use super::doc::{ActorTimeout, BadInput, Refusals, TooLarge, WrongBodyType};
use super::splitters::fits;
use crate::error::ApiError;
use crate::http::echo;
use crate::http::{one, ApiResult, Flag, Query, Single};
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::http::HeaderMap;
use ponkeeper_actors::domain::{Onu, OnuId};
use ponkeeper_actors::inventory::SplitterSpec;
use ponkeeper_actors::outages::{Splitter, SplitterId};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Lines one import takes at most.
const MAX_LINES: usize = 10_000;
/// Bad lines a refusal's message names.
const NAMED_IN_MESSAGE: usize = 10;
/// Bad lines a report lists (`badLines` counts them all): a dry run over 10,000 bad
/// lines answers a page, not megabytes.
const LISTED_IN_REPORT: usize = 100;

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
    /// The line's text, its first 64 characters.
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
    /// How many lines cannot be applied.
    pub bad_lines: usize,
    /// The first 100 of them.
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
        .ok_or_else(|| format!("no ONU with id or serial `{}`", echo(&line.onu)))?;
    if line.splitter.is_empty() {
        return Ok((onu.id, None));
    }
    let splitter = match line.splitter.parse::<SplitterId>() {
        Ok(id) => splitters.iter().find(|s| s.id == id),
        Err(_) => {
            let key = SplitterSpec::key(onu.olt_id, &line.splitter);
            splitters
                .iter()
                .find(|s| SplitterSpec::key(s.olt_id, &s.name) == key)
        }
    }
    .ok_or_else(|| {
        let name = crate::text::composed(&line.splitter);
        format!("no splitter `{}` on OLT {}", echo(&name), onu.olt_id)
    })?;
    fits(onu, splitter)?;
    Ok((onu.id, Some(splitter.id)))
}

#[utoipa::path(
    post,
    path = "/placements/import",
    operation_id = "import_placements",
    tag = "outages",
    summary = "Place many ONUs under splitters from CSV",
    description = "FULL keys only. Body `text/csv`: a line per ONU, `ONU,SPLITTER` (ONU id or serial; splitter id or its name on the ONU's OLT; empty splitter takes the ONU off), `,` or `;` between fields, an optional header `onu,splitter`; at most 10,000 lines and 1 MiB. All or nothing: a bad line (an ONU or splitter not found, a splitter of another port, a second line for an ONU that places it elsewhere) places nothing and the 400 names the bad lines; `dryRun=true` answers the report (how many lines are bad, and the first 100 with their text and why) and places nothing. A body of another type is refused with 415.",
    params(ImportQuery),
    request_body(content = String, content_type = "text/csv", example = "onu,splitter\nHWTC1A2B3C4D,ODB-12 Lenina 5\n2000049,3\n"),
    responses((status = 200, description = "what was placed, or on a dry run what would be", body = Single<ImportReport>), BadInput, ActorTimeout, TooLarge, WrongBodyType, Refusals)
)]
async fn import(
    State(app): State<AppState>,
    Query(query): Query<ImportQuery>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    let dry_run = query.dry_run.is_some_and(Flag::yes);
    csv_only(&headers)?;
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
    let (placements, bad) = checked(&lines, &rows, &splitters);
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
    let bad_lines = bad.len();
    one(ImportReport {
        dry_run,
        lines: lines.len(),
        applied,
        bad_lines,
        bad: bad.into_iter().take(LISTED_IN_REPORT).collect(),
    })
}

/// Refuses a body not sent as `text/csv`: JSON or a form read as CSV would place
/// whatever its lines happened to spell.
fn csv_only(headers: &HeaderMap) -> Result<(), ApiError> {
    let given = headers
        .get(CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let essence = given
        .as_deref()
        .and_then(|t| t.split(';').next())
        .map(|t| t.trim().to_ascii_lowercase());
    if essence.as_deref() == Some("text/csv") {
        return Ok(());
    }
    Err(ApiError::UnsupportedMediaType(format!(
        "/placements/import takes a body of type `text/csv`, not `{}`",
        echo(given.as_deref().unwrap_or("none"))
    )))
}

/// Every line's placement, and the lines that cannot be applied: an ONU no line can
/// find, a splitter it cannot hang under, or a second line for an ONU that an earlier
/// line places elsewhere (which of the two the operator meant is not for the service to
/// guess).
fn checked(
    lines: &[Line],
    rows: &HashMap<String, Onu>,
    splitters: &[Splitter],
) -> (Vec<(OnuId, Option<SplitterId>)>, Vec<BadLine>) {
    let mut placements = Vec::with_capacity(lines.len());
    let mut first_line: HashMap<OnuId, (usize, Option<SplitterId>)> = HashMap::new();
    let mut bad = Vec::new();
    for line in lines {
        let placed = resolve(line, rows, splitters).and_then(|(onu, splitter)| {
            match first_line.entry(onu) {
                Entry::Occupied(first) if first.get().1 != splitter => Err(format!(
                    "line {} places ONU {onu} elsewhere; an ONU takes one line",
                    first.get().0
                )),
                Entry::Occupied(_) => Ok(None),
                Entry::Vacant(slot) => {
                    slot.insert((line.number, splitter));
                    Ok(Some((onu, splitter)))
                }
            }
        });
        match placed {
            Ok(placement) => placements.extend(placement),
            Err(reason) => bad.push(BadLine {
                line: line.number,
                text: crate::http::cut(&line.text).into_owned(),
                reason,
            }),
        }
    }
    (placements, bad)
}
