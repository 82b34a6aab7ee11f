//! The simulator's SNMP traps (`sim --trap-target ADDR`, [`super::SimFleet::send_traps_to`]):
//! a task looks at every OLT's ONUs ten times a second and, when one OLT's set of online
//! ONUs has changed — a fibre cut, a repair, a flap of the dynamics, a reboot over SSH —
//! sends one SNMPv2c trap (`linkDown` when fewer are online than before, else `linkUp`)
//! to the target, from the fleet's bind address. ponkeeper's trap listener
//! (`src/traps.rs`) takes it as a hint to poll the OLTs at that address.

use super::agent::OltShared;
use super::ber::{Name, ResponseWriter, Value};
use std::hash::{Hash, Hasher};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::UdpSocket;

/// How often the ONUs are looked at.
const LOOK_EVERY: Duration = Duration::from_millis(100);
/// SNMPv2-Trap-PDU.
const TRAP_V2: u8 = 0xa7;
/// SNMPv2c in the message's version field.
const V2C: i64 = 1;
const SYS_UP_TIME: &[u64] = &[1, 3, 6, 1, 2, 1, 1, 3, 0];
const SNMP_TRAP_OID: &[u64] = &[1, 3, 6, 1, 6, 3, 1, 1, 4, 1, 0];
const LINK_DOWN: &[u32] = &[1, 3, 6, 1, 6, 3, 1, 1, 5, 3];
const LINK_UP: &[u32] = &[1, 3, 6, 1, 6, 3, 1, 1, 5, 4];

/// What is looked at of one OLT: a hash of its ONUs' online flags, and how many are online.
fn look(olt: &OltShared) -> (u64, usize) {
    let state = super::lock(olt);
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let mut online = 0;
    for onu in &state.onus {
        onu.online.hash(&mut hasher);
        online += usize::from(onu.online);
    }
    (hasher.finish(), online)
}

/// One v2c trap: sysUpTime.0 and snmpTrapOID.0.
pub(crate) fn trap(
    writer: &mut ResponseWriter,
    request_id: i32,
    uptime: u32,
    down: bool,
    community: &[u8],
) -> Vec<u8> {
    writer.clear();
    writer.push(
        Name::Arcs(SYS_UP_TIME),
        Value::TimeTicks(uptime),
        usize::MAX,
    );
    let kind = if down { LINK_DOWN } else { LINK_UP };
    writer.push(Name::Arcs(SNMP_TRAP_OID), Value::Oid(kind), usize::MAX);
    writer
        .finish_pdu(TRAP_V2, V2C, community, request_id, 0, 0)
        .to_vec()
}

/// Sends a trap to `target` whenever an OLT's online ONUs change, until aborted.
/// Each trap carries its OLT's community (`olts` pairs them), which is what names the OLT
/// when several share an address.
pub(crate) async fn send_traps(
    olts: Vec<(Arc<OltShared>, Vec<u8>)>,
    bind: IpAddr,
    target: SocketAddr,
) {
    let from = SocketAddr::new(bind, 0);
    let socket = match UdpSocket::bind(from).await {
        Ok(socket) => socket,
        Err(error) => {
            tracing::error!(%from, %error, "cannot bind the trap socket; no traps are sent");
            return;
        }
    };
    let started = Instant::now();
    let mut seen: Vec<(u64, usize)> = olts.iter().map(|(olt, _)| look(olt)).collect();
    let mut writer = ResponseWriter::default();
    let mut request_id: i32 = 0;
    let mut every = tokio::time::interval(LOOK_EVERY);
    loop {
        every.tick().await;
        for ((olt, community), before) in olts.iter().zip(seen.iter_mut()) {
            let now = look(olt);
            if now.0 == before.0 {
                continue;
            }
            let down = now.1 < before.1;
            *before = now;
            request_id = request_id.wrapping_add(1);
            let uptime = (started.elapsed().as_millis() / 10) as u32;
            let datagram = trap(&mut writer, request_id, uptime, down, community);
            if let Err(error) = socket.send_to(&datagram, target).await {
                tracing::debug!(%target, %error, "trap not sent");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trap_is_a_v2c_trap_with_uptime_and_trap_oid() {
        let mut writer = ResponseWriter::default();
        let bytes = trap(&mut writer, 5, 4200, true, b"public");
        let pdu = snmp2::Pdu::from_bytes(&bytes).expect("parses");
        assert_eq!(pdu.message_type, snmp2::MessageType::Trap);
        assert!(matches!(pdu.version(), Ok(snmp2::Version::V2C)));
        assert_eq!(pdu.community, b"public");
        assert_eq!(pdu.req_id, 5);
        let varbinds: Vec<_> = pdu.varbinds.clone().collect();
        assert_eq!(varbinds.len(), 2);
        assert_eq!(varbinds[0].0.to_string(), "1.3.6.1.2.1.1.3.0");
        assert!(matches!(varbinds[0].1, snmp2::Value::Timeticks(4200)));
        assert_eq!(varbinds[1].0.to_string(), "1.3.6.1.6.3.1.1.4.1.0");
        match &varbinds[1].1 {
            snmp2::Value::ObjectIdentifier(oid) => {
                assert_eq!(oid.to_string(), "1.3.6.1.6.3.1.1.5.3")
            }
            other => panic!("{other:?}"),
        }
    }
}
