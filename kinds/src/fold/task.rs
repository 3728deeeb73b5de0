//! The task fold: a task's debate, decision, announcement and execution (DESIGN §6).
//!
//! Status: `discussing` → (decision) `pending_announcement` → `announced` → `executing` →
//! `completed` | `failed`, or `discussing` → (decision) `rejected`. DESIGN's "decided" moment is
//! the decision event itself, so it is not a status of its own.
//!
//! Order: related events are sorted by `(created_at, stage, id)`, where the stage is the causal
//! step of the event (opinions by round, decision, announcement, `executing`, then
//! `completed`/`failed`). Sorting by `(created_at, id)` alone, as first specified, would let the
//! random id decide between two events of the same second, e.g. refuse a decision published in the
//! same second as the last opinion it counts. The stage only breaks such ties; it is still a total
//! order on the input, so the result does not depend on the order events arrived in.
//!
//! Scope: only opinions, decisions, announcements and executions take part. Other events that
//! happen to reference the task (restart steps, audit verdicts, replies) are skipped without a
//! [`Rejected`] entry: they are not wrong, just not this fold's business. Who may publish the task
//! itself (the owner, or a brain relaying for them) is the relay policy's check, not this fold's.

use crate::fold::{Refusal, Rule};
use std::collections::{BTreeMap, BTreeSet};

use nostr::{Event, EventId};

use crate::content::{parse, Announcement, Decision, ExecStatus, Execution, Opinion, Outcome};
use crate::error::Error;
use crate::kind::SoulKind;
use crate::role::BrainName;
use crate::roster::Brains;
use crate::tags::{refs_besides, round_of, task_ref};

mod state;

use state::count;
pub use state::{agreement, decide, Rejected, TaskState, TaskStatus};

/// A related event's parsed content.
enum Step {
    Opinion(Opinion),
    Decision(Decision),
    Announcement(Announcement),
    Execution(Execution),
}

/// Parse an event the fold cares about; `None` for every other kind.
fn read(event: &Event) -> Option<Result<Step, Error>> {
    Some(match SoulKind::from_kind(event.kind)? {
        SoulKind::Opinion => parse(event).map(Step::Opinion),
        SoulKind::Decision => parse(event).map(Step::Decision),
        SoulKind::Announcement => parse(event).map(Step::Announcement),
        SoulKind::Execution => parse(event).map(Step::Execution),
        _ => return None,
    })
}

/// The causal step used to break `created_at` ties (see the module docs).
fn stage(step: &Result<Step, Error>) -> u8 {
    match step {
        Ok(Step::Opinion(o)) => o.round.min(3),
        Ok(Step::Decision(_)) => 4,
        Ok(Step::Announcement(_)) => 5,
        Ok(Step::Execution(x)) if x.status == ExecStatus::Executing => 6,
        Ok(Step::Execution(_)) => 7,
        Err(_) => 8,
    }
}

/// Fold a task and the events about it into its state.
///
/// `Err` only if `task` itself is not a valid task event; every problem with a related event
/// becomes a [`Rejected`] entry and the event is ignored. Duplicate events (same id) count once.
pub fn fold_task(
    task: &Event,
    related: &[Event],
    brains: &Brains,
) -> Result<(TaskState, Vec<Rejected>), Error> {
    let mut state = TaskState {
        task_id: task.id,
        task: parse(task)?,
        status: TaskStatus::Discussing,
        rounds: BTreeMap::new(),
        decision: None,
        announcement: None,
        executions: Vec::new(),
    };
    let mut seen = BTreeSet::new();
    let mut steps: Vec<(&Event, Result<Step, Error>)> = related
        .iter()
        .filter(|e| seen.insert(e.id))
        .filter_map(|e| read(e).map(|step| (e, step)))
        .collect();
    steps.sort_by_key(|(e, step)| (e.created_at, stage(step), e.id));

    let mut rejected = Vec::new();
    for (event, step) in steps {
        let outcome = if task_ref(event) != Some(task.id) {
            Err(Refusal::new(
                Rule::Reference,
                "does not reference this task as its root",
            ))
        } else {
            match step {
                Err(e) => Err(Refusal::new(
                    Rule::Content,
                    format!("unreadable content: {e}"),
                )),
                Ok(step) => state.apply(event, step, brains),
            }
        };
        if let Err(reason) = outcome {
            rejected.push(Rejected {
                event_id: event.id,
                reason,
            });
        }
    }
    Ok((state, rejected))
}

impl TaskState {
    fn apply(&mut self, event: &Event, step: Step, brains: &Brains) -> Result<(), Refusal> {
        let author = brains.name_of(&event.pubkey);
        match step {
            Step::Opinion(o) => self.opinion(event, author, o),
            Step::Decision(d) => self.decide(event, author, d),
            Step::Announcement(a) => self.announce(event, author, a),
            Step::Execution(x) => self.execute(event, author, x),
        }
    }

    fn opinion(
        &mut self,
        ev: &Event,
        author: Option<BrainName>,
        o: Opinion,
    ) -> Result<(), Refusal> {
        let brain =
            author.ok_or_else(|| Refusal::new(Rule::Author, "opinion author is not a brain"))?;
        let round = o.round;
        if o.accepts.contains(&brain) {
            return Err(Refusal::new(
                Rule::Inconsistent,
                format!("{brain} takes up its own conditions"),
            ));
        }
        if let Some(tagged) = round_of(ev).filter(|&r| r != round) {
            return Err(Refusal::new(
                Rule::Inconsistent,
                format!("round tag says {tagged} but content says {round}"),
            ));
        }
        if self.decision.is_some() {
            return Err(Refusal::new(Rule::Order, "opinion after the decision"));
        }
        if self.has_voted(brain, round) {
            return Err(Refusal::new(
                Rule::Duplicate,
                format!("second opinion by {brain} in round {round}"),
            ));
        }
        if round > 1 && self.rounds.get(&(round - 1)).is_none_or(BTreeMap::is_empty) {
            let prev = round - 1;
            return Err(Refusal::new(
                Rule::Order,
                format!("round {round} opinion while round {prev} has none"),
            ));
        }
        let votes = self.rounds.entry(round).or_default();
        votes.insert(brain, (ev.id, o));
        Ok(())
    }

    fn decide(
        &mut self,
        ev: &Event,
        author: Option<BrainName>,
        d: Decision,
    ) -> Result<(), Refusal> {
        match (author, d.mediated) {
            (Some(BrainName::Gorilla), _) | (Some(BrainName::Triceratops), true) => {}
            _ => {
                return Err(Refusal::new(
                    Rule::Author,
                    "decision author must be gorilla (or triceratops mediating)",
                ))
            }
        }
        if self.decision.is_some() {
            return Err(Refusal::new(Rule::Duplicate, "second decision"));
        }
        if d.mediated && d.round != 3 {
            return Err(Refusal::new(
                Rule::Inconsistent,
                format!("mediated decision in round {}, not 3", d.round),
            ));
        }
        let cited = refs_besides(ev, self.task_id);
        if cited.is_empty() {
            return Err(Refusal::new(
                Rule::Inconsistent,
                "decision counts no opinions",
            ));
        }
        let accepted = self.rounds.get(&d.round);
        let mut counted = Vec::with_capacity(cited.len());
        let mut unique = BTreeSet::new();
        for id in cited {
            if !unique.insert(id) {
                return Err(Refusal::new(
                    Rule::Duplicate,
                    format!("decision counts opinion {id} twice"),
                ));
            }
            let opinion = accepted
                .and_then(|votes| votes.values().find(|(oid, _)| *oid == id))
                .ok_or_else(|| {
                    Refusal::new(
                        Rule::Reference,
                        format!("{id} is not an accepted opinion of round {}", d.round),
                    )
                })?;
            counted.push(&opinion.1);
        }
        let tally = count(counted.into_iter());
        if tally != d.tally {
            return Err(Refusal::new(
                Rule::Inconsistent,
                format!(
                    "claimed tally {}/{} but the counted opinions give {}/{} (yes/reject)",
                    d.tally.yes, d.tally.reject, tally.yes, tally.reject
                ),
            ));
        }
        if !d.mediated && decide(tally) != Some(d.outcome) {
            return Err(Refusal::new(
                Rule::Inconsistent,
                format!(
                    "outcome {} does not follow from {} yes / {} reject without mediation",
                    d.outcome.as_str(),
                    tally.yes,
                    tally.reject
                ),
            ));
        }
        self.status = match d.outcome {
            Outcome::Approved => TaskStatus::PendingAnnouncement,
            Outcome::Rejected => TaskStatus::Rejected,
        };
        self.decision = Some((ev.id, d));
        Ok(())
    }

    /// The accepted decision, if it approved; `what` names the event for the reason.
    fn approved_decision(&self, what: &str) -> Result<EventId, Refusal> {
        match &self.decision {
            None => Err(Refusal::new(
                Rule::Order,
                format!("{what} before a decision"),
            )),
            Some((_, d)) if d.outcome == Outcome::Rejected => Err(Refusal::new(
                Rule::Order,
                format!("{what} of a rejected decision"),
            )),
            Some((id, _)) => Ok(*id),
        }
    }

    /// The first `e` besides the task must be the accepted decision.
    fn check_decision_ref(&self, ev: &Event, decision: EventId) -> Result<(), Refusal> {
        match refs_besides(ev, self.task_id).first() {
            Some(id) if *id == decision => Ok(()),
            Some(id) => Err(Refusal::new(
                Rule::Reference,
                format!("references decision {id}, not {decision}"),
            )),
            None => Err(Refusal::new(
                Rule::Reference,
                "has no `e` tag for the decision",
            )),
        }
    }

    fn announce(
        &mut self,
        ev: &Event,
        author: Option<BrainName>,
        a: Announcement,
    ) -> Result<(), Refusal> {
        if author != Some(BrainName::Triceratops) {
            return Err(Refusal::new(
                Rule::Author,
                "announcement author must be triceratops",
            ));
        }
        let decision = self.approved_decision("announcement")?;
        if self.announcement.is_some() {
            return Err(Refusal::new(Rule::Duplicate, "second announcement"));
        }
        self.check_decision_ref(ev, decision)?;
        self.announcement = Some((ev.id, a));
        self.status = TaskStatus::Announced;
        Ok(())
    }

    /// Executions carry the same `e` decision as announcements (their builder writes it), so the
    /// fold checks it the same way, although the first contract only named it for announcements.
    fn execute(
        &mut self,
        ev: &Event,
        author: Option<BrainName>,
        x: Execution,
    ) -> Result<(), Refusal> {
        if author != Some(BrainName::Triceratops) {
            return Err(Refusal::new(
                Rule::Author,
                "execution author must be triceratops",
            ));
        }
        let decision = self.approved_decision("execution")?;
        if self.announcement.is_none() {
            return Err(Refusal::new(
                Rule::Order,
                "execution before the announcement",
            ));
        }
        self.check_decision_ref(ev, decision)?;
        let next = match (self.status, x.status) {
            (s, _) if s.is_final() => {
                return Err(Refusal::new(
                    Rule::Order,
                    format!("execution after the task {s}"),
                ))
            }
            (TaskStatus::Announced, ExecStatus::Executing) => TaskStatus::Executing,
            (TaskStatus::Executing, ExecStatus::Completed) => TaskStatus::Completed,
            (TaskStatus::Executing, ExecStatus::NeedsOwner) => TaskStatus::NeedsOwner,
            (TaskStatus::Executing, ExecStatus::Failed) => TaskStatus::Failed,
            (s, ExecStatus::Executing) => {
                return Err(Refusal::new(
                    Rule::Order,
                    format!("executing only follows announced, status is {s}"),
                ))
            }
            (s, done) => {
                return Err(Refusal::new(
                    Rule::Order,
                    format!("{} only follows executing, status is {s}", done.as_str()),
                ))
            }
        };
        self.executions.push((ev.id, x));
        self.status = next;
        Ok(())
    }
}

#[cfg(test)]
mod rule_tests;
#[cfg(test)]
mod tests;
