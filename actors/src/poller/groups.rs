//! One poll, read by group ([`crate::profile::polling::PollGroup`]): the OLT actor's
//! schedule says which groups are due ([`ReadPlan`]), and this reads just those. The
//! status group is walked every poll; the `olt` group (IF-MIB, VLANs) and the identity
//! columns are walked when due, and a row the status walk shows for the first time gets
//! its identity (and its first optics) read at once by GETs of its own instances. Optics
//! are read for the ONUs the plan names, by GET of their rows, and the requests that carry
//! them are marked costly for the client's load record. The `traffic` group's two counter
//! columns are walked when due, after the rest, through the same client and its budget.
//! What a poll did not read, the decoder fills from the last reading ([`super::Fill`]).

use super::rows::{onu_by_id, row_arcs, Fill, RowMap};
use super::{
    decode_read, decode_serial, onu_interfaces, row_key, Interfaces, PollOutcome, RowTraffic,
    SystemGroup,
};
use crate::domain::Onu;
use crate::domain::OnuId;
use crate::profile::polling::PollGroup;
use crate::profile::{std_oids, OnuField, Profile};
use crate::snmp::{ColumnEntry, DeviceError, SnmpClient, SnmpValue};
use crate::traffic::Counters;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Most varbinds one GET of ONU instances asks for.
const GET_VARBINDS: usize = 24;

/// How many ONUs' optics one GET reads with `profile`.
pub fn optics_per_request(profile: &Profile) -> usize {
    let columns = profile
        .onu_columns
        .iter()
        .filter(|column| column.field.group() == PollGroup::Optics)
        .count();
    (GET_VARBINDS / columns.max(1)).max(1)
}

/// Which groups a poll reads.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadPlan {
    /// Walk the `olt` group: IF-MIB (PON ports, interface names) and the VLANs.
    pub olt: bool,
    /// Walk every row's identity columns.
    pub identity: bool,
    pub optics: OpticsPlan,
    /// Walk the `traffic` group's counters (where the layout has them).
    pub traffic: bool,
    /// Read the MACs behind the ONUs (BDCOM's forwarding table in the poll; over the
    /// CLI after it, for the layouts that show them there).
    pub macs: bool,
}

/// Whose optics a poll reads.
#[derive(Debug, Clone, PartialEq)]
pub enum OpticsPlan {
    /// Walk the optics columns of every row.
    All,
    /// GET the optics of these ONUs (and of rows seen for the first time).
    Onus(Vec<OnuId>),
}

impl ReadPlan {
    /// Every group of every row: the first poll, and the benchmarks' all-tables cycle.
    pub fn everything() -> ReadPlan {
        ReadPlan {
            olt: true,
            identity: true,
            optics: OpticsPlan::All,
            traffic: true,
            macs: true,
        }
    }
}

/// What the OLT actor remembers of the last reads.
#[derive(Clone, Copy)]
pub struct Memory<'a> {
    pub rows: &'a RowMap,
    /// The ONU table's rows, in id order.
    pub onus: &'a [Onu],
    /// IF-MIB as the last `olt` read left it.
    pub interfaces: Option<&'a Interfaces>,
    pub vlans: &'a [(u16, String)],
}

/// Reads the groups `plan` names, after the system group, and decodes the ONU table.
pub async fn poll_groups(
    client: &mut SnmpClient,
    profile: &Profile,
    system: SystemGroup,
    plan: &ReadPlan,
    memory: Memory<'_>,
) -> Result<PollOutcome, DeviceError> {
    let mut olt = match memory.interfaces.filter(|_| !plan.olt) {
        Some(interfaces) => (interfaces.clone(), memory.vlans.to_vec(), false),
        None => read_olt(client, profile).await?,
    };
    let mut table: Vec<Vec<ColumnEntry>> = vec![Vec::new(); profile.onu_columns.len()];
    let optics_walked = plan.optics == OpticsPlan::All;
    let mut walked = vec![PollGroup::Status];
    walked.extend(plan.identity.then_some(PollGroup::Identity));
    walked.extend(optics_walked.then_some(PollGroup::Optics));
    client.load.set_costly(optics_walked);
    let walk = walk_groups(client, profile, &walked, &mut table).await;
    client.load.set_costly(false);
    walk?;

    let seen = status_rows(profile, &table);
    let new = unknown_rows(&seen, &memory);
    let identity_read = if plan.identity {
        None
    } else {
        get_rows(client, profile, PollGroup::Identity, &new, &mut table).await?;
        Some(new.iter().copied().collect::<HashSet<u128>>())
    };
    // A new ONU may sit on a port (or, BDCOM, an ONU interface) IF-MIB has not shown
    // before; an ONU interface whose row left the table may be gone from IF-MIB too.
    let new_rows = !plan.identity && !new.is_empty();
    if !olt.2 && (new_rows || onu_interfaces::rows_gone(profile, &seen, memory)) {
        olt = read_olt(client, profile).await?;
    }
    let optics_read = match &plan.optics {
        OpticsPlan::All => None,
        OpticsPlan::Onus(onus) => {
            let rows = optics_rows(profile, onus, &seen, &new, &table, memory);
            Some(read_optics(client, profile, rows, &mut table).await?)
        }
    };

    let (mut interfaces, vlans, interfaces_read) = olt;
    let fill = Fill {
        previous: Some((memory.rows, memory.onus)),
        identity: identity_read.as_ref(),
        optics: optics_read.as_ref(),
    };
    let mut decoded = decode_read(profile, &interfaces, &table, &fill)?;
    interfaces.ports.extend(decoded.decoded_ports);
    let unanswered = onu_interfaces::unanswered(profile, &interfaces, &decoded.onus);
    decoded.warnings.extend(unanswered);
    decoded.warnings.extend(no_optics(profile, &decoded.onus));
    for warning in &decoded.warnings {
        tracing::warn!(warning = %warning, "ONU table and IF-MIB disagree");
    }
    let mut outcome = PollOutcome::new(
        system,
        profile,
        interfaces,
        interfaces_read,
        vlans,
        decoded.onus,
        decoded.rows,
        decoded.warnings,
    );
    if profile.onu_indexing.names_ports() {
        outcome.add_row_ports();
    }
    read_traffic_and_macs(client, profile, plan, memory, &mut outcome).await?;
    Ok(outcome)
}

/// The warning for an OLT none of whose online ONUs has an optics reading, though the
/// layout has optics columns: firmware without per-ONU optics (some V-SOL V1600G) answers
/// none of them, and its ONUs' optics are `null` with this said, never silently. Only
/// the ONUs whose optics this poll asked for are judged: a poll that read no optics (the
/// first after a session restart, between optics turns) says nothing of the device.
fn no_optics(profile: &Profile, onus: &[super::PolledOnu]) -> Option<String> {
    let columns: Vec<&str> = profile
        .onu_columns
        .iter()
        .filter(|column| column.field.group() == PollGroup::Optics)
        .map(|column| optics_name(column.field))
        .collect();
    let online: Vec<&super::PolledOnu> = onus
        .iter()
        .filter(|onu| onu.status == crate::domain::OnuStatus::Online && onu.optics_read)
        .collect();
    let read = |onu: &&super::PolledOnu| {
        [onu.rx_power, onu.tx_power, onu.olt_rx_power]
            .iter()
            .any(|r| r.is_some())
    };
    if columns.is_empty() || online.is_empty() || online.iter().any(read) {
        return None;
    }
    let n = online.len();
    let plural = if n == 1 { "" } else { "s" };
    Some(format!(
        "none of the {n} online ONU{plural} has an optics reading: the device answers none \
         of its per-ONU optics ({}), as firmware without them does; their optics are null",
        columns.join(", ")
    ))
}

/// An optics field as the API names it.
fn optics_name(field: OnuField) -> &'static str {
    match field {
        OnuField::RxPower => "rxPower",
        OnuField::TxPower => "txPower",
        OnuField::OltRxPower => "oltRxPower",
        OnuField::Temperature => "temperature",
        OnuField::Voltage => "voltage",
        _ => "biasCurrent",
    }
}

/// The `traffic` and `macs` groups when `plan` has them: the counters, and (where the
/// layout keeps them in its bridge) the forwarding table placed on the ONU interfaces.
async fn read_traffic_and_macs(
    client: &mut SnmpClient,
    profile: &Profile,
    plan: &ReadPlan,
    memory: Memory<'_>,
    outcome: &mut PollOutcome,
) -> Result<(), DeviceError> {
    outcome.traffic = match plan.traffic {
        true => read_traffic(client, profile).await?,
        false => None,
    };
    let fdb = matches!(
        crate::macs::MacSource::of(profile),
        crate::macs::MacSource::Fdb
    );
    if plan.macs && fdb {
        let interfaces = outcome.interfaces.as_ref().or(memory.interfaces);
        let interfaces = interfaces.cloned().unwrap_or_default();
        outcome.macs = Some(super::fdb::read(client, profile, &interfaces).await?);
    }
    Ok(())
}

/// The `traffic` group: one walk of the layout's two counter columns, each row's
/// counters by its packed index; `None` where the layout has no counters.
async fn read_traffic(
    client: &mut SnmpClient,
    profile: &Profile,
) -> Result<Option<RowTraffic>, DeviceError> {
    let Some(columns) = profile.traffic else {
        return Ok(None);
    };
    let walked = client
        .walk_columns(&[columns.in_octets, columns.out_octets])
        .await?;
    let mut rows: BTreeMap<u128, Counters> = BTreeMap::new();
    for (entries, inbound) in walked.iter().zip([true, false]) {
        for (instance, value) in entries {
            let count = match *value {
                SnmpValue::Unsigned(n) => n,
                SnmpValue::Integer(n) if n >= 0 => n as u64,
                _ => continue,
            };
            let Some(row) = row_key(instance) else {
                continue;
            };
            let counters = rows.entry(row).or_default();
            match inbound {
                true => counters.in_octets = Some(count),
                false => counters.out_octets = Some(count),
            }
        }
    }
    Ok(Some(RowTraffic {
        rows: rows.into_iter().collect(),
        bits: columns.bits,
    }))
}

/// The rows whose optics a poll reads: those of `onus` the status walk listed (`seen`),
/// and the new rows whose ONU has never had a reading.
fn optics_rows(
    profile: &Profile,
    onus: &[OnuId],
    seen: &[u128],
    new: &[u128],
    table: &[Vec<ColumnEntry>],
    memory: Memory<'_>,
) -> Vec<u128> {
    let mut rows: Vec<u128> = onus
        .iter()
        .filter_map(|&id| memory.rows.row(id))
        .filter(|row| seen.binary_search(row).is_ok())
        .collect();
    rows.extend(first_sight(profile, table, new, memory.onus));
    rows.sort_unstable();
    rows.dedup();
    rows
}

/// GETs the optics of `rows` into `table`, the requests marked costly; the rows read.
async fn read_optics(
    client: &mut SnmpClient,
    profile: &Profile,
    rows: Vec<u128>,
    table: &mut [Vec<ColumnEntry>],
) -> Result<HashSet<u128>, DeviceError> {
    client.load.set_costly(true);
    let read = get_rows(client, profile, PollGroup::Optics, &rows, table).await;
    client.load.set_costly(false);
    read?;
    Ok(rows.into_iter().collect())
}

/// The `olt` group: IF-MIB's names and types and the VLANs, in one walk (short tables).
async fn read_olt(
    client: &mut SnmpClient,
    profile: &Profile,
) -> Result<(Interfaces, Vec<(u16, String)>, bool), DeviceError> {
    let if_mib = client
        .walk_columns(&[
            profile.interface_names.oid(),
            std_oids::IF_TYPE,
            std_oids::VLAN_STATIC_NAME,
        ])
        .await?;
    let interfaces = Interfaces::from_walk(profile, &if_mib[0], &if_mib[1]);
    let vlans = if_mib[2]
        .iter()
        .filter_map(|(index, name)| match index.as_slice() {
            [id] => Some((
                u16::try_from(*id)
                    .ok()
                    .filter(|id| (1..=4094).contains(id))?,
                name.as_text()?,
            )),
            _ => None,
        })
        .collect();
    Ok((interfaces, vlans, true))
}

/// Walks the ONU columns of `groups` in one walk, into their places in `table`.
async fn walk_groups(
    client: &mut SnmpClient,
    profile: &Profile,
    groups: &[PollGroup],
    table: &mut [Vec<ColumnEntry>],
) -> Result<(), DeviceError> {
    let chosen: Vec<usize> = (0..profile.onu_columns.len())
        .filter(|&i| groups.contains(&profile.onu_columns[i].field.group()))
        .collect();
    let oids: Vec<&[u32]> = chosen.iter().map(|&i| profile.onu_columns[i].oid).collect();
    let walked = client.walk_columns(&oids).await?;
    for (i, entries) in chosen.into_iter().zip(walked) {
        table[i] = entries;
    }
    Ok(())
}

/// The rows of `seen` (sorted) that name no ONU of the table: not in the row map, or
/// mapped to an ONU the table no longer has. Both are in row order, so one pass through
/// the map answers, where a search per row took 1.4 % of a cycle's CPU.
fn unknown_rows(seen: &[u128], memory: &Memory) -> Vec<u128> {
    let mut known = memory.rows.pairs().peekable();
    seen.iter()
        .copied()
        .filter(|&row| {
            while known.next_if(|&(mapped, _)| mapped < row).is_some() {}
            let onu = known.peek().filter(|&&(mapped, _)| mapped == row);
            onu.is_none_or(|&(_, id)| onu_by_id(memory.onus, id).is_none())
        })
        .collect()
}

/// The rows the status columns list, packed ([`row_key`]), sorted.
fn status_rows(profile: &Profile, table: &[Vec<ColumnEntry>]) -> Vec<u128> {
    let mut rows: Vec<u128> = profile
        .onu_columns
        .iter()
        .zip(table)
        .filter(|(column, _)| column.field.group() == PollGroup::Status)
        .flat_map(|(column, entries)| {
            entries
                .iter()
                .filter_map(|(instance, _)| row_key(column.row_index(instance)?))
        })
        .collect();
    rows.sort_unstable();
    rows.dedup();
    rows
}

/// The rows of `new` whose ONU has never had its optics read: not in the table, or in it
/// without a reading (the identity read this poll names the ONU by its serial). A row new
/// only to this actor (the service restarted) keeps its place in the optics sweep.
fn first_sight(
    profile: &Profile,
    table: &[Vec<ColumnEntry>],
    new: &[u128],
    known: &[Onu],
) -> Vec<u128> {
    if new.is_empty() {
        return Vec::new();
    }
    let Some(serials) = profile
        .onu_columns
        .iter()
        .position(|column| column.field == OnuField::Serial)
    else {
        return new.to_vec();
    };
    let column = &profile.onu_columns[serials];
    let serial_of: HashMap<u128, &SnmpValue> = table[serials]
        .iter()
        .filter_map(|(instance, value)| Some((row_key(column.row_index(instance)?)?, value)))
        .collect();
    new.iter()
        .copied()
        .filter(|row| {
            let read_before = serial_of
                .get(row)
                .and_then(|value| decode_serial(profile, value))
                .and_then(|serial| {
                    known
                        .iter()
                        .find(|o| o.serial.eq_ignore_ascii_case(&serial))
                })
                .is_some_and(|onu| onu.optics_at.is_some());
            !read_before
        })
        .collect()
}

/// GETs the `group` columns of `rows`, a few ONUs a request, into `table`; instances
/// the device does not have are left out, as a walk leaves them.
async fn get_rows(
    client: &mut SnmpClient,
    profile: &Profile,
    group: PollGroup,
    rows: &[u128],
    table: &mut [Vec<ColumnEntry>],
) -> Result<(), DeviceError> {
    let columns: Vec<usize> = (0..profile.onu_columns.len())
        .filter(|&i| profile.onu_columns[i].field.group() == group)
        .collect();
    if columns.is_empty() || rows.is_empty() {
        return Ok(());
    }
    let per_request = (GET_VARBINDS / columns.len()).max(1);
    for chunk in rows.chunks(per_request) {
        let mut wanted: Vec<(usize, Vec<u32>, Vec<u32>)> = Vec::new();
        for &row in chunk {
            for &i in &columns {
                let column = &profile.onu_columns[i];
                let mut instance = row_arcs(row);
                instance.extend_from_slice(column.suffix);
                let oid = [column.oid, &instance].concat();
                wanted.push((i, instance, oid));
            }
        }
        let oids: Vec<&[u32]> = wanted.iter().map(|(_, _, oid)| oid.as_slice()).collect();
        let values = client.get(&oids).await?;
        for ((i, instance, _), value) in wanted.into_iter().zip(values) {
            if !matches!(value, SnmpValue::Missing | SnmpValue::Null) {
                table[i].push((instance.into(), value));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The one pass over the row map finds the rows a search per row finds: rows
        /// the map lacks, and rows whose ONU left the table.
        #[test]
        fn unknown_rows_are_those_a_search_per_row_finds(
            mapped in proptest::collection::btree_map(0u128..60, 1u64..30, 0..40),
            in_table in proptest::collection::btree_set(1u64..30, 0..30),
            seen in proptest::collection::btree_set(0u128..70, 0..50),
        ) {
            let rows = RowMap::new(mapped.into_iter());
            let at = chrono::Utc::now();
            let onus: Vec<Onu> = in_table
                .into_iter()
                .map(|id| crate::events::tests::onu(id, "0/1/0", at))
                .collect();
            let memory = Memory { rows: &rows, onus: &onus, interfaces: None, vlans: &[] };
            let seen: Vec<u128> = seen.into_iter().collect();
            let searched: Vec<u128> = seen
                .iter()
                .copied()
                .filter(|&row| rows.onu(row).and_then(|id| onu_by_id(&onus, id)).is_none())
                .collect();
            prop_assert_eq!(unknown_rows(&seen, &memory), searched);
        }
    }
}
