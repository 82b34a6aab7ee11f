//! Timestamps as the API writes them: ISO 8601 local date-time without offset
//! (`2026-11-21T19:15:03`), in the configured `timezone`. Everything inside the service is
//! UTC; only this module turns it into the operator's wall-clock time.

use chrono::{DateTime, Utc};

/// The zone API timestamps are written in.
#[derive(Debug, Clone, Copy, PartialEq)]
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

    /// `2026-11-21T19:15:03`. Written digit by digit: a page of 100 OLTs writes 100 of
    /// these and `GET /olts/{id}` a dozen, and chrono's `format` (which parsed its pattern
    /// each time) and then `format!` with padded fields were a tenth and then 5 % of those
    /// requests' CPU.
    pub fn format(&self, at: DateTime<Utc>) -> String {
        write_local(at.naive_utc() + self.offset_at(at))
    }

    /// The zone's offset from UTC at `at`. Each thread keeps the offsets of the last hours
    /// it was asked about (`Local` read the `TZ` variable on every call, 2 % of
    /// `GET /olts/{id}`, whose dozen timestamps fall in several hours). An hour is kept only
    /// when its first and last second have the same offset: an hour with a clock change
    /// in it is looked up each time (no zone changes its clocks twice within an hour).
    fn offset_at(&self, at: DateTime<Utc>) -> chrono::TimeDelta {
        type Kept = Option<(Clock, i64, i32)>;
        thread_local! {
            static HOURS: [std::cell::Cell<Kept>; 16] =
                const { [const { std::cell::Cell::new(None) }; 16] };
        }
        let hour = at.timestamp().div_euclid(3600);
        let slot = hour.rem_euclid(16) as usize;
        if let Some((clock, held, seconds)) = HOURS.with(|hours| hours[slot].get()) {
            if clock == *self && held == hour {
                return chrono::TimeDelta::seconds(i64::from(seconds));
            }
        }
        let seconds = self.offset_seconds(at);
        let first = DateTime::from_timestamp(hour * 3600, 0);
        let last = DateTime::from_timestamp(hour * 3600 + 3599, 0);
        if let (Some(first), Some(last)) = (first, last) {
            let whole =
                self.offset_seconds(first) == seconds && self.offset_seconds(last) == seconds;
            if whole {
                HOURS.with(|hours| hours[slot].set(Some((*self, hour, seconds))));
            }
        }
        chrono::TimeDelta::seconds(i64::from(seconds))
    }

    /// The zone's offset at `at`, looked up.
    fn offset_seconds(&self, at: DateTime<Utc>) -> i32 {
        use chrono::Offset;
        match self {
            Clock::Local => at.with_timezone(&chrono::Local).offset().fix(),
            Clock::Zone(zone) => at.with_timezone(zone).offset().fix(),
        }
        .local_minus_utc()
    }
}

/// `local` as `YYYY-MM-DDTHH:MM:SS`; a year outside 0–9999 keeps all its digits (and
/// its sign), as `{:04}` writes it.
fn write_local(local: chrono::NaiveDateTime) -> String {
    use chrono::{Datelike, Timelike};
    let year = local.year();
    if !(0..=9999).contains(&year) {
        return local.format("%Y-%m-%dT%H:%M:%S").to_string();
    }
    let mut text = *b"0000-00-00T00:00:00";
    let mut put = |at: usize, value: u32, digits: usize| {
        let mut value = value;
        for place in (at..at + digits).rev() {
            text[place] = b'0' + (value % 10) as u8;
            value /= 10;
        }
    };
    put(0, year as u32, 4);
    put(5, local.month(), 2);
    put(8, local.day(), 2);
    put(11, local.hour(), 2);
    put(14, local.minute(), 2);
    put(17, local.second(), 2);
    String::from_utf8(text.to_vec()).expect("ASCII digits")
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

    proptest::proptest! {
        /// The digits written by hand are chrono's own, in any year it can hold.
        #[test]
        fn writes_what_chrono_writes(seconds in -100_000_000_000i64..300_000_000_000i64) {
            let at = DateTime::from_timestamp(seconds, 0).expect("in chrono's range");
            let local = at.naive_utc();
            proptest::prop_assert_eq!(
                write_local(local),
                local.format("%Y-%m-%dT%H:%M:%S").to_string()
            );
        }
    }

    proptest::proptest! {
        /// The offset a thread keeps for an hour is the zone's own, on both sides of clock
        /// changes and in zones whose offsets are not whole hours.
        #[test]
        fn formats_as_the_zone_reads(
            seconds in 0i64..2_000_000_000i64,
            zone in proptest::sample::select(vec!["Europe/Moscow", "Asia/Kathmandu",
                "Australia/Lord_Howe", "America/St_Johns", "Africa/Monrovia"]),
        ) {
            let clock = Clock::from_config(zone).expect("zone");
            let Clock::Zone(tz) = clock else { unreachable!() };
            let at = DateTime::from_timestamp(seconds, 0).expect("in range");
            let before = at - chrono::Duration::seconds(59);
            for at in [before, at] {
                proptest::prop_assert_eq!(
                    clock.format(at),
                    at.with_timezone(&tz).format("%Y-%m-%dT%H:%M:%S").to_string()
                );
            }
        }
    }

    #[test]
    fn the_kept_hours_follow_clock_changes() {
        // Moscow: UTC+3 to UTC+4 at 2011-03-26T23:00Z; Monrovia: -0:44:30 to UTC at
        // 1972-01-07T00:44:30Z; St John's: -2:30 to -3:30 at 2006-10-29T02:31Z (00:01 local).
        for (zone, change) in [
            ("Europe/Moscow", 1_301_180_400i64),
            ("Africa/Monrovia", 63_593_070),
            ("America/St_Johns", 1_162_089_060),
        ] {
            let clock = Clock::from_config(zone).expect("zone");
            let Clock::Zone(tz) = clock else {
                unreachable!()
            };
            // Each second of the hours around the change, in an order that fills the kept
            // hours first from one side, then reads the other.
            let seconds: Vec<i64> = (change - 7200..change + 7200).step_by(7).collect();
            for &second in seconds.iter().chain(seconds.iter().rev()) {
                let at = DateTime::from_timestamp(second, 0).expect("in range");
                assert_eq!(
                    clock.format(at),
                    at.with_timezone(&tz)
                        .format("%Y-%m-%dT%H:%M:%S")
                        .to_string(),
                    "{zone} at {at}"
                );
            }
        }
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
