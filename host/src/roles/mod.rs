//! What each role does once its agent is up. One folder or file per role.
//!
//! A role reads the relay through the host's shared [`Link`](soul_link::Link) and answers by
//! publishing signed events; it keeps no state the relay does not hold, so a restarted agent
//! picks up where the relay says it was.

pub mod brain;
pub mod buddy;
pub mod executor;
pub mod reporter;
pub mod resident;
pub mod reviewer;
pub mod shared;
pub mod worker;

use crate::HostError;
use tokio::task::{AbortHandle, JoinSet};

use crate::{HostOptions, Identity, Supervisor};
use soul_kinds::Role;
use soul_link::Link;

/// What every role gets from its host.
#[derive(Debug, Clone)]
pub struct RoleCtx {
    /// The host's shared connection.
    pub link: Link,
    /// The host's settings (roster, clock, town directory, …).
    pub options: HostOptions,
    /// The host, for restarts.
    pub supervisor: Supervisor,
    /// The guardian and the gate, for every proposal that would act.
    pub guardian: soul_guard::Guardian,
    /// State the host's agents share (the residents' view of the relay, the town's rules).
    pub shared: shared::HostShared,
}

/// Starts the tasks of `agent`'s role in `tasks`; returns their handles so the host can restart
/// them. Roles without behaviour yet only have their presence (started by the host).
pub fn spawn(
    tasks: &mut JoinSet<Result<(), HostError>>,
    agent: &Identity,
    ctx: &RoleCtx,
) -> Vec<AbortHandle> {
    let mut handles = Vec::new();
    match agent.role {
        Role::Brain => match brain::BrainSetup::from_ctx(ctx) {
            Some(setup) => {
                if setup.brains.name_of(&agent.keys.public_key())
                    == Some(soul_kinds::BrainName::Gorilla)
                {
                    handles.push(tasks.spawn(brain::inbox::run(
                        agent.clone(),
                        ctx.options.relay_url.clone(),
                        setup.owner,
                        ctx.link.clone(),
                    )));
                }
                handles.push(tasks.spawn(brain::run(agent.clone(), ctx.link.clone(), setup)));
                handles.extend(worker::suggest::spawn_for_triceratops(tasks, agent, ctx));
            }
            None => tracing::warn!(
                agent = %agent.name,
                "the roster lacks panda, gorilla or triceratops: brains cannot debate"
            ),
        },
        Role::Buddy | Role::Executor => handles.extend(worker::spawn_role(tasks, agent, ctx)),
        Role::Resident => handles.extend(resident::spawn(tasks, agent, ctx)),
        Role::Reviewer => handles.extend(reviewer::spawn(tasks, agent, ctx)),
        Role::Reporter => handles.extend(reporter::spawn(tasks, agent, ctx)),
    }
    handles
}
