//! What the API reads of an OLT: the list item ([`OltSummary`], defined with what the
//! actor publishes in [`crate::published`]), the detail with its session block
//! ([`OltDetail`], [`SessionInfo`]), the VLANs with their ONU counts ([`VlanInfo`]) and
//! the ONUs with the highest latest traffic ([`OltState::busiest`]), and the state methods that build them from the OLT record and the ONU table. Built on
//! demand by the OLT actor, handed out through [`super::OltHandle`].
use super::actor::OltState;
use super::schedule::GroupRead;
use crate::domain::{PonPortStats, SessionStatus, Vendor};
use crate::inventory::OltSpec;
use crate::profile::polling::PollGroup;
use crate::profile::Profile;
pub use crate::published::OltSummary;
use crate::store::{OltRecord, SystemInfo, Transition};
use chrono::{DateTime, Utc};
use std::time::{Duration, Instant};

/// The session block of the OLT detail.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionInfo {
    pub status: SessionStatus,
    pub since: DateTime<Utc>,
    pub last_poll_at: Option<DateTime<Utc>>,
    pub last_poll_ms: Option<u64>,
    /// Varbinds the last poll received (good or failed).
    pub last_poll_varbinds: u64,
    pub last_error: Option<String>,
    pub failures_in_row: u32,
    pub transitions: Vec<Transition>,
    /// Where the last good poll found the ONU table and IF-MIB disagreeing (rows it could
    /// not place, ONU interfaces without an ONU), counted and named.
    pub warnings: Vec<String>,
}

/// OLT detail: the summary, what the device says about itself, ports, session and
/// polling.
#[derive(Debug, Clone, PartialEq)]
pub struct OltDetail {
    pub summary: OltSummary,
    pub system: SystemInfo,
    pub ports: Vec<PonPortStats>,
    /// Each port's traffic now (its ONUs' latest rates summed) and capacity.
    pub port_traffic: Vec<crate::traffic::PortTraffic>,
    pub session: SessionInfo,
    pub polling: PollingInfo,
}

/// The polling block of the OLT detail: each group's reads, the OLT's pace and how the
/// device has been answering.
#[derive(Debug, Clone, PartialEq)]
pub struct PollingInfo {
    /// Status, identity, optics, OLT, in that order.
    pub groups: Vec<GroupInfo>,
    /// Requests the last poll sent and how many timed out.
    pub last_poll_requests: u32,
    pub last_poll_timeouts: u32,
    /// Requests sent in the last minute.
    pub requests_last_minute: u32,
    /// The device's round trip over the last five minutes' requests.
    pub latency_p50: Option<Duration>,
    pub latency_p95: Option<Duration>,
    /// The OLT's usual round trip of cheap (non-optics) requests.
    pub baseline: Option<Duration>,
    /// Requests a second now, and at most.
    pub requests_per_second: f64,
    pub max_requests_per_second: u32,
    /// Why the pace is below its maximum; `None` at full pace.
    pub throttled: Option<String>,
}

/// One poll group in the polling block.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupInfo {
    pub group: PollGroup,
    pub interval: Duration,
    pub last: Option<GroupRead>,
    /// When it is next read (optics: the next ONU's turn); `None` when nothing is due.
    pub next_at: Option<DateTime<Utc>>,
}

/// A VLAN of an OLT and how many of its ONUs use it as their service VLAN.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VlanInfo {
    pub vlan_id: u16,
    pub name: String,
    pub onu_count: u32,
}

/// Why a CLI action or provisioning cannot run on an OLT whose vendor is `None`.
pub const VENDOR_NOT_DETECTED: &str =
    "the OLT's vendor is not known yet: `vendor = \"auto\"` is detected by the first good poll";

/// The OLT's vendor: the inventory's, or with `vendor = "auto"` the one a poll detected
/// and the record keeps (`None` until then).
pub(super) fn vendor_of(spec: &OltSpec, record: &OltRecord) -> Option<Vendor> {
    spec.vendor.fixed().or(record.detected_vendor)
}

/// The OLT's layout: its vendor's family the last good poll read it with, else the
/// vendor's default; `None` while the vendor is not known.
pub(super) fn profile_of(spec: &OltSpec, record: &OltRecord) -> Option<&'static Profile> {
    let vendor = vendor_of(spec, record)?;
    Some(Profile::for_family(
        vendor,
        record.detected_family.as_deref(),
    ))
}

impl OltState {
    /// See [`vendor_of`].
    pub(super) fn vendor(&self) -> Option<Vendor> {
        vendor_of(&self.spec, &self.record)
    }

    /// See [`profile_of`].
    pub(super) fn profile(&self) -> Option<&'static Profile> {
        profile_of(&self.spec, &self.record)
    }

    /// The short name of the layout the last good poll read the OLT with, `None` before
    /// any (or when the recorded one is not of the OLT's vendor, say after the inventory
    /// changed it): the API never shows a layout no poll saw.
    fn detected_layout(&self) -> Option<&'static str> {
        let family = self.record.detected_family.as_deref();
        Profile::detected(self.vendor()?, family).map(|profile| profile.layout)
    }

    pub(super) fn summary(&self) -> OltSummary {
        let online = self.onus.online();
        OltSummary {
            id: self.spec.id,
            ip: self.spec.ip,
            vendor: self.vendor(),
            family: self.detected_layout(),
            model: self.spec.model.clone(),
            city: self.spec.city.clone(),
            node: self.spec.node,
            status: self.record.status,
            status_since: self.record.since,
            total_ports: self.record.ports.len() as u32,
            total_onu: self.onus.len() as u32,
            onu_online: online as u32,
            last_update: self.record.last_success_at.unwrap_or(self.record.since),
        }
    }

    pub(super) fn vlans(&self) -> Vec<VlanInfo> {
        let onus = self.onus.all();
        self.record
            .vlans
            .iter()
            .map(|(id, name)| VlanInfo {
                vlan_id: *id,
                name: name.clone(),
                onu_count: onus.iter().filter(|o| o.vlan == Some(*id)).count() as u32,
            })
            .collect()
    }

    /// Each port's traffic from the traffic book, on the layout's technology (EPON where
    /// ONUs are known by their MAC, else GPON).
    pub(super) fn port_traffic(&self) -> Vec<crate::traffic::PortTraffic> {
        use crate::traffic::PonTechnology;
        let technology = match self.profile().is_some_and(|p| p.is_epon()) {
            true => PonTechnology::Epon,
            false => PonTechnology::Gpon,
        };
        let onus = self.onus.all();
        self.traffic
            .by_port(onus.iter().map(|o| (o.id, o.pon_port.as_str())), technology)
    }

    /// The `limit` ONUs of the table with the highest latest rate `by` direction, highest
    /// first, each with its reading (an ONU the book still has but the table no longer
    /// does is skipped).
    pub(super) fn busiest(
        &self,
        by: crate::traffic::Direction,
        limit: usize,
    ) -> Vec<(crate::domain::Onu, crate::traffic::TrafficReading)> {
        self.traffic
            .busiest(by, usize::MAX)
            .into_iter()
            .filter_map(|(id, reading)| Some((self.onus.get(id)?, reading)))
            .take(limit)
            .collect()
    }

    pub(super) fn detail(&self) -> OltDetail {
        OltDetail {
            summary: self.summary(),
            system: self.record.system.clone(),
            ports: self.record.ports.clone(),
            port_traffic: self.port_traffic(),
            session: SessionInfo {
                status: self.record.status,
                since: self.record.since,
                last_poll_at: self.record.last_poll_at,
                last_poll_ms: self.record.last_poll_ms,
                last_poll_varbinds: self.record.last_poll_varbinds,
                last_error: self.record.last_error.clone(),
                failures_in_row: self.record.failures_in_row,
                transitions: self.record.transitions.clone(),
                warnings: self.record.warnings.clone(),
            },
            polling: self.polling(),
        }
    }

    fn polling(&self) -> PollingInfo {
        let intervals = self.intervals();
        let (now, wall) = (Instant::now(), Utc::now());
        let status_next = self.poll.next_at();
        let groups = PollGroup::ALL
            .into_iter()
            .map(|group| GroupInfo {
                group,
                interval: intervals.of(group),
                last: self.schedule.last(group),
                next_at: self.schedule.next(group, status_next).map(|at| {
                    wall + chrono::Duration::from_std(at.saturating_duration_since(now))
                        .unwrap_or_default()
                }),
            })
            .collect();
        PollingInfo {
            groups,
            last_poll_requests: self.load.poll.requests,
            last_poll_timeouts: self.load.poll.timeouts,
            requests_last_minute: self.load.last_minute.requests,
            latency_p50: self.load.recent.p50,
            latency_p95: self.load.recent.p95,
            baseline: self.pacing.baseline(),
            requests_per_second: self.pacing.rate(),
            max_requests_per_second: self.pacing.ceiling(),
            throttled: self.pacing.throttled().map(str::to_string),
        }
    }
}
