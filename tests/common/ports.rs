//! Ports for the services a test starts as child processes, which must be told their
//! port before they bind it. A port from `127.0.0.1:0` is free only until the probe
//! closes: the kernel hands it out again to any `bind(0)` or outgoing connection of the
//! tests running beside this one. These come from below the kernel's ephemeral range
//! (`/proc/sys/net/ipv4/ip_local_port_range`), which neither ever takes, and are checked
//! free by binding them; held together while chosen, so no two are the same.

use std::net::TcpListener;

/// `N` distinct TCP ports on `127.0.0.1` that nothing listens on, from below the
/// ephemeral range.
pub fn unused<const N: usize>() -> [u16; N] {
    let below = ephemeral_low();
    let span = below - 1024;
    let mut held: Vec<TcpListener> = Vec::with_capacity(N);
    let mut next = any_below(below);
    for _ in 0..span {
        if held.len() == N {
            break;
        }
        if let Ok(probe) = TcpListener::bind(("127.0.0.1", next)) {
            held.push(probe);
        }
        next = if next + 1 >= below { 1024 } else { next + 1 };
    }
    assert_eq!(held.len(), N, "{N} free ports below {below}");
    std::array::from_fn(|i| held[i].local_addr().expect("addr").port())
}

/// One port as [`unused`].
pub fn one() -> u16 {
    unused::<1>()[0]
}

/// A UDP port on `127.0.0.1` as [`unused`] (for a trap listener: each poll's SNMP
/// socket takes an ephemeral UDP port).
pub fn udp() -> u16 {
    let below = ephemeral_low();
    (0..256)
        .map(|_| any_below(below))
        .find(|&port| std::net::UdpSocket::bind(("127.0.0.1", port)).is_ok())
        .expect("a free UDP port below the ephemeral range")
}

/// A random unprivileged port below `below`.
fn any_below(below: u16) -> u16 {
    1024 + rand::random::<u16>() % (below - 1024)
}

/// The lowest ephemeral port (at least 2048, so that some room is left below it), 32768
/// where the kernel does not say.
fn ephemeral_low() -> u16 {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse::<u16>().ok())
        .unwrap_or(32768)
        .max(2048)
}
