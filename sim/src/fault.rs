//! Fault injection for the simulated fleet: what can go wrong with one OLT ([`Fault`]),
//! the faults one OLT has right now ([`FaultSet`]), groups of its ONUs that go down
//! ([`OnuGroup`]: a fibre cut `los:PORT:FIRST-LAST`, a power cut
//! `dying-gasp:PORT:FIRST-LAST`), and the text form operators and tests write them in
//! ([`FaultSpec`]: `;`-separated rules `KIND[:PARAM]@TARGETS`, e.g.
//! `hang@1-100;slow:300ms@200;ssh-mute@5;los:0/1/0:1-12@3`). The SNMP agent
//! ([`super::agent`]) and the SSH server ([`super::ssh`]) read their OLT's set before every
//! answer; [`super::SimFleet`] changes it in-process, the `ponkeeper sim --faults` flag at
//! start and the control socket ([`super::control`]) at run time, all through the fault
//! board (`fault_board.rs`), which joins these values to the OLTs: this module knows no
//! OLT. The text form is parsed, printed and resolved against a fleet's ids in
//! `fault/spec.rs`, ONU groups in `fault/group.rs`; this file holds the faults of an OLT
//! and their set.
//!
//! A set holds at most one fault of each kind: adding `slow:1s` to an OLT that is
//! `slow:300ms` replaces the delay. Faults of different kinds combine: `hang` and `gone`
//! silence every other SNMP fault, `drop` decides before `slow` delays, and `wrong-id`,
//! `oversized` and `malformed` bend the same answer in that order.
//!
//! ONU groups are not in the set, because one OLT may have several at once (a splitter
//! cut on one port and a power cut on another) and because they change what the OLT
//! reports, not how it answers: they are cuts in the OLT's model (`model/cut.rs`), a list
//! of at most 64 per OLT in the order added, beside the ONUs they hold down. A group of
//! the same port and ONU numbers as one the OLT has replaces it (so its cause can
//! change); where groups overlap, the one added last gives the cause. PORT is written as
//! the API shows `ponPort` for the OLT's vendor, and a group is checked against the OLT
//! when applied: an unknown port, numbers a port of that vendor cannot have, or a range
//! holding no ONU at all is an error naming the rule and the OLT; numbers inside the
//! range without an ONU are skipped (the range is clipped to the ONUs the port has). While
//! a group holds, its ONUs are OFFLINE with last down cause LOS or DYING_GASP as the
//! vendor encodes it (BDCOM's status cannot say dying gasp: it reports offline, cause
//! unknown), and neither the dynamics nor a CLI reboot brings them back. Clearing an OLT
//! heals its groups at once: every ONU they held is ONLINE again when `clear` answers,
//! keeping its last down cause.

mod group;
mod spec;

use rand::Rng;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

pub use group::{GroupCause, OnuGroup};
pub use spec::{FaultRule, FaultSpec, FaultSpecError, OltFaults, RuleFault, Targets};

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
                 malformed, wrong-id, oversized, gone, ssh-mute, ssh-drop, \
                 los:PORT:FIRST-LAST, dying-gasp:PORT:FIRST-LAST)"
            )),
        }
    }
}

/// The faults of one OLT itself: at most one of each kind. Empty means the OLT answers
/// as it should (its ONU groups are kept apart, in its model).
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
