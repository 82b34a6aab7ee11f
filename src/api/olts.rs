//! `/olts`: the OLT list (docs/api.md) with every filter, the OLT detail, and the two
//! actions that need no CLI — `restart-session` (README.md, "OLT session states") and `poll`. Everything is asked
//! of actors by message: the list of the fleet view, one OLT of its own actor; nothing here
//! touches a device.

use super::doc::{ActorTimeout, BadParameter, DeviceFailures, Missing, Refusals, TooLarge};
use super::path::OltPath;
use crate::http::russian::Language;
use crate::http::{json_response, one, ApiResult, Id32, PageQuery, Paged, Query, Single};
use crate::state::AppState;
use axum::extract::State;
use ponkeeper_actors::domain::{NodeId, SessionStatus};
use ponkeeper_actors::fleet_view::OltFilter;
use ponkeeper_actors::inventory::Inventory;
use ponkeeper_actors::olt::{OltDetail, OltSummary};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(detail))
        .routes(routes!(restart_session))
        .routes(routes!(poll))
}

/// Filters of `GET /olts` and of the MCP tool `list_olts`; text matches ignore case.
#[derive(Debug, Default, Deserialize, Serialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct OltsQuery {
    /// Vendor: `huawei`, `zte`, `bdcom`, `eltex`, `vsol`, `cdata` or `snr`.
    pub vendor: Option<String>,
    /// Table layout, the item's `family`: `MA5800`, `C320`, `C620`, `P3310`, `GP3600`,
    /// `LTP-8X`, `V1600D`, `V1600G`, `FD16XX` or `SNR-GPON`, any case. A name no layout has matches no OLT (as an unknown vendor or city
    /// does), and neither does an OLT whose layout no poll has detected yet.
    pub family: Option<String>,
    /// City name.
    pub city: Option<String>,
    /// Only OLTs whose session is in this state.
    #[param(inline)]
    pub status: Option<SessionStatus>,
    /// Only OLTs of this communication node (its id, from `GET /nodes`).
    #[param(inline)]
    pub node_id: Option<Id32>,
    /// Only OLTs of the communication node with this name.
    pub node: Option<String>,
}

/// The `node` block of an OLT.
#[derive(Debug, Serialize, ToSchema)]
pub struct NodeRef {
    pub id: NodeId,
    pub name: String,
    pub city: String,
}

/// An OLT list item: the published contract's fields (docs/api.md) and the ONUs online
/// and offline.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OltItem {
    pub id: u32,
    pub ip: String,
    /// The vendor; `auto` while an OLT with `vendor = "auto"` in the inventory has not
    /// been detected yet (the first good poll detects it).
    #[schema(value_type = ponkeeper_actors::inventory::VendorSetting)]
    pub vendor: &'static str,
    /// The table layout the OLT is read with, by its short, stable name: `MA5800`
    /// (Huawei MA5600T / MA5800), `C320` (ZTE C300 / C320), `C620` (ZTE C600 / C620),
    /// `P3310` (BDCOM P3310 / P3600, EPON), `GP3600` (BDCOM GP3600, GPON), `LTP-8X`
    /// (Eltex LTP-8X / LTP-4X), `V1600D` (V-SOL V1600D, EPON), `V1600G` (V-SOL V1600G /
    /// V1600GS, GPON), `FD16XX` (C-Data FD16xx) or `SNR-GPON` (SNR-OLT-GPON). Null until a
    /// good poll has detected it from the device's system group (kept across restarts).
    pub family: Option<&'static str>,
    pub model: String,
    pub status: SessionStatus,
    pub city: String,
    pub node: Option<NodeRef>,
    pub total_ports: u32,
    pub total_onu: u32,
    /// ONUs online and offline as of the last poll (beside the contract's fields): the
    /// OLT with most subscribers down is one sort away.
    pub onu_online: u32,
    pub onu_offline: u32,
    pub last_update: String,
    /// The cluster member that polls this OLT (`[cluster] name`); absent when the service
    /// runs alone, so a single service's items keep the contract's shape.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub member: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PortItem {
    pub name: String,
    pub onu_total: u32,
    pub onu_online: u32,
    /// Bits a second from the port's ONUs (upstream) and to them (downstream): their
    /// latest rates summed (`GET /onus/{id}/traffic`); null until a rate is known.
    pub in_bps: Option<f64>,
    pub out_bps: Option<f64>,
    /// `inBps` and `outBps` as a share of the port's capacity (GPON 1.244 Gb/s up and
    /// 2.488 down, EPON 1 Gb/s each way), 0 to 1, four decimals.
    pub in_utilisation: Option<f64>,
    pub out_utilisation: Option<f64>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TransitionItem {
    pub at: String,
    pub from: Option<SessionStatus>,
    pub to: SessionStatus,
    pub reason: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionItem {
    pub status: SessionStatus,
    pub since: String,
    pub last_poll_at: Option<String>,
    pub last_poll_ms: Option<u64>,
    pub last_poll_varbinds: u64,
    pub last_error: Option<String>,
    pub failures_in_row: u32,
    pub transitions: Vec<TransitionItem>,
    /// Where the last good poll found the ONU table and IF-MIB disagreeing, counted and
    /// named: ONU rows it could not place as IF-MIB says (e.g. `12 ONU rows on ifIndex
    /// 4194312448: no such port in IF-MIB`), and ONU interfaces IF-MIB lists that the ONU
    /// table gave no ONU for (e.g. `IF-MIB lists 64 ONU interfaces but the ONU table gave
    /// an ONU for 0 of them: none for GPON0/2:1-51, GPON0/4:1-13`); empty when they agree.
    pub warnings: Vec<String>,
}

/// OLT detail: the list item plus device facts, ports and the session.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OltDetailItem {
    #[serde(flatten)]
    pub item: OltItem,
    pub sys_name: Option<String>,
    pub uptime_seconds: Option<u64>,
    pub firmware: Option<String>,
    pub ports: Vec<PortItem>,
    pub session: SessionItem,
    /// How the OLT is read: its poll groups, pace and latency (docs/polling.md).
    pub polling: super::polling::PollingItem,
    /// The SSH host key in force (docs/devices.md): pinned in the inventory or recorded at the
    /// first login; null until the first login of an OLT without a pin.
    pub ssh_host_key: Option<super::host_keys::SshHostKeyItem>,
}

mod list_page;

/// What an OLT item reads beside the OLT: the zone its times are written in, the
/// inventory's nodes, and the cluster member answering.
pub struct ItemContext<'a> {
    pub clock: crate::clock::Clock,
    pub inventory: &'a Inventory,
    pub member: Option<&'a str>,
}

impl<'a> ItemContext<'a> {
    pub fn of(app: &'a AppState, inventory: &'a Inventory) -> ItemContext<'a> {
        ItemContext {
            clock: app.clock,
            inventory,
            member: app.cluster.name(),
        }
    }
}

/// The item of `olt`, whose strings it takes.
pub fn item(app: &AppState, inventory: &Inventory, olt: OltSummary) -> OltItem {
    item_in(&ItemContext::of(app, inventory), olt)
}

/// [`item`] with what it reads beside the OLT given.
fn item_in(context: &ItemContext, olt: OltSummary) -> OltItem {
    let inventory = context.inventory;
    OltItem {
        id: olt.id,
        ip: ip_text(olt.ip),
        vendor: olt.vendor_name(),
        family: olt.family,
        model: olt.model,
        status: olt.status,
        city: olt.city,
        node: olt
            .node
            .and_then(|id| inventory.node(id))
            .map(|node| NodeRef {
                id: node.id,
                name: node.name.clone(),
                city: node.city.clone(),
            }),
        total_ports: olt.total_ports,
        total_onu: olt.total_onu,
        onu_online: olt.onu_online,
        onu_offline: olt.total_onu.saturating_sub(olt.onu_online),
        last_update: context.clock.format(olt.last_update),
        member: context.member.map(String::from),
    }
}

/// An address as `Display` writes it; IPv4 digit by digit, as `Ipv4Addr`'s `Display`
/// was 8 % of the CPU of `GET /olts?size=100`.
fn ip_text(ip: std::net::IpAddr) -> String {
    let std::net::IpAddr::V4(v4) = ip else {
        return ip.to_string();
    };
    let mut text = String::with_capacity(15);
    for (n, octet) in v4.octets().into_iter().enumerate() {
        if n > 0 {
            text.push('.');
        }
        if octet >= 100 {
            text.push(char::from(b'0' + octet / 100));
        }
        if octet >= 10 {
            text.push(char::from(b'0' + octet / 10 % 10));
        }
        text.push(char::from(b'0' + octet % 10));
    }
    text
}

fn detail_item(app: &AppState, inventory: &Inventory, olt: OltDetail) -> OltDetailItem {
    let session = olt.session;
    let polling = super::polling::item(app, olt.polling);
    let ssh_host_key = super::host_keys::in_force(app, inventory, olt.summary.id);
    OltDetailItem {
        ssh_host_key,
        polling,
        item: item(app, inventory, olt.summary),
        sys_name: olt.system.sys_name,
        uptime_seconds: olt.system.uptime_seconds,
        firmware: olt.system.firmware,
        ports: olt
            .ports
            .into_iter()
            .map(|p| {
                let traffic = olt.port_traffic.iter().find(|t| t.port == p.name);
                let share = |bps: Option<f64>, capacity: f64| {
                    bps.map(|b| (b / capacity * 10_000.0).round() / 10_000.0)
                };
                PortItem {
                    in_bps: traffic.and_then(|t| t.in_bps).map(f64::round),
                    out_bps: traffic.and_then(|t| t.out_bps).map(f64::round),
                    in_utilisation: traffic.and_then(|t| share(t.in_bps, t.in_capacity_bps)),
                    out_utilisation: traffic.and_then(|t| share(t.out_bps, t.out_capacity_bps)),
                    name: p.name,
                    onu_total: p.onu_total,
                    onu_online: p.onu_online,
                }
            })
            .collect(),
        session: SessionItem {
            status: session.status,
            since: app.clock.format(session.since),
            last_poll_at: session.last_poll_at.map(|t| app.clock.format(t)),
            last_poll_ms: session.last_poll_ms,
            last_poll_varbinds: session.last_poll_varbinds,
            last_error: session.last_error,
            failures_in_row: session.failures_in_row,
            transitions: session
                .transitions
                .into_iter()
                .map(|t| TransitionItem {
                    at: app.clock.format(t.at),
                    from: t.from,
                    to: t.to,
                    reason: t.reason,
                })
                .collect(),
            warnings: session.warnings,
        },
    }
}

#[utoipa::path(
    get,
    path = "/olts",
    operation_id = "list_olts",
    tag = "olts",
    summary = "List OLTs",
    description = "OLTs ordered by id, filtered and paged.",
    params(PageQuery, OltsQuery),
    responses((status = 200, description = "one page of OLTs", body = Paged<OltItem>), BadParameter, ActorTimeout, Refusals)
)]
async fn list(
    State(app): State<AppState>,
    Query(page_query): Query<PageQuery>,
    Query(query): Query<OltsQuery>,
) -> ApiResult {
    let paging = page_query.paging(&app.config.paging)?;
    let inventory = app.inventory();
    let filter = OltFilter {
        status: query.status,
        vendor: query.vendor,
        family: query.family,
        city: query.city,
        node_id: query.node_id.map(Id32::u32),
        node_in: query.node.map(|name| {
            inventory
                .nodes
                .iter()
                .filter(|node| node.name.eq_ignore_ascii_case(&name))
                .map(|node| node.id)
                .collect()
        }),
    };
    let page = app.fleet.view().olts(filter, paging.window()).await?;
    // Only the page's OLTs are written: formatting all of them (clock, strings) was a
    // fifth of the CPU of `GET /olts?size=100` over 1,000 OLTs under wrk.
    let context = ItemContext::of(&app, &inventory);
    Ok(json_response(list_page::write(
        &page.items,
        &context,
        page.total,
        paging,
    )))
}

#[utoipa::path(
    get,
    path = "/olts/{id}",
    operation_id = "get_olt",
    tag = "olts",
    summary = "One OLT in detail",
    description = "The list item plus device facts, ports with ONU counters, and the management session with its recent transitions.",
    params(("id" = u32, Path, description = "OLT id")),
    responses((status = 200, description = "the OLT", body = Single<OltDetailItem>), BadParameter, Missing, ActorTimeout, Refusals)
)]
async fn detail(
    State(app): State<AppState>,
    OltPath(id): OltPath,
    language: Language,
) -> ApiResult {
    let handle = app.olt(id)?;
    let olt = handle.detail().await?;
    let inventory = app.inventory();
    let mut detail = detail_item(&app, &inventory, olt);
    // The session's sentences in the reader's language (the states stay codes).
    let session = &mut detail.session;
    session.last_error = session.last_error.as_deref().map(|e| language.say(e));
    for transition in &mut session.transitions {
        transition.reason = language.say(&transition.reason);
    }
    for warning in &mut session.warnings {
        *warning = language.say(warning);
    }
    one(detail)
}

#[utoipa::path(
    post,
    path = "/olts/{id}/restart-session",
    operation_id = "restart_olt_session",
    tag = "olts",
    summary = "Restart the OLT's management session",
    description = "FULL keys only. Drops the session and reconnects (README.md, OLT session states); answers the OLT item.",
    params(("id" = u32, Path, description = "OLT id")),
    responses((status = 200, description = "the OLT after the restart", body = Single<OltItem>), BadParameter, Missing, DeviceFailures, ActorTimeout, TooLarge, Refusals)
)]
async fn restart_session(State(app): State<AppState>, OltPath(id): OltPath) -> ApiResult {
    let handle = app.olt(id)?;
    let olt = handle.restart_session().await?;
    one(item(&app, &app.inventory(), olt))
}

#[utoipa::path(
    post,
    path = "/olts/{id}/poll",
    operation_id = "poll_olt",
    tag = "olts",
    summary = "Poll the OLT now",
    description = "FULL keys only. Runs a poll at once and answers the OLT item after it.",
    params(("id" = u32, Path, description = "OLT id")),
    responses((status = 200, description = "the OLT after the poll", body = Single<OltItem>), BadParameter, Missing, DeviceFailures, ActorTimeout, TooLarge, Refusals)
)]
async fn poll(State(app): State<AppState>, OltPath(id): OltPath) -> ApiResult {
    let handle = app.olt(id)?;
    let olt = handle.poll_now().await?;
    one(item(&app, &app.inventory(), olt))
}

#[cfg(test)]
mod tests {
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

    proptest::proptest! {
        #[test]
        fn addresses_read_as_display_writes_them(bits: u32, wide: u128) {
            let v4 = IpAddr::V4(Ipv4Addr::from(bits));
            proptest::prop_assert_eq!(super::ip_text(v4), v4.to_string());
            let v6 = IpAddr::V6(Ipv6Addr::from(wide));
            proptest::prop_assert_eq!(super::ip_text(v6), v6.to_string());
        }
    }

    #[test]
    fn edge_octets() {
        for text in ["0.0.0.0", "255.255.255.255", "10.0.100.9", "127.0.0.1"] {
            let ip: IpAddr = text.parse().expect("address");
            assert_eq!(super::ip_text(ip), text);
        }
    }
}
