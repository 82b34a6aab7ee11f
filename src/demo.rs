//! `ponkeeper demo`: the newcomer's first command. It starts a simulated, mixed fleet on
//! loopback (real SNMP agents over UDP and SSH servers over TCP, ONUs that flap and
//! drift, and a trap to the service on each change), writes the fleet's inventory,
//! starts the service on it (traps on), creates one FULL and one READ_ONLY key, and
//! prints the keys and curl lines to paste. Its data lives in a fresh temporary
//! directory unless `--data-dir` names one. The simulated OLTs' SSH
//! password is put in this process's environment (the variable the inventory names)
//! before the service starts, so the actions work with nothing to set up.

use crate::app::{shutdown_signal, App};
use crate::clock::Clock;
use crate::config::Config;
use crate::keys;
use crate::records::AccessLevel;
use crate::state::AppState;
use anyhow::Context;
use ponkeeper_actors::domain::OnuStatus;
use ponkeeper_actors::domain::SessionStatus;
use ponkeeper_actors::inventory::{Inventory, SzoSpec, SzoType};
use ponkeeper_sim::{Dynamics, FleetSpec, FleetVendors, SimFleet, SSH_PASSWORD_ENV};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;

/// `ponkeeper demo` options.
#[derive(Debug, Clone, clap::Args)]
pub struct DemoOptions {
    /// Simulated OLTs.
    #[arg(long, default_value_t = 20)]
    pub olts: usize,
    #[arg(long, default_value_t = 64)]
    pub onus_per_olt: usize,
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Keep the data here instead of a fresh temporary directory.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    #[arg(long, default_value = "10s", value_parser = humantime::parse_duration)]
    pub poll_interval: Duration,
    /// The same seed gives the same fleet.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How long an ONU rebooted over SSH stays offline.
    #[arg(long, default_value_t = 20)]
    pub reboot_seconds: u64,
}

/// Socially significant objects served by the first online ONU of the first OLTs, one
/// of each common kind, and one whose ONU has not been installed yet (UNBOUND).
fn demo_szo(fleet: &SimFleet, inventory: &Inventory) -> Vec<SzoSpec> {
    const OBJECTS: [(SzoType, &str, &str); 6] = [
        (SzoType::School, "School No. 3", "Lenina 5"),
        (SzoType::Fap, "FAP Kamenka", "Tsentralnaya 1"),
        (SzoType::Medical, "Hospital No. 2", "Pobedy 12"),
        (SzoType::FireStation, "Fire station 14", "Pozharnaya 2"),
        (
            SzoType::Government,
            "Village administration",
            "Sovetskaya 7",
        ),
        (SzoType::Library, "Library No. 5", "Pushkina 10"),
    ];
    let connected = chrono::NaiveDate::from_ymd_opt(2021, 6, 1).unwrap_or_default();
    let mut objects: Vec<SzoSpec> = inventory
        .olts
        .iter()
        .zip(OBJECTS)
        .zip(101..)
        .filter_map(|((olt, (kind, name, address)), id)| {
            let onu = fleet
                .expected_onus(olt.id)
                .into_iter()
                .find(|o| o.status == OnuStatus::Online)?;
            Some(SzoSpec {
                id,
                name: name.into(),
                kind,
                city: olt.city.clone(),
                address: address.into(),
                onu_serial: onu.serial.into(),
                bandwidth_mbps: 100,
                connected_at: connected,
                sla_percent: 99.5,
            })
        })
        .collect();
    objects.push(SzoSpec {
        id: 200,
        name: "Election commission No. 41".into(),
        kind: SzoType::Election,
        city: "Kazan".into(),
        address: "Kremlevskaya 18".into(),
        onu_serial: "HWTC00000000".into(),
        bandwidth_mbps: 50,
        connected_at: connected,
        sla_percent: 99.9,
    });
    objects
}

/// The demo's polling: the status every `poll_interval`, and the groups a real fleet reads
/// rarely read often enough to see them move.
fn demo_polling(config: &mut Config, poll_interval: Duration) {
    config.polling.status_interval = poll_interval;
    // The simulated signals drift by the minute: the demo reads optics every two minutes
    // so its charts move, where a real fleet keeps the vendors' defaults (docs/polling.md).
    config.polling.optics_interval = Some(Duration::from_secs(120));
    // Likewise its traffic every 30 s and its MACs every minute, so an ONU's traffic chart
    // and MAC list fill within a minute of the start instead of ten.
    config.polling.traffic_interval = Duration::from_secs(30);
    config.polling.macs_interval = Duration::from_secs(60);
}

pub async fn run(options: DemoOptions) -> anyhow::Result<()> {
    let mut fleet = start_fleet(&options).await?;

    let temp_dir;
    let data_dir = match options.data_dir {
        Some(dir) => dir,
        None => {
            temp_dir = tempfile::Builder::new()
                .prefix("ponkeeper-demo-")
                .tempdir()?;
            temp_dir.path().to_path_buf()
        }
    };
    let inventory_path = write_inventory(&fleet, &data_dir)?;

    let mut config = Config {
        listen: options.listen,
        data_dir: data_dir.clone(),
        inventory: inventory_path.clone(),
        profiles: vec!["swagger".into()],
        ..Config::default()
    };
    demo_polling(&mut config, options.poll_interval);
    // The simulator traps each ONU change to the service, which polls at once: the demo's
    // events arrive within seconds, not a poll interval.
    let traps = std::net::UdpSocket::bind("127.0.0.1:0")
        .and_then(|probe| probe.local_addr())
        .context("cannot pick a UDP port for the demo's traps")?;
    config.traps.listen = Some(traps);
    fleet.send_traps_to(traps);
    config.validate()?;

    let listener = TcpListener::bind(options.listen).await.with_context(|| {
        format!(
            "cannot listen on {}; pick another with --listen 127.0.0.1:PORT",
            options.listen
        )
    })?;
    let addr = listener.local_addr()?;
    let app = App::start(config).await?;

    let state = &app.state;
    let (full, read_only) = demo_keys(state).await?;

    // Give the first polls a moment so the curl lines show real data at once.
    first_polls(state, options.poll_interval).await;

    // A real serial to search for: the first ONU of the first OLT.
    let example_serial = fleet
        .expected_onus(1)
        .first()
        .map(|onu| onu.serial.clone())
        .unwrap_or_default();
    let example_onu = example_onu(state).await;
    println!("Data directory: {}", data_dir.display());
    println!("Inventory: {}", inventory_path.display());
    println!();
    print_reads(addr, &read_only, &example_serial, &state.clock);
    print_actions(addr, &full, &read_only, example_onu);
    // Last, so it is what the terminal shows: the keys and where to go.
    println!();
    // `FULL key: `, `READ_ONLY key: ` and `Listening on URL` are read by
    // scripts/check_mcp.py and scripts/schemathesis.sh: keep their form.
    println!("FULL key: {full}");
    println!("READ_ONLY key: {read_only}");
    println!("API: http://{addr}/api/v1/external/");
    println!("Swagger UI: http://{addr}{}/", crate::api::doc::SWAGGER_UI);
    println!("Operator page: http://{addr}/ui/ (sign in with either key)");
    println!("Listening on http://{addr}");
    println!("Ctrl-C stops the demo; RUST_LOG=info shows the logs.");

    app.serve(listener, shutdown_signal()).await?;
    fleet.shutdown().await;
    Ok(())
}

/// The demo's FULL and READ_ONLY keys, made afresh at each start.
async fn demo_keys(state: &crate::state::AppState) -> anyhow::Result<(String, String)> {
    let make = |name: &'static str, level| async move {
        keys::replace(&state.records, &state.keys, name, level)
            .await
            .map_err(|e| anyhow::anyhow!(e))
    };
    let full = make("demo-full", AccessLevel::Full).await?;
    let read_only = make("demo-read-only", AccessLevel::ReadOnly).await?;
    Ok((full, read_only))
}

/// Writes the fleet's inventory, with the demo's СЗО objects, into `data_dir`, readable
/// by the owner only: it holds the SNMP community.
fn write_inventory(fleet: &SimFleet, data_dir: &Path) -> anyhow::Result<PathBuf> {
    crate::data_dir::prepare(data_dir)?;
    let inventory_path = data_dir.join("inventory.toml");
    let mut inventory = fleet.inventory();
    // The simulator leaves every fifth OLT without a node (to exercise node-less OLTs);
    // the demo puts each in one, so the node cards count the whole fleet.
    let nodes: Vec<_> = inventory.nodes.iter().map(|n| n.id).collect();
    for (i, olt) in inventory.olts.iter_mut().enumerate() {
        if olt.node.is_none() && !nodes.is_empty() {
            olt.node = Some(nodes[i % nodes.len()]);
        }
    }
    inventory.szo = demo_szo(fleet, &inventory);
    crate::data_dir::write_private(&inventory_path, inventory.to_toml().as_bytes())?;
    Ok(inventory_path)
}

/// Starts the simulated fleet. The service reads the OLTs' SSH password from the variable
/// the inventory names: a set one is used, else a random one is put there.
async fn start_fleet(options: &DemoOptions) -> anyhow::Result<SimFleet> {
    let password = std::env::var(SSH_PASSWORD_ENV).unwrap_or_else(|_| {
        let password = format!("demo-{}", hex::encode(rand::random::<[u8; 8]>()));
        std::env::set_var(SSH_PASSWORD_ENV, &password);
        password
    });
    SimFleet::start(FleetSpec {
        olts: options.olts,
        onus_per_olt: options.onus_per_olt,
        vendors: FleetVendors::EveryFamily,
        base_port: 0,
        seed: options.seed,
        bind: [127, 0, 0, 1].into(),
        // Ten times the default outage rate: about one ONU in sixteen is down at any
        // moment, so the СЗО reports show outages within minutes.
        // ONUs plugged in during the run leave again after about three minutes, so the
        // unconfigured list hovers around four new ONUs an OLT instead of growing.
        dynamics: Dynamics {
            outage_probability: 0.002,
            unplug_probability: 0.005,
            // Now and then a router carried to a neighbour: a MAC_MOVED every few minutes.
            mac_move_probability: 0.002,
            ..Dynamics::default()
        },
        ssh_password: password,
        reboot_time: Duration::from_secs(options.reboot_seconds),
        olts_per_socket: 1,
        ..FleetSpec::new(options.olts, options.onus_per_olt)
    })
    .await
    .context("cannot start the simulated fleet")
}

/// Waits (at most 15 s) until no OLT is still connecting, then prints the fleet's size.
async fn first_polls(state: &AppState, poll_interval: Duration) {
    let started = Instant::now();
    loop {
        let summaries = state.summaries().await.unwrap_or_default();
        let pending = summaries
            .iter()
            .filter(|s| s.status == SessionStatus::Connecting)
            .count();
        if pending == 0 || started.elapsed() > Duration::from_secs(15) {
            let onus: u32 = summaries.iter().map(|s| s.total_onu).sum();
            let online: u32 = summaries.iter().map(|s| s.onu_online).sum();
            println!(
                "Simulated fleet: {} OLTs, {onus} ONUs ({online} online), polled every {}",
                summaries.len(),
                humantime::format_duration(poll_interval)
            );
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A real ONU id to act on: the first online ONU of OLT 1 (1 when there is none).
async fn example_onu(state: &AppState) -> u64 {
    let Some(olt) = state.fleet.olt(1) else {
        return 1;
    };
    let Ok(onus) = olt.onus().await else {
        return 1;
    };
    onus.iter()
        .find(|o| o.status == OnuStatus::Online)
        .map_or(1, |onu| onu.id)
}

/// The read-only curl lines to paste, with the demo's key and a real serial.
fn print_reads(addr: SocketAddr, read_only: &str, example_serial: &str, clock: &Clock) {
    let base = format!("http://{addr}/api/v1/external");
    println!("Try:");
    println!("  curl -s -H 'X-API-Key: {read_only}' '{base}/olts?size=5'");
    println!("  curl -s -H 'X-API-Key: {read_only}' '{base}/olts/1'");
    println!("  curl -s -H 'X-API-Key: {read_only}' '{base}/olts?status=ONLINE&city=Kazan'");
    println!("  curl -s -H 'X-API-Key: {read_only}' '{base}/nodes'");
    println!("  curl -s -H 'X-API-Key: {read_only}' '{base}/olts/1/onus?status=OFFLINE'");
    println!("  curl -s -H 'X-API-Key: {read_only}' '{base}/onus?q={example_serial}'");
    println!("  curl -s -H 'X-API-Key: {read_only}' '{base}/optics?level=CRITICAL&size=5'");
    println!("  curl -s -H 'X-API-Key: {read_only}' '{base}/szo'");
    println!(
        "  curl -s -H 'X-API-Key: {read_only}' '{base}/szo/availability?from={}&to={}'",
        clock.format(chrono::Utc::now() - chrono::Duration::hours(1)),
        clock.format(chrono::Utc::now() + chrono::Duration::hours(1)),
    );
}

/// The action lines (FULL key): a change first, then the backup that stores it and the
/// diff that shows it, then a reboot whose cause the ONU then shows.
fn print_actions(addr: SocketAddr, full: &str, read_only: &str, example_onu: u64) {
    let base = format!("http://{addr}/api/v1/external");
    println!("  curl -s -X POST -H 'X-API-Key: {full}' '{base}/olts/1/restart-session'");
    println!(
        "  curl -s -X POST -H 'X-API-Key: {read_only}' '{base}/olts/1/poll'   # 403: READ_ONLY"
    );
    println!("  # actions over SSH (FULL key), each in the audit log:");
    println!(
        "  curl -s -X POST -H 'X-API-Key: {full}' -H 'Content-Type: application/json' -d '{{\"vlan\": 200}}' '{base}/onus/{example_onu}/vlan'"
    );
    println!(
        "  curl -s -X POST -H 'X-API-Key: {full}' -H 'Content-Type: application/json' -d '{{\"description\": \"school 7, Baumana 1\"}}' '{base}/onus/{example_onu}/description'"
    );
    println!("  # the backup after the change stores a new version (changed: true); its id gives the diff:");
    println!(
        "  ID=$(curl -s -X POST -H 'X-API-Key: {full}' '{base}/olts/1/configs/backup' | grep -o '\"id\":[0-9]*' | head -1 | cut -d: -f2)"
    );
    println!("  curl -s -H 'X-API-Key: {read_only}' \"{base}/olts/1/configs/$ID/diff\"");
    println!("  curl -s -X POST -H 'X-API-Key: {full}' '{base}/onus/{example_onu}/reboot'");
    println!("  curl -s -H 'X-API-Key: {read_only}' '{base}/onus/{example_onu}'   # lastDownCause once it is down");
    println!("  curl -s -H 'X-API-Key: {full}' '{base}/audit-logs?size=5'");
    print_provisioning(&base, full, read_only);
    println!(
        "  # MCP for LLM agents: Streamable HTTP at http://{addr}/mcp with the X-API-Key header,"
    );
    println!("  # or over stdio: ponkeeper mcp --url http://{addr} --api-key {read_only}");
}

/// The provisioning lines of the banner: an unconfigured ONU of OLT 1 (the simulator shows
/// some on every few ports, and new ones appear over time), the OLT's profiles, then
/// authorising it, binding it to a subscriber, finding it by the binding, and removing it.
/// Runnable as printed: each line takes what it needs from the previous ones' answers.
fn print_provisioning(base: &str, full: &str, read_only: &str) {
    let json_field = |name: &str| format!("grep -o '\"{name}\":\"[^\"]*\"' | cut -d'\"' -f4");
    println!("  # provisioning (docs/provisioning.md): an unconfigured ONU of OLT 1, the OLT's profiles,");
    println!("  # authorising it, binding it to a subscriber, finding it, removing it");
    println!(
        "  U=$(curl -s -H 'X-API-Key: {read_only}' '{base}/olts/1/unconfigured-onus?size=1'); PORT=$(echo \"$U\" | {}); SERIAL=$(echo \"$U\" | {})",
        json_field("ponPort"),
        json_field("serial")
    );
    println!("  curl -s -H 'X-API-Key: {read_only}' '{base}/olts/1/onu-profiles'");
    println!(
        "  NEW=$(curl -s -X POST -H 'X-API-Key: {full}' -H 'Content-Type: application/json' -d \"{{\\\"ponPort\\\": \\\"$PORT\\\", \\\"serial\\\": \\\"$SERIAL\\\", \\\"lineProfile\\\": \\\"10\\\", \\\"serviceProfile\\\": \\\"10\\\", \\\"vlan\\\": 100}}\" '{base}/olts/1/onus/authorize' | grep -o '\"id\":[0-9]*' | head -1 | cut -d: -f2); echo \"ONU $NEW\""
    );
    println!(
        "  curl -s -X POST -H 'X-API-Key: {full}' -H 'Content-Type: application/json' -d '{{\"contract\": \"Д-100234\", \"name\": \"Иванова Мария Петровна\", \"address\": \"Казань, ул. Баумана 1, кв. 12\"}}' \"{base}/onus/$NEW/subscriber\""
    );
    println!("  curl -s -G -H 'X-API-Key: {read_only}' --data-urlencode 'q=иванова' '{base}/onus'");
    println!(
        "  curl -s -G -H 'X-API-Key: {read_only}' --data-urlencode 'contract=Д-100234' '{base}/onus'"
    );
    println!("  curl -s -X POST -H 'X-API-Key: {full}' \"{base}/onus/$NEW/deauthorize\"");
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[tokio::test]
    async fn the_inventory_with_the_snmp_community_is_written_owner_only() {
        let fleet = SimFleet::start(FleetSpec {
            dynamics: Dynamics::none(),
            ..FleetSpec::new(1, 2)
        })
        .await
        .expect("simulator starts");
        let dir = tempfile::tempdir().expect("tempdir");
        // Even over a file someone left readable.
        let stale = dir.path().join("inventory.toml");
        std::fs::write(&stale, "").expect("write");
        std::fs::set_permissions(&stale, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let path = write_inventory(&fleet, dir.path()).expect("written");
        let mode = std::fs::metadata(&path)
            .expect("metadata")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(format!("{mode:o}"), "600", "{}", path.display());
        assert!(std::fs::read_to_string(&path)
            .expect("read")
            .contains("community"));
        fleet.shutdown().await;
    }
}
