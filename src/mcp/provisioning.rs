//! The MCP tools of ONU provisioning (docs/provisioning.md): `list_unconfigured_onus`,
//! `list_onu_profiles` (read-only), `authorize_onu`, `bind_subscriber` and
//! `deauthorize_onu` (FULL). Each is
//! one REST call through the server's [`super::Backend`], like every other tool, so the
//! REST validation, levels and audit log apply unchanged; their router is added to the
//! main one in [`super::PonTools::new`]. The descriptions tell a model the order of work:
//! an unconfigured ONU's port and serial, then the OLT's profiles, then the authorisation.

use super::{with_query, PonTools};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::schemars::{self, JsonSchema};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, ErrorData, RoleServer};
use serde::{Deserialize, Serialize};

/// Arguments of `list_unconfigured_onus`: the query of `GET /unconfigured-onus`.
pub type ListUnconfigured = super::params::Scoped<crate::api::UnconfiguredQuery>;

/// Arguments of `list_onu_profiles`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfilesOf {
    /// OLT id (from list_olts or list_unconfigured_onus).
    #[schemars(range(min = 1))]
    pub olt_id: u32,
}

/// Arguments of `authorize_onu`: the body of `POST /olts/{id}/onus/authorize`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Authorize {
    /// The OLT the ONU is plugged into.
    #[serde(skip_serializing)]
    #[schemars(range(min = 1))]
    pub olt_id: u32,
    /// The port, exactly as list_unconfigured_onus gives it (`0/1/0`).
    pub pon_port: String,
    /// The serial (GPON, `HWTC1A2B3C4D`) or MAC (EPON), as list_unconfigured_onus gives it.
    pub serial: String,
    /// The ONU's number on the port; leave it out to take the lowest free one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 255))]
    pub onu_index: Option<u32>,
    /// Huawei: the `id` of a LINE profile from list_onu_profiles.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_profile: Option<String>,
    /// Huawei: the `id` of a SERVICE profile from list_onu_profiles.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service_profile: Option<String>,
    /// ZTE: the `id` of an ONU_TYPE from list_onu_profiles.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub onu_type: Option<String>,
    /// Service VLAN (1-4094), one the OLT has (list_vlans).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 4094))]
    pub vlan: Option<u16>,
    /// Description on the device, e.g. the contract number (1-64 ASCII characters).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// Arguments of `bind_subscriber`: the body of `POST /onus/{id}/subscriber`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BindSubscriber {
    /// ONU id (the service-wide `id` from list_onus or find_onu).
    #[serde(skip_serializing)]
    #[schemars(range(min = 1))]
    pub onu_id: u64,
    /// The billing contract, e.g. `100234` (at most 256 characters).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contract: Option<String>,
    /// The subscriber's name; any language (Cyrillic is fine).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The service address.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// A note for the NOC.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Arguments of `deauthorize_onu`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Deauthorize {
    /// ONU id (the service-wide `id` from list_onus or find_onu).
    #[schemars(range(min = 1))]
    pub onu_id: u64,
}

#[tool_router(router = provisioning_router, vis = "pub(super)")]
impl PonTools {
    #[tool(
        description = "List ONUs that are plugged in but not registered on their OLT (Huawei \
autofind, ZTE uncfg, BDCOM unbound): oltId, ponPort, serial, equipmentId (the ONU model, \
when reported), firstSeenAt and lastSeenAt. Read on every poll. This is where a new \
subscriber's ONU shows up: take its oltId, ponPort and serial to authorize_onu.",
        annotations(read_only_hint = true)
    )]
    async fn list_unconfigured_onus(
        &self,
        Parameters(p): Parameters<ListUnconfigured>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, with_query("/unconfigured-onus", &p)?).await
    }

    #[tool(
        description = "The profiles an ONU authorisation can name on one OLT, read from the \
device: [{kind, id, name}], kind LINE and SERVICE on Huawei, ONU_TYPE on ZTE (BDCOM needs \
none). Call it before authorize_onu and pass the profiles by their id.",
        annotations(read_only_hint = true, open_world_hint = true)
    )]
    async fn list_onu_profiles(
        &self,
        Parameters(p): Parameters<ProfilesOf>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, format!("/olts/{}/onu-profiles", p.olt_id))
            .await
    }

    #[tool(
        description = "FULL key. Register an unconfigured ONU on its OLT so the subscriber gets \
service: runs the vendor's script over SSH, polls the OLT and returns the new ONU with its \
stable id. Needs the port and serial from list_unconfigured_onus and the profiles from \
list_onu_profiles (Huawei: lineProfile and serviceProfile; ZTE: onuType); vlan must be one \
the OLT has (list_vlans). Errors: INVALID_PARAMETER names the field; CONFLICT for a taken \
onuIndex or a serial already registered; a device refusal carries the device's message.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn authorize_onu(
        &self,
        Parameters(p): Parameters<Authorize>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = format!("/olts/{}/onus/authorize", p.olt_id);
        let body = serde_json::to_value(&p).map_err(|e| {
            ErrorData::invalid_params(format!("cannot encode the arguments: {e}"), None)
        })?;
        self.post(&ctx, path, Some(body)).await
    }

    #[tool(
        description = "FULL key. Bind an ONU to a subscriber in ponkeeper (never sent to the \
device): contract, name, address, note, each optional, any language, at most 256 characters. \
Replaces the ONU's binding; with no field set it removes it. The binding shows as \
`subscriber` on the ONU and is found by find_onu/list_onus `q` (and `contract`). Returns the \
ONU.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn bind_subscriber(
        &self,
        Parameters(p): Parameters<BindSubscriber>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = format!("/onus/{}/subscriber", p.onu_id);
        let body = serde_json::to_value(&p).map_err(|e| {
            ErrorData::invalid_params(format!("cannot encode the arguments: {e}"), None)
        })?;
        self.post(&ctx, path, Some(body)).await
    }

    #[tool(
        description = "FULL key. Remove an ONU from its OLT (service ports first): the \
subscriber loses service and the ONU leaves the lists; its id is never reused and its \
history stays. An ONU bound to a socially significant object (СЗО) is refused with \
CONFLICT naming it. Confirm with the operator before calling.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn deauthorize_onu(
        &self,
        Parameters(p): Parameters<Deauthorize>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = format!("/onus/{}/deauthorize", p.onu_id);
        self.post(&ctx, path, None).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_authorize_arguments_are_the_rest_body_without_the_olt() {
        let args: Authorize = serde_json::from_value(json!({
            "oltId": 3, "ponPort": "0/1/0", "serial": "HWTC1A2B3C4D",
            "lineProfile": "10", "serviceProfile": "10", "vlan": 100
        }))
        .expect("arguments");
        assert_eq!(
            serde_json::to_value(&args).expect("body"),
            json!({"ponPort": "0/1/0", "serial": "HWTC1A2B3C4D",
                   "lineProfile": "10", "serviceProfile": "10", "vlan": 100})
        );
    }
}
