//! The one rule for text that people read — names, addresses, comments, descriptions:
//! no character that is not there to be seen. Control characters, line and paragraph
//! separators, and every format character (Unicode category Cf: the bidirectional
//! controls of "Trojan Source", zero-width spaces and joiners, U+061C, U+FEFF, the soft
//! hyphen, tag characters) make a text read other than it is, in a log, a page, a
//! Telegram message or an e-mail, and let two names that look the same be two names.
//! Names that must be unique are also compared in one Unicode form (NFC: "é" typed as
//! one character or as "e" and an accent is one name).

use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// What kind of character a readable text may not hold, if `c` is one.
pub fn unwelcome(c: char) -> Option<&'static str> {
    match c {
        c if c.is_control() => Some("control character"),
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' => {
            Some("bidirectional control")
        }
        '\u{2028}' | '\u{2029}' => Some("line or paragraph separator"),
        c if is_format(c) => Some("invisible format character"),
        _ => None,
    }
}

/// Whether `c` is a format character (Unicode category Cf).
pub fn is_format(c: char) -> bool {
    c.general_category() == GeneralCategory::Format
}

/// The first character of `text` it may not hold, with its kind, as a field's error
/// words it: `may not hold bidirectional control U+202E`.
pub fn first_unwelcome(text: &str) -> Option<String> {
    text.chars().find_map(|c| {
        unwelcome(c).map(|kind| format!("may not hold {kind} U+{:04X}", u32::from(c)))
    })
}

/// `text` in Unicode's composed form (NFC), as unique names are compared.
pub fn composed(text: &str) -> String {
    text.nfc().collect()
}

/// The character class the documents give for a readable field's `pattern`: the same
/// characters [`unwelcome`] refuses, for the main ones a schema can list (JSON Schema
/// has no Unicode categories): controls, separators, bidirectional controls, zero-width
/// and other format characters of the Basic Multilingual Plane.
pub const READABLE_PATTERN: &str = r"^[^\u0000-\u001F\u007F-\u009F\u00AD\u0600-\u0605\u061C\u06DD\u070F\u0890\u0891\u08E2\u180E\u200B-\u200F\u2028-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\uFFF9-\uFFFB]*$";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_characters_are_refused_and_visible_ones_kept() {
        for c in [
            '\u{200B}',
            '\u{200E}',
            '\u{200F}',
            '\u{061C}',
            '\u{FEFF}',
            '\u{00AD}',
            '\u{E0041}',
            '\u{202E}',
            '\u{2066}',
            '\u{2028}',
            '\u{0007}',
            '\u{2060}',
        ] {
            assert!(unwelcome(c).is_some(), "U+{:04X}", u32::from(c));
        }
        for text in [
            "ODB-1",
            "Иванов И. И.",
            "ул. Ленина, 1",
            "東京",
            "café",
            "ODB 1/2 (A)",
        ] {
            assert_eq!(first_unwelcome(text), None, "{text}");
        }
        assert_eq!(
            first_unwelcome("ODB\u{200B}-1").as_deref(),
            Some("may not hold invisible format character U+200B")
        );
    }

    #[test]
    fn the_documented_pattern_refuses_what_the_rule_refuses_in_the_basic_plane() {
        let class = READABLE_PATTERN
            .trim_start_matches("^[^")
            .trim_end_matches("]*$");
        let ranges: Vec<(u32, u32)> = class
            .split("\\u")
            .filter(|part| !part.is_empty())
            .map(|part| u32::from_str_radix(part.trim_end_matches('-'), 16).expect("hex"))
            .collect::<Vec<_>>()
            .into_iter()
            .zip(
                class
                    .split("\\u")
                    .filter(|p| !p.is_empty())
                    .map(|p| p.ends_with('-')),
            )
            .fold(Vec::new(), |mut ranges: Vec<(u32, u32)>, (code, opens)| {
                match ranges.last_mut() {
                    Some((_, end)) if *end == u32::MAX => *end = code,
                    _ => ranges.push((code, if opens { u32::MAX } else { code })),
                }
                ranges
            });
        let listed = |c: u32| ranges.iter().any(|(from, to)| (*from..=*to).contains(&c));
        for code in 0..=0xFFFF_u32 {
            let Some(c) = char::from_u32(code) else {
                continue;
            };
            assert_eq!(unwelcome(c).is_some(), listed(code), "U+{code:04X}");
        }
    }
}
