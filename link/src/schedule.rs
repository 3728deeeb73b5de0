//! Cron schedules on the town clock.
//!
//! Under `--speed N` the town's time runs N times faster from the start of the current real UTC
//! day, so every process with the same speed agrees on the town time, and so on which cycle is
//! due, without talking. (A fixed origin would push town time past the years cron can count.)

use crate::LinkError;
use std::str::FromStr;
use std::time::Duration;

use chrono::{TimeZone, Utc};
use cron::Schedule;

use crate::clock::Clock;

/// Seconds in a day: town time restarts from real time at each UTC midnight.
const DAY_SECS: f64 = 86_400.0;

/// A cron expression (`sec min hour dom mon dow`) read on the town clock.
#[derive(Debug, Clone)]
pub struct TownSchedule {
    schedule: Schedule,
    clock: Clock,
}

impl TownSchedule {
    /// Parses `expr` for `clock`.
    pub fn new(expr: &str, clock: Clock) -> Result<Self, LinkError> {
        let schedule = Schedule::from_str(expr).map_err(|source| LinkError::Schedule {
            expr: expr.to_string(),
            source,
        })?;
        Ok(Self { schedule, clock })
    }

    /// The next firing after real time `now_secs`: a name for the cycle that every process
    /// derives alike, and how long to wait for it in real time.
    pub fn next_after(&self, now_secs: f64) -> Option<(String, Duration)> {
        let speed = self.clock.speed();
        let origin = (now_secs / DAY_SECS).floor() * DAY_SECS;
        let town_now = origin + (now_secs - origin) * speed;
        let at = Utc.timestamp_opt(town_now as i64, 0).single()?;
        let next = self.schedule.after(&at).next()?;
        let wait = ((next.timestamp() as f64 - town_now) / speed).max(0.0);
        let name = next.format("%Y-%m-%dT%H:%MZ").to_string();
        if speed == 1.0 {
            return Some((name, Duration::from_secs_f64(wait)));
        }
        let day = Utc
            .timestamp_opt(origin as i64, 0)
            .single()?
            .format("%Y-%m-%d");
        Some((
            format!("{day}x{speed}:{name}"),
            Duration::from_secs_f64(wait),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_six_hours_at_speed_360_fires_every_minute() {
        let s = TownSchedule::new("0 0 */6 * * *", Clock::new(360.0)).unwrap();
        let now = 1_795_000_000.0;
        let (first, wait) = s.next_after(now).unwrap();
        let (second, wait2) = s.next_after(now + wait.as_secs_f64() + 0.5).unwrap();
        assert!(wait <= Duration::from_secs(60), "{wait:?}");
        assert!(
            wait2 > Duration::from_secs(59) && wait2 <= Duration::from_secs(60),
            "{wait2:?}"
        );
        assert_ne!(first, second);
        // Two processes at the same speed name the cycle alike.
        assert_eq!(s.next_after(now + 0.1).unwrap().0, first);
    }

    #[test]
    fn a_bad_expression_is_named() {
        let e = TownSchedule::new("every six hours", Clock::default()).unwrap_err();
        assert!(e.to_string().contains("every six hours"));
    }
}
