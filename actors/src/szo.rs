//! Availability of socially significant objects (docs/api.md, "СЗО"): turns an OLT's poll coverage
//! and an ONU's recorded state changes into a timeline of up, down and unknown time over
//! a period, and the outages in it. An outage runs from the poll that first saw the ONU
//! offline (or the OLT unreachable) to the poll that saw it online again; time outside
//! the OLT's coverage — the service stopped, the OLT not polled — is unknown, never up.
//! Pure functions over stored history, so reports are exact and testable.

use crate::domain::{DownCause, OnuStateChange, OnuStatus};
use crate::store::Coverage;
use chrono::{DateTime, Utc};
use serde::Serialize;

/// Why an object was down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum OutageCause {
    Los,
    DyingGasp,
    Deactivated,
    /// The ONU was reset or rebooted.
    Reboot,
    Unknown,
    /// The OLT did not answer its polls.
    OltUnreachable,
}

impl From<Option<DownCause>> for OutageCause {
    fn from(cause: Option<DownCause>) -> Self {
        match cause {
            Some(DownCause::Los) => OutageCause::Los,
            Some(DownCause::DyingGasp) => OutageCause::DyingGasp,
            Some(DownCause::Deactivated) => OutageCause::Deactivated,
            Some(DownCause::Reboot) => OutageCause::Reboot,
            Some(DownCause::Unknown) | None => OutageCause::Unknown,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpanState {
    Up,
    Down(OutageCause),
    Unknown,
}

/// A stretch of the period in one state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
    pub state: SpanState,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outage {
    pub start: DateTime<Utc>,
    /// `None` while it goes on.
    pub end: Option<DateTime<Utc>>,
    pub cause: OutageCause,
}

/// Up, down and unknown time over a period, in whole seconds, and the outages.
#[derive(Debug, Clone, PartialEq)]
pub struct Availability {
    pub up_seconds: u64,
    pub down_seconds: u64,
    pub unknown_seconds: u64,
    pub outages: Vec<Outage>,
}

impl Availability {
    /// `up / (up + down) * 100` over the known time, to two decimals; `None` when no time
    /// is known.
    pub fn percent(&self) -> Option<f64> {
        let known = self.up_seconds + self.down_seconds;
        (known > 0).then(|| (self.up_seconds as f64 / known as f64 * 10_000.0).round() / 100.0)
    }
}

/// The period `[from, to)` cut into spans. `coverage` is the OLT's, clipped to the
/// period and in time order; `baseline` is the ONU's last change before `from`;
/// `changes` are its changes inside the period, in time order.
pub fn timeline(
    from: DateTime<Utc>,
    to: DateTime<Utc>,
    coverage: &[Coverage],
    baseline: Option<&OnuStateChange>,
    changes: &[OnuStateChange],
) -> Vec<Span> {
    let mut spans: Vec<Span> = Vec::new();
    let mut push = |start: DateTime<Utc>, end: DateTime<Utc>, state: SpanState| {
        if end <= start {
            return;
        }
        match spans.last_mut() {
            Some(last) if last.state == state && last.end == start => last.end = end,
            _ => spans.push(Span { start, end, state }),
        }
    };
    let onu_state = |change: Option<&OnuStateChange>| match change {
        None => SpanState::Unknown, // before the ONU was first seen
        Some(c) if c.status == OnuStatus::Online => SpanState::Up,
        Some(c) => SpanState::Down(c.cause.into()),
    };

    let mut cursor = from;
    let mut current = baseline;
    let mut next_change = 0;
    for stretch in coverage {
        let (start, end) = (stretch.start.max(cursor), stretch.end.min(to));
        if end <= start {
            continue;
        }
        push(cursor, start, SpanState::Unknown);
        while next_change < changes.len() && changes[next_change].at <= start {
            current = Some(&changes[next_change]);
            next_change += 1;
        }
        if !stretch.reachable {
            push(start, end, SpanState::Down(OutageCause::OltUnreachable));
        } else {
            let mut at = start;
            while next_change < changes.len() && changes[next_change].at < end {
                let change = &changes[next_change];
                push(at, change.at, onu_state(current));
                at = change.at;
                current = Some(change);
                next_change += 1;
            }
            push(at, end, onu_state(current));
        }
        cursor = end;
    }
    push(cursor, to, SpanState::Unknown);
    spans
}

/// Sums a timeline. An outage still down at `now` (the period reaching the present) has
/// no end; outages are cut at the period's edges, and unknown time splits them.
pub fn availability(spans: &[Span], now: DateTime<Utc>) -> Availability {
    let mut millis = [0i64; 3];
    let mut outages: Vec<Outage> = Vec::new();
    let mut previous: Option<&Span> = None;
    for span in spans {
        let length = (span.end - span.start).num_milliseconds();
        match span.state {
            SpanState::Up => millis[0] += length,
            SpanState::Down(cause) => {
                millis[1] += length;
                let continues = previous
                    .is_some_and(|p| matches!(p.state, SpanState::Down(_)) && p.end == span.start);
                match outages.last_mut() {
                    Some(open) if continues => open.end = Some(span.end),
                    _ => outages.push(Outage {
                        start: span.start,
                        end: Some(span.end),
                        cause,
                    }),
                }
            }
            SpanState::Unknown => millis[2] += length,
        }
        previous = Some(span);
    }
    if let (Some(last), Some(outage)) = (spans.last(), outages.last_mut()) {
        if matches!(last.state, SpanState::Down(_)) && last.end >= now {
            outage.end = None;
        }
    }
    let seconds = |ms: i64| u64::try_from((ms + 500) / 1000).unwrap_or(0);
    Availability {
        up_seconds: seconds(millis[0]),
        down_seconds: seconds(millis[1]),
        unknown_seconds: seconds(millis[2]),
        outages,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn t(minutes: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0)
            .single()
            .expect("time")
            + chrono::Duration::minutes(minutes)
    }

    fn covered(a: i64, b: i64, reachable: bool) -> Coverage {
        Coverage {
            start: t(a),
            end: t(b),
            reachable,
        }
    }

    fn change(minute: i64, online: bool, cause: Option<DownCause>) -> OnuStateChange {
        OnuStateChange {
            at: t(minute),
            status: if online {
                OnuStatus::Online
            } else {
                OnuStatus::Offline
            },
            cause,
        }
    }

    #[test]
    fn two_outages_a_service_stop_and_an_unreachable_olt() {
        // Period: 0..600 min. Service stopped 200..260; OLT unreachable 400..430.
        let coverage = [
            covered(0, 200, true),
            covered(260, 400, true),
            covered(400, 430, false),
            covered(430, 600, true),
        ];
        let baseline = change(-50, true, None);
        let changes = [
            change(100, false, Some(DownCause::Los)),
            change(130, true, None),
            change(300, false, Some(DownCause::DyingGasp)),
            change(310, true, None),
        ];
        let spans = timeline(t(0), t(600), &coverage, Some(&baseline), &changes);
        let report = availability(&spans, t(10_000));
        assert_eq!(report.unknown_seconds, 60 * 60);
        assert_eq!(report.down_seconds, (30 + 10 + 30) * 60);
        assert_eq!(report.up_seconds, (600 - 60 - 70) * 60);
        assert_eq!(
            report.outages,
            [
                Outage {
                    start: t(100),
                    end: Some(t(130)),
                    cause: OutageCause::Los
                },
                Outage {
                    start: t(300),
                    end: Some(t(310)),
                    cause: OutageCause::DyingGasp
                },
                Outage {
                    start: t(400),
                    end: Some(t(430)),
                    cause: OutageCause::OltUnreachable
                },
            ]
        );
        // 470 / 540 = 87.037…%
        assert_eq!(report.percent(), Some(87.04));
    }

    #[test]
    fn outages_are_cut_at_the_edges_and_ongoing_ones_have_no_end() {
        let coverage = [covered(0, 100, true)];
        let baseline = change(-10, false, Some(DownCause::Los));
        let changes = [change(20, true, None), change(90, false, None)];
        let spans = timeline(t(0), t(100), &coverage, Some(&baseline), &changes);
        let report = availability(&spans, t(100));
        assert_eq!(
            report.outages,
            [
                Outage {
                    start: t(0),
                    end: Some(t(20)),
                    cause: OutageCause::Los
                },
                Outage {
                    start: t(90),
                    end: None,
                    cause: OutageCause::Unknown
                },
            ]
        );
        assert_eq!((report.up_seconds, report.down_seconds), (70 * 60, 30 * 60));
    }

    #[test]
    fn before_the_onu_is_first_seen_and_without_coverage_nothing_is_known() {
        let spans = timeline(
            t(0),
            t(60),
            &[covered(0, 60, true)],
            None,
            &[change(30, true, None)],
        );
        let report = availability(&spans, t(60));
        assert_eq!(
            (report.unknown_seconds, report.up_seconds),
            (30 * 60, 30 * 60)
        );
        let nothing = availability(&timeline(t(0), t(60), &[], None, &[]), t(60));
        assert_eq!(nothing.unknown_seconds, 3600);
        assert_eq!(nothing.percent(), None);
    }

    #[test]
    fn unknown_time_splits_an_outage() {
        let coverage = [covered(0, 10, true), covered(20, 30, true)];
        let baseline = change(-5, false, Some(DownCause::Los));
        let report = availability(
            &timeline(t(0), t(30), &coverage, Some(&baseline), &[]),
            t(100),
        );
        assert_eq!(report.outages.len(), 2);
        assert_eq!(report.percent(), Some(0.0));
    }
}
