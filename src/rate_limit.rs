//! Per-key request rates (docs/api.md, "Access control"): one keyed governor limiter per distinct
//! quota, shared by every key with that quota and keyed by the key's name — not a limiter
//! per request. A key's `rate` (`100/s`, `600/m`, `3600/h`) is a burst of that many
//! requests refilled evenly over the window; keys without one use `rate_limit.default`.

use dashmap::DashMap;
use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};
use std::fmt;
use std::num::NonZeroU32;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

/// A rate such as `100/s`: `count` requests per `window`, all of them usable at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rate {
    pub count: NonZeroU32,
    pub window_seconds: u64,
}

impl FromStr for Rate {
    type Err = String;

    fn from_str(text: &str) -> Result<Rate, String> {
        let (count, unit) = text
            .split_once('/')
            .ok_or_else(|| format!("`{text}` is not a rate like `100/s` or `600/m`"))?;
        let count = count
            .trim()
            .parse::<u32>()
            .ok()
            .and_then(NonZeroU32::new)
            .ok_or_else(|| format!("`{text}`: the count must be a whole number above zero"))?;
        let window_seconds = match unit.trim() {
            "s" => 1,
            "m" => 60,
            "h" => 3600,
            other => return Err(format!("`{text}`: unknown unit `{other}` (s, m or h)")),
        };
        Ok(Rate {
            count,
            window_seconds,
        })
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = match self.window_seconds {
            1 => "s",
            60 => "m",
            _ => "h",
        };
        write!(f, "{}/{unit}", self.count)
    }
}

impl Rate {
    fn quota(self) -> Quota {
        let per_request = Duration::from_secs(self.window_seconds) / self.count.get();
        Quota::with_period(per_request.max(Duration::from_nanos(1)))
            .unwrap_or_else(|| Quota::per_second(self.count))
            .allow_burst(self.count)
    }
}

/// The outcome of counting one request against its key's rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Allowed {
        limit: u32,
        remaining: u32,
    },
    /// Over the rate: retry after this many whole seconds (rounded up, at least 1).
    Refused {
        limit: u32,
        retry_after_seconds: u64,
    },
}

type KeyedLimiter =
    RateLimiter<String, DefaultKeyedStateStore<String>, DefaultClock, StateInformationMiddleware>;

/// Every limiter of the service, one per distinct rate.
pub struct RateLimits {
    default: Rate,
    limiters: DashMap<Rate, Arc<KeyedLimiter>>,
    clock: DefaultClock,
}

impl RateLimits {
    pub fn new(default: Rate) -> RateLimits {
        RateLimits {
            default,
            limiters: DashMap::new(),
            clock: DefaultClock::default(),
        }
    }

    /// Counts one request of key `name` against `rate` (or the default).
    pub fn check(&self, name: &str, rate: Option<Rate>) -> Decision {
        let rate = rate.unwrap_or(self.default);
        let limiter = self
            .limiters
            .entry(rate)
            .or_insert_with(|| {
                Arc::new(
                    RateLimiter::keyed(rate.quota())
                        .with_middleware::<StateInformationMiddleware>(),
                )
            })
            .clone();
        let limit = rate.count.get();
        match limiter.check_key(&name.to_string()) {
            Ok(snapshot) => Decision::Allowed {
                limit,
                remaining: snapshot.remaining_burst_capacity(),
            },
            Err(not_until) => {
                let wait = not_until.wait_time_from(self.clock.now());
                let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
                Decision::Refused {
                    limit,
                    retry_after_seconds: seconds.max(1),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_parse_and_print() {
        let rate: Rate = "600/m".parse().expect("rate");
        assert_eq!((rate.count.get(), rate.window_seconds), (600, 60));
        assert_eq!(rate.to_string(), "600/m");
        assert!("0/s".parse::<Rate>().is_err());
        assert!("5/d".parse::<Rate>().is_err());
        assert!("fast".parse::<Rate>().is_err());
    }

    #[test]
    fn a_burst_over_the_rate_is_refused_per_key() {
        let limits = RateLimits::new("100/s".parse().expect("rate"));
        let five: Rate = "5/s".parse().expect("rate");
        let outcomes: Vec<Decision> = (0..7)
            .map(|_| limits.check("billing", Some(five)))
            .collect();
        assert_eq!(
            outcomes[0],
            Decision::Allowed {
                limit: 5,
                remaining: 4
            }
        );
        assert_eq!(
            outcomes[4],
            Decision::Allowed {
                limit: 5,
                remaining: 0
            }
        );
        assert_eq!(
            outcomes[5],
            Decision::Refused {
                limit: 5,
                retry_after_seconds: 1
            }
        );
        // Another key with the same rate has its own budget; the default applies otherwise.
        assert_eq!(
            limits.check("ops", Some(five)),
            Decision::Allowed {
                limit: 5,
                remaining: 4
            }
        );
        assert_eq!(
            limits.check("billing", None),
            Decision::Allowed {
                limit: 100,
                remaining: 99
            }
        );
        assert_eq!(limits.limiters.len(), 2, "one limiter per distinct rate");
    }
}
