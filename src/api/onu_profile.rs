//! `POST /onus/{id}/profile` (FULL keys, audited): gives an ONU another line profile (the
//! bandwidth a subscriber buys) and/or service profile, by the ids of the OLT's own
//! listing (`GET /olts/{id}/onu-profiles`), over its CLI. Where the vendor's public
//! sources give the command (Huawei: `ont modify F/S/P N ont-lineprofile-id …` and
//! `ont-srvprofile-id …`, docs/devices.md) it is run; elsewhere the answer is 501 before
//! anything is sent. Each id is checked for its form and then against the listing, so a
//! refused value never reaches the device.

use super::doc::{
    ActorTimeout, BadInput, DeviceFailures, Missing, NotSupported, Refusals, TooLarge,
};
use super::onus::OnuItem;
use super::path::OnuPath;
use super::provisioning_actions::{invalid, known_profiles, valid_name};
use crate::error::ApiError;
use crate::http::{one, ApiResult, JsonBody, Single};
use crate::state::AppState;
use axum::extract::State;
use ponkeeper_actors::olt::{ActionOutcome, CliAction, ProfileChange, VENDOR_NOT_DETECTED};
use ponkeeper_actors::profile::provisioning::ProfileKind;
use ponkeeper_actors::profile::Profile;
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(set_profile))
}

/// The profiles to give the ONU: at least one.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schema(min_properties = 1)]
struct ProfileBody {
    /// A LINE profile id of `GET /olts/{id}/onu-profiles` (the bandwidth).
    #[serde(default)]
    #[schema(
        nullable = false,
        min_length = 1,
        max_length = 32,
        pattern = r"^[A-Za-z0-9_.-]+$"
    )]
    line_profile: Option<String>,
    /// A SERVICE profile id of `GET /olts/{id}/onu-profiles`.
    #[serde(default)]
    #[schema(
        nullable = false,
        min_length = 1,
        max_length = 32,
        pattern = r"^[A-Za-z0-9_.-]+$"
    )]
    service_profile: Option<String>,
}

#[utoipa::path(
    post,
    path = "/onus/{id}/profile",
    operation_id = "set_onu_profile",
    tag = "onus",
    summary = "Give an ONU another line or service profile",
    description = "FULL keys only. Checks each id against the OLT's own profile listing (400 naming the field), runs the vendor's command over SSH (501 where no public source gives it) and answers the ONU.",
    params(("id" = u64, Path, description = "ONU id")),
    request_body = ProfileBody,
    responses((status = 200, description = "the ONU, its profiles changed", body = Single<OnuItem>), BadInput, Missing, DeviceFailures, ActorTimeout, NotSupported, TooLarge, Refusals)
)]
async fn set_profile(
    State(app): State<AppState>,
    OnuPath(id): OnuPath,
    JsonBody(body): JsonBody<ProfileBody>,
) -> ApiResult {
    let change = ProfileChange {
        line: valid_name("lineProfile", &body.line_profile)?,
        service: valid_name("serviceProfile", &body.service_profile)?,
    };
    if change.line.is_none() && change.service.is_none() {
        return Err(invalid(
            "lineProfile",
            "or `serviceProfile` is required: name at least one",
        ));
    }
    let owner = app.onu_olt(id)?;
    let summary = owner.detail().await?.summary;
    let vendor = summary
        .vendor
        .ok_or_else(|| ApiError::DeviceUnavailable(VENDOR_NOT_DETECTED.into()))?;
    let layout = Profile::for_family(vendor, summary.family);
    let wanted = [
        (change.line.is_some(), layout.cli.set_line_profile, "line"),
        (
            change.service.is_some(),
            layout.cli.set_service_profile,
            "service",
        ),
    ];
    if let Some((_, _, kind)) = wanted.iter().find(|(w, script, _)| *w && script.is_empty()) {
        return Err(ApiError::NotSupported(format!(
            "changing an ONU's {kind} profile is not supported on the {} family ({}): no \
             public source gives the command, and none is guessed",
            layout.layout, layout.family
        )));
    }
    let named = [
        ("lineProfile", ProfileKind::Line, &change.line),
        ("serviceProfile", ProfileKind::Service, &change.service),
    ];
    known_profiles(&owner, &named).await?;
    match owner.cli(CliAction::SetProfiles(id, change)).await? {
        ActionOutcome::Onu(onu) => one(super::onus::bound_item(&app, *onu).await?),
        _ => Err(ApiError::Internal(
            "another kind of action answered a profile change".into(),
        )),
    }
}
