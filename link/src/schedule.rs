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

/// Most missed firings one late pass catches up on; older ones are logged and dropped.
const MAX_CATCH_UP: usize = 8;

/// A schedule's firings, each computed once and handed out once, however late the caller looks.
///
/// A loop that recomputed "the next firing after now" on every pass skipped a firing whenever a
/// pass spanned it (the next computation already named the one after). A `Cadence` keeps the
/// next firing until [`Cadence::due`] hands it out, so a late pass still runs the cycle it
/// missed, and no cycle runs twice.
#[derive(Debug, Clone)]
pub struct Cadence {
    schedule: TownSchedule,
    /// The next firing: its cycle name and its real time (seconds since the epoch).
    next: Option<(String, f64)>,
}

impl Cadence {
    /// Firings of `schedule` after real time `now_secs`.
    pub fn new(schedule: TownSchedule, now_secs: f64) -> Self {
        let next = firing_after(&schedule, now_secs, None);
        Self { schedule, next }
    }

    /// How long from `now_secs` until the next firing (zero when one is due).
    pub fn wait(&self, now_secs: f64) -> Option<Duration> {
        let (_, at) = self.next.as_ref()?;
        Some(Duration::from_secs_f64((at - now_secs).max(0.0)))
    }

    /// The cycles due at `now_secs`, oldest first, each handed out once.
    pub fn due(&mut self, now_secs: f64) -> Vec<String> {
        let mut due = Vec::new();
        while let Some((name, at)) = self.next.take() {
            if at > now_secs {
                self.next = Some((name, at));
                break;
            }
            self.next = firing_after(&self.schedule, at, Some(&name));
            due.push(name);
        }
        if due.len() > MAX_CATCH_UP {
            let dropped = due.len() - MAX_CATCH_UP;
            tracing::warn!(
                dropped,
                first = %due[0],
                "missed more scheduled cycles than one pass catches up on; running the latest {MAX_CATCH_UP}"
            );
            due.drain(..dropped);
        }
        due
    }
}

/// The firing after real time `secs` whose name is not `fired` (float rounding can name the
/// firing at `secs` itself again).
fn firing_after(schedule: &TownSchedule, secs: f64, fired: Option<&str>) -> Option<(String, f64)> {
    let mut from = secs;
    for _ in 0..3 {
        let (name, wait) = schedule.next_after(from)?;
        let at = from + wait.as_secs_f64();
        if fired != Some(name.as_str()) {
            return Some((name, at));
        }
        from = at + 1.0 / schedule.clock.speed().max(1.0);
    }
    None
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

    #[test]
    fn a_late_look_still_gets_every_cycle_once() {
        let s = TownSchedule::new("0 0 */6 * * *", Clock::new(360.0)).unwrap();
        let now = 1_795_000_000.0;
        let mut c = Cadence::new(s.clone(), now);
        let first = s.next_after(now).unwrap().0;
        assert!(c.due(now).is_empty(), "nothing is due before its time");
        // A pass that looks two and a half minutes late (two and a half cycles at x360) gets
        // the cycles it missed, in order, and then none again.
        let late = now + 150.0;
        let due = c.due(late);
        assert_eq!(due.len(), 3, "{due:?}");
        assert_eq!(due[0], first);
        assert!(due.windows(2).all(|w| w[0] != w[1]), "{due:?}");
        assert!(c.due(late).is_empty(), "each is handed out once");
        assert!(c.wait(late).unwrap() <= Duration::from_secs(60));
        // The next one is the cycle after the last handed out.
        let next = c.due(late + 60.0);
        assert_eq!(next.len(), 1);
        assert_ne!(next[0], due[2]);
    }

    #[test]
    fn a_stall_of_days_catches_up_on_the_latest_cycles_only() {
        let s = TownSchedule::new("0 0 * * * *", Clock::default()).unwrap();
        let now = 1_795_000_000.0;
        let mut c = Cadence::new(s, now);
        let due = c.due(now + 3.0 * 86_400.0);
        assert_eq!(due.len(), MAX_CATCH_UP);
    }
}
