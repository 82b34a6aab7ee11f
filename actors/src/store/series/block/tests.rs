//! Round trips of every codec (property tests), garbage that must not panic, and the
//! measurement that chose XOR for rates and scaled integers for optics.

use super::*;
use crate::store::series::realistic::{realistic_rates, realistic_rx};
use proptest::prelude::*;

fn floats_back(values: &[f32]) -> Option<Vec<f32>> {
    let mut out = Vec::new();
    put_floats(&mut out, values.iter().copied());
    let mut reader = Reader::new(&out);
    let back = floats(&mut reader, values.len())?;
    (reader.remaining() == 0).then_some(back)
}

proptest! {
    #[test]
    fn timestamps_round_trip(times in proptest::collection::vec(any::<u32>(), 0..300)) {
        let mut out = Vec::new();
        put_times(&mut out, &times);
        let mut reader = Reader::new(&out);
        prop_assert_eq!(super::times(&mut reader, times.len()), Some(times));
        prop_assert_eq!(reader.remaining(), 0);
    }

    #[test]
    fn integers_round_trip(values in proptest::collection::vec(any::<i32>(), 0..300)) {
        let mut out = Vec::new();
        put_integers(&mut out, values.iter().copied());
        let mut reader = Reader::new(&out);
        prop_assert_eq!(integers(&mut reader, values.len()), Some(values));
    }

    /// Bit for bit, NaNs and infinities and signed zeros included.
    #[test]
    fn floats_round_trip_bit_for_bit(bits in proptest::collection::vec(any::<u32>(), 0..300)) {
        let values: Vec<f32> = bits.iter().map(|&b| f32::from_bits(b)).collect();
        let back = floats_back(&values).expect("decodes");
        prop_assert_eq!(back.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), bits);
    }

    /// Values near each other exercise the reused XOR window.
    #[test]
    fn close_floats_round_trip(start in any::<u32>(), steps in proptest::collection::vec(0u32..64, 0..300)) {
        let mut bits = vec![start];
        for step in steps {
            let last = *bits.last().expect("one");
            bits.push(last ^ step);
        }
        let values: Vec<f32> = bits.iter().map(|&b| f32::from_bits(b)).collect();
        let back = floats_back(&values).expect("decodes");
        prop_assert_eq!(back.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), bits);
    }

    #[test]
    fn garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200), count in 0usize..1_000_000) {
        let _ = super::times(&mut Reader::new(&bytes), count);
        let _ = integers(&mut Reader::new(&bytes), count);
        let _ = floats(&mut Reader::new(&bytes), count);
    }
}

fn integer_bytes(values: &[i64]) -> usize {
    let mut out = Vec::new();
    let mut previous = 0i64;
    for &v in values {
        put_varint(&mut out, zigzag(v - previous));
        previous = v;
    }
    out.len()
}

fn float_bytes(values: &[f32]) -> usize {
    let mut out = Vec::new();
    put_floats(&mut out, values.iter().copied());
    out.len()
}

/// Bytes a value of each codec, over 200 ONUs' days (traffic, 288 points) and weeks
/// (optics Rx, 672 points). Scaled integers of rates are whole bit/s, which the f32 the
/// store keeps is not (it keeps 24 bits of mantissa): they are measured as the nearest
/// lossless alternative. `cargo test -p ponkeeper-actors codecs_on -- --nocapture`
#[test]
fn codecs_on_realistic_series() {
    let (mut xor_rates, mut int_rates, mut bits_rates) = (0, 0, 0);
    let (mut xor_rx, mut int_rx, mut n_rates, mut n_rx) = (0, 0, 0, 0);
    for onu in 1..=200 {
        let rates = realistic_rates(onu, 288);
        xor_rates += float_bytes(&rates);
        int_rates += integer_bytes(&rates.iter().map(|&r| r.round() as i64).collect::<Vec<_>>());
        bits_rates += integer_bytes(
            &rates
                .iter()
                .map(|&r| i64::from(r.to_bits()))
                .collect::<Vec<_>>(),
        );
        n_rates += rates.len();
        let rx = realistic_rx(onu, 672);
        xor_rx += float_bytes(&rx.iter().map(|&c| c as f32 / 100.0).collect::<Vec<_>>());
        int_rx += integer_bytes(&rx.iter().map(|&c| i64::from(c)).collect::<Vec<_>>());
        n_rx += rx.len();
    }
    let per = |bytes: usize, n: usize| bytes as f64 / n as f64;
    println!(
        "rates: XOR f32 {:.2} B, delta of whole bit/s {:.2} B, delta of f32 bits {:.2} B a value",
        per(xor_rates, n_rates),
        per(int_rates, n_rates),
        per(bits_rates, n_rates)
    );
    println!(
        "optics Rx: XOR f32 {:.2} B, delta of centi-dBm {:.2} B a value",
        per(xor_rx, n_rx),
        per(int_rx, n_rx)
    );
    // What the choice rests on: rates cost no more as XOR than as exact integers, and
    // optics as scaled integers cost about a byte.
    assert!(per(xor_rates, n_rates) <= per(int_rates, n_rates) + 0.5);
    assert!(per(int_rx, n_rx) < per(xor_rx, n_rx));
    assert!(per(int_rx, n_rx) <= 1.1);
}
