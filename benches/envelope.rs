//! Serialisation of one page of the API: 100 ONUs in the `Paged` envelope, with the
//! real item type of `GET /olts/{id}/onus` and `GET /onus` (timestamps formatted by the
//! service's clock, as the handler does), to JSON bytes.

use chrono::DateTime;
use criterion::{criterion_group, criterion_main, Criterion};
use ponkeeper::api::onus::OnuItem;
use ponkeeper::clock::Clock;
use ponkeeper::http::{Meta, Paged};
use ponkeeper_actors::domain::{DownCause, OnuStatus};

fn page(clock: &Clock) -> Paged<OnuItem> {
    let at = DateTime::from_timestamp(1_800_000_000, 0).expect("time");
    Paged {
        success: true,
        data: (0..100u32)
            .map(|i| OnuItem {
                id: u64::from(i) + 1,
                olt_id: 7,
                pon_port: format!("0/{}/{}", 1 + i / 64, (i / 8) % 8),
                onu_index: i % 8,
                serial: format!("HWTC{:08X}", 0x1A2B_0000 + i),
                description: format!("ул. Баумана, д. {}, кв. {}", i / 4, i),
                status: OnuStatus::Online,
                last_down_cause: (i % 10 == 0).then_some(DownCause::Los),
                distance: Some(800 + i * 13),
                rx_power: Some(-18.0 - f64::from(i % 90) / 10.0),
                tx_power: Some(2.31),
                olt_rx_power: Some(-21.5),
                vlan: Some(100),
                last_update: clock.format(at),
                status_at: clock.format(at),
                optics_at: Some(clock.format(at)),
                subscriber: None,
                flapping_since: None,
            })
            .collect(),
        meta: Meta {
            page: 0,
            size: 100,
            total_count: 128_000,
        },
    }
}

fn envelope(c: &mut Criterion) {
    let clock = Clock::from_config("UTC").expect("clock");
    let page = page(&clock);
    c.bench_function("envelope/page_of_100_onus_to_json", |b| {
        b.iter(|| serde_json::to_vec(&page).expect("json"))
    });
    let at = DateTime::from_timestamp(1_800_000_000, 0).expect("time");
    c.bench_function("envelope/format_100_timestamps", |b| {
        b.iter(|| (0..100).map(|_| clock.format(at)).collect::<Vec<_>>())
    });
}

criterion_group!(benches, envelope);
criterion_main!(benches);
