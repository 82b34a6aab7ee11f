//! ONU provisioning, action side (docs/provisioning.md): `POST /olts/{id}/onus/authorize` and
//! `POST /onus/{id}/deauthorize`, FULL keys only (POSTs), audited like every request.
//! Every value is validated before anything is sent — its format here, then the port, the
//! index, the serial, the VLAN and the profiles against what the OLT has — so nothing can
//! reach the device CLI but the vendor's script with safe values. The script runs through
//! the OLT actor's CLI queue ([`ponkeeper_actors::provision::cli`]); then the OLT is
//! polled and the answer is the ONU as the poll saw it, with its stable id.

use super::doc::{
    ActorTimeout, BadInput, DeviceFailures, Missing, NotSupported, Refusals, TooLarge,
};
use super::onu_actions::{known_vlan, valid_description, valid_vlan};
use super::onus::OnuItem;
use super::path::{OltPath, OnuPath};
use crate::error::ApiError;
use crate::http::{one, ApiResult, JsonBody, Single};
use crate::state::AppState;
use axum::extract::State;
use ponkeeper_actors::domain::Onu;
use ponkeeper_actors::events::{Draft, Event, EventType, Severity};
use ponkeeper_actors::olt::{
    ActionError, ActionOutcome, CliAction, OltHandle, VENDOR_NOT_DETECTED,
};
use ponkeeper_actors::profile::provisioning::{ProfileKind, Provisioning};
use ponkeeper_actors::provision::cli::{AuthorizeJob, ProvisionDone, ProvisionJob};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(authorize))
        .routes(routes!(deauthorize))
}

/// What to authorise (docs/provisioning.md); profiles are named by their `id` from `onu-profiles`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct AuthorizeBody {
    /// The port as the device names it (`0/1/0`, `1/1/2`, `0/1`).
    #[schema(
        example = "0/1/0",
        max_length = 11,
        pattern = r"^[0-9]{1,3}(/[0-9]{1,3}){1,2}$"
    )]
    pon_port: String,
    /// GPON serial (`HWTC1A2B3C4D`) or, on an EPON OLT, the MAC (`fc:fa:f7:12:34:56`).
    #[schema(
        example = "HWTC1A2B3C4D",
        min_length = 12,
        max_length = 17,
        pattern = r"^[A-Za-z0-9:.\-]{12,17}$"
    )]
    serial: String,
    /// The ONU's number on the port; the lowest free one when left out.
    #[schema(minimum = 0, maximum = 255)]
    onu_index: Option<i64>,
    /// Huawei: line profile id.
    #[schema(example = "10", max_length = 32, pattern = r"^[A-Za-z0-9_.\-]{1,32}$")]
    line_profile: Option<String>,
    /// Huawei: service profile id.
    #[schema(example = "10", max_length = 32, pattern = r"^[A-Za-z0-9_.\-]{1,32}$")]
    service_profile: Option<String>,
    /// ZTE: ONU type.
    #[schema(
        example = "ZTE-F660",
        max_length = 32,
        pattern = r"^[A-Za-z0-9_.\-]{1,32}$"
    )]
    onu_type: Option<String>,
    #[schema(minimum = 1, maximum = 4094)]
    vlan: Option<i64>,
    #[schema(
        min_length = 1,
        max_length = 64,
        pattern = r"^[A-Za-z0-9\-_.,:/()+@=]([A-Za-z0-9 \-_.,:/()+@=]*[A-Za-z0-9\-_.,:/()+@=])?$"
    )]
    description: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct Deauthorized {
    onu_id: u64,
    deauthorized: bool,
}

pub(super) fn invalid(field: &str, why: impl std::fmt::Display) -> ApiError {
    ApiError::InvalidParameter(format!("field `{field}` {why}"))
}

/// A profile id or ONU type: letters, digits, `_`, `.`, `-` (nothing a CLI reads as syntax).
pub(super) fn valid_name(field: &str, value: &Option<String>) -> Result<Option<String>, ApiError> {
    let Some(value) = value else {
        return Ok(None);
    };
    let fits = (1..=32).contains(&value.len())
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c));
    if !fits {
        return Err(invalid(
            field,
            "must be 1 to 32 letters, digits, `_`, `.` or `-`",
        ));
    }
    Ok(Some(value.clone()))
}

/// The port, checked for its form here and against the OLT's ports later.
fn valid_port(port: &str) -> Result<&str, ApiError> {
    let parts: Vec<&str> = port.split('/').collect();
    let fits = (2..=3).contains(&parts.len())
        && parts
            .iter()
            .all(|p| (1..=3).contains(&p.len()) && p.chars().all(|c| c.is_ascii_digit()));
    if !fits {
        return Err(invalid("ponPort", "must look like `0/1/0` or `0/1`"));
    }
    Ok(port)
}

/// The provisioning table of the OLT's family: the inventory's vendor (or the one
/// `vendor = "auto"` detected) and the layout the last good poll read it with, so a C620
/// is checked and provisioned with the C620's commands; before any poll detected the
/// layout, the vendor's default family's (the OLT actor picks the same).
pub(super) async fn table_of(owner: &OltHandle) -> Result<&'static Provisioning, ApiError> {
    let summary = owner.detail().await?.summary;
    let vendor = summary
        .vendor
        .ok_or_else(|| ApiError::DeviceUnavailable(VENDOR_NOT_DETECTED.into()))?;
    let family = summary.family;
    Provisioning::for_layout(vendor, family).ok_or_else(|| {
        ApiError::NotSupported(format!(
            "provisioning ONUs is not supported on the {} family of {vendor}: no public source \
             gives its commands, and none is guessed",
            family.unwrap_or("default")
        ))
    })
}

/// Everything the body says, each value checked on its own (400 naming the field).
fn checked_job(table: &Provisioning, body: &AuthorizeBody) -> Result<AuthorizeJob, ApiError> {
    let pon_port = valid_port(&body.pon_port)?.to_string();
    let serial =
        table.cli_serial(&body.serial).ok_or_else(|| {
            invalid("serial", match table.serial_kind {
            ponkeeper_actors::profile::provisioning::SerialKind::Gpon
            | ponkeeper_actors::profile::provisioning::SerialKind::GponColon => {
                "must be a GPON serial: 4 letters or digits and 8 hex digits (`HWTC1A2B3C4D`)"
            }
            ponkeeper_actors::profile::provisioning::SerialKind::Mac => {
                "must be the ONU's MAC (`fc:fa:f7:12:34:56`) on this EPON OLT"
            }
        })
        })?;
    let index = match body.onu_index {
        None => None,
        Some(n) if (i64::from(table.first_index)..=i64::from(table.last_index)).contains(&n) => {
            Some(n as u32)
        }
        Some(n) => {
            return Err(invalid(
                "onuIndex",
                format!(
                    "must be between {} and {} on this OLT, got {n}",
                    table.first_index, table.last_index
                ),
            ))
        }
    };
    let fields = [
        ("lineProfile", ProfileKind::Line, &body.line_profile),
        (
            "serviceProfile",
            ProfileKind::Service,
            &body.service_profile,
        ),
        ("onuType", ProfileKind::OnuType, &body.onu_type),
    ];
    for (field, kind, value) in fields {
        let wanted = table.required.contains(&kind);
        match (wanted, value) {
            (true, None) => return Err(invalid(field, "is required on this OLT")),
            (false, Some(_)) => {
                return Err(invalid(
                    field,
                    format!("does not apply to a {} OLT", table.vendor),
                ))
            }
            _ => {}
        }
    }
    Ok(AuthorizeJob {
        pon_port,
        index: index.unwrap_or(u32::MAX),
        serial,
        line_profile: valid_name("lineProfile", &body.line_profile)?,
        service_profile: valid_name("serviceProfile", &body.service_profile)?,
        onu_type: valid_name("onuType", &body.onu_type)?,
        vlan: body.vlan.map(valid_vlan).transpose()?,
        description: body
            .description
            .as_deref()
            .map(valid_description)
            .transpose()?
            .map(str::to_string),
    })
}

/// Checks the job against the OLT: its port, a free index (the lowest when none was
/// given), a serial not yet registered, a known VLAN and known profiles.
async fn check_on_olt(
    owner: &OltHandle,
    table: &Provisioning,
    body_serial: &str,
    job: &mut AuthorizeJob,
) -> Result<(), ApiError> {
    let detail = owner.detail().await?;
    if !detail.ports.iter().any(|p| p.name == job.pon_port) {
        return Err(invalid(
            "ponPort",
            format!("`{}` is not a PON port of OLT {}", job.pon_port, owner.id),
        ));
    }
    let onus = owner.onus().await?;
    let serial = table.api_serial(body_serial).unwrap_or_default();
    if let Some(taken) = onus.iter().find(|o| o.serial.eq_ignore_ascii_case(&serial)) {
        return Err(ApiError::Conflict(format!(
            "serial {serial} is already registered on OLT {} as ONU {}",
            owner.id, taken.id
        )));
    }
    let used: Vec<u32> = onus
        .iter()
        .filter(|o| o.pon_port == job.pon_port)
        .map(|o| o.onu_index)
        .collect();
    if job.index == u32::MAX {
        job.index = (table.first_index..=table.last_index)
            .find(|i| !used.contains(i))
            .ok_or_else(|| {
                ApiError::Conflict(format!("port {} has no free ONU index", job.pon_port))
            })?;
    } else if used.contains(&job.index) {
        return Err(ApiError::Conflict(format!(
            "ONU index {} on port {} is taken",
            job.index, job.pon_port
        )));
    }
    if let Some(vlan) = job.vlan {
        known_vlan(owner, vlan).await?;
    }
    // A family whose listing no source settles (ZTE C600 / C620): the device judges the
    // named profile, and refuses an unknown one with its own words (502).
    if table.required.is_empty() || table.profiles.is_none() {
        return Ok(());
    }
    let named = [
        ("lineProfile", ProfileKind::Line, &job.line_profile),
        ("serviceProfile", ProfileKind::Service, &job.service_profile),
        ("onuType", ProfileKind::OnuType, &job.onu_type),
    ];
    known_profiles(owner, &named).await
}

/// Refuses (400 naming the field) a profile the OLT's own listing does not hold.
pub(super) async fn known_profiles(
    owner: &OltHandle,
    named: &[(&str, ProfileKind, &Option<String>)],
) -> Result<(), ApiError> {
    let ActionOutcome::Provisioned(ProvisionDone::Profiles(known)) = owner
        .cli(CliAction::Provision(ProvisionJob::ListProfiles))
        .await?
    else {
        return Err(ApiError::Internal(
            "a profile listing answered with something else".into(),
        ));
    };
    for &(field, kind, value) in named {
        let Some(value) = value else { continue };
        if !known
            .iter()
            .any(|p| p.kind == kind.as_str() && p.id == *value)
        {
            return Err(invalid(
                field,
                format!(
                    "`{value}` is not a {} profile of OLT {} (see GET /olts/{}/onu-profiles)",
                    kind.as_str(),
                    owner.id,
                    owner.id
                ),
            ));
        }
    }
    Ok(())
}

/// The device's refusal as the API answers it: a taken index or serial is a conflict.
fn refusal(table: &Provisioning, error: ActionError) -> ApiError {
    match &error {
        ActionError::Device(message)
            if message.contains(table.refuse_index_taken.trim())
                || message.contains(table.refuse_serial_taken.trim()) =>
        {
            ApiError::Conflict(error.to_string())
        }
        _ => error.into(),
    }
}

#[utoipa::path(
    post,
    path = "/olts/{id}/onus/authorize",
    operation_id = "authorize_onu",
    tag = "provisioning",
    summary = "Authorise an unconfigured ONU",
    description = "FULL keys only. Validates every value (400 naming the field: the port must be one of the OLT's, the profiles ones of GET /olts/{id}/onu-profiles, the VLAN one of the OLT's), refuses a taken index or a registered serial (409), runs the vendor's script over SSH (502 with the device's message when it refuses; when a later line fails the registration is undone and the message says what state the device is in), polls the OLT and answers the new ONU with its id.",
    params(("id" = u32, Path, description = "OLT id")),
    request_body = AuthorizeBody,
    responses((status = 200, description = "the authorised ONU", body = Single<OnuItem>), BadInput, Missing, DeviceFailures, ActorTimeout, NotSupported, TooLarge, Refusals)
)]
async fn authorize(
    State(app): State<AppState>,
    OltPath(id): OltPath,
    JsonBody(body): JsonBody<AuthorizeBody>,
) -> ApiResult {
    let owner = app.olt(id)?;
    let table = table_of(&owner).await?;
    let mut job = checked_job(table, &body)?;
    check_on_olt(&owner, table, &body.serial, &mut job).await?;
    let (port, index) = (job.pon_port.clone(), job.index);
    owner
        .cli(CliAction::Provision(ProvisionJob::Authorize(Box::new(job))))
        .await
        .map_err(|e| refusal(table, e))?;
    owner.poll_now().await?;
    let onus = owner.onus().await?;
    let onu = onus
        .iter()
        .find(|o| o.pon_port == port && o.onu_index == index)
        .cloned()
        .ok_or_else(|| {
            ApiError::DeviceError(format!(
                "OLT {id} accepted the authorisation, but its next poll shows no ONU {index} on port {port}"
            ))
        })?;
    record_event(&app, EventType::OnuAuthorized, id, &onu, "authorised");
    one(super::onus::bound_item(&app, onu).await?)
}

#[utoipa::path(
    post,
    path = "/onus/{id}/deauthorize",
    operation_id = "deauthorize_onu",
    tag = "provisioning",
    summary = "Remove an ONU from its OLT",
    description = "FULL keys only. Removes the ONU over SSH (service ports first where the vendor needs it) and polls the OLT. The ONU leaves the lists; its id is never given to another ONU and its history stays. An ONU that serves a СЗО is refused with 409 naming it.",
    params(("id" = u64, Path, description = "ONU id")),
    responses((status = 200, description = "the ONU was removed", body = Single<Deauthorized>), BadInput, Missing, DeviceFailures, ActorTimeout, NotSupported, TooLarge, Refusals)
)]
async fn deauthorize(State(app): State<AppState>, OnuPath(id): OnuPath) -> ApiResult {
    let onu = app.onu(id).await?;
    let owner = app.onu_olt(id)?;
    let inventory = app.inventory();
    if let Some(szo) = inventory
        .szo
        .iter()
        .find(|s| s.onu_serial.eq_ignore_ascii_case(&onu.serial))
    {
        return Err(ApiError::Conflict(format!(
            "ONU {id} serves СЗО {} `{}`; take it out of the inventory's СЗО first",
            szo.id, szo.name
        )));
    }
    let job = ProvisionJob::Deauthorize {
        pon_port: onu.pon_port.to_string(),
        index: onu.onu_index,
    };
    owner.cli(CliAction::Provision(job)).await?;
    // The ONU is gone from the device: its subscriber binding goes too.
    app.bind_subscriber(id, &crate::records::Subscriber::default())
        .await?;
    record_event(
        &app,
        EventType::OnuDeauthorized,
        onu.olt_id,
        &onu,
        "removed",
    );
    owner.poll_now().await?;
    one(Deauthorized {
        onu_id: id,
        deauthorized: true,
    })
}

/// Queues the event of a provisioning action the device took (docs/events.md: `ONU_AUTHORIZED`,
/// `ONU_DEAUTHORIZED`).
fn record_event(app: &AppState, kind: EventType, olt: u32, onu: &Onu, done: &str) {
    let node = app
        .inventory()
        .olts
        .iter()
        .find(|o| o.id == olt)
        .and_then(|o| o.node);
    let event = Event {
        id: 0,
        at: chrono::Utc::now(),
        kind,
        severity: Severity::Info,
        olt_id: Some(olt),
        node_id: node,
        pon_port: Some(onu.pon_port.to_string()),
        onu_id: Some(onu.id),
        szo_id: None,
        message: format!(
            "OLT {olt} port {}: ONU {} ({}) {done}",
            onu.pon_port, onu.onu_index, onu.serial
        ),
        data: serde_json::json!({ "serial": onu.serial, "onuIndex": onu.onu_index }),
    };
    app.events.send(vec![Draft {
        event,
        serial: None,
    }]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use ponkeeper_actors::domain::Vendor;
    use ponkeeper_actors::profile::commands::{capture, port_values, render};

    fn body(vendor: Vendor, port: &str, serial: &str, name: &str) -> AuthorizeBody {
        let (line, service, onu_type) = match vendor {
            Vendor::Huawei => (Some(name.to_string()), Some(name.to_string()), None),
            Vendor::Zte => (None, None, Some(name.to_string())),
            _ => (None, None, None),
        };
        AuthorizeBody {
            pon_port: port.into(),
            serial: serial.into(),
            onu_index: Some(5),
            line_profile: line,
            service_profile: service,
            onu_type,
            vlan: Some(100),
            description: None,
        }
    }

    #[test]
    fn each_field_is_refused_by_name() {
        let table = Provisioning::for_vendor(Vendor::Huawei).expect("Huawei provisions");
        let refused = |b: AuthorizeBody| match checked_job(table, &b) {
            Err(ApiError::InvalidParameter(message)) => message,
            other => panic!("accepted: {other:?}"),
        };
        let good = || body(Vendor::Huawei, "0/1/0", "HWTC1A2B3C4D", "10");
        assert!(checked_job(table, &good()).is_ok());
        assert!(refused(AuthorizeBody {
            pon_port: "0/1/0;x".into(),
            ..good()
        })
        .contains("`ponPort`"));
        assert!(refused(AuthorizeBody {
            serial: "fc:fa:f7:12:34:56".into(),
            ..good()
        })
        .contains("`serial`"));
        assert!(refused(AuthorizeBody {
            onu_index: Some(128),
            ..good()
        })
        .contains("`onuIndex`"));
        assert!(refused(AuthorizeBody {
            line_profile: None,
            ..good()
        })
        .contains("`lineProfile`"));
        assert!(refused(AuthorizeBody {
            service_profile: Some("1 0".into()),
            ..good()
        })
        .contains("`serviceProfile`"));
        assert!(refused(AuthorizeBody {
            onu_type: Some("F660".into()),
            ..good()
        })
        .contains("`onuType`"));
        assert!(refused(AuthorizeBody {
            vlan: Some(4095),
            ..good()
        })
        .contains("`vlan`"));
        assert!(refused(AuthorizeBody {
            description: Some("a;b".into()),
            ..good()
        })
        .contains("`description`"));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]

        /// Whatever a client sends as port, serial or profile, values that pass the checks
        /// render into each line of the vendor's registration script as exactly those
        /// values: read back with the template they are the same, on one line, so nothing
        /// can become another command or argument.
        #[test]
        fn accepted_values_stay_one_value_in_every_script(
            port in proptest::prop_oneof!["\\PC{0,12}", "[0-9/]{1,11}", "[0-9]{1,2}/[0-9]{1,2}(/[0-9]{1,2})?"],
            serial in proptest::prop_oneof!["\\PC{0,20}", "[A-Z]{4}[0-9A-F]{8}", "([0-9a-f]{2}:){5}[0-9a-f]{2}", "[ -~]{12,17}"],
            name in proptest::prop_oneof!["\\PC{0,40}", "[ -~]{1,33}", "[A-Za-z0-9_.-]{1,32}"],
        ) {
            for table in Provisioning::ALL {
                let Ok(job) = checked_job(table, &body(table.vendor, &port, &serial, &name)) else {
                    continue;
                };
                let mut values: std::collections::HashMap<&str, String> =
                    port_values(&job.pon_port).into_iter().collect();
                values.insert("onu", job.index.to_string());
                values.insert("serial", job.serial.clone());
                for (key, value) in [("line", &job.line_profile), ("service", &job.service_profile), ("onu_type", &job.onu_type)] {
                    if let Some(value) = value {
                        values.insert(key, value.clone());
                    }
                }
                for template in table.register.iter().chain(table.deregister) {
                    let line = render(template, &values);
                    proptest::prop_assert!(!line.contains(['\n', '\r', ';', '|']));
                    let read = capture(template, &line).expect("the line matches its template");
                    for (key, value) in &read {
                        proptest::prop_assert_eq!(values.get(key.as_str()), Some(value));
                    }
                }
            }
        }
    }
}
