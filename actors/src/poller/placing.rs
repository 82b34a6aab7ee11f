//! Where a row of the ONU table puts its ONU: the port name and ONU number its index
//! stands for under each [`OnuIndexing`] (a port ifIndex and a number, a packed id, the
//! ONU's own interface, port arcs, a packed integer, or Eltex's slot and serial with the
//! place in columns), and why a row names none ([`Unplaced`]), counted into the poll's
//! warnings so nothing is dropped without a word.

use super::Interfaces;
use crate::domain::PortName;
use crate::profile::{OnuIndexing, Profile};
use compact_str::format_compact;

/// Why a row of the ONU table names no ONU the poller can place. Rows are counted by
/// reason (and port), so a port of 128 ONUs missing from IF-MIB is one warning line.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Unplaced {
    /// The port ifIndex is not in IF-MIB and does not spell a port.
    NoPort(u32),
    /// The port ifIndex is not in IF-MIB; the rows were placed on the port its ifIndex
    /// spells.
    PortDecoded(u32, String),
    /// ZTE: the ponId is not a port id.
    NotAPonId(u32),
    /// BDCOM: the ONU ifIndex names no ONU interface in IF-MIB.
    NoOnuInterface,
    /// The index has a shape the profile does not know.
    BadIndex,
    /// The row has no serial (or MAC).
    NoSerial,
    /// C-Data: the packed index names no port.
    NotPacked(u32),
    /// Eltex: the row has no PON channel or ONU number, and none was read before.
    NoChannel,
}

impl Unplaced {
    /// The warning for the rows at `indexes` (row indexes as `a.b`).
    pub(super) fn describe(&self, indexes: &[String]) -> String {
        let rows = match indexes.len() {
            1 => "1 ONU row".to_string(),
            n => format!("{n} ONU rows"),
        };
        let listed = || {
            let shown: Vec<&str> = indexes.iter().take(5).map(String::as_str).collect();
            let more = indexes.len().saturating_sub(shown.len());
            let shown = shown.join(", ");
            if more == 0 {
                shown
            } else {
                format!("{shown} and {more} more")
            }
        };
        match self {
            Unplaced::NoPort(i) => format!("{rows} on ifIndex {i}: no such port in IF-MIB"),
            Unplaced::PortDecoded(i, port) => format!(
                "{rows} on ifIndex {i}: no such port in IF-MIB; placed on port {port}, decoded from the ifIndex"
            ),
            Unplaced::NotAPonId(id) => format!("{rows} on ponId {id}: not a PON port id"),
            Unplaced::NoOnuInterface => format!(
                "{rows} on ifIndex {}: no ONU interface of that name in IF-MIB",
                listed()
            ),
            Unplaced::BadIndex => format!("{rows} with index {}: cannot decode", listed()),
            Unplaced::NoSerial => format!("{rows} without a serial: index {}", listed()),
            Unplaced::NotPacked(i) => format!("{rows} on index {i}: not a packed ONU index"),
            Unplaced::NoChannel => format!(
                "{rows} without a PON channel or ONU number: index {}",
                listed()
            ),
        }
    }
}

pub(super) fn index_text(index: &[u32]) -> String {
    let arcs: Vec<String> = index.iter().map(u32::to_string).collect();
    arcs.join(".")
}

/// The port name and ONU number a row index stands for, per the profile's indexing, or
/// why it names none. A Huawei port missing from IF-MIB is decoded from its ifIndex
/// (`Err(PortDecoded)` then carries the name the row is placed on).
pub(super) fn locate_onu(
    profile: &Profile,
    interfaces: &Interfaces,
    index: &[u32],
    columns: PlaceColumns,
) -> Result<(PortName, u32), Unplaced> {
    let bad = || Unplaced::BadIndex;
    match profile.onu_indexing {
        OnuIndexing::PortIfIndexAndOnuId => {
            let [if_index, onu_id] = index else {
                return Err(bad());
            };
            if let Some(port) = interfaces.ports.get(if_index) {
                return Ok((port.as_str().into(), *onu_id));
            }
            match profile
                .port_if_index
                .and_then(|layout| layout.port_name(*if_index))
            {
                Some(port) => Err(Unplaced::PortDecoded(*if_index, port)),
                None => Err(Unplaced::NoPort(*if_index)),
            }
        }
        OnuIndexing::PonIdAndOnuId(layout) => {
            let [pon_id, onu_id] = index else {
                return Err(bad());
            };
            let port = layout
                .port_name(*pon_id)
                .ok_or(Unplaced::NotAPonId(*pon_id))?;
            Ok((port.into(), *onu_id))
        }
        OnuIndexing::OnuIfIndex { .. } => {
            let [if_index] = index else {
                return Err(bad());
            };
            let (port, number) = interfaces
                .names
                .get(*if_index)
                .and_then(|name| profile.onu_from_if_name(name))
                .ok_or(Unplaced::NoOnuInterface)?;
            Ok((port.into(), number))
        }
        OnuIndexing::PortArcsAndOnuId { prefix, .. } => {
            let [port @ .., onu_id] = index else {
                return Err(bad());
            };
            if port.is_empty() || port.len() > 3 {
                return Err(bad());
            }
            let arcs: Vec<String> = port.iter().map(u32::to_string).collect();
            Ok((
                format_compact!("{prefix}{}", arcs.join("/")).into(),
                *onu_id,
            ))
        }
        OnuIndexing::Packed(layout) => {
            let [packed] = index else {
                return Err(bad());
            };
            let (port, number) = layout.place(*packed).ok_or(Unplaced::NotPacked(*packed))?;
            Ok((port.into(), number))
        }
        OnuIndexing::SlotAndSerial => {
            let [slot, ..] = index else {
                return Err(bad());
            };
            match (columns.channel, columns.number, columns.previous) {
                (Some(channel), Some(number), _) => {
                    Ok((format_compact!("{slot}/{channel}").into(), number))
                }
                (_, _, Some(place)) => Ok(place),
                _ => Err(Unplaced::NoChannel),
            }
        }
    }
}

/// What a row's own columns (or its last reading) say of its place, for layouts whose
/// index does not say it ([`OnuIndexing::SlotAndSerial`]).
#[derive(Debug, Default)]
pub(super) struct PlaceColumns {
    pub channel: Option<u32>,
    pub number: Option<u32>,
    /// The place the row had when last read.
    pub previous: Option<(PortName, u32)>,
}

/// The serial a row index carries ([`OnuIndexing::SlotAndSerial`]: the 8 octets after
/// the slot), as the API shows it; `None` for other layouts or an index of another shape.
pub(super) fn index_serial(profile: &Profile, index: &[u32]) -> Option<String> {
    if profile.onu_indexing != OnuIndexing::SlotAndSerial {
        return None;
    }
    let [_, octets @ ..] = index else {
        return None;
    };
    let bytes: Option<Vec<u8>> = octets.iter().map(|&a| u8::try_from(a).ok()).collect();
    let bytes = bytes.filter(|b| b.len() == 8)?;
    Some(crate::profile::format_gpon_serial(&bytes))
}
