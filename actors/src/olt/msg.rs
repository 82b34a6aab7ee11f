//! The OLT actor's messages ([`OltMsg`]): the questions and actions [`super::OltHandle`]
//! sends, the supervisor's `Reconfigure` and `Shutdown`, the timer's `Tick`, and the
//! reports the actor's own poll and CLI tasks send back when they finish
//! ([`PollReport`], [`CliReport`]), each carrying the device session it borrowed.

use super::actions::{ActionOutcome, CliAction};
use super::handle::ActionError;
use super::merge::MergedPoll;
use super::pacing::LoadSeen;
use super::view::{OltDetail, OltSummary, VlanInfo};
use crate::domain::{Onu, OnuId};
use crate::inventory::OltSpec;
use crate::onu_table::{OnuPage, OnuQuery};
use crate::poller::ReadPlan;
use crate::snmp::{DeviceError, SnmpClient};
use crate::ssh::CliSession;
use crate::store::ConfigBackup;
use chrono::{DateTime, Utc};
use ractor::RpcReplyPort;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Where a CLI action's caller waits for its outcome.
pub(crate) type ActionReply = RpcReplyPort<Result<ActionOutcome, ActionError>>;
/// Where a caller of poll-now or restart-session waits for the poll's summary.
pub(super) type PollReply = RpcReplyPort<Result<OltSummary, ActionError>>;

/// An ONU and its latest traffic reading, as [`OltMsg::Busiest`] answers.
pub type BusyOnu = (Onu, crate::traffic::TrafficReading);

/// Messages of the OLT actor.
pub enum OltMsg {
    Summary(RpcReplyPort<OltSummary>),
    Detail(RpcReplyPort<OltDetail>),
    Onus(RpcReplyPort<Arc<Vec<Onu>>>),
    /// ONUs matching a query: the count and the first `limit` in the query's order.
    FindOnus(Box<OnuQuery>, RpcReplyPort<OnuPage>),
    Onu(OnuId, RpcReplyPort<Option<Onu>>),
    /// ONU `id`'s latest traffic reading, if the last `traffic` read found it.
    Traffic(OnuId, RpcReplyPort<Option<crate::traffic::TrafficReading>>),
    /// The ONUs with the highest latest rate one way, at most the count given.
    Busiest(crate::traffic::Direction, usize, RpcReplyPort<Vec<BusyOnu>>),
    Vlans(RpcReplyPort<Vec<VlanInfo>>),
    /// The actor's timer ([`super::wake`]): start the poll or backup that is due.
    Tick,
    /// Poll now and answer when it finished.
    PollNow(PollReply),
    /// Drop the session and everything in flight, poll at once, answer when done.
    RestartSession(PollReply),
    /// The inventory entry changed; answered once the fleet view has been told, so a
    /// read after the reload's answer sees it.
    Reconfigure(Box<OltSpec>, Option<RpcReplyPort<()>>),
    /// A poll task's report.
    PollFinished(Box<PollReport>),
    /// Run an action over the CLI (queued behind the one running).
    Cli(CliAction, ActionReply),
    /// A CLI task's report.
    CliFinished(Box<CliReport>),
    /// The service is stopping: cancel what is in flight with a clear error and refuse
    /// anything new the same way; answers when done (the supervisor stops the actor).
    Shutdown(RpcReplyPort<()>),
    /// A poll task's discovery: the unconfigured ONUs the device showed, and when.
    Discovered(Vec<crate::provision::Sighting>, DateTime<Utc>),
    /// The unconfigured ONUs as last discovered.
    Unconfigured(RpcReplyPort<Vec<crate::provision::UnconfiguredOnu>>),
    /// Read one ONU's optics now (within the OLT's budget) and answer the ONU as read.
    RefreshOptics(OnuId, RpcReplyPort<Result<Onu, ActionError>>),
    /// Read the MACs behind one ONU now (within the OLT's budget).
    RefreshMacs(OnuId, ActionReply),
    /// Test builds only (and the `test-support` feature, for the integration tests):
    /// panic in the handler, as a poisoned reply would.
    #[cfg(any(test, feature = "test-support"))]
    Crash,
}

// Local only: ractor's `cluster` feature (ponkeeper's members, src/cluster.rs) asks
// every message type to say whether it crosses the network; this one does not.
impl ractor::Message for OltMsg {}

/// What a poll task sends back.
pub struct PollReport {
    /// The poll it reports on; a report of a poll that a restart abandoned is ignored.
    pub(super) generation: u64,
    pub(super) started_at: DateTime<Utc>,
    /// When the device's answer was in (the time of the merged poll).
    pub(super) finished_at: DateTime<Utc>,
    pub(super) elapsed: Duration,
    /// The round trip of the poll's system GET, when the device answered it.
    pub(super) round_trip: Option<Duration>,
    /// Varbinds the poll received.
    pub(super) varbinds: u64,
    /// What the poll was to read.
    pub(super) plan: ReadPlan,
    /// When it started (the schedule's clock).
    pub(super) started: Instant,
    /// What the client's record of requests said at its end.
    pub(super) load: LoadSeen,
    /// The poll merged into a copy of the ONU table and stored, or why it failed.
    pub(super) result: Result<MergedPoll, DeviceError>,
    pub(super) client: Option<SnmpClient>,
}

/// What a CLI task sends back: the session (if still usable) and the result.
pub struct CliReport {
    /// The action it reports on; a report of an action that a restart abandoned is
    /// ignored.
    pub(super) generation: u64,
    pub(super) session: Option<CliSession>,
    pub(super) result: Result<CliDone, ActionError>,
}

/// What a CLI script achieved on the device.
pub(super) enum CliDone {
    Ran,
    /// The configuration as stored, and each ONU's service VLAN read from it.
    Backup(ConfigBackup, HashMap<(String, u32), u16>),
    /// A provisioning job's result.
    Provisioned(crate::provision::cli::ProvisionDone),
    /// A CLI read of MACs, recorded: the MACs it saw move, the ports it could not read.
    Macs(super::mac_reads::MacsDone),
}
