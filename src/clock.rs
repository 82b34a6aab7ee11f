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

    /// Reads a local date-time in this zone: `2026-11-21T19:15:03`, `2026-11-21T19:15`, or
    /// `2026-11-21` for midnight — exactly these shapes, with two-digit fields and a real
    /// calendar date (what the OpenAPI document's pattern admits). A time a clock change
    /// skips is read as the first instant after the gap; a repeated one is its first.
    pub fn parse(&self, text: &str) -> Option<DateTime<Utc>> {
        read_local(text).map(|local| self.instant_at(local))
    }

    /// The instant `local` reads in this zone: a time a clock change skips is the first
    /// instant after the gap, a repeated one its first.
    pub fn instant_at(&self, local: chrono::NaiveDateTime) -> DateTime<Utc> {
        // Clock changes skip at most a few hours; step over the gap a minute at a time.
        (0..=240)
            .map(|minutes| local + chrono::Duration::minutes(minutes))
            .find_map(|local| self.instant(local))
            .unwrap_or_else(|| local.and_utc())
    }

    /// The earliest instant that reads `local` in this zone, if any does.
    fn instant(&self, local: chrono::NaiveDateTime) -> Option<DateTime<Utc>> {
        use chrono::TimeZone;
        match self {
            Clock::Local => chrono::Local
                .from_local_datetime(&local)
                .earliest()
                .map(|t| t.with_timezone(&Utc)),
            Clock::Zone(zone) => zone
                .from_local_datetime(&local)
                .earliest()
                .map(|t| t.with_timezone(&Utc)),
        }
    }

    /// `2026-11-21T19:15:03`. Written field by field: a page of 100 OLTs writes 100 of
    /// these, and chrono's `format` parsed its pattern each time (a tenth of the CPU of
    /// `GET /olts?size=100`).
    pub fn format(&self, at: DateTime<Utc>) -> String {
        use chrono::{Datelike, Timelike};
        let local = match self {
            Clock::Local => at.with_timezone(&chrono::Local).naive_local(),
            Clock::Zone(zone) => at.with_timezone(zone).naive_local(),
        };
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
            local.year(),
            local.month(),
            local.day(),
            local.hour(),
            local.minute(),
            local.second()
        )
    }
}

/// A local date-time as a client writes it, in no zone yet: `2026-11-21T19:15:03`,
/// `2026-11-21T19:15` or `2026-11-21` (midnight), exactly these shapes.
pub fn read_local(text: &str) -> Option<chrono::NaiveDateTime> {
    use chrono::{NaiveDate, NaiveDateTime};
    if !has_date_time_shape(text) {
        return None;
    }
    NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S")
        .or_else(|_| NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M"))
        .ok()
        .or_else(|| {
            NaiveDate::parse_from_str(text, "%Y-%m-%d")
                .ok()?
                .and_hms_opt(0, 0, 0)
        })
}

/// `YYYY-MM-DD`, optionally `THH:MM` and then optionally `:SS` (seconds up to 59), all
/// fields two digits (the year four): chrono alone would also take `2026-1-1` or a leap
/// second.
fn has_date_time_shape(text: &str) -> bool {
    let b = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| b[range].iter().all(u8::is_ascii_digit);
    let date = b.len() >= 10 && digits(0..4) && b[4] == b'-' && digits(5..7) && b[7] == b'-';
    let date = date && digits(8..10);
    let minutes = b.len() >= 16 && b[10] == b'T' && digits(11..13) && b[13] == b':';
    let minutes = minutes && digits(14..16);
    let seconds = b.len() == 19 && b[16] == b':' && (b'0'..=b'5').contains(&b[17]);
    let seconds = seconds && b[18].is_ascii_digit();
    date && (b.len() == 10 || (minutes && (b.len() == 16 || seconds)))
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
        // Single-digit fields are padded; the seconds' fraction is dropped.
        let early = Utc
            .with_ymd_and_hms(2026, 1, 2, 0, 4, 5)
            .single()
            .expect("time")
            + chrono::Duration::milliseconds(999);
        assert_eq!(clock.format(early), "2026-01-02T03:04:05");
        assert_eq!(clock.parse("2026-11-21T19:15:03"), Some(at));
        assert_eq!(
            clock.parse("2026-11-21"),
            Utc.with_ymd_and_hms(2026, 11, 20, 21, 0, 0).single()
        );
        assert_eq!(clock.parse("yesterday"), None);
        assert_eq!(clock.parse("2026-11-21T19:15:03+03:00"), None);
    }

    #[test]
    fn a_time_a_clock_change_skips_reads_as_the_instant_after_the_gap() {
        // Moscow went from 02:00 to 03:00 (UTC+3 to UTC+4) on 1990-03-25.
        let clock = Clock::from_config("Europe/Moscow").expect("zone");
        let after = Utc
            .with_ymd_and_hms(1990, 3, 24, 23, 0, 0)
            .single()
            .expect("time");
        assert_eq!(clock.parse("1990-03-25T03:00:00"), Some(after));
        assert_eq!(
            clock.parse("1990-03-25T02:30:00"),
            Some(after),
            "02:30 did not exist"
        );
    }

    #[test]
    fn only_the_documented_shapes_are_read() {
        let clock = Clock::from_config("UTC").expect("zone");
        for good in [
            "2026-11-21T19:15:03",
            "2026-11-21T19:15",
            "2026-11-21",
            "0000-02-29",
        ] {
            assert!(clock.parse(good).is_some(), "{good}");
        }
        for bad in [
            "2026-1-1",
            "2026-11-21T9:15:03",
            "2026-11-21T19:15:60",
            "2026-02-30",
            "2023-02-29T00:00:00",
            "+2026-11-21",
            " 2026-11-21",
            "2026-11-21T",
            "2026-11-21T19:15:03.5",
        ] {
            assert_eq!(clock.parse(bad), None, "{bad}");
        }
    }
}
