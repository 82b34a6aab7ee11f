//! The MIB views against generated OLTs: walks in unsigned arc order that skip absent
//! rows, every instance a walk finds answers a get, and found instances name their
//! ONU column and row.
use super::*;
use ponkeeper_actors::domain::Vendor;

fn setup(onus: usize) -> (MibView, SimOlt, AnswerContext) {
    let vendor = SimVendor::for_vendor(Vendor::Huawei);
    let ctx = AnswerContext {
        vendor,
        uptime: 100,
    };
    (
        MibView::for_vendor(vendor),
        SimOlt::generate(vendor, 1, 1, onus, 100_000),
        ctx,
    )
}

fn walk(view: &MibView, olt: &SimOlt, ctx: AnswerContext) -> Vec<Vec<u64>> {
    let mut seen = Vec::new();
    let mut at = vec![0u64];
    while let Some((name, _)) = view.next(olt, ctx, &at) {
        at = name.arcs().to_vec();
        seen.push(at.clone());
    }
    seen
}

#[test]
fn walk_is_strictly_increasing_and_complete() {
    let (view, olt, ctx) = setup(40);
    let seen = walk(&view, &olt, ctx);
    assert!(seen.windows(2).all(|w| w[0] < w[1]), "unsigned arc order");
    let ports = olt.ports.len();
    // Huawei serves 11 ONU columns (8 plus temperature, bias and voltage), and the
    // autofind table: serial and equipment id of each unconfigured ONU; the two
    // traffic counters of each online ONU.
    let autofind = 2 * olt.provisioning.unconfigured.len();
    let online = olt.onus.iter().filter(|o| o.online).count();
    assert_eq!(
        seen.len(),
        5 + 3 * ports + olt.vlans.len() + 11 * 40 + autofind + 2 * online
    );
    for oid in &seen {
        assert!(
            matches!(view.get(&olt, ctx, oid), Lookup::Found(_)),
            "{oid:?}"
        );
    }
}

#[test]
fn getnext_orders_if_index_above_2_pow_31_as_unsigned() {
    let (view, olt, ctx) = setup(20);
    // ifName column: the first row is 0/1/0 = 4194312192 > 2^31.
    let if_name = arcs(std_oids::IF_NAME);
    let (first, value) = view.next(&olt, ctx, &if_name).expect("a row");
    assert_eq!(first.arcs().last(), Some(&4_194_312_192));
    assert_eq!(value, Value::Octets(b"GPON 0/1/0"));
    // An index just below 2^31 sorts before every real ifIndex.
    let mut below = if_name.clone();
    below.push(2_147_483_647);
    let (next, _) = view.next(&olt, ctx, &below).expect("a row");
    assert_eq!(next.arcs(), first.arcs());
    // Past the last port, the next object is the entity software revision.
    let mut past = if_name.clone();
    past.push(u64::from(u32::MAX));
    let (next, value) = view.next(&olt, ctx, &past).expect("more");
    assert_eq!(next.arcs(), arcs(std_oids::FIRMWARE).as_slice());
    assert_eq!(value, Value::Octets(olt.firmware.as_bytes()));
    // Serial column: row 0.0 then 0.1.
    let serial = arcs(&[1, 3, 6, 1, 4, 1, 2011, 6, 128, 1, 1, 2, 43, 1, 3]);
    let (a, _) = view.next(&olt, ctx, &serial).expect("row");
    let (b, _) = view.next(&olt, ctx, a.arcs()).expect("row");
    assert_eq!(
        &a.arcs()[15..],
        &[4_194_312_192, u64::from(olt.onus[0].ont_id)]
    );
    assert_eq!(
        &b.arcs()[15..],
        &[4_194_312_192, u64::from(olt.onus[1].ont_id)]
    );
}

#[test]
fn get_distinguishes_missing_objects_and_instances() {
    let (view, olt, ctx) = setup(8);
    let mut name = arcs(std_oids::SYS_NAME);
    assert!(matches!(
        view.get(&olt, ctx, &name),
        Lookup::Found(Value::Octets(b"OLT-1"))
    ));
    name[8] = 1;
    assert!(matches!(view.get(&olt, ctx, &name), Lookup::NoSuchInstance));
    assert!(matches!(
        view.get(&olt, ctx, &[1, 3, 6, 1, 6, 3, 1]),
        Lookup::NoSuchObject
    ));
    let mut serial = arcs(&[1, 3, 6, 1, 4, 1, 2011, 6, 128, 1, 1, 2, 43, 1, 3]);
    serial.extend([4_194_312_192, 200]);
    assert!(matches!(
        view.get(&olt, ctx, &serial),
        Lookup::NoSuchInstance
    ));
    assert!(view.next(&olt, ctx, &[2]).is_none());
}

#[test]
fn zte_and_bdcom_views_walk_in_order_and_skip_absent_rows() {
    for vendor in [Vendor::Zte, Vendor::Bdcom] {
        let vendor = SimVendor::for_vendor(vendor);
        let ctx = AnswerContext {
            vendor,
            uptime: 100,
        };
        let view = MibView::for_vendor(vendor);
        let olt = SimOlt::generate(vendor, 2, 1, 60, 0);
        let seen = walk(&view, &olt, ctx);
        assert!(seen.windows(2).all(|w| w[0] < w[1]), "unsigned arc order");
        for oid in &seen {
            assert!(
                matches!(view.get(&olt, ctx, oid), Lookup::Found(_)),
                "{oid:?}"
            );
        }
        let offline = olt.onus.iter().filter(|o| !o.online).count();
        assert!(offline > 0, "the seed gives offline ONUs");
        let traffic = vendor.profile.traffic.map_or(0, |_| 2);
        let onu_objects = vendor.profile.onu_columns.len();
        // Distance has no absent sentinel on either: offline ONUs have no instance.
        let table =
            ponkeeper_actors::profile::provisioning::Provisioning::for_profile(vendor.profile);
        let uncfg_objects =
            table.map_or(0, |t| 1 + usize::from(t.unconfigured.equipment.is_some()));
        let uncfg = uncfg_objects * olt.provisioning.unconfigured.len();
        // BDCOM's bridge: a forwarding entry per MAC behind an online ONU, a bridge
        // port per ONU.
        let bridge = match vendor.profile.vendor {
            Vendor::Bdcom => {
                olt.macs.iter().filter(|m| olt.onus[m.onu].online).count() + olt.onus.len()
            }
            _ => 0,
        };
        let rows = 5 + 3 * olt.interfaces.len() + olt.vlans.len() + onu_objects * 60 - offline
            + uncfg
            + traffic * (60 - offline)
            + bridge;
        assert_eq!(seen.len(), rows, "{}", vendor.model);
    }
}

#[test]
fn found_instances_name_their_onu_column_and_row() {
    let (view, olt, ctx) = setup(4);
    let status = arcs(&[1, 3, 6, 1, 4, 1, 2011, 6, 128, 1, 1, 2, 46, 1, 15]);
    let column = view.column_of(&status).expect("a column");
    let (first, _, spot) = view.next_at(&olt, ctx, &status).expect("a row");
    let spot = spot.expect("a table instance");
    assert_eq!(spot.object, column);
    assert_eq!(view.onu_field(spot), Some((OnuField::Status, 0)));
    assert_eq!(view.column_of(first.arcs()), Some(column));
    let (lookup, got) = view.get_at(&olt, ctx, first.arcs());
    assert!(matches!(lookup, Lookup::Found(_)));
    assert_eq!(got, Some(spot));
    // Past the last row the walk reaches the next column: another object.
    let mut last = status.clone();
    last.extend([u64::from(u32::MAX)]);
    let (_, _, past) = view.next_at(&olt, ctx, &last).expect("more");
    let past = past.expect("a table instance");
    assert_ne!(past.object, column);
    assert_eq!(view.onu_field(past), Some((OnuField::Distance, 0)));
    // Scalars and IF-MIB rows are no ONU's.
    let sys_name = arcs(std_oids::SYS_NAME);
    assert_eq!(view.get_at(&olt, ctx, &sys_name).1, None);
    assert_eq!(view.column_of(&sys_name), None);
    let (_, _, port) = view
        .next_at(&olt, ctx, &arcs(std_oids::IF_NAME))
        .expect("a port");
    assert_eq!(view.onu_field(port.expect("a table instance")), None);
}

#[test]
fn zte_optics_carry_the_trailing_one() {
    let vendor = SimVendor::for_vendor(Vendor::Zte);
    let ctx = AnswerContext {
        vendor,
        uptime: 100,
    };
    let view = MibView::for_vendor(vendor);
    let olt = SimOlt::generate(vendor, 2, 1, 8, 0);
    let rx = arcs(&[1, 3, 6, 1, 4, 1, 3902, 1012, 3, 50, 12, 1, 1, 10]);
    let (first, _) = view.next(&olt, ctx, &rx).expect("a row");
    assert_eq!(&first.arcs()[14..], &[268_501_248, 1, 1]);
}
