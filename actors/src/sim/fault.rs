//! Fault injection for the simulated fleet: what can go wrong with one OLT ([`Fault`]),
//! the faults one OLT has right now ([`FaultSet`]), and the text form operators and tests
//! write them in ([`FaultSpec`]: `;`-separated rules `KIND[:PARAM]@TARGETS`, e.g.
//! `hang@1-100;slow:300ms@200;ssh-mute@5`). The SNMP agent ([`super::agent`]) and the SSH
//! server ([`super::ssh`]) read their OLT's set before every answer; [`super::SimFleet`]
//! changes it in-process, the `ponkeeper sim --faults` flag at start and the control
//! socket ([`super::control`]) at run time.
//!
//! A set holds at most one fault of each kind: adding `slow:1s` to an OLT that is
//! `slow:300ms` replaces the delay. Faults of different kinds combine: `hang` and `gone`
//! silence every other SNMP fault, `drop` decides before `slow` delays, and `wrong-id`,
//! `oversized` and `malformed` bend the same answer in that order.

use super::agent::OltShared;
use crate::domain::OltId;
use rand::Rng;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

/// One way a simulated OLT misbehaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fault {
    /// No SNMP answer at all.
    Hang,
    /// This percentage (0–100) of SNMP requests gets no answer, at random.
    Drop(u8),
    /// Every SNMP answer leaves after this delay (other OLTs are not held up).
    Slow(Duration),
    /// Answers are random bytes that are not BER.
    Garbage,
    /// Answers are BER cut short: the message header claims more bytes than arrive.
    Malformed,
    /// Well-formed answers carrying another request id.
    WrongId,
    /// Answers padded with unrequested varbinds up to a datagram of about 64 KB.
    Oversized,
    /// The UDP socket is closed, so requests draw ICMP port unreachable; clearing the
    /// fault binds the same port again.
    Gone,
    /// SSH accepts the connection and the login but never shows a prompt or answers.
    SshMute,
    /// SSH drops the connection half-way through a command's output.
    SshDrop,
}

impl Fault {
    /// How many kinds of fault there are.
    const KINDS: usize = 10;

    /// The kind's name in a SPEC.
    pub fn kind(&self) -> &'static str {
        match self {
            Fault::Hang => "hang",
            Fault::Drop(_) => "drop",
            Fault::Slow(_) => "slow",
            Fault::Garbage => "garbage",
            Fault::Malformed => "malformed",
            Fault::WrongId => "wrong-id",
            Fault::Oversized => "oversized",
            Fault::Gone => "gone",
            Fault::SshMute => "ssh-mute",
            Fault::SshDrop => "ssh-drop",
        }
    }

    fn index(&self) -> usize {
        match self {
            Fault::Hang => 0,
            Fault::Drop(_) => 1,
            Fault::Slow(_) => 2,
            Fault::Garbage => 3,
            Fault::Malformed => 4,
            Fault::WrongId => 5,
            Fault::Oversized => 6,
            Fault::Gone => 7,
            Fault::SshMute => 8,
            Fault::SshDrop => 9,
        }
    }
}

impl fmt::Display for Fault {
    /// The SPEC form: `hang`, `drop:30`, `slow:800ms`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::Drop(percent) => write!(f, "drop:{percent}"),
            Fault::Slow(delay) => write!(f, "slow:{}", humantime::format_duration(*delay)),
            other => f.write_str(other.kind()),
        }
    }
}

impl FromStr for Fault {
    type Err = String;

    /// `KIND[:PARAM]`; the error says what is wrong, without the rule around it.
    fn from_str(text: &str) -> Result<Fault, String> {
        let (kind, param) = match text.split_once(':') {
            Some((kind, param)) => (kind.trim(), Some(param.trim())),
            None => (text.trim(), None),
        };
        let plain = |fault: Fault| match param {
            None => Ok(fault),
            Some(_) => Err(format!("`{kind}` takes no parameter")),
        };
        match kind {
            "hang" => plain(Fault::Hang),
            "garbage" => plain(Fault::Garbage),
            "malformed" => plain(Fault::Malformed),
            "wrong-id" => plain(Fault::WrongId),
            "oversized" => plain(Fault::Oversized),
            "gone" => plain(Fault::Gone),
            "ssh-mute" => plain(Fault::SshMute),
            "ssh-drop" => plain(Fault::SshDrop),
            "drop" => {
                let param = param
                    .filter(|p| !p.is_empty())
                    .ok_or("`drop` needs a percentage, e.g. drop:30")?;
                let percent = param.strip_suffix('%').unwrap_or(param);
                match percent.parse::<u8>() {
                    Ok(percent) if percent <= 100 => Ok(Fault::Drop(percent)),
                    _ => Err(format!(
                        "`drop:{param}`: the percentage must be a whole number from 0 to 100"
                    )),
                }
            }
            "slow" => {
                let param = param
                    .filter(|p| !p.is_empty())
                    .ok_or("`slow` needs a delay, e.g. slow:800ms")?;
                humantime::parse_duration(param)
                    .map(Fault::Slow)
                    .map_err(|e| format!("`slow:{param}`: not a duration ({e})"))
            }
            "" => Err("no fault kind".to_string()),
            other => Err(format!(
                "unknown fault `{other}` (known: hang, drop:PCT, slow:DURATION, garbage, \
                 malformed, wrong-id, oversized, gone, ssh-mute, ssh-drop)"
            )),
        }
    }
}

/// The faults of one OLT: at most one of each kind. Empty means a healthy OLT.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FaultSet([Option<Fault>; Fault::KINDS]);

impl FaultSet {
    /// No fault.
    pub fn new() -> FaultSet {
        FaultSet::default()
    }

    /// This set with `fault` added (replacing a fault of the same kind).
    pub fn with(mut self, fault: Fault) -> FaultSet {
        self.insert(fault);
        self
    }

    /// Adds `fault`, replacing a fault of the same kind.
    pub fn insert(&mut self, fault: Fault) {
        self.0[fault.index()] = Some(fault);
    }

    /// Removes the fault of `fault`'s kind (whatever its parameter).
    pub fn remove(&mut self, fault: Fault) {
        self.0[fault.index()] = None;
    }

    /// Whether a fault of `fault`'s kind is in the set (whatever its parameter).
    pub fn has(&self, fault: Fault) -> bool {
        self.0[fault.index()].is_some()
    }

    /// Adds every fault of `other`, replacing those of the same kinds.
    pub fn merge(&mut self, other: &FaultSet) {
        for fault in other.iter() {
            self.insert(fault);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(Option::is_none)
    }

    /// The faults, in a fixed order of kinds.
    pub fn iter(&self) -> impl Iterator<Item = Fault> + '_ {
        self.0.iter().flatten().copied()
    }

    /// The `drop` percentage, if any.
    pub fn drop_percent(&self) -> Option<u8> {
        match self.0[Fault::Drop(0).index()] {
            Some(Fault::Drop(percent)) => Some(percent),
            _ => None,
        }
    }

    /// The `slow` delay, if any.
    pub fn delay(&self) -> Option<Duration> {
        match self.0[Fault::Slow(Duration::ZERO).index()] {
            Some(Fault::Slow(delay)) => Some(delay),
            _ => None,
        }
    }
}

impl FromIterator<Fault> for FaultSet {
    fn from_iter<I: IntoIterator<Item = Fault>>(faults: I) -> FaultSet {
        let mut set = FaultSet::new();
        for fault in faults {
            set.insert(fault);
        }
        set
    }
}

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

/// One rule of a SPEC: a fault and the OLTs it applies to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultRule {
    pub fault: Fault,
    pub targets: Targets,
}

impl fmt::Display for FaultRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}", self.fault, self.targets)
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
                bad("no `@TARGETS` (write e.g. hang@1-3, slow:300ms@all, drop:30@10%)".into())
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
    /// names, by id. Fails on the first rule that names an OLT the fleet lacks.
    pub fn resolve(&self, fleet: &[OltId]) -> Result<Vec<(OltId, FaultSet)>, FaultSpecError> {
        let mut sets: Vec<(OltId, FaultSet)> = Vec::new();
        for rule in &self.rules {
            let ids = rule
                .targets
                .select(fleet)
                .map_err(|reason| FaultSpecError {
                    rule: rule.to_string(),
                    reason,
                })?;
            for id in ids {
                match sets.iter_mut().find(|(olt, _)| *olt == id) {
                    Some((_, set)) => set.insert(rule.fault),
                    None => sets.push((id, FaultSet::new().with(rule.fault))),
                }
            }
        }
        sets.sort_by_key(|(id, _)| *id);
        Ok(sets)
    }

    /// The SPEC that describes `sets` (OLT id and its faults): one rule per distinct
    /// fault, naming its OLTs as ranges. Healthy OLTs do not appear.
    pub fn describe(sets: &[(OltId, FaultSet)]) -> FaultSpec {
        let mut faults: Vec<(Fault, Vec<OltId>)> = Vec::new();
        for (id, set) in sets {
            for fault in set.iter() {
                match faults.iter_mut().find(|(f, _)| *f == fault) {
                    Some((_, ids)) => ids.push(*id),
                    None => faults.push((fault, vec![*id])),
                }
            }
        }
        faults.sort_by_key(|(fault, ids)| (fault.index(), ids.first().copied()));
        let rules = faults
            .into_iter()
            .map(|(fault, mut ids)| {
                ids.sort_unstable();
                FaultRule {
                    fault,
                    targets: Targets::Ids(ranges(&ids)),
                }
            })
            .collect();
        FaultSpec { rules }
    }
}

/// Every OLT's fault set, by id: what [`super::SimFleet`] and the control socket change.
pub(crate) struct FaultBoard {
    /// Ascending by id.
    olts: Vec<(OltId, Arc<OltShared>)>,
}

impl FaultBoard {
    pub fn new(olts: Vec<(OltId, Arc<OltShared>)>) -> FaultBoard {
        FaultBoard { olts }
    }

    fn ids(&self) -> Vec<OltId> {
        self.olts.iter().map(|(id, _)| *id).collect()
    }

    fn olt(&self, id: OltId) -> Option<&OltShared> {
        self.olts
            .binary_search_by_key(&id, |(olt, _)| *olt)
            .ok()
            .map(|i| &*self.olts[i].1)
    }

    /// The faults of OLT `id` (`None`: no such OLT).
    pub fn get(&self, id: OltId) -> Option<FaultSet> {
        self.olt(id).map(|olt| *olt.faults.borrow())
    }

    /// Replaces the faults of OLT `id`; `false` if there is no such OLT.
    pub fn set(&self, id: OltId, faults: FaultSet) -> bool {
        self.update(id, |set| *set = faults)
    }

    /// Changes the faults of OLT `id` in place; `false` if there is no such OLT.
    pub fn update(&self, id: OltId, change: impl FnOnce(&mut FaultSet)) -> bool {
        match self.olt(id) {
            Some(olt) => {
                olt.faults.send_modify(change);
                true
            }
            None => false,
        }
    }

    /// Adds the SPEC's faults to the OLTs it names (replacing faults of the same kinds);
    /// all or nothing. Returns how many OLTs it touched.
    pub fn apply(&self, spec: &FaultSpec) -> Result<usize, FaultSpecError> {
        let sets = spec.resolve(&self.ids())?;
        for (id, faults) in &sets {
            self.update(*id, |set| set.merge(faults));
        }
        Ok(sets.len())
    }

    /// Heals the targeted OLTs (every OLT for `None`); returns how many.
    pub fn clear(&self, targets: Option<&Targets>) -> Result<usize, String> {
        let ids = match targets {
            Some(targets) => targets.select(&self.ids())?,
            None => self.ids(),
        };
        for id in &ids {
            self.set(*id, FaultSet::new());
        }
        Ok(ids.len())
    }

    /// The current faults as a SPEC (empty when the fleet is healthy).
    pub fn describe(&self) -> FaultSpec {
        let sets: Vec<(OltId, FaultSet)> = self
            .olts
            .iter()
            .map(|(id, olt)| (*id, *olt.faults.borrow()))
            .collect();
        FaultSpec::describe(&sets)
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

/// A datagram of random bytes no BER decoder accepts: it never starts with a SEQUENCE.
pub(crate) fn garbage(rng: &mut impl Rng) -> Vec<u8> {
    let len = rng.random_range(8..512);
    let mut bytes: Vec<u8> = (0..len).map(|_| rng.random()).collect();
    if bytes[0] == 0x30 {
        bytes[0] = 0xFF;
    }
    bytes
}

/// The answer cut to half its length, so the message header claims bytes that never
/// arrive.
pub(crate) fn malform(answer: &mut Vec<u8>) {
    answer.truncate((answer.len() / 2).max(1));
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn every_kind_parses_and_prints_back() {
        let text = "hang@1-100;drop:30@2;slow:300ms@200;garbage@3;malformed@4;wrong-id@5;\
                    oversized@6;gone@7;ssh-mute@5;ssh-drop@1,3,10-20";
        let parsed = spec(text);
        assert_eq!(parsed.rules.len(), 10);
        assert_eq!(parsed.rules[0].fault, Fault::Hang);
        assert_eq!(parsed.rules[0].targets, Targets::Ids(vec![(1, 100)]));
        assert_eq!(parsed.rules[1].fault, Fault::Drop(30));
        assert_eq!(
            parsed.rules[2].fault,
            Fault::Slow(Duration::from_millis(300))
        );
        assert_eq!(
            parsed.rules[9].targets,
            Targets::Ids(vec![(1, 1), (3, 3), (10, 20)])
        );
        assert_eq!(parsed.to_string(), text.replace(' ', ""));
        assert_eq!(spec(&parsed.to_string()), parsed);
    }

    #[test]
    fn targets_all_percent_and_spacing() {
        let parsed = spec(" hang @ all ; drop:5%@10% ; slow:1s@ 2 ;");
        assert_eq!(parsed.rules[0].targets, Targets::All);
        assert_eq!(parsed.rules[1].fault, Fault::Drop(5));
        assert_eq!(parsed.rules[1].targets, Targets::Percent(10));
        assert_eq!(parsed.rules[2].fault, Fault::Slow(Duration::from_secs(1)));
        assert_eq!(spec(""), FaultSpec::default());
        assert_eq!(spec(";;"), FaultSpec::default());
    }

    #[test]
    fn bad_rules_are_named_with_the_reason() {
        let e = error("hang@1;frobnicate@2");
        assert_eq!(e.rule, "frobnicate@2");
        assert!(e.reason.contains("unknown fault `frobnicate`"), "{e}");
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
        let sets = spec("hang@10%;slow:300ms@2-3;slow:1s@3")
            .resolve(&fleet)
            .expect("resolves");
        assert_eq!(
            sets,
            vec![
                (1, FaultSet::new().with(Fault::Hang)),
                (
                    2,
                    FaultSet::new()
                        .with(Fault::Hang)
                        .with(Fault::Slow(Duration::from_millis(300)))
                ),
                (3, FaultSet::new().with(Fault::Slow(Duration::from_secs(1)))),
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
    }

    #[test]
    fn describe_groups_olts_into_ranges() {
        let slow = Fault::Slow(Duration::from_millis(300));
        let sets = vec![
            (1, FaultSet::new().with(Fault::Hang)),
            (2, FaultSet::new().with(Fault::Hang).with(slow)),
            (3, FaultSet::new().with(Fault::Hang)),
            (5, FaultSet::new().with(Fault::Hang).with(Fault::SshMute)),
            (6, FaultSet::new()),
        ];
        let described = FaultSpec::describe(&sets);
        assert_eq!(described.to_string(), "hang@1-3,5;slow:300ms@2;ssh-mute@5");
        let fleet: Vec<OltId> = (1..=6).collect();
        let resolved = described.resolve(&fleet).expect("resolves");
        let healthy_left_out: Vec<_> = sets.into_iter().filter(|(_, s)| !s.is_empty()).collect();
        assert_eq!(resolved, healthy_left_out);
    }

    #[test]
    fn a_set_keeps_one_fault_per_kind() {
        let mut set = FaultSet::new().with(Fault::Drop(10)).with(Fault::Drop(50));
        assert_eq!(set.drop_percent(), Some(50));
        assert!(set.has(Fault::Drop(0)));
        set.remove(Fault::Drop(0));
        assert!(set.is_empty());
        assert_eq!(set.delay(), None);
    }

    #[test]
    fn garbage_is_not_ber_and_malformed_is_short() {
        let mut rng = rand::rng();
        for _ in 0..100 {
            let bytes = garbage(&mut rng);
            assert_ne!(bytes[0], 0x30);
            assert!(snmp2::Pdu::from_bytes(&bytes).is_err());
        }
        let mut answer = vec![0x30, 0x06, 1, 2, 3, 4, 5, 6];
        malform(&mut answer);
        assert_eq!(answer, [0x30, 0x06, 1, 2]);
    }
}
