//! The town's clock: every interval and schedule runs `speed` times faster under `soul up --speed N`.

use std::time::Duration;

/// Scales durations by the town's speed. Nothing else about the agents changes with speed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Clock {
    speed: f64,
}

impl Default for Clock {
    fn default() -> Self {
        Self { speed: 1.0 }
    }
}

impl Clock {
    /// A clock `speed` times faster than real time (values below 0.001 are taken as 0.001).
    pub fn new(speed: f64) -> Self {
        Self {
            speed: if speed.is_finite() {
                speed.max(0.001)
            } else {
                1.0
            },
        }
    }

    /// The speed factor.
    pub fn speed(&self) -> f64 {
        self.speed
    }

    /// `d` of town time in real time, never shorter than 10 ms so loops cannot spin.
    pub fn scale(&self, d: Duration) -> Duration {
        d.div_f64(self.speed).max(Duration::from_millis(10))
    }

    /// Sleeps for `d` of town time.
    pub async fn sleep(&self, d: Duration) {
        tokio::time::sleep(self.scale(d)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speed_shortens_intervals_with_a_floor() {
        let c = Clock::new(60.0);
        assert_eq!(c.scale(Duration::from_secs(60)), Duration::from_secs(1));
        assert_eq!(
            Clock::new(1e9).scale(Duration::from_secs(1)),
            Duration::from_millis(10)
        );
        assert_eq!(Clock::new(f64::NAN).speed(), 1.0);
    }
}
