//! A value as the agent puts it on the wire for one ONU column: an integer, bytes the
//! fleet model holds, or a short text made at answer time (a serial as text, V-SOL's
//! `0.03 mW (-14.61 dBm)`). A leaf: the vendor tables make these, the model and the MIB
//! view serve them.

/// A raw value as the agent puts it on the wire.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Raw<'a> {
    Integer(i64),
    Octets(&'a [u8]),
    /// A short value made at answer time (BDCOM GPON's `HWTC:1A2B3C4D`, V-SOL's
    /// `0.03 mW (-14.61 dBm)`).
    Inline([u8; INLINE], u8),
}

/// The longest value made at answer time.
pub(crate) const INLINE: usize = 24;

impl Raw<'_> {
    /// `text` as a value made at answer time (cut to [`INLINE`] bytes).
    pub fn inline(text: &str) -> Raw<'static> {
        let mut bytes = [0u8; INLINE];
        let len = text.len().min(INLINE);
        bytes[..len].copy_from_slice(&text.as_bytes()[..len]);
        Raw::Inline(bytes, len as u8)
    }

    /// The bytes of an OCTET STRING value.
    pub fn octets(&self) -> Option<&[u8]> {
        match self {
            Raw::Integer(_) => None,
            Raw::Octets(bytes) => Some(bytes),
            Raw::Inline(bytes, len) => bytes.get(..usize::from(*len)),
        }
    }
}
