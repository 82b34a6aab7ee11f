//! The client address of a request: the socket peer, or — when the peer is a trusted
//! proxy — the address `X-Forwarded-For` names for the hop before it. The header is walked
//! from the right: each entry must be an address (`IPv4`, `IPv6`, `IPv4:port`,
//! `[IPv6]:port` or `[IPv6]`); a trusted proxy's address moves the walk one hop left, the
//! first address that is not a trusted proxy is the client, and an entry that is not an
//! address at all (`unknown`, an obfuscated name, an empty entry, text that is not UTF-8)
//! stops the walk: the request is the last trusted hop's, never that of an entry further
//! left, which anyone could have written. The access check and the audit log ask here.

use crate::keys::canonical_net;
use axum::http::HeaderMap;
use ipnet::IpNet;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};

/// The client's address, canonical (IPv4-mapped addresses are IPv4): the peer, or from a
/// trusted proxy the right-most `X-Forwarded-For` address that is not a trusted proxy (the
/// left-most if all are), or the last trusted hop if an entry on the way is not an address.
pub fn client_ip(peer: IpAddr, headers: &HeaderMap, trusted: &[IpNet]) -> IpAddr {
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|net| canonical_net(*net).contains(ip));
    let mut client = peer.to_canonical();
    if !is_trusted(&client) {
        return client;
    }
    let values: Vec<_> = headers.get_all("x-forwarded-for").iter().collect();
    for value in values.into_iter().rev() {
        let Ok(text) = value.to_str() else {
            return client;
        };
        for entry in text.rsplit(',') {
            let Some(ip) = address_of(entry) else {
                return client;
            };
            client = ip;
            if !is_trusted(&ip) {
                return client;
            }
        }
    }
    client
}

/// The address an `X-Forwarded-For` entry names, canonical, with any port stripped.
fn address_of(entry: &str) -> Option<IpAddr> {
    let entry = entry.trim();
    let ip = if let Ok(ip) = entry.parse::<IpAddr>() {
        ip
    } else if let Ok(socket) = entry.parse::<SocketAddr>() {
        socket.ip()
    } else {
        let bracketed = entry.strip_prefix('[')?.strip_suffix(']')?;
        IpAddr::V6(bracketed.parse::<Ipv6Addr>().ok()?)
    };
    Some(ip.to_canonical())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::parse_net;
    use axum::http::HeaderValue;

    #[test]
    fn client_ip_believes_only_trusted_proxies() {
        let trusted = vec![
            parse_net("127.0.0.1").expect("net"),
            parse_net("192.0.2.0/24").expect("net"),
        ];
        let headers = |value: &str| {
            let mut map = HeaderMap::new();
            map.insert(
                "x-forwarded-for",
                HeaderValue::from_str(value).expect("header"),
            );
            map
        };
        let local: IpAddr = "127.0.0.1".parse().expect("ip");
        let stranger: IpAddr = "203.0.113.9".parse().expect("ip");
        let forged = headers("6.6.6.6, 10.1.2.3");
        assert_eq!(
            client_ip(stranger, &forged, &trusted),
            stranger,
            "untrusted peer: header ignored"
        );
        assert_eq!(
            client_ip(local, &forged, &trusted),
            "10.1.2.3".parse::<IpAddr>().expect("ip")
        );
        let chained = headers("10.1.2.3, 192.0.2.7");
        assert_eq!(
            client_ip(local, &chained, &trusted),
            "10.1.2.3".parse::<IpAddr>().expect("ip"),
            "the right-most untrusted entry"
        );
        assert_eq!(client_ip(local, &HeaderMap::new(), &trusted), local);
        assert_eq!(client_ip(local, &headers("garbage"), &trusted), local);
        let mapped: IpAddr = "::ffff:127.0.0.1".parse().expect("ip");
        assert_eq!(
            client_ip(mapped, &HeaderMap::new(), &[]),
            local,
            "IPv4-mapped peers are IPv4"
        );
    }

    /// The address an `X-Forwarded-For` entry names, by the standard library's own
    /// parsers: a bare address, `IPv4:port`, `[IPv6]:port` or `[IPv6]`.
    fn address_of(entry: &str) -> Option<IpAddr> {
        let entry = entry.trim();
        entry
            .parse::<IpAddr>()
            .ok()
            .or_else(|| entry.parse::<SocketAddr>().ok().map(|s| s.ip()))
            .or_else(|| {
                entry
                    .strip_prefix('[')?
                    .strip_suffix(']')?
                    .parse::<std::net::Ipv6Addr>()
                    .ok()
                    .map(IpAddr::V6)
            })
            .map(|ip| ip.to_canonical())
    }

    fn forwarded_entry() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        prop_oneof![
            any::<std::net::Ipv4Addr>().prop_map(|a| a.to_string()),
            (any::<std::net::Ipv4Addr>(), any::<u16>()).prop_map(|(a, p)| format!("{a}:{p}")),
            any::<std::net::Ipv6Addr>().prop_map(|a| a.to_string()),
            (any::<std::net::Ipv6Addr>(), any::<u16>()).prop_map(|(a, p)| format!("[{a}]:{p}")),
            any::<std::net::Ipv6Addr>().prop_map(|a| format!("[{a}]")),
            Just("127.0.0.1".to_string()),
            Just("192.0.2.7:8080".to_string()),
            Just("10.1.2.3".to_string()),
            Just("unknown".to_string()),
            Just(String::new()),
            "[ -+\\--~]{0,16}",
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]

        /// Whatever a trusted proxy forwards, the client is the peer or an address the
        /// header names, and never one to the left of an entry that is not an address
        /// or of an address that is not a trusted proxy.
        #[test]
        fn forwarded_for_is_walked_only_through_addresses_of_trusted_proxies(
            entries in proptest::collection::vec(forwarded_entry(), 0..6),
            spaces in proptest::collection::vec(0..3usize, 6),
        ) {
            let trusted = vec![
                parse_net("127.0.0.1").expect("net"),
                parse_net("192.0.2.0/24").expect("net"),
            ];
            let is_trusted = |ip: &IpAddr| trusted.iter().any(|n| n.contains(ip));
            let peer: IpAddr = "127.0.0.1".parse().expect("ip");
            let value = entries
                .iter()
                .zip(&spaces)
                .map(|(e, n)| format!("{}{e}", " ".repeat(*n)))
                .collect::<Vec<_>>()
                .join(",");
            let Ok(header) = HeaderValue::from_str(&value) else {
                return Ok(());
            };
            let mut headers = HeaderMap::new();
            headers.insert("x-forwarded-for", header);
            let client = client_ip(peer, &headers, &trusted);

            // The right-most entry that ends the walk: not an address, or not trusted.
            let stop = entries
                .iter()
                .rposition(|e| address_of(e).is_none_or(|ip| !is_trusted(&ip)));
            let expected = match stop {
                Some(i) => match address_of(&entries[i]) {
                    Some(ip) => ip,
                    // Not an address: the request is the last trusted hop's.
                    None => entries[i + 1..]
                        .first()
                        .and_then(|e| address_of(e))
                        .unwrap_or(peer),
                },
                None => entries.first().and_then(|e| address_of(e)).unwrap_or(peer),
            };
            proptest::prop_assert_eq!(client, expected, "{:?}", value);
        }

        /// Arbitrary bytes in the header never panic, and the client is the peer or an
        /// address written in the header.
        #[test]
        fn any_forwarded_for_value_gives_the_peer_or_an_address_in_it(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64),
        ) {
            let bytes: Vec<u8> = bytes.into_iter().filter(|b| *b != b'\r' && *b != b'\n' && *b != 0).collect();
            let Ok(header) = HeaderValue::from_bytes(&bytes) else {
                return Ok(());
            };
            let mut headers = HeaderMap::new();
            headers.insert("x-forwarded-for", header);
            let peer: IpAddr = "127.0.0.1".parse().expect("ip");
            let client = client_ip(peer, &headers, &[parse_net("127.0.0.0/8").expect("net")]);
            let text = String::from_utf8_lossy(&bytes);
            proptest::prop_assert!(
                client == peer || text.split(',').any(|e| address_of(e) == Some(client)),
                "{client} from {text:?}"
            );
        }
    }
}
