//! The cluster port before a peer has authenticated (the second probe's finding 2,
//! replayed small against a real member in process): a connection that says nothing is
//! closed within `handshake_timeout`; one that announces a 16 MiB frame and sends its
//! bytes is cut after the handshake's budget, never buffered; connections past an
//! address's share of `max_handshakes`, or past them all, are closed at once, while a
//! configured peer's address still gets in; and a member does not start on an unencrypted
//! link unless `insecure = true` says so. tests/cluster.rs proves real members still
//! link through it.

use crate::common;

use crate::common::TestService;
use ponkeeper::app::App;
use ponkeeper::cluster::{ClusterConfig, Peer};
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

const COOKIE_ENV: &str = "CLUSTER_PORT_TEST_COOKIE";

fn free_port() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], common::ports::one()))
}

/// A connection to `listen` from the loopback address `source`.
async fn connect_from(source: [u8; 4], listen: SocketAddr) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket
        .bind(SocketAddr::from((source, 0)))
        .expect("bind a loopback source");
    socket.connect(listen).await.expect("connect")
}

fn config(listen: SocketAddr, insecure: bool) -> ClusterConfig {
    ClusterConfig {
        name: "gate-test".into(),
        listen,
        // A member whose address is 127.0.0.3 (nothing listens there: only its address
        // matters to the gate).
        peers: vec![Peer {
            name: "elsewhere".into(),
            address: SocketAddr::from(([127, 0, 0, 3], free_port().port())),
        }],
        cookie_env: COOKIE_ENV.into(),
        tls: None,
        insecure,
        handshake_timeout: Duration::from_secs(1),
        max_handshakes: 4,
        heartbeat: Duration::from_secs(1),
        takeover_after: None,
        id_block: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cluster_port_holds_no_unauthenticated_connection_long_or_large() {
    std::env::set_var(COOKIE_ENV, "a-cookie-of-more-than-16-characters");
    let sim = common::steady_sim(1, 1).await;
    let dir = tempfile::tempdir().expect("tempdir");

    // Without `insecure = true`, no member starts on the unencrypted link.
    let inventory = dir.path().join("inventory.toml");
    std::fs::write(&inventory, sim.inventory().to_toml()).expect("inventory");
    let mut refused = common::test_config(dir.path().join("refused"), inventory);
    refused.cluster = Some(config(free_port(), false));
    let Err(refused) = App::start(refused).await else {
        panic!("a member started on an unencrypted link without `insecure = true`");
    };
    assert!(
        format!("{refused:#}").contains("insecure = true"),
        "{refused:#}"
    );

    let listen = free_port();
    let member = TestService::start_tuned(&sim, dir.path().join("member"), |c| {
        c.cluster = Some(config(listen, true));
    })
    .await;

    // Silent: closed within the handshake timeout (1 s).
    let mut silent = TcpStream::connect(listen).await.expect("connect");
    let closed = common::raw::closed_within(&mut silent, Duration::from_secs(3)).await;
    assert!(
        closed.is_some_and(|after| after < Duration::from_millis(2500)),
        "a silent connection stays: {closed:?}"
    );

    // A 16 MiB frame announced and sent: cut after the handshake's budget (64 KiB).
    let mut large = TcpStream::connect(listen).await.expect("connect");
    large
        .write_all(&(16u64 * 1024 * 1024).to_be_bytes())
        .await
        .expect("length prefix");
    let chunk = vec![0x5a_u8; 64 * 1024];
    let mut sent = 0usize;
    let started = Instant::now();
    while sent < 16 * 1024 * 1024 && started.elapsed() < Duration::from_secs(5) {
        match tokio::time::timeout(Duration::from_secs(1), large.write_all(&chunk)).await {
            Ok(Ok(())) => sent += chunk.len(),
            Ok(Err(_)) => break,
            Err(_) => break, // the server reads no more
        }
    }
    assert!(
        sent < 4 * 1024 * 1024,
        "{sent} bytes taken before authenticating"
    );
    assert!(
        common::raw::closed_within(&mut large, Duration::from_secs(3))
            .await
            .is_some()
    );

    // Past an address's share of `max_handshakes` (4: one an address), or past them all:
    // closed at once. A configured peer's address (127.0.0.3) still gets in.
    let sources: [[u8; 4]; 8] = [
        [127, 0, 0, 1],
        [127, 0, 0, 1],
        [127, 0, 0, 1],
        [127, 0, 0, 2],
        [127, 0, 0, 4],
        [127, 0, 0, 5],
        [127, 0, 0, 6],
        [127, 0, 0, 3],
    ];
    let mut waiting = Vec::new();
    for source in sources {
        waiting.push(connect_from(source, listen).await);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // All read at once: the first ones' handshake timeout (1 s) must not run out meanwhile.
    let checks = waiting
        .iter_mut()
        .map(|stream| common::raw::closed_within(stream, Duration::from_millis(300)));
    let closed: Vec<bool> = futures::future::join_all(checks)
        .await
        .iter()
        .map(Option::is_some)
        .collect();
    assert_eq!(
        closed,
        [false, true, true, false, false, false, true, false],
        "127.0.0.1 past its one slot, 127.0.0.6 past the four, the member let in"
    );
    member.stop().await;
}
