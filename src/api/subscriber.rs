//! Subscriber binding (docs/provisioning.md): `POST /onus/{id}/subscriber`, FULL keys only (a POST),
//! audited like every request. The body `{contract, name, address, note}` is stored by
//! ponkeeper in [`crate::records::subscribers`] and never sent to a device, so any Unicode
//! (Cyrillic too) is welcome; each field is at most 256 characters without control
//! characters, line and paragraph separators or format characters (bidirectional
//! controls, zero-width and other invisible characters) — they make a field shown in a
//! log, an export or a page read other than it is ([`crate::text`]). A body whose fields are all
//! absent or empty removes the binding. The answer is the ONU as `GET /onus/{id}` shows
//! it, with its `subscriber`.

use super::doc::{ActorTimeout, BadInput, Missing, Refusals, TooLarge};
use super::onus::OnuItem;
use super::path::OnuPath;
use crate::error::ApiError;
use crate::http::{one, ApiResult, JsonBody, Single};
use crate::records::Subscriber;
use crate::state::AppState;
use axum::extract::State;
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The longest a binding's field may be, in characters.
pub const FIELD_MAX: usize = 256;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(bind))
}

/// Who the ONU serves; every field is optional, and all of them absent or empty removes
/// the binding.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SubscriberBody {
    /// The billing contract.
    #[schema(
        example = "Д-2024/117",
        max_length = 256,
        pattern = r"^[^\u0000-\u001F\u007F-\u009F\u00AD\u0600-\u0605\u061C\u06DD\u070F\u0890\u0891\u08E2\u180E\u200B-\u200F\u2028-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\uFFF9-\uFFFB]*$"
    )]
    contract: Option<String>,
    /// The subscriber's name.
    #[schema(
        example = "Иванов Иван Иванович",
        max_length = 256,
        pattern = r"^[^\u0000-\u001F\u007F-\u009F\u00AD\u0600-\u0605\u061C\u06DD\u070F\u0890\u0891\u08E2\u180E\u200B-\u200F\u2028-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\uFFF9-\uFFFB]*$"
    )]
    name: Option<String>,
    #[schema(
        example = "ул. Ленина, 1, кв. 5",
        max_length = 256,
        pattern = r"^[^\u0000-\u001F\u007F-\u009F\u00AD\u0600-\u0605\u061C\u06DD\u070F\u0890\u0891\u08E2\u180E\u200B-\u200F\u2028-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\uFFF9-\uFFFB]*$"
    )]
    address: Option<String>,
    #[schema(
        max_length = 256,
        pattern = r"^[^\u0000-\u001F\u007F-\u009F\u00AD\u0600-\u0605\u061C\u06DD\u070F\u0890\u0891\u08E2\u180E\u200B-\u200F\u2028-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\uFFF9-\uFFFB]*$"
    )]
    note: Option<String>,
}

/// A field as stored: `None` when absent or empty, else checked.
fn field(name: &str, value: Option<String>) -> Result<Option<String>, ApiError> {
    let Some(text) = value.filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    let length = text.chars().count();
    if length > FIELD_MAX {
        return Err(ApiError::InvalidParameter(format!(
            "field `{name}` must have at most {FIELD_MAX} characters, got {length}"
        )));
    }
    if let Some(why) = crate::text::first_unwelcome(&text) {
        return Err(ApiError::InvalidParameter(format!("field `{name}` {why}")));
    }
    Ok(Some(text))
}

impl SubscriberBody {
    /// The binding to store, every field checked.
    pub fn checked(self) -> Result<Subscriber, ApiError> {
        Ok(Subscriber {
            contract: field("contract", self.contract)?,
            name: field("name", self.name)?,
            address: field("address", self.address)?,
            note: field("note", self.note)?,
        })
    }
}

/// Binds (or, with an empty binding, unbinds) ONU `id` and answers with the ONU.
pub async fn bind_to(app: &AppState, id: u64, subscriber: Subscriber) -> Result<OnuItem, ApiError> {
    let onu = app.onu(id).await?;
    app.bind_subscriber(id, &subscriber).await?;
    let shown = Some(subscriber).filter(|s| !s.is_empty());
    Ok(super::onus::item(app, onu, shown))
}

#[utoipa::path(
    post,
    path = "/onus/{id}/subscriber",
    operation_id = "bind_subscriber",
    tag = "provisioning",
    summary = "Bind a subscriber to an ONU",
    description = "FULL keys only. Stores who the ONU serves `{contract, name, address, note}` (each optional, Unicode, at most 256 characters, no control characters, line and paragraph separators, or format characters such as bidirectional controls and zero-width spaces) in ponkeeper; nothing is sent to the device. The ONU then shows it as `subscriber` and `GET /onus` finds it by `q` (any field) and `contract=`. A body with every field absent or empty removes the binding; deauthorising the ONU removes it too.",
    params(("id" = u64, Path, description = "ONU id")),
    request_body = SubscriberBody,
    responses((status = 200, description = "the ONU with its binding", body = Single<OnuItem>), BadInput, Missing, ActorTimeout, TooLarge, Refusals)
)]
async fn bind(
    State(app): State<AppState>,
    OnuPath(id): OnuPath,
    JsonBody(body): JsonBody<SubscriberBody>,
) -> ApiResult {
    let subscriber = body.checked()?;
    one(bind_to(&app, id, subscriber).await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(name: &str) -> SubscriberBody {
        SubscriberBody {
            contract: Some("Д-1".into()),
            name: Some(name.into()),
            address: None,
            note: Some(String::new()),
        }
    }

    #[test]
    fn cyrillic_is_kept_and_empty_fields_are_absent() {
        let s = body("Иванов Иван").checked().expect("valid");
        assert_eq!(s.name.as_deref(), Some("Иванов Иван"));
        assert_eq!(s.contract.as_deref(), Some("Д-1"));
        assert_eq!(s.note, None);
        assert!(!s.is_empty());
    }

    #[test]
    fn refusals_name_the_field() {
        let long = "я".repeat(FIELD_MAX + 1);
        let error = body(&long).checked().expect_err("too long");
        assert!(
            matches!(&error, ApiError::InvalidParameter(m) if m == "field `name` must have at most 256 characters, got 257"),
            "{error:?}"
        );
        let error = body("a\nb").checked().expect_err("control");
        assert!(
            matches!(&error, ApiError::InvalidParameter(m) if m == "field `name` may not hold control character U+000A"),
            "{error:?}"
        );
        assert!(body(&"я".repeat(FIELD_MAX)).checked().is_ok());
        let error = body("Иванов\u{202E}вонавИ")
            .checked()
            .expect_err("override");
        assert!(
            matches!(&error, ApiError::InvalidParameter(m) if m == "field `name` may not hold bidirectional control U+202E"),
            "{error:?}"
        );
        let error = body("a\u{2028}b").checked().expect_err("separator");
        assert!(
            matches!(&error, ApiError::InvalidParameter(m) if m == "field `name` may not hold line or paragraph separator U+2028"),
            "{error:?}"
        );
    }

    /// The document's pattern for each field admits exactly the characters the service
    /// takes, so a client (or schemathesis) that follows the document is never refused.
    #[test]
    fn the_documented_pattern_is_what_the_service_takes() {
        use utoipa::PartialSchema;
        let schema = serde_json::to_value(SubscriberBody::schema()).expect("schema");
        for name in ["contract", "name", "address", "note"] {
            let pattern = schema["properties"][name]["pattern"]
                .as_str()
                .expect("a pattern");
            let pattern = regex::Regex::new(pattern).expect("a regex");
            let samples = (0..0x3000).chain([0xFEFF, 0x1F600, 0x10FFFF]);
            for c in samples.filter_map(char::from_u32) {
                let text = c.to_string();
                let taken = field(name, Some(text.clone())).is_ok();
                assert_eq!(
                    pattern.is_match(&text),
                    taken,
                    "{name}: U+{:04X}",
                    u32::from(c)
                );
            }
        }
    }

    #[test]
    fn all_empty_is_an_unbinding() {
        let s = SubscriberBody {
            contract: None,
            name: Some(String::new()),
            address: None,
            note: None,
        }
        .checked()
        .expect("valid");
        assert!(s.is_empty());
    }
}
