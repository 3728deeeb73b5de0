//! The restart fold: the two-step restart protocol (DESIGN §6, seed 000
//! トリケラトプス・リビルドプロトコル).
//!
//! Triceratops may change its own code but must never restart itself, so a restart takes two
//! approvals:
//! 1. triceratops publishes the request (4369, `pending_approval`, `e` task);
//! 2. gorilla checks it with [`review_request`] (allowlist, approved decision, nobody restarts
//!    itself) and publishes `approved`, or `failed` with a reason (a refusal);
//! 3. panda re-checks and performs it, then publishes `completed` or `failed`;
//! 4. triceratops waits for that (at most 300 s: the agent's timer, not this fold's business).
//!
//! Every step after the request carries `e` task (root) and `e` request. State: `requested` →
//! `approved` → `completed` | `failed`, or `requested` → `refused`. Final states take no steps.
//!
//! Refused without a step: a request whose author is not triceratops, or whose status is not
//! `pending_approval`, folds to [`RestartState::Refused`] at once. Only an event that cannot be a
//! request at all (not a readable 4369, or without an `e` task) is an `Err`.
//!
//! Rejected: steps from the wrong brain or a non-brain, out of order, after a final state, about
//! another service or task, or an approval that [`review_request`] fails. Panda's re-check is the
//! same review with the same inputs, so the fold does not repeat it at completion.
//!
//! Scope: `later` may hold a whole task thread. Only 4369 events take part: those that cite the
//! request in an `e` tag, and steps in the request's task thread that cite no request at all
//! (refused: a step must say which request it answers). Other requests of the same task and the
//! steps that answer them are skipped silently.
//!
//! Order: `(created_at, stage, id)` with gorilla's steps before panda's in the same second, so the
//! input order never changes the result.

use crate::fold::{Refusal, Rule};
use std::collections::BTreeSet;
use std::fmt;

use nostr::{Event, EventId};

use super::Rejected;
use crate::content::{parse, RestartStatus, RestartStep};
use crate::error::Error;
use crate::kind::SoulKind;
use crate::role::BrainName;
use crate::roster::Brains;
use crate::tags::{e_refs, refs_besides, task_ref};

/// Where a restart stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestartState {
    /// Triceratops asked; gorilla has not answered.
    Requested,
    /// Gorilla approved; panda has not reported.
    Approved,
    /// Panda performed it. Final.
    Completed,
    /// Panda tried and it failed. Final.
    Failed,
    /// Gorilla refused, or the request was not a valid request; the reason says which. Final.
    Refused(String),
}

impl RestartState {
    /// The snake_case name, without a refusal's reason.
    pub fn as_str(&self) -> &'static str {
        match self {
            RestartState::Requested => "requested",
            RestartState::Approved => "approved",
            RestartState::Completed => "completed",
            RestartState::Failed => "failed",
            RestartState::Refused(_) => "refused",
        }
    }

    /// Whether no step can change the state any more.
    pub fn is_final(&self) -> bool {
        matches!(
            self,
            RestartState::Completed | RestartState::Failed | RestartState::Refused(_)
        )
    }
}

impl fmt::Display for RestartState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A restart request and the steps that answered it, as the accepted events say.
#[derive(Debug, Clone, PartialEq)]
pub struct RestartRequest {
    /// The request event's id.
    pub request: EventId,
    /// The task the restart serves (the request's `e` root).
    pub task: EventId,
    /// The service to restart, as the request names it.
    pub service: String,
    /// Where it stands.
    pub state: RestartState,
    /// Accepted steps in order, starting with the request itself (empty if it was refused).
    pub steps: Vec<(EventId, BrainName, RestartStep)>,
}

/// What gorilla's review needs besides the request: the configuration and the task folds.
pub struct RestartRules<'a> {
    /// Services that may be restarted at all (`town.toml`).
    pub allowlist: &'a [String],
    /// Whether a task has an approved decision (from [`crate::fold_task`]).
    pub approved_tasks: &'a dyn Fn(&EventId) -> bool,
}

/// Gorilla's check of a request, which panda repeats before performing it.
///
/// In order: the requester is triceratops; the service is neither panda (the performer) nor
/// gorilla (the approver), by name or as `brain-NAME`, because nobody restarts itself, not even
/// through a careless allowlist; it is in the allowlist; its task has an approved decision. The
/// `Err` is a sentence for the refusal's `reason`.
pub fn review_request(
    request: &RestartStep,
    requester: BrainName,
    task_approved: bool,
    allowlist: &[String],
) -> Result<(), Refusal> {
    let service = request.service.as_str();
    if requester != BrainName::Triceratops {
        return Err(Refusal::new(
            Rule::Author,
            format!("restart requests come from triceratops, not {requester}"),
        ));
    }
    let names = |brain: BrainName| {
        service == brain.as_str() || service.strip_prefix("brain-") == Some(brain.as_str())
    };
    if names(BrainName::Panda) {
        return Err(Refusal::new(
            Rule::Forbidden,
            format!(
            "service {service:?} would restart the brain that performs it: nobody restarts itself"
        ),
        ));
    }
    if names(BrainName::Gorilla) {
        return Err(Refusal::new(
            Rule::Forbidden,
            format!(
            "service {service:?} would restart the brain that approves it: nobody restarts itself"
        ),
        ));
    }
    if !allowlist.iter().any(|s| s == service) {
        return Err(Refusal::new(
            Rule::Forbidden,
            format!("service {service:?} is not in the restart allowlist"),
        ));
    }
    if !task_approved {
        return Err(Refusal::new(Rule::Order, "task has no approved decision"));
    }
    Ok(())
}

/// Fold a restart request and the events after it into its state.
///
/// `Err` only if `request` is not a readable restart event with an `e` task; every problem with a
/// later event becomes a [`Rejected`] entry and the event is ignored. Duplicates count once.
pub fn fold_restart(
    request: &Event,
    later: &[Event],
    brains: &Brains,
    rules: &RestartRules,
) -> Result<(RestartRequest, Vec<Rejected>), Error> {
    let content: RestartStep = parse(request)?;
    let task = task_ref(request).ok_or(Error::MissingTag {
        event: request.id,
        tag: "e",
    })?;
    let mut state = RestartRequest {
        request: request.id,
        task,
        service: content.service.clone(),
        state: RestartState::Requested,
        steps: Vec::new(),
    };
    match (brains.name_of(&request.pubkey), content.status) {
        (Some(BrainName::Triceratops), RestartStatus::PendingApproval) => {
            state
                .steps
                .push((request.id, BrainName::Triceratops, content));
        }
        (author, RestartStatus::PendingApproval) => {
            let who = author.map_or("a non-brain", BrainName::as_str);
            let why = format!("restart requests come from triceratops, not {who}");
            state.state = RestartState::Refused(why);
        }
        (_, status) => {
            let why = format!("a request is pending_approval, not {}", status.as_str());
            state.state = RestartState::Refused(why);
        }
    }

    let mut seen = BTreeSet::from([request.id]);
    let mut steps: Vec<(&Event, Result<RestartStep, Error>)> = later
        .iter()
        .filter(|e| seen.insert(e.id))
        .filter(|e| SoulKind::from_kind(e.kind) == Some(SoulKind::Restart))
        .map(|e| (e, parse::<RestartStep>(e)))
        .filter(|(e, step)| state.concerns(e, step))
        .collect();
    steps.sort_by_key(|(e, step)| (e.created_at, stage(e, step, brains), e.id));

    let mut rejected = Vec::new();
    for (event, step) in steps {
        if let Err(reason) = state.apply(event, step, brains, rules) {
            rejected.push(Rejected {
                event_id: event.id,
                reason,
            });
        }
    }
    Ok((state, rejected))
}

/// The causal step used to break `created_at` ties: gorilla answers before panda acts.
fn stage(event: &Event, step: &Result<RestartStep, Error>, brains: &Brains) -> u8 {
    match (step, brains.name_of(&event.pubkey)) {
        (Err(_), _) => 4,
        (Ok(_), Some(BrainName::Gorilla)) => 1,
        (Ok(_), Some(BrainName::Panda)) => 2,
        (Ok(_), _) => 3,
    }
}

impl RestartRequest {
    /// Whether a 4369 event is this fold's business (see the module docs).
    fn concerns(&self, event: &Event, step: &Result<RestartStep, Error>) -> bool {
        e_refs(event).any(|r| r.id == self.request)
            || (task_ref(event) == Some(self.task)
                && refs_besides(event, self.task).is_empty()
                && step
                    .as_ref()
                    .is_ok_and(|s| s.status != RestartStatus::PendingApproval))
    }

    fn apply(
        &mut self,
        event: &Event,
        step: Result<RestartStep, Error>,
        brains: &Brains,
        rules: &RestartRules,
    ) -> Result<(), Refusal> {
        let step =
            step.map_err(|e| Refusal::new(Rule::Content, format!("unreadable content: {e}")))?;
        if !e_refs(event).any(|r| r.id == self.request) {
            return Err(Refusal::new(
                Rule::Reference,
                "names no request with an `e` tag",
            ));
        }
        if task_ref(event) != Some(self.task) {
            return Err(Refusal::new(
                Rule::Reference,
                format!(
                    "does not reference the request's task {} as its root",
                    self.task
                ),
            ));
        }
        let author = brains
            .name_of(&event.pubkey)
            .ok_or_else(|| Refusal::new(Rule::Author, "restart step author is not a brain"))?;
        if self.state.is_final() {
            return Err(Refusal::new(
                Rule::Order,
                format!("step after the restart was {}", self.state),
            ));
        }
        if step.service != self.service {
            return Err(Refusal::new(
                Rule::Reference,
                format!(
                    "step is about service {:?}, the request about {:?}",
                    step.service, self.service
                ),
            ));
        }
        let status = step.status.as_str();
        let next = match (author, step.status) {
            (BrainName::Triceratops, _) => {
                return Err(Refusal::new(
                    Rule::Author,
                    "triceratops only requests; gorilla and panda answer",
                ))
            }
            (BrainName::Gorilla, RestartStatus::Approved | RestartStatus::Failed)
                if self.state != RestartState::Requested =>
            {
                let state = &self.state;
                return Err(Refusal::new(
                    Rule::Order,
                    format!("gorilla answers only a pending request, the restart is {state}"),
                ));
            }
            (BrainName::Gorilla, RestartStatus::Approved) => {
                let approved = (rules.approved_tasks)(&self.task);
                review_request(&step, BrainName::Triceratops, approved, rules.allowlist).map_err(
                    |why| Refusal {
                        rule: why.rule,
                        detail: format!("approval fails the review of task {}: {why}", self.task),
                    },
                )?;
                RestartState::Approved
            }
            (BrainName::Gorilla, RestartStatus::Failed) if step.reason.trim().is_empty() => {
                return Err(Refusal::new(
                    Rule::Inconsistent,
                    "gorilla's refusal gives no reason",
                ))
            }
            (BrainName::Gorilla, RestartStatus::Failed) => {
                RestartState::Refused(step.reason.clone())
            }
            (BrainName::Gorilla, _) => {
                return Err(Refusal::new(
                    Rule::Order,
                    format!("gorilla's step is approved or failed (a refusal), not {status}"),
                ))
            }
            (BrainName::Panda, RestartStatus::Completed | RestartStatus::Failed)
                if self.state != RestartState::Approved =>
            {
                return Err(Refusal::new(
                    Rule::Order,
                    format!("panda's {status} before gorilla's approval"),
                ))
            }
            (BrainName::Panda, RestartStatus::Completed) => RestartState::Completed,
            (BrainName::Panda, RestartStatus::Failed) => RestartState::Failed,
            (BrainName::Panda, _) => {
                return Err(Refusal::new(
                    Rule::Order,
                    format!("panda's step is completed or failed, not {status}"),
                ))
            }
        };
        self.steps.push((event.id, author, step));
        self.state = next;
        Ok(())
    }
}

#[cfg(test)]
mod robust;
#[cfg(test)]
mod tests;
