//! The scrape-time series of `/metrics` that answer the operator's dashboard questions
//! beyond the per-OLT ones: ONUs per communication node (offline ones are total minus
//! online) and the worst optical signals of the fleet. Both are asked of the fleet view
//! at each scrape ([`crate::metrics::endpoint`] calls [`write`]), so a node or ONU that
//! left leaves no stale series, and the signal series stay bounded to [`WORST_SIGNALS`].
//!
//! | metric | kind | labels |
//! |---|---|---|
//! | `ponkeeper_node_onus`, `ponkeeper_node_onus_online` | gauge | `node`, `name` |
//! | `ponkeeper_worst_onu_rx_dbm` | gauge | `olt`, `onu`, `port`, `serial` |

use super::label;
use crate::state::AppState;
use ponkeeper_actors::fleet_view::{OnuSearch, Window};
use ponkeeper_actors::onu_table::OnuOrder;
use std::fmt::Write;

/// How many of the lowest Rx readings `/metrics` carries.
pub const WORST_SIGNALS: usize = 10;

/// Appends the node and worst-signal series to `text`; a fleet view that does not
/// answer leaves them out (the per-OLT series above already failed the scrape then).
pub async fn write(text: &mut String, app: &AppState) {
    let nodes = app.inventory().nodes.clone();
    let ids = nodes.iter().map(|n| n.id).collect();
    if let Ok(counters) = app.fleet.view().node_counters(ids).await {
        for (name, help, online) in [
            ("ponkeeper_node_onus", "ONUs on the node's OLTs", false),
            (
                "ponkeeper_node_onus_online",
                "online ONUs on the node's OLTs",
                true,
            ),
        ] {
            let _ = writeln!(text, "# HELP {name} {help}\n# TYPE {name} gauge");
            for (node, counters) in nodes.iter().zip(&counters) {
                let count = if online {
                    counters.onu_online
                } else {
                    counters.onu_total
                };
                let _ = writeln!(
                    text,
                    "{name}{{node=\"{}\",name=\"{}\"}} {count}",
                    node.id,
                    label(&node.name)
                );
            }
        }
    }
    let window = Window {
        offset: 0,
        limit: WORST_SIGNALS,
    };
    let worst = app
        .fleet
        .view()
        .onus(OnuSearch::default(), OnuOrder::WorstRx, window)
        .await;
    let name = "ponkeeper_worst_onu_rx_dbm";
    let _ = writeln!(
        text,
        "# HELP {name} Rx power of the ONUs with the lowest readings (at most {WORST_SIGNALS})\n\
         # TYPE {name} gauge"
    );
    for onu in worst.map(|page| page.items).unwrap_or_default() {
        let onu = onu.onu;
        let Some(rx) = onu.rx_power.get() else {
            continue;
        };
        let _ = writeln!(
            text,
            "{name}{{olt=\"{}\",onu=\"{}\",port=\"{}\",serial=\"{}\"}} {rx}",
            onu.olt_id,
            onu.id,
            label(&onu.pon_port),
            label(&onu.serial)
        );
    }
}
