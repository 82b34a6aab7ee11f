//! Provisioning over the OLT's CLI: the jobs the OLT actor's CLI queue runs for
//! provisioning ([`ProvisionJob`]), one at a time with the other actions, on the session it
//! lends ([`run`]), and what they found ([`ProvisionDone`]). Listing the profiles runs the
//! vendor's listing commands of [`crate::profile::provisioning`] and parses their tables.

use crate::profile::provisioning::{ListingFormat, ProfileKind, Provisioning};
use crate::ssh::{CliError, CliSession};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// A provisioning job for the CLI queue.
#[derive(Debug, Clone, PartialEq)]
pub enum ProvisionJob {
    /// Read the profiles an authorisation can name.
    ListProfiles,
}

impl ProvisionJob {
    pub fn describe(&self) -> String {
        match self {
            ProvisionJob::ListProfiles => "a listing of the ONU profiles".to_string(),
        }
    }
}

/// What a provisioning job found.
#[derive(Debug, Clone, PartialEq)]
pub enum ProvisionDone {
    Profiles(Vec<OnuProfile>),
}

/// A profile an authorisation can name (SPEC §10).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OnuProfile {
    /// `LINE`, `SERVICE` or `ONU_TYPE`.
    pub kind: String,
    /// What the authorisation names: `"10"` for a Huawei profile, `"ZTE-F660"` for a type.
    pub id: String,
    pub name: String,
}

/// Runs `job` on `session` with `table`'s commands, each line within `step`.
pub async fn run(
    session: &mut CliSession,
    table: &Provisioning,
    job: &ProvisionJob,
    step: Duration,
) -> Result<ProvisionDone, CliError> {
    match job {
        ProvisionJob::ListProfiles => {
            let mut profiles = Vec::new();
            for listing in table.profiles {
                let output = session.run(listing.command, step).await?;
                profiles.extend(parse_profiles(listing.kind, listing.format, &output));
            }
            Ok(ProvisionDone::Profiles(profiles))
        }
    }
}

/// The profiles a listing command printed.
pub fn parse_profiles(kind: ProfileKind, format: ListingFormat, output: &str) -> Vec<OnuProfile> {
    let profile = |id: &str, name: &str| OnuProfile {
        kind: kind.as_str().to_string(),
        id: id.to_string(),
        name: name.to_string(),
    };
    match format {
        ListingFormat::IdNameTable => output
            .lines()
            .filter_map(|line| {
                let mut words = line.split_whitespace();
                let id = words.next()?;
                let name = words.next()?;
                id.chars()
                    .all(|c| c.is_ascii_digit())
                    .then(|| profile(id, name))
            })
            .collect(),
        ListingFormat::OnuTypeBlocks => output
            .lines()
            .filter_map(|line| line.trim().strip_prefix("ONU type name:"))
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(|name| profile(name, name))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huawei_tables_and_zte_blocks_parse() {
        let huawei = "  ----------\n  Profile-ID  Profile-name       Binding times\n  ----------\n  10          line-internet      3\n  20          line-triple-play   0\n  ----------\n  Total: 2";
        let got = parse_profiles(ProfileKind::Line, ListingFormat::IdNameTable, huawei);
        assert_eq!(
            got,
            vec![
                OnuProfile {
                    kind: "LINE".into(),
                    id: "10".into(),
                    name: "line-internet".into()
                },
                OnuProfile {
                    kind: "LINE".into(),
                    id: "20".into(),
                    name: "line-triple-play".into()
                },
            ]
        );
        let zte = "ONU type name:      ZTE-F660\nPON type:           gpon\n\nONU type name:      ZTE-F601\n";
        let got = parse_profiles(ProfileKind::OnuType, ListingFormat::OnuTypeBlocks, zte);
        let ids: Vec<&str> = got.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["ZTE-F660", "ZTE-F601"]);
        assert_eq!(got[0].kind, "ONU_TYPE");
    }
}
