//! Fleet-wide lists across members: each member returns the first `offset + size` items
//! of its own share in the list's order, and the asked member merges them as a database
//! merges sorted runs, then cuts the page. `totalCount` is the sum of the shares' counts
//! less the items two members both returned (an OLT in hand-over). Which lists merge, and
//! in which order, is [`MergedList`]; the items are the API's JSON, compared by field.
//! Only the fields a list orders and identifies its items by are parsed ([`Item`]); the
//! rest of each item passes through as the member wrote it.

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;

/// One field of an item's sort key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// A number, ascending.
    Number(&'static str),
    /// A number ascending, items without one after every item with one.
    NumberNullsLast(&'static str),
    /// Text, ascending by bytes (Rust's `str` order, which the lists sort by).
    Text(&'static str),
    /// A number, descending (newest first, by id).
    NumberDescending(&'static str),
    /// Text, descending (a local date-time, newest first).
    TextDescending(&'static str),
    /// Items without the field (or with `null`) first: "not acknowledged", "going on".
    NullFirst(&'static str),
    /// Text by its place in a list of values (a severity, most severe first); values not
    /// listed last.
    Rank(&'static str, &'static [&'static str]),
}

/// A fleet-wide list the members merge: its path under the API, the order its handler
/// sorts by, and the fields that say two items are the same thing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MergedList {
    pub path: &'static str,
    pub order: &'static [Key],
    pub identity: &'static [&'static str],
}

/// The lists merged across members (docs/scale-out.md lists the rest, answered per member).
pub const MERGED: &[MergedList] = &[
    MergedList {
        path: "/olts",
        order: &[Key::Number("id")],
        identity: &["id"],
    },
    MergedList {
        path: "/onus",
        order: &[Key::Number("id")],
        identity: &["id"],
    },
    MergedList {
        path: "/optics",
        order: &[Key::NumberNullsLast("rxPower"), Key::Number("onuId")],
        identity: &["onuId"],
    },
    MergedList {
        path: "/vlans",
        order: &[Key::Number("oltId"), Key::Number("vlanId")],
        identity: &["oltId", "vlanId"],
    },
    MergedList {
        path: "/unconfigured-onus",
        order: &[
            Key::Number("oltId"),
            Key::Text("ponPort"),
            Key::Text("serial"),
        ],
        identity: &["oltId", "ponPort", "serial"],
    },
    // Each member numbers the events it records; `member` tells them apart.
    MergedList {
        path: "/events",
        order: &[Key::TextDescending("at"), Key::NumberDescending("id")],
        identity: &["member", "id"],
    },
    // Alarm ids are the ids of the events that raised them, from the members' own blocks.
    MergedList {
        path: "/alarms",
        order: &[
            Key::NullFirst("acknowledgedAt"),
            Key::NullFirst("clearedAt"),
            Key::Rank("severity", &["CRITICAL", "WARNING", "INFO"]),
            Key::TextDescending("startedAt"),
            Key::NumberDescending("id"),
        ],
        identity: &["id"],
    },
    MergedList {
        path: "/outages",
        order: &[
            Key::TextDescending("startedAt"),
            Key::NumberDescending("id"),
        ],
        identity: &["id"],
    },
    // Each member logs the requests it was asked; ids come from the members' own blocks.
    MergedList {
        path: "/audit-logs",
        order: &[Key::TextDescending("at"), Key::NumberDescending("id")],
        identity: &["id"],
    },
];

/// The merged list served at `path`, if it is one.
pub fn list_at(path: &str) -> Option<&'static MergedList> {
    MERGED.iter().find(|l| l.path == path)
}

/// One member's share: its first items in the list's order and how many it has in all.
#[derive(Debug, Clone, Default)]
pub struct Share {
    pub items: Vec<Item>,
    pub total: u64,
}

/// One item of a share: the fields its list orders and identifies it by, and the item
/// itself as the member wrote it.
#[derive(Debug, Clone)]
pub struct Item {
    keys: Value,
    raw: Box<RawValue>,
}

impl Item {
    /// The item as the member wrote it.
    pub fn raw(&self) -> &RawValue {
        &self.raw
    }
}

impl MergedList {
    /// A member's page (`{"data": [...], "meta": {"totalCount": N}}`) as a share: each
    /// item's key fields parsed, the rest kept as text. `None` when it is not such a page.
    pub fn share_of(&self, page: &[u8]) -> Option<Share> {
        #[derive(Deserialize)]
        struct Page<'a> {
            #[serde(borrow)]
            data: Vec<&'a RawValue>,
            meta: Meta,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Meta {
            total_count: u64,
        }
        let page: Page = serde_json::from_slice(page).ok()?;
        let items = page
            .data
            .into_iter()
            .map(|raw| self.item(raw))
            .collect::<Option<Vec<_>>>()?;
        Some(Share {
            items,
            total: page.meta.total_count,
        })
    }

    /// `raw` (one item of this list) with its key fields parsed.
    pub fn item(&self, raw: &RawValue) -> Option<Item> {
        let mut reader = serde_json::Deserializer::from_str(raw.get());
        let keys = KeyFields(self).deserialize(&mut reader).ok()?;
        Some(Item {
            keys,
            raw: raw.to_owned(),
        })
    }

    fn wants(&self, field: &str) -> bool {
        self.identity.contains(&field) || self.order.iter().any(|key| key.field() == field)
    }

    /// `a` against `b` in the list's order.
    pub fn compare(&self, a: &Value, b: &Value) -> Ordering {
        self.order
            .iter()
            .map(|key| compare_field(*key, a, b))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    }

    fn same(&self, a: &Value, b: &Value) -> bool {
        self.identity.iter().all(|field| a[field] == b[field])
    }

    /// The page at `offset` of `size` items of the shares merged, and the total count.
    pub fn merge(&self, shares: Vec<Share>, offset: usize, size: usize) -> (Vec<Item>, u64) {
        let mut total: u64 = shares.iter().map(|s| s.total).sum();
        let mut all: Vec<Item> = shares.into_iter().flat_map(|s| s.items).collect();
        all.sort_by(|a, b| self.compare(&a.keys, &b.keys));
        let before = all.len();
        all.dedup_by(|later, earlier| self.same(&later.keys, &earlier.keys));
        total = total.saturating_sub((before - all.len()) as u64);
        let page = all.into_iter().skip(offset).take(size).collect();
        (page, total)
    }
}

impl Key {
    fn field(self) -> &'static str {
        match self {
            Key::Number(f)
            | Key::NumberNullsLast(f)
            | Key::Text(f)
            | Key::NumberDescending(f)
            | Key::TextDescending(f)
            | Key::NullFirst(f)
            | Key::Rank(f, _) => f,
        }
    }
}

/// Reads an item's fields that its list wants into an object, skipping the others
/// without building them.
struct KeyFields<'l>(&'l MergedList);

impl<'de> DeserializeSeed<'de> for KeyFields<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for KeyFields<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list item (a JSON object)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        #[derive(Deserialize)]
        struct Name<'a>(#[serde(borrow)] Cow<'a, str>);
        let mut keys = serde_json::Map::new();
        while let Some(Name(name)) = map.next_key::<Name>()? {
            if self.0.wants(&name) {
                keys.insert(name.into_owned(), map.next_value::<Value>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(Value::Object(keys))
    }
}

fn compare_field(key: Key, a: &Value, b: &Value) -> Ordering {
    match key {
        Key::Number(field) => number(&a[field]).total_cmp(&number(&b[field])),
        Key::NumberNullsLast(field) => match (a[field].as_f64(), b[field].as_f64()) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        },
        Key::Text(field) => a[field]
            .as_str()
            .unwrap_or_default()
            .cmp(b[field].as_str().unwrap_or_default()),
        Key::NumberDescending(field) => compare_field(Key::Number(field), b, a),
        Key::TextDescending(field) => compare_field(Key::Text(field), b, a),
        Key::NullFirst(field) => a[field].is_null().cmp(&b[field].is_null()).reverse(),
        Key::Rank(field, values) => {
            let place = |item: &Value| {
                let text = item[field].as_str().unwrap_or_default();
                values
                    .iter()
                    .position(|v| *v == text)
                    .unwrap_or(values.len())
            };
            place(a).cmp(&place(b))
        }
    }
}

/// A JSON number as `f64`; ids up to 2⁵³ are exact, which the id blocks keep them under.
fn number(value: &Value) -> f64 {
    value.as_f64().unwrap_or(f64::NEG_INFINITY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// `values` as the items of `list`, each with a field no list orders by.
    fn items(list: &MergedList, values: Vec<Value>) -> Vec<Item> {
        values
            .into_iter()
            .map(|mut v| {
                v["name"] = json!("not a key");
                let raw = serde_json::value::to_raw_value(&v).expect("raw");
                list.item(&raw).expect("an item")
            })
            .collect()
    }

    fn share(ids: &[u64], total: u64) -> Share {
        let olts = list_at("/olts").expect("merged");
        Share {
            items: items(olts, ids.iter().map(|id| json!({ "id": id })).collect()),
            total,
        }
    }

    fn ids(items: &[Item]) -> Vec<u64> {
        items
            .iter()
            .filter_map(|i| serde_json::from_str::<Value>(i.raw().get()).ok())
            .filter_map(|i| i["id"].as_u64())
            .collect()
    }

    #[test]
    fn only_key_fields_are_parsed_and_the_item_passes_through_whole() {
        let olts = list_at("/olts").expect("merged");
        let page = br#"{"success":true,"data":[{"id":2,"name":"b","ports":[1,{"x":"\u00e9"}]},{"id":1,"name":"a"}],"meta":{"page":0,"size":2,"totalCount":7}}"#;
        let share = olts.share_of(page).expect("a page");
        assert_eq!(share.total, 7);
        assert_eq!(share.items[0].keys, json!({ "id": 2 }));
        assert_eq!(
            share.items[0].raw().get(),
            r#"{"id":2,"name":"b","ports":[1,{"x":"\u00e9"}]}"#
        );
        assert!(olts.share_of(b"{\"data\": 3}").is_none());
        assert!(olts.share_of(b"not json").is_none());
    }

    #[test]
    fn pages_of_merged_shares_are_the_pages_of_the_whole() {
        let olts = list_at("/olts").expect("merged");
        let (page, total) = olts.merge(vec![share(&[1, 4, 5], 3), share(&[2, 3, 6], 3)], 2, 2);
        assert_eq!((ids(&page), total), (vec![3, 4], 6));
    }

    #[test]
    fn an_item_two_members_hold_is_counted_once() {
        let olts = list_at("/olts").expect("merged");
        let (page, total) = olts.merge(vec![share(&[1, 2], 2), share(&[2, 3], 2)], 0, 10);
        assert_eq!((ids(&page), total), (vec![1, 2, 3], 3));
    }

    #[test]
    fn optics_put_the_worst_first_and_the_unread_last() {
        let optics = list_at("/optics").expect("merged");
        let a = Share {
            items: items(
                optics,
                vec![
                    json!({"onuId": 1, "rxPower": -20.5}),
                    json!({"onuId": 3, "rxPower": null}),
                ],
            ),
            total: 2,
        };
        let b = Share {
            items: items(optics, vec![json!({"onuId": 2, "rxPower": -27.1})]),
            total: 1,
        };
        let (page, _) = optics.merge(vec![a, b], 0, 3);
        let order: Vec<u64> = page
            .iter()
            .filter_map(|i| serde_json::from_str::<Value>(i.raw().get()).ok())
            .filter_map(|i| i["onuId"].as_u64())
            .collect();
        assert_eq!(order, vec![2, 1, 3]);
    }

    #[test]
    fn the_audit_log_merges_newest_first() {
        let audit = list_at("/audit-logs").expect("merged");
        let entry = |id: u64, at: &str| json!({"id": id, "at": at});
        let a = Share {
            items: items(
                audit,
                vec![
                    entry(7, "2026-11-27T10:00:02"),
                    entry(5, "2026-11-27T10:00:00"),
                ],
            ),
            total: 2,
        };
        let b = Share {
            items: items(audit, vec![entry(1 << 48, "2026-11-27T10:00:01")]),
            total: 1,
        };
        let (page, total) = audit.merge(vec![a, b], 0, 10);
        assert_eq!(ids(&page), vec![7, 1 << 48, 5]);
        assert_eq!(total, 3);
    }

    #[test]
    fn alarms_merge_unacknowledged_going_on_most_severe_newest_first() {
        let alarm = |id: u64, acknowledged: bool, cleared: bool, severity: &str, at: &str| {
            json!({
                "id": id,
                "acknowledgedAt": acknowledged.then_some("2026-11-27T10:00:00"),
                "clearedAt": cleared.then_some("2026-11-27T10:00:00"),
                "severity": severity,
                "startedAt": at,
            })
        };
        let list = list_at("/alarms").expect("merged");
        let alpha = Share {
            items: items(
                list,
                vec![
                    alarm(3, false, false, "WARNING", "2026-11-27T09:00:00"),
                    alarm(1, true, false, "CRITICAL", "2026-11-27T08:00:00"),
                ],
            ),
            total: 2,
        };
        let bravo = Share {
            items: items(
                list,
                vec![
                    alarm(1 << 48, false, false, "CRITICAL", "2026-11-27T07:00:00"),
                    alarm(
                        (1 << 48) + 1,
                        false,
                        true,
                        "CRITICAL",
                        "2026-11-27T09:30:00",
                    ),
                ],
            ),
            total: 2,
        };
        let (page, total) = list.merge(vec![alpha, bravo], 0, 10);
        assert_eq!(ids(&page), vec![1 << 48, 3, (1 << 48) + 1, 1]);
        assert_eq!(total, 4);
    }

    proptest! {
        /// However the whole is split among members, merging each member's first
        /// `offset + size` gives the page of the whole.
        #[test]
        fn any_split_merges_to_the_whole(
            owners in proptest::collection::vec(0usize..3, 0..60),
            page in 0usize..5,
            size in 1usize..8,
        ) {
            let olts = list_at("/olts").expect("merged");
            let mut members = [Vec::new(), Vec::new(), Vec::new()];
            for (id, owner) in owners.iter().enumerate() {
                members[*owner].push(id as u64);
            }
            let offset = page * size;
            let shares = members
                .iter()
                .map(|m| share(&m[..m.len().min(offset + size)], m.len() as u64))
                .collect();
            let (merged, total) = olts.merge(shares, offset, size);
            let whole: Vec<u64> = (0..owners.len() as u64).skip(offset).take(size).collect();
            prop_assert_eq!(ids(&merged), whole);
            prop_assert_eq!(total, owners.len() as u64);
        }
    }
}
