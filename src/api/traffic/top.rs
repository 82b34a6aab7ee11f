//! `GET /traffic/top`: the busiest ONUs now, by their latest rate one way. Each OLT's
//! actor ranks its own ONUs from its traffic book ([`ponkeeper_actors::traffic`]); across
//! the fleet every OLT is asked at once, each within the actor query's timeout, and the
//! answers are merged. An OLT that does not answer in time (or no longer runs) is named in
//! `warnings` instead of failing the request: the list is then the busiest of the OLTs
//! that answered.

use super::round;
use crate::api::doc::{ActorTimeout, BadParameter, Missing, Refusals};
use crate::http::russian::Language;
use crate::http::{one, ApiResult, Bounded, Id32, Query, Single};
use crate::state::AppState;
use axum::extract::State;
use ponkeeper_actors::olt::{BusyOnu, OltHandle};
use ponkeeper_actors::traffic::{rank, Direction};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

const DEFAULT_TOP: i64 = 10;
const MAX_TOP: i64 = 100;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(top))
}

/// The query of `GET /traffic/top` and of the MCP tool `top_traffic`.
#[derive(Debug, Deserialize, Serialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct TopQuery {
    /// `in`: ranked by the rate received from the ONU (the subscriber's upload); `out`: by
    /// the rate sent to it (the download).
    #[param(inline)]
    pub by: TrafficBy,
    /// Only this OLT's ONUs (its id, from `GET /olts`); default: every OLT.
    #[param(inline)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub olt_id: Option<Id32>,
    /// How many ONUs, highest rate first.
    #[param(schema_with = top_size)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<TopSize>,
}

/// How many ONUs one answer ranks at most.
type TopSize = Bounded<1, MAX_TOP>;

/// `size`'s schema, with its default.
fn top_size() -> utoipa::openapi::schema::Object {
    let mut schema = TopSize::documented_with_default(DEFAULT_TOP);
    schema.description = Some("How many ONUs, highest rate first.".into());
    schema
}

/// Which way the ONUs are ranked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, ToSchema, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TrafficBy {
    In,
    Out,
}

impl TrafficBy {
    fn direction(self) -> Direction {
        match self {
            TrafficBy::In => Direction::In,
            TrafficBy::Out => Direction::Out,
        }
    }
}

/// One of the busiest ONUs: who it is and its latest rates.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TopItem {
    pub onu_id: u64,
    pub olt_id: u32,
    /// `frame/slot/port`, e.g. `0/1/3`.
    pub pon_port: String,
    pub serial: String,
    pub description: String,
    /// Bits a second received from the ONU between its last two reads; null as in
    /// `GET /onus/{id}/traffic`.
    pub in_bps: Option<f64>,
    /// Bits a second sent to the ONU between its last two reads.
    pub out_bps: Option<f64>,
    /// When its counters were last read.
    pub at: String,
}

/// The busiest ONUs and what kept any OLT out of the ranking.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TopTraffic {
    pub by: TrafficBy,
    /// Highest rate `by` first; ONUs without a rate that way are not ranked.
    pub items: Vec<TopItem>,
    /// One sentence per OLT that did not answer in time (or no longer runs): its ONUs are
    /// not in `items`. Empty when every OLT answered.
    pub warnings: Vec<String>,
}

#[utoipa::path(
    get,
    path = "/traffic/top",
    operation_id = "top_traffic",
    tag = "traffic",
    summary = "The busiest ONUs now",
    description = "The ONUs with the highest latest rate `by` direction (`in`: from the ONU, \
        `out`: to it), across every OLT or one (`oltId`), highest first. Rates are those of \
        `GET /onus/{id}/traffic`: between the last two reads of the `traffic` poll group. \
        Every OLT is asked at once; one that does not answer within the actor timeout is \
        named in `warnings` and left out, the request does not fail.",
    params(TopQuery),
    responses((status = 200, description = "the busiest ONUs", body = Single<TopTraffic>), BadParameter, Missing, ActorTimeout, Refusals)
)]
async fn top(
    State(app): State<AppState>,
    language: Language,
    Query(query): Query<TopQuery>,
) -> ApiResult {
    let size = query.size.map_or(DEFAULT_TOP, Bounded::get) as usize;
    let by = query.by.direction();
    let (busy, warnings) = match query.olt_id {
        // One OLT: its silence is the request's error, as for any one-OLT read.
        Some(olt) => (app.olt(olt.u32())?.busiest(by, size).await?, Vec::new()),
        None => fleet_busiest(app.fleet.olts(), by, size).await,
    };
    let items = busy
        .into_iter()
        .map(|(onu, reading)| TopItem {
            onu_id: onu.id,
            olt_id: onu.olt_id,
            pon_port: onu.pon_port.into(),
            serial: onu.serial.into(),
            description: onu.description.into(),
            in_bps: round(reading.in_bps),
            out_bps: round(reading.out_bps),
            at: app.clock.format(reading.at),
        })
        .collect();
    let warnings = warnings.iter().map(|w| language.say(w)).collect();
    one(TopTraffic {
        by: query.by,
        items,
        warnings,
    })
}

/// The `size` busiest ONUs of every OLT in `olts` (asked at once), highest rate `by`
/// first (ties by ONU id), and a sentence for each OLT that did not answer.
async fn fleet_busiest(
    olts: Vec<OltHandle>,
    by: Direction,
    size: usize,
) -> (Vec<BusyOnu>, Vec<String>) {
    let asks = olts.iter().map(|olt| olt.busiest(by, size));
    let answers = futures::future::join_all(asks).await;
    let mut busy = Vec::new();
    let mut warnings = Vec::new();
    for answer in answers {
        match answer {
            Ok(onus) => busy.extend(onus),
            Err(e) => warnings.push(e.to_string()),
        }
    }
    let entries = busy
        .into_iter()
        .map(|(onu, reading)| (onu.id, onu, reading));
    let busiest = rank(entries, by, size)
        .into_iter()
        .map(|(_, onu, reading)| (onu, reading))
        .collect();
    (busiest, warnings)
}
