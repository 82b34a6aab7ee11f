//! OLTs that share one simulated UDP socket (`FleetSpec::olts_per_socket`), polled by
//! the real actors over real UDP: each answers its own community with its own ONUs, a
//! hung OLT does not silence its neighbour on the socket, and the inventory names the
//! shared port, each OLT's community and no SSH.

use ponkeeper_actors::domain::{SessionStatus, Vendor};
use ponkeeper_actors::olt::PollSettings;
use ponkeeper_actors::poller::PolledOnu;
use ponkeeper_actors::store::Store;
use ponkeeper_actors::supervisor::Fleet;
use ponkeeper_sim::{Dynamics, FleetSpec, FleetVendors, SimFleet};
use std::sync::Arc;
use std::time::Duration;

fn settings() -> PollSettings {
    PollSettings {
        interval: Duration::from_secs(60),
        timeout: Duration::from_millis(300),
        retries: 0,
        deadline: Duration::from_secs(5),
        offline_after: 1,
        bulk_varbinds: 64,
        concurrency: Arc::new(tokio::sync::Semaphore::new(16)),
        ..PollSettings::default()
    }
}

fn sorted(mut onus: Vec<PolledOnu>) -> Vec<PolledOnu> {
    onus.sort_by(|a, b| (&a.pon_port, a.onu_index).cmp(&(&b.pon_port, b.onu_index)));
    onus
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn olts_on_one_socket_answer_their_own_onus() {
    let sim = SimFleet::start(FleetSpec {
        vendors: FleetVendors::Mixed,
        dynamics: Dynamics::none(),
        olts_per_socket: 2,
        ..FleetSpec::new(3, 24)
    })
    .await
    .expect("simulator starts");
    let inventory = sim.inventory();
    let ports: Vec<u16> = inventory.olts.iter().map(|o| o.snmp.port).collect();
    assert_eq!(ports[0], ports[1], "OLTs 1 and 2 share a socket");
    assert_ne!(ports[0], ports[2], "OLT 3 has the next socket");
    let communities: Vec<&str> = inventory
        .olts
        .iter()
        .map(|o| o.snmp.community.as_str())
        .collect();
    assert_eq!(communities, ["public-1", "public-2", "public-3"]);
    assert!(inventory.olts.iter().all(|o| o.ssh.is_none()));
    assert_eq!(sim.ssh_addr(1), None);
    assert_eq!(inventory.olts[1].vendor, Vendor::Zte.into());

    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("store");
    let fleet = Fleet::start(store, settings(), inventory)
        .await
        .expect("fleet");
    for olt in 1..=3u32 {
        let handle = fleet.olt(olt).expect("actor runs");
        let summary = handle.poll_now().await.expect("poll");
        assert_eq!(summary.status, SessionStatus::Online, "OLT {olt}");
        let polled: Vec<PolledOnu> = handle
            .onus()
            .await
            .expect("onus")
            .iter()
            .map(PolledOnu::from)
            .collect();
        assert_eq!(polled.len(), 24, "OLT {olt}");
        assert_eq!(
            sorted(polled),
            sorted(sim.expected_onus(olt)),
            "every field of every ONU of OLT {olt}"
        );
        let detail = handle.detail().await.expect("detail");
        assert_eq!(
            detail.system.sys_name.as_deref(),
            Some(format!("OLT-{olt}").as_str())
        );
    }
    assert_ne!(
        sim.expected_onus(1)[0].serial,
        sim.expected_onus(2)[0].serial,
        "two OLTs, two sets of ONUs"
    );

    // OLT 2 hangs; OLT 1 on the same socket keeps answering.
    sim.set_silent(2, true);
    let hung = fleet.olt(2).expect("actor").poll_now().await.expect("poll");
    assert_ne!(hung.status, SessionStatus::Online);
    let healthy = fleet.olt(1).expect("actor").poll_now().await.expect("poll");
    assert_eq!(healthy.status, SessionStatus::Online);
    assert_eq!(healthy.total_onu, 24);
    let traffic = sim.snmp_traffic(2).expect("traffic");
    assert!(traffic.received > traffic.sent, "{traffic:?}");
}
