//! The trap listener's pure parts: which datagrams are traps (garbage of every shape
//! never panics and is refused), which OLTs a sender is, and the debounce.

use super::*;
use ponkeeper_actors::inventory::Inventory;
use rand::{Rng, SeedableRng};

/// A TLV with a short or long definite length.
fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    if content.len() < 128 {
        out.push(content.len() as u8);
    } else {
        out.extend([0x82, (content.len() >> 8) as u8, content.len() as u8]);
    }
    out.extend_from_slice(content);
    out
}

fn int(value: u8) -> Vec<u8> {
    tlv(0x02, &[value])
}

/// sysUpTime.0 = 42 and snmpTrapOID.0 = linkDown, as a v2c trap PDU needs them.
fn v2c_varbinds() -> Vec<u8> {
    let uptime = [tlv(0x06, &[0x2b, 6, 1, 2, 1, 1, 3, 0]), tlv(0x43, &[42])].concat();
    let trap_oid = [
        tlv(0x06, &[0x2b, 6, 1, 6, 3, 1, 1, 4, 1, 0]),
        tlv(0x06, &[0x2b, 6, 1, 6, 3, 1, 1, 5, 3]),
    ]
    .concat();
    tlv(0x30, &[tlv(0x30, &uptime), tlv(0x30, &trap_oid)].concat())
}

fn v2c_trap(pdu_tag: u8, version: u8) -> Vec<u8> {
    let pdu = tlv(pdu_tag, &[int(7), int(0), int(0), v2c_varbinds()].concat());
    tlv(0x30, &[int(version), tlv(0x04, b"public"), pdu].concat())
}

fn v1_trap() -> Vec<u8> {
    let pdu = tlv(
        0xa4,
        &[
            tlv(0x06, &[0x2b, 6, 1, 4, 1, 0x8f, 0x5b]), // enterprises.2011
            tlv(0x40, &[127, 0, 0, 1]),
            int(2), // linkDown
            int(0),
            tlv(0x43, &[42]),
            tlv(0x30, &[]),
        ]
        .concat(),
    );
    tlv(0x30, &[int(0), tlv(0x04, b"public"), pdu].concat())
}

#[test]
fn v1_and_v2c_traps_are_taken_and_nothing_else() {
    assert!(is_trap(&v2c_trap(0xa7, 1)));
    assert!(is_trap(&v1_trap()));
    // A v2c trap PDU in a v1 message, a GET, a response and an inform are not traps.
    assert!(!is_trap(&v2c_trap(0xa7, 0)));
    assert!(!is_trap(&v2c_trap(0xa0, 1)));
    assert!(!is_trap(&v2c_trap(0xa2, 1)));
    assert!(!is_trap(&v2c_trap(0xa6, 1)));
    assert!(!is_trap(b""));
}

#[test]
fn garbage_datagrams_are_refused_without_a_panic() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(18);
    let valid = [v2c_trap(0xa7, 1), v1_trap()];
    let mut taken = 0;
    for round in 0..20_000 {
        let datagram: Vec<u8> = match round % 4 {
            // Random bytes of random length.
            0 => (0..rng.random_range(0..300))
                .map(|_| rng.random())
                .collect(),
            // A valid trap cut short.
            1 => {
                let trap = &valid[round % 2];
                trap[..rng.random_range(0..trap.len())].to_vec()
            }
            // A valid trap with a few bytes changed.
            2 => {
                let mut trap = valid[round % 2].clone();
                for _ in 0..rng.random_range(1..4) {
                    let at = rng.random_range(0..trap.len());
                    trap[at] = rng.random();
                }
                trap
            }
            // A sequence header claiming more than there is.
            _ => [
                vec![0x30, 0x84, 0xff, 0xff, 0xff, 0xff],
                valid[0][2..].to_vec(),
            ]
            .concat(),
        };
        if is_trap(&datagram) {
            taken += 1;
        }
    }
    // Some mutations keep a trap a trap (a changed community byte); most do not.
    assert!(taken < 5_000, "{taken} garbage datagrams taken as traps");
}

fn inventory() -> Inventory {
    Inventory::parse(
        r#"
[[olts]]
id = 1
ip = "10.0.0.1"
vendor = "huawei"
model = "MA5800-X7"
city = "Kazan"

[[olts]]
id = 2
ip = "127.0.0.1"
vendor = "huawei"
model = "MA5800-X7"
city = "Kazan"
snmp = { port = 16100 }

[[olts]]
id = 3
ip = "127.0.0.1"
vendor = "huawei"
model = "MA5800-X7"
city = "Kazan"
snmp = { port = 16101 }
"#,
    )
    .expect("inventory")
}

#[test]
fn a_sender_is_every_olt_at_its_address_whatever_its_port() {
    let inventory = inventory();
    let at = |s: &str| s.parse::<SocketAddr>().expect("addr");
    assert_eq!(senders(&inventory, at("10.0.0.1:40000")), [1]);
    // The port of OLT 3's agent, as a trap's source port, names nothing.
    assert_eq!(senders(&inventory, at("127.0.0.1:16101")), [2, 3]);
    assert_eq!(senders(&inventory, at("127.0.0.1:50000")), [2, 3]);
    assert_eq!(senders(&inventory, at("[::ffff:10.0.0.1]:162")), [1]);
    assert!(senders(&inventory, at("10.0.0.2:162")).is_empty());
}

#[test]
fn a_trap_names_its_olt_by_community_when_olts_share_an_address() {
    let mut inventory = inventory();
    inventory.olts[2].snmp.community = "public-3".to_string();
    let at = |s: &str| s.parse::<SocketAddr>().expect("addr");
    let from_ip = senders(&inventory, at("127.0.0.1:50000"));
    let trap = |community: &[u8]| {
        let pdu = tlv(0xA7, &[int(7), int(0), int(0), v2c_varbinds()].concat());
        tlv(0x30, &[int(1), tlv(0x04, community), pdu].concat())
    };
    let named = |community: &[u8]| {
        named_by_community(
            &inventory,
            from_ip.clone(),
            &trap(community),
            Some("trapcomm"),
        )
    };
    assert_eq!(named(b"public-3"), [3]);
    assert_eq!(named(b"public"), [2], "OLT 2 has the default community");
    assert_eq!(
        named(b"trapcomm"),
        [2, 3],
        "traps.community names no one OLT: all at the address"
    );
    // A community the service does not know polls nothing, alone at an address or not.
    assert!(named(b"x").is_empty());
    assert!(named_by_community(&inventory, vec![1], &trap(b"x"), None).is_empty());
    assert_eq!(
        named_by_community(&inventory, vec![1], &trap(b"public"), None),
        [1]
    );
    assert!(named_by_community(&inventory, vec![2, 3], &trap(b"trapcomm"), None).is_empty());
    // An SNMPv3 OLT has no community a trap could carry: only traps.community names it.
    inventory.olts[0].snmp.version = ponkeeper_actors::inventory::SnmpVersion::V3;
    assert!(named_by_community(&inventory, vec![1], &trap(b"public"), None).is_empty());
    assert_eq!(
        named_by_community(&inventory, vec![1], &trap(b"trapcomm"), Some("trapcomm")),
        [1]
    );
}

#[test]
fn an_olt_is_polled_at_most_once_per_min_interval_and_no_trap_is_lost() {
    let mut debounce = Debounce::default();
    let start = Instant::now();
    let every = Duration::from_secs(2);
    let ms = Duration::from_millis;
    assert_eq!(debounce.when(1, start, every), Some(start));
    assert_eq!(debounce.when(2, start, every), Some(start));
    // Inside the interval: one poll at its end, and further traps are covered by it.
    assert_eq!(
        debounce.when(1, start + ms(500), every),
        Some(start + every)
    );
    assert_eq!(debounce.when(1, start + ms(1999), every), None);
    // Inside the interval after the deferred poll: deferred again.
    assert_eq!(
        debounce.when(1, start + ms(2100), every),
        Some(start + 2 * every)
    );
    // Long after: at once.
    assert_eq!(
        debounce.when(2, start + ms(2000), every),
        Some(start + ms(2000))
    );
    assert_eq!(
        debounce.when(1, start + ms(9000), every),
        Some(start + ms(9000))
    );
}
