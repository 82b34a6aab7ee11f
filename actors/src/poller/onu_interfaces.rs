//! ONU interfaces IF-MIB lists that the ONU table gave no ONU for. Where ONUs are
//! interfaces of their own (BDCOM's `GPON0/2:1` and `EPON0/1:3`, V-SOL V1600D's
//! `EPON0/1:1`: [`crate::profile::OnuIndexing::onu_interface_separator`]), IF-MIB names
//! every ONU the device has, so an ONU table that answers
//! fewer rows (a GP3600 whose NMS-GPON-MIB table does not answer at all) would otherwise
//! show fewer ONUs, or none, without a word: [`unanswered`] names the difference for
//! `session.warnings` (docs/devices.md, "Nothing dropped silently").
//!
//! IF-MIB is read with the `olt` group, far less often than the status walk, so a row
//! that left the table since the last poll ([`rows_gone`]) has IF-MIB read again before
//! the comparison: an ONU deleted from the device is not reported as unanswered for the
//! quarter of an hour until the next `olt` read.

use super::{Interfaces, Memory, PolledOnu};
use crate::profile::Profile;
use std::collections::HashSet;

/// How many runs of unanswered interfaces (`GPON0/2:1-51`) a warning names before
/// `and N more`.
const NAMED_RUNS: usize = 8;

/// One unanswered ONU interface: its port's arcs (to sort `0/2` before `0/10`), its
/// number, and its name without the number (`GPON0/2:`).
type Missing<'a> = (Vec<u32>, u32, &'a str);

/// The warning for the ONU interfaces of `interfaces` that no decoded ONU stands for
/// (by port and number), or `None` when every one has its ONU (or the profile's IF-MIB
/// lists no ONU interfaces). The interfaces are named by port in runs of
/// consecutive numbers: `none for GPON0/2:1-51, GPON0/4:1-13`.
pub(super) fn unanswered(
    profile: &Profile,
    interfaces: &Interfaces,
    onus: &[PolledOnu],
) -> Option<String> {
    let separator = profile.onu_indexing.onu_interface_separator()?;
    let answered: HashSet<(&str, u32)> = onus
        .iter()
        .map(|onu| (onu.pon_port.as_str(), onu.onu_index))
        .collect();
    let mut listed = 0usize;
    let mut missing: Vec<Missing> = Vec::new();
    for name in interfaces.names.values() {
        let Some((port, number)) = profile.onu_from_if_name(name) else {
            continue;
        };
        listed += 1;
        if !answered.contains(&(port, number)) {
            let arcs = super::port_arcs(port);
            let base = name.split_once(separator).map_or("", |(base, _)| base);
            let base = &name[..base.len() + separator.len_utf8()];
            missing.push((arcs, number, base));
        }
    }
    if missing.is_empty() {
        return None;
    }
    missing.sort_unstable();
    let runs = runs(&missing);
    let shown: Vec<&str> = runs
        .iter()
        .take(NAMED_RUNS)
        .map(|(run, _)| run.as_str())
        .collect();
    let more: usize = runs.iter().skip(NAMED_RUNS).map(|(_, n)| n).sum();
    let more = match more {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    let plural = if listed == 1 { "" } else { "s" };
    let given = listed - missing.len();
    Some(format!(
        "IF-MIB lists {listed} ONU interface{plural} but the ONU table gave an ONU for \
         {given} of them: none for {}{more}",
        shown.join(", ")
    ))
}

/// `missing` (sorted) as runs of consecutive numbers on one port, each with how many
/// interfaces it holds: `GPON0/2:1-51` (51), `GPON0/2:53` (1).
fn runs(missing: &[Missing]) -> Vec<(String, usize)> {
    let mut runs: Vec<(&str, u32, u32)> = Vec::new();
    for &(_, number, base) in missing {
        match runs.last_mut() {
            Some((last_base, _, last))
                if *last_base == base && last.checked_add(1) == Some(number) =>
            {
                *last = number;
            }
            _ => runs.push((base, number, number)),
        }
    }
    runs.into_iter()
        .map(|(base, first, last)| match first == last {
            true => (format!("{base}{first}"), 1),
            false => (format!("{base}{first}-{last}"), (last - first + 1) as usize),
        })
        .collect()
}

/// Whether a row the last poll read is missing from this poll's status walk (`seen`,
/// sorted), for a profile whose rows are ONU interfaces: IF-MIB as last read may then
/// list an interface the device no longer has.
pub(super) fn rows_gone(profile: &Profile, seen: &[u128], memory: Memory<'_>) -> bool {
    profile.onu_indexing.onu_interface_separator().is_some()
        && memory
            .rows
            .rows()
            .any(|row| seen.binary_search(&row).is_err())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Reading;
    use crate::poller::RowMap;
    use crate::profile::{BDCOM, BDCOM_GPON, HUAWEI};

    /// IF-MIB of a GP3600: two ports, `GPON0/2:1` … `:12` on ifIndex 1001 …, and an
    /// uplink.
    fn gp3600() -> Interfaces {
        let mut interfaces = Interfaces::default();
        interfaces.names.insert(97, "GigaEthernet0/1".into());
        interfaces.names.insert(110, "GPON0/2".into());
        interfaces.names.insert(111, "GPON0/10".into());
        for onu in 1..=12 {
            interfaces
                .names
                .insert(1000 + onu, format!("GPON0/2:{onu}").into());
        }
        interfaces.names.insert(2000, "GPON0/10:1".into());
        interfaces
    }

    fn rows(if_indexes: impl IntoIterator<Item = u32>) -> Vec<u128> {
        if_indexes
            .into_iter()
            .filter_map(|i| crate::poller::row_key(&[i]))
            .collect()
    }

    /// The ONUs the ONU interfaces at `if_indexes` of `interfaces` stand for.
    fn onus(interfaces: &Interfaces, if_indexes: impl IntoIterator<Item = u32>) -> Vec<PolledOnu> {
        if_indexes
            .into_iter()
            .filter_map(|i| {
                let (port, number) = BDCOM_GPON.onu_from_if_name(interfaces.names.get(i)?)?;
                Some(PolledOnu {
                    pon_port: port.into(),
                    onu_index: number,
                    serial: Default::default(),
                    description: Default::default(),
                    status: crate::domain::OnuStatus::Online,
                    last_down_cause: None,
                    distance: None,
                    rx_power: Reading::NONE,
                    tx_power: Reading::NONE,
                    olt_rx_power: Reading::NONE,
                    temperature: Reading::NONE,
                    voltage: Reading::NONE,
                    bias_current: Reading::NONE,
                    optics_read: false,
                })
            })
            .collect()
    }

    #[test]
    fn onu_interfaces_without_an_onu_are_counted_and_named_in_port_order() {
        let interfaces = gp3600();
        assert_eq!(
            unanswered(&BDCOM_GPON, &interfaces, &[]).as_deref(),
            Some(
                "IF-MIB lists 13 ONU interfaces but the ONU table gave an ONU for 0 of them: \
                 none for GPON0/2:1-12, GPON0/10:1"
            )
        );
        let most = onus(&interfaces, (1001..=1012).filter(|&i| i != 1010));
        assert_eq!(
            unanswered(&BDCOM_GPON, &interfaces, &most).as_deref(),
            Some(
                "IF-MIB lists 13 ONU interfaces but the ONU table gave an ONU for 11 of them: \
                 none for GPON0/2:10, GPON0/10:1"
            )
        );
        let all = onus(&interfaces, (1001..=1012).chain([2000]));
        assert_eq!(unanswered(&BDCOM_GPON, &interfaces, &all), None);
    }

    #[test]
    fn runs_break_at_gaps_and_ports_and_the_rest_is_counted() {
        let mut interfaces = Interfaces::default();
        for port in 1..=10u32 {
            for onu in [1, 2, 3, 5] {
                let name = format!("GPON0/{port}:{onu}");
                interfaces.names.insert(port * 100 + onu, name.into());
            }
        }
        assert_eq!(
            unanswered(&BDCOM_GPON, &interfaces, &[]).as_deref(),
            Some(
                "IF-MIB lists 40 ONU interfaces but the ONU table gave an ONU for 0 of them: \
                 none for GPON0/1:1-3, GPON0/1:5, GPON0/2:1-3, GPON0/2:5, GPON0/3:1-3, \
                 GPON0/3:5, GPON0/4:1-3, GPON0/4:5 and 24 more"
            )
        );
    }

    #[test]
    fn only_onu_interfaces_of_the_profile_count() {
        // The GPON names are no EPON ONU's, and Huawei does not index ONUs by interface.
        assert_eq!(unanswered(&BDCOM, &gp3600(), &[]), None);
        assert_eq!(unanswered(&HUAWEI, &gp3600(), &[]), None);
        let mut epon = Interfaces::default();
        epon.names.insert(41, "EPON0/1:1".into());
        epon.names.insert(10, "EPON0/1".into());
        assert_eq!(
            unanswered(&BDCOM, &epon, &[]).as_deref(),
            Some(
                "IF-MIB lists 1 ONU interface but the ONU table gave an ONU for 0 of them: \
                 none for EPON0/1:1"
            )
        );
    }

    #[test]
    fn a_row_that_left_the_table_asks_for_if_mib_again() {
        let last = RowMap::new(rows([1001, 1002]).into_iter().zip([1, 2]));
        let memory = Memory {
            rows: &last,
            onus: &[],
            interfaces: None,
            vlans: &[],
        };
        let both = rows([1001, 1002]);
        assert!(!rows_gone(&BDCOM_GPON, &both, memory));
        assert!(!rows_gone(&BDCOM_GPON, &rows([1001, 1002, 1003]), memory));
        assert!(rows_gone(&BDCOM_GPON, &rows([1001]), memory));
        assert!(!rows_gone(&HUAWEI, &rows([1001]), memory));
    }
}
