//! One optical or transceiver reading of an ONU row (dBm, °C, V, mA), kept as hundredths in
//! two bytes. The API reports every reading rounded to two decimals, so hundredths lose
//! nothing it shows, and a row's six readings take 12 bytes instead of the 96 that six
//! `Option<f64>` take: 107 MB of a national fleet's 1.28 M rows (docs/benchmarks.md, issue
//! 31, fifth and seventh passes). Two bytes hold ±327.67, beyond anything a transceiver
//! reads in these units (Rx and Tx power −50 to +10 dBm, −40 to +100 °C, 3.3 V, bias
//! current under 100 mA): a value beyond it is a device's garbage or a wrong scale, and is
//! kept as no reading rather than as a number no one can trust. The stored optics history
//! keeps its points in the same two bytes. Serialised as the `Option<f64>` it stands for.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A reading rounded to hundredths, or none (the device marks it absent, or sent a value
/// no transceiver reads: not finite, or beyond ±327.67).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reading(i16);

impl Reading {
    /// No reading.
    pub const NONE: Reading = Reading(i16::MIN);

    /// `value` rounded to hundredths, as [`super::round_dbm`] rounds it.
    pub fn new(value: f64) -> Reading {
        let hundredths = (value * 100.0).round();
        // `i16::MIN` itself stands for none, so the range stops one short of it.
        if hundredths.is_finite()
            && hundredths > f64::from(i16::MIN)
            && hundredths <= f64::from(i16::MAX)
        {
            Reading(hundredths as i16)
        } else {
            Reading::NONE
        }
    }

    /// The reading, as the API reports it.
    pub fn get(self) -> Option<f64> {
        (self != Reading::NONE).then(|| f64::from(self.0) / 100.0)
    }

    /// The reading in hundredths (of a dBm, °C, V or mA).
    pub fn hundredths(self) -> Option<i32> {
        (self != Reading::NONE).then_some(i32::from(self.0))
    }

    pub fn is_some(self) -> bool {
        self != Reading::NONE
    }

    pub fn is_none(self) -> bool {
        self == Reading::NONE
    }
}

impl Default for Reading {
    fn default() -> Reading {
        Reading::NONE
    }
}

impl From<Option<f64>> for Reading {
    fn from(value: Option<f64>) -> Reading {
        value.map_or(Reading::NONE, Reading::new)
    }
}

impl From<Reading> for Option<f64> {
    fn from(reading: Reading) -> Option<f64> {
        reading.get()
    }
}

impl fmt::Debug for Reading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.get().fmt(f)
    }
}

impl Serialize for Reading {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.get().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Reading {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Reading, D::Error> {
        Option::<f64>::deserialize(deserializer).map(Reading::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::round_dbm;
    use proptest::prelude::*;

    #[test]
    fn absent_and_unreadable_values_are_none() {
        assert_eq!(Reading::from(None).get(), None);
        assert_eq!(Reading::new(f64::NAN).get(), None);
        assert_eq!(Reading::new(f64::INFINITY).get(), None);
        assert_eq!(Reading::new(-3.0e7).get(), None);
        assert_eq!(Reading::new(327.67).get(), Some(327.67));
        assert_eq!(Reading::new(-327.67).get(), Some(-327.67));
        assert_eq!(
            Reading::new(327.68).get(),
            None,
            "beyond two bytes of hundredths"
        );
        assert_eq!(
            Reading::new(-327.68).get(),
            None,
            "the value that stands for none"
        );
        assert_eq!(Reading::new(0.0).get(), Some(0.0));
        assert!(Reading::default().is_none());
        assert!(Reading::new(-0.004).is_some());
    }

    #[test]
    fn serialises_as_the_option_it_stands_for() {
        let json =
            serde_json::to_string(&[Reading::new(-21.37), Reading::NONE]).expect("serialises");
        assert_eq!(json, "[-21.37,null]");
        let back: Vec<Reading> = serde_json::from_str(&json).expect("reads back");
        assert_eq!(back, [Reading::new(-21.37), Reading::NONE]);
    }

    proptest! {
        /// Within any range a transceiver reads, a reading is the value rounded as the API
        /// rounds it, to the bit.
        #[test]
        fn keeps_what_round_dbm_keeps(value in -327.67f64..327.67) {
            prop_assert_eq!(Reading::new(value).get(), Some(round_dbm(value)));
        }
    }
}
