//! The simulator's SSH servers driven by ponkeeper's own CLI client, over real TCP on
//! 127.0.0.1: login and prompts per vendor, the pager answered, the running configuration
//! carrying every ONU's description and VLAN, and the action scripts changing what SNMP
//! serves.

use ponkeeper_actors::domain::{OnuStatus, Vendor};
use ponkeeper_actors::profile::commands::{port_values, render, service_vlans, CliProfile};
use ponkeeper_actors::profile::Profile;
use ponkeeper_actors::ssh::{CliError, CliSession, CliTarget};
use ponkeeper_sim::{Dynamics, FleetSpec, FleetVendors, SimFleet, DEFAULT_SSH_PASSWORD};
use std::collections::HashMap;
use std::time::Duration;

const STEP: Duration = Duration::from_secs(5);

async fn fleet() -> SimFleet {
    SimFleet::start(FleetSpec {
        vendors: FleetVendors::EveryFamily,
        dynamics: Dynamics::none(),
        reboot_time: Duration::from_millis(700),
        ..FleetSpec::new(5, 20)
    })
    .await
    .expect("fleet starts")
}

fn target(fleet: &SimFleet, olt: u32, password: &str) -> CliTarget {
    CliTarget {
        addr: fleet.ssh_addr(olt).expect("ssh addr"),
        username: "ponkeeper".into(),
        password: password.into(),
        host_key: None,
    }
}

/// Every OLT of [`fleet`] (one of each layout) with the CLI of its layout.
fn olts() -> Vec<(u32, &'static str, &'static CliProfile)> {
    (1..=5u32)
        .map(|olt| {
            let family = FleetVendors::EveryFamily.family_of_olt(olt as usize - 1);
            let layout = Profile::ALL
                .into_iter()
                .find(|p| p.family == family)
                .expect("a profile");
            (olt, family, layout.cli)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_vendor_logs_in_and_prints_a_config_with_each_onu() {
    let fleet = fleet().await;
    for (olt, vendor, cli) in olts() {
        let mut session = CliSession::open(&target(&fleet, olt, DEFAULT_SSH_PASSWORD), cli, STEP)
            .await
            .expect("login");
        assert_eq!(session.host(), format!("OLT-{olt}"));
        let config = session.run(cli.running_config, STEP).await.expect("config");
        assert_eq!(
            Some(config.trim_end()),
            fleet.running_config(olt).as_deref().map(str::trim_end),
            "{vendor}: the whole configuration, without echo or prompt"
        );
        let vlans = service_vlans(cli, &config);
        for onu in fleet.expected_onus(olt) {
            assert!(
                config.contains(&onu.description),
                "{vendor}: {}",
                onu.description
            );
            assert_eq!(
                vlans.get(&(onu.pon_port.clone(), onu.onu_index)).copied(),
                fleet.service_vlan(olt, &onu.serial),
                "{vendor}: VLAN of {}",
                onu.serial
            );
        }
        assert!(vlans.len() == 20, "{vendor}: {} VLANs", vlans.len());
        let log = fleet.command_log(olt);
        assert_eq!(log.last().map(String::as_str), Some(cli.running_config));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pager_is_answered_when_it_was_not_turned_off() {
    let fleet = fleet().await;
    let cli = Profile::for_vendor(Vendor::Huawei).cli;
    let mut session = CliSession::login(&target(&fleet, 1, DEFAULT_SSH_PASSWORD), cli, STEP)
        .await
        .expect("login");
    session.run("enable", STEP).await.expect("enable");
    let config = session.run(cli.running_config, STEP).await.expect("config");
    assert!(!config.contains("More"), "pager text removed");
    assert!(!config.contains('\u{1b}'), "escape sequences removed");
    assert_eq!(
        Some(config.trim_end()),
        fleet.running_config(1).as_deref().map(str::trim_end)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_password_is_refused_and_unknown_commands_are_rejected() {
    let fleet = fleet().await;
    let cli = Profile::for_vendor(Vendor::Zte).cli;
    let refused = CliSession::open(&target(&fleet, 2, "wrong"), cli, STEP).await;
    assert!(matches!(refused, Err(CliError::Login(_))));
    let mut session = CliSession::open(&target(&fleet, 2, DEFAULT_SSH_PASSWORD), cli, STEP)
        .await
        .expect("login");
    match session.run("format flash", STEP).await {
        Err(CliError::Rejected { message, .. }) => {
            assert_eq!(message, "%Error 20203: Incorrect command.")
        }
        other => panic!("expected a rejection, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripts_change_vlan_description_and_reboot_the_onu() {
    let fleet = fleet().await;
    for (olt, vendor, cli) in olts() {
        let onu = fleet
            .expected_onus(olt)
            .into_iter()
            .find(|o| o.status == OnuStatus::Online)
            .expect("an online ONU");
        let mut values: HashMap<&str, String> = port_values(&onu.pon_port).into_iter().collect();
        values.insert("onu", onu.onu_index.to_string());
        values.insert("vlan", "300".into());
        values.insert("description", "flat 7, Baumana 1".into());
        let mut session = CliSession::open(&target(&fleet, olt, DEFAULT_SSH_PASSWORD), cli, STEP)
            .await
            .expect("login");
        for script in [cli.set_vlan, cli.set_description, cli.reboot] {
            for line in script {
                session
                    .run(&render(line, &values), STEP)
                    .await
                    .unwrap_or_else(|e| panic!("{vendor}: {e}"));
            }
        }
        let now = fleet
            .expected_onus(olt)
            .into_iter()
            .find(|o| o.serial == onu.serial)
            .expect("still there");
        assert_eq!(now.description, "flat 7, Baumana 1", "{vendor}");
        assert_eq!(now.status, OnuStatus::Offline, "{vendor}: rebooting");
        assert_eq!(fleet.service_vlan(olt, &onu.serial), Some(300), "{vendor}");
        // Back in privileged mode: the prompt ends with `#` and no mode.
        session.run(cli.running_config, STEP).await.expect("config");
    }
    tokio::time::sleep(Duration::from_millis(1200)).await;
    for olt in 1..=5 {
        let back = fleet
            .expected_onus(olt)
            .into_iter()
            .filter(|o| o.status == OnuStatus::Offline)
            .count();
        let before = fleet.expected_onus(olt).len();
        assert!(back < before, "ONUs come back after the reboot time");
    }
}
