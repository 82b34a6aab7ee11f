//! Tests of the client's decoding: arcs read in place as snmp2 reads them, and any
//! datagram decoded or refused without a panic (property tests against the simulator's
//! encoder).

use super::*;

#[test]
fn arcs_are_decoded_in_place_as_snmp2_decodes_them() {
    let mut out = Vec::new();
    for arcs_in in [
        vec![
            1u64,
            3,
            6,
            1,
            4,
            1,
            2011,
            6,
            128,
            1,
            1,
            2,
            43,
            1,
            3,
            4_194_312_448,
            7,
        ],
        vec![0, 39],
        vec![1, 3, 6, 1, 2, 1, 1, 5, 0],
    ] {
        let oid = Oid::from(&arcs_in).expect("oid");
        decode_arcs(oid.as_bytes(), &mut out);
        assert_eq!(out, arcs(&oid), "{arcs_in:?}");
    }
    let too_wide = Oid::from(&[1u64, 3, 1 << 33]).expect("oid");
    decode_arcs(too_wide.as_bytes(), &mut out);
    assert!(out.is_empty());
    decode_arcs(&[0x2b, 0x86], &mut out);
    assert!(out.is_empty(), "truncated");
}

use crate::sim::ber::{Name, ResponseWriter, Value as Encoded};
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
