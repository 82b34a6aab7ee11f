//! The text an ONU's `q` is looked for in, built the same way by the OLT actor's table and
//! the fleet view's index, and the check of a needle against it that builds nothing for
//! the usual short ASCII serial and description.

/// The lower-cased text a query's `q` (`OnuFilter::text`) is looked for in: the serial
/// and the description, joined by a NUL so a match cannot span both. The fleet view's
/// text index keys its ONUs the same way, so `q` finds the same ONUs on both sides.
pub fn search_key(serial: &str, description: &str) -> String {
    format!("{serial}\0{description}").to_lowercase()
}

/// Whether the search key of `serial` and `description` contains `needle` (lower-cased),
/// without building the key when both are ASCII and short, as nearly every serial and
/// most descriptions are: each byte is lower-cased into a buffer on the stack. Anything
/// else builds the key ([`search_key`]), so the answer is always the key's.
pub fn key_contains(serial: &str, description: &str, needle: &str) -> bool {
    const ROOM: usize = 96;
    let len = serial.len() + 1 + description.len();
    if len > ROOM || !serial.is_ascii() || !description.is_ascii() {
        return search_key(serial, description).contains(needle);
    }
    if needle.is_empty() {
        return true;
    }
    let mut key = [0u8; ROOM];
    let (head, tail) = key.split_at_mut(serial.len());
    head.copy_from_slice(serial.as_bytes());
    tail[1..=description.len()].copy_from_slice(description.as_bytes());
    let key = &mut key[..len];
    key.make_ascii_lowercase();
    key.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The stack-buffer check answers as the built key does, for ASCII and other
        /// text, short and long, with needles taken from the key and not.
        #[test]
        fn key_contains_answers_as_the_key_does(
            serial in "[A-Za-z0-9Ёё]{0,16}",
            description in "[ a-zA-Z0-9,.Ии\\x00]{0,120}",
            cut in any::<(usize, usize)>(),
            other in "[a-zи ]{0,4}",
        ) {
            let key = search_key(&serial, &description);
            let chars: Vec<char> = key.chars().collect();
            let from = cut.0 % (chars.len() + 1);
            let to = from + cut.1 % (chars.len() - from + 1);
            let inside: String = chars[from..to].iter().collect();
            for needle in [inside.as_str(), other.as_str()] {
                prop_assert_eq!(
                    key_contains(&serial, &description, needle),
                    key.contains(needle),
                    "{:?} in {:?}", needle, key
                );
            }
        }
    }
}
