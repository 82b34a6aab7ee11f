//! The simulator's provisioning over real SSH, driven by ponkeeper's own CLI client with
//! the vendor scripts of `profile::provisioning`: each vendor lists its unconfigured ONUs
//! and its profiles, registers one (it leaves the list and enters the ONU table the SNMP
//! agent serves), refuses a taken index, an unknown profile and a registered serial with
//! its own message, and removes the ONU again (it shows up unconfigured once more).

use ponkeeper_actors::domain::{OnuStatus, Vendor};
use ponkeeper_actors::profile::commands::{port_values, render};
use ponkeeper_actors::profile::provisioning::Provisioning;
use ponkeeper_actors::profile::Profile;
use ponkeeper_actors::ssh::{CliError, CliSession, CliTarget};
use ponkeeper_sim::{Dynamics, FleetSpec, FleetVendors, SimFleet, DEFAULT_SSH_PASSWORD};
use std::collections::HashMap;
use std::time::Duration;

const STEP: Duration = Duration::from_secs(5);

/// Runs `script` with `values`; the first refusal's message, if any.
async fn script(
    session: &mut CliSession,
    script: &[&str],
    values: &HashMap<&str, String>,
) -> Option<String> {
    for template in script {
        match session.run(&render(template, values), STEP).await {
            Ok(_) => {}
            Err(CliError::Rejected { message, .. }) => {
                session.leave(STEP).await.expect("back to privileged mode");
                return Some(message);
            }
            Err(other) => panic!("{template}: {other}"),
        }
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_vendor_registers_refuses_and_removes_over_ssh() {
    let fleet = SimFleet::start(FleetSpec {
        vendors: FleetVendors::Mixed,
        dynamics: Dynamics::none(),
        ..FleetSpec::new(3, 20)
    })
    .await
    .expect("fleet starts");
    for (olt, vendor) in [(1, Vendor::Huawei), (2, Vendor::Zte), (3, Vendor::Bdcom)] {
        let cli = Profile::for_vendor(vendor).cli;
        let table = Provisioning::for_vendor(vendor);
        let target = CliTarget {
            addr: fleet.ssh_addr(olt).expect("ssh addr"),
            username: "ponkeeper".into(),
            password: DEFAULT_SSH_PASSWORD.into(),
            host_key: None,
        };
        let mut session = CliSession::open(&target, cli, STEP).await.expect("login");
        let unconfigured = fleet.expected_unconfigured(olt);
        let (port, serial, _) = unconfigured.first().cloned().expect("an unconfigured ONU");
        let listing = session.run(table.discover, STEP).await.expect("discovery");
        for (_, serial, _) in &unconfigured {
            let shown = match vendor {
                Vendor::Huawei => format!("HWTC-{}", &serial[4..]),
                Vendor::Bdcom => table.cli_serial(serial).expect("mac"),
                Vendor::Zte => serial.clone(),
            };
            assert!(listing.contains(&shown), "{vendor}: {shown} in {listing}");
        }
        for listing in table.profiles {
            let text = session.run(listing.command, STEP).await.expect("profiles");
            assert!(text.contains("10") || text.contains("ZTE-F660"), "{text}");
        }
        let mut values: HashMap<&str, String> = port_values(&port).into_iter().collect();
        values.insert("serial", table.cli_serial(&serial).expect("serial"));
        values.insert("line", "99".into());
        values.insert("service", "10".into());
        values.insert("onu_type", "ZTE-F999".into());
        let taken = fleet
            .expected_onus(olt)
            .into_iter()
            .find(|o| o.pon_port == port)
            .expect("an ONU on the port");
        values.insert("onu", taken.onu_index.to_string());
        if vendor != Vendor::Bdcom {
            assert_eq!(
                script(&mut session, table.register, &values)
                    .await
                    .as_deref(),
                Some(table.refuse_unknown_profile.trim()),
                "{vendor}"
            );
        }
        values.insert("onu_type", "ZTE-F660".into());
        values.insert("line", "10".into());
        assert_eq!(
            script(&mut session, table.register, &values)
                .await
                .as_deref(),
            Some(table.refuse_index_taken.trim()),
            "{vendor}"
        );
        values.insert("onu", "60".into());
        assert_eq!(script(&mut session, table.register, &values).await, None);
        let onu = fleet
            .expected_onus(olt)
            .into_iter()
            .find(|o| o.serial == serial)
            .expect("registered");
        assert_eq!((onu.pon_port.as_str(), onu.onu_index), (port.as_str(), 60));
        assert_eq!(onu.status, OnuStatus::Online);
        assert!(fleet
            .expected_unconfigured(olt)
            .iter()
            .all(|(_, s, _)| *s != serial));
        values.insert("onu", "61".into());
        assert_eq!(
            script(&mut session, table.register, &values)
                .await
                .as_deref(),
            Some(table.refuse_serial_taken.trim()),
            "{vendor}"
        );
        values.insert("onu", "60".into());
        assert_eq!(script(&mut session, table.deregister, &values).await, None);
        assert!(fleet.expected_onus(olt).iter().all(|o| o.serial != serial));
        assert!(fleet
            .expected_unconfigured(olt)
            .iter()
            .any(|(p, s, _)| *s == serial && *p == port));
    }
}
