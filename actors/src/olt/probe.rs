//! Polls that cannot starve the fleet (docs/benchmarks.md P7 and N5). The poll permits
//! (`[polling] concurrency`) are for OLTs that answer; a hung OLT must not sit on one
//! while its requests wait out their timeouts. A poll starts with the system group's GET
//! ([`poller::read_system`]), which doubles as a probe:
//!
//! - an OLT whose last poll succeeded sends it holding a poll permit, with a timeout
//!   fitted to its measured round trip ([`quick_timeout`]) and no retry;
//! - an OLT whose last poll failed, or that missed that quick answer, sends it holding a
//!   probe permit instead (a budget of its own, [`PollSettings::probes`]), with the
//!   configured timeout and retries, so a slow but answering OLT still gets its poll.
//!
//! Only an answer earns a poll permit for the walk. A hung OLT holds a poll permit for
//! one quick timeout at most, and an OFFLINE one never. The poll's deadline counts the
//! time spent talking to the device, not the time spent waiting for a permit.

use super::poll::PollSettings;
use crate::domain::Onu;
use crate::domain::Vendor;
use crate::poller::{self, Interfaces, Memory, PollOutcome, ReadPlan, RowMap};
use crate::snmp::{DeviceError, SnmpClient};
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The shortest quick timeout: below it, scheduling noise on a loaded host would send
/// healthy OLTs down the slow path.
const QUICK_FLOOR: Duration = Duration::from_millis(100);

/// Round trips a quick timeout allows.
const QUICK_ROUND_TRIPS: u32 = 8;

/// How the next poll starts, from what the OLT actor knows of the device.
#[derive(Debug, Clone, Copy)]
pub(super) struct ProbePlan {
    /// The last poll failed: probe with the probe budget before asking for a poll permit.
    pub suspect: bool,
    /// The round trip of the last answered system GET, if any.
    pub round_trip: Option<Duration>,
}

/// What the poll reads ([`ReadPlan`]) and what it remembers of the last reads.
pub(super) struct Reads {
    pub plan: ReadPlan,
    pub rows: Arc<RowMap>,
    /// The ONU table's rows, in id order.
    pub onus: Arc<Vec<Onu>>,
    pub interfaces: Option<Arc<Interfaces>>,
    pub vlans: Vec<(u16, String)>,
}

impl Reads {
    fn memory(&self) -> Memory<'_> {
        Memory {
            rows: &self.rows,
            onus: &self.onus,
            interfaces: self.interfaces.as_deref(),
            vlans: &self.vlans,
        }
    }
}

/// What a poll came to, and the probe's round trip when the device answered it.
pub(super) struct Probed {
    pub result: Result<PollOutcome, DeviceError>,
    pub round_trip: Option<Duration>,
    /// Time spent talking to the device (permit waits left out).
    pub device_time: Duration,
    /// The poll permit of a good poll, for what the task still asks the device (the
    /// discovery of unconfigured ONUs) before it lets go.
    pub permit: Option<OwnedSemaphorePermit>,
}

/// The probe's timeout for an OLT answering in `round_trip`: eight round trips, at least
/// [`QUICK_FLOOR`], at most the configured timeout.
pub(super) fn quick_timeout(round_trip: Duration, configured: Duration) -> Duration {
    (round_trip * QUICK_ROUND_TRIPS)
        .max(QUICK_FLOOR)
        .min(configured)
}

/// The deadline of one poll, charged only while the device is being talked to.
struct Budget {
    left: Duration,
    used: Duration,
}

impl Budget {
    async fn run<T>(
        &mut self,
        work: impl Future<Output = Result<T, DeviceError>>,
        deadline: Duration,
    ) -> Result<T, DeviceError> {
        let started = Instant::now();
        let outcome = tokio::time::timeout(self.left, work).await;
        let spent = started.elapsed();
        self.used += spent;
        self.left = self.left.saturating_sub(spent);
        outcome.unwrap_or(Err(DeviceError::Deadline(deadline)))
    }
}

/// Polls with `client` as the module's header says.
pub(super) async fn poll(
    client: &mut SnmpClient,
    vendor: Option<Vendor>,
    settings: &PollSettings,
    plan: ProbePlan,
    reads: &Reads,
) -> Probed {
    let mut budget = Budget {
        left: settings.deadline,
        used: Duration::ZERO,
    };
    let deadline = settings.deadline;
    let quick = plan
        .round_trip
        .map(|rtt| quick_timeout(rtt, settings.timeout))
        .filter(|_| !plan.suspect);
    let mut round_trip = None;
    let result = async {
        let permit = if plan.suspect {
            None
        } else {
            Some(acquire(&settings.concurrency).await?)
        };
        if permit.is_some() {
            if let Some(quick) = quick {
                client.set_timing(quick, 0);
            }
            let sent = Instant::now();
            let answer = budget.run(poller::read_system(client), deadline).await;
            client.set_timing(settings.timeout, settings.retries);
            match answer {
                Ok(system) => {
                    round_trip = Some(sent.elapsed());
                    let profile = system.profile(vendor)?;
                    let walk =
                        poller::poll_groups(client, profile, system, &reads.plan, reads.memory());
                    return Ok((budget.run(walk, deadline).await?, permit));
                }
                // No quick answer: the permit goes back, the probe goes on below.
                Err(DeviceError::Timeout { .. }) if quick.is_some() => client.reset(),
                Err(error) => return Err(error),
            }
        }
        drop(permit);
        let probing = acquire(&settings.probes).await?;
        let sent = Instant::now();
        let system = budget.run(poller::read_system(client), deadline).await?;
        round_trip = Some(sent.elapsed());
        drop(probing);
        let profile = system.profile(vendor)?;
        let walking = acquire(&settings.concurrency).await?;
        let walk = poller::poll_groups(client, profile, system, &reads.plan, reads.memory());
        Ok((budget.run(walk, deadline).await?, Some(walking)))
    }
    .await;
    let (result, permit) = match result {
        Ok((outcome, permit)) => (Ok(outcome), permit),
        Err(error) => (Err(error), None),
    };
    Probed {
        result,
        round_trip,
        device_time: budget.used,
        permit,
    }
}

/// A permit of `budget`; a closed semaphore (the fleet shutting down) is a failed poll.
async fn acquire(budget: &Arc<Semaphore>) -> Result<OwnedSemaphorePermit, DeviceError> {
    budget
        .clone()
        .acquire_owned()
        .await
        .map_err(|_| DeviceError::Protocol("the poll permits are closed".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quick_timeout_follows_the_round_trip_within_its_bounds() {
        let configured = Duration::from_secs(2);
        assert_eq!(
            quick_timeout(Duration::from_millis(1), configured),
            QUICK_FLOOR
        );
        assert_eq!(
            quick_timeout(Duration::from_millis(40), configured),
            Duration::from_millis(320)
        );
        assert_eq!(
            quick_timeout(Duration::from_secs(1), configured),
            configured
        );
    }
}
