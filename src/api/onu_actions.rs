//! ONU actions over the OLT's CLI (SPEC §4, FULL keys only): `POST /onus/{id}/reboot`,
//! `/vlan` and `/description`. Every value that reaches a CLI is checked here first, so a
//! refused value never produces a command:
//!
//! - `vlan`: an integer 1–4094 (0 and 4095 are reserved by 802.1Q).
//! - `description`: 1–64 characters, each an ASCII letter or digit, a space, or one of
//!   `- _ . , : / ( ) + @ =`; no leading or trailing space. Everything else is refused:
//!   control characters and newlines (they would end the command line), quotes and
//!   backslash (they end or escape a quoted argument), `?` (CLI help), `|` (output
//!   filters), `;` `!` `#` (comments and separators in the vendors' CLIs), `$ % & * < > [ ]
//!   { } ^ ~ ' \``, and non-ASCII text, which the devices' terminals do not take reliably.
//!
//! The handler finds the ONU's OLT and asks its actor, which runs the vendor's script.

use super::{one, path_id, ApiError, ApiResult, JsonBody};
use crate::app::AppState;
use axum::extract::{Path, State};
use axum::routing::post;
use axum::Router;
use ponkeeper_actors::olt::{ActionOutcome, CliAction};
use serde::{Deserialize, Serialize};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/onus/{id}/reboot", post(reboot))
        .route("/onus/{id}/vlan", post(set_vlan))
        .route("/onus/{id}/description", post(set_description))
}

/// Longest description accepted.
pub const DESCRIPTION_MAX: usize = 64;
/// Characters a description may use besides ASCII letters, digits and the space.
pub const DESCRIPTION_PUNCTUATION: &str = "-_.,:/()+@=";

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct RebootAccepted {
    onu_id: u64,
    accepted: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct VlanBody {
    vlan: i64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DescriptionBody {
    description: String,
}

/// A service VLAN, or 400 naming `vlan`.
pub fn valid_vlan(vlan: i64) -> Result<u16, ApiError> {
    u16::try_from(vlan)
        .ok()
        .filter(|v| (1..=4094).contains(v))
        .ok_or_else(|| {
            ApiError::InvalidParameter(format!(
                "field `vlan` must be between 1 and 4094, got {vlan}"
            ))
        })
}

/// A description safe to put on any vendor's command line, or 400 naming `description`.
pub fn valid_description(text: &str) -> Result<&str, ApiError> {
    let refuse = |why: String| ApiError::InvalidParameter(format!("field `description` {why}"));
    let length = text.chars().count();
    if length == 0 || length > DESCRIPTION_MAX {
        return Err(refuse(format!(
            "must have 1 to {DESCRIPTION_MAX} characters, got {length}"
        )));
    }
    if let Some(bad) = text
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == ' ' || DESCRIPTION_PUNCTUATION.contains(*c)))
    {
        return Err(refuse(format!(
            "may hold only ASCII letters, digits, spaces and `{DESCRIPTION_PUNCTUATION}`; {} is not allowed",
            if bad.is_control() {
                format!("control character U+{:04X}", u32::from(bad))
            } else {
                format!("`{bad}`")
            }
        )));
    }
    if text.starts_with(' ') || text.ends_with(' ') {
        return Err(refuse("may not start or end with a space".into()));
    }
    Ok(text)
}

async fn act(app: &AppState, onu: u64, action: CliAction) -> ApiResult {
    let handle = app.onu_olt(onu)?;
    match handle.cli(action).await? {
        ActionOutcome::Rebooted(onu_id) => one(RebootAccepted {
            onu_id,
            accepted: true,
        }),
        ActionOutcome::Onu(onu) => one(super::onus::item(app, *onu)),
        ActionOutcome::Backup(_) => {
            Err(ApiError::Internal("a backup answered an ONU action".into()))
        }
    }
}

async fn reboot(State(app): State<AppState>, Path(id): Path<String>) -> ApiResult {
    let id = path_id("id", &id)?;
    act(&app, id, CliAction::Reboot(id)).await
}

async fn set_vlan(
    State(app): State<AppState>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<VlanBody>,
) -> ApiResult {
    let id = path_id("id", &id)?;
    let vlan = valid_vlan(body.vlan)?;
    act(&app, id, CliAction::SetVlan(id, vlan)).await
}

async fn set_description(
    State(app): State<AppState>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<DescriptionBody>,
) -> ApiResult {
    let id = path_id("id", &id)?;
    let description = valid_description(&body.description)?.to_string();
    act(&app, id, CliAction::SetDescription(id, description)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vlans_outside_1_to_4094_are_refused() {
        assert_eq!(valid_vlan(1).ok(), Some(1));
        assert_eq!(valid_vlan(4094).ok(), Some(4094));
        for bad in [0, 4095, -1, 70_000] {
            assert!(valid_vlan(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn descriptions_that_a_cli_would_interpret_are_refused() {
        assert!(valid_description("flat 12, Baumana 1 (school) +7-843").is_ok());
        assert!(valid_description(&"x".repeat(64)).is_ok());
        for bad in [
            "",
            "a\nb",
            "a\rb",
            "tab\there",
            "quote\"",
            "it's",
            "what?",
            "a|b",
            "a;b",
            "back\\",
            "#x",
            "!x",
            "$x",
            "Баумана",
            " lead",
            "trail ",
            &"x".repeat(65),
        ] {
            assert!(valid_description(bad).is_err(), "{bad:?}");
        }
    }
}
