//! Restarting an agent of this host: on request (the restart protocol's last step), and on its
//! own when one of its tasks stopped with an error (a relay that did not answer at start, a
//! subscription refused), after a back-off that grows while it keeps failing.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot};

/// First wait before restarting an agent that failed.
pub const FIRST_BACKOFF: Duration = Duration::from_secs(1);
/// Longest wait between restarts of an agent that keeps failing.
pub const MAX_BACKOFF: Duration = Duration::from_secs(60);
/// An agent that ran this long since its last failure starts again from [`FIRST_BACKOFF`].
pub const QUIET: Duration = Duration::from_secs(600);

/// The back-off of each agent that failed: 1 s, 2 s, 4 s … at most 60 s, back to 1 s after ten
/// quiet minutes.
#[derive(Debug, Default)]
pub struct Backoff {
    last: HashMap<String, (Instant, Duration)>,
}

impl Backoff {
    /// How long to wait before restarting `agent`, which failed at `now`.
    pub fn after_failure(&mut self, agent: &str, now: Instant) -> Duration {
        let wait = match self.last.get(agent) {
            Some((at, prev)) if now.duration_since(*at) < QUIET => (*prev * 2).min(MAX_BACKOFF),
            _ => FIRST_BACKOFF,
        };
        self.last.insert(agent.to_owned(), (now, wait));
        wait
    }
}

/// A request to restart one agent; the host answers on `reply`.
#[derive(Debug)]
pub struct RestartOrder {
    /// The agent's roster name.
    pub agent: String,
    /// `Ok` once restarted, or why not.
    pub reply: oneshot::Sender<Result<(), String>>,
}

/// Handle through which a role asks its host to restart an agent.
#[derive(Debug, Clone)]
pub struct Supervisor(mpsc::Sender<RestartOrder>);

impl Supervisor {
    /// A supervisor handle and the host's end of the channel.
    pub fn channel() -> (Self, mpsc::Receiver<RestartOrder>) {
        let (tx, rx) = mpsc::channel(16);
        (Self(tx), rx)
    }

    /// Restarts `agent` if it runs in this host.
    pub async fn restart(&self, agent: &str) -> Result<(), String> {
        let (reply, answer) = oneshot::channel();
        self.0
            .send(RestartOrder {
                agent: agent.to_string(),
                reply,
            })
            .await
            .map_err(|_| "the host is shutting down".to_string())?;
        answer
            .await
            .map_err(|_| "the host is shutting down".to_string())?
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_doubles_to_a_minute_and_resets_after_quiet_time() {
        let mut b = Backoff::default();
        let t0 = Instant::now();
        let waits: Vec<u64> = (0..8)
            .map(|i| {
                b.after_failure("gorilla", t0 + Duration::from_secs(i))
                    .as_secs()
            })
            .collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 32, 60, 60]);
        assert_eq!(b.after_failure("panda", t0), FIRST_BACKOFF, "per agent");
        let later = t0 + Duration::from_secs(8) + QUIET;
        assert_eq!(b.after_failure("gorilla", later), FIRST_BACKOFF);
    }
}
