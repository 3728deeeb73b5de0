//! The evaluation fold: one cycle of the brains' mutual evaluation (DESIGN §6, seed 000
//! 相互評価サイクル).
//!
//! In each cycle every brain scores the other two (4366). [`fold_cycle`] reads one cycle's
//! evaluations and says which it accepted, which it refused, and which brains must retune.
//!
//! Rules, each broken one a [`Rejected`] entry:
//! - only a brain evaluates;
//! - the target is named by exactly one `p` tag (several differing `p` tags are refused rather
//!   than guessed between), and it is a brain;
//! - no brain evaluates itself;
//! - one evaluation per (evaluator, target) per cycle: the first in fold order counts, later ones
//!   are refused;
//! - a `cycle` tag, when present, agrees with the content's `cycle` (the builder writes both; a
//!   missing tag is tolerated, like a missing `round` tag on an opinion).
//!
//! Scope: an evaluation belongs to the cycle when its `cycle` tag or its content says so. Others
//! are other cycles' business and are skipped silently, as are events of other kinds; an
//! unreadable evaluation is refused only when its tag puts it in this cycle.
//!
//! Retuning: a brain retunes when 2 of 3 brains say so. Since nobody evaluates itself, those two
//! are exactly the two other brains: both accepted evaluations must say `needs_retuning`. The new
//! params are the mean of the two proposals, each field clamped to [0, 1]; when only one of them
//! proposes params, its proposal is used; when neither does, there is no [`Retune`] (the agreement
//! stands, but there is nothing to apply, and neither evaluation is wrong, so nothing is refused).
//!
//! Order: evaluations are sorted by `(created_at, stage, id)` as in the task fold; readable ones
//! come before unreadable ones in the same second. The order decides which duplicate counts, and
//! it is a total order on the input, so the result does not depend on the order events arrived in.

use crate::fold::{Refusal, Rule};
use std::collections::{BTreeMap, BTreeSet};

use nostr::{Event, EventId, PublicKey};

use super::Rejected;
use crate::content::{parse, Evaluation, Params, SoulContent};
use crate::error::Error;
use crate::kind::SoulKind;
use crate::role::BrainName;
use crate::roster::Brains;
use crate::tags::{value_of, CYCLE};

/// Two brains agree that a third must retune, and the params it should take.
#[derive(Debug, Clone, PartialEq)]
pub struct Retune {
    /// The brain that retunes.
    pub target: BrainName,
    /// The two brains that asked for it, in [`BrainName::ALL`] order.
    pub by: [BrainName; 2],
    /// The mean of their proposals (or the one proposal), each field clamped to [0, 1].
    pub params: Params,
    /// Their non-empty reasons, in the order of `by`.
    pub reasons: Vec<String>,
    /// Their two evaluation events, in the order of `by`.
    pub evaluations: Vec<EventId>,
}

/// An accepted evaluation: evaluator, target, event id and content.
pub type AcceptedEvaluation = (BrainName, BrainName, EventId, Evaluation);

/// Fold one cycle's evaluations: the accepted ones in fold order, the retunes in
/// [`BrainName::ALL`] order of their targets, and the refusals in fold order.
///
/// `events` may hold anything (other cycles, other kinds, duplicates); see the module docs for
/// what is skipped and what is refused. Never panics.
pub fn fold_cycle(
    cycle: &str,
    events: &[Event],
    brains: &Brains,
) -> (Vec<AcceptedEvaluation>, Vec<Retune>, Vec<Rejected>) {
    let mut seen = BTreeSet::new();
    let mut mine: Vec<(&Event, Result<Evaluation, Error>)> = events
        .iter()
        .filter(|e| seen.insert(e.id))
        .filter(|e| SoulKind::from_kind(e.kind) == Some(SoulKind::Evaluation))
        .map(|e| (e, parse::<Evaluation>(e)))
        .filter(|(e, content)| {
            value_of(e, CYCLE) == Some(cycle) || content.as_ref().is_ok_and(|c| c.cycle == cycle)
        })
        .collect();
    mine.sort_by_key(|(e, content)| (e.created_at, u8::from(content.is_err()), e.id));

    let mut accepted: Vec<AcceptedEvaluation> = Vec::new();
    let mut rejected = Vec::new();
    for (event, content) in mine {
        match check(event, content, brains, &accepted) {
            Ok(entry) => accepted.push(entry),
            Err(reason) => rejected.push(Rejected {
                event_id: event.id,
                reason,
            }),
        }
    }
    let retunes = retunes(&accepted);
    (accepted, retunes, rejected)
}

/// Whether a brain may move from `current` to `new`: every field of `new` within [0, 1] (and a
/// number). The step size is deliberately not limited, so a brain whose params are out of bounds
/// (edited by hand) can always be brought back; `current` is taken so that callers already pass
/// it should a step limit ever be agreed on.
pub fn params_change_allowed(_current: &Params, new: &Params) -> bool {
    new.validate().is_ok()
}

/// Check one evaluation of this cycle against the rules and the ones accepted before it.
fn check(
    event: &Event,
    content: Result<Evaluation, Error>,
    brains: &Brains,
    accepted: &[AcceptedEvaluation],
) -> Result<AcceptedEvaluation, Refusal> {
    let content =
        content.map_err(|e| Refusal::new(Rule::Content, format!("unreadable content: {e}")))?;
    if let Some(tag) = value_of(event, CYCLE).filter(|t| *t != content.cycle) {
        return Err(Refusal::new(
            Rule::Inconsistent,
            format!(
                "cycle tag says {tag:?} but content says {:?}",
                content.cycle
            ),
        ));
    }
    let by = brains
        .name_of(&event.pubkey)
        .ok_or_else(|| Refusal::new(Rule::Author, "evaluation author is not a brain"))?;
    let target = target(event, brains)?;
    if by == target {
        return Err(Refusal::new(Rule::Author, format!("{by} evaluates itself")));
    }
    if accepted.iter().any(|(b, t, _, _)| (*b, *t) == (by, target)) {
        return Err(Refusal::new(
            Rule::Duplicate,
            format!(
                "second evaluation of {target} by {by} in cycle {:?}",
                content.cycle
            ),
        ));
    }
    Ok((by, target, event.id, content))
}

/// The brain the single distinct `p` tag names.
fn target(event: &Event, brains: &Brains) -> Result<BrainName, Refusal> {
    let named: BTreeSet<&str> = event
        .tags
        .iter()
        .filter_map(|tag| match tag.as_slice() {
            [name, rest @ ..] if name == "p" => Some(rest.first().map_or("", String::as_str)),
            _ => None,
        })
        .collect();
    let mut named = named.into_iter();
    match (named.next(), named.len()) {
        (None, _) => Err(Refusal::new(
            Rule::Reference,
            "has no `p` tag naming its target",
        )),
        (Some(one), 0) => PublicKey::from_hex(one)
            .ok()
            .and_then(|key| brains.name_of(&key))
            .ok_or_else(|| Refusal::new(Rule::Author, format!("target {one:?} is not a brain"))),
        (Some(_), more) => Err(Refusal::new(
            Rule::Reference,
            format!(
                "names {} targets in `p` tags; an evaluation has exactly one",
                more + 1
            ),
        )),
    }
}

/// Every target that both other brains say must retune, with params to apply.
fn retunes(accepted: &[AcceptedEvaluation]) -> Vec<Retune> {
    let by_pair: BTreeMap<(BrainName, BrainName), (EventId, &Evaluation)> = accepted
        .iter()
        .map(|(b, t, id, e)| ((*b, *t), (*id, e)))
        .collect();
    BrainName::ALL
        .iter()
        .filter_map(|&target| {
            let mut others = BrainName::ALL.iter().copied().filter(|&b| b != target);
            let by = [others.next()?, others.next()?];
            let [a, b] = by.map(|b| by_pair.get(&(b, target)).copied());
            let ((a_id, a), (b_id, b)) = (a?, b?);
            if !(a.needs_retuning && b.needs_retuning) {
                return None;
            }
            let params = match (&a.proposed_params, &b.proposed_params) {
                (Some(x), Some(y)) => mean(x, y),
                (Some(x), None) | (None, Some(x)) => mean(x, x),
                (None, None) => return None,
            };
            let reasons = [a, b]
                .iter()
                .map(|e| e.reason.clone())
                .filter(|r| !r.is_empty())
                .collect();
            Some(Retune {
                target,
                by,
                params,
                reasons,
                evaluations: vec![a_id, b_id],
            })
        })
        .collect()
}

/// Field-wise mean, each clamped to [0, 1] (a NaN, which validation already refuses, becomes 0).
fn mean(a: &Params, b: &Params) -> Params {
    let m = |x: f64, y: f64| {
        let v = (x + y) / 2.0;
        if v.is_nan() {
            0.0
        } else {
            v.clamp(0.0, 1.0)
        }
    };
    Params {
        risk_tolerance: m(a.risk_tolerance, b.risk_tolerance),
        innovation_weight: m(a.innovation_weight, b.innovation_weight),
        safety_weight: m(a.safety_weight, b.safety_weight),
        thoroughness: m(a.thoroughness, b.thoroughness),
        consensus_flexibility: m(a.consensus_flexibility, b.consensus_flexibility),
    }
}

#[cfg(test)]
mod tests;
