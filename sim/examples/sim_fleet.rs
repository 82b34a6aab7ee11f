//! Runs a simulated OLT fleet until Ctrl-C, for poking at it with net-snmp by hand and for
//! checking that a large fleet fits one process. Prints the inventory TOML on stdout.
//!
//! `cargo run -p ponkeeper-sim --release --example sim_fleet -- OLTS ONUS [BASE_PORT] [SEED] [frozen]`

use ponkeeper_sim::{Dynamics, FleetSpec, SimFleet};
use std::time::Instant;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: u64| -> u64 {
        args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default)
    };
    let mut spec = FleetSpec::new(number(0, 4) as usize, number(1, 128) as usize);
    spec.base_port = u16::try_from(number(2, 0)).unwrap_or(0);
    spec.seed = number(3, 1);
    if args.get(4).is_some_and(|a| a == "frozen") {
        spec.dynamics = Dynamics::none();
    }
    let started = Instant::now();
    let fleet = SimFleet::start(spec.clone()).await?;
    eprintln!(
        "{} OLTs x {} ONUs started in {:?}",
        spec.olts,
        spec.onus_per_olt,
        started.elapsed()
    );
    println!("{}", fleet.inventory().to_toml());
    tokio::signal::ctrl_c().await?;
    fleet.shutdown().await;
    Ok(())
}
