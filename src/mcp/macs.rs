//! The MCP tools of the MACs behind ONUs (docs/api.md, "MACs"): `get_onu_macs` and
//! `find_mac` (read-only) and `refresh_onu_macs` (FULL). Each is one REST call through
//! the server's [`super::Backend`], so validation, levels, the OLT's budget and the audit
//! log are the REST API's; their router is added to the main one in
//! [`super::PonTools::new`]. The descriptions tell a model what the lookup is for: the
//! MAC a billing, DHCP or PPPoE log names.

use super::params::{Listed, OnuRef};
use super::{with_query, PonTools};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, ErrorData, RoleServer};

pub type FindMac = Listed<crate::api::MacLookup>;

#[tool_router(router = macs_router, vis = "pub(super)")]
impl PonTools {
    #[tool(
        description = "The MAC addresses seen behind one ONU (the subscriber's router and \
devices): mac, vlan, firstSeen, lastSeen and active (seen by the last read, every 15 minutes \
by default); active ones first. A layout with no known way to read them answers an empty list \
and a warning.",
        annotations(read_only_hint = true)
    )]
    async fn get_onu_macs(
        &self,
        Parameters(p): Parameters<OnuRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, format!("/onus/{}/macs", p.onu_id)).await
    }

    #[tool(
        description = "Which ONU is this MAC behind? The MAC from a billing, DHCP or PPPoE \
log in any spelling (aa:bb:cc:dd:ee:ff, AA-BB-CC-DD-EE-FF, aabb.ccdd.eeff, aabbccddeeff) or a \
prefix of at least 6 hex digits (a vendor's OUI): every ONU it is or was behind, newest first, \
with oltId, ponPort, serial, vlan, firstSeen, lastSeen, active, and duplicate (active behind \
two ONUs at once: a loop or a cloned MAC).",
        annotations(read_only_hint = true)
    )]
    async fn find_mac(
        &self,
        Parameters(p): Parameters<FindMac>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, with_query("/macs", &p)?).await
    }

    #[tool(
        description = "Reads the MAC addresses behind one ONU now (FULL keys), within its \
OLT's request budget (RATE_LIMITED with a time to retry when the budget is spent), and \
answers them as get_onu_macs does. Use it when a subscriber just plugged in a device.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn refresh_onu_macs(
        &self,
        Parameters(p): Parameters<OnuRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.post(&ctx, format!("/onus/{}/macs/refresh", p.onu_id), None)
            .await
    }
}
