//! How a column's raw SNMP value becomes the API's value and back: powers and readings
//! scaled or wrapped, distances in metres or tenths, serials as bytes, text or hex, and
//! the sentinels that mean "no reading". The poller decodes a [`Cell`] with the column's
//! [`Encoding`]; the simulator encodes with the same column, so the two cannot disagree.

use super::text;
use super::{Encoding, OnuColumn};

/// One walked value as the codecs take it: an integer or an OCTET STRING.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cell<'a> {
    Integer(i64),
    Octets(&'a [u8]),
}

impl OnuColumn {
    /// A reading (dBm, °C, V, mA) from an integer or, for [`Encoding::TextReading`], a
    /// text cell; `None` when absent or implausible.
    pub fn reading(&self, cell: Cell) -> Option<f64> {
        match (self.encoding, cell) {
            (Encoding::TextReading { .. }, Cell::Octets(bytes)) => text::parse_reading(bytes)
                .filter(|value| value.abs() <= PLAUSIBLE_DBM)
                .map(crate::domain::round_dbm),
            (_, Cell::Integer(raw)) => self.decode_dbm(raw),
            _ => None,
        }
    }

    /// A distance in whole metres from an integer or, for [`Encoding::TextMetres`], a text
    /// cell.
    pub fn metres(&self, cell: Cell) -> Option<u32> {
        match (self.encoding, cell) {
            (Encoding::TextMetres, Cell::Octets(bytes)) => text::parse_metres(bytes),
            (_, Cell::Integer(raw)) => self.decode_metres(raw),
            _ => None,
        }
    }

    /// An integer (status, down cause) from an integer cell or, for the text
    /// enumerations ([`Encoding::TextEnum`], [`Encoding::TextCode`]), a text cell.
    pub fn integer(&self, cell: Cell) -> Option<i64> {
        match (self.encoding, cell) {
            (_, Cell::Integer(raw)) => self.decode_integer(raw),
            (Encoding::TextEnum(words), Cell::Octets(bytes)) => {
                let word = std::str::from_utf8(bytes)
                    .ok()?
                    .trim_end_matches('\0')
                    .trim();
                words
                    .iter()
                    .find(|(known, _)| known.eq_ignore_ascii_case(word))
                    .map(|&(_, value)| value)
            }
            (Encoding::TextCode, Cell::Octets(bytes)) => std::str::from_utf8(bytes)
                .ok()?
                .trim_end_matches('\0')
                .trim()
                .parse()
                .ok(),
            _ => None,
        }
    }

    /// An integer as a text column prints it (the simulator's side); `None` for an
    /// integer column, or a value the enumeration has no word for.
    pub fn encode_text_integer(&self, raw: i64) -> Option<String> {
        match self.encoding {
            Encoding::TextEnum(words) => words
                .iter()
                .find(|&&(_, value)| value == raw)
                .map(|(word, _)| word.to_string()),
            Encoding::TextCode => Some(raw.to_string()),
            _ => None,
        }
    }

    /// A reading as the device prints it, for text columns (the simulator's side);
    /// `None` for an integer column.
    pub fn encode_text_reading(&self, value: Option<f64>) -> Option<String> {
        let Encoding::TextReading { form, absent } = self.encoding else {
            return None;
        };
        Some(value.map_or_else(|| absent.to_string(), |v| text::format_reading(v, form)))
    }
}

/// Largest optical power, in either sign, a decoded reading may have: PON optics live
/// between about −40 and +10 dBm, so anything past this is a device's garbage. The same
/// bound holds the transceiver readings (°C, V, mA) to what an ONU can report.
pub const PLAUSIBLE_DBM: f64 = 100.0;

impl OnuColumn {
    /// Decodes a raw integer to the API's dBm (or, for [`Encoding::Scaled`], °C, V or
    /// mA), `None` when absent, or when so far out of range (beyond ±[`PLAUSIBLE_DBM`])
    /// that it cannot be a reading.
    pub fn decode_dbm(&self, raw: i64) -> Option<f64> {
        if self.absent.contains(&raw) {
            return None;
        }
        let (raw, offset, divisor) = match self.encoding {
            Encoding::ScaledDbm { offset, divisor } => (raw, offset, divisor),
            Encoding::Scaled { divisor } => (raw, 0, divisor),
            Encoding::WrappingDbm {
                offset,
                divisor,
                wrap_above,
                modulus,
            } => {
                let raw = if raw > wrap_above {
                    raw.checked_sub(modulus)?
                } else {
                    raw
                };
                (raw, offset, divisor)
            }
            _ => return None,
        };
        let dbm = raw.checked_sub(offset)? as f64 / divisor;
        (dbm.abs() <= PLAUSIBLE_DBM).then(|| crate::domain::round_dbm(dbm))
    }

    /// Encodes a dBm reading as the device would report it (the simulator's side).
    pub fn encode_dbm(&self, dbm: Option<f64>) -> i64 {
        match (self.encoding, dbm) {
            (Encoding::ScaledDbm { offset, divisor }, Some(value)) => {
                (value * divisor).round() as i64 + offset
            }
            (Encoding::Scaled { divisor }, Some(value)) => (value * divisor).round() as i64,
            (
                Encoding::WrappingDbm {
                    offset,
                    divisor,
                    modulus,
                    ..
                },
                Some(value),
            ) => {
                let raw = (value * divisor).round() as i64 + offset;
                if raw < 0 {
                    raw + modulus
                } else {
                    raw
                }
            }
            _ => self.absent.first().copied().unwrap_or(0),
        }
    }

    /// Decodes an integer that is absent when it matches a sentinel.
    pub fn decode_integer(&self, raw: i64) -> Option<i64> {
        (!self.absent.contains(&raw)).then_some(raw)
    }

    /// Decodes a distance to whole metres ([`Encoding::Metres`] or
    /// [`Encoding::Decimetres`]), `None` when absent or negative.
    pub fn decode_metres(&self, raw: i64) -> Option<u32> {
        let raw = self.decode_integer(raw)?;
        let metres = match self.encoding {
            Encoding::Decimetres => raw.checked_add(5)?.div_euclid(10),
            _ => raw,
        };
        u32::try_from(metres).ok()
    }

    /// Encodes a distance in metres as the device reports it (the simulator's side).
    pub fn encode_metres(&self, metres: u32) -> i64 {
        match self.encoding {
            Encoding::Decimetres => i64::from(metres) * 10,
            _ => i64::from(metres),
        }
    }

    /// Shows an OCTET STRING value as the API does (serial, MAC or text).
    pub fn decode_octets(&self, bytes: &[u8]) -> String {
        match self.encoding {
            Encoding::GponSerial => format_gpon_serial(bytes),
            Encoding::GponSerialText => format_gpon_serial_text(bytes),
            Encoding::MacAddress => format_mac(bytes),
            Encoding::SerialText { .. } => text::parse_serial(bytes),
            Encoding::MacText => text::parse_mac_text(bytes),
            _ => String::from_utf8_lossy(bytes)
                .trim_end_matches('\0')
                .to_string(),
        }
    }

    /// How many bytes a serial of this column has (8 GPON, 6 MAC, 13 `VEND:XXXXXXXX`),
    /// for the simulator.
    pub fn serial_len(&self) -> usize {
        match self.encoding {
            Encoding::MacAddress => 6,
            Encoding::GponSerialText => 13,
            Encoding::SerialText { .. } | Encoding::MacText => 8,
            _ => 8,
        }
    }
}

/// Formats an 8-byte GPON serial: `HWTC` + `1A2B3C4D`. Other lengths are shown as hex.
pub fn format_gpon_serial(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(2 * bytes.len());
    let hex = if bytes.len() == 8 && bytes[..4].iter().all(|b| b.is_ascii_alphanumeric()) {
        out.extend(bytes[..4].iter().map(|&b| b as char));
        &bytes[4..]
    } else {
        bytes
    };
    for &b in hex {
        push_hex(&mut out, b, b"0123456789ABCDEF");
    }
    out
}

/// `b` as two hex digits from `digits` (upper or lower case). By hand: a poll formats
/// every ONU's serial, and `write!` with `{:02X}` costs several times as much.
fn push_hex(out: &mut String, b: u8, digits: &[u8; 16]) {
    out.push(char::from(digits[usize::from(b >> 4)]));
    out.push(char::from(digits[usize::from(b & 0x0f)]));
}

/// Formats a GPON serial sent as text, `VEND:XXXXXXXX`, as [`format_gpon_serial`] does
/// the 8 bytes (`HWTC:1a2b3c4d` → `HWTC1A2B3C4D`); any other text is shown as sent.
pub fn format_gpon_serial_text(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end_matches('\0');
    match text.split_once(':') {
        Some((vendor, number))
            if vendor.len() == 4
                && vendor.bytes().all(|b| b.is_ascii_alphanumeric())
                && number.len() == 8
                && number.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            format!("{vendor}{}", number.to_ascii_uppercase())
        }
        _ => text.to_string(),
    }
}

/// Formats a MAC address as lower-case hex pairs joined by colons (`a0:b1:c2:d3:e4:f5`).
pub fn format_mac(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(3 * bytes.len());
    for (i, &b) in bytes.iter().enumerate() {
        if i > 0 {
            out.push(':');
        }
        push_hex(&mut out, b, b"0123456789abcdef");
    }
    out
}

/// Parses `HWTC1A2B3C4D` back to its 8 bytes (the simulator's side, and inventory checks).
pub fn parse_gpon_serial(serial: &str) -> Option<[u8; 8]> {
    let bytes = serial.as_bytes();
    if bytes.len() != 12 || !bytes[..4].iter().all(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    let mut out = [0u8; 8];
    out[..4].copy_from_slice(&bytes[..4]);
    for i in 0..4 {
        let hex = std::str::from_utf8(&bytes[4 + 2 * i..6 + 2 * i]).ok()?;
        out[4 + i] = u8::from_str_radix(hex, 16).ok()?;
    }
    Some(out)
}
