//! The `ponkeeper` command line: `serve`, `demo`, `sim`, `keys` (docs/operations.md) and `mcp` (docs/api.md,
//! "MCP server"). Logs go to stderr so that stdout carries only what a command promises (a new key,
//! an inventory, MCP messages).

use anyhow::Context;
use clap::{Parser, Subcommand, ValueEnum};
use ponkeeper::admin::{self, AdminRequest};
use ponkeeper::app::{shutdown_signal, App};
use ponkeeper::config::Config;
use ponkeeper::demo::{self, DemoOptions};
use ponkeeper::keys::{self, NewKey};
use ponkeeper::records::{AccessLevel, Records};
use ponkeeper_actors::domain::Vendor;
use ponkeeper_sim::{Dynamics, FaultSpec, FleetSpec, FleetVendors, SimFleet};
use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;

/// jemalloc, not the system allocator: a poll decodes a million varbinds a second into
/// short-lived rows, and with glibc's malloc a fifth of a cycle's CPU went to malloc and
/// free. Measured at 10,000 OLTs (docs/benchmarks.md, 2026-11-26 23:30 UTC): CPU per
/// cycle 17.3 s -> 9.6 s, `serve` resident after the first poll 2,325 -> 1,860 MB. Its
/// options (a background thread returning idle pages after a second) are compiled in from
/// `.cargo/config.toml`.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[derive(Parser)]
#[command(
    name = "ponkeeper",
    version,
    about = "Manages and monitors an ISP's optical access network"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the service.
    Serve {
        #[arg(long, default_value = "config/ponkeeper.toml")]
        config: PathBuf,
    },
    /// Start a simulated fleet and the service on it, with keys and curl lines to try.
    Demo(DemoOptions),
    /// Run only a simulated OLT fleet (real SNMP agents on loopback).
    Sim(SimOptions),
    /// Measure ponkeeper (see docs/benchmarks.md).
    Bench {
        #[command(subcommand)]
        kind: BenchKind,
    },
    /// MCP server on stdin/stdout for desktop agents, bridging to a running service's REST API.
    Mcp {
        /// The running service, e.g. http://127.0.0.1:8080.
        #[arg(long, env = "PK_MCP_URL")]
        url: String,
        /// Its API key; READ_ONLY keys see only the read tools.
        #[arg(long, env = "PK_MCP_API_KEY", hide_env_values = true)]
        api_key: String,
    },
    /// Write a snapshot of the data directory to FILE (through a running service, or directly).
    Backup {
        #[arg(long, default_value = "config/ponkeeper.toml")]
        config: PathBuf,
        /// Written new, mode 0600.
        #[arg(long)]
        out: PathBuf,
        /// Write it even into a directory every local user may write (e.g. /tmp).
        #[arg(long)]
        force: bool,
    },
    /// Restore a snapshot into the config's data directory, which must be empty or absent.
    Restore {
        #[arg(long, default_value = "config/ponkeeper.toml")]
        config: PathBuf,
        #[arg(long)]
        from: PathBuf,
    },
    /// What the history will take on disk.
    Storage {
        #[command(subcommand)]
        action: StorageAction,
    },
    /// Manage API keys (works with the service running or stopped).
    Keys {
        #[arg(long, global = true, default_value = "config/ponkeeper.toml")]
        config: PathBuf,
        #[command(subcommand)]
        action: KeysAction,
    },
}

#[derive(Subcommand)]
enum BenchKind {
    /// Full poll cycles of a simulated fleet through the real actors, with baselines.
    Poll(ponkeeper::bench::PollBenchOptions),
    /// Events end to end through the real `serve`: E1 trap to stream, E2 fan-out to
    /// stream subscribers, E3 `kill -9` under webhook delivery.
    Events(ponkeeper::bench::events::EventBenchOptions),
    /// History H1–H4: a simulated year of the default schedule through the real store,
    /// housekeeping, chart reads.
    History(ponkeeper::bench::history::HistoryBenchOptions),
    /// The A1 baseline for benches/api_load.sh: a bare axum handler, constant JSON.
    #[command(hide = true)]
    BaselineHttp {
        #[arg(long, default_value = "127.0.0.1:18080")]
        listen: std::net::SocketAddr,
        /// Answer with this file's bytes instead of the built-in body (to compare answers
        /// of the same size).
        #[arg(long)]
        body_file: Option<PathBuf>,
    },
}

#[derive(Subcommand)]
enum StorageAction {
    /// Bytes the traffic and optics history adds a day and keeps at steady state, per
    /// series and tier, from the ONUs polled and the config's schedule and retentions.
    Estimate {
        #[arg(long, default_value = "config/ponkeeper.toml")]
        config: PathBuf,
        /// ONUs polled (instead of `--onus-per-olt` for each enabled OLT of the inventory).
        #[arg(long)]
        onus: Option<u64>,
        /// ONUs each enabled OLT of the inventory is taken to serve (an inventory lists
        /// OLTs only).
        #[arg(long, default_value_t = 128)]
        onus_per_olt: u64,
        /// Print only the JSON estimate.
        #[arg(long)]
        json: bool,
    },
}

#[derive(clap::Args)]
struct SimOptions {
    #[arg(long)]
    olts: usize,
    #[arg(long, default_value_t = 64)]
    onus_per_olt: usize,
    /// Vendor of every OLT; `mixed`: Huawei, ZTE and BDCOM in turn; `every-family`: every
    /// table layout in turn (MA5800, C320, P3310, C620, GP3600).
    #[arg(long, value_enum, default_value_t = SimVendor::Huawei)]
    vendor: SimVendor,
    /// OLT n listens on base-port + n - 1.
    #[arg(long, default_value_t = 16100)]
    base_port: u16,
    /// The same seed gives the same fleet.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value = "127.0.0.1")]
    bind: IpAddr,
    /// Keep every ONU steady (no flapping, no drift).
    #[arg(long)]
    steady: bool,
    /// Write the inventory here instead of printing it.
    #[arg(long)]
    inventory_out: Option<PathBuf>,
    /// How long an ONU rebooted over SSH stays offline.
    #[arg(long, default_value_t = 20)]
    reboot_seconds: u64,
    /// Faults to inject from the start: `;`-separated rules KIND[:PARAM]@TARGETS, e.g.
    /// 'hang@1-100;slow:300ms@200;ssh-mute@5;los:0/1/0:1-12@3'. Kinds: hang, drop:PCT,
    /// slow:DURATION, garbage, malformed, wrong-id, oversized, gone, ssh-mute, ssh-drop,
    /// and ONU groups los:PORT:FIRST-LAST (those ONUs of the port lose light) and
    /// dying-gasp:PORT:FIRST-LAST (they lose power), PORT as the API shows ponPort;
    /// targets: all, N% (the first OLTs by id), or ids and ranges such as 1,3,10-20.
    #[arg(long, value_name = "SPEC", value_parser = parse_fault_spec)]
    faults: Option<FaultSpec>,
    /// Unix socket for changing faults at run time and reading the request and ONU read
    /// counters: one request a line (`set SPEC`, `clear [TARGETS]` (ONU groups come back
    /// online at once), `show`, `stats [reset]`), one reply a line (`ok ...` or
    /// `error: ...`).
    #[arg(long, value_name = "PATH")]
    control: Option<PathBuf>,
    /// Also answer SNMPv3 (USM, SHA-256 + AES-128) for this user, and write an inventory
    /// that polls over v3 with the passwords in $SIM_SNMP_AUTH and $SIM_SNMP_PRIV.
    #[arg(long, value_name = "USER:AUTHPASS:PRIVPASS")]
    snmp_v3: Option<ponkeeper_sim::usm::SimUsmUser>,
    /// OLTs per UDP socket, told apart by community `public-<id>` and without SSH (socket
    /// n listens on base-port + n - 1). Default: 1 up to 5,000 OLTs, else 100, so that a
    /// national fleet fits the file-descriptor limit.
    #[arg(long, value_name = "N")]
    olts_per_socket: Option<usize>,
    /// Send an SNMPv2c trap to this address (ponkeeper's `traps.listen`) whenever an
    /// OLT's ONUs go down or come back.
    #[arg(long, value_name = "HOST:PORT")]
    trap_target: Option<std::net::SocketAddr>,
    /// OMCI time an OLT spends per ONU whose optics (Rx/Tx power, temperature, voltage,
    /// bias) one answer carries; an OLT serves one such answer at a time, as a real OLT
    /// asks its ONUs one at a time. `0s` makes optics free.
    #[arg(long, value_name = "DURATION", default_value = "3ms", value_parser = humantime::parse_duration)]
    omci_cost: std::time::Duration,
    /// Warn whenever an ONU's optics are read more often than N per hour (sooner than
    /// an hour / N after its previous optics read).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    max_optics_per_hour: Option<u32>,
}

fn parse_fault_spec(text: &str) -> Result<FaultSpec, String> {
    text.parse()
        .map_err(|e: ponkeeper_sim::FaultSpecError| e.to_string())
}

#[derive(Clone, Copy, ValueEnum)]
enum SimVendor {
    Huawei,
    Zte,
    Bdcom,
    Eltex,
    Vsol,
    Cdata,
    Snr,
    Mixed,
    EveryFamily,
}

impl From<SimVendor> for FleetVendors {
    fn from(vendor: SimVendor) -> FleetVendors {
        match vendor {
            SimVendor::Huawei => FleetVendors::One(Vendor::Huawei),
            SimVendor::Zte => FleetVendors::One(Vendor::Zte),
            SimVendor::Bdcom => FleetVendors::One(Vendor::Bdcom),
            SimVendor::Eltex => FleetVendors::One(Vendor::Eltex),
            SimVendor::Vsol => FleetVendors::One(Vendor::Vsol),
            SimVendor::Cdata => FleetVendors::One(Vendor::Cdata),
            SimVendor::Snr => FleetVendors::One(Vendor::Snr),
            SimVendor::Mixed => FleetVendors::Mixed,
            SimVendor::EveryFamily => FleetVendors::EveryFamily,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
#[allow(clippy::upper_case_acronyms)]
enum Level {
    #[value(name = "READ_ONLY")]
    ReadOnly,
    #[value(name = "FULL")]
    Full,
}

#[derive(Subcommand)]
enum KeysAction {
    /// Create a key and print it (once) on stdout.
    Create {
        #[arg(long)]
        name: String,
        #[arg(long, value_enum)]
        level: Level,
        /// e.g. 100/s or 600/m; default: rate_limit.default
        #[arg(long)]
        rate: Option<String>,
        /// Address or CIDR the key may be used from; repeatable.
        #[arg(long = "allow-ip")]
        allow_ip: Vec<String>,
        /// Take the key from this environment variable instead of making one: a key
        /// another cluster member's `keys create` printed, so it works on every member.
        #[arg(long = "key-env", value_name = "VARIABLE")]
        key_env: Option<String>,
    },
    /// List keys (never the keys themselves).
    List,
    /// Revoke a key by name.
    Revoke { name: String },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // A benchmark's output is its figures, and the demo's is its banner: only warnings
    // unless RUST_LOG says otherwise. rmcp logs every MCP request at INFO: warnings only.
    let default_level = match cli.command {
        Command::Bench { .. } | Command::Demo(_) => "warn",
        _ => "info,rmcp=warn",
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        // Colour codes only for a terminal, never into a file or a journal.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_level)),
        )
        .init();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli.command)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Serve { config } => {
            let config = Config::load_to_serve(&config)?;
            let listener = tokio::net::TcpListener::bind(config.listen)
                .await
                .with_context(|| format!("cannot listen on {}", config.listen))?;
            let app = App::start(config).await?;
            tracing::info!("Listening on http://{}", listener.local_addr()?);
            app.serve(listener, shutdown_signal()).await
        }
        Command::Demo(options) => demo::run(options).await,
        Command::Sim(options) => simulate(options).await,
        Command::Bench { kind } => bench(kind).await,
        Command::Mcp { url, api_key } => ponkeeper::mcp::serve_stdio(&url, &api_key).await,
        Command::Backup { config, out, force } => {
            let summary = ponkeeper::backup::backup(&Config::load(&config)?, &out, force).await?;
            println!(
                "backup written to {}: {} trees, {} entries",
                out.display(),
                summary.trees,
                summary.entries
            );
            Ok(())
        }
        Command::Restore { config, from } => {
            let config = Config::load(&config)?;
            let summary = ponkeeper::backup::restore(&config, &from).await?;
            println!(
                "restored {} into {}: {} trees, {} entries",
                from.display(),
                config.data_dir.display(),
                summary.trees,
                summary.entries
            );
            Ok(())
        }
        Command::Storage {
            action:
                StorageAction::Estimate {
                    config,
                    onus,
                    onus_per_olt,
                    json,
                },
        } => storage_estimate(&Config::load(&config)?, onus, onus_per_olt, json),
        Command::Keys { config, action } => keys_command(&Config::load(&config)?, action).await,
    }
}

/// `ponkeeper bench …`: runs one benchmark and prints its figures on stdout.
async fn bench(kind: BenchKind) -> anyhow::Result<()> {
    match kind {
        BenchKind::BaselineHttp { listen, body_file } => {
            ponkeeper::bench::baseline_http::serve(listen, body_file.as_deref()).await
        }
        BenchKind::Events(options) => {
            let json = options.json;
            let result = ponkeeper::bench::events::run(options).await?;
            if !json {
                println!(
                    "E1 {:.0} ms (median), E2 {:.0} ms for {} subscribers, E3 {} events: {} lost, in order: {}",
                    result.e1_ms_median,
                    result.e2_ms,
                    result.e2_subscribers,
                    result.e3.events,
                    result.e3.lost,
                    result.e3.in_order
                );
            }
            println!("{}", serde_json::to_string(&result)?);
            Ok(())
        }
        BenchKind::History(options) => {
            let json = options.json;
            let result =
                tokio::task::spawn_blocking(move || ponkeeper::bench::history::run(&options))
                    .await??;
            if !json {
                print!("{}", result.table());
            }
            println!("{}", serde_json::to_string(&result)?);
            Ok(())
        }
        BenchKind::Poll(options) if options.schedule => {
            let result = ponkeeper::bench::schedule::run(&options).await?;
            if !options.json {
                println!(
                    "S1 sweep {:.2} s wall, {:.2} s CPU; S2 {:?} s CPU an hour; S3 {:?} ms (polls, traps); S4 pass {:?}",
                    result.s1.wall_seconds_median,
                    result.s1.cpu_seconds_median,
                    result.s2.as_ref().map(|s2| s2.cpu_seconds_per_hour.round()),
                    result.s3.as_ref().map(|s3| (s3.polls_ms_max.round(), s3.traps_ms_max.round())),
                    result.s4.as_ref().map(|s4| (s4.pass, s4.pass_by_design)),
                );
            }
            println!("{}", serde_json::to_string(&result)?);
            Ok(())
        }
        BenchKind::Poll(options) => {
            let json = options.json;
            let result = ponkeeper::bench::poll(options).await?;
            if json {
                println!("{}", serde_json::to_string(&result)?);
            } else {
                println!(
                    "{} OLTs, {} ONUs: median cycle {:.2} s over {} cycles, {:.2} s CPU a cycle, {:.0} varbinds/s, RSS {} MB",
                    result.olts,
                    result.onus,
                    result.cycle_seconds_median,
                    result.cycles,
                    result.poller_cpu_seconds,
                    result.varbinds_per_second,
                    result.rss_bytes / 1_000_000
                );
                println!("{}", serde_json::to_string_pretty(&result)?);
            }
            Ok(())
        }
    }
}

/// `ponkeeper storage estimate`: the history's bytes for the config's ONUs
/// ([`ponkeeper::storage`]).
fn storage_estimate(
    config: &Config,
    onus: Option<u64>,
    onus_per_olt: u64,
    json: bool,
) -> anyhow::Result<()> {
    use ponkeeper::storage;
    let (onus, how) = match onus {
        Some(onus) => (onus, "given by --onus".to_string()),
        None => {
            let inventory = ponkeeper_actors::inventory::Inventory::load(&config.inventory)
                .with_context(|| format!("cannot read {}", config.inventory.display()))?;
            let olts = inventory.olts.iter().filter(|olt| olt.enabled).count();
            let how = format!(
                "{olts} enabled OLTs of {} × {onus_per_olt} ONUs each (--onus-per-olt: an inventory lists no ONUs)",
                config.inventory.display()
            );
            (storage::onus_of(&inventory, None, onus_per_olt), how)
        }
    };
    let schedule = storage::Schedule::of(config);
    let histories = (&config.traffic_history(), &config.optics_history());
    let estimate = storage::estimate(onus, schedule, histories, &storage::MEASURED);
    if json {
        println!("{}", serde_json::to_string(&estimate)?);
    } else {
        print!("{}", storage::render(&estimate, schedule, &how));
    }
    Ok(())
}

async fn simulate(options: SimOptions) -> anyhow::Result<()> {
    let snmp_v3 = options.snmp_v3.clone();
    let mut fleet = SimFleet::start_with_snmp_v3(
        FleetSpec {
            olts: options.olts,
            onus_per_olt: options.onus_per_olt,
            vendors: options.vendor.into(),
            base_port: options.base_port,
            seed: options.seed,
            bind: options.bind,
            dynamics: if options.steady {
                Dynamics::none()
            } else {
                Dynamics::default()
            },
            ssh_password: std::env::var(ponkeeper_sim::SSH_PASSWORD_ENV)
                .unwrap_or_else(|_| ponkeeper_sim::DEFAULT_SSH_PASSWORD.to_string()),
            reboot_time: std::time::Duration::from_secs(options.reboot_seconds),
            olts_per_socket: sim_olts_per_socket(&options),
            omci_cost: options.omci_cost,
            max_optics_per_hour: options.max_optics_per_hour,
        },
        snmp_v3,
    )
    .await
    .map_err(|e| sim_start_error(e, &options))?;
    if let Some(target) = options.trap_target {
        fleet.send_traps_to(target);
    }
    if let Some(spec) = &options.faults {
        fleet.apply_faults(spec)?;
        eprintln!("faults injected: {}", fleet.fault_spec());
    }
    if let Some(path) = &options.control {
        fleet
            .serve_control(path)
            .with_context(|| format!("cannot open the control socket {}", path.display()))?;
        eprintln!(
            "fault control on {} (set SPEC | clear [TARGETS] | show | stats [reset])",
            path.display()
        );
    }
    eprintln!(
        "SSH: user {}, password from {} (or `{}` when it is unset); export it for `serve`",
        ponkeeper_sim::SSH_USERNAME,
        ponkeeper_sim::SSH_PASSWORD_ENV,
        ponkeeper_sim::DEFAULT_SSH_PASSWORD
    );
    if let Some(user) = &options.snmp_v3 {
        eprintln!(
            "SNMPv3: user {}, SHA-256 + AES-128; export {} and {} with its passwords for `serve`",
            user.user,
            ponkeeper_sim::usm::AUTH_PASSWORD_ENV,
            ponkeeper_sim::usm::PRIV_PASSWORD_ENV
        );
    }
    let inventory = fleet.inventory().to_toml();
    match &options.inventory_out {
        Some(path) => {
            // It holds the SNMP community: the owner's alone.
            ponkeeper::data_dir::write_private(path, inventory.as_bytes())
                .with_context(|| format!("cannot write {}", path.display()))?;
            eprintln!("inventory written to {}", path.display());
        }
        None => print!("{inventory}"),
    }
    eprintln!(
        "simulating {} OLTs × {} ONUs on {}; Ctrl-C stops",
        options.olts, options.onus_per_olt, options.bind
    );
    shutdown_signal().await;
    fleet.shutdown().await;
    if let Some(path) = &options.control {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// OLTs per simulated UDP socket: as asked, else one each up to 5,000 OLTs and 100
/// beyond (10,000 OLTs with a socket and an SSH port each pass a 20,000-descriptor limit).
fn sim_olts_per_socket(options: &SimOptions) -> usize {
    match options.olts_per_socket {
        Some(n) => n.max(1),
        None if options.olts > 5_000 => 100,
        None => 1,
    }
}

/// Why the simulator did not start; a port in use gets the range it needs and the option
/// that moves it.
fn sim_start_error(error: std::io::Error, options: &SimOptions) -> anyhow::Error {
    if error.kind() != std::io::ErrorKind::AddrInUse {
        return anyhow::anyhow!("cannot start the simulated fleet: {error}");
    }
    let sockets = options.olts.div_ceil(sim_olts_per_socket(options));
    let last = usize::from(options.base_port).saturating_add(sockets.saturating_sub(1));
    anyhow::anyhow!(
        "cannot start the simulated fleet: {error}. The fleet needs UDP and TCP ports {}-{last} \
         on {} (is another `ponkeeper sim` running?); choose a free range with --base-port PORT",
        options.base_port,
        options.bind
    )
}

async fn keys_command(config: &Config, action: KeysAction) -> anyhow::Result<()> {
    let request = match action {
        KeysAction::Create {
            name,
            level,
            rate,
            allow_ip,
            key_env,
        } => AdminRequest::Create(NewKey {
            name,
            level: match level {
                Level::ReadOnly => AccessLevel::ReadOnly,
                Level::Full => AccessLevel::Full,
            },
            rate,
            allow_ip,
            key: match key_env {
                Some(variable) => Some(std::env::var(&variable).map_err(|_| {
                    anyhow::anyhow!("--key-env: the environment variable {variable} is not set")
                })?),
                None => None,
            },
        }),
        KeysAction::List => AdminRequest::List,
        KeysAction::Revoke { name } => AdminRequest::Revoke { name },
    };
    // A running service holds the store: ask it. Otherwise open the store ourselves.
    let response = match admin::request(&config.data_dir, &request).await? {
        Some(response) => response,
        None => keys_offline(config, request).await?,
    };
    if let Some(error) = response.error {
        anyhow::bail!(error);
    }
    if let Some(key) = response.key {
        println!("{key}");
    } else if let Some(listing) = response.keys {
        let clock = ponkeeper::clock::Clock::from_config(&config.timezone)?;
        print!(
            "{}",
            keys::render(&listing, &clock, &config.rate_limit.default)
        );
    } else {
        eprintln!("revoked");
    }
    Ok(())
}

/// `ponkeeper keys` with no service running: on the store opened here, which may be the
/// first command to create it ([`ponkeeper::data_dir::open_store`]); what the store wrote
/// is made owner-only once it is closed.
async fn keys_offline(
    config: &Config,
    request: AdminRequest,
) -> anyhow::Result<admin::AdminResponse> {
    let store = ponkeeper::data_dir::open_store(&config.data_dir)?;
    let records = Records::open(&store)?;
    let configured = &config.api_keys;
    let outcome = match request {
        AdminRequest::Create(new_key) => keys::create(&records, None, configured, new_key)
            .await
            .map(|key| admin::AdminResponse {
                key: Some(key),
                ..Default::default()
            }),
        AdminRequest::List => keys::list(&records, configured).map(|keys| admin::AdminResponse {
            keys: Some(keys),
            ..Default::default()
        }),
        AdminRequest::Revoke { name } => keys::revoke(&records, None, configured, &name)
            .await
            .map(|()| admin::AdminResponse::default()),
        AdminRequest::Backup => Err("backups are `ponkeeper backup`".to_string()),
    };
    store.flush().await?;
    drop((records, store));
    ponkeeper::data_dir::restrict(&config.data_dir).with_context(|| {
        format!(
            "cannot make the files in data_dir {} owner-only",
            config.data_dir.display()
        )
    })?;
    Ok(outcome.unwrap_or_else(|error| admin::AdminResponse {
        error: Some(error),
        ..Default::default()
    }))
}
