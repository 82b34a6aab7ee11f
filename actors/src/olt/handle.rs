//! The outside's handle on one OLT actor ([`OltHandle`]): one typed async method per
//! question or action, each under its own timeout, and the one error they all return
//! ([`ActionError`]). The supervisor makes handles; the API and MCP call them.

use super::actions::{ActionOutcome, CliAction};
use super::msg::OltMsg;
use super::poll::PollSettings;
use super::view::{OltDetail, OltSummary, VlanInfo};
use crate::domain::{OltId, Onu, OnuId};
use crate::onu_table::{OnuPage, OnuQuery};
use ractor::rpc::CallResult;
use ractor::{ActorRef, RpcReplyPort};
use std::sync::Arc;
use std::time::Duration;

/// Time allowed to a query answered from memory.
const QUERY_TIMEOUT: Duration = Duration::from_secs(2);

/// Why an action on an OLT could not be carried out.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ActionError {
    #[error("OLT {0} is DISABLED in the inventory")]
    Disabled(OltId),
    #[error("OLT {0} did not answer in time")]
    NoReply(OltId),
    #[error("OLT {0} is not running")]
    Gone(OltId),
    /// The service stopped before the action finished; one that was running may have
    /// been partly carried out by the device.
    #[error("cancelled: the service is shutting down ({0})")]
    ShuttingDown(String),
    #[error("no ONU with id {0} on this OLT")]
    OnuNotFound(OnuId),
    /// The same action is already running or waiting.
    #[error("{0}")]
    Busy(String),
    /// The device cannot be reached for this action (OFFLINE, no SSH, no password).
    #[error("{0}")]
    Unavailable(String),
    /// The OLT's family has no known command for the action (docs/provisioning.md).
    #[error("{0}")]
    NotSupported(String),
    /// The device refused the command; the message is the device's.
    #[error("{0}")]
    Device(String),
    #[error("{0}")]
    Timeout(String),
    /// The OLT's request budget has no room now; try again after `retry_after`.
    #[error("{reason}")]
    RateLimited {
        retry_after: Duration,
        reason: String,
    },
}

/// The outside's handle on one OLT actor.
#[derive(Clone)]
pub struct OltHandle {
    pub id: OltId,
    actor: ActorRef<OltMsg>,
    /// Upper bound for actions that wait for a poll.
    action_timeout: Duration,
    /// Upper bound for a CLI action, its wait in the queue included.
    cli_timeout: Duration,
}

impl OltHandle {
    /// The handle of OLT `id`'s actor. The supervisor makes one for every actor it
    /// spawns; public so that the session state machine's tests
    /// (`actors/tests/olt_session.rs`), which spawn an [`super::OltActor`] alone, reach it
    /// through the same methods the service uses.
    pub fn new(id: OltId, actor: ActorRef<OltMsg>, settings: &PollSettings) -> Self {
        OltHandle {
            id,
            actor,
            action_timeout: settings.deadline + Duration::from_secs(5),
            cli_timeout: settings.deadline.max(settings.cli_timeout) * 3 + Duration::from_secs(5),
        }
    }

    pub(crate) fn actor(&self) -> &ActorRef<OltMsg> {
        &self.actor
    }

    /// The id of the actor behind this handle; the supervisor's restart of a crashed
    /// actor gives the OLT a new one. With the `test-support` feature only, for the
    /// integration tests that crash an actor and wait for its successor.
    #[cfg(feature = "test-support")]
    pub fn actor_id(&self) -> ractor::ActorId {
        self.actor.get_id()
    }

    /// Panics the OLT's actor in its handler ([`OltMsg::Crash`]), as a poisoned reply
    /// would, so that tests see the supervisor restart it. With the `test-support`
    /// feature only, which the service never enables.
    #[cfg(feature = "test-support")]
    pub fn crash(&self) -> Result<(), ractor::MessagingErr<OltMsg>> {
        self.actor.send_message(OltMsg::Crash)
    }

    async fn query<T: Send + 'static>(
        &self,
        message: impl FnOnce(RpcReplyPort<T>) -> OltMsg,
        timeout: Duration,
    ) -> Result<T, ActionError> {
        match self.actor.call(message, Some(timeout)).await {
            Ok(CallResult::Success(value)) => Ok(value),
            Ok(CallResult::Timeout) => Err(ActionError::NoReply(self.id)),
            Ok(CallResult::SenderError) | Err(_) => Err(ActionError::Gone(self.id)),
        }
    }

    pub async fn summary(&self) -> Result<OltSummary, ActionError> {
        self.query(OltMsg::Summary, QUERY_TIMEOUT).await
    }

    pub async fn detail(&self) -> Result<OltDetail, ActionError> {
        self.query(OltMsg::Detail, QUERY_TIMEOUT).await
    }

    pub async fn onus(&self) -> Result<Arc<Vec<Onu>>, ActionError> {
        self.query(OltMsg::Onus, QUERY_TIMEOUT).await
    }

    pub async fn find_onus(&self, query: OnuQuery) -> Result<OnuPage, ActionError> {
        self.query(
            |reply| OltMsg::FindOnus(Box::new(query), reply),
            QUERY_TIMEOUT,
        )
        .await
    }

    /// The ONUs the OLT showed unconfigured at its latest poll.
    pub async fn unconfigured(
        &self,
    ) -> Result<Vec<crate::provision::UnconfiguredOnu>, ActionError> {
        self.query(OltMsg::Unconfigured, QUERY_TIMEOUT).await
    }

    pub async fn vlans(&self) -> Result<Vec<VlanInfo>, ActionError> {
        self.query(OltMsg::Vlans, QUERY_TIMEOUT).await
    }

    pub async fn onu(&self, id: OnuId) -> Result<Option<Onu>, ActionError> {
        self.query(|reply| OltMsg::Onu(id, reply), QUERY_TIMEOUT)
            .await
    }

    /// ONU `id`'s latest traffic reading (counters and rates), if the last `traffic`
    /// read found it.
    pub async fn traffic(
        &self,
        id: OnuId,
    ) -> Result<Option<crate::traffic::TrafficReading>, ActionError> {
        self.query(|reply| OltMsg::Traffic(id, reply), QUERY_TIMEOUT)
            .await
    }

    /// The ONUs with the highest latest traffic rate `by` direction, highest first, at
    /// most `limit`, each with its reading.
    pub async fn busiest(
        &self,
        by: crate::traffic::Direction,
        limit: usize,
    ) -> Result<Vec<super::msg::BusyOnu>, ActionError> {
        self.query(|reply| OltMsg::Busiest(by, limit, reply), QUERY_TIMEOUT)
            .await
    }

    /// Reads ONU `id`'s optics now, within the OLT's budget; answers the ONU as read.
    pub async fn refresh_optics(&self, id: OnuId) -> Result<Onu, ActionError> {
        self.query(
            |reply| OltMsg::RefreshOptics(id, reply),
            self.action_timeout,
        )
        .await?
    }

    /// Reads the MACs behind ONU `id` now, within the OLT's budget; answers once they are
    /// recorded.
    pub async fn refresh_macs(&self, id: OnuId) -> Result<(), ActionError> {
        self.query(|reply| OltMsg::RefreshMacs(id, reply), self.cli_timeout)
            .await??;
        Ok(())
    }

    /// Polls now; answers with the summary after the poll (good or failed).
    pub async fn poll_now(&self) -> Result<OltSummary, ActionError> {
        self.query(OltMsg::PollNow, self.action_timeout).await?
    }

    /// Runs a CLI action; answers when the device has carried it out (or refused).
    pub async fn cli(&self, action: CliAction) -> Result<ActionOutcome, ActionError> {
        self.query(|reply| OltMsg::Cli(action, reply), self.cli_timeout)
            .await?
    }

    /// restart-session (README.md, "OLT session states"): answers after the first poll of the new session.
    pub async fn restart_session(&self) -> Result<OltSummary, ActionError> {
        self.query(OltMsg::RestartSession, self.action_timeout)
            .await?
    }
}
