//! Values some OLTs send as text where others send integers: V-SOL's and SNR's optics
//! (`-10.47`, `-18.602(dBm)`, `0.03 mW (-14.61 dBm)`, `30.67 C`, `N/A`, `-inf`), SNR's
//! distance (`1520`) and serial (`485754431A2B3C4D`). The poller parses them here and the
//! simulator prints them here, in the [`TextForm`] the column's firmware uses, so the two
//! read the same forms. Forms and sources: docs/devices.md, "V-SOL" and "SNR".

/// How a device prints one reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextForm {
    /// The number alone, two decimals: `-10.47`.
    Plain,
    /// The number and a unit right after it: `-18.602(dBm)`, `30.67 C`, `3.28 V`.
    Unit(&'static str),
    /// Milliwatts and the dBm in brackets: `0.03 mW (-14.61 dBm)` (V-SOL V1600D).
    MilliwattsAndDbm,
}

/// The reading a text value holds: the dBm in brackets where there is one, else the first
/// number; `None` for `N/A`, `-`, `-inf`, an empty value or anything else without a
/// finite number.
pub fn parse_reading(bytes: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(bytes)
        .ok()?
        .trim_end_matches('\0')
        .trim();
    let bracketed = text
        .split_once('(')
        .map(|(_, inside)| inside)
        .filter(|inside| inside.contains("dBm") && !inside.starts_with("dBm"));
    let number = leading_number(bracketed.unwrap_or(text))?;
    number.is_finite().then_some(number)
}

/// The number a text starts with (after spaces): an optional sign, digits, a point.
fn leading_number(text: &str) -> Option<f64> {
    let text = text.trim_start();
    let end = text
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || (i == 0 && (c == '-' || c == '+'))))
        .map_or(text.len(), |(i, _)| i);
    let number = &text[..end];
    number
        .bytes()
        .any(|b| b.is_ascii_digit())
        .then(|| number.parse().ok())
        .flatten()
}

/// A reading as a device of `form` prints it (the simulator's side).
pub fn format_reading(value: f64, form: TextForm) -> String {
    match form {
        TextForm::Plain => format!("{value:.2}"),
        TextForm::Unit(unit) => format!("{value:.2}{unit}"),
        TextForm::MilliwattsAndDbm => {
            let milliwatts = 10f64.powf(value / 10.0);
            format!("{milliwatts:.2} mW ({value:.2} dBm)")
        }
    }
}

/// A whole number of metres sent as text (`1520`, `1520m`); `None` without one.
pub fn parse_metres(bytes: &[u8]) -> Option<u32> {
    let text = std::str::from_utf8(bytes)
        .ok()?
        .trim_end_matches('\0')
        .trim();
    let metres = leading_number(text)?;
    (metres >= 0.0 && metres <= f64::from(u32::MAX)).then(|| metres.round() as u32)
}

/// A GPON serial sent as text, as the API shows it (`HWTC1A2B3C4D`): 16 hex digits
/// (`485754431A2B3C4D`), `HWTC:1A2B3C4D` or `HWTC1a2b3c4d`; any other text is shown as
/// sent, upper-case.
pub fn parse_serial(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end_matches('\0').trim();
    let joined = text.replacen(':', "", 1);
    if let Some(bytes) = super::parse_gpon_serial(&joined.to_ascii_uppercase()) {
        return super::format_gpon_serial(&bytes);
    }
    let octets: Option<Vec<u8>> = (text.len() == 16)
        .then(|| {
            (0..8)
                .map(|i| u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok())
                .collect()
        })
        .flatten();
    match octets {
        Some(octets) => super::format_gpon_serial(&octets),
        None => text.to_ascii_uppercase(),
    }
}

/// An EPON MAC sent as text (`A0:B1:C2:D3:E4:F5`, `a0b1.c2d3.e4f5`, `a0-b1-…`) as the
/// API shows it (`a0:b1:c2:d3:e4:f5`); any other text as sent.
pub fn parse_mac_text(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end_matches('\0').trim();
    match super::provisioning::parse_mac(text) {
        Some(mac) => super::format_mac(&mac),
        None => text.to_string(),
    }
}

/// A GPON serial's 8 bytes as 16 upper-case hex digits (the simulator's side).
pub fn format_hex_serial(serial: &[u8]) -> String {
    serial.iter().map(|b| format!("{b:02X}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_the_firmwares_print_parses() {
        let cases: [(&str, Option<f64>); 12] = [
            ("-10.47", Some(-10.47)),
            ("-18.602(dBm)", Some(-18.602)),
            ("0.03 mW (-14.61 dBm)", Some(-14.61)),
            ("30.67 C", Some(30.67)),
            ("3.28 V", Some(3.28)),
            ("12.5mA", Some(12.5)),
            ("N/A", None),
            ("-", None),
            ("-inf", None),
            ("", None),
            ("  2.1 dBm\0", Some(2.1)),
            ("+1.5", Some(1.5)),
        ];
        for (text, want) in cases {
            assert_eq!(parse_reading(text.as_bytes()), want, "{text:?}");
        }
    }

    #[test]
    fn what_the_simulator_prints_parses_back() {
        for form in [
            TextForm::Plain,
            TextForm::Unit("(dBm)"),
            TextForm::Unit(" C"),
            TextForm::MilliwattsAndDbm,
        ] {
            let text = format_reading(-14.61, form);
            assert_eq!(parse_reading(text.as_bytes()), Some(-14.61), "{text}");
        }
        assert_eq!(
            format_reading(-14.61, TextForm::MilliwattsAndDbm),
            "0.03 mW (-14.61 dBm)"
        );
    }

    #[test]
    fn distances_and_hex_serials() {
        assert_eq!(parse_metres(b"1520"), Some(1520));
        assert_eq!(parse_metres(b"1520m"), Some(1520));
        assert_eq!(parse_metres(b"-"), None);
        assert_eq!(parse_metres(b"-3"), None);
        assert_eq!(parse_serial(b"485754431a2b3c4d"), "HWTC1A2B3C4D");
        assert_eq!(parse_serial(b"HWTC1A2B3C4D"), "HWTC1A2B3C4D");
        assert_eq!(parse_serial(b"HWTC:1a2b3c4d"), "HWTC1A2B3C4D");
        assert_eq!(parse_serial(b"odd one"), "ODD ONE");
        assert_eq!(parse_mac_text(b"A0:B1:C2:D3:E4:F5"), "a0:b1:c2:d3:e4:f5");
        assert_eq!(parse_mac_text(b"a0b1.c2d3.e4f5"), "a0:b1:c2:d3:e4:f5");
        assert_eq!(parse_mac_text(b"n/a"), "n/a");
        let bytes = [0x48, 0x57, 0x54, 0x43, 0x1A, 0x2B, 0x3C, 0x4D];
        assert_eq!(format_hex_serial(&bytes), "485754431A2B3C4D");
    }
}
