//! When each poll group of one OLT is read next ([`GroupSchedule`]). Every poll reads the
//! status group; the identity, `olt` and `traffic` groups are read when their interval is up;
//! the optics are swept: each ONU has its own due time, one optics interval after its
//! last reading, so the sweep is spread over the interval instead of a burst. An ONU the
//! schedule meets for the first time gets a slot spread over the next interval (the
//! poller reads a new ONU's optics at once). ONUs that came back online and ONUs an
//! operator asked about are read first, and a poll reads no more optics than the OLT's
//! pace allows in half a status interval, so the status group always has room. The
//! schedule also keeps what the poller needs between polls: which ONU each row index
//! stands for, and IF-MIB as last read.

use super::optics_turns::OpticsTurns;
use super::pacing::Pacing;
use crate::domain::{OltId, OnuId, OnuStatus};
use crate::onu_table::OnuTable;
use crate::poller::{Interfaces, OpticsPlan, ReadPlan, RowMap};
use crate::profile::polling::PollGroup;
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Share of a status interval's request budget optics may take.
const OPTICS_SHARE: f64 = 0.5;

/// The intervals one OLT's groups are read at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupIntervals {
    pub status: Duration,
    pub identity: Duration,
    pub optics: Duration,
    pub olt: Duration,
    pub traffic: Duration,
    pub macs: Duration,
}

impl GroupIntervals {
    pub fn of(&self, group: PollGroup) -> Duration {
        match group {
            PollGroup::Status => self.status,
            PollGroup::Identity => self.identity,
            PollGroup::Optics => self.optics,
            PollGroup::Olt => self.olt,
            PollGroup::Traffic => self.traffic,
            PollGroup::Macs => self.macs,
        }
    }
}

/// The last read of one group.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroupRead {
    pub at: DateTime<Utc>,
    /// How long the poll that read it talked to the device.
    pub took: Duration,
    /// ONUs it read (optics: how many ONUs' optics; status: rows listed).
    pub onus: usize,
}

/// The schedule of one OLT's groups and what the poller remembers between polls.
#[derive(Default)]
pub(super) struct GroupSchedule {
    identity_due: Option<Instant>,
    olt_due: Option<Instant>,
    traffic_due: Option<Instant>,
    macs_due: Option<Instant>,
    /// A refresh asked for the MACs: the next poll reads them.
    macs_urgent: bool,
    /// Polls of this session that had the `macs` group (the first has every group).
    macs_reads: u32,
    optics_due: OpticsTurns,
    /// ONUs whose optics the next poll reads first.
    urgent: Vec<OnuId>,
    /// Row index → ONU, as the last good poll left it.
    pub(super) rows: Arc<RowMap>,
    /// IF-MIB as the last `olt` read left it.
    pub(super) interfaces: Option<Arc<Interfaces>>,
    last: HashMap<PollGroup, GroupRead>,
}

impl GroupSchedule {
    /// What the next poll reads at `now`.
    pub(super) fn plan(
        &mut self,
        now: Instant,
        table: &OnuTable,
        intervals: &GroupIntervals,
        optics_cap: usize,
    ) -> ReadPlan {
        let first = self.rows.is_empty() || self.interfaces.is_none();
        let due = |at: Option<Instant>| at.is_none_or(|at| at <= now);
        let optics = if first && table.is_empty() {
            OpticsPlan::All
        } else {
            let due = self.due_optics(now, table, intervals.optics, optics_cap);
            // Every ONU due: one walk of the optics columns asks the OLT for the same
            // readings in far fewer requests than a GET per few ONUs.
            if !due.is_empty() && due.len() == table.len() {
                OpticsPlan::All
            } else {
                OpticsPlan::Onus(due)
            }
        };
        ReadPlan {
            olt: first || due(self.olt_due),
            identity: first || due(self.identity_due),
            optics,
            traffic: first || due(self.traffic_due),
            macs: first || self.macs_urgent || due(self.macs_due),
        }
    }

    /// The ONUs whose optics the next poll reads: the urgent ones, then those due,
    /// longest due first, at most `cap`.
    fn due_optics(
        &mut self,
        now: Instant,
        table: &OnuTable,
        interval: Duration,
        cap: usize,
    ) -> Vec<OnuId> {
        let onus = table.all();
        let wall = Utc::now();
        let count = onus.len().max(1) as u32;
        for (rank, onu) in onus.iter().enumerate() {
            self.optics_due.get_or_insert_with(onu.id, now, || {
                first_slot(now, wall, onu.optics_at, interval, rank as u32, count)
            });
        }
        let mut chosen: Vec<OnuId> = Vec::new();
        for id in self.urgent.drain(..) {
            if !chosen.contains(&id) && table.get_ref(id).is_some() {
                chosen.push(id);
            }
        }
        let due = self.optics_due.due(now, &chosen);
        let room = cap.saturating_sub(chosen.len());
        chosen.extend(due.into_iter().take(room));
        chosen
    }

    /// The next poll reads the MACs.
    pub(super) fn hurry_macs(&mut self) {
        self.macs_urgent = true;
    }

    /// ONU `id`'s optics are read first by the next poll.
    pub(super) fn hurry(&mut self, id: OnuId) {
        if !self.urgent.contains(&id) {
            self.urgent.push(id);
        }
    }

    /// What a good poll that started at `started` read (`plan`), now merged into `table`
    /// at `at`, with `rows` (row index → ONU) and IF-MIB if it read it.
    pub(super) fn read(
        &mut self,
        olt: OltId,
        plan: &ReadPlan,
        started: Instant,
        read: GroupsRead,
        table: &OnuTable,
        intervals: &GroupIntervals,
    ) {
        let GroupsRead {
            at,
            took,
            rows,
            interfaces,
            optics_read,
            came_online,
            traffic_read,
        } = read;
        let now = Instant::now();
        let listed = rows.len();
        self.rows = Arc::new(rows);
        if let Some(interfaces) = interfaces {
            self.interfaces = Some(Arc::new(interfaces));
        }
        let note = |onus| GroupRead { at, took, onus };
        count_reads(olt, plan, optics_read.len(), traffic_read);
        self.last.insert(PollGroup::Status, note(listed));
        // After the first read, each OLT's next one comes at a point of the interval of
        // its own (by its id), so a fleet started together does not read its identities
        // and ports together every 15 minutes ever after.
        let first = |due: Option<Instant>, interval: Duration| match due {
            None => interval.mul_f64(1.0 + stagger(olt)),
            Some(_) => interval,
        };
        if plan.olt {
            self.olt_due = Some(started + first(self.olt_due, intervals.olt));
            self.last.insert(PollGroup::Olt, note(1));
        }
        if plan.identity {
            self.identity_due = Some(started + first(self.identity_due, intervals.identity));
            self.last.insert(PollGroup::Identity, note(listed));
        }
        if plan.traffic {
            // Every OLT's traffic on its own interval (no stagger: its counters are
            // read together with its status walk, not as a burst of their own).
            self.traffic_due = Some(started + intervals.traffic);
        }
        if plan.macs {
            self.macs_reads = self.macs_reads.saturating_add(1);
            self.macs_urgent = false;
            self.macs_due = Some(started + first(self.macs_due, intervals.macs));
            self.last.insert(PollGroup::Macs, note(listed));
        }
        if traffic_read {
            self.last.insert(PollGroup::Traffic, note(listed));
        }
        if !optics_read.is_empty() {
            self.last.insert(PollGroup::Optics, note(optics_read.len()));
        }
        self.schedule_optics(&optics_read, came_online, table, intervals.optics, now);
    }

    /// The next optics turn of the ONUs `optics_read` just read (a first reading's spread
    /// over the interval), an earlier one for those back online and not read just now,
    /// and no turn for ONUs the table no longer has.
    fn schedule_optics(
        &mut self,
        optics_read: &[OnuId],
        came_online: Vec<OnuId>,
        table: &OnuTable,
        interval: Duration,
        now: Instant,
    ) {
        let count = table.len().max(1) as u32;
        for (rank, id) in optics_read.iter().enumerate() {
            if self.optics_due.contains(*id) {
                self.optics_due.set(*id, now, now + interval);
            } else {
                // Read at first sight: its sweep slot is spread over the interval.
                let slot = interval.mul_f64(f64::from(rank as u32 + 1) / f64::from(count));
                self.optics_due.set(*id, now, now + slot);
            }
        }
        // Back online and not read just now (a new ONU's first reading is this poll's).
        let just_read: std::collections::HashSet<OnuId> = match came_online.is_empty() {
            true => Default::default(),
            false => optics_read.iter().copied().collect(),
        };
        for id in came_online {
            let online = table
                .get_ref(id)
                .is_some_and(|o| o.status == OnuStatus::Online);
            if online && !just_read.contains(&id) {
                self.hurry(id);
            }
        }
        self.optics_due.retain(|id, _| table.get_ref(id).is_some());
    }

    /// The session restarted: everything is read again at the next poll.
    pub(super) fn forget(&mut self) {
        self.rows = Arc::default();
        self.interfaces = None;
        self.identity_due = None;
        self.olt_due = None;
        self.traffic_due = None;
        self.macs_due = None;
        self.macs_reads = 0;
    }

    /// Whether the last poll read the `macs` group because it was due (or asked for),
    /// not only because a session's first poll reads every group: a read over the CLI
    /// waits for that, so a service (re)start does not log into every OLT at once.
    pub(super) fn macs_were_due(&self) -> bool {
        self.macs_reads > 1
    }

    /// The last read of `group`.
    pub(super) fn last(&self, group: PollGroup) -> Option<GroupRead> {
        self.last.get(&group).copied()
    }

    /// When `group` is next read (status: `status_next`, the session's next poll).
    pub(super) fn next(&self, group: PollGroup, status_next: Instant) -> Option<Instant> {
        match group {
            PollGroup::Status => Some(status_next),
            PollGroup::Identity => Some(self.identity_due.unwrap_or(status_next)),
            PollGroup::Olt => Some(self.olt_due.unwrap_or(status_next)),
            PollGroup::Traffic => Some(self.traffic_due.unwrap_or(status_next)),
            PollGroup::Macs if self.macs_urgent => Some(status_next),
            PollGroup::Macs => Some(self.macs_due.unwrap_or(status_next)),
            PollGroup::Optics if !self.urgent.is_empty() => Some(status_next),
            PollGroup::Optics => self.optics_due.next(),
        }
    }
}

/// What a good poll read, as the schedule learns it.
pub(super) struct GroupsRead {
    pub(super) at: DateTime<Utc>,
    pub(super) took: Duration,
    pub(super) rows: RowMap,
    pub(super) interfaces: Option<Interfaces>,
    /// ONUs whose optics it read.
    pub(super) optics_read: Vec<OnuId>,
    /// ONUs it saw come back online.
    pub(super) came_online: Vec<OnuId>,
    /// Whether it read the `traffic` group's counters.
    pub(super) traffic_read: bool,
}

/// The first sweep slot of an ONU the schedule has not met: one interval after its
/// stored reading while that is still ahead; else (never read, or overdue after the
/// service was down) a slot spread over the next interval by its rank, so a restart of the
/// service is not a burst of optics reads.
fn first_slot(
    now: Instant,
    wall: DateTime<Utc>,
    optics_at: Option<DateTime<Utc>>,
    interval: Duration,
    rank: u32,
    count: u32,
) -> Instant {
    let stored_due = optics_at
        .and_then(|at| Some(at + chrono::Duration::from_std(interval).ok()?))
        .and_then(|due| (due - wall).to_std().ok());
    now + stored_due.unwrap_or_else(|| interval.mul_f64(f64::from(rank + 1) / f64::from(count)))
}

/// A fraction in [0, 1) of its own for OLT `olt`, spread evenly over a fleet's ids.
fn stagger(olt: OltId) -> f64 {
    // Multiplying by the golden ratio's fraction spreads consecutive ids far apart.
    (f64::from(olt) * 0.618_033_988_749_895).fract()
}

/// The metrics of one good poll of OLT `olt`: the groups it read, the ONUs whose optics.
fn count_reads(olt: OltId, plan: &ReadPlan, optics: usize, traffic: bool) {
    let olt = olt.to_string();
    let read = [
        (PollGroup::Status, true),
        (PollGroup::Identity, plan.identity),
        (PollGroup::Optics, optics > 0),
        (PollGroup::Olt, plan.olt),
        (PollGroup::Traffic, traffic),
        (PollGroup::Macs, plan.macs),
    ];
    for (group, _) in read.into_iter().filter(|(_, read)| *read) {
        metrics::counter!("ponkeeper_poll_group_reads_total", "olt" => olt.clone(), "group" => group.name())
            .increment(1);
    }
    metrics::counter!("ponkeeper_onu_optics_reads_total", "olt" => olt).increment(optics as u64);
}

/// The pace's room for optics in one status interval: ONUs (`per_request` a request).
pub(super) fn optics_cap(pacing: &Pacing, status: Duration, per_request: usize) -> usize {
    let requests = (pacing.rate() * status.as_secs_f64() * OPTICS_SHARE).max(1.0);
    (requests as usize).saturating_mul(per_request.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Onu;
    use crate::domain::Reading;

    const INTERVALS: GroupIntervals = GroupIntervals {
        status: Duration::from_secs(2),
        identity: Duration::from_secs(60),
        optics: Duration::from_secs(40),
        olt: Duration::from_secs(60),
        traffic: Duration::from_secs(30),
        macs: Duration::from_secs(30),
    };

    fn onu(id: OnuId, status: OnuStatus) -> Onu {
        Onu {
            id,
            olt_id: 1,
            pon_port: "0/1/0".into(),
            onu_index: id as u32,
            serial: format!("HWTC{id:08X}").into(),
            description: Default::default(),
            status,
            last_down_cause: None,
            distance: None,
            rx_power: Some(-20.0).into(),
            tx_power: Reading::NONE,
            olt_rx_power: Reading::NONE,
            temperature: Reading::NONE,
            voltage: Reading::NONE,
            bias_current: Reading::NONE,
            vlan: None,
            last_update: Utc::now(),
            optics_at: Some(Utc::now()),
        }
    }

    fn read(optics_read: Vec<OnuId>, came_online: Vec<OnuId>) -> GroupsRead {
        GroupsRead {
            at: Utc::now(),
            took: Duration::from_millis(3),
            rows: RowMap::new((1..=4).map(|id| (u128::from(id as u32), id))),
            interfaces: Some(Interfaces::default()),
            optics_read,
            came_online,
            traffic_read: false,
        }
    }

    fn after(seconds: f64) -> Instant {
        Instant::now() + Duration::from_secs_f64(seconds)
    }

    #[test]
    fn the_first_poll_reads_everything_then_the_sweep_spreads_the_optics() {
        let mut schedule = GroupSchedule::default();
        let started = Instant::now();
        let first = schedule.plan(started, &OnuTable::default(), &INTERVALS, 100);
        assert_eq!(first, ReadPlan::everything());
        let table = OnuTable::new((1..=4).map(|id| onu(id, OnuStatus::Online)).collect());
        // Every ONU is new, so every one "came online": none is read twice for it.
        schedule.read(
            1,
            &first,
            started,
            read(vec![1, 2, 3, 4], vec![1, 2, 3, 4]),
            &table,
            &INTERVALS,
        );
        let status_only = ReadPlan {
            olt: false,
            identity: false,
            optics: OpticsPlan::Onus(vec![]),
            traffic: false,
            macs: false,
        };
        assert_eq!(
            schedule.plan(after(1.0), &table, &INTERVALS, 100),
            status_only
        );
        // The four first readings' next turns are spread: 10, 20, 30, 40 s on.
        let at = |seconds| schedule_copy(&schedule).plan(after(seconds), &table, &INTERVALS, 100);
        assert_eq!(at(11.0).optics, OpticsPlan::Onus(vec![1]));
        assert_eq!(at(21.0).optics, OpticsPlan::Onus(vec![1, 2]));
        // All due at once: one walk of the optics columns.
        assert_eq!(at(41.0).optics, OpticsPlan::All);
        // Unless the budget has room for fewer.
        let capped = schedule_copy(&schedule).plan(after(41.0), &table, &INTERVALS, 3);
        assert_eq!(capped.optics, OpticsPlan::Onus(vec![1, 2, 3]));
        // Identity and the OLT's tables come back after their interval and this OLT's
        // share of another (0.618 of it for OLT 1): not at 61 s, by 121 s.
        let early = schedule_copy(&schedule).plan(after(61.0), &table, &INTERVALS, 100);
        assert!(!early.identity && !early.olt);
        let later = schedule_copy(&schedule).plan(after(121.0), &table, &INTERVALS, 100);
        assert!(later.identity && later.olt);
    }

    #[test]
    fn an_onu_back_online_or_asked_about_is_read_first() {
        let mut schedule = GroupSchedule::default();
        let started = Instant::now();
        let first = schedule.plan(started, &OnuTable::default(), &INTERVALS, 100);
        let mut table = OnuTable::new((1..=4).map(|id| onu(id, OnuStatus::Online)).collect());
        schedule.read(
            1,
            &first,
            started,
            read(vec![1, 2, 3, 4], vec![]),
            &table,
            &INTERVALS,
        );
        // ONU 3 came back online in a status-only poll; ONU 4 was asked about.
        let plan = schedule.plan(after(1.0), &table, &INTERVALS, 100);
        schedule.read(1, &plan, started, read(vec![], vec![3]), &table, &INTERVALS);
        schedule.hurry(4);
        let next = schedule.plan(after(2.0), &table, &INTERVALS, 100);
        assert_eq!(next.optics, OpticsPlan::Onus(vec![3, 4]));
        // An ONU that went offline again is not hurried for having come back.
        schedule.read(
            1,
            &next,
            started,
            read(vec![3, 4], vec![]),
            &table,
            &INTERVALS,
        );
        table.update(2, |o| o.status = OnuStatus::Offline);
        schedule.read(1, &next, started, read(vec![], vec![2]), &table, &INTERVALS);
        let then = schedule.plan(after(3.0), &table, &INTERVALS, 100);
        assert_eq!(then.optics, OpticsPlan::Onus(vec![]));
    }

    /// The schedule as it is, to ask what it would plan at some later time.
    fn schedule_copy(schedule: &GroupSchedule) -> GroupSchedule {
        GroupSchedule {
            identity_due: schedule.identity_due,
            olt_due: schedule.olt_due,
            traffic_due: schedule.traffic_due,
            macs_due: schedule.macs_due,
            macs_urgent: schedule.macs_urgent,
            macs_reads: schedule.macs_reads,
            optics_due: schedule.optics_due.clone(),
            urgent: schedule.urgent.clone(),
            rows: schedule.rows.clone(),
            interfaces: schedule.interfaces.clone(),
            last: schedule.last.clone(),
        }
    }
}
