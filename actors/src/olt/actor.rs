//! The OLT actor itself: its arguments ([`OltArgs`], from the supervisor), its state
//! ([`OltState`], built in `pre_start` from sled: the OLT record, the ONU table and the
//! VLANs of the latest stored configuration, beside its four parts: the session machine,
//! the poll cycle, the CLI queue and the publisher), and its `handle`, which gives each
//! message to one named method of the state in the sibling modules or to the session
//! machine as an event. `post_stop` answers whoever still waits.

use super::cli_queue::CliQueue;
use super::msg::OltMsg;
use super::pacing::{LoadSeen, Pacing};
use super::poll::{PollCycle, PollSettings};
use super::publish::Publisher;
use super::refresh::Refresh;
use super::schedule::GroupSchedule;
use super::session::{Event, Session};
use super::wake::Wake;
use crate::domain::{OltId, SessionStatus};
use crate::fleet_view::FleetViewHandle;
use crate::inventory::OltSpec;
use crate::onu_table::OnuTable;
use crate::profile::commands::service_vlans;
use crate::profile::polling::COMMON_POLLING;
use crate::profile::Profile;
use crate::store::{ConfigBackup, OltRecord, Store, StoreError, SystemInfo};
use chrono::Utc;
use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Arguments of an OLT actor.
pub struct OltArgs {
    pub spec: OltSpec,
    pub store: Store,
    pub settings: Arc<PollSettings>,
    /// Set when the supervisor restarts the actor after a crash loop: the actor then
    /// serves its stored state, reports OFFLINE with this reason and does no device I/O
    /// until `restart-session` (the session machine's stopped state).
    pub stopped: Option<String>,
    /// Where the actor publishes its changes.
    pub view: FleetViewHandle,
    /// Which spawn of this OLT's actor this is: the fleet view takes the newest one's
    /// rows and ignores late messages of older ones.
    pub incarnation: u64,
}

/// The OLT actor. The supervisor spawns one per OLT; it is public so that the session
/// state machine's tests (`actors/tests/olt_session.rs`) can spawn one alone on a store
/// of their own and drive it message by message.
pub struct OltActor;

/// Everything one OLT actor knows; only its own message handlers touch it. The OLT's
/// entry, store and settings, its record and tables are read by every part; the four
/// parts keep their own state private and change it through their methods. Public (its
/// fields are not) only because it is [`OltActor`]'s `Actor::State`.
pub struct OltState {
    pub(super) spec: OltSpec,
    pub(super) store: Store,
    pub(super) settings: Arc<PollSettings>,
    /// The OLT as stored: status and transitions, poll statistics, system, ports, VLANs.
    pub(super) record: OltRecord,
    /// Whether `record` changed in more than its poll statistics since it was last
    /// written whole (the statistics alone are written after every poll).
    pub(super) record_dirty: bool,
    pub(super) onus: OnuTable,
    /// The last write of the ONU table failed (the disk was full): the next poll writes
    /// it whether it changed or not.
    pub(super) onus_unsaved: bool,
    /// (port, ONU number) → service VLAN, from the latest running configuration.
    pub(super) vlan_map: HashMap<(String, u32), u16>,
    /// Unconfigured ONUs as the latest poll's discovery saw them.
    pub(super) unconfigured: crate::provision::UnconfiguredList,
    /// The session machine: its state changes only by the events the handlers feed it.
    pub(super) session: Session,
    /// The poll lifecycle: SNMP client, the poll in flight, its waiters, the next one.
    pub(super) poll: PollCycle,
    /// The CLI lifecycle: SSH session, the action running, the queue, the next backup.
    pub(super) cli: CliQueue,
    /// The fleet view and what was last published to it.
    pub(super) publisher: Publisher,
    /// Which groups the next poll reads, and what the poller remembers between polls.
    pub(super) schedule: GroupSchedule,
    /// The OLT's request budget and its back-off.
    pub(super) pacing: Pacing,
    /// The client's record of requests as the last poll left it.
    pub(super) load: LoadSeen,
    /// Callers waiting for an ONU's optics to be read.
    pub(super) refreshes: Vec<Refresh>,
    /// Callers waiting for a poll to read the forwarding table (BDCOM).
    pub(super) mac_waiters: Vec<super::mac_reads::MacWaiter>,
    /// The last MAC sweep's ports it could not read, as warnings (kept across polls).
    pub(super) mac_warnings: Vec<String>,
    /// Each ONU's latest traffic reading and rates (in memory only).
    pub(super) traffic: crate::traffic::TrafficBook,
    /// Each PON port's way towards saturation.
    pub(super) saturation: crate::traffic::saturation::SaturationWatch,
    /// The timer that wakes the actor when its next poll or backup is due.
    pub(super) wake: Wake,
}

impl Actor for OltActor {
    type Msg = OltMsg;
    type State = OltState;
    type Arguments = OltArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<OltMsg>,
        args: OltArgs,
    ) -> Result<OltState, ActorProcessingErr> {
        let OltArgs {
            spec,
            store,
            settings,
            stopped,
            view,
            incarnation,
        } = args;
        let record = store
            .load_olt(spec.id)?
            .unwrap_or_else(|| new_record(spec.id));
        let mut onus = OnuTable::new(store.load_onus(spec.id, record.last_success_at)?);
        let latest = store.latest_config(spec.id)?;
        let profile = super::view::profile_of(&spec, &record);
        let vlan_map = stored_vlans(&store, spec.id, profile, latest.as_ref())?;
        if !vlan_map.is_empty() {
            onus.set_vlans(&vlan_map);
        }
        let next_backup_at = first_backup_at(latest.as_ref(), settings.backup_interval);
        let (session, effects) = Session::start(record.failures_in_row, spec.enabled, stopped);
        let mut state = OltState {
            spec,
            store,
            settings,
            record,
            record_dirty: true,
            onus,
            onus_unsaved: false,
            vlan_map,
            unconfigured: Default::default(),
            session,
            poll: PollCycle::new(),
            cli: CliQueue::new(next_backup_at),
            publisher: Publisher::new(view, incarnation),
            schedule: GroupSchedule::default(),
            pacing: Pacing::new(COMMON_POLLING.max_requests_per_second),
            load: LoadSeen::default(),
            refreshes: Vec::new(),
            mac_waiters: Vec::new(),
            mac_warnings: Vec::new(),
            traffic: Default::default(),
            saturation: Default::default(),
            wake: Wake::default(),
        };
        let ceiling = state.request_ceiling();
        state.pacing = Pacing::new(ceiling);
        state.apply(&myself, effects, None);
        state.arm_wake(&myself, false);
        Ok(state)
    }

    async fn post_stop(
        &self,
        myself: ActorRef<OltMsg>,
        state: &mut OltState,
    ) -> Result<(), ActorProcessingErr> {
        state.wake.stop();
        state.fire(&myself, Event::ActorStopping, None);
        Ok(())
    }

    async fn handle(
        &self,
        myself: ActorRef<OltMsg>,
        message: OltMsg,
        state: &mut OltState,
    ) -> Result<(), ActorProcessingErr> {
        match message {
            OltMsg::Summary(reply) => answer(reply, state.summary()),
            OltMsg::Detail(reply) => answer(reply, state.detail()),
            OltMsg::Onus(reply) => answer(reply, state.onus.all()),
            OltMsg::FindOnus(query, reply) => answer(reply, state.onus.query(&query)),
            OltMsg::Onu(id, reply) => answer(reply, state.onus.get(id)),
            OltMsg::Traffic(id, reply) => answer(reply, state.traffic.get(id)),
            OltMsg::Busiest(by, limit, reply) => answer(reply, state.busiest(by, limit)),
            OltMsg::Vlans(reply) => answer(reply, state.vlans()),
            OltMsg::Tick => {
                state.wake.fired();
                state.fire(&myself, Event::Tick, None);
                state.arm_wake(&myself, true);
                return Ok(());
            }
            OltMsg::PollNow(reply) => state.fire(&myself, Event::PollNow, Some(reply)),
            OltMsg::PollFinished(report) => state.finish_poll(&myself, *report),
            OltMsg::RestartSession(reply) => {
                state.fire(&myself, Event::RestartRequested, Some(reply))
            }
            OltMsg::Reconfigure(spec, reply) => {
                state.reconfigure(&myself, *spec);
                if let Some(reply) = reply {
                    let _ = reply.send(());
                }
            }
            OltMsg::Cli(action, reply) => state.queue_action(&myself, action, reply),
            OltMsg::CliFinished(report) => state.finish_cli(&myself, *report),
            OltMsg::Shutdown(reply) => {
                state.fire(&myself, Event::Shutdown, None);
                let _ = reply.send(());
            }
            OltMsg::Discovered(sightings, at) => state.discovered(sightings, at),
            OltMsg::Unconfigured(reply) => answer(reply, state.unconfigured.all()),
            OltMsg::RefreshOptics(onu, reply) => state.refresh_optics(&myself, onu, reply),
            OltMsg::RefreshMacs(onu, reply) => state.refresh_macs(&myself, onu, reply),
            #[cfg(any(test, feature = "test-support"))]
            OltMsg::Crash => panic!("injected crash of OLT {}", state.spec.id),
        }
        state.arm_wake(&myself, false);
        Ok(())
    }
}

/// Answers a query; a caller that stopped waiting is no error.
fn answer<T>(reply: RpcReplyPort<T>, value: T) {
    let _ = reply.send(value);
}

/// The record of an OLT never seen before: CONNECTING since now, nothing polled.
fn new_record(id: OltId) -> OltRecord {
    OltRecord {
        id,
        status: SessionStatus::Connecting,
        since: Utc::now(),
        last_poll_at: None,
        last_poll_ms: None,
        last_poll_varbinds: 0,
        last_success_at: None,
        last_error: None,
        failures_in_row: 0,
        system: SystemInfo::default(),
        ports: Vec::new(),
        transitions: Vec::new(),
        vlans: Vec::new(),
        warnings: Vec::new(),
        detected_vendor: None,
        detected_family: None,
    }
}

/// Each ONU's service VLAN as the latest stored running configuration names it.
fn stored_vlans(
    store: &Store,
    olt: OltId,
    profile: Option<&'static Profile>,
    latest: Option<&ConfigBackup>,
) -> Result<HashMap<(String, u32), u16>, StoreError> {
    let (Some(latest), Some(profile)) = (latest, profile) else {
        return Ok(HashMap::new());
    };
    let commands = profile.cli;
    Ok(store
        .config(olt, latest.id)?
        .map(|(_, content)| service_vlans(commands, &content))
        .unwrap_or_default())
}

/// A backup is due one interval after the latest; without one, soon after start.
fn first_backup_at(latest: Option<&ConfigBackup>, interval: Duration) -> Instant {
    latest
        .and_then(|b| (Utc::now() - b.taken_at).to_std().ok())
        .map_or(Instant::now() + Duration::from_secs(2), |age| {
            Instant::now() + interval.saturating_sub(age)
        })
}
