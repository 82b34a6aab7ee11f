//! Unit tests of the simulator's provisioning: the lines of each family's scripts move an
//! ONU between the unconfigured list and the ONU table, refusals leave both alone, the
//! other family's lines are not the device's, and the MIB view serves the unconfigured
//! table.

use super::*;
use crate::mib::{AnswerContext, MibView};
use ponkeeper_actors::domain::Vendor;

fn fresh(vendor: Vendor) -> (SimOlt, &'static SimVendor) {
    let sim = SimVendor::for_vendor(vendor);
    (SimOlt::generate(sim, 5, 1, 40, 0), sim)
}

fn run(olt: &mut SimOlt, vendor: &SimVendor, mode: &[(&str, &str)], line: &str) -> String {
    let values = mode
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    command(olt, vendor, &values, 3, line).expect("a provisioning line")
}

#[test]
fn some_ports_start_with_unconfigured_onus() {
    for vendor in Vendor::ALL {
        let (olt, sim) = fresh(vendor);
        // A family whose provisioning no source gives shows no unconfigured ONUs.
        let expected = match Provisioning::for_profile(sim.profile) {
            Some(_) => olt.ports.len().div_ceil(PORT_STRIDE),
            None => 0,
        };
        assert_eq!(olt.provisioning.unconfigured.len(), expected, "{vendor}");
        let keys: Vec<[u32; 2]> = olt
            .provisioning
            .unconfigured
            .iter()
            .map(|u| u.key)
            .collect();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        assert_eq!(keys, sorted);
        for u in &olt.provisioning.unconfigured {
            assert!(olt.onus.iter().all(|o| o.serial != u.serial));
            assert_eq!(u.port % PORT_STRIDE, 0);
            let text = serial_text(sim, &u.serial);
            assert_eq!(text.len(), if vendor == Vendor::Bdcom { 17 } else { 12 });
        }
    }
}

#[test]
fn huawei_registers_refuses_and_removes() {
    let (mut olt, sim) = fresh(Vendor::Huawei);
    let first = olt.provisioning.unconfigured[0].clone();
    let serial = serial_text(sim, &first.serial);
    let port = olt.ports[first.port].name.clone();
    assert_eq!(port, "0/1/0");
    let mode = [("board", "0/1")];
    let listing = command(
        &mut olt,
        sim,
        &HashMap::new(),
        1,
        "display ont autofind all",
    )
    .expect("listing");
    assert!(
        listing.contains("   F/S/P               : 0/1/0"),
        "{listing}"
    );
    assert!(
        listing.contains(&format!("HWTC-{}", &serial[4..])),
        "{listing}"
    );
    let before = olt.onus.len();
    let taken = olt
        .onus
        .iter()
        .find(|o| o.port == first.port)
        .expect("an ONU")
        .ont_id;
    let add = |id: u32, line: &str, srv: &str| {
        format!("ont add 0 {id} sn-auth {serial} omci ont-lineprofile-id {line} ont-srvprofile-id {srv}")
    };
    assert_eq!(
        run(&mut olt, sim, &mode, &add(taken, "10", "10")),
        "  Failure: The ONT ID has already existed"
    );
    assert_eq!(
        run(&mut olt, sim, &mode, &add(120, "99", "10")),
        "  Failure: The profile does not exist"
    );
    assert_eq!(
        run(&mut olt, sim, &mode, &add(120, "10", "20")),
        "  Number of ONTs that can be added: 1, success: 1\n  PortID :0, ONTID :120"
    );
    assert_eq!(olt.onus.len(), before + 1);
    assert!(olt
        .provisioning
        .unconfigured
        .iter()
        .all(|u| u.serial != first.serial));
    let onu = olt
        .onus
        .iter()
        .find(|o| o.serial == first.serial)
        .expect("registered");
    assert!(onu.online);
    assert_eq!((onu.port, onu.ont_id), (first.port, 120));
    assert_eq!(
        run(&mut olt, sim, &mode, &add(121, "10", "10")),
        "  Failure: SN already exists"
    );
    assert_eq!(
        run(&mut olt, sim, &mode, "ont delete 0 120"),
        "  Number of ONTs that can be deleted: 1, success: 1"
    );
    assert_eq!(olt.onus.len(), before);
    assert!(olt
        .provisioning
        .unconfigured
        .iter()
        .any(|u| u.serial == first.serial));
    assert_eq!(
        run(&mut olt, sim, &mode, "ont delete 0 120"),
        "  Failure: The ONT does not exist"
    );
}

#[test]
fn zte_and_bdcom_register_by_type_and_by_mac() {
    let (mut olt, sim) = fresh(Vendor::Zte);
    let first = olt.provisioning.unconfigured[0].clone();
    let serial = serial_text(sim, &first.serial);
    let mode = [("pon", "1/1/1")];
    let line = format!("onu 100 type ZTE-F999 sn {serial}");
    assert_eq!(
        run(&mut olt, sim, &mode, &line),
        "%Code 32318-GPONSRV : The ONU type does not exist."
    );
    let line = format!("onu 100 type ZTE-F660 sn {serial}");
    assert_eq!(run(&mut olt, sim, &mode, &line), "");
    assert!(olt
        .onus
        .iter()
        .any(|o| o.serial == first.serial && o.ont_id == 100));
    assert_eq!(
        run(&mut olt, sim, &mode, &line),
        "%Code 32301-GPONSRV : The ONU has existed."
    );
    assert_eq!(run(&mut olt, sim, &mode, "no onu 100"), "");
    assert!(olt.onus.iter().all(|o| o.serial != first.serial));

    let (mut olt, sim) = fresh(Vendor::Bdcom);
    let first = olt.provisioning.unconfigured[0].clone();
    let mac = dotted_mac(&mac_of(&first.serial));
    assert_eq!(first.wire, mac.as_bytes());
    let interfaces = olt.interfaces.len();
    let mode = [("pon", "0/1")];
    let line = format!("epon bind-onu mac {mac} 60");
    assert_eq!(run(&mut olt, sim, &mode, &line), "");
    assert_eq!(olt.interfaces.len(), interfaces + 1);
    assert!(olt.interfaces.iter().any(|i| i.if_descr == "EPON0/1:60"));
    assert_eq!(
        run(&mut olt, sim, &mode, &format!("epon bind-onu mac {mac} 61")),
        "% Invalid input: the MAC address is already bound."
    );
    assert_eq!(
        run(&mut olt, sim, &mode, "no epon bind-onu sequence 60"),
        ""
    );
    assert_eq!(olt.interfaces.len(), interfaces);
}

#[test]
fn c620_and_gp3600_speak_their_own_dialect() {
    for (sim, own, other) in [
        (
            SimVendor::ALL[3],
            "onu 60 type ZTE-F660 sn {serial}",
            "show gpon onu uncfg",
        ),
        (
            SimVendor::ALL[4],
            "gpon bind-onu sn {serial} 60",
            "epon bind-onu mac fcfa.f712.3456 60",
        ),
    ] {
        let mut olt = SimOlt::generate(sim, 5, 1, 40, 0);
        let table = Provisioning::for_profile(sim.profile).expect("a provisioning table");
        assert_eq!(table.layout, sim.profile.layout);
        let first = olt.provisioning.unconfigured[0].clone();
        let serial = table
            .cli_serial(&serial_text(sim, &first.serial))
            .expect("a serial");
        let port = olt.ports[first.port].name.clone();
        let mode = [("pon", port.as_str())];
        // The C300's and the EPON's lines are not this device's: the console refuses them.
        let values: HashMap<String, String> = HashMap::from([("pon".into(), port.clone())]);
        assert_eq!(command(&mut olt, sim, &values, 3, other), None, "{other}");
        let line = own.replace("{serial}", &serial);
        assert_eq!(run(&mut olt, sim, &mode, &line), "", "{line}");
        let onu = olt.onus.iter().find(|o| o.serial == first.serial);
        assert_eq!(onu.map(|o| (o.port, o.ont_id)), Some((first.port, 60)));
        assert_eq!(run(&mut olt, sim, &mode, &line), table.refuse_index_taken);
        let removal = table.deregister[2].replace("{onu}", "60");
        assert_eq!(run(&mut olt, sim, &mode, &removal), "");
        assert!(olt.onus.iter().all(|o| o.serial != first.serial));
    }
    // The C620 lists its unconfigured ONUs with `show pon onu uncfg`, by `gpon_olt-` port.
    let sim = SimVendor::ALL[3];
    let mut olt = SimOlt::generate(sim, 5, 1, 40, 0);
    let listing = command(&mut olt, sim, &HashMap::new(), 1, "show pon onu uncfg")
        .expect("the C620's discovery");
    let first = &olt.provisioning.unconfigured[0];
    assert!(listing.starts_with("OltIndex"), "{listing}");
    assert!(listing.contains(&format!("gpon_olt-{}", olt.ports[first.port].name)));
    assert!(
        listing.contains(&serial_text(sim, &first.serial)),
        "{listing}"
    );
}

#[test]
fn the_agent_serves_the_unconfigured_table() {
    for sim in SimVendor::ALL {
        let vendor = sim.profile.layout;
        let olt = SimOlt::generate(sim, 5, 1, 40, 0);
        let view = MibView::for_vendor(sim);
        let ctx = AnswerContext {
            vendor: sim,
            uptime: 1,
        };
        let Some(table) = Provisioning::for_profile(sim.profile).map(|t| t.unconfigured) else {
            continue;
        };
        let column: Vec<u64> = table.serial.iter().map(|&a| u64::from(a)).collect();
        let mut at = column.clone();
        let mut rows = Vec::new();
        while let Some((name, value)) = view.next(&olt, ctx, &at) {
            if !name.arcs().starts_with(&column) {
                break;
            }
            at = name.arcs().to_vec();
            rows.push((at[column.len()..].to_vec(), format!("{value:?}")));
        }
        let expected: Vec<Vec<u64>> = olt
            .provisioning
            .unconfigured
            .iter()
            .map(|u| vec![u64::from(u.key[0]), u64::from(u.key[1])])
            .collect();
        let got: Vec<Vec<u64>> = rows.iter().map(|(k, _)| k.clone()).collect();
        assert_eq!(got, expected, "{vendor}");
        if vendor == "C320" {
            assert_eq!(expected[0][0], 268_501_248, "ponId of 1/1/1");
        }
    }
}

#[test]
fn onus_plugged_in_during_a_run_may_leave_again_but_the_generated_ones_stay() {
    let (mut olt, _) = fresh(Vendor::Huawei);
    let generated = olt.provisioning.unconfigured.len();
    let (ports, onus) = (olt.ports.clone(), olt.onus.clone());
    // Without unplugging, a long run only adds (up to the per-port cap).
    for _ in 0..2000 {
        olt.provisioning.step(&ports, &onus, 0.0);
    }
    let grown = olt.provisioning.unconfigured.len();
    assert!(grown > generated + 5, "{generated} → {grown}");
    // Unplugging takes away only those plugged in during the run.
    olt.provisioning.step(&ports, &onus, 1.0);
    let left = &olt.provisioning.unconfigured;
    assert!(left.len() <= generated + 1, "{} left", left.len());
    assert!(left.iter().filter(|u| !u.plugged).count() == generated);
}
