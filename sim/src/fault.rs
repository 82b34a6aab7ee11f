//! Fault injection for the simulated fleet: what can go wrong with one OLT ([`Fault`]),
//! the faults one OLT has right now ([`FaultSet`]), and the text form operators and tests
//! write them in ([`FaultSpec`]: `;`-separated rules `KIND[:PARAM]@TARGETS`, e.g.
//! `hang@1-100;slow:300ms@200;ssh-mute@5`). The SNMP agent ([`super::agent`]) and the SSH
//! server ([`super::ssh`]) read their OLT's set before every answer; [`super::SimFleet`]
//! changes it in-process, the `ponkeeper sim --faults` flag at start and the control
//! socket ([`super::control`]) at run time. The text form is parsed, printed and resolved
//! against a fleet in `fault/spec.rs`; this file holds the faults and the board of sets.
//!
//! A set holds at most one fault of each kind: adding `slow:1s` to an OLT that is
//! `slow:300ms` replaces the delay. Faults of different kinds combine: `hang` and `gone`
//! silence every other SNMP fault, `drop` decides before `slow` delays, and `wrong-id`,
//! `oversized` and `malformed` bend the same answer in that order.

mod spec;

use super::agent::OltShared;
use ponkeeper_actors::domain::OltId;
use rand::Rng;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

pub use spec::{FaultRule, FaultSpec, FaultSpecError, Targets};

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
