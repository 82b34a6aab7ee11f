//! Provisioning over the OLT's CLI: the jobs the OLT actor's CLI queue runs for
//! provisioning ([`ProvisionJob`]), one at a time with the other actions, on the session it
//! lends ([`run`]), and what they found ([`ProvisionDone`]). Listing the profiles runs the
//! vendor's listing commands of [`crate::profile::provisioning`] and parses their tables.
//! Authorising runs the vendor's registration script, then the service-VLAN and
//! description scripts of [`crate::profile::commands`]; when a later script is refused the
//! registration is undone, and the refusal says what state the device was left in.
//! Removing runs the removal script (service ports first where the vendor needs it).

use crate::profile::commands::{port_values, render, CliProfile};
use crate::profile::provisioning::{ListingFormat, ProfileKind, Provisioning};
use crate::ssh::{CliError, CliSession};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::time::Duration;

/// A provisioning job for the CLI queue.
#[derive(Debug, Clone, PartialEq)]
pub enum ProvisionJob {
    /// Read the profiles an authorisation can name.
    ListProfiles,
    Authorize(Box<AuthorizeJob>),
    /// Remove ONU `index` from `pon_port`.
    Deauthorize {
        pon_port: String,
        index: u32,
    },
}

/// An authorisation, every value already validated (nothing in it can be injected).
#[derive(Debug, Clone, PartialEq)]
pub struct AuthorizeJob {
    pub pon_port: String,
    pub index: u32,
    /// As the device's CLI writes it ([`Provisioning::cli_serial`]).
    pub serial: String,
    pub line_profile: Option<String>,
    pub service_profile: Option<String>,
    pub onu_type: Option<String>,
    pub vlan: Option<u16>,
    pub description: Option<String>,
}

impl ProvisionJob {
    pub fn describe(&self) -> String {
        match self {
            ProvisionJob::ListProfiles => "a listing of the ONU profiles".to_string(),
            ProvisionJob::Authorize(job) => {
                format!(
                    "an authorisation on port {} index {}",
                    job.pon_port, job.index
                )
            }
            ProvisionJob::Deauthorize { pon_port, index } => {
                format!("a removal of ONU {index} on port {pon_port}")
            }
        }
    }
}

/// What a provisioning job found.
#[derive(Debug, Clone, PartialEq)]
pub enum ProvisionDone {
    Profiles(Vec<OnuProfile>),
    /// The ONU is registered (with its VLAN and description, when asked).
    Authorized,
    Deauthorized,
}

/// A profile an authorisation can name (docs/provisioning.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OnuProfile {
    /// `LINE`, `SERVICE` or `ONU_TYPE`.
    pub kind: String,
    /// What the authorisation names: `"10"` for a Huawei profile, `"ZTE-F660"` for a type.
    pub id: String,
    pub name: String,
}

/// Runs `job` on `session` with `table`'s and `cli`'s commands, each line within `step`.
pub async fn run(
    session: &mut CliSession,
    table: &Provisioning,
    cli: &CliProfile,
    job: &ProvisionJob,
    step: Duration,
) -> Result<ProvisionDone, CliError> {
    match job {
        ProvisionJob::ListProfiles => {
            let mut profiles = Vec::new();
            for listing in table.profiles.unwrap_or(&[]) {
                let output = session.run(listing.command, step).await?;
                profiles.extend(parse_profiles(listing.kind, listing.format, &output));
            }
            Ok(ProvisionDone::Profiles(profiles))
        }
        ProvisionJob::Authorize(job) => authorize(session, table, cli, job, step).await,
        ProvisionJob::Deauthorize { pon_port, index } => {
            let mut values: HashMap<&str, String> = port_values(pon_port).into_iter().collect();
            values.insert("onu", index.to_string());
            lines(session, table.deregister, &values, step).await?;
            Ok(ProvisionDone::Deauthorized)
        }
    }
}

/// Runs the lines of `script` with `values`; a refusal takes the session back to
/// privileged mode before it is returned.
async fn lines(
    session: &mut CliSession,
    script: &[&str],
    values: &HashMap<&str, String>,
    step: Duration,
) -> Result<(), CliError> {
    for template in script {
        match session.run(&render(template, values), step).await {
            Ok(_) => {}
            Err(error @ CliError::Rejected { .. }) => {
                session.leave(step).await?;
                return Err(error);
            }
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

async fn authorize(
    session: &mut CliSession,
    table: &Provisioning,
    cli: &CliProfile,
    job: &AuthorizeJob,
    step: Duration,
) -> Result<ProvisionDone, CliError> {
    let mut values: HashMap<&str, String> = port_values(&job.pon_port).into_iter().collect();
    values.insert("onu", job.index.to_string());
    values.insert("serial", job.serial.clone());
    for (name, value) in [
        ("line", &job.line_profile),
        ("service", &job.service_profile),
        ("onu_type", &job.onu_type),
    ] {
        if let Some(value) = value {
            values.insert(name, value.clone());
        }
    }
    lines(session, table.register, &values, step).await?;
    let mut later: Vec<&[&str]> = Vec::new();
    if let Some(vlan) = job.vlan {
        values.insert("vlan", vlan.to_string());
        later.push(cli.set_vlan);
    }
    if let Some(description) = &job.description {
        values.insert("description", description.clone());
        later.push(cli.set_description);
    }
    for script in later {
        if let Err(error) = lines(session, script, &values, step).await {
            return Err(undo(session, table, &values, job, error, step).await);
        }
    }
    Ok(ProvisionDone::Authorized)
}

/// A later script failed after the ONU was registered: removes it again and says so.
async fn undo(
    session: &mut CliSession,
    table: &Provisioning,
    values: &HashMap<&str, String>,
    job: &AuthorizeJob,
    error: CliError,
    step: Duration,
) -> CliError {
    let CliError::Rejected { command, message } = error else {
        return error; // the session is gone: nothing more can be sent
    };
    let state = match lines(session, table.deregister, values, step).await {
        Ok(()) => {
            "the ONU was registered and has been removed again; the device is as before".to_string()
        }
        Err(undo) => format!(
            "removing the ONU again failed too ({undo}); it is left registered as index {} \
             on port {} without its service VLAN or description",
            job.index, job.pon_port
        ),
    };
    CliError::Rejected {
        command,
        message: format!("{message} ({state})"),
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

    /// Huawei's own listings, from ntc-templates' captures (tests/fixtures/cli/huawei).
    #[test]
    fn huaweis_captured_profile_listings_parse() {
        let line =
            include_str!("../../../tests/fixtures/cli/huawei/display-ont-lineprofile-gpon-all.txt");
        let got = parse_profiles(ProfileKind::Line, ListingFormat::IdNameTable, line);
        let pairs: Vec<(&str, &str)> = got.iter().map(|p| (&*p.id, &*p.name)).collect();
        assert_eq!(pairs, [("0", "line-profile_default_0"), ("429", "example")]);
        let service =
            include_str!("../../../tests/fixtures/cli/huawei/display-ont-srvprofile-gpon-all.txt");
        let got = parse_profiles(ProfileKind::Service, ListingFormat::IdNameTable, service);
        let pairs: Vec<(&str, &str)> = got.iter().map(|p| (&*p.id, &*p.name)).collect();
        assert_eq!(
            pairs,
            [("0", "srv-profile_default_0"), ("1", "20221019172007514")]
        );
    }

    proptest::proptest! {
        /// Whatever a device prints, the listings' parsers never panic.
        #[test]
        fn garbage_never_panics(text in ".{0,400}") {
            for format in [ListingFormat::IdNameTable, ListingFormat::OnuTypeBlocks] {
                let _ = parse_profiles(ProfileKind::Line, format, &text);
            }
        }
    }
}
