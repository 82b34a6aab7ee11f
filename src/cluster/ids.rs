//! ONU ids across members. Each member allocates new ids in its own block (`id_block ×
//! 2⁴⁸` on), so no two members give one id to two ONUs. Each member also copies the other
//! members' assignments into its own store, a batch per heartbeat from where it left off
//! (the highest id of that member's block it holds): a member that takes over an OLT then
//! finds its ONUs' ids and keeps them, and the OLT's history reads as one across the
//! takeover. An assignment a member made in its last heartbeat before it died is the one
//! that can be missed: the survivor allocates a new id for that ONU.

use super::{remote_member, ClusterShared, MemberMsg};
use ponkeeper_actors::domain::{OltId, OnuId};
use ponkeeper_actors::store::{Store, ID_BLOCK_BITS};
use ractor::rpc::CallResult;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::time::Duration;

/// Assignments asked in one batch: a few hundred kilobytes of JSON.
const BATCH: usize = 5_000;

/// One member asks another for assignments in `(after, before)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdsAsked {
    pub after: OnuId,
    pub before: OnuId,
}

/// The ids of block `block`: `[block × 2⁴⁸, (block + 1) × 2⁴⁸)`.
pub fn block_range(block: u16) -> (OnuId, OnuId) {
    let start = u64::from(block) << ID_BLOCK_BITS;
    (start, start + (1 << ID_BLOCK_BITS))
}

/// This member's answer to `asked` (JSON text in, JSON text out): up to [`BATCH`]
/// assignments of its own block, `[]` for a question outside it or malformed.
pub(crate) async fn answer(store: Store, own_block: u16, asked: &str) -> String {
    let Ok(asked) = serde_json::from_str::<IdsAsked>(asked) else {
        return "[]".into();
    };
    let (start, end) = block_range(own_block);
    let (after, before) = (
        asked.after.max(start.saturating_sub(1)),
        asked.before.min(end),
    );
    let found = tokio::task::spawn_blocking(move || store.onu_ids_after(after, before, BATCH))
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    serde_json::to_string(&found).unwrap_or_else(|_| "[]".into())
}

/// Where this member is in each other member's block.
#[derive(Debug, Default)]
pub(crate) struct Cursors(HashMap<u16, OnuId>);

impl Cursors {
    /// Asks each other member whose block is known for the assignments past this member's
    /// cursor in it, and takes them.
    pub(crate) async fn copy(&mut self, shared: &ClusterShared, store: &Store) {
        let blocks: Vec<(String, u16)> = shared
            .membership()
            .peers()
            .iter()
            .filter_map(|(name, peer)| Some((name.clone(), peer.id_block?)))
            .filter(|(_, block)| *block != shared.config.id_block())
            .collect();
        for (name, block) in blocks {
            let Some(member) = remote_member(shared, &name) else {
                continue;
            };
            let (start, end) = block_range(block);
            let after = match self.0.get(&block) {
                Some(cursor) => *cursor,
                None => match store.last_onu_id_in(start.saturating_sub(1), end) {
                    Ok(last) => last.unwrap_or(start.saturating_sub(1)),
                    Err(_) => continue,
                },
            };
            let asked = serde_json::to_string(&IdsAsked { after, before: end }).unwrap_or_default();
            let answer = member
                .call(
                    |reply| MemberMsg::Ids(asked, reply),
                    Some(shared.config.heartbeat.max(Duration::from_secs(1))),
                )
                .await;
            let Ok(CallResult::Success(text)) = answer else {
                continue;
            };
            let Ok(found) = serde_json::from_str::<Vec<(OnuId, OltId, String)>>(&text) else {
                tracing::warn!(member = %name, "a cluster member's ONU ids do not parse");
                continue;
            };
            let Some(last) = found.last().map(|f| f.0) else {
                self.0.insert(block, after);
                continue;
            };
            let store = store.clone();
            let taken = tokio::task::spawn_blocking(move || {
                let mut taken = 0u64;
                for (id, olt, serial) in found {
                    if store.adopt_onu_id(olt, &serial, id).unwrap_or(false) {
                        taken += 1;
                    }
                }
                taken
            })
            .await
            .unwrap_or(0);
            metrics::counter!("ponkeeper_cluster_onu_ids_copied_total").increment(taken);
            self.0.insert(block, last);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_adjacent_and_below_two_to_the_53() {
        assert_eq!(block_range(0), (0, 1 << 48));
        assert_eq!(block_range(1).0, block_range(0).1);
        let last = crate::cluster::config::MAX_MEMBERS as u16 - 1;
        assert!(block_range(last).1 <= 1 << 53);
    }
}
