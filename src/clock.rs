//! Timestamps as the API writes them: ISO 8601 local date-time without offset
//! (`2026-11-21T19:15:03`), in the configured `timezone`. Everything inside the service is
//! UTC; only this module turns it into the operator's wall-clock time.

use chrono::{DateTime, Utc};

/// The zone API timestamps are written in.
#[derive(Debug, Clone, Copy)]
pub enum Clock {
    Local,
    Zone(chrono_tz::Tz),
}

impl Clock {
    pub fn from_config(timezone: &str) -> anyhow::Result<Clock> {
        if timezone == "local" {
            return Ok(Clock::Local);
        }
        timezone
            .parse::<chrono_tz::Tz>()
            .map(Clock::Zone)
            .map_err(|_| {
                anyhow::anyhow!("`{timezone}` is neither `local` nor an IANA time zone name")
            })
    }

    /// Reads a local date-time (`2026-11-21T19:15:03`, or `2026-11-21` for midnight) in
    /// this zone. An hour that a DST change skips is `None`; a repeated one is its first.
    pub fn parse(&self, text: &str) -> Option<DateTime<Utc>> {
        use chrono::{NaiveDate, NaiveDateTime, TimeZone};
        let naive = NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S")
            .or_else(|_| NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M"))
            .ok()
            .or_else(|| {
                NaiveDate::parse_from_str(text, "%Y-%m-%d")
                    .ok()?
                    .and_hms_opt(0, 0, 0)
            })?;
        match self {
            Clock::Local => chrono::Local
                .from_local_datetime(&naive)
                .earliest()
                .map(|t| t.with_timezone(&Utc)),
            Clock::Zone(zone) => zone
                .from_local_datetime(&naive)
                .earliest()
                .map(|t| t.with_timezone(&Utc)),
        }
    }

    /// `2026-11-21T19:15:03`.
    pub fn format(&self, at: DateTime<Utc>) -> String {
        const FORMAT: &str = "%Y-%m-%dT%H:%M:%S";
        match self {
            Clock::Local => at.with_timezone(&chrono::Local).format(FORMAT).to_string(),
            Clock::Zone(zone) => at.with_timezone(zone).format(FORMAT).to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn writes_local_date_time_without_offset() {
        let clock = Clock::from_config("Europe/Moscow").expect("zone");
        let at = Utc
            .with_ymd_and_hms(2026, 11, 21, 16, 15, 3)
            .single()
            .expect("time");
        assert_eq!(clock.format(at), "2026-11-21T19:15:03");
        assert_eq!(clock.parse("2026-11-21T19:15:03"), Some(at));
        assert_eq!(
            clock.parse("2026-11-21"),
            Utc.with_ymd_and_hms(2026, 11, 20, 21, 0, 0).single()
        );
        assert_eq!(clock.parse("yesterday"), None);
        assert_eq!(clock.parse("2026-11-21T19:15:03+03:00"), None);
    }
}
