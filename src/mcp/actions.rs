//! The MCP tools that act (FULL keys only; not listed for READ_ONLY keys): restart an
//! OLT's session, poll it, reboot an ONU, read its optics now, set its VLAN or
//! description, back up an OLT's configuration. Each is one `POST` through the server's [`super::Backend`], so the
//! REST validation, level check and audit log apply unchanged. Their router joins the
//! others in [`super::PonTools::new`].

use super::params::{OltRef, OnuRef, SetDescription, SetProfile, SetVlan};
use super::PonTools;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, ErrorData, RoleServer};
use serde_json::json;

#[tool_router(router = actions_router, vis = "pub(super)")]
impl PonTools {
    #[tool(
        description = "FULL key. Drop and re-establish the service's management session with an \
OLT (it reconnects and polls anew); returns the OLT. Use it when an OLT is stuck DEGRADED or \
OFFLINE although the device is reachable. Does not touch subscribers.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            open_world_hint = true
        )
    )]
    async fn restart_olt_session(
        &self,
        Parameters(p): Parameters<OltRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.post(&ctx, format!("/olts/{}/restart-session", p.olt_id), None)
            .await
    }

    #[tool(
        description = "FULL key. Poll an OLT now instead of waiting for the next scheduled poll; \
returns the OLT after the poll. Use it to get fresh ONU states and optical levels.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn poll_olt(
        &self,
        Parameters(p): Parameters<OltRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.post(&ctx, format!("/olts/{}/poll", p.olt_id), None)
            .await
    }

    #[tool(
        description = "FULL key. Reboot an ONU over the OLT's CLI: the subscriber loses service \
for a minute or so. Returns {onuId, accepted}. Only when the subscriber agrees or the ONU is \
misbehaving.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            open_world_hint = true
        )
    )]
    async fn reboot_onu(
        &self,
        Parameters(p): Parameters<OnuRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.post(&ctx, format!("/onus/{}/reboot", p.onu_id), None)
            .await
    }

    #[tool(
        description = "FULL key. Read an ONU's optical signal from its OLT now (Rx/Tx power, \
temperature, voltage, bias), ahead of the scheduled optics sweep, e.g. while the subscriber is \
on the phone after a repair; returns the fresh reading with opticsAt. The OLT's request budget \
bounds it: a RATE_LIMITED error says how many seconds to wait. Does not disturb the subscriber.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn refresh_onu_optics(
        &self,
        Parameters(p): Parameters<OnuRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.post(&ctx, format!("/onus/{}/optics/refresh", p.onu_id), None)
            .await
    }

    #[tool(
        description = "FULL key. Set an ONU's service VLAN (1-4094) on the OLT; returns the ONU. \
Moves the subscriber's traffic: check the VLAN with list_vlans first.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn set_onu_vlan(
        &self,
        Parameters(p): Parameters<SetVlan>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = format!("/onus/{}/vlan", p.onu_id);
        self.post(&ctx, path, Some(json!({ "vlan": p.vlan }))).await
    }

    #[tool(
        description = "FULL key. Set an ONU's description on the device (1-64 ASCII letters, \
digits, spaces and -_.,:/()+@=), e.g. the subscriber's contract number; returns the ONU.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn set_onu_description(
        &self,
        Parameters(p): Parameters<SetDescription>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = format!("/onus/{}/description", p.onu_id);
        self.post(&ctx, path, Some(json!({ "description": p.description })))
            .await
    }

    #[tool(
        description = "FULL key. Give an ONU another line profile (its bandwidth) and/or \
service profile, by the ids of list_onu_profiles; returns the ONU. Only where the vendor's \
command is known (Huawei); elsewhere NOT_SUPPORTED.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn set_onu_profile(
        &self,
        Parameters(p): Parameters<SetProfile>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = format!("/onus/{}/profile", p.onu_id);
        let body = serde_json::to_value(&p).unwrap_or_default();
        self.post(&ctx, path, Some(body)).await
    }

    #[tool(
        description = "FULL key. Fetch an OLT's running configuration over SSH now and store it \
as a backup; returns the backup (id, sha256, sizeBytes, changed from the previous one).",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            open_world_hint = true
        )
    )]
    async fn backup_olt_config(
        &self,
        Parameters(p): Parameters<OltRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.post(&ctx, format!("/olts/{}/configs/backup", p.olt_id), None)
            .await
    }
}
