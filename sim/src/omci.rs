//! What reading an ONU costs a simulated OLT. A real OLT answers an ONU's run state from
//! memory, but fetches its optics (ONU Rx/Tx power, temperature, voltage, bias current,
//! and the OLT's own Rx from that ONU) by asking the ONU over OMCI, one ONU at a time: a
//! poller that reads optics often keeps the OLT's CPU busy. The simulator charges the
//! same way. Each OLT has one OMCI channel ([`Omci`]): an answer that carries optics of
//! N distinct ONUs takes N × `omci_cost` of it, after whatever optics answers are
//! queued before it, and only then leaves (the agent sends it from a task of its own,
//! so status and identity answers of the same OLT, and other OLTs on a shared socket,
//! are not held up).
//!
//! The same pass counts the reads ([`super::stats`]): each Status varbind is a status
//! read of its ONU, and each answer holding any optics column of an ONU's row is one
//! optics read of that ONU. GET varbinds always count. A GETNEXT or GETBULK varbind
//! counts only while it stays in the column its request's OID lies in: a walk ends a
//! column by stepping past its last row into the next column, and those instances,
//! which the walker throws away, neither count nor cost OMCI time (a request OID in no
//! column, e.g. a table's entry OID, counts whatever it reaches). So one walk of the
//! optics columns reads every ONU's optics once.

use super::mib::{MibView, Spot};
use super::model::SimOlt;
use ponkeeper_actors::domain::OltId;
use ponkeeper_actors::profile::OnuField;
use std::time::{Duration, Instant};

/// OMCI time per ONU whose optics an answer carries, unless the fleet spec says
/// otherwise.
pub const DEFAULT_OMCI_COST: Duration = Duration::from_millis(3);

/// Whether a column of `field` carries optics, which a real OLT fetches from the ONU
/// over OMCI (the rest it answers from memory).
pub(crate) fn is_optics(field: OnuField) -> bool {
    match field {
        OnuField::RxPower
        | OnuField::TxPower
        | OnuField::OltRxPower
        | OnuField::Temperature
        | OnuField::Voltage
        | OnuField::BiasCurrent => true,
        OnuField::Serial
        | OnuField::Description
        | OnuField::Status
        | OnuField::Distance
        | OnuField::DownCause
        | OnuField::PonChannel
        | OnuField::OnuNumber => false,
    }
}

/// What optics cost the OLTs of a fleet, and how often an ONU's optics may be read
/// before the simulator complains.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OmciSettings {
    /// OMCI time per ONU whose optics an answer carries; zero makes optics free.
    pub cost: Duration,
    /// Warn when an ONU's optics are read more often than this per hour.
    pub max_optics_per_hour: Option<u32>,
}

/// The ONU rows one answer reads, noted while it is written: the positions (in
/// [`SimOlt::onus`]) of every Status varbind, and of every optics varbind.
#[derive(Debug, Default)]
pub(crate) struct RowReads {
    status: Vec<usize>,
    optics: Vec<usize>,
}

impl RowReads {
    pub fn clear(&mut self) {
        self.status.clear();
        self.optics.clear();
    }

    /// Notes the instance at `spot` that a varbind of the answer carries. `walked_from`
    /// is the column (a [`Spot::object`]) the request's OID lies in for a GETNEXT or
    /// GETBULK varbind, `None` for a GET or an OID in no column.
    pub fn note(&mut self, view: &MibView, spot: Option<Spot>, walked_from: Option<usize>) {
        let Some(spot) = spot else {
            return;
        };
        if walked_from.is_some_and(|column| column != spot.object) {
            return;
        }
        match view.onu_field(spot) {
            Some((OnuField::Status, row)) => self.status.push(row),
            Some((field, row)) if is_optics(field) => self.optics.push(row),
            _ => {}
        }
    }
}

/// One OLT's OMCI channel, owned by the responder that answers for it (every request
/// to an OLT goes through that one responder, so the channel needs no lock): it is busy
/// until `busy_until`, and the answer just written may leave at `ready`.
#[derive(Debug)]
pub(crate) struct Omci {
    olt: OltId,
    settings: OmciSettings,
    busy_until: Instant,
    /// The rows the answer being written reads.
    pub reads: RowReads,
    ready: Option<Instant>,
}

impl Omci {
    pub fn new(olt: OltId, settings: OmciSettings) -> Omci {
        Omci {
            olt,
            settings,
            busy_until: Instant::now(),
            reads: RowReads::default(),
            ready: None,
        }
    }

    /// Starts a new answer: nothing read yet, nothing to wait for.
    pub fn begin(&mut self) {
        self.reads.clear();
        self.ready = None;
    }

    /// Settles the answer just written at `now`: adds its reads to its ONUs' counters,
    /// warns of ONUs read too often, and queues its optics on the OMCI channel.
    pub fn settle(&mut self, olt: &mut SimOlt, now: Instant) {
        for &row in &self.reads.status {
            if let Some(onu) = olt.onus.get_mut(row) {
                onu.reads.status = onu.reads.status.saturating_add(1);
            }
        }
        let optics = &mut self.reads.optics;
        optics.sort_unstable();
        optics.dedup();
        for &row in optics.iter() {
            read_optics(self.olt, self.settings.max_optics_per_hour, olt, row, now);
        }
        let onus = u32::try_from(self.reads.optics.len()).unwrap_or(u32::MAX);
        if onus > 0 && !self.settings.cost.is_zero() {
            let start = self.busy_until.max(now);
            self.busy_until = start + self.settings.cost.saturating_mul(onus);
            self.ready = Some(self.busy_until);
        }
    }

    /// How long the answer just written must still wait for its OMCI queries at `now`
    /// (zero when it carries no optics or optics are free). Taking it clears it, so an
    /// answer made without the MIB (`garbage`) never inherits an earlier one's wait.
    pub fn take_wait(&mut self, now: Instant) -> Duration {
        self.ready
            .take()
            .map_or(Duration::ZERO, |ready| ready.saturating_duration_since(now))
    }
}

/// Counts one optics read of the ONU at `row` of OLT `id`, warning when it comes sooner
/// after the previous one than `max_per_hour` allows.
fn read_optics(id: OltId, max_per_hour: Option<u32>, olt: &mut SimOlt, row: usize, now: Instant) {
    let Some(onu) = olt.onus.get_mut(row) else {
        return;
    };
    onu.reads.optics = onu.reads.optics.saturating_add(1);
    let previous = onu.reads.last_optics.replace(now);
    let (Some(limit), Some(previous)) = (max_per_hour, previous) else {
        return;
    };
    let gap = now.saturating_duration_since(previous);
    if gap < least_gap(limit) {
        let port = olt.ports.get(onu.port).map_or("?", |p| p.name.as_str());
        let gap = Duration::from_millis(u64::try_from(gap.as_millis()).unwrap_or(u64::MAX));
        tracing::warn!(
            olt = id,
            port,
            onu = onu.ont_id,
            gap = %humantime::format_duration(gap),
            max_per_hour = limit,
            "ONU optics read more often than --max-optics-per-hour allows"
        );
    }
}

/// The least time between two optics reads of an ONU read at most `per_hour` times an
/// hour: an hour / N (0 an hour: never again).
fn least_gap(per_hour: u32) -> Duration {
    Duration::from_secs(3600)
        .checked_div(per_hour)
        .unwrap_or(Duration::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vendor::SimVendor;
    use ponkeeper_actors::domain::Vendor;

    fn olt(onus: usize) -> SimOlt {
        SimOlt::generate(SimVendor::for_vendor(Vendor::Huawei), 1, 1, onus, 0)
    }

    #[test]
    fn optics_answers_queue_on_the_channel_and_status_is_free() {
        let settings = OmciSettings {
            cost: Duration::from_millis(5),
            max_optics_per_hour: None,
        };
        let mut omci = Omci::new(1, settings);
        let mut state = olt(4);
        let now = Instant::now();
        omci.begin();
        omci.reads.status.extend([0, 1, 1]);
        omci.settle(&mut state, now);
        assert_eq!(omci.take_wait(now), Duration::ZERO, "status costs nothing");
        omci.begin();
        omci.reads.optics.extend([0, 2, 0, 2, 3]);
        omci.settle(&mut state, now);
        assert_eq!(
            omci.take_wait(now),
            Duration::from_millis(15),
            "3 distinct ONUs"
        );
        // A second optics answer waits for the first.
        omci.begin();
        omci.reads.optics.push(1);
        omci.settle(&mut state, now);
        assert_eq!(omci.take_wait(now), Duration::from_millis(20));
        let counts: Vec<(u32, u32)> = state
            .onus
            .iter()
            .map(|o| (o.reads.status, o.reads.optics))
            .collect();
        assert_eq!(counts, [(1, 1), (2, 1), (0, 1), (0, 1)]);
    }

    #[test]
    fn a_free_channel_never_waits() {
        let settings = OmciSettings {
            cost: Duration::ZERO,
            max_optics_per_hour: Some(1),
        };
        let mut omci = Omci::new(1, settings);
        let mut state = olt(2);
        let now = Instant::now();
        for _ in 0..3 {
            omci.begin();
            omci.reads.optics.extend([0, 1]);
            omci.settle(&mut state, now);
            assert_eq!(omci.take_wait(now), Duration::ZERO);
        }
        assert_eq!(state.onus[1].reads.optics, 3);
    }

    #[test]
    fn the_optics_rate_limit_is_an_hour_over_n_and_remembers_the_last_read() {
        assert_eq!(least_gap(60), Duration::from_secs(60));
        assert_eq!(least_gap(4), Duration::from_secs(900));
        assert_eq!(least_gap(0), Duration::MAX);
        let mut state = olt(1);
        let first = Instant::now();
        read_optics(1, Some(60), &mut state, 0, first);
        assert_eq!(state.onus[0].reads.last_optics, Some(first));
        let later = first + Duration::from_secs(61);
        read_optics(1, Some(60), &mut state, 0, later);
        assert_eq!(state.onus[0].reads.last_optics, Some(later));
        assert_eq!(state.onus[0].reads.optics, 2);
    }

    #[test]
    fn only_status_and_optics_columns_are_reads() {
        assert!(is_optics(OnuField::OltRxPower));
        assert!(is_optics(OnuField::BiasCurrent));
        assert!(!is_optics(OnuField::Status));
        assert!(!is_optics(OnuField::Distance));
    }
}
