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
        ..FleetSpec::new(Profile::ALL.len(), 20)
    })
    .await
    .expect("fleet starts")
}

fn target(fleet: &SimFleet, olt: u32, password: &str) -> CliTarget {
    CliTarget {
        addr: fleet.ssh_addr(olt).expect("ssh addr"),
        username: "ponkeeper".into(),
        password: password.into(),
        enable_password: None,
        host_key: None,
    }
}

/// Every OLT of [`fleet`] (one of each layout) with the CLI of its layout.
fn olts() -> Vec<(u32, &'static str, &'static CliProfile)> {
    (1..=Profile::ALL.len() as u32)
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
        // SNR: no public source shows its configuration; ponkeeper never asks for it.
        if cli.running_config.is_empty() {
            continue;
        }
        let config = session.run(cli.running_config, STEP).await.expect("config");
        assert_eq!(
            Some(config.trim_end()),
            fleet.running_config(olt).as_deref().map(str::trim_end),
            "{vendor}: the whole configuration, without echo or prompt"
        );
        let vlans = service_vlans(cli, &config);
        for onu in fleet.expected_onus(olt) {
            assert!(
                config.contains(onu.description.as_str()),
                "{vendor}: {}",
                onu.description
            );
            // Where VLANs come from profiles (Eltex) or no source shows the line, the
            // configuration names none.
            let expected = match cli.vlan_line.is_empty() {
                true => None,
                false => fleet.service_vlan(olt, &onu.serial),
            };
            assert_eq!(
                vlans
                    .get(&(onu.pon_port.to_string(), onu.onu_index))
                    .copied(),
                expected,
                "{vendor}: VLAN of {}",
                onu.serial
            );
        }
        let expected = if cli.vlan_line.is_empty() { 0 } else { 20 };
        assert!(vlans.len() == expected, "{vendor}: {} VLANs", vlans.len());
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
        // A script no source gives is empty: the API answers 501 for it instead.
        if !cli.set_description.is_empty() {
            assert_eq!(now.description, "flat 7, Baumana 1", "{vendor}");
        }
        if !cli.reboot.is_empty() {
            assert_eq!(now.status, OnuStatus::Offline, "{vendor}: rebooting");
        }
        if !cli.set_vlan.is_empty() {
            assert_eq!(fleet.service_vlan(olt, &onu.serial), Some(300), "{vendor}");
        }
        // Back in privileged mode: the prompt ends with `#` and no mode.
        if !cli.running_config.is_empty() {
            session.run(cli.running_config, STEP).await.expect("config");
        }
    }
    // Every family whose commands a source gives has them: Eltex and C-Data reboot and
    // describe, the V1600G describes.
    let known: Vec<(&str, bool, bool)> = olts()
        .into_iter()
        .map(|(_, family, cli)| {
            (
                family,
                !cli.reboot.is_empty(),
                !cli.set_description.is_empty(),
            )
        })
        .collect();
    for (family, reboot, describe) in [
        ("LTP-8X / LTP-4X (GPON)", true, true),
        ("FD16xx (GPON)", true, true),
        ("V1600G / V1600GS (GPON)", false, true),
        ("V1600D (EPON)", false, false),
        ("SNR-OLT-GPON", false, false),
    ] {
        assert!(known.contains(&(family, reboot, describe)), "{family}");
    }
    tokio::time::sleep(Duration::from_millis(1200)).await;
    for (olt, _, cli) in olts() {
        if cli.reboot.is_empty() {
            continue;
        }
        let back = fleet
            .expected_onus(olt)
            .into_iter()
            .filter(|o| o.status == OnuStatus::Offline)
            .count();
        let before = fleet.expected_onus(olt).len();
        assert!(back < before, "ONUs come back after the reboot time");
    }
}
