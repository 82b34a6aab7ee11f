//! The ONU table's merges, queries and serial lookups.

use super::*;
use crate::domain::Reading;

const THRESHOLDS: OpticsThresholds = OpticsThresholds {
    warning_dbm: -25.0,
    critical_dbm: -27.0,
};

fn reading(serial: &str, status: OnuStatus, rx: Option<f64>) -> PolledOnu {
    PolledOnu {
        pon_port: "0/1/0".into(),
        onu_index: 0,
        serial: serial.into(),
        description: format!("contract of {serial}").into(),
        status,
        last_down_cause: (status == OnuStatus::Offline).then_some(DownCause::Los),
        distance: Some(1200),
        rx_power: rx.into(),
        tx_power: Some(2.1).into(),
        olt_rx_power: Some(-20.0).into(),
        temperature: Reading::NONE,
        voltage: Reading::NONE,
        bias_current: Reading::NONE,
        optics_read: true,
    }
}

fn at(minutes: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(1_800_000_000 + minutes * 60, 0).expect("time")
}

#[test]
fn merge_records_changes_points_and_keeps_vanished_onus() {
    let mut next_id = 100;
    let mut allocate = |_: &str| {
        next_id += 1;
        Some(next_id)
    };
    let step = Duration::from_secs(15 * 60);
    let mut table = OnuTable::default();
    let first = vec![
        reading("HWTC00000001", OnuStatus::Online, Some(-20.0)),
        reading("HWTC00000002", OnuStatus::Online, Some(-26.0)),
    ];
    let report = table.merge(1, first, at(0), &THRESHOLDS, step, &mut allocate);
    assert_eq!(report.state_changes.len(), 2, "first sight is recorded");
    assert_eq!(report.optics.len(), 2);
    assert_eq!(table.online(), 2);

    // Five minutes on: no change, no point is due, except a level change.
    let second = vec![
        reading("HWTC00000001", OnuStatus::Online, Some(-20.1)),
        reading("HWTC00000002", OnuStatus::Online, Some(-27.5)),
    ];
    let report = table.merge(1, second, at(5), &THRESHOLDS, step, &mut allocate);
    assert!(report.state_changes.is_empty());
    let levels: Vec<(OnuId, OpticsLevel)> =
        report.optics.iter().map(|(id, p)| (*id, p.level)).collect();
    assert_eq!(levels, [(102, OpticsLevel::Critical)]);

    // ONU 1 goes offline, ONU 2 vanishes from the device, ONU 3 appears.
    let third = vec![
        reading("HWTC00000001", OnuStatus::Offline, None),
        reading("HWTC00000003", OnuStatus::Online, Some(-19.0)),
    ];
    let report = table.merge(1, third, at(20), &THRESHOLDS, step, &mut allocate);
    let changes: Vec<(OnuId, OnuStatus, Option<DownCause>)> = report
        .state_changes
        .iter()
        .map(|(id, c)| (*id, c.status, c.cause))
        .collect();
    assert_eq!(
        changes,
        [
            (101, OnuStatus::Offline, Some(DownCause::Los)),
            (103, OnuStatus::Online, None),
            (102, OnuStatus::Offline, Some(DownCause::Unknown)),
        ]
    );
    assert_eq!(table.len(), 3);
    let vanished = table.get(102).expect("kept");
    assert_eq!(vanished.rx_power.get(), Some(-27.5), "last data kept");
    assert_eq!(vanished.last_update, at(5));
    // Points: ONU 1 (level change to UNKNOWN, and 20 min > step), ONU 3 (new).
    let ids: Vec<OnuId> = report.optics.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, [101, 103]);
}

#[test]
fn an_onu_moved_to_another_port_keeps_its_id() {
    let mut allocated = 0;
    let mut table = OnuTable::default();
    let step = Duration::from_secs(900);
    let first = vec![reading("HWTC00000001", OnuStatus::Online, Some(-20.0))];
    table.merge(1, first, at(0), &THRESHOLDS, step, |_| {
        allocated += 1;
        Some(41)
    });
    let mut moved = reading("HWTC00000001", OnuStatus::Online, Some(-20.0));
    moved.pon_port = "0/2/7".into();
    moved.onu_index = 12;
    let report = table.merge(1, vec![moved], at(1), &THRESHOLDS, step, |_| {
        allocated += 1;
        Some(99)
    });
    assert_eq!(allocated, 1, "no new id for a known serial");
    assert!(report.state_changes.is_empty());
    let onu = table.get(41).expect("same id");
    assert_eq!((onu.pon_port.as_str(), onu.onu_index), ("0/2/7", 12));
    assert_eq!(table.len(), 1);
}

#[test]
fn queries_filter_count_and_order() {
    let mut id = 0;
    let mut table = OnuTable::default();
    let mut onus = vec![
        reading("HWTC0000000A", OnuStatus::Online, Some(-26.5)),
        reading("HWTC0000000B", OnuStatus::Offline, None),
        reading("ZTEG0000000C", OnuStatus::Online, Some(-21.0)),
        reading("ZTEG0000000D", OnuStatus::Online, Some(-27.9)),
    ];
    onus[2].pon_port = "0/2/1".into();
    onus[3].description = "School No. 3".into();
    table.merge(
        1,
        onus,
        at(0),
        &THRESHOLDS,
        Duration::from_secs(900),
        |_| {
            id += 1;
            Some(id)
        },
    );
    let query = |filter: OnuFilter, order: OnuOrder, limit: usize| {
        let page = table.query(&OnuQuery {
            filter,
            order,
            limit,
            thresholds: THRESHOLDS,
        });
        (
            page.total,
            page.onus.iter().map(|o| o.id).collect::<Vec<_>>(),
        )
    };
    assert_eq!(
        query(OnuFilter::default(), OnuOrder::Id, 2),
        (4, vec![1, 2])
    );
    assert_eq!(
        query(OnuFilter::default(), OnuOrder::WorstRx, 10),
        (4, vec![4, 1, 3, 2])
    );
    let online = OnuFilter {
        status: Some(OnuStatus::Online),
        ..OnuFilter::default()
    };
    assert_eq!(query(online, OnuOrder::Id, 10), (3, vec![1, 3, 4]));
    let serial = OnuFilter {
        serial: Some("zteg0000000c".into()),
        ..OnuFilter::default()
    };
    assert_eq!(query(serial, OnuOrder::Id, 10), (1, vec![3]));
    // A prefix of a serial, a serial with more after it, one before every serial.
    for absent in ["ZTEG0000000", "ZTEG0000000CC", "A"] {
        let absent = OnuFilter {
            serial: Some(absent.into()),
            ..OnuFilter::default()
        };
        assert_eq!(query(absent, OnuOrder::Id, 10), (0, vec![]));
    }
    let text = OnuFilter {
        text: Some("SCHOOL".into()),
        ..OnuFilter::default()
    };
    assert_eq!(query(text, OnuOrder::Id, 10), (1, vec![4]));
    let port = OnuFilter {
        pon_port: Some("0/2/1".into()),
        ..OnuFilter::default()
    };
    assert_eq!(query(port, OnuOrder::Id, 10), (1, vec![3]));
    let warning = OnuFilter {
        level: Some(OpticsLevel::Warning),
        ..OnuFilter::default()
    };
    assert_eq!(query(warning, OnuOrder::Id, 10), (1, vec![1]));
    let unknown = OnuFilter {
        level: Some(OpticsLevel::Unknown),
        ..OnuFilter::default()
    };
    assert_eq!(query(unknown, OnuOrder::Id, 10), (1, vec![2]));
}

proptest::proptest! {
    /// Whatever the guess, a lookup near it finds the row the serial index finds: with
    /// serials told apart by case only, repeated, or absent.
    #[test]
    fn a_lookup_near_a_guess_finds_what_the_index_finds(
        serials in proptest::collection::vec("[HhZz]{1}[0-3]{1}", 0..12),
        asked in proptest::collection::vec(("[HhZz]{1}[0-3]{1}", 0usize..14), 0..12),
    ) {
        let onus: Vec<Onu> = serials
            .iter()
            .enumerate()
            .map(|(i, serial)| {
                let polled = reading(serial, OnuStatus::Online, None);
                let kept = Kept { vlan: None, optics_at: None };
                polled_row(i as OnuId + 1, 1, kept, polled, at(0))
            })
            .collect();
        let table = OnuTable::new(onus);
        for (serial, guess) in asked {
            let mut moved = guess;
            let near = table.position_near(&serial, &mut moved);
            proptest::prop_assert_eq!(near, table.position_of(&serial));
            proptest::prop_assert_eq!(moved, near.map_or(guess, |i| i + 1));
        }
        let mut guess = 0;
        for (i, onu) in table.onus.iter().enumerate() {
            let found = table.position_near(&onu.serial, &mut guess);
            proptest::prop_assert_eq!(found, table.position_of(&onu.serial));
            if table.serials_unique {
                proptest::prop_assert_eq!(found, Some(i));
            }
        }
    }
}
