//! The page of `GET /olts` written straight from the fleet view's summaries into the
//! answer's buffer. Building an [`OltItem`] per OLT (its strings copied, then dropped)
//! and handing it to serde was half of `serve`'s CPU for a page of 100 OLTs: serde_json
//! escapes every key of every item, 1,500 a page. Here the keys and the envelope are
//! constants; text that can hold anything (model, city, node name) is still escaped by
//! serde_json, so the bytes are those the derived `Serialize` writes — a test holds the
//! two to the same bytes.

use super::ItemContext;
use crate::http::Paging;
use ponkeeper_actors::olt::OltSummary;
use std::io::Write;

/// What one OLT takes, about (an item is 250–330 bytes): the buffer is sized for the page.
const BYTES_PER_OLT: usize = 384;

/// `{"success":true,"data":[…],"meta":{…}}` for `olts`, one page whose total is
/// `total_count`.
pub(super) fn write(
    olts: &[OltSummary],
    context: &ItemContext,
    total_count: usize,
    paging: Paging,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(BYTES_PER_OLT * (olts.len() + 1));
    out.extend_from_slice(br#"{"success":true,"data":["#);
    for (n, olt) in olts.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        write_olt(&mut out, olt, context);
    }
    let _ = write!(
        out,
        r#"],"meta":{{"page":{},"size":{},"totalCount":{}}}}}"#,
        paging.page, paging.size, total_count
    );
    out
}

/// One item, field by field in [`OltItem`]'s order.
fn write_olt(out: &mut Vec<u8>, olt: &OltSummary, context: &ItemContext) {
    let mut number = itoa::Buffer::new();
    out.extend_from_slice(br#"{"id":"#);
    out.extend_from_slice(number.format(olt.id).as_bytes());
    out.extend_from_slice(br#","ip":""#);
    out.extend_from_slice(super::ip_text(olt.ip).as_bytes());
    out.extend_from_slice(br#"","vendor":"#);
    text(out, olt.vendor_name());
    out.extend_from_slice(br#","family":"#);
    match olt.family {
        Some(family) => text(out, family),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(br#","model":"#);
    text(out, &olt.model);
    out.extend_from_slice(br#","status":"#);
    let _ = serde_json::to_writer(&mut *out, &olt.status);
    out.extend_from_slice(br#","city":"#);
    text(out, &olt.city);
    out.extend_from_slice(br#","node":"#);
    match olt.node.and_then(|id| context.inventory.node(id)) {
        Some(node) => {
            out.extend_from_slice(br#"{"id":"#);
            out.extend_from_slice(number.format(node.id).as_bytes());
            out.extend_from_slice(br#","name":"#);
            text(out, &node.name);
            out.extend_from_slice(br#","city":"#);
            text(out, &node.city);
            out.push(b'}');
        }
        None => out.extend_from_slice(b"null"),
    }
    for (key, value) in [
        (&br#","totalPorts":"#[..], olt.total_ports),
        (br#","totalOnu":"#, olt.total_onu),
        (br#","onuOnline":"#, olt.onu_online),
        (
            br#","onuOffline":"#,
            olt.total_onu.saturating_sub(olt.onu_online),
        ),
    ] {
        out.extend_from_slice(key);
        out.extend_from_slice(number.format(value).as_bytes());
    }
    out.extend_from_slice(br#","lastUpdate":""#);
    out.extend_from_slice(context.clock.format(olt.last_update).as_bytes());
    out.push(b'"');
    if let Some(member) = context.member {
        out.extend_from_slice(br#","member":"#);
        text(out, member);
    }
    out.push(b'}');
}

/// `value` as a JSON string, escaped as serde_json escapes it.
fn text(out: &mut Vec<u8>, value: &str) {
    let _ = serde_json::to_writer(&mut *out, value);
}

#[cfg(test)]
mod tests {
    use super::super::{item_in, ItemContext};
    use crate::clock::Clock;
    use crate::http::{Meta, Paged, Paging};
    use chrono::{TimeZone, Utc};
    use ponkeeper_actors::domain::{SessionStatus, Vendor};
    use ponkeeper_actors::inventory::Inventory;
    use ponkeeper_actors::olt::OltSummary;

    fn olt(id: u32, node: Option<u32>, family: Option<&'static str>) -> OltSummary {
        let at = Utc
            .with_ymd_and_hms(2026, 11, 28, 2, 40, 5)
            .single()
            .expect("a time");
        OltSummary {
            id,
            ip: if id % 2 == 0 {
                "192.168.100.254".parse().expect("address")
            } else {
                "fe80::1".parse().expect("address")
            },
            vendor: (id % 3 != 0).then_some(Vendor::Zte),
            family,
            model: "C320 \"lab\"\n\u{1}\t/é".to_string(),
            city: "Пермь \\ north".to_string(),
            node,
            status: SessionStatus::Online,
            status_since: at,
            total_ports: 16,
            total_onu: 128 + id,
            onu_online: 100 + id * 40,
            last_update: at,
        }
    }

    /// The hand-written page is byte for byte what serde writes for the same items, with
    /// and without a node, a family, a vendor and a cluster member, and with text that
    /// needs escaping.
    #[test]
    fn pages_are_the_bytes_serde_writes() {
        // One node, whose name needs escaping; node 99 is not in the inventory.
        let inventory =
            Inventory::parse("[[nodes]]\nid = 3\nname = 'Узел \"Центр\" \\ 1'\ncity = \"Kazan\"\n")
                .expect("inventory");
        let olts = vec![
            olt(1, Some(3), Some("C320")),
            olt(2, None, None),
            olt(3, Some(99), Some("MA5800")),
        ];
        let paging = Paging { page: 2, size: 3 };
        for member in [None, Some("alpha \"1\"")] {
            for clock in ["UTC", "Europe/Moscow"] {
                let context = ItemContext {
                    clock: Clock::from_config(clock).expect("zone"),
                    inventory: &inventory,
                    member,
                };
                let expected = serde_json::to_vec(&Paged {
                    success: true,
                    data: olts.iter().map(|o| item_in(&context, o.clone())).collect(),
                    meta: Meta {
                        page: 2,
                        size: 3,
                        total_count: 11,
                    },
                })
                .expect("serde");
                let written = super::write(&olts, &context, 11, paging);
                assert_eq!(
                    String::from_utf8(written).expect("UTF-8"),
                    String::from_utf8(expected).expect("UTF-8")
                );
            }
        }
        let empty = super::write(
            &[],
            &ItemContext {
                clock: Clock::from_config("UTC").expect("zone"),
                inventory: &inventory,
                member: None,
            },
            0,
            paging,
        );
        assert_eq!(
            empty,
            br#"{"success":true,"data":[],"meta":{"page":2,"size":3,"totalCount":0}}"#
        );
    }
}
