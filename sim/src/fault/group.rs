//! The faults of a group of ONUs rather than of the OLT: `los:PORT:FIRST-LAST` (a
//! splitter's fibre is cut, so the ONUs numbered FIRST..=LAST on PON port PORT lose
//! light) and `dying-gasp:PORT:FIRST-LAST` (their power is cut) — an [`OnuGroup`]. PORT is
//! written as the API shows `ponPort` for the OLT's vendor (`0/1/0` Huawei, `1/1/1` ZTE,
//! `0/1` BDCOM); a single number is a range of one. This file parses and prints the text
//! form, checking only its shape; the fault board (`fault_board.rs`) checks a group
//! against each OLT it names and makes it a cut in the OLT's model (`model/cut.rs`),
//! which holds the ONUs down.

use ponkeeper_actors::domain::DownCause;
use std::fmt;
use std::str::FromStr;

/// Why a group of ONUs is down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GroupCause {
    /// Loss of signal: the fibre to their splitter is cut.
    Los,
    /// Dying gasp: their power is cut.
    DyingGasp,
}

impl GroupCause {
    /// The kind's name in a SPEC.
    pub fn kind(self) -> &'static str {
        match self {
            GroupCause::Los => "los",
            GroupCause::DyingGasp => "dying-gasp",
        }
    }

    /// The cause of `kind` (`los`, `dying-gasp`), if it names one.
    pub fn of_kind(kind: &str) -> Option<GroupCause> {
        match kind {
            "los" => Some(GroupCause::Los),
            "dying-gasp" => Some(GroupCause::DyingGasp),
            _ => None,
        }
    }

    /// The last down cause its ONUs report.
    pub fn down_cause(self) -> DownCause {
        match self {
            GroupCause::Los => DownCause::Los,
            GroupCause::DyingGasp => DownCause::DyingGasp,
        }
    }

    /// The cause whose ONUs report `cause`, if a group can have it.
    pub fn of_down_cause(cause: DownCause) -> Option<GroupCause> {
        match cause {
            DownCause::Los => Some(GroupCause::Los),
            DownCause::DyingGasp => Some(GroupCause::DyingGasp),
            _ => None,
        }
    }
}

/// The ONUs numbered `first..=last` on one PON port, down for `cause`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OnuGroup {
    pub cause: GroupCause,
    /// As the API names the port: `0/1/0`, `1/1/1`, `0/1`.
    pub port: String,
    pub first: u32,
    pub last: u32,
}

impl OnuGroup {
    /// Whether both groups name the same ONUs (whatever the cause).
    pub fn same_onus(&self, other: &OnuGroup) -> bool {
        (&self.port, self.first, self.last) == (&other.port, other.first, other.last)
    }
}

impl fmt::Display for OnuGroup {
    /// The SPEC form: `los:0/1/0:1-12`, `dying-gasp:1/1/1:5`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.cause.kind(), self.port, self.first)?;
        if self.last != self.first {
            write!(f, "-{}", self.last)?;
        }
        Ok(())
    }
}

impl FromStr for OnuGroup {
    type Err = String;

    /// `los:PORT:FIRST-LAST` or `dying-gasp:PORT:N`; the error says what is wrong,
    /// without the rule around it.
    fn from_str(text: &str) -> Result<OnuGroup, String> {
        let (kind, param) = text.split_once(':').unwrap_or((text, ""));
        let kind = kind.trim();
        let cause = GroupCause::of_kind(kind).ok_or_else(|| format!("`{kind}` is no ONU group"))?;
        let param = param.trim();
        let Some((port, numbers)) = param.rsplit_once(':') else {
            return Err(format!(
                "`{kind}` needs a PON port and ONU numbers, e.g. {kind}:0/1/0:1-12 \
                 ({kind}:0/1/0:5 for one ONU)"
            ));
        };
        let port = port.trim();
        let parts: Vec<&str> = port.split('/').collect();
        let numeric = |part: &&str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
        if !(2..=3).contains(&parts.len()) || !parts.iter().all(numeric) {
            return Err(format!(
                "`{port}` is not a PON port (write it as the API shows it: 0/1/0, 1/1/1, 0/1)"
            ));
        }
        let (first, last) = onu_numbers(numbers.trim())?;
        Ok(OnuGroup {
            cause,
            port: port.to_string(),
            first,
            last,
        })
    }
}

/// `N` or `FIRST-LAST`, not backwards.
fn onu_numbers(text: &str) -> Result<(u32, u32), String> {
    let number = |part: &str| {
        part.trim().parse::<u32>().map_err(|_| {
            format!("`{text}`: ONU numbers are whole numbers, FIRST-LAST or one number")
        })
    };
    let (first, last) = match text.split_once('-') {
        Some((first, last)) => (number(first)?, number(last)?),
        None => {
            let single = number(text)?;
            (single, single)
        }
    };
    if first > last {
        return Err(format!("`{text}`: the range of ONUs runs backwards"));
    }
    Ok((first, last))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(text: &str) -> OnuGroup {
        text.parse()
            .unwrap_or_else(|e| panic!("`{text}` should parse: {e}"))
    }

    #[test]
    fn groups_parse_and_print_back() {
        let los = group("los:0/1/0:1-12");
        assert_eq!(
            los,
            OnuGroup {
                cause: GroupCause::Los,
                port: "0/1/0".into(),
                first: 1,
                last: 12
            }
        );
        assert_eq!(los.to_string(), "los:0/1/0:1-12");
        let one = group(" dying-gasp : 0/1 : 5 ");
        assert_eq!(
            (one.cause, one.first, one.last),
            (GroupCause::DyingGasp, 5, 5)
        );
        assert_eq!(one.to_string(), "dying-gasp:0/1:5");
        assert_eq!(group("los:1/1/1:7-7").to_string(), "los:1/1/1:7");
        for text in ["los:0/1/0:1-12", "dying-gasp:1/2/16:0-127", "los:0/4:64"] {
            assert_eq!(group(text).to_string(), text);
            assert_eq!(group(&group(text).to_string()), group(text));
        }
        assert!(los.same_onus(&group("dying-gasp:0/1/0:1-12")));
        assert!(!los.same_onus(&group("los:0/1/0:1-11")));
    }

    #[test]
    fn bad_groups_say_what_is_wrong() {
        let cases = [
            (
                "los",
                "`los` needs a PON port and ONU numbers, e.g. los:0/1/0:1-12",
            ),
            ("los:", "`los` needs a PON port and ONU numbers"),
            (
                "dying-gasp:0/1/0",
                "`dying-gasp` needs a PON port and ONU numbers",
            ),
            ("los::1-3", "`` is not a PON port"),
            ("los:gpon 0/1/0:1-3", "`gpon 0/1/0` is not a PON port"),
            ("los:0/1/0/1:1", "`0/1/0/1` is not a PON port"),
            ("los:0:1", "`0` is not a PON port"),
            ("los:0//1:1", "`0//1` is not a PON port"),
            ("los:0/1/0:", "ONU numbers are whole numbers"),
            ("los:0/1/0:a-3", "`a-3`: ONU numbers are whole numbers"),
            ("los:0/1/0:-3", "ONU numbers are whole numbers"),
            ("los:0/1/0:1-99999999999", "ONU numbers are whole numbers"),
            ("los:0/1/0:12-1", "`12-1`: the range of ONUs runs backwards"),
        ];
        for (text, reason) in cases {
            match text.parse::<OnuGroup>() {
                Ok(parsed) => panic!("`{text}` should not parse, got {parsed:?}"),
                Err(e) => assert!(e.contains(reason), "{text}: {e}"),
            }
        }
    }
}
