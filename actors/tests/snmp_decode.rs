//! Property tests of the SNMP client's decoder ([`decode_response`]) against the
//! simulator's encoder ([`ponkeeper_sim::ber`]): any datagram is decoded or refused
//! without a panic, a well-formed answer decodes to exactly what was encoded, and a
//! damaged one never panics. The decoder's unit tests are in `actors/src/snmp/tests.rs`.

use ponkeeper_actors::snmp::{decode_response, SnmpValue};
use ponkeeper_sim::ber::{Name, ResponseWriter, Value as Encoded};
use proptest::prelude::*;

/// A varbind the simulator can encode, and what the client must decode it to.
fn varbind() -> impl Strategy<Value = (Vec<u64>, Encoded<'static>, SnmpValue)> {
    // Device OIDs live under 1.3 (iso.org); every arc after that may be any u32.
    let name = prop::collection::vec(0u64..=u64::from(u32::MAX), 0..14).prop_map(|tail| {
        let mut arcs = vec![1, 3];
        arcs.extend(tail);
        arcs
    });
    let value = prop_oneof![
        any::<i64>().prop_map(|v| (Encoded::Integer(v), SnmpValue::Integer(v))),
        prop::collection::vec(any::<u8>(), 0..40).prop_map(|b| {
            let leaked: &'static [u8] = Box::leak(b.clone().into_boxed_slice());
            (Encoded::Octets(leaked), SnmpValue::OctetString(b))
        }),
        any::<u32>().prop_map(|t| (Encoded::TimeTicks(t), SnmpValue::Timeticks(t))),
        Just((Encoded::Null, SnmpValue::Null)),
        Just((Encoded::NoSuchInstance, SnmpValue::Missing)),
        Just((Encoded::EndOfMibView, SnmpValue::Missing)),
    ];
    (name, value).prop_map(|(name, (encoded, decoded))| (name, encoded, decoded))
}

fn response(id: i32, varbinds: &[(Vec<u64>, Encoded<'static>, SnmpValue)]) -> Vec<u8> {
    let mut writer = ResponseWriter::default();
    for (name, value, _) in varbinds {
        assert!(writer.push(Name::Arcs(name), *value, usize::MAX));
    }
    writer.finish(1, b"public", id, 0, 0).to_vec()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// Arbitrary bytes are decoded or refused with a typed error, never a panic.
    #[test]
    fn any_datagram_is_decoded_or_refused(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let _ = decode_response(&bytes);
    }

    /// A well-formed answer decodes to exactly what was encoded.
    #[test]
    fn answers_decode_to_what_the_agent_encoded(id in any::<i32>(), varbinds in prop::collection::vec(varbind(), 0..24)) {
        let (got_id, got) = decode_response(&response(id, &varbinds)).expect("decodes");
        prop_assert_eq!(got_id, id);
        prop_assert_eq!(got.len(), varbinds.len());
        for ((arcs, value), (name, _, expected)) in got.iter().zip(&varbinds) {
            let name: Vec<u32> = name.iter().map(|&a| a as u32).collect();
            prop_assert_eq!(arcs, &name);
            prop_assert_eq!(value, expected);
        }
    }

    /// A well-formed answer cut short or with one byte changed never panics the
    /// decoder (a truncated or corrupted datagram from a device).
    #[test]
    fn damaged_answers_never_panic(
        varbinds in prop::collection::vec(varbind(), 1..8),
        cut in any::<prop::sample::Index>(),
        flip in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let bytes = response(7, &varbinds);
        let _ = decode_response(&bytes[..cut.index(bytes.len())]);
        let mut flipped = bytes.clone();
        let at = flip.index(flipped.len());
        flipped[at] = byte;
        let _ = decode_response(&flipped);
    }
}
