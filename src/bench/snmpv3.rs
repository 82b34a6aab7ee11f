//! `bench poll --snmp-v3` (docs/benchmarks.md): the P1 cycle over SNMPv3 authPriv beside
//! the v2c cycle, in the same run against the same simulated agents. The simulator answers
//! both (its v3 user: SHA-256 + AES-128); a second fleet of OLT actors polls every OLT
//! over v3 while the benchmark's own fleet polls over v2c. Cycles alternate (v2c, then
//! v3) so both see the same machine load; the ratio is the median of the pairs'.

use super::{cycle, median};
use ponkeeper_actors::inventory::{Inventory, SnmpSpec};
use ponkeeper_actors::olt::{OltHandle, PollSettings};
use ponkeeper_actors::store::Store;
use ponkeeper_actors::supervisor::Fleet;
use ponkeeper_sim::usm::{AUTH_PASSWORD_ENV, PRIV_PASSWORD_ENV};
use serde::Serialize;
use std::path::Path;

/// The benchmark's v3 user, as `ponkeeper sim --snmp-v3` takes it.
const USER: &str = "bench";
const AUTH: &str = "bench-auth-pass";
const PRIV: &str = "bench-priv-pass";

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnmpV3Figures {
    /// Median of the v3 cycles.
    pub cycle_seconds_median: f64,
    pub cycle_seconds_all: Vec<f64>,
    /// The v2c cycles each was paired with.
    pub v2c_cycle_seconds_all: Vec<f64>,
    /// v3 cycle over the v2c cycle run right before it (median of the pairs).
    pub ratio_vs_v2c: f64,
}

/// The `--snmp-v3` argument for the simulator, with the passwords put where its
/// inventory says they are.
pub fn simulator_user() -> String {
    std::env::set_var(AUTH_PASSWORD_ENV, AUTH);
    std::env::set_var(PRIV_PASSWORD_ENV, PRIV);
    format!("{USER}:{AUTH}:{PRIV}")
}

/// The same OLTs polled over v2c (community `public`, which the simulator also answers).
pub fn as_v2c(inventory: &Inventory) -> Inventory {
    let mut v2c = inventory.clone();
    for olt in &mut v2c.olts {
        olt.snmp = SnmpSpec {
            port: olt.snmp.port,
            ..SnmpSpec::default()
        };
    }
    v2c
}

/// Starts the v3 fleet, warms it up, and runs `cycles` pairs of a v2c cycle of
/// `v2c_handles` and a v3 cycle.
pub async fn measure(
    work: &Path,
    v3_inventory: Inventory,
    settings: PollSettings,
    v2c_handles: &[OltHandle],
    cycles: usize,
) -> anyhow::Result<SnmpV3Figures> {
    let store = Store::open(&work.join("snmpv3"))?;
    let fleet = Fleet::start(store, settings, v3_inventory)
        .await
        .map_err(|e| anyhow::anyhow!(e))?;
    let v3_handles = fleet.olts();
    cycle(&v3_handles).await?; // warm-up: engine discovery, ONU ids
    let mut v3 = Vec::with_capacity(cycles);
    let mut v2c = Vec::with_capacity(cycles);
    let mut ratios = Vec::with_capacity(cycles);
    for _ in 0..cycles {
        let plain = cycle(v2c_handles).await?;
        let secured = cycle(&v3_handles).await?;
        v2c.push(plain);
        v3.push(secured);
        ratios.push(secured / plain);
    }
    fleet.shutdown().await;
    Ok(SnmpV3Figures {
        cycle_seconds_median: median(&v3),
        cycle_seconds_all: v3,
        v2c_cycle_seconds_all: v2c,
        ratio_vs_v2c: median(&ratios),
    })
}
