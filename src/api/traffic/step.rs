//! The `step` of `GET /onus/{id}/traffic/history` and `GET /onus/{id}/optics/history`:
//! how long each summarised point of the answer covers, written `5m`, `1h` or `1d` (1 to
//! 999 minutes, hours or days). Its shape is one pattern, stated in the OpenAPI document
//! and the MCP schema and checked when the query is read; an answer names the step its
//! points have in the same words ([`HistoryStep::of_seconds`]).

use crate::history::{Plan, Resolution};
use crate::http::echo;
use schemars::JsonSchema;
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use std::borrow::Cow;

/// What a step must look like.
const STEP_PATTERN: &str = "^[1-9][0-9]{0,2}[mhd]$";
/// What the documents say of a step.
const STEP_MEANING: &str = "Summarise the points into buckets of this length (mean, min and \
max of each value), each dated at its start, the first starting at `from`: minutes (`5m`), \
hours (`1h`) or days (`1d`), 1 to 999 of them; default: every point as stored. A step of whole \
hours or days is read from the hourly or daily rollups, and so is a period starting before \
the raw points kept: the answer's `meta` says the resolution and step it has.";

/// A bucket length, as the client wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryStep {
    text: String,
    seconds: i64,
}

impl HistoryStep {
    /// `text` read as a step, if it is one.
    pub fn parse(text: &str) -> Option<HistoryStep> {
        let unit = match text.chars().last()? {
            'm' => 60,
            'h' => 3_600,
            'd' => 86_400,
            _ => return None,
        };
        let digits = &text[..text.len() - 1];
        let shaped = (1..=3).contains(&digits.len())
            && !digits.starts_with('0')
            && digits.bytes().all(|b| b.is_ascii_digit());
        let count: i64 = digits.parse().ok().filter(|_| shaped)?;
        Some(HistoryStep {
            text: text.to_string(),
            seconds: count * unit,
        })
    }

    pub fn duration(&self) -> chrono::Duration {
        chrono::Duration::seconds(self.seconds)
    }

    /// A step of `seconds` (whole minutes) in the largest unit it is a whole number of.
    pub fn of_seconds(seconds: i64) -> String {
        match seconds {
            s if s % 86_400 == 0 => format!("{}d", s / 86_400),
            s if s % 3_600 == 0 => format!("{}h", s / 3_600),
            s => format!("{}m", s / 60),
        }
    }
}

/// `meta` of a history answer: what its points are.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HistoryMeta {
    /// `raw`: the points as stored (with `step`, summarised into its buckets); `hourly`,
    /// `daily`: summaries of the hourly or daily rollups, chosen by the period (from
    /// before the raw points kept) or by a step of whole hours or days.
    pub resolution: Resolution,
    /// How long each point covers, as a step is written (`1h`); null for points as stored.
    pub step: Option<String>,
}

impl HistoryMeta {
    pub fn of(plan: Plan) -> HistoryMeta {
        HistoryMeta {
            resolution: plan.resolution,
            step: plan.step.map(HistoryStep::of_seconds),
        }
    }
}

impl<'de> Deserialize<'de> for HistoryStep {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        HistoryStep::parse(&text).ok_or_else(|| {
            de::Error::custom(format!(
                "must be a step like 5m, 1h or 1d (1 to 999 minutes, hours or days), got `{}`",
                echo(&text)
            ))
        })
    }
}

impl Serialize for HistoryStep {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl utoipa::PartialSchema for HistoryStep {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some(STEP_MEANING))
            .pattern(Some(STEP_PATTERN))
            .examples([serde_json::json!("1h")])
            .into()
    }
}

impl utoipa::ToSchema for HistoryStep {}

impl JsonSchema for HistoryStep {
    fn schema_name() -> Cow<'static, str> {
        "HistoryStep".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": STEP_PATTERN,
            "description": STEP_MEANING,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_is_one_to_three_digits_and_a_unit() {
        let seconds = |text: &str| HistoryStep::parse(text).map(|s| s.duration().num_seconds());
        assert_eq!(seconds("5m"), Some(300));
        assert_eq!(seconds("1h"), Some(3_600));
        assert_eq!(seconds("1d"), Some(86_400));
        assert_eq!(seconds("999d"), Some(999 * 86_400));
        for refused in [
            "", "m", "0m", "05m", "1000m", "5s", "1.5h", "-1h", "1 h", "1H", "1hh",
        ] {
            assert_eq!(seconds(refused), None, "{refused}");
        }
    }

    #[test]
    fn a_step_is_named_in_its_largest_unit() {
        assert_eq!(HistoryStep::of_seconds(300), "5m");
        assert_eq!(HistoryStep::of_seconds(7_200), "2h");
        assert_eq!(HistoryStep::of_seconds(5_400), "90m");
        assert_eq!(HistoryStep::of_seconds(86_400), "1d");
    }

    #[test]
    fn the_pattern_admits_exactly_what_is_read() {
        let pattern = regex::Regex::new(STEP_PATTERN).expect("a regex");
        for text in [
            "5m", "1h", "1d", "999d", "0m", "05m", "1000m", "5s", "1H", "",
        ] {
            assert_eq!(
                pattern.is_match(text),
                HistoryStep::parse(text).is_some(),
                "{text}"
            );
        }
    }
}
