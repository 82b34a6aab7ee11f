//! The simulator's provisioning over real SSH, driven by ponkeeper's own CLI client with
//! the scripts of `profile::provisioning`: each family (Huawei MA5800, ZTE C320 and C620,
//! BDCOM P3310 and GP3600) lists its unconfigured ONUs and its profiles where it has the
//! commands, refuses the scripts of its vendor's other family (a C620 is not a C320),
//! registers one ONU with its own (it leaves the list and enters the ONU table the SNMP
//! agent serves), refuses a taken index, an unknown profile and a registered serial with
//! its own message, and removes the ONU again (it shows up unconfigured once more).

use ponkeeper_actors::domain::{OnuStatus, Vendor};
use ponkeeper_actors::profile::commands::{port_values, render};
use ponkeeper_actors::profile::provisioning::Provisioning;
use ponkeeper_actors::profile::provisioning::SerialKind;
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

/// The scripts of the other family of `table`'s vendor (C320 on a C620, EPON on a
/// GP3600 and back) are refused with the device's own error, and nothing is registered.
async fn other_family_is_refused(
    session: &mut CliSession,
    table: &Provisioning,
    values: &HashMap<&str, String>,
) {
    for other in Provisioning::ALL {
        if other.vendor != table.vendor || other.layout == table.layout {
            continue;
        }
        let mut values = values.clone();
        values.insert("onu", "62".into());
        // The serial as the other family writes it, so only the dialect differs.
        if let Some(serial) = values.get("serial").and_then(|s| {
            let plain = s.replace(':', "");
            match other.serial_kind {
                SerialKind::Mac => None,
                _ => other.cli_serial(&plain),
            }
        }) {
            values.insert("serial", serial);
        }
        let refused = script(session, other.register, &values).await;
        let message =
            refused.unwrap_or_else(|| panic!("{} took the {} script", table.layout, other.layout));
        assert!(
            message.starts_with('%'),
            "{} refuses {} with its own error: {message}",
            table.layout,
            other.layout
        );
        let refused = script(session, other.deregister, &values).await;
        assert!(
            refused.is_some(),
            "{} took {}'s removal",
            table.layout,
            other.layout
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_family_registers_refuses_and_removes_over_ssh() {
    let fleet = SimFleet::start(FleetSpec {
        vendors: FleetVendors::EveryFamily,
        dynamics: Dynamics::none(),
        ..FleetSpec::new(10, 20)
    })
    .await
    .expect("fleet starts");
    for (i, layout) in Profile::ALL.into_iter().enumerate() {
        let olt = i as u32 + 1;
        assert_eq!(FleetVendors::EveryFamily.family_of_olt(i), layout.family);
        let (vendor, cli) = (layout.vendor, layout.cli);
        // A family whose provisioning no source gives has none to check here.
        let Some(table) = Provisioning::for_profile(layout) else {
            continue;
        };
        let target = CliTarget {
            addr: fleet.ssh_addr(olt).expect("ssh addr"),
            username: "ponkeeper".into(),
            password: DEFAULT_SSH_PASSWORD.into(),
            enable_password: None,
            host_key: None,
        };
        let mut session = CliSession::open(&target, cli, STEP).await.expect("login");
        let unconfigured = fleet.expected_unconfigured(olt);
        let (port, serial, _) = unconfigured.first().cloned().expect("an unconfigured ONU");
        if let Some(discovery) = table.discover {
            let listing = session
                .run(discovery.command, STEP)
                .await
                .expect("discovery");
            for (_, serial, _) in &unconfigured {
                let shown = match vendor {
                    Vendor::Huawei => format!("HWTC-{}", &serial[4..]),
                    Vendor::Bdcom => table.cli_serial(serial).expect("mac"),
                    _ => serial.clone(),
                };
                assert!(listing.contains(&shown), "{vendor}: {shown} in {listing}");
            }
        }
        for listing in table.profiles.unwrap_or(&[]) {
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
        other_family_is_refused(&mut session, table, &values).await;
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
