//! Fuzz target: a response datagram as an OLT (or anything on the network) may send it,
//! through the client's decoding path ([`ponkeeper_actors::snmp::decode_response`]:
//! snmp2's parser and the copy into owned arcs and values). It must decode or be refused
//! with an error, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|datagram: &[u8]| {
    if let Ok((_, varbinds)) = ponkeeper_actors::snmp::decode_response(datagram) {
        for (arcs, value) in &varbinds {
            let _ = (arcs.len(), value.as_i64(), value.as_text());
        }
    }
});
