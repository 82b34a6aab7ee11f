//! Tests of the client's decoding: arcs read in place as snmp2 reads them. The property
//! tests against the simulator's encoder (any datagram decoded or refused without a
//! panic) are in `actors/tests/snmp_decode.rs`.

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
