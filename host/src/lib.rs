//! The agent host: many agents in one process, each signing its own events.
//!
//! The host owns one [`Link`] to the relay that every agent publishes through. Each agent runs as
//! its own task; what an agent knows comes from the relay (the fold over events), never from
//! local files the relay does not hold, so an agent can move to another host with only its key.
//!
//! # Layout
//! - this file: [`run`], the host's loop; [`HostOptions`]; [`HostError`], why an agent stopped.
//! - [`roles`]: what each role does once up (brains, residents, reviewer, reporter, workers).
//! - [`minds`]: [`minds::Minds`], the mind, karma and rules built once per host.
//! - [`town`]: the town directory: the embedded template and loading a town to run it.
//! - `presence`: profile, relay lists and heartbeats; `supervisor`: restarts with back-off.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod error;
pub mod minds;
mod presence;
pub mod roles;
mod supervisor;
pub mod town;

use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use soul_kinds::Roster;
use tokio::task::{AbortHandle, JoinSet};

use soul_link::clock::Clock;
use soul_link::Identity;
use soul_link::Link;
use soul_mind::brain::Lexicon;

use soul_link::schedule::TownSchedule;

pub use error::HostError;
pub use presence::{heartbeat, profile, relay_lists};
pub use supervisor::{Backoff, Supervisor};

/// Settings shared by every agent of a host.
#[derive(Debug, Clone)]
pub struct HostOptions {
    /// The owner-signed roster (from town.toml for `soul up`, from the relay for `soul-agent`).
    pub roster: Roster,
    /// The brains' risk and opportunity words.
    pub lexicon: Arc<Lexicon>,
    /// Agents that the restart protocol may restart (`rules/restart.yaml`).
    pub restart_allowlist: Arc<Vec<String>>,
    /// When brains run evaluation cycles (cron on the town clock); `None` only on request.
    pub evaluation: Option<TownSchedule>,
    /// The town directory, where roles read their files (`residents/`, `rules/`, `bulletin/`).
    pub town_dir: PathBuf,
    /// The relay agents publish to and read from.
    pub relay_url: String,
    /// The town clock (`--speed`).
    pub clock: Clock,
    /// Town-time interval between heartbeats.
    pub heartbeat_every: Duration,
    /// The mind every agent asks, karma, and the guardian's and the gate's rules.
    pub minds: crate::minds::Minds,
}

/// Runs `agents` until `shutdown` completes, then publishes a last `stopped` heartbeat for each.
pub async fn run(
    agents: Vec<Identity>,
    options: HostOptions,
    shutdown: impl Future<Output = ()>,
) -> Result<(), HostError> {
    // One more connection per hundred agents publishes and fetches (see `Link`): a town of a
    // dozen gets one, a thousand residents get eight.
    let link =
        Link::connect_spread(&options.relay_url, agents.len().div_ceil(128).clamp(1, 8)).await?;
    tracing::info!(agents = agents.len(), relay = %link.url(), "agent host connected");
    let (supervisor, mut orders) = Supervisor::channel();
    // What every agent's role gets; the guardian and the gate are built once for the host.
    let ctx = roles::RoleCtx {
        link: link.clone(),
        guardian: soul_guard::Guardian::new(
            Arc::clone(&options.minds.guard),
            &options.minds.auth,
            options.roster.clone(),
        ),
        options,
        supervisor,
        shared: roles::shared::HostShared::default(),
    };
    let mut tasks = JoinSet::new();
    let mut handles: HashMap<String, Vec<AbortHandle>> = HashMap::new();
    let mut backoff = Backoff::default();
    for agent in &agents {
        let h = spawn_agent(&mut tasks, agent, &ctx);
        handles.insert(agent.name.clone(), h);
    }
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            _ = &mut shutdown => break,
            Some(order) = orders.recv() => {
                let result = match (handles.get_mut(&order.agent), agents.iter().find(|a| a.name == order.agent)) {
                    (Some(running), Some(agent)) => {
                        running.iter().for_each(AbortHandle::abort);
                        *running = spawn_agent(&mut tasks, agent, &ctx);
                        tracing::info!(agent = %agent.name, "agent restarted");
                        Ok(())
                    }
                    _ => Err(format!("agent {} does not run in this host", order.agent)),
                };
                let _ = order.reply.send(result);
            }
            done = tasks.join_next_with_id() => {
                let (id, why) = match done {
                    Some(Ok((id, Err(e)))) => (id, e.to_string()),
                    Some(Err(e)) if e.is_cancelled() => continue,
                    Some(Err(e)) => (e.id(), format!("its task panicked: {e}")),
                    Some(Ok((_, Ok(())))) => continue,
                    None => std::future::pending().await,
                };
                // An agent whose task stopped would stay silent for good (a brain that never
                // votes again): restart it, waiting longer each time it fails again.
                let Some(name) = handles
                    .iter()
                    .find(|(_, hs)| hs.iter().any(|h| h.id() == id))
                    .map(|(name, _)| name.clone())
                else {
                    tracing::error!("a task of no running agent stopped: {why}");
                    continue;
                };
                let wait = backoff.after_failure(&name, std::time::Instant::now());
                tracing::error!(agent = %name, "agent stopped: {why}; restarting it in {} s", wait.as_secs());
                let supervisor = ctx.supervisor.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(wait).await;
                    if let Err(e) = supervisor.restart(&name).await {
                        tracing::warn!(agent = %name, "not restarted: {e}");
                    }
                });
            }
        }
    }
    tasks.abort_all();
    for agent in &agents {
        if let Err(e) = link.publish(&agent.keys, heartbeat("stopped")).await {
            tracing::debug!(agent = %agent.name, "last heartbeat not sent: {e}");
        }
    }
    link.close().await;
    tracing::info!("agent host stopped");
    Ok(())
}

/// Starts an agent's tasks: its presence, and its role (see [`roles::spawn`]).
fn spawn_agent(
    tasks: &mut JoinSet<Result<(), HostError>>,
    agent: &Identity,
    ctx: &roles::RoleCtx,
) -> Vec<AbortHandle> {
    let mut handles = roles::spawn(tasks, agent, ctx);
    // Only what the presence needs: a copy of the options per agent would copy the roster,
    // and ten thousand agents each holding a ten-thousand-member roster is gigabytes.
    let (agent, link, every) = (agent.clone(), ctx.link.clone(), ctx.options.heartbeat_every);
    handles.push(tasks.spawn(async move { presence::live(agent, link, every).await }));
    handles
}
