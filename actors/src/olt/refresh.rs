//! "Read this ONU's signal now" (`POST /onus/{id}/optics/refresh`): the NOC checking an
//! ONU while the customer is on the phone. The ONU goes to the head of the optics sweep
//! and a poll starts at once (or right after the one in flight); the caller is answered
//! with the ONU as that poll read it. The OLT's budget bounds the callers: no more wait
//! at once than its pace sends requests in a second, and the next one is told when to
//! come back ([`ActionError::RateLimited`]) instead of piling reads onto the OLT.

use super::actor::OltState;
use super::handle::ActionError;
use super::msg::OltMsg;
use super::session::Event;
use crate::domain::{Onu, OnuId, SessionStatus};
use ractor::{ActorRef, RpcReplyPort};
use std::time::{Duration, Instant};

/// A caller waiting for an ONU's optics.
pub(super) struct Refresh {
    onu: OnuId,
    /// Answered by the first poll that started after this generation.
    after: u64,
    reply: RpcReplyPort<Result<Onu, ActionError>>,
}

impl OltState {
    /// `OltMsg::RefreshOptics`: queues the read, or refuses it at once.
    pub(super) fn refresh_optics(
        &mut self,
        myself: &ActorRef<OltMsg>,
        onu: OnuId,
        reply: RpcReplyPort<Result<Onu, ActionError>>,
    ) {
        if let Err(refusal) = self.refresh_admitted(onu) {
            let _ = reply.send(Err(refusal));
            return;
        }
        self.schedule.hurry(onu);
        self.refreshes.push(Refresh {
            onu,
            after: self.poll.generation(),
            reply,
        });
        if !self.poll.in_flight() {
            self.poll.schedule(Instant::now());
            self.fire(myself, Event::Tick, None);
        }
    }

    /// Why ONU `onu`'s optics cannot be read now, if they cannot.
    fn refresh_admitted(&self, onu: OnuId) -> Result<(), ActionError> {
        if self.onus.get_ref(onu).is_none() {
            return Err(ActionError::OnuNotFound(onu));
        }
        match self.record.status {
            SessionStatus::Online | SessionStatus::Degraded => {}
            status => {
                return Err(ActionError::Unavailable(format!(
                    "OLT {} is {status}: its ONUs cannot be read now",
                    self.spec.id
                )))
            }
        }
        let room = self.pacing.rate().floor().max(1.0) as usize;
        if self.refreshes.len() >= room {
            let seconds = (self.refreshes.len() as f64 / self.pacing.rate().max(1.0)).ceil();
            return Err(ActionError::RateLimited {
                retry_after: Duration::from_secs_f64(seconds.max(1.0)),
                reason: format!(
                    "OLT {} already has {} optics reads waiting, as many as its budget of {:.0} requests a second allows",
                    self.spec.id,
                    self.refreshes.len(),
                    self.pacing.rate()
                ),
            });
        }
        Ok(())
    }

    /// Answers the callers a finished poll `generation` served: those waiting since
    /// before it started get the ONU as read (or the poll's `failure`).
    pub(super) fn answer_refreshes(&mut self, generation: u64, failure: Option<&str>) {
        let (served, waiting): (Vec<Refresh>, Vec<Refresh>) = std::mem::take(&mut self.refreshes)
            .into_iter()
            .partition(|r| r.after < generation);
        self.refreshes = waiting;
        for refresh in served {
            let answer = match (failure, self.onus.get_ref(refresh.onu)) {
                (Some(error), _) => Err(ActionError::Unavailable(format!(
                    "the OLT did not answer the read: {error}"
                ))),
                (None, None) => Err(ActionError::OnuNotFound(refresh.onu)),
                (None, Some(onu)) if onu.optics_at.is_some_and(|at| at >= onu.last_update) => {
                    Ok(onu.clone())
                }
                (None, Some(_)) => Err(ActionError::Unavailable(format!(
                    "the OLT no longer lists ONU {}: its optics cannot be read",
                    refresh.onu
                ))),
            };
            let _ = refresh.reply.send(answer);
        }
    }
}
