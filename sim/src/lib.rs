//! `ponkeeper-sim`, the simulated OLT fleet: N OLTs with ports and ONUs, each answering
//! SNMP on its own real UDP socket and serving its vendor's CLI over SSH on its own TCP
//! listener ([`ssh`], [`console`]), so the service and its tests poll and drive them
//! exactly as they do devices. OLTs are Huawei, ZTE or BDCOM, one vendor for the whole
//! fleet, all three in turn, or every table layout in turn, ZTE C620 and BDCOM GP3600
//! included ([`FleetVendors`]). The fleet is generated deterministically from a seed
//! ([`model`]), encodes every value with the same driver profile the pollers decode with
//! ([`vendor`], [`ponkeeper_actors::profile`]: this crate depends on `ponkeeper-actors`
//! for the profiles, the domain types and the inventory), serves a MIB view computed on
//! demand ([`mib`], [`agent`]) and, unless frozen with [`Dynamics::none`], lets signals
//! drift and ONUs drop out and come back on a ticker.
//!
//! Any OLT can be made to misbehave ([`fault`]): hang, drop a share of requests, answer
//! late, answer garbage, malformed or oversized datagrams or another request's id, close
//! its UDP port, or, over SSH, never prompt or drop the connection mid-output; and groups
//! of its ONUs can go down as a splitter's fibre or a building's power is cut (LOS or
//! dying gasp on ONUs FIRST..=LAST of one port). Faults are
//! set per OLT with [`SimFleet::set_faults`], for a whole SPEC
//! (`hang@1-100;slow:300ms@200`) with [`SimFleet::apply_faults`], and at run time over a
//! Unix socket ([`SimFleet::serve_control`], [`control`]). Which datagrams `drop` drops
//! and what `garbage` sends follow the fleet's seed, so a test sees the same sequence
//! every run.
//!
//! Callers: the `sim`, `demo` and `bench` commands and the integration tests of both
//! `ponkeeper` and `ponkeeper-actors` start a [`SimFleet`], take its
//! [`SimFleet::inventory`] for the service, compare what the service reports with
//! [`SimFleet::expected_onus`], inject faults (or simply hang an OLT with
//! [`SimFleet::set_silent`] and its CLI with [`SimFleet::set_cli_silent`]), and check what
//! reached a CLI with [`SimFleet::command_log`], how much SNMP traffic an OLT saw with
//! [`SimFleet::snmp_traffic`], and how often each ONU's status and optics were read with
//! [`SimFleet::stats`] ([`stats`]). Like a real OLT, each simulated OLT fetches optics
//! over one OMCI channel at [`FleetSpec::omci_cost`] per ONU ([`omci`]), so frequent
//! optics polling slows its optics answers. The SSH password is the fleet's
//! [`FleetSpec::ssh_password`]; the inventory names it by the environment variable
//! [`SSH_PASSWORD_ENV`], which whoever starts the service must set.
//!
//! ```text
//! SimFleet ── JoinSet ─┬─ agent task per OLT (UdpSocket ⇄ Responder ⇄ Mutex<SimOlt>)
//!                      ├─ SSH server per OLT (TcpListener ⇄ Terminal per shell ⇄ same Mutex)
//!                      ├─ dynamics ticker (steps every SimOlt)
//!                      └─ control socket (optional) ⇄ FaultBoard ⇄ each OLT's FaultSet and ONU cuts
//! ```

mod agent;
pub mod ber;
mod console;
mod control;
mod fault;
mod fault_board;
mod launch;
mod mib;
mod model;
mod omci;
mod provisioning;
mod raw;
mod socket_groups;
mod sources;
mod ssh;
mod stats;
mod traps;
pub mod usm;
mod vendor;

/// The user the simulated OLTs accept over SSH.
pub const SSH_USERNAME: &str = "ponkeeper";
/// The environment variable the simulated fleet's inventory names for the SSH password
/// (deliberately not `PONKEEPER_*`: those are configuration overrides).
pub const SSH_PASSWORD_ENV: &str = "SIM_SSH_PASSWORD";
/// The SSH password of a fleet unless its spec says otherwise.
pub const DEFAULT_SSH_PASSWORD: &str = "sim-olt-secret";

use agent::OltShared;
pub use fault::{
    Fault, FaultRule, FaultSet, FaultSpec, FaultSpecError, GroupCause, OltFaults, OnuGroup,
    RuleFault, Targets,
};
use fault_board::{BoardOlt, FaultBoard};
use launch::Launch;
use mib::MibView;
use model::SimOlt;
pub use omci::DEFAULT_OMCI_COST;
use ponkeeper_actors::domain::{NodeId, OltId, Vendor};
use ponkeeper_actors::inventory::{Inventory, NodeSpec, OltSpec, SnmpSpec, SnmpVersion, SshSpec};
pub use stats::{FleetStats, OltStats, ReadSpread};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::Ordering;
use std::sync::{Arc, MutexGuard};
use std::time::{Duration, Instant};
use tokio::task::JoinSet;
use vendor::SimVendor;

/// Which vendors the simulated OLTs are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FleetVendors {
    /// Every OLT is of this vendor.
    One(Vendor),
    /// OLT `i` (from 0) is Huawei, ZTE, BDCOM, Huawei, ... in turn: the mix the
    /// national benchmark has always run, kept so its figures compare across versions.
    Mixed,
    /// OLT `i` (from 0) takes every layout ponkeeper reads in turn: Huawei MA5800, ZTE
    /// C320, BDCOM P3310, ZTE C620, BDCOM GP3600, Eltex LTP-8X, V-SOL V1600D and
    /// V1600G, C-Data FD16xx, SNR-OLT-GPON, Huawei, ...
    EveryFamily,
}

/// The vendors of a [`FleetVendors::Mixed`] fleet, in turn.
const MIXED: [Vendor; 3] = [Vendor::Huawei, Vendor::Zte, Vendor::Bdcom];

impl FleetVendors {
    /// The vendor of OLT `i` (from 0).
    pub fn of_olt(self, i: usize) -> Vendor {
        self.sim_vendor(i).profile.vendor
    }

    /// The table layout ([`ponkeeper_actors::profile::Profile::family`]) of OLT `i` (from 0).
    pub fn family_of_olt(self, i: usize) -> &'static str {
        self.sim_vendor(i).profile.family
    }

    fn sim_vendor(self, i: usize) -> &'static SimVendor {
        match self {
            FleetVendors::One(vendor) => SimVendor::for_vendor(vendor),
            FleetVendors::Mixed => SimVendor::for_vendor(MIXED[i % MIXED.len()]),
            FleetVendors::EveryFamily => SimVendor::ALL[i % SimVendor::ALL.len()],
        }
    }
}

/// What fleet to simulate.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetSpec {
    pub olts: usize,
    pub onus_per_olt: usize,
    pub vendors: FleetVendors,
    /// OLT `i` (from 0) listens on `base_port + i`; 0 gives every OLT an ephemeral port.
    pub base_port: u16,
    /// The same seed gives the same initial fleet.
    pub seed: u64,
    pub bind: IpAddr,
    pub dynamics: Dynamics,
    /// Password of the SSH servers (user [`SSH_USERNAME`]).
    pub ssh_password: String,
    /// How long an ONU rebooted from the CLI stays offline.
    pub reboot_time: Duration,
    /// How many OLTs share one UDP socket (1: a socket and an SSH server each). Above 1,
    /// socket `g` (from 0) listens on `base_port + g` and OLT id `n` answers community
    /// `public-n` there, without SSH ([`socket_groups`]).
    pub olts_per_socket: usize,
    /// OMCI time an OLT spends per ONU whose optics one answer carries; an OLT serves
    /// one such answer at a time ([`omci`]). `Duration::ZERO` makes optics free.
    pub omci_cost: Duration,
    /// Log a warning whenever an ONU's optics are read sooner than an hour / N after
    /// the previous read.
    pub max_optics_per_hour: Option<u32>,
}

impl FleetSpec {
    /// `olts` Huawei OLTs of `onus_per_olt` ONUs on ephemeral ports of 127.0.0.1, seed 1,
    /// default dynamics, [`DEFAULT_OMCI_COST`] per ONU's optics, no optics rate warning.
    pub fn new(olts: usize, onus_per_olt: usize) -> FleetSpec {
        FleetSpec {
            olts,
            onus_per_olt,
            vendors: FleetVendors::One(Vendor::Huawei),
            base_port: 0,
            seed: 1,
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            dynamics: Dynamics::default(),
            ssh_password: DEFAULT_SSH_PASSWORD.to_string(),
            reboot_time: Duration::from_secs(5),
            olts_per_socket: 1,
            omci_cost: DEFAULT_OMCI_COST,
            max_optics_per_hour: None,
        }
    }
}

/// How the fleet changes over time.
#[derive(Debug, Clone, PartialEq)]
pub struct Dynamics {
    /// Period of the ticker; `None` freezes the fleet.
    pub tick: Option<Duration>,
    /// Largest change of an optical reading per tick, in dB (readings also pull back
    /// towards their starting value, so they stay in range).
    pub drift_db: f64,
    /// Chance per tick that an online ONU goes offline (LOS or dying gasp).
    pub outage_probability: f64,
    /// How many ticks such an outage lasts, inclusive range.
    pub outage_ticks: (u32, u32),
    /// Chance per tick that an unconfigured ONU plugged in while the fleet ran is taken
    /// away again (0: they stay until registered). With it, the unconfigured lists of a
    /// long run hover around a level instead of filling every port.
    pub unplug_probability: f64,
    /// Chance per tick that one MAC of the OLT is carried behind another ONU (a router
    /// taken to a neighbour's socket): the `MAC_MOVED` a real network shows now and then.
    pub mac_move_probability: f64,
}

impl Dynamics {
    /// A frozen fleet: values stay exactly as generated (for tests).
    pub fn none() -> Dynamics {
        Dynamics {
            tick: None,
            drift_db: 0.0,
            outage_probability: 0.0,
            outage_ticks: (1, 1),
            unplug_probability: 0.0,
            mac_move_probability: 0.0,
        }
    }
}

impl Default for Dynamics {
    /// A tick a second, ±0.05 dB drift, and about one outage per ONU in 80 minutes,
    /// lasting 5 to 60 seconds.
    fn default() -> Dynamics {
        Dynamics {
            tick: Some(Duration::from_secs(1)),
            drift_db: 0.05,
            outage_probability: 0.0002,
            outage_ticks: (5, 60),
            unplug_probability: 0.0,
            mac_move_probability: 0.0,
        }
    }
}

/// One ONU as a correct poller must report it right now: exactly what the poller
/// produces from a good poll.
pub type ExpectedOnu = ponkeeper_actors::poller::PolledOnu;

/// One running simulated OLT.
struct RunningOlt {
    id: OltId,
    addr: SocketAddr,
    /// `None` for an OLT that shares its SNMP socket: such OLTs have no SSH server.
    ssh_addr: Option<SocketAddr>,
    vendor: &'static SimVendor,
    shared: Arc<OltShared>,
    host_key: Arc<ssh::HostKeySlot>,
    /// The community its agent answers to.
    community: Vec<u8>,
}

/// A running fleet. Dropping it stops every agent; [`SimFleet::shutdown`] also waits.
pub struct SimFleet {
    olts: Vec<RunningOlt>,
    bind: IpAddr,
    tasks: JoinSet<()>,
    /// Every OLT's faults.
    pub(crate) board: Arc<FaultBoard>,
    /// Every OLT's request and ONU read counters.
    pub(crate) counters: Arc<stats::StatsBoard>,
    /// The SNMPv3 user every agent also answers, when there is one.
    snmp_v3: Option<usm::SimUsmUser>,
    /// Which watched process sent each OLT its requests ([`SimFleet::count_sources`]).
    pub(crate) sources: Arc<sources::SourceBook>,
}

/// SNMP datagrams one simulated OLT has received and sent since the fleet started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnmpTraffic {
    pub received: u64,
    /// Answers and junk sent back (a dropped or hung request sends nothing).
    pub sent: u64,
}

/// Communication nodes of the simulated inventory: (name, city).
const NODES: [(&str, &str); 4] = [
    ("Kazan-Central", "Kazan"),
    ("Ufa-North", "Ufa"),
    ("Samara-River", "Samara"),
    ("Perm-East", "Perm"),
];

impl SimFleet {
    /// Generates the fleet, binds one UDP socket per OLT and starts the agents (and the
    /// dynamics ticker unless frozen).
    pub async fn start(spec: FleetSpec) -> std::io::Result<SimFleet> {
        SimFleet::start_with_snmp_v3(spec, None).await
    }

    /// [`SimFleet::start`], every agent also answering SNMPv3 for `snmp_v3` (SHA-256,
    /// AES-128); [`SimFleet::inventory`] then polls over v3.
    pub async fn start_with_snmp_v3(
        spec: FleetSpec,
        snmp_v3: Option<usm::SimUsmUser>,
    ) -> std::io::Result<SimFleet> {
        let launch = Launch {
            usm: snmp_v3.as_ref().map(usm::UserKeys::new),
            spec: &spec,
            started: Instant::now(),
            // One MIB view per layout, shared by its OLTs.
            views: SimVendor::ALL
                .iter()
                .map(|&v| (v.profile.family, Arc::new(MibView::for_vendor(v))))
                .collect(),
            // One host key for the fleet, new each start.
            host_key: russh::keys::PrivateKey::from(
                russh::keys::ssh_key::private::Ed25519Keypair::from_seed(&rand::random()),
            ),
            ssh_settings: Arc::new(ssh::SshSettings {
                username: SSH_USERNAME.to_string(),
                password: spec.ssh_password.clone(),
                reboot_time: spec.reboot_time,
            }),
        };
        let mut tasks = JoinSet::new();
        let mut olts = Vec::with_capacity(spec.olts);
        if spec.olts_per_socket > 1 {
            olts = launch.start_socket_groups(&mut tasks).await?;
        } else {
            for i in 0..spec.olts {
                olts.push(launch.start_olt(i, &mut tasks).await?);
            }
        }
        if let Some(period) = spec.dynamics.tick.filter(|p| !p.is_zero()) {
            let shared: Vec<Arc<OltShared>> = olts.iter().map(|olt| olt.shared.clone()).collect();
            tasks.spawn(run_dynamics(shared, spec.dynamics.clone(), period));
        }
        let by_id: Vec<_> = olts
            .iter()
            .map(|olt| (olt.id, olt.shared.clone()))
            .collect();
        let sources = Arc::new(sources::SourceBook::default());
        for olt in &olts {
            let _ = olt.shared.sources.set((olt.id, sources.clone()));
        }
        let board = olts
            .iter()
            .map(|olt| BoardOlt {
                id: olt.id,
                shared: olt.shared.clone(),
                vendor: olt.vendor,
            })
            .collect();
        Ok(SimFleet {
            counters: Arc::new(stats::StatsBoard::new(by_id)),
            board: Arc::new(FaultBoard::new(board)),
            olts,
            bind: spec.bind,
            tasks,
            snmp_v3,
            sources,
        })
    }

    /// The inventory that describes this fleet: OLT ids 1..=N at their bound ports, each
    /// with its vendor and model (MA5800-X7, C320, P3310), community `public`, SNMP v2c,
    /// spread over four nodes; every 5th OLT has no node. Each has `ssh` with user
    /// [`SSH_USERNAME`] and the password in [`SSH_PASSWORD_ENV`]. A fleet with a v3 user
    /// is polled over SNMPv3 authPriv instead, its passwords in [`usm::AUTH_PASSWORD_ENV`]
    /// and [`usm::PRIV_PASSWORD_ENV`].
    pub fn inventory(&self) -> Inventory {
        let nodes = NODES
            .iter()
            .zip(1..)
            .map(|(&(name, city), id)| NodeSpec {
                id,
                name: name.to_string(),
                city: city.to_string(),
                description: format!("Simulated communication node in {city}"),
            })
            .collect();
        let mut olts: Vec<OltSpec> = self
            .olts
            .iter()
            .enumerate()
            .map(|(i, olt)| {
                let (_, city) = NODES[i % NODES.len()];
                let node = (olt.id % 5 != 0).then_some((i % NODES.len()) as NodeId + 1);
                OltSpec {
                    id: olt.id,
                    ip: self.bind,
                    vendor: olt.vendor.profile.vendor.into(),
                    model: olt.vendor.model.to_string(),
                    city: city.to_string(),
                    node,
                    enabled: true,
                    snmp: SnmpSpec {
                        port: olt.addr.port(),
                        community: String::from_utf8_lossy(&olt.community).into_owned(),
                        version: SnmpVersion::V2c,
                        ..SnmpSpec::default()
                    },
                    ssh: olt.ssh_addr.map(|ssh| SshSpec {
                        port: ssh.port(),
                        username: SSH_USERNAME.to_string(),
                        password_env: SSH_PASSWORD_ENV.to_string(),
                        enable_password_env: None,
                        host_key: None,
                    }),
                    poll: Default::default(),
                }
            })
            .collect();
        if let Some(user) = &self.snmp_v3 {
            for olt in &mut olts {
                olt.snmp = usm::inventory_spec(user, olt.snmp.port);
            }
        }
        Inventory {
            nodes,
            olts,
            szo: Vec::new(),
            splitters: Vec::new(),
        }
    }

    /// Where OLT `olt_id`'s agent listens.
    pub fn olt_addr(&self, olt_id: OltId) -> Option<SocketAddr> {
        self.olt(olt_id).map(|olt| olt.addr)
    }

    /// Makes OLT `olt_id` drop every packet (a hung OLT), or answer again: adds or
    /// removes the `hang` fault, leaving its other faults as they are.
    pub fn set_silent(&self, olt_id: OltId, silent: bool) {
        self.switch_fault(olt_id, Fault::Hang, silent);
    }

    /// Gives OLT `olt_id` exactly these faults of its own (an empty set takes them all
    /// away); its ONU groups stay until [`SimFleet::clear_faults`]. Unknown ids are
    /// ignored.
    pub fn set_faults(&self, olt_id: OltId, faults: FaultSet) {
        self.board.set(olt_id, faults);
    }

    /// Heals OLT `olt_id`: no fault of any kind, and the ONUs its groups held down
    /// online again at once.
    pub fn clear_faults(&self, olt_id: OltId) {
        self.board.heal(olt_id);
    }

    /// Heals every OLT.
    pub fn clear_all_faults(&self) {
        // Selecting every OLT of the fleet cannot fail.
        let _ = self.board.clear(None);
    }

    /// The faults of its own OLT `olt_id` has now (empty for an unknown id); its ONU
    /// groups are in [`SimFleet::fault_spec`].
    pub fn faults(&self, olt_id: OltId) -> FaultSet {
        self.board.get(olt_id).unwrap_or_default()
    }

    /// Adds a SPEC's faults to the OLTs it names, replacing faults of the same kinds and
    /// ONU groups of the same port and numbers; all or nothing (a group is checked
    /// against each OLT's ports and ONUs first). Returns how many OLTs it touched.
    pub fn apply_faults(&self, spec: &FaultSpec) -> Result<usize, FaultSpecError> {
        self.board.apply(spec)
    }

    /// The fleet's faults as a SPEC (no rules when every OLT is healthy).
    pub fn fault_spec(&self) -> FaultSpec {
        self.board.describe()
    }

    /// Opens the control socket at `path` (a stale socket file is replaced) and serves
    /// it until the fleet stops; see [`control`] for the protocol.
    pub fn serve_control(&mut self, path: &std::path::Path) -> std::io::Result<()> {
        let listener = control::bind(path)?;
        let fleet = control::Controlled {
            board: self.board.clone(),
            counters: self.counters.clone(),
        };
        self.tasks.spawn(control::serve(listener, Arc::new(fleet)));
        Ok(())
    }

    /// Every OLT's requests and ONU reads since the start or the last
    /// [`SimFleet::reset_stats`], in id order ([`stats`]; the control socket's `stats`).
    pub fn stats(&self) -> FleetStats {
        self.counters.stats()
    }

    /// Zeroes every OLT's request and ONU read counters.
    pub fn reset_stats(&self) {
        self.counters.reset();
    }

    /// The SNMP datagrams OLT `olt_id` has received and sent (`None`: no such OLT).
    pub fn snmp_traffic(&self, olt_id: OltId) -> Option<SnmpTraffic> {
        self.olt(olt_id).map(|olt| SnmpTraffic {
            received: olt.shared.received.load(Ordering::Relaxed),
            sent: olt.shared.sent.load(Ordering::Relaxed),
        })
    }

    /// What a correct poller must report for this OLT right now, in row order
    /// (ports by ifIndex, ONUs by number); empty for an unknown OLT.
    pub fn expected_onus(&self, olt_id: OltId) -> Vec<ExpectedOnu> {
        self.olt(olt_id)
            .map(|olt| lock(&olt.shared).expected_onus(olt.vendor))
            .unwrap_or_default()
    }

    /// Sends an SNMPv2c trap to `target` whenever one OLT's online ONUs change
    /// (`sim --trap-target`; see `sim/src/traps.rs`).
    pub fn send_traps_to(&mut self, target: SocketAddr) {
        let olts = self
            .olts
            .iter()
            .map(|olt| (olt.shared.clone(), olt.community.clone()))
            .collect();
        self.tasks.spawn(traps::send_traps(olts, self.bind, target));
    }

    /// The MACs the OLT shows now, behind its online ONUs: (ONU serial, MAC, VLAN).
    pub fn macs(&self, olt_id: OltId) -> Vec<(String, ponkeeper_actors::macs::Mac, u16)> {
        let Some(olt) = self.olt(olt_id) else {
            return Vec::new();
        };
        let state = lock(&olt.shared);
        let expected = state.expected_onus(olt.vendor);
        state
            .shown_macs()
            .filter_map(|m| {
                let serial = expected.get(m.onu)?.serial.to_string();
                Some((serial, ponkeeper_actors::macs::Mac(m.mac), m.vlan))
            })
            .collect()
    }

    /// Moves `mac` behind the ONU with serial `to`; `false` if either is unknown.
    pub fn move_mac(&self, olt_id: OltId, mac: ponkeeper_actors::macs::Mac, to: &str) -> bool {
        let Some(olt) = self.olt(olt_id) else {
            return false;
        };
        let mut state = lock(&olt.shared);
        let position = state
            .expected_onus(olt.vendor)
            .iter()
            .position(|o| o.serial == to);
        position.is_some_and(|at| state.move_mac(mac.0, at))
    }

    /// Takes the ONU with `serial` offline (loss of signal) or brings it back, as a cut
    /// fibre or a repair would; it stays so until told otherwise. `false` if there is no
    /// such ONU on that OLT.
    pub fn set_onu_online(&self, olt_id: OltId, serial: &str, online: bool) -> bool {
        let Some(olt) = self.olt(olt_id) else {
            return false;
        };
        let mut state = lock(&olt.shared);
        // expected_onus lists the ONUs in the same (row) order as the model holds them.
        let position = state
            .expected_onus(olt.vendor)
            .iter()
            .position(|o| o.serial == serial);
        match position.and_then(|i| state.onus.get_mut(i)) {
            Some(onu) => {
                onu.online = online;
                onu.outage_ticks_left = None;
                if !online {
                    onu.last_down_cause = Some(ponkeeper_actors::domain::DownCause::Los);
                }
                true
            }
            None => false,
        }
    }

    /// The line and service profile ids ONU `serial` of OLT `olt_id` was registered or
    /// last changed with (`None` for a profile never named), if the ONU is there.
    pub fn onu_profiles(&self, olt_id: OltId, serial: &str) -> Option<[Option<String>; 2]> {
        let olt = self.olt(olt_id)?;
        let state = lock(&olt.shared);
        let position = state
            .expected_onus(olt.vendor)
            .iter()
            .position(|o| o.serial == serial)?;
        state.onus.get(position).map(|onu| onu.profiles.clone())
    }

    /// The PON port names of this OLT (`0/1/0`, ...), in ifIndex order.
    pub fn expected_ports(&self, olt_id: OltId) -> Vec<String> {
        self.olt(olt_id)
            .map(|olt| {
                lock(&olt.shared)
                    .ports
                    .iter()
                    .map(|p| p.name.clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The VLANs the OLT serves in dot1qVlanStaticName: (id, name), by id.
    pub fn expected_vlans(&self, olt_id: OltId) -> Vec<(u16, String)> {
        self.olt(olt_id)
            .map(|olt| lock(&olt.shared).vlans.clone())
            .unwrap_or_default()
    }

    /// The firmware version the OLT reports in entPhysicalSoftwareRev.1.
    pub fn firmware(&self, olt_id: OltId) -> Option<String> {
        self.olt(olt_id)
            .map(|olt| lock(&olt.shared).firmware.to_string())
    }

    /// Where OLT `olt_id`'s SSH server listens.
    pub fn ssh_addr(&self, olt_id: OltId) -> Option<SocketAddr> {
        self.olt(olt_id).and_then(|olt| olt.ssh_addr)
    }

    /// Gives OLT `olt_id`'s SSH server the Ed25519 host key made from `seed`, for the
    /// connections accepted from now on (open ones keep theirs); returns its SHA256
    /// fingerprint (`None`: no such OLT). Every OLT starts with the fleet's random key.
    pub fn set_host_key_seed(&self, olt_id: OltId, seed: [u8; 32]) -> Option<String> {
        let olt = self.olt(olt_id)?;
        let key = russh::keys::PrivateKey::from(
            russh::keys::ssh_key::private::Ed25519Keypair::from_seed(&seed),
        );
        olt.host_key.set(key);
        self.host_key_fingerprint(olt_id)
    }

    /// The SHA256 fingerprint of the host key OLT `olt_id` shows now.
    pub fn host_key_fingerprint(&self, olt_id: OltId) -> Option<String> {
        let key = self.olt(olt_id)?.host_key.get();
        Some(ponkeeper_actors::host_keys::fingerprint_of(
            key.public_key(),
        ))
    }

    /// The OpenSSH public key line (`ssh-ed25519 AAAA…`) of OLT `olt_id`'s host key now,
    /// as `ssh-keyscan` would print it.
    pub fn host_key_line(&self, olt_id: OltId) -> Option<String> {
        let key = self.olt(olt_id)?.host_key.get();
        key.public_key().to_openssh().ok()
    }

    /// Makes OLT `olt_id`'s CLI read commands without ever answering (and new shells
    /// never prompt), or answer again: adds or removes the `ssh-mute` fault.
    pub fn set_cli_silent(&self, olt_id: OltId, silent: bool) {
        self.switch_fault(olt_id, Fault::SshMute, silent);
    }

    /// Every line OLT `olt_id`'s CLI received after login, oldest first.
    pub fn command_log(&self, olt_id: OltId) -> Vec<String> {
        self.olt(olt_id)
            .map(|olt| match olt.shared.commands.lock() {
                Ok(log) => log.clone(),
                Err(poisoned) => poisoned.into_inner().clone(),
            })
            .unwrap_or_default()
    }

    /// The running configuration OLT `olt_id` prints right now.
    pub fn running_config(&self, olt_id: OltId) -> Option<String> {
        self.olt(olt_id)
            .map(|olt| console::running_config(&lock(&olt.shared), olt.vendor))
    }

    /// The service VLAN of the ONU with `serial` on OLT `olt_id` (`None` if it has none
    /// or there is no such ONU).
    pub fn service_vlan(&self, olt_id: OltId, serial: &str) -> Option<u16> {
        let olt = self.olt(olt_id)?;
        let expected = self.expected_onus(olt_id);
        let index = expected.iter().position(|onu| onu.serial == serial)?;
        lock(&olt.shared).onus.get(index)?.vlan
    }

    /// Stops every agent and the ticker, and waits for them.
    pub async fn shutdown(mut self) {
        self.tasks.shutdown().await;
    }

    /// Adds (`on`) or removes OLT `olt_id`'s fault of `fault`'s kind, leaving its other
    /// faults as they are.
    fn switch_fault(&self, olt_id: OltId, fault: Fault, on: bool) {
        self.board.update(olt_id, |set| match on {
            true => set.insert(fault),
            false => set.remove(fault),
        });
    }

    fn olt(&self, olt_id: OltId) -> Option<&RunningOlt> {
        let i = usize::try_from(olt_id).ok()?.checked_sub(1)?;
        self.olts.get(i).filter(|olt| olt.id == olt_id)
    }
}

/// Locks an OLT; a poisoned lock (a panicked ticker) still holds a usable state.
fn lock(shared: &OltShared) -> MutexGuard<'_, SimOlt> {
    match shared.state.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// Steps every OLT once per `period`, yielding now and then so agents keep answering.
async fn run_dynamics(olts: Vec<Arc<OltShared>>, dynamics: Dynamics, period: Duration) {
    let mut interval = tokio::time::interval(period);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    interval.tick().await;
    loop {
        interval.tick().await;
        for (i, olt) in olts.iter().enumerate() {
            lock(olt).step(&dynamics);
            if i % 32 == 31 {
                tokio::task::yield_now().await;
            }
        }
    }
}
