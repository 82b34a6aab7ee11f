//! The simulated fleet's ONU rows and OLT summaries that the fleet view benches
//! (`fleet_view`, `fleet_memory`) fold in: 128 GPON ONUs per OLT on eight ports, every
//! seventeenth offline, descriptions of 25–35 characters with street words to search.
//! Included by each bench with `#[path]`.

use chrono::{DateTime, Utc};
use ponkeeper_actors::domain::Reading;
use ponkeeper_actors::domain::{Onu, OnuStatus, SessionStatus, Vendor};
use ponkeeper_actors::olt::OltSummary;

/// ONUs per OLT.
pub const ONUS: u64 = 128;

pub fn onus_of(olt: u32, at: DateTime<Utc>) -> Vec<Onu> {
    (0..ONUS)
        .map(|n| {
            let id = u64::from(olt) * 1000 + n;
            Onu {
                id,
                olt_id: olt,
                pon_port: format!("0/1/{}", n / 16).into(),
                onu_index: n as u32,
                serial: format!("HWTC{id:08X}").into(),
                description: format!("subscriber {id}, Lenina {}", n % 40).into(),
                status: if n % 17 == 0 {
                    OnuStatus::Offline
                } else {
                    OnuStatus::Online
                },
                last_down_cause: None,
                distance: Some(1200),
                rx_power: Some(-18.0 - (id % 1100) as f64 / 100.0).into(),
                tx_power: Some(2.0).into(),
                olt_rx_power: Some(-24.0).into(),
                temperature: Reading::NONE,
                voltage: Reading::NONE,
                bias_current: Reading::NONE,
                vlan: Some(100),
                last_update: at,
                optics_at: None,
            }
        })
        .collect()
}

pub fn summary(olt: u32, onus: &[Onu], at: DateTime<Utc>) -> OltSummary {
    OltSummary {
        id: olt,
        ip: [127, 0, 0, 1].into(),
        vendor: Some(Vendor::ALL[olt as usize % 3]),
        family: None,
        model: "MA5800-X7".into(),
        city: "Kazan".into(),
        node: Some(1 + olt % 50),
        status: SessionStatus::Online,
        status_since: at,
        total_ports: 8,
        total_onu: onus.len() as u32,
        onu_online: onus
            .iter()
            .filter(|o| o.status == OnuStatus::Online)
            .count() as u32,
        last_update: at,
    }
}
