//! The MIB view one simulated OLT exposes, computed structurally rather than stored: a
//! sorted list of objects (scalars and table columns) built once per vendor from the
//! driver profile, whose instances are `column oid . row index . suffix` over the OLT's
//! current interfaces and ONUs. A column may leave a row out (ZTE serves no distance for
//! an offline ONU); GETNEXT skips such rows. GET and GETNEXT are binary searches over the rows, and values
//! are read from [`SimOlt`] at answer time, so 1,000 OLTs × 128 ONUs cost no varbind
//! memory. OIDs compare arc by arc as unsigned numbers (Huawei ifIndex values exceed
//! 2^31). ONUs' traffic counters are columns over the ONU rows too, served as
//! Counter32 or Counter64 from the traffic model at answer time. The agent
//! ([`super::agent`]) is the only caller.

use super::ber::Value;
use super::model::{traffic, SimOlt};
use super::raw::Raw;
use super::vendor::SimVendor;
use ponkeeper_actors::profile::{std_oids, OnuColumn, OnuField};

/// Longest instance OID the view produces (column ≤ 20 arcs + index + suffix).
const MAX_ARCS: usize = 32;

/// An instance OID without heap allocation.
#[derive(Clone, Copy)]
pub(crate) struct InstanceOid {
    arcs: [u64; MAX_ARCS],
    len: usize,
}

impl InstanceOid {
    fn from_parts(parts: &[&[u64]]) -> InstanceOid {
        let mut oid = InstanceOid {
            arcs: [0; MAX_ARCS],
            len: 0,
        };
        for part in parts {
            for &arc in *part {
                if oid.len < MAX_ARCS {
                    oid.arcs[oid.len] = arc;
                    oid.len += 1;
                }
            }
        }
        oid
    }

    pub fn arcs(&self) -> &[u64] {
        &self.arcs[..self.len]
    }
}

impl std::fmt::Debug for InstanceOid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text: Vec<String> = self.arcs().iter().map(u64::to_string).collect();
        f.write_str(&text.join("."))
    }
}

/// Values that do not depend on the OLT's state at all.
#[derive(Debug, Clone, Copy)]
enum Scalar {
    SysDescr,
    SysObjectId,
    SysUpTime,
    SysName,
    Firmware,
}

#[derive(Debug, Clone, Copy)]
enum PortColumn {
    Descr,
    Type,
    Name,
}

#[derive(Debug, Clone, Copy)]
enum Source {
    Scalar(Scalar),
    Port(PortColumn),
    Onu(OnuColumn),
    /// An ONU's traffic counter (the profile's `traffic` columns): octets it sent
    /// (`inbound`) or received.
    Traffic {
        inbound: bool,
    },
    /// dot1qVlanStaticName, indexed by VLAN id.
    VlanName,
    /// dot1qTpFdbPort (BDCOM): a MAC's bridge port, indexed by VLAN and MAC.
    FdbPort,
    /// dot1dBasePortIfIndex (BDCOM): a bridge port's ifIndex (an ONU interface's).
    BridgePortIfIndex,
    /// The autofind / uncfg table ([`super::provisioning`]): serial, or equipment id.
    Unconfigured {
        equipment: bool,
    },
}

#[derive(Debug)]
struct MibObject {
    /// For a scalar the full instance OID; for a column the column OID.
    oid: Vec<u64>,
    /// Arcs after the row index.
    suffix: Vec<u64>,
    source: Source,
}

/// Which rows a column runs over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Table {
    /// IF-MIB rows: PON ports and, for BDCOM, ONU interfaces.
    Interfaces,
    Onus,
    Vlans,
    Unconfigured,
    /// The forwarding table: [`SimOlt::macs`].
    Fdb,
    /// Bridge ports: one per ONU, numbered by its position + 1.
    BridgePorts,
}

impl Source {
    fn table(&self) -> Option<Table> {
        match self {
            Source::Scalar(_) => None,
            Source::Port(_) => Some(Table::Interfaces),
            Source::Onu(_) | Source::Traffic { .. } => Some(Table::Onus),
            Source::VlanName => Some(Table::Vlans),
            Source::FdbPort => Some(Table::Fdb),
            Source::BridgePortIfIndex => Some(Table::BridgePorts),
            Source::Unconfigured { .. } => Some(Table::Unconfigured),
        }
    }
}

/// Where a table instance lies in the view: its object (column) and the row's position
/// in that table, e.g. the ONU's position in [`SimOlt::onus`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Spot {
    pub object: usize,
    pub row: usize,
}

/// What a GET finds.
#[derive(Debug)]
pub(crate) enum Lookup<'a> {
    Found(Value<'a>),
    NoSuchObject,
    NoSuchInstance,
}

/// Per-answer context that is not part of the OLT's state.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AnswerContext {
    pub vendor: &'static SimVendor,
    /// sysUpTime in hundredths of a second.
    pub uptime: u32,
}

/// The sorted object list of a vendor's OLT.
#[derive(Debug)]
pub(crate) struct MibView {
    objects: Vec<MibObject>,
}

fn arcs(oid: &[u32]) -> Vec<u64> {
    oid.iter().map(|&a| u64::from(a)).collect()
}

impl MibView {
    pub fn for_vendor(vendor: &SimVendor) -> MibView {
        let scalar = |oid: &[u32], scalar| MibObject {
            oid: arcs(oid),
            suffix: Vec::new(),
            source: Source::Scalar(scalar),
        };
        let port = |oid: &[u32], column| MibObject {
            oid: arcs(oid),
            suffix: Vec::new(),
            source: Source::Port(column),
        };
        let mut objects = vec![
            scalar(std_oids::SYS_DESCR, Scalar::SysDescr),
            scalar(std_oids::SYS_OBJECT_ID, Scalar::SysObjectId),
            scalar(std_oids::SYS_UPTIME, Scalar::SysUpTime),
            scalar(std_oids::SYS_NAME, Scalar::SysName),
            scalar(std_oids::FIRMWARE, Scalar::Firmware),
            port(std_oids::IF_DESCR, PortColumn::Descr),
            port(std_oids::IF_TYPE, PortColumn::Type),
            port(std_oids::IF_NAME, PortColumn::Name),
        ];
        objects.push(MibObject {
            oid: arcs(std_oids::VLAN_STATIC_NAME),
            suffix: Vec::new(),
            source: Source::VlanName,
        });
        objects.extend(vendor.profile.onu_columns.iter().map(|column| MibObject {
            oid: arcs(column.oid),
            suffix: arcs(column.suffix),
            source: Source::Onu(*column),
        }));
        if vendor.profile.vendor == ponkeeper_actors::domain::Vendor::Bdcom {
            for (oid, source) in [
                (std_oids::FDB_PORT, Source::FdbPort),
                (std_oids::BRIDGE_PORT_IF_INDEX, Source::BridgePortIfIndex),
            ] {
                objects.push(MibObject {
                    oid: arcs(oid),
                    suffix: Vec::new(),
                    source,
                });
            }
        }
        if let Some(traffic) = vendor.profile.traffic {
            for (oid, inbound) in [(traffic.in_octets, true), (traffic.out_octets, false)] {
                objects.push(MibObject {
                    oid: arcs(oid),
                    suffix: Vec::new(),
                    source: Source::Traffic { inbound },
                });
            }
        }
        let provisioning =
            ponkeeper_actors::profile::provisioning::Provisioning::for_profile(vendor.profile);
        if let Some(unconfigured) = provisioning.map(|table| table.unconfigured) {
            objects.push(MibObject {
                oid: arcs(unconfigured.serial),
                suffix: Vec::new(),
                source: Source::Unconfigured { equipment: false },
            });
        }
        if let Some(oid) = provisioning.and_then(|table| table.unconfigured.equipment) {
            objects.push(MibObject {
                oid: arcs(oid),
                suffix: Vec::new(),
                source: Source::Unconfigured { equipment: true },
            });
        }
        objects.sort_by(|a, b| a.oid.cmp(&b.oid));
        MibView { objects }
    }

    /// GET: the value at exactly `oid` (the agent uses [`MibView::get_at`]).
    #[cfg(test)]
    pub fn get<'a>(&self, olt: &'a SimOlt, ctx: AnswerContext, oid: &[u64]) -> Lookup<'a> {
        self.get_at(olt, ctx, oid).0
    }

    /// GET: the value at exactly `oid`, and where it lies (`None` for a scalar or a
    /// missing instance).
    pub fn get_at<'a>(
        &self,
        olt: &'a SimOlt,
        ctx: AnswerContext,
        oid: &[u64],
    ) -> (Lookup<'a>, Option<Spot>) {
        let mut known_object = false;
        for (position, object) in self.objects.iter().enumerate() {
            match object.source.table() {
                None => {
                    if oid == object.oid.as_slice() {
                        if let Some(value) = self.value(olt, ctx, object, 0) {
                            return (Lookup::Found(value), None);
                        }
                    }
                    // The scalar's object is its OID without the trailing instance arc.
                    let parent = &object.oid[..object.oid.len().saturating_sub(1)];
                    known_object |= oid.starts_with(parent);
                }
                Some(table) => {
                    if let Some(rest) = oid.strip_prefix(object.oid.as_slice()) {
                        known_object = true;
                        let rows = row_count(olt, table);
                        let at = partition(olt, table, &object.suffix, rows, |key| key < rest);
                        if at < rows && with_key(olt, table, at, &object.suffix, |key| key == rest)
                        {
                            if let Some(value) = self.value(olt, ctx, object, at) {
                                let spot = Spot {
                                    object: position,
                                    row: at,
                                };
                                return (Lookup::Found(value), Some(spot));
                            }
                        }
                    }
                }
            }
        }
        let missing = if known_object {
            Lookup::NoSuchInstance
        } else {
            Lookup::NoSuchObject
        };
        (missing, None)
    }

    /// GETNEXT: the first instance after `oid`, or `None` at the end of the view (the
    /// agent uses [`MibView::next_at`]).
    #[cfg(test)]
    pub fn next<'a>(
        &self,
        olt: &'a SimOlt,
        ctx: AnswerContext,
        oid: &[u64],
    ) -> Option<(InstanceOid, Value<'a>)> {
        self.next_at(olt, ctx, oid)
            .map(|(name, value, _)| (name, value))
    }

    /// GETNEXT: the first instance after `oid` (`None` at the end of the view), and
    /// where it lies (`None` for a scalar).
    pub fn next_at<'a>(
        &self,
        olt: &'a SimOlt,
        ctx: AnswerContext,
        oid: &[u64],
    ) -> Option<(InstanceOid, Value<'a>, Option<Spot>)> {
        // Objects before `oid` that are not its prefix hold nothing after it.
        let start = self
            .objects
            .partition_point(|object| object.oid.as_slice() < oid && !oid.starts_with(&object.oid));
        for (position, object) in self.objects.iter().enumerate().skip(start) {
            match object.source.table() {
                None => {
                    if object.oid.as_slice() > oid {
                        let name = InstanceOid::from_parts(&[&object.oid]);
                        if let Some(value) = self.value(olt, ctx, object, 0) {
                            return Some((name, value, None));
                        }
                    }
                }
                Some(table) => {
                    let rows = row_count(olt, table);
                    let start = match oid.strip_prefix(object.oid.as_slice()) {
                        Some(rest) => {
                            partition(olt, table, &object.suffix, rows, |key| key <= rest)
                        }
                        None if oid < object.oid.as_slice() => 0,
                        None => rows,
                    };
                    for at in start..rows {
                        if let Some(value) = self.value(olt, ctx, object, at) {
                            let mut key = [0u64; 12];
                            let index = row_index(olt, table, at, &mut key);
                            let name =
                                InstanceOid::from_parts(&[&object.oid, index, &object.suffix]);
                            let spot = Spot {
                                object: position,
                                row: at,
                            };
                            return Some((name, value, Some(spot)));
                        }
                    }
                }
            }
        }
        None
    }

    /// The table column `oid` lies in (a row instance of it, or the column OID itself),
    /// as the [`Spot::object`] of its instances; `None` outside every column.
    pub fn column_of(&self, oid: &[u64]) -> Option<usize> {
        self.objects
            .iter()
            .position(|object| object.source.table().is_some() && oid.starts_with(&object.oid))
    }

    /// What the ONU column of `spot` carries, and the ONU's position in
    /// [`SimOlt::onus`]; `None` for an instance of any other table.
    pub fn onu_field(&self, spot: Spot) -> Option<(OnuField, usize)> {
        match self.objects.get(spot.object)?.source {
            Source::Onu(column) => Some((column.field, spot.row)),
            _ => None,
        }
    }

    /// The value of `object` at `row`, or `None` when that row has no such instance.
    fn value<'a>(
        &self,
        olt: &'a SimOlt,
        ctx: AnswerContext,
        object: &MibObject,
        row: usize,
    ) -> Option<Value<'a>> {
        let profile = ctx.vendor.profile;
        Some(match object.source {
            Source::Scalar(Scalar::SysDescr) => Value::Octets(profile.sys_descr.as_bytes()),
            Source::Scalar(Scalar::SysObjectId) => Value::Oid(profile.sys_object_id),
            Source::Scalar(Scalar::SysUpTime) => Value::TimeTicks(ctx.uptime),
            Source::Scalar(Scalar::SysName) => Value::Octets(olt.sys_name.as_bytes()),
            Source::Scalar(Scalar::Firmware) => Value::Octets(olt.firmware.as_bytes()),
            Source::Port(column) => {
                let interface = olt.interfaces.get(row)?;
                match column {
                    PortColumn::Descr => Value::Octets(interface.if_descr.as_bytes()),
                    PortColumn::Name => Value::Octets(interface.if_name.as_bytes()),
                    PortColumn::Type => Value::Integer(i64::from(interface.if_type)),
                }
            }
            Source::VlanName => Value::Octets(olt.vlans.get(row)?.1.as_bytes()),
            Source::FdbPort => {
                let entry = olt.macs.get(row)?;
                olt.onus.get(entry.onu).filter(|o| o.online)?;
                Value::Integer(entry.onu as i64 + 1)
            }
            Source::BridgePortIfIndex => {
                Value::Integer(i64::from(*olt.onus.get(row)?.row.arcs().first()?))
            }
            Source::Unconfigured { equipment } => {
                let onu = olt.provisioning.unconfigured.get(row)?;
                match equipment {
                    true => Value::Octets(onu.equipment.as_bytes()),
                    false => Value::Octets(&onu.wire),
                }
            }
            Source::Traffic { inbound } => {
                let onu = olt.onus.get(row).filter(|onu| onu.online)?;
                let bits = profile.traffic?.bits;
                let count = traffic::counter(&onu.serial, ctx.uptime, inbound, bits);
                match bits {
                    32 => Value::Counter32(count as u32),
                    _ => Value::Counter64(count),
                }
            }
            Source::Onu(column) => match olt.onu_raw(ctx.vendor, olt.onus.get(row)?, &column)? {
                Raw::Integer(n) => Value::Integer(n),
                Raw::Octets(bytes) => Value::Octets(bytes),
                Raw::Inline(bytes, len) => Value::Inline(bytes, len),
            },
        })
    }
}

fn row_count(olt: &SimOlt, table: Table) -> usize {
    match table {
        Table::Interfaces => olt.interfaces.len(),
        Table::Onus => olt.onus.len(),
        Table::Vlans => olt.vlans.len(),
        Table::Unconfigured => olt.provisioning.unconfigured.len(),
        Table::Fdb => olt.macs.len(),
        Table::BridgePorts => olt.onus.len(),
    }
}

/// The row index arcs of `row` (without the column suffix).
fn row_index<'k>(olt: &SimOlt, table: Table, row: usize, key: &'k mut [u64; 12]) -> &'k [u64] {
    match table {
        Table::Fdb => {
            let Some(entry) = olt.macs.get(row) else {
                return &key[..0];
            };
            key[0] = u64::from(entry.vlan);
            for (slot, &octet) in key[1..7].iter_mut().zip(&entry.mac) {
                *slot = u64::from(octet);
            }
            &key[..7]
        }
        Table::BridgePorts => {
            key[0] = row as u64 + 1;
            &key[..1]
        }
        Table::Interfaces => {
            key[0] = olt.interfaces.get(row).map_or(0, |i| u64::from(i.if_index));
            &key[..1]
        }
        Table::Vlans => {
            key[0] = olt.vlans.get(row).map_or(0, |(id, _)| u64::from(*id));
            &key[..1]
        }
        Table::Unconfigured => {
            let arcs = olt
                .provisioning
                .unconfigured
                .get(row)
                .map_or([0, 0], |u| u.key);
            key[0] = u64::from(arcs[0]);
            key[1] = u64::from(arcs[1]);
            &key[..2]
        }
        Table::Onus => match olt.onus.get(row) {
            Some(onu) => {
                let arcs = onu.row.arcs();
                for (slot, &arc) in key.iter_mut().zip(arcs) {
                    *slot = u64::from(arc);
                }
                &key[..arcs.len()]
            }
            None => &key[..0],
        },
    }
}

/// Calls `f` with `row index . suffix` of `row`.
fn with_key<R>(
    olt: &SimOlt,
    table: Table,
    row: usize,
    suffix: &[u64],
    f: impl FnOnce(&[u64]) -> R,
) -> R {
    let mut index = [0u64; 12];
    let index = row_index(olt, table, row, &mut index);
    let mut key = [0u64; 16];
    let len = index.len() + suffix.len().min(key.len() - index.len());
    key[..index.len()].copy_from_slice(index);
    key[index.len()..len].copy_from_slice(&suffix[..len - index.len()]);
    f(&key[..len])
}

/// The first row whose key fails `pred` (rows are sorted by key).
fn partition(
    olt: &SimOlt,
    table: Table,
    suffix: &[u64],
    rows: usize,
    pred: impl Fn(&[u64]) -> bool,
) -> usize {
    let (mut lo, mut hi) = (0, rows);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if with_key(olt, table, mid, suffix, &pred) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

#[cfg(test)]
mod tests;
