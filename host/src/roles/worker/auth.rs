//! Who may command a worker (DESIGN §9): the owner always; a brain only with a reference to an
//! approved decision (4362) whose task names this worker, for exactly the command that task
//! decided ([`super::decided`]); nobody else. Fails closed: any error reading the relay refuses.
//!
//! The task's origin is what its signature proves ([`soul_kinds::task_origin`]): a brain's
//! command on a task the owner did not sign comes back as [`Authority::Brain`] with that
//! origin, and the worker asks the owner before it acts (issue 20).

use nostr::nips::nip19::ToBech32;
use nostr::{EventId, Filter, PublicKey, Timestamp};
use soul_kinds::{fold_task, tags, task_origin, Outcome, Roster, SoulKind, TaskOrigin};

use super::command::Command;
use crate::roles::brain::debate_kinds;
use soul_link::Link;

/// How long an approved decision authorises a brain's commands.
pub const DECISION_TTL_SECS: u64 = 3600;

/// On whose authority a command runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Authority {
    /// The town's owner.
    Owner,
    /// A brain carrying out an approved decision.
    Brain {
        /// The decision (4362).
        decision: EventId,
        /// Its task (4360).
        task: EventId,
        /// Who the task is from, as its signature proves.
        origin: TaskOrigin,
        /// The task's title, for the owner's question.
        title: String,
    },
}

/// The worker being commanded.
pub struct Worker<'a> {
    /// Its roster name.
    pub name: &'a str,
    /// Its key.
    pub pubkey: PublicKey,
}

/// Decides whether `sender` may give `cmd` to `worker`; the error says why not.
pub async fn authorize(
    link: &Link,
    roster: &Roster,
    worker: &Worker<'_>,
    sender: &PublicKey,
    cmd: &Command,
    dispatch: &crate::roles::executor::Dispatch,
) -> Result<Authority, String> {
    if *sender == roster.owner {
        return Ok(Authority::Owner);
    }
    let brains = roster
        .brains()
        .ok_or("the roster has no brains, so only the owner may command")?;
    if !brains.contains(sender) {
        return Err(format!(
            "{} is neither the owner nor a brain of town {}; only they may command {}",
            sender.to_bech32().unwrap_or_else(|_| sender.to_hex()),
            roster.town,
            worker.name
        ));
    }
    let Some(decision) = cmd.decision else {
        return Err(format!(
            "a brain's command needs \"decision\": the id of an approved decision (4362) whose task names {}",
            worker.name
        ));
    };
    let fetch_err = |e| format!("cannot check decision {decision} on the relay: {e}");
    let found = link
        .fetch(Filter::new().id(decision))
        .await
        .map_err(fetch_err)?;
    let event = found
        .iter()
        .find(|e| e.kind == SoulKind::Decision.kind())
        .ok_or_else(|| format!("decision {decision} is not on the relay"))?;
    let task_id =
        tags::task_ref(event).ok_or_else(|| format!("decision {decision} names no task"))?;
    let task = link
        .fetch(Filter::new().id(task_id))
        .await
        .map_err(fetch_err)?
        .into_iter()
        .find(|e| e.kind == SoulKind::Task.kind())
        .ok_or_else(|| format!("the task {task_id} of decision {decision} is not on the relay"))?;
    let related: Vec<_> = link
        .fetch(Filter::new().kinds(debate_kinds()).event(task_id))
        .await
        .map_err(fetch_err)?
        .into_iter()
        .collect();
    let (state, _) = fold_task(&task, &related, &brains)
        .map_err(|e| format!("task {task_id} does not fold: {e}"))?;
    let origin = task_origin(&task, &roster.owner, &brains)
        .map_err(|why| format!("task {task_id} is no task of this town: {why}"))?;
    match &state.decision {
        Some((id, d)) if *id == decision && d.outcome == Outcome::Approved => {}
        Some((id, _)) if *id == decision => {
            return Err(format!("decision {decision} rejected its task"))
        }
        _ => {
            return Err(format!(
                "{decision} is not the counted decision of task {task_id}"
            ))
        }
    }
    // A decision authorises work for a while, not forever: an old one cannot be replayed.
    let age = Timestamp::now()
        .as_secs()
        .saturating_sub(event.created_at.as_secs());
    if age > DECISION_TTL_SECS {
        return Err(format!(
            "decision {decision} is {age} s old; a decision authorises commands for {DECISION_TTL_SECS} s"
        ));
    }
    // The task names this worker, or its run (read from the task the same way triceratops
    // read it) falls to this worker as the town's only executor.
    let plan = dispatch.plan(&state.task);
    let designated = plan.as_ref().is_some_and(|p| p.executor == worker.pubkey);
    if !designated
        && !names(
            &format!("{} {}", state.task.title, state.task.description),
            worker,
        )
    {
        return Err(format!(
            "task {task_id} (\"{}\") does not name {}",
            state.task.title, worker.name
        ));
    }
    super::decided::matches(&cmd.action, &state.task, plan.as_ref(), &worker.pubkey)
        .map_err(|why| format!("decision {decision} does not cover this command: {why}"))?;
    Ok(Authority::Brain {
        decision,
        task: task_id,
        origin,
        title: state.task.title.clone(),
    })
}

/// Whether `text` names the worker: its name as a whole word (any case), or its npub or hex.
pub fn names(text: &str, worker: &Worker<'_>) -> bool {
    let lower = text.to_lowercase();
    let name = worker.name.to_lowercase();
    let word = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .any(|w| w == name);
    let npub = worker.pubkey.to_bech32().unwrap_or_default();
    word || (!npub.is_empty() && text.contains(&npub)) || lower.contains(&worker.pubkey.to_hex())
}

#[cfg(test)]
mod tests {
    use nostr::Keys;

    use super::*;

    #[test]
    fn a_task_names_a_worker_by_whole_word_or_key() {
        let pubkey = Keys::generate().public_key();
        let w = Worker {
            name: "executor",
            pubkey,
        };
        assert!(names("Ask the Executor to run disk_usage", &w));
        assert!(names("executor: run checksum", &w));
        assert!(!names("an executorial matter", &w));
        assert!(names(&format!("use {}", pubkey.to_bech32().unwrap()), &w));
        assert!(!names("run disk_usage", &w));
    }
}
