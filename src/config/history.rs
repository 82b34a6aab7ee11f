//! `[history]`: how long each tier of the traffic and optics history is kept — the raw
//! points, their hourly rollups and their daily rollups (docs/operations.md, "History") —
//! and the keys it replaces, `traffic.history_retention` and
//! `optics.history_retention`: still read, with a warning that says how they map. Where
//! the history is kept (`backend`, `url`, …) is [`super::history_backend`]'s.

use super::history_backend::{Backend, ByteSize, DEFAULT_BACKLOG_MAX};
use anyhow::bail;
use serde::{Deserialize, Serialize};
use std::time::Duration;

const DAY: u64 = 86_400;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct History {
    /// Every point as stored (one a read).
    #[serde(with = "humantime_serde")]
    pub raw_retention: Duration,
    /// Hourly min/avg/max of each value.
    #[serde(with = "humantime_serde")]
    pub hourly_retention: Duration,
    /// Daily min/avg/max of each value.
    #[serde(with = "humantime_serde")]
    pub daily_retention: Duration,
    /// `sled` (the local store) or `victoriametrics`.
    pub backend: Backend,
    /// VictoriaMetrics' base URL (`http://127.0.0.1:8428`), with that backend only.
    pub url: Option<String>,
    /// The environment variables holding its basic-auth user and password.
    pub username_env: Option<String>,
    pub password_env: Option<String>,
    /// Unsent batches kept on disk at most (the oldest go past it).
    pub backlog_max: ByteSize,
}

impl Default for History {
    fn default() -> Self {
        History {
            raw_retention: Duration::from_secs(7 * DAY),
            hourly_retention: Duration::from_secs(90 * DAY),
            daily_retention: Duration::from_secs(5 * 365 * DAY),
            backend: Backend::Sled,
            url: None,
            username_env: None,
            password_env: None,
            backlog_max: DEFAULT_BACKLOG_MAX,
        }
    }
}

impl History {
    /// The tiers of a history whose raw points a deprecated key keeps `raw`: rollups at
    /// least as long, so nothing the old key kept is kept less.
    pub fn with_raw(self, raw: Duration) -> History {
        let hourly = self.hourly_retention.max(raw);
        History {
            raw_retention: raw,
            hourly_retention: hourly,
            daily_retention: self.daily_retention.max(hourly),
            ..self
        }
    }

    /// Each tier above zero and no shorter than the finer one: a coarser tier kept less
    /// would never be read.
    pub fn validate(&self, keys: &str) -> anyhow::Result<()> {
        if self.raw_retention.is_zero() {
            bail!("key `{keys}raw_retention`: must be above zero");
        }
        if self.hourly_retention < self.raw_retention {
            bail!("key `{keys}hourly_retention`: must not be shorter than raw_retention");
        }
        if self.daily_retention < self.hourly_retention {
            bail!("key `{keys}daily_retention`: must not be shorter than hourly_retention");
        }
        Ok(())
    }
}

impl super::Config {
    /// How long each tier of the traffic history is kept: `[history]`, or what the
    /// deprecated `traffic.history_retention` maps to when only it is given.
    pub fn traffic_history(&self) -> History {
        let old = self.traffic.history_retention;
        old.map_or_else(
            || self.history.clone(),
            |raw| self.history.clone().with_raw(raw),
        )
    }

    /// [`super::Config::traffic_history`] for the optics history
    /// (`optics.history_retention`).
    pub fn optics_history(&self) -> History {
        let old = self.optics.history_retention;
        old.map_or_else(
            || self.history.clone(),
            |raw| self.history.clone().with_raw(raw),
        )
    }

    /// Notes each deprecated retention key given, with how it maps; with `[history]`
    /// given (`history_given`) they are dropped and `[history]` decides alone.
    pub(super) fn read_deprecated_retentions(&mut self, history_given: bool) {
        for (kind, old) in [
            ("traffic", &mut self.traffic.history_retention),
            ("optics", &mut self.optics.history_retention),
        ] {
            let warning = deprecated(kind, *old, &self.history, history_given);
            self.deprecations.extend(warning);
            if history_given {
                *old = None;
            }
        }
    }

    /// `[history]`'s tiers, and the deprecated keys above zero.
    pub(super) fn validate_history(&self) -> anyhow::Result<()> {
        self.history.validate("history.")?;
        self.history.validate_backend()?;
        for (kind, old) in [
            ("traffic", self.traffic.history_retention),
            ("optics", self.optics.history_retention),
        ] {
            if old.is_some_and(|old| old.is_zero()) {
                bail!("key `{kind}.history_retention`: must be above zero");
            }
        }
        Ok(())
    }
}

/// `old` (a deprecated `<kind>.history_retention`, when given) read into `history`'s
/// tiers for that kind: the warning to log, none when the key is not given.
fn deprecated(
    kind: &str,
    old: Option<Duration>,
    history: &History,
    history_given: bool,
) -> Option<String> {
    let old = old?;
    let key = format!("key `{kind}.history_retention` is deprecated");
    if history_given {
        return Some(format!(
            "{key} and ignored: [history] is given, and sets how long every tier of the traffic and optics history is kept (docs/operations.md); remove it"
        ));
    }
    let tiers = history.clone().with_raw(old);
    Some(format!(
        "{key}: history is now kept in tiers (docs/operations.md, \"History\"); it is read as {kind} raw_retention = \"{}\", with hourly rollups kept {} and daily rollups {}; write these in a [history] section (raw_retention, hourly_retention, daily_retention) and remove it",
        days(tiers.raw_retention),
        days(tiers.hourly_retention),
        days(tiers.daily_retention),
    ))
}

/// A retention as the config writes it.
fn days(retention: Duration) -> String {
    let seconds = retention.as_secs();
    if seconds % DAY == 0 {
        format!("{}d", seconds / DAY)
    } else {
        humantime::format_duration(retention).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_old_retention_keeps_raw_points_as_long_and_rollups_no_shorter() {
        let defaults = History::default();
        let year = Duration::from_secs(365 * DAY);
        assert_eq!(
            defaults.clone().with_raw(year),
            History {
                raw_retention: year,
                hourly_retention: year,
                daily_retention: defaults.daily_retention,
                ..History::default()
            }
        );
        let month = Duration::from_secs(30 * DAY);
        assert_eq!(
            defaults.clone().with_raw(month),
            History {
                raw_retention: month,
                ..defaults.clone()
            }
        );
        let text = deprecated("traffic", Some(year), &defaults, false).expect("a warning");
        assert!(
            text.contains("traffic raw_retention = \"365d\", with hourly rollups kept 365d and daily rollups 1825d"),
            "{text}"
        );
        assert_eq!(deprecated("optics", None, &defaults, false), None);
        let ignored = deprecated("optics", Some(month), &defaults, true).expect("a warning");
        assert!(ignored.contains("ignored: [history] is given"), "{ignored}");
    }

    /// A config file of before `[history]` loads as it did, saying how it is read.
    #[test]
    fn the_old_keys_load_with_a_warning_and_history_replaces_them() {
        let old =
            "[traffic]\nhistory_retention = \"365d\"\n[optics]\nhistory_retention = \"30d\"\n";
        let config = crate::config::tests::load_text(old).expect("still read");
        assert_eq!(config.deprecations.len(), 2, "{:?}", config.deprecations);
        let year = Duration::from_secs(365 * DAY);
        assert_eq!(config.traffic_history(), History::default().with_raw(year));
        assert_eq!(
            config.optics_history().raw_retention,
            Duration::from_secs(30 * DAY)
        );
        let both = format!("{old}[history]\nraw_retention = \"2d\"\ndaily_retention = \"5y\"\n");
        let config = crate::config::tests::load_text(&both).expect("read");
        assert!(config.deprecations.iter().all(|d| d.contains("ignored")));
        let history = config.traffic_history();
        assert_eq!(history, config.optics_history());
        assert_eq!(history.raw_retention, Duration::from_secs(2 * DAY));
        // humantime's year is 365.25 days.
        assert_eq!(
            history.daily_retention,
            Duration::from_secs(5 * 365 * DAY + 5 * DAY / 4)
        );
        let config = crate::config::tests::load_text("").expect("defaults");
        assert!(config.deprecations.is_empty());
        assert_eq!(config.traffic_history(), History::default());
        let error = crate::config::tests::load_text("[history]\nraw_retention = \"0s\"\n")
            .expect_err("refused");
        assert!(
            format!("{error:#}").contains("history.raw_retention"),
            "{error:#}"
        );
    }

    #[test]
    fn a_coarser_tier_may_not_be_kept_less() {
        let history = History {
            hourly_retention: Duration::from_secs(DAY),
            ..History::default()
        };
        let error = history.validate("history.").expect_err("refused");
        assert_eq!(
            error.to_string(),
            "key `history.hourly_retention`: must not be shorter than raw_retention"
        );
        History::default()
            .validate("history.")
            .expect("the defaults");
    }
}
