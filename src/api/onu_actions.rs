//! ONU actions over the OLT's CLI (docs/api.md, FULL keys only): `POST /onus/{id}/reboot`,
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
//! The handler checks the body, finds the ONU's owner (its OLT's actor) once, and asks
//! that actor, which runs the vendor's script: the VLAN check and the action go to the
//! same handle.

use super::doc::{
    ActorTimeout, BadInput, BadParameter, DeviceFailures, Missing, NotSupported, Refusals, TooLarge,
};
use super::onus::OnuItem;
use super::path::OnuPath;
use crate::error::ApiError;
use crate::http::{one, ApiResult, JsonBody, Single};
use crate::state::AppState;
use axum::extract::State;
use ponkeeper_actors::olt::{ActionOutcome, CliAction, OltHandle};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(reboot))
        .routes(routes!(set_vlan))
        .routes(routes!(set_description))
}

/// Longest description accepted.
pub const DESCRIPTION_MAX: usize = 64;
/// Characters a description may use besides ASCII letters, digits and the space.
pub const DESCRIPTION_PUNCTUATION: &str = "-_.,:/()+@=";

/// A reboot the ONU's OLT accepted.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct RebootAccepted {
    onu_id: u64,
    accepted: bool,
}

/// The ONU's new service VLAN.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct VlanBody {
    /// 802.1Q VLAN id; 0 and 4095 are reserved. It must be one of the OLT's VLANs
    /// (`GET /olts/{id}/vlans`), or the request is refused with `INVALID_PARAMETER`.
    #[schema(minimum = 1, maximum = 4094)]
    vlan: i64,
}

/// The ONU's new description.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct DescriptionBody {
    /// ASCII letters, digits, spaces and `- _ . , : / ( ) + @ =`; no space at either end.
    #[schema(
        min_length = 1,
        max_length = 64,
        pattern = r"^[A-Za-z0-9\-_.,:/()+@=]([A-Za-z0-9 \-_.,:/()+@=]*[A-Za-z0-9\-_.,:/()+@=])?$"
    )]
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

/// Refuses, as the client's mistake, a VLAN the ONU's OLT does not have: the device would
/// refuse the command anyway, and that is not a device failure (502). When the OLT has
/// reported no VLANs yet, the device decides.
pub async fn known_vlan(owner: &OltHandle, vlan: u16) -> Result<(), ApiError> {
    let vlans = owner.vlans().await?;
    if vlans.is_empty() || vlans.iter().any(|v| v.vlan_id == vlan) {
        return Ok(());
    }
    let known: Vec<String> = vlans.iter().map(|v| v.vlan_id.to_string()).collect();
    Err(ApiError::InvalidParameter(format!(
        "field `vlan`: VLAN {vlan} is not configured on OLT {} (its VLANs: {})",
        owner.id,
        known.join(", ")
    )))
}

/// Runs `action` on the actor of the ONU's OLT and answers what it reports.
async fn act(app: &AppState, owner: &OltHandle, action: CliAction) -> ApiResult {
    match owner.cli(action).await? {
        ActionOutcome::Rebooted(onu_id) => one(RebootAccepted {
            onu_id,
            accepted: true,
        }),
        ActionOutcome::Onu(onu) => one(super::onus::bound_item(app, *onu).await?),
        ActionOutcome::Backup(_) | ActionOutcome::Provisioned(_) | ActionOutcome::MacsRead => Err(
            ApiError::Internal("another kind of action answered an ONU action".into()),
        ),
    }
}

#[utoipa::path(
    post,
    path = "/onus/{id}/reboot",
    operation_id = "reboot_onu",
    tag = "onus",
    summary = "Reboot an ONU",
    description = "FULL keys only. Reboots the ONU through its OLT's CLI over SSH.",
    params(("id" = u64, Path, description = "ONU id")),
    responses((status = 200, description = "the OLT accepted the reboot", body = Single<RebootAccepted>), BadParameter, Missing, DeviceFailures, ActorTimeout, NotSupported, TooLarge, Refusals)
)]
async fn reboot(State(app): State<AppState>, OnuPath(id): OnuPath) -> ApiResult {
    let owner = app.onu_olt(id)?;
    act(&app, &owner, CliAction::Reboot(id)).await
}

#[utoipa::path(
    post,
    path = "/onus/{id}/vlan",
    operation_id = "set_onu_vlan",
    tag = "onus",
    summary = "Set an ONU's service VLAN",
    description = "FULL keys only. Sets the VLAN through the OLT's CLI over SSH; answers the ONU.",
    params(("id" = u64, Path, description = "ONU id")),
    request_body = VlanBody,
    responses((status = 200, description = "the ONU with its new VLAN", body = Single<OnuItem>), BadInput, Missing, DeviceFailures, ActorTimeout, NotSupported, TooLarge, Refusals)
)]
async fn set_vlan(
    State(app): State<AppState>,
    OnuPath(id): OnuPath,
    JsonBody(body): JsonBody<VlanBody>,
) -> ApiResult {
    let vlan = valid_vlan(body.vlan)?;
    let owner = app.onu_olt(id)?;
    known_vlan(&owner, vlan).await?;
    act(&app, &owner, CliAction::SetVlan(id, vlan)).await
}

#[utoipa::path(
    post,
    path = "/onus/{id}/description",
    operation_id = "set_onu_description",
    tag = "onus",
    summary = "Set an ONU's description",
    description = "FULL keys only. Sets the description on the device over SSH; answers the ONU.",
    params(("id" = u64, Path, description = "ONU id")),
    request_body = DescriptionBody,
    responses((status = 200, description = "the ONU with its new description", body = Single<OnuItem>), BadInput, Missing, DeviceFailures, ActorTimeout, NotSupported, TooLarge, Refusals)
)]
async fn set_description(
    State(app): State<AppState>,
    OnuPath(id): OnuPath,
    JsonBody(body): JsonBody<DescriptionBody>,
) -> ApiResult {
    let description = valid_description(&body.description)?.to_string();
    let owner = app.onu_olt(id)?;
    act(&app, &owner, CliAction::SetDescription(id, description)).await
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

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]

        /// Whatever a client sends, a description that passes the check is one line of
        /// at most 64 printable ASCII characters that every vendor's description command
        /// carries as one value: rendered into the command and read back, it is the
        /// same text, so nothing of it can become another command or argument.
        #[test]
        fn accepted_descriptions_stay_one_value_in_every_cli(
            text in proptest::prop_oneof!["\\PC{0,80}", "[ -~]{0,80}", "[a-zA-Z0-9 ,.()+-]{1,70}"],
        ) {
            use ponkeeper_actors::domain::Vendor;
            use ponkeeper_actors::profile::commands::{capture, render};
            use ponkeeper_actors::profile::Profile;
            let Ok(accepted) = valid_description(&text) else {
                return Ok(());
            };
            proptest::prop_assert!(accepted.len() <= 64);
            proptest::prop_assert!(accepted.bytes().all(|b| (0x20..0x7f).contains(&b)));
            for vendor in Vendor::ALL {
                let cli = Profile::for_vendor(vendor).cli;
                for template in cli.set_description.iter().filter(|t| t.contains("{description}")) {
                    let values = std::collections::HashMap::from([
                        ("description", accepted.to_string()),
                        ("pon", "0/1/2".to_string()),
                        ("board", "0/1".to_string()),
                        ("port", "2".to_string()),
                        ("onu", "7".to_string()),
                    ]);
                    let line = render(template, &values);
                    proptest::prop_assert!(!line.contains(['\n', '\r']));
                    let read = capture(template, &line).expect("the line matches its template");
                    proptest::prop_assert_eq!(read.get("description").map(String::as_str), Some(accepted));
                }
            }
        }
    }
}
