//! Restarting an agent of this host on request (the restart protocol's last step).

use tokio::sync::{mpsc, oneshot};

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
