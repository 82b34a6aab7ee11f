//! What the СЗО registry is bound to: each object's ONU, found by serial, and the state of
//! that ONU's OLT. Alone, both come from this process's fleet view; in a cluster every
//! member answers for the ONUs it runs ([`local`], asked over the link), so an object is
//! bound whichever member polls its ONU.

use crate::cluster::questions::{ask_each, Question};
use crate::error::ApiError;
use crate::state::AppState;
use chrono::{DateTime, Utc};
use ponkeeper_actors::domain::{NodeId, OltId, Onu, SessionStatus};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// An object's ONU and what binding needs of its OLT.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Binding {
    pub onu: Onu,
    pub olt_status: SessionStatus,
    /// When the OLT entered `olt_status`.
    pub olt_since: DateTime<Utc>,
    pub node: Option<NodeId>,
}

/// The bindings of `serials` (lower case) across the cluster, by serial.
pub async fn gather(
    app: &AppState,
    serials: Vec<String>,
) -> Result<HashMap<String, Binding>, ApiError> {
    let mut found = local(app, serials.clone()).await?;
    if app.cluster.is_running() && !serials.is_empty() {
        let there: Vec<Vec<Option<Binding>>> = ask_each(&Question::Bindings {
            serials: serials.clone(),
        })
        .await;
        let asked = found.len();
        for answer in there.into_iter().filter(|a| a.len() == asked) {
            for (mine, theirs) in found.iter_mut().zip(answer) {
                // Two members run the ONU only during a hand-back: the newer poll wins.
                if theirs.as_ref().map(|b| b.onu.last_update)
                    > mine.as_ref().map(|b| b.onu.last_update)
                {
                    *mine = theirs;
                }
            }
        }
    }
    Ok(serials
        .into_iter()
        .zip(found)
        .filter_map(|(serial, binding)| Some((serial, binding?)))
        .collect())
}

/// The bindings of `serials` among the ONUs this process runs, in that order: two
/// questions to its fleet view.
pub async fn local(app: &AppState, serials: Vec<String>) -> Result<Vec<Option<Binding>>, ApiError> {
    let view = app.fleet.view();
    let onus = view.onus_by_serial(serials).await?;
    let mut olt_ids: Vec<OltId> = onus.iter().flatten().map(|o| o.olt_id).collect();
    olt_ids.sort_unstable();
    olt_ids.dedup();
    let olts: HashMap<OltId, _> = view
        .summaries(Some(olt_ids))
        .await?
        .into_iter()
        .map(|o| (o.id, o))
        .collect();
    Ok(onus
        .into_iter()
        .map(|onu| {
            let onu = onu?;
            let olt = olts.get(&onu.olt_id)?;
            Some(Binding {
                olt_status: olt.status,
                olt_since: olt.status_since,
                node: olt.node,
                onu,
            })
        })
        .collect())
}
