//! The text form of fault injection: a SPEC of `;`-separated rules `KIND[:PARAM]@TARGETS`
//! ([`FaultSpec`], [`FaultRule`], [`Targets`]), parsed and printed back, resolved against
//! a fleet's ids into what each OLT gets ([`OltFaults`]: a [`FaultSet`] and groups of its
//! ONUs) and described back from that. A rule's KIND is a fault of the OLT ([`Fault`]) or
//! a group of its ONUs going down ([`OnuGroup`], `fault/group.rs`). The
//! `ponkeeper sim --faults` flag and the control socket write SPECs; the fault board in
//! `fault_board.rs` applies them.

use super::{Fault, FaultSet, GroupCause, OnuGroup};
use ponkeeper_actors::domain::OltId;
use std::fmt;
use std::str::FromStr;

/// Which OLTs a rule applies to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Targets {
    All,
    /// Inclusive id ranges (a single id is a range of one).
    Ids(Vec<(OltId, OltId)>),
    /// The first ceil(N% of the fleet) OLTs by id.
    Percent(u8),
}

impl Targets {
    /// The ids of `fleet` (ascending) this selects, or what is wrong: an id the fleet
    /// does not have.
    pub fn select(&self, fleet: &[OltId]) -> Result<Vec<OltId>, String> {
        match self {
            Targets::All => Ok(fleet.to_vec()),
            Targets::Percent(percent) => {
                let count = (fleet.len() * usize::from(*percent)).div_ceil(100);
                Ok(fleet.iter().take(count).copied().collect())
            }
            Targets::Ids(ranges) => {
                let mut ids = Vec::new();
                for &(first, last) in ranges {
                    let chosen: Vec<OltId> = fleet
                        .iter()
                        .copied()
                        .filter(|id| (first..=last).contains(id))
                        .collect();
                    let wanted = u64::from(last - first) + 1;
                    if chosen.len() as u64 != wanted {
                        let range = if first == last {
                            format!("OLT {first}")
                        } else {
                            format!("OLTs {first}-{last}")
                        };
                        return Err(format!(
                            "{range}: the fleet has {} OLTs ({})",
                            fleet.len(),
                            ranges_text(fleet)
                        ));
                    }
                    ids.extend(chosen);
                }
                ids.sort_unstable();
                ids.dedup();
                Ok(ids)
            }
        }
    }
}

impl fmt::Display for Targets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Targets::All => f.write_str("all"),
            Targets::Percent(percent) => write!(f, "{percent}%"),
            Targets::Ids(ranges) => {
                let parts: Vec<String> = ranges
                    .iter()
                    .map(|&(a, b)| {
                        if a == b {
                            a.to_string()
                        } else {
                            format!("{a}-{b}")
                        }
                    })
                    .collect();
                f.write_str(&parts.join(","))
            }
        }
    }
}

impl FromStr for Targets {
    type Err = String;

    /// `all`, `N%`, or ids and ranges: `1,3,10-20`.
    fn from_str(text: &str) -> Result<Targets, String> {
        let text = text.trim();
        if text == "all" {
            return Ok(Targets::All);
        }
        if let Some(percent) = text.strip_suffix('%') {
            return match percent.trim().parse::<u8>() {
                Ok(p) if (1..=100).contains(&p) => Ok(Targets::Percent(p)),
                _ => Err(format!(
                    "`{text}`: a percentage of the fleet must be from 1% to 100%"
                )),
            };
        }
        if text.is_empty() {
            return Err("no targets after `@` (all, N%, or ids such as 1,3,10-20)".into());
        }
        let id = |part: &str| -> Result<OltId, String> {
            match part.trim().parse::<OltId>() {
                Ok(id) if id >= 1 => Ok(id),
                _ => Err(format!("`{}` is not an OLT id", part.trim())),
            }
        };
        let mut ranges = Vec::new();
        for part in text.split(',') {
            let range = match part.split_once('-') {
                Some((first, last)) => {
                    let (first, last) = (id(first)?, id(last)?);
                    if first > last {
                        return Err(format!("`{}`: the range runs backwards", part.trim()));
                    }
                    (first, last)
                }
                None => {
                    let single = id(part)?;
                    (single, single)
                }
            };
            ranges.push(range);
        }
        Ok(Targets::Ids(ranges))
    }
}

/// What one rule injects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleFault {
    /// A fault of the OLT itself: at most one of each kind per OLT.
    Olt(Fault),
    /// A group of the OLT's ONUs going down: several per OLT.
    Onus(OnuGroup),
}

impl From<Fault> for RuleFault {
    fn from(fault: Fault) -> RuleFault {
        RuleFault::Olt(fault)
    }
}

impl From<OnuGroup> for RuleFault {
    fn from(group: OnuGroup) -> RuleFault {
        RuleFault::Onus(group)
    }
}

impl fmt::Display for RuleFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleFault::Olt(fault) => fault.fmt(f),
            RuleFault::Onus(group) => group.fmt(f),
        }
    }
}

impl FromStr for RuleFault {
    type Err = String;

    /// `los:…` and `dying-gasp:…` are ONU groups, anything else a fault of the OLT.
    fn from_str(text: &str) -> Result<RuleFault, String> {
        let kind = text.split_once(':').map_or(text, |(kind, _)| kind).trim();
        match GroupCause::of_kind(kind) {
            Some(_) => text.parse().map(RuleFault::Onus),
            None => text.parse().map(RuleFault::Olt),
        }
    }
}

/// One rule of a SPEC: a fault and the OLTs it applies to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultRule {
    pub fault: RuleFault,
    pub targets: Targets,
}

impl fmt::Display for FaultRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}", self.fault, self.targets)
    }
}

/// What a SPEC gives one OLT: faults of its own and groups of its ONUs that go down.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OltFaults {
    pub set: FaultSet,
    /// In the order the SPEC names them; a later group of the same ONUs replaces an
    /// earlier one.
    pub groups: Vec<OnuGroup>,
}

impl OltFaults {
    /// Adds `fault`, replacing a fault of the same kind or a group of the same ONUs.
    pub fn add(&mut self, fault: &RuleFault) {
        match fault {
            RuleFault::Olt(fault) => self.set.insert(*fault),
            RuleFault::Onus(group) => {
                self.groups.retain(|held| !held.same_onus(group));
                self.groups.push(group.clone());
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.set.is_empty() && self.groups.is_empty()
    }
}

impl From<FaultSet> for OltFaults {
    fn from(set: FaultSet) -> OltFaults {
        OltFaults {
            set,
            groups: Vec::new(),
        }
    }
}

/// A fault SPEC: `;`-separated rules `KIND[:PARAM]@TARGETS`. Empty rules (a trailing `;`)
/// are ignored; the empty SPEC injects nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FaultSpec {
    pub rules: Vec<FaultRule>,
}

/// A SPEC that cannot be used, naming the rule at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad fault rule `{rule}`: {reason}")]
pub struct FaultSpecError {
    pub rule: String,
    pub reason: String,
}

impl FromStr for FaultSpec {
    type Err = FaultSpecError;

    fn from_str(text: &str) -> Result<FaultSpec, FaultSpecError> {
        let mut rules = Vec::new();
        for rule in text.split(';').map(str::trim).filter(|r| !r.is_empty()) {
            let bad = |reason: String| FaultSpecError {
                rule: rule.to_string(),
                reason,
            };
            let (fault, targets) = rule.split_once('@').ok_or_else(|| {
                bad(
                    "no `@TARGETS` (write e.g. hang@1-3, slow:300ms@all, drop:30@10%, \
                     los:0/1/0:1-12@2)"
                        .into(),
                )
            })?;
            rules.push(FaultRule {
                fault: fault.parse().map_err(bad)?,
                targets: targets.parse().map_err(bad)?,
            });
        }
        Ok(FaultSpec { rules })
    }
}

impl fmt::Display for FaultSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rules: Vec<String> = self.rules.iter().map(ToString::to_string).collect();
        f.write_str(&rules.join(";"))
    }
}

impl FaultSpec {
    /// What the SPEC does to `fleet` (ids ascending): the faults to add to each OLT it
    /// names, by id. Fails on the first rule that names an OLT the fleet lacks (whether an
    /// OLT has a group's port and ONUs is for the fault board to check).
    pub fn resolve(&self, fleet: &[OltId]) -> Result<Vec<(OltId, OltFaults)>, FaultSpecError> {
        let mut olts: Vec<(OltId, OltFaults)> = Vec::new();
        for rule in &self.rules {
            let ids = rule
                .targets
                .select(fleet)
                .map_err(|reason| FaultSpecError {
                    rule: rule.to_string(),
                    reason,
                })?;
            for id in ids {
                match olts.iter_mut().find(|(olt, _)| *olt == id) {
                    Some((_, faults)) => faults.add(&rule.fault),
                    None => {
                        let mut faults = OltFaults::default();
                        faults.add(&rule.fault);
                        olts.push((id, faults));
                    }
                }
            }
        }
        olts.sort_by_key(|(id, _)| *id);
        Ok(olts)
    }

    /// The SPEC that describes `olts` (OLT id and its faults): one rule per distinct
    /// fault, naming its OLTs as ranges; the OLTs' own faults first, in a fixed order of
    /// kinds, then the ONU groups in the order first met (OLTs by id, each OLT's groups
    /// in the order added). Healthy OLTs do not appear.
    pub fn describe(olts: &[(OltId, OltFaults)]) -> FaultSpec {
        let mut faults: Vec<(Fault, Vec<OltId>)> = Vec::new();
        let mut groups: Vec<(&OnuGroup, Vec<OltId>)> = Vec::new();
        for (id, olt) in olts {
            for fault in olt.set.iter() {
                match faults.iter_mut().find(|(f, _)| *f == fault) {
                    Some((_, ids)) => ids.push(*id),
                    None => faults.push((fault, vec![*id])),
                }
            }
            for group in &olt.groups {
                match groups.iter_mut().find(|(g, _)| *g == group) {
                    Some((_, ids)) => ids.push(*id),
                    None => groups.push((group, vec![*id])),
                }
            }
        }
        faults.sort_by_key(|(fault, ids)| (fault.index(), ids.first().copied()));
        let rule = |fault: RuleFault, mut ids: Vec<OltId>| {
            ids.sort_unstable();
            FaultRule {
                fault,
                targets: Targets::Ids(ranges(&ids)),
            }
        };
        let olt_rules = faults.into_iter().map(|(f, ids)| rule(f.into(), ids));
        let group_rules = groups
            .into_iter()
            .map(|(g, ids)| rule(g.clone().into(), ids));
        FaultSpec {
            rules: olt_rules.chain(group_rules).collect(),
        }
    }
}

/// Sorted ids folded into inclusive ranges.
fn ranges(ids: &[OltId]) -> Vec<(OltId, OltId)> {
    let mut out: Vec<(OltId, OltId)> = Vec::new();
    for &id in ids {
        match out.last_mut() {
            Some((_, last)) if last.checked_add(1) == Some(id) => *last = id,
            _ => out.push((id, id)),
        }
    }
    out
}

fn ranges_text(ids: &[OltId]) -> String {
    if ids.is_empty() {
        return "none".to_string();
    }
    Targets::Ids(ranges(ids)).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn spec(text: &str) -> FaultSpec {
        text.parse()
            .unwrap_or_else(|e| panic!("`{text}` should parse: {e}"))
    }

    fn error(text: &str) -> FaultSpecError {
        match text.parse::<FaultSpec>() {
            Ok(parsed) => panic!("`{text}` should not parse, got {parsed:?}"),
            Err(e) => e,
        }
    }

    fn group(text: &str) -> OnuGroup {
        text.parse().expect("a group")
    }

    #[test]
    fn every_kind_parses_and_prints_back() {
        let text = "hang@1-100;drop:30@2;slow:300ms@200;garbage@3;malformed@4;wrong-id@5;\
                    oversized@6;gone@7;ssh-mute@5;ssh-drop@1,3,10-20;los:0/1/0:1-12@1;\
                    dying-gasp:1/1/1:5@2-3";
        let parsed = spec(text);
        assert_eq!(parsed.rules.len(), 12);
        assert_eq!(parsed.rules[0].fault, Fault::Hang.into());
        assert_eq!(parsed.rules[0].targets, Targets::Ids(vec![(1, 100)]));
        assert_eq!(parsed.rules[1].fault, Fault::Drop(30).into());
        assert_eq!(
            parsed.rules[2].fault,
            Fault::Slow(Duration::from_millis(300)).into()
        );
        assert_eq!(
            parsed.rules[9].targets,
            Targets::Ids(vec![(1, 1), (3, 3), (10, 20)])
        );
        assert_eq!(
            parsed.rules[10].fault,
            RuleFault::Onus(OnuGroup {
                cause: GroupCause::Los,
                port: "0/1/0".into(),
                first: 1,
                last: 12,
            })
        );
        assert_eq!(parsed.rules[11].fault, group("dying-gasp:1/1/1:5-5").into());
        assert_eq!(parsed.rules[11].targets, Targets::Ids(vec![(2, 3)]));
        assert_eq!(parsed.to_string(), text.replace(' ', ""));
        assert_eq!(spec(&parsed.to_string()), parsed);
    }

    #[test]
    fn targets_all_percent_and_spacing() {
        let parsed = spec(" hang @ all ; drop:5%@10% ; slow:1s@ 2 ; los : 0/1 : 3 - 4 @ 1 ;");
        assert_eq!(parsed.rules[0].targets, Targets::All);
        assert_eq!(parsed.rules[1].fault, Fault::Drop(5).into());
        assert_eq!(parsed.rules[1].targets, Targets::Percent(10));
        assert_eq!(
            parsed.rules[2].fault,
            Fault::Slow(Duration::from_secs(1)).into()
        );
        assert_eq!(parsed.rules[3].to_string(), "los:0/1:3-4@1");
        assert_eq!(spec(""), FaultSpec::default());
        assert_eq!(spec(";;"), FaultSpec::default());
    }

    #[test]
    fn bad_rules_are_named_with_the_reason() {
        let e = error("hang@1;frobnicate@2");
        assert_eq!(e.rule, "frobnicate@2");
        assert!(e.reason.contains("unknown fault `frobnicate`"), "{e}");
        assert!(e.reason.contains("los:PORT:FIRST-LAST"), "{e}");
        assert!(e.to_string().starts_with("bad fault rule `frobnicate@2`: "));
        let cases = [
            ("hang", "no `@TARGETS`"),
            ("hang@", "no targets"),
            ("hang:3@1", "takes no parameter"),
            ("drop@1", "needs a percentage"),
            ("drop:101@1", "from 0 to 100"),
            ("drop:x@1", "from 0 to 100"),
            ("slow@1", "needs a delay"),
            ("slow:fast@1", "not a duration"),
            ("hang@0", "`0` is not an OLT id"),
            ("hang@x", "`x` is not an OLT id"),
            ("hang@5-2", "runs backwards"),
            ("hang@1,,2", "`` is not an OLT id"),
            ("hang@0%", "from 1% to 100%"),
            ("hang@150%", "from 1% to 100%"),
            ("@1", "no fault kind"),
            ("los@1", "`los` needs a PON port and ONU numbers"),
            ("los:0/1/0:1-12", "no `@TARGETS`"),
            (
                "dying-gasp:0/1/0@1",
                "`dying-gasp` needs a PON port and ONU numbers",
            ),
            ("los:GPON0/1/0:1@1", "`GPON0/1/0` is not a PON port"),
            ("los:0/1/0:x@1", "`x`: ONU numbers are whole numbers"),
            ("los:0/1/0:9-2@1", "`9-2`: the range of ONUs runs backwards"),
            ("los:0/1/0:1-3@0", "`0` is not an OLT id"),
        ];
        for (text, reason) in cases {
            let e = error(text);
            assert_eq!(e.rule, text, "{text}");
            assert!(e.reason.contains(reason), "{text}: {e}");
        }
    }

    #[test]
    fn resolving_merges_rules_and_refuses_unknown_olts() {
        let fleet: Vec<OltId> = (1..=20).collect();
        let olts = spec(
            "hang@10%;slow:300ms@2-3;slow:1s@3;los:0/1/0:1-12@3;\
             dying-gasp:0/1/1:1-4@3;dying-gasp:0/1/0:1-12@3,4",
        )
        .resolve(&fleet)
        .expect("resolves");
        let set = |faults: &[Fault]| OltFaults::from(faults.iter().copied().collect::<FaultSet>());
        let mut third = set(&[Fault::Slow(Duration::from_secs(1))]);
        // The later group of the same ONUs replaced the earlier one.
        third.groups = vec![
            group("dying-gasp:0/1/1:1-4"),
            group("dying-gasp:0/1/0:1-12"),
        ];
        let fourth = OltFaults {
            groups: vec![group("dying-gasp:0/1/0:1-12")],
            ..OltFaults::default()
        };
        assert_eq!(
            olts,
            vec![
                (1, set(&[Fault::Hang])),
                (
                    2,
                    set(&[Fault::Hang, Fault::Slow(Duration::from_millis(300))])
                ),
                (3, third),
                (4, fourth),
            ]
        );
        // ceil: 5% of 20 is 1, 6% of 20 is 1.2, so 2.
        assert_eq!(Targets::Percent(5).select(&fleet), Ok(vec![1]));
        assert_eq!(Targets::Percent(6).select(&fleet), Ok(vec![1, 2]));
        assert_eq!(Targets::Percent(100).select(&fleet), Ok(fleet.clone()));
        let e = spec("hang@1;gone@15-25")
            .resolve(&fleet)
            .expect_err("refused");
        assert_eq!(e.rule, "gone@15-25");
        assert!(e.reason.contains("the fleet has 20 OLTs (1-20)"), "{e}");
        let e = spec("los:0/1/0:1@21").resolve(&fleet).expect_err("refused");
        assert_eq!(
            e.to_string(),
            "bad fault rule `los:0/1/0:1@21`: OLT 21: the fleet has 20 OLTs (1-20)"
        );
    }

    #[test]
    fn describe_groups_olts_into_ranges() {
        let slow = Fault::Slow(Duration::from_millis(300));
        let los = group("los:0/1/0:1-12");
        let gasp = group("dying-gasp:0/1/3:7");
        let olt = |faults: FaultSet, groups: &[&OnuGroup]| OltFaults {
            set: faults,
            groups: groups.iter().map(|g| (*g).clone()).collect(),
        };
        let olts = vec![
            (1, olt(FaultSet::new().with(Fault::Hang), &[&gasp])),
            (
                2,
                olt(FaultSet::new().with(Fault::Hang).with(slow), &[&gasp, &los]),
            ),
            (3, olt(FaultSet::new().with(Fault::Hang), &[&los])),
            (
                5,
                olt(FaultSet::new().with(Fault::Hang).with(Fault::SshMute), &[]),
            ),
            (6, olt(FaultSet::new(), &[&los])),
            (7, OltFaults::default()),
        ];
        let described = FaultSpec::describe(&olts);
        assert_eq!(
            described.to_string(),
            "hang@1-3,5;slow:300ms@2;ssh-mute@5;dying-gasp:0/1/3:7@1-2;los:0/1/0:1-12@2-3,6"
        );
        let fleet: Vec<OltId> = (1..=7).collect();
        let resolved = described.resolve(&fleet).expect("resolves");
        let healthy_left_out: Vec<_> = olts.into_iter().filter(|(_, o)| !o.is_empty()).collect();
        assert_eq!(resolved, healthy_left_out);
    }
}
