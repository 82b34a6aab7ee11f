//! The MCP tools that read (`readOnlyHint`, listed for every key): the OLTs, nodes and
//! ONUs, optics, traffic (latest, history, the busiest ONUs), VLANs, configuration
//! backups, the event and audit logs and the СЗО. Each is one `GET` through the server's
//! [`super::Backend`] with the REST query the tool's input is ([`super::params`]);
//! `list_low_signal_onus` without a level is two ([`super::low_signal`]). Their router
//! joins the others in [`super::PonTools::new`].

use super::params::*;
use super::{low_signal, tool_result, with_query, PonTools};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, ErrorData, RoleServer};
use serde_json::json;

#[tool_router(router = reads_router, vis = "pub(super)")]
impl PonTools {
    #[tool(
        description = "List OLTs (optical line terminals) with their vendor, table layout \
(family: MA5800, C320, C620, P3310, GP3600; null until detected), model, IP, city, \
communication node, session status (ONLINE, DEGRADED, OFFLINE, CONNECTING, DISABLED), port \
and ONU counts and last update. Filter by vendor, family, city, status or node. Use it to \
get an overview of the network or to find an OLT's id.",
        annotations(read_only_hint = true)
    )]
    async fn list_olts(
        &self,
        Parameters(p): Parameters<ListOlts>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, with_query("/olts", &p)?).await
    }

    #[tool(
        description = "One OLT in detail: everything list_olts gives plus ONUs online, sysName, \
uptime in seconds, firmware, per-PON-port ONU counts (ports like 0/1/0) with the port's \
traffic in and out (bits a second) and its share of the port's capacity, and the management \
session (status, since when, last poll time and duration in ms, last error, failures in a \
row, recent transitions). Use it to tell why an OLT is OFFLINE or DEGRADED.",
        annotations(read_only_hint = true)
    )]
    async fn get_olt(
        &self,
        Parameters(p): Parameters<OltRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, format!("/olts/{}", p.olt_id)).await
    }

    #[tool(
        description = "List communication nodes (sites that house OLTs) with city, description, \
number of OLTs and ONUs total and online. Use it to see which sites exist or to get a node id \
for filtering other lists.",
        annotations(read_only_hint = true)
    )]
    async fn list_nodes(
        &self,
        Parameters(p): Parameters<ListNodes>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, with_query("/nodes", &p)?).await
    }

    #[tool(
        description = "One communication node with its OLT count and ONU totals (all and online).",
        annotations(read_only_hint = true)
    )]
    async fn get_node(
        &self,
        Parameters(p): Parameters<NodeRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, format!("/nodes/{}", p.node_id)).await
    }

    #[tool(
        description = "List ONUs (subscriber optical terminals), ordered by id, optionally of one \
OLT, node, PON port (such as 0/1/3) or status. Each ONU has id, oltId, ponPort, onuIndex, \
serial, description, status (ONLINE/OFFLINE), lastDownCause (LOS = fibre cut or unplugged, \
DYING_GASP = power loss, DEACTIVATED, REBOOT = reset or rebooted, UNKNOWN), distance in metres, rxPower/txPower/\
oltRxPower in dBm, service VLAN and last update. To find one subscriber use find_onu instead.",
        annotations(read_only_hint = true)
    )]
    async fn list_onus(
        &self,
        Parameters(p): Parameters<ListOnus>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, with_query("/onus", &p)?).await
    }

    #[tool(
        description = "Find ONUs by serial (exact GPON SN or EPON MAC) and/or by text in the \
serial or description (subscriber name, contract number, address). Returns the matching \
ONUs with status, optical levels in dBm and VLAN. Use it first when a user names a \
subscriber or a device; give at least one of serial or q.",
        annotations(read_only_hint = true)
    )]
    async fn find_onu(
        &self,
        Parameters(p): Parameters<FindOnu>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let given = |text: &Option<String>| text.as_deref().is_some_and(|s| !s.trim().is_empty());
        let search = &p.query;
        if !(given(&search.serial) || given(&search.q) || given(&search.contract)) {
            return Ok(CallToolResult::structured_error(json!({
                "code": "INVALID_PARAMETER",
                "message": "give `serial`, `q` (text to look for) or `contract`",
            })));
        }
        self.get(&ctx, with_query("/onus", &p)?).await
    }

    #[tool(
        description = "One ONU by its id: status, last down cause, distance in metres, rxPower, \
txPower and oltRxPower in dBm (null when the device has no reading), VLAN, description.",
        annotations(read_only_hint = true)
    )]
    async fn get_onu(
        &self,
        Parameters(p): Parameters<OnuRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, format!("/onus/{}", p.onu_id)).await
    }

    #[tool(
        description = "The latest optical reading of one ONU: rxPower (received at the ONU), \
txPower and oltRxPower (received at the OLT) in dBm, temperature in °C, voltage in V, bias \
current in mA (null where the vendor lacks them), and level OK/WARNING/CRITICAL/UNKNOWN \
from the rxPower thresholds. Use it to judge a subscriber's line quality.",
        annotations(read_only_hint = true)
    )]
    async fn get_onu_optics(
        &self,
        Parameters(p): Parameters<OnuRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, format!("/onus/{}/optics", p.onu_id)).await
    }

    #[tool(
        description = "The latest traffic of one ONU: inBps (received from the ONU, the \
subscriber's upload) and outBps (sent to it, the download) in bits a second between the last \
two reads of its counters (every 5 minutes by default), the counters inOctets and outOctets, \
and at, when they were read. Null where the OLT has no per-ONU counters, before the second \
read and right after the OLT or the ONU restarted. Use it to tell a slow line from a busy one.",
        annotations(read_only_hint = true)
    )]
    async fn get_onu_traffic(
        &self,
        Parameters(p): Parameters<OnuRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, format!("/onus/{}/traffic", p.onu_id)).await
    }

    #[tool(
        description = "Stored traffic of one ONU over a period (default the last 24 hours), \
oldest first: at, inBps (from the ONU, the upload) and outBps (to it, the download) in bits a \
second, one point per read of its counters (every 5 minutes by default), or with step (5m, 1h, \
1d) summaries of buckets of that length from `from`: the mean rates, min and max, and count \
(the reads summarised). Reads are kept 7 days by default; older periods (hourly rollups for 90 \
days, daily ones for 5 years) and steps of whole hours or days are answered from rollups: \
meta.resolution (raw, hourly, daily) and meta.step say what the points are. Use it to see \
when a subscriber's line is busy, or whether a complaint of slowness matches a full line.",
        annotations(read_only_hint = true)
    )]
    async fn get_onu_traffic_history(
        &self,
        Parameters(p): Parameters<TrafficHistory>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = format!("/onus/{}/traffic/history", p.onu_id);
        self.get(&ctx, with_query(&path, &p)?).await
    }

    #[tool(
        description = "The busiest ONUs now, by their latest rate in (from the ONU, the upload) \
or out (to it, the download), highest first: onuId, oltId, ponPort, serial, description, inBps, \
outBps and at. Across every OLT, or one with oltId; size 1 to 100 (default 10). OLTs that did \
not answer in time are named in warnings. Use it to find who fills a PON port or the network.",
        annotations(read_only_hint = true)
    )]
    async fn top_traffic(
        &self,
        Parameters(p): Parameters<TopTraffic>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, with_query("/traffic/top", &p)?).await
    }

    #[tool(
        description = "Stored optical readings of one ONU over a period (default the last 24 \
hours), oldest first: rxPower, txPower, oltRxPower in dBm and level per reading, or with step \
(15m, 1h, 1d) summaries of buckets of that length: mean values, min, max, the worst level and \
count. Readings are kept 7 days by default; older periods (hourly rollups for 90 days, daily \
ones for 5 years) are answered from rollups: meta.resolution and meta.step say what the points \
are. Use it to see whether a weak signal is new, degrading or intermittent.",
        annotations(read_only_hint = true)
    )]
    async fn get_onu_optics_history(
        &self,
        Parameters(p): Parameters<OpticsHistory>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = format!("/onus/{}/optics/history", p.onu_id);
        self.get(&ctx, with_query(&path, &p)?).await
    }

    #[tool(
        description = "ONUs ordered by worst received power first (rxPower in dBm, most negative \
first), each with its serial, description, oltId and ponPort beside its latest reading and \
level. Without `level` it lists the ONUs that need attention (CRITICAL and WARNING); filter by \
OLT, node or one level (CRITICAL, WARNING, OK, UNKNOWN). Use it to find subscribers with weak \
or failing optical signal.",
        annotations(read_only_hint = true)
    )]
    async fn list_low_signal_onus(
        &self,
        Parameters(p): Parameters<LowSignal>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        if p.query.level.is_some() {
            return self.get(&ctx, with_query("/optics", &p)?).await;
        }
        match low_signal::needing_attention(&self.backend, &ctx, &p).await {
            Ok(reply) => Ok(tool_result(reply)),
            Err(why) => self.rest_failed("/optics", why),
        }
    }

    #[tool(
        description = "VLANs configured on the OLTs: oltId, vlanId, name, type and how many ONUs \
use each. Filter by OLT or VLAN number. Use it before set_onu_vlan to check a VLAN exists.",
        annotations(read_only_hint = true)
    )]
    async fn list_vlans(
        &self,
        Parameters(p): Parameters<ListVlans>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, with_query("/vlans", &p)?).await
    }

    #[tool(
        description = "Stored running-configuration backups of one OLT, newest first: id, \
takenAt, sizeBytes, sha256 and whether it changed from the previous backup (no content; use \
get_olt_config for that).",
        annotations(read_only_hint = true)
    )]
    async fn list_olt_configs(
        &self,
        Parameters(p): Parameters<OfOlt<crate::http::PageQuery>>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = format!("/olts/{}/configs", p.olt_id);
        self.get(&ctx, with_query(&path, &p)?).await
    }

    #[tool(
        description = "One stored configuration backup of an OLT with its full text (content).",
        annotations(read_only_hint = true)
    )]
    async fn get_olt_config(
        &self,
        Parameters(p): Parameters<ConfigRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, format!("/olts/{}/configs/{}", p.olt_id, p.config_id))
            .await
    }

    #[tool(
        description = "Unified diff between two configuration backups of an OLT (by default \
the given one against the one before it). Use it to see what changed on the device.",
        annotations(read_only_hint = true)
    )]
    async fn diff_olt_config(
        &self,
        Parameters(p): Parameters<ConfigDiff>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = format!(
            "/olts/{}/configs/{}/diff",
            p.config.olt_id, p.config.config_id
        );
        self.get(&ctx, with_query(&path, &p)?).await
    }

    #[tool(
        description = "The event log, newest first: ONUs down and up (with cause), PON \
outages (likely fibre cuts), OLT status moves, optics level changes, СЗО down/up, new \
running-config versions. Use it to answer what happened, and when.",
        annotations(read_only_hint = true)
    )]
    async fn list_events(
        &self,
        Parameters(p): Parameters<ListEvents>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, with_query("/events", &p)?).await
    }

    #[tool(
        description = "The audit log, newest first: who (key name, client IP) did what \
(action such as onu.reboot, target, parameters), when, with which result and HTTP status. \
Use it to answer who changed or rebooted something.",
        annotations(read_only_hint = true)
    )]
    async fn list_audit_logs(
        &self,
        Parameters(p): Parameters<ListAudit>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, with_query("/audit-logs", &p)?).await
    }

    #[tool(
        description = "Socially significant objects (СЗО: schools, hospitals, FAPs, fire \
stations, ...) with their live status (UP, DOWN, UNKNOWN, UNBOUND = its ONU not seen), since \
when, the ONU/OLT/node serving them, rxPower in dBm and SLA percent. Use status=DOWN to see \
which are without service now.",
        annotations(read_only_hint = true)
    )]
    async fn list_szo(
        &self,
        Parameters(p): Parameters<ListSzo>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, with_query("/szo", &p)?).await
    }

    #[tool(
        description = "One socially significant object (СЗО) with address, bandwidth in Mbit/s, \
SLA percent, live status and the ONU serving it.",
        annotations(read_only_hint = true)
    )]
    async fn get_szo(
        &self,
        Parameters(p): Parameters<SzoRef>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, format!("/szo/{}", p.szo_id)).await
    }

    #[tool(
        description = "Outages of one СЗО over a period (default the last 30 days): start, end, \
duration in seconds and cause (the ONU's or the OLT's), with availability over the period.",
        annotations(read_only_hint = true)
    )]
    async fn get_szo_outages(
        &self,
        Parameters(p): Parameters<SzoOutages>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = format!("/szo/{}/outages", p.szo.szo_id);
        self.get(&ctx, with_query(&path, &p)?).await
    }

    #[tool(
        description = "Availability report of СЗО over a period (from and to required): per \
object up/down/unknown seconds, availability percent, outage count and whether its SLA was \
met, plus a summary per object type. Use it for monthly SLA reporting.",
        annotations(read_only_hint = true)
    )]
    async fn szo_availability_report(
        &self,
        Parameters(p): Parameters<SzoAvailability>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.get(&ctx, with_query("/szo/availability", &p)?).await
    }
}
