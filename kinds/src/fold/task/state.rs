//! The task fold's result: status, state and refusals, and the 2-of-3 rule.

use crate::fold::Refusal;
use std::collections::BTreeMap;
use std::fmt;

use nostr::EventId;
use serde::{Deserialize, Serialize};

use crate::content::{Announcement, Decision, Execution, Opinion, Outcome, Tally, Task, Vote};
use crate::role::BrainName;

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The brains are giving opinions; no decision yet.
    Discussing,
    /// Approved; waiting for triceratops's announcement.
    PendingAnnouncement,
    /// Announced; waiting for execution to start.
    Announced,
    /// Execution under way.
    Executing,
    /// Done. Final.
    Completed,
    /// Execution failed. Final.
    Failed,
    /// The decision rejected the task. Final.
    Rejected,
    /// Approved, but nothing the town has can carry it out: the owner is told what would be
    /// needed. Final.
    NeedsOwner,
}

impl TaskStatus {
    /// Every status, in order of progress.
    pub const ALL: &'static [TaskStatus] = &[
        TaskStatus::Discussing,
        TaskStatus::PendingAnnouncement,
        TaskStatus::Announced,
        TaskStatus::Executing,
        TaskStatus::Completed,
        TaskStatus::Failed,
        TaskStatus::Rejected,
        TaskStatus::NeedsOwner,
    ];

    /// The snake_case name, as in JSON and `soul status`.
    pub const fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Discussing => "discussing",
            TaskStatus::PendingAnnouncement => "pending_announcement",
            TaskStatus::Announced => "announced",
            TaskStatus::Executing => "executing",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Rejected => "rejected",
            TaskStatus::NeedsOwner => "needs_owner",
        }
    }

    /// Whether nothing can change the status any more.
    pub const fn is_final(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed
                | TaskStatus::Failed
                | TaskStatus::Rejected
                | TaskStatus::NeedsOwner
        )
    }
}

impl fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An event the fold refused, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    /// The refused event.
    pub event_id: EventId,
    /// Which rule it broke, and the particulars.
    pub reason: Refusal,
}

/// A task's state, as the accepted events say.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskState {
    /// The task event's id.
    pub task_id: EventId,
    /// The task's content.
    pub task: Task,
    /// Where it stands.
    pub status: TaskStatus,
    /// Accepted opinions: round → brain → (event id, opinion).
    pub rounds: BTreeMap<u8, BTreeMap<BrainName, (EventId, Opinion)>>,
    /// The accepted decision.
    pub decision: Option<(EventId, Decision)>,
    /// The accepted announcement.
    pub announcement: Option<(EventId, Announcement)>,
    /// Accepted execution events, in order.
    pub executions: Vec<(EventId, Execution)>,
}

impl TaskState {
    /// The round the debate is in: the highest round with an accepted opinion, 1 before any.
    pub fn current_round(&self) -> u8 {
        self.rounds.keys().next_back().copied().unwrap_or(1)
    }

    /// Whether `brain` has an accepted opinion in `round`.
    pub fn has_voted(&self, brain: BrainName, round: u8) -> bool {
        self.rounds
            .get(&round)
            .is_some_and(|votes| votes.contains_key(&brain))
    }

    /// The votes of the accepted opinions in `round`.
    pub fn tally(&self, round: u8) -> Tally {
        count(
            self.rounds
                .get(&round)
                .into_iter()
                .flat_map(|votes| votes.values().map(|(_, o)| o)),
        )
    }
}

/// The 2-of-3 rule: two yes approve, two rejects reject, anything else decides nothing. A tally
/// claiming both majorities (impossible with three voters) decides nothing either.
pub fn decide(tally: Tally) -> Option<Outcome> {
    match (tally.yes >= 2, tally.reject >= 2) {
        (true, false) => Some(Outcome::Approved),
        (false, true) => Some(Outcome::Rejected),
        _ => None,
    }
}

/// Whether a round's opinions agree (issue 14): two rejects reject; two yes votes approve only
/// when each has taken up the other's conditions — a plain `approve` has none, an
/// `approve_with_modification` is taken up by naming its brain in `accepts`. Anything else is
/// not yet agreement: the debate goes on to the next round, and after round 3 triceratops
/// mediates. The 2-of-3 count ([`decide`]) is what the fold checks a decision against; this is
/// the stricter rule the brains follow before gorilla declares one.
pub fn agreement(opinions: &[(BrainName, &Opinion)]) -> Option<Outcome> {
    let rejects = opinions.iter().filter(|(_, o)| !o.vote.is_yes()).count();
    if rejects >= 2 {
        return Some(Outcome::Rejected);
    }
    let yes: Vec<&(BrainName, &Opinion)> =
        opinions.iter().filter(|(_, o)| o.vote.is_yes()).collect();
    let takes_up = |taker: &(BrainName, &Opinion), giver: &(BrainName, &Opinion)| {
        giver.1.vote != Vote::ApproveWithModification || taker.1.accepts.contains(&giver.0)
    };
    let agreed = yes.iter().enumerate().any(|(i, a)| {
        yes[i + 1..]
            .iter()
            .any(|b| takes_up(a, b) && takes_up(b, a))
    });
    agreed.then_some(Outcome::Approved)
}

pub(super) fn count<'a>(opinions: impl Iterator<Item = &'a Opinion>) -> Tally {
    opinions.fold(Tally::default(), |mut t, o| {
        if o.vote.is_yes() {
            t.yes = t.yes.saturating_add(1);
        } else {
            t.reject = t.reject.saturating_add(1);
        }
        t
    })
}
