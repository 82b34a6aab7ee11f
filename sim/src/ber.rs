//! A small BER writer for SNMP v1/v2c responses. snmp2 decodes requests for the agent
//! ([`super::agent`]) but keeps its encoder crate-private, so responses are written here:
//! varbinds are appended one by one to a reusable buffer (which lets GETBULK stop when the
//! next varbind would not fit a datagram), then framed once with the message header.
//!
//! [`Value`], [`Name`] and [`ResponseWriter`] are public for one outside user: the
//! property tests of the SNMP client's decoder in `ponkeeper-actors`
//! (`actors/tests/snmp_decode.rs`), which decode what this encoder writes.

/// BER / SNMP tags the agent writes.
pub(crate) mod tag {
    pub const INTEGER: u8 = 0x02;
    pub const OCTET_STRING: u8 = 0x04;
    pub const NULL: u8 = 0x05;
    pub const OBJECT_IDENTIFIER: u8 = 0x06;
    pub const SEQUENCE: u8 = 0x30;
    pub const COUNTER32: u8 = 0x41;
    pub const TIMETICKS: u8 = 0x43;
    pub const COUNTER64: u8 = 0x46;
    pub const GET_RESPONSE: u8 = 0xA2;
    pub const NO_SUCH_OBJECT: u8 = 0x80;
    pub const NO_SUCH_INSTANCE: u8 = 0x81;
    pub const END_OF_MIB_VIEW: u8 = 0x82;
}

/// A varbind value the agent can send.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value<'a> {
    Integer(i64),
    Octets(&'a [u8]),
    /// A short OCTET STRING made at answer time (a serial as text), bytes and length.
    Inline([u8; crate::raw::INLINE], u8),
    Oid(&'static [u32]),
    TimeTicks(u32),
    Counter32(u32),
    Counter64(u64),
    Null,
    NoSuchObject,
    NoSuchInstance,
    EndOfMibView,
}

/// The name of a varbind: arcs of our own, or the encoded OID of a request echoed back.
#[derive(Debug, Clone, Copy)]
pub enum Name<'a> {
    Arcs(&'a [u64]),
    Encoded(&'a [u8]),
}

/// Reusable response encoder: one per agent task.
#[derive(Debug, Default)]
pub struct ResponseWriter {
    /// Concatenated varbind TLVs of the response being built.
    varbinds: Vec<u8>,
    /// One varbind's content while it is encoded.
    scratch: Vec<u8>,
    /// The finished message.
    message: Vec<u8>,
}

impl ResponseWriter {
    /// Starts a new response.
    pub fn clear(&mut self) {
        self.varbinds.clear();
    }

    /// Appends a varbind unless the varbind list would then exceed `limit` bytes.
    /// Returns whether it was appended.
    pub fn push(&mut self, name: Name<'_>, value: Value<'_>, limit: usize) -> bool {
        self.scratch.clear();
        match name {
            Name::Arcs(arcs) => push_oid(&mut self.scratch, arcs),
            Name::Encoded(bytes) => push_tlv(&mut self.scratch, tag::OBJECT_IDENTIFIER, bytes),
        }
        push_value(&mut self.scratch, value);
        let added = 1 + length_len(self.scratch.len()) + self.scratch.len();
        if self.varbinds.len() + added > limit {
            return false;
        }
        push_tlv(&mut self.varbinds, tag::SEQUENCE, &self.scratch);
        true
    }

    /// Frames the varbinds as a Response-PDU message and returns its bytes.
    pub fn finish(
        &mut self,
        version: i64,
        community: &[u8],
        request_id: i32,
        error_status: u32,
        error_index: u32,
    ) -> &[u8] {
        self.finish_pdu(
            tag::GET_RESPONSE,
            version,
            community,
            request_id,
            error_status,
            error_index,
        )
    }

    /// Frames the varbinds as a message with any PDU tag (tests build requests with it;
    /// for GETBULK the two error fields carry non-repeaters and max-repetitions).
    pub fn finish_pdu(
        &mut self,
        pdu_tag: u8,
        version: i64,
        community: &[u8],
        request_id: i32,
        error_status: u32,
        error_index: u32,
    ) -> &[u8] {
        let mut pdu_head = Vec::with_capacity(16);
        push_integer(&mut pdu_head, tag::INTEGER, i64::from(request_id));
        push_integer(&mut pdu_head, tag::INTEGER, i64::from(error_status));
        push_integer(&mut pdu_head, tag::INTEGER, i64::from(error_index));
        let mut message_head = Vec::with_capacity(community.len() + 8);
        push_integer(&mut message_head, tag::INTEGER, version);
        push_tlv(&mut message_head, tag::OCTET_STRING, community);

        let list_len = 1 + length_len(self.varbinds.len()) + self.varbinds.len();
        let pdu_content = pdu_head.len() + list_len;
        let pdu_len = 1 + length_len(pdu_content) + pdu_content;
        let message_content = message_head.len() + pdu_len;

        let out = &mut self.message;
        out.clear();
        out.reserve(message_content + 8);
        out.push(tag::SEQUENCE);
        push_length(out, message_content);
        out.extend_from_slice(&message_head);
        out.push(pdu_tag);
        push_length(out, pdu_content);
        out.extend_from_slice(&pdu_head);
        out.push(tag::SEQUENCE);
        push_length(out, self.varbinds.len());
        out.extend_from_slice(&self.varbinds);
        &self.message
    }
}

/// Bytes a definite length takes.
pub(crate) fn length_len(len: usize) -> usize {
    if len < 0x80 {
        1
    } else {
        1 + (usize::BITS - len.leading_zeros()).div_ceil(8) as usize
    }
}

pub(crate) fn push_length(out: &mut Vec<u8>, len: usize) {
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes = len.to_be_bytes();
        let skip = bytes.iter().take_while(|&&b| b == 0).count();
        out.push(0x80 | (bytes.len() - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
}

pub(crate) fn push_tlv(out: &mut Vec<u8>, tag: u8, content: &[u8]) {
    out.push(tag);
    push_length(out, content.len());
    out.extend_from_slice(content);
}

/// A two's-complement integer in its fewest bytes.
pub(crate) fn push_integer(out: &mut Vec<u8>, tag: u8, value: i64) {
    let bytes = value.to_be_bytes();
    let mut start = 0;
    while start < 7 {
        let (b, next) = (bytes[start], bytes[start + 1]);
        if (b == 0x00 && next & 0x80 == 0) || (b == 0xFF && next & 0x80 != 0) {
            start += 1;
        } else {
            break;
        }
    }
    push_tlv(out, tag, &bytes[start..]);
}

/// Appends an unsigned application type (Counter32, Counter64): big-endian, fewest
/// bytes, with a leading zero byte where the top bit is set.
fn push_unsigned(out: &mut Vec<u8>, tag: u8, value: u64) {
    let mut bytes = [0u8; 9];
    bytes[1..].copy_from_slice(&value.to_be_bytes());
    let mut start = 0;
    while start < 8 && bytes[start] == 0 && bytes[start + 1] & 0x80 == 0 {
        start += 1;
    }
    push_tlv(out, tag, &bytes[start..]);
}

/// Appends `value` as base-128 with continuation bits.
fn push_base128(out: &mut Vec<u8>, value: u64) {
    let groups = ((u64::BITS - value.leading_zeros()).max(1)).div_ceil(7);
    for i in (0..groups).rev() {
        let byte = ((value >> (7 * i)) & 0x7F) as u8;
        out.push(if i == 0 { byte } else { byte | 0x80 });
    }
}

/// Encodes an OBJECT IDENTIFIER; fewer than two arcs encode as `0.0`.
pub(crate) fn push_oid(out: &mut Vec<u8>, arcs: &[u64]) {
    let mut body = Vec::with_capacity(arcs.len() * 5);
    let (first, second) = match arcs {
        [a, b, ..] => (*a, *b),
        [a] => (*a, 0),
        [] => (0, 0),
    };
    push_base128(&mut body, first.saturating_mul(40).saturating_add(second));
    for &arc in arcs.iter().skip(2) {
        push_base128(&mut body, arc);
    }
    push_tlv(out, tag::OBJECT_IDENTIFIER, &body);
}

fn push_value(out: &mut Vec<u8>, value: Value<'_>) {
    match value {
        Value::Integer(n) => push_integer(out, tag::INTEGER, n),
        Value::Octets(bytes) => push_tlv(out, tag::OCTET_STRING, bytes),
        Value::Inline(bytes, len) => {
            push_tlv(
                out,
                tag::OCTET_STRING,
                &bytes[..usize::from(len).min(bytes.len())],
            );
        }
        Value::Oid(arcs) => {
            let arcs: Vec<u64> = arcs.iter().map(|&a| u64::from(a)).collect();
            push_oid(out, &arcs);
        }
        Value::TimeTicks(ticks) => push_integer(out, tag::TIMETICKS, i64::from(ticks)),
        Value::Counter32(count) => push_unsigned(out, tag::COUNTER32, u64::from(count)),
        Value::Counter64(count) => push_unsigned(out, tag::COUNTER64, count),
        Value::Null => out.extend_from_slice(&[tag::NULL, 0]),
        Value::NoSuchObject => out.extend_from_slice(&[tag::NO_SUCH_OBJECT, 0]),
        Value::NoSuchInstance => out.extend_from_slice(&[tag::NO_SUCH_INSTANCE, 0]),
        Value::EndOfMibView => out.extend_from_slice(&[tag::END_OF_MIB_VIEW, 0]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_use_fewest_bytes() {
        let enc = |n: i64| {
            let mut out = Vec::new();
            push_integer(&mut out, tag::INTEGER, n);
            out
        };
        assert_eq!(enc(0), [2, 1, 0]);
        assert_eq!(enc(127), [2, 1, 0x7F]);
        assert_eq!(enc(128), [2, 2, 0, 0x80]);
        assert_eq!(enc(-1), [2, 1, 0xFF]);
        assert_eq!(enc(-129), [2, 2, 0xFF, 0x7F]);
        assert_eq!(enc(2_147_483_647), [2, 4, 0x7F, 0xFF, 0xFF, 0xFF]);
    }

    #[test]
    fn oids_and_lengths() {
        let mut out = Vec::new();
        push_oid(&mut out, &[1, 3, 6, 1, 4194312192]);
        assert_eq!(out, [6, 8, 0x2B, 6, 1, 0x8F, 0xD0, 0x80, 0xC0, 0x00]);
        let mut long = Vec::new();
        push_length(&mut long, 300);
        assert_eq!(long, [0x82, 0x01, 0x2C]);
        assert_eq!(length_len(300), 3);
        assert_eq!(length_len(127), 1);
        assert_eq!(length_len(128), 2);
    }

    #[test]
    fn snmp2_decodes_a_response() {
        let mut writer = ResponseWriter::default();
        writer.clear();
        assert!(writer.push(
            Name::Arcs(&[1, 3, 6, 1, 2, 1, 1, 5, 0]),
            Value::Octets(b"OLT-1"),
            1000
        ));
        assert!(writer.push(
            Name::Arcs(&[1, 3, 6, 1, 2, 1, 1, 3, 0]),
            Value::TimeTicks(4_000_000_000),
            1000
        ));
        assert!(writer.push(
            Name::Arcs(&[1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 6, 7]),
            Value::Counter64(u64::MAX),
            1000
        ));
        assert!(writer.push(
            Name::Arcs(&[1, 3, 6, 1, 2, 1, 2, 2, 1, 10, 7]),
            Value::Counter32(u32::MAX),
            1000
        ));
        assert!(writer.push(Name::Arcs(&[1, 3, 6, 1, 9]), Value::EndOfMibView, 1000));
        let bytes = writer.finish(1, b"public", 42, 0, 0).to_vec();
        let pdu = snmp2::Pdu::from_bytes(&bytes).expect("decodes");
        assert_eq!(pdu.req_id, 42);
        assert_eq!(pdu.message_type, snmp2::MessageType::Response);
        let values: Vec<String> = pdu
            .varbinds
            .map(|(oid, v)| format!("{oid} {v:?}"))
            .collect();
        assert_eq!(
            values,
            [
                "1.3.6.1.2.1.1.5.0 OCTET STRING: OLT-1",
                "1.3.6.1.2.1.1.3.0 TIMETICKS: 4000000000",
                "1.3.6.1.2.1.31.1.1.1.6.7 COUNTER64: 18446744073709551615",
                "1.3.6.1.2.1.2.2.1.10.7 COUNTER32: 4294967295",
                "1.3.6.1.9 END OF MIB VIEW",
            ]
        );
    }
}
