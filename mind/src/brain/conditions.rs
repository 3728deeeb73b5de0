//! Rounds 2 and 3: a brain answers the conditions the others attached to their yes.
//!
//! Two yes votes agree only when each has taken up the other's conditions
//! ([`soul_kinds::agreement`]). So a brain that ends a later round on yes reads every other
//! brain's latest `approve_with_modification` and either takes its conditions up (naming that
//! brain in `accepts` and quoting the conditions in its approach; its vote stays its own, so a
//! plain `approve` adds no conditions for the others to take up in turn) or holds, saying why
//! in its own terms. A brain keeps conditions it took up before, takes up conditions that rest
//! only on concerns it raises itself (they ask nothing new of it); otherwise it takes
//! them up with probability `0.35 + 0.35 × flexibility + 0.3 × safety` (0.15 more in round 3,
//! when the alternative is mediation), drawn from its own seeded stream.

use rand::Rng;
use soul_kinds::{BrainName, Opinion, Vote};

use super::lean::clamp_params;
use super::opinion::BrainContext;
use super::persuade::latest_of_others;
use super::voice;
use super::{clip, rng, Language, Purpose};

/// Longest quote of another brain's conditions.
const MAX_CONDITIONS: usize = 240;

/// How a brain answers the others' conditions.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Answer {
    /// The brains whose conditions it takes up.
    pub accepts: Vec<BrainName>,
    /// Their conditions, quoted, to append to its own approach.
    pub taken: Vec<String>,
    /// What it says about them (quoting each).
    pub sentences: Vec<String>,
}

/// How `ctx`'s brain, voting `vote` this round with concerns `mine`, answers the latest
/// conditions of the others.
pub(crate) fn answer(ctx: &BrainContext, vote: Vote, mine: &[String]) -> Answer {
    let mut out = Answer::default();
    if ctx.round <= 1 || !vote.is_yes() {
        return out;
    }
    let language = ctx.features.language;
    let p = clamp_params(ctx.params);
    let mut chance = 0.35 + 0.35 * p.consensus_flexibility + 0.3 * p.safety_weight;
    if ctx.round >= 3 {
        chance += 0.15;
    }
    let mut draws = rng(ctx.task_id, ctx.brain, ctx.round, Purpose::Conditions);
    for (other, theirs) in latest_conditions(ctx.brain, ctx.previous) {
        let draw: f64 = draws.random();
        // Conditions that rest only on concerns this brain raises itself ask nothing new of it.
        let shared =
            !theirs.concerns.is_empty() && theirs.concerns.iter().all(|c| mine.contains(c));
        let before = took_up_before(ctx.brain, other, ctx.previous) || shared;
        let conditions = conditions_of(theirs);
        let who = voice::name(other, language);
        if before || draw < chance {
            out.accepts.push(other);
            out.sentences.push(match language {
                Language::En => format!("I take up {who}'s conditions: \"{conditions}\"."),
                Language::Ja => format!("{who}の条件を受け入れます：「{conditions}」。"),
            });
            out.taken.push(conditions);
        } else {
            out.sentences
                .push(held(ctx.brain, who, &conditions, language));
        }
    }
    out
}

/// The other brains whose latest opinion is an `approve_with_modification`, by name.
fn latest_conditions(
    me: BrainName,
    previous: &[(BrainName, Opinion)],
) -> Vec<(BrainName, &Opinion)> {
    let mut latest = latest_of_others(me, previous);
    latest.retain(|(_, o)| o.vote == Vote::ApproveWithModification);
    latest
}

/// Whether `me` took up `other`'s conditions in an earlier round.
fn took_up_before(me: BrainName, other: BrainName, previous: &[(BrainName, Opinion)]) -> bool {
    previous
        .iter()
        .any(|(b, o)| *b == me && o.accepts.contains(&other))
}

/// The conditions of an `approve_with_modification`: its approach, else its concerns.
fn conditions_of(o: &Opinion) -> String {
    let text = if o.proposed_approach.trim().is_empty() {
        o.concerns.join("; ")
    } else {
        o.proposed_approach.replace('\n', " ")
    };
    clip(text.trim(), MAX_CONDITIONS)
}

/// A brain holding out against another's conditions, in its own terms.
fn held(me: BrainName, who: &str, conditions: &str, language: Language) -> String {
    match (language, me) {
        (Language::En, BrainName::Panda) => format!(
            "I do not take up {who}'s conditions (\"{conditions}\"): they leave my concerns open."
        ),
        (Language::En, BrainName::Gorilla) => format!(
            "I do not take up {who}'s conditions (\"{conditions}\"): they would slow the work more than they protect it."
        ),
        (Language::En, BrainName::Triceratops) => format!(
            "I do not take up {who}'s conditions (\"{conditions}\") yet: they go beyond what the task needs."
        ),
        (Language::Ja, BrainName::Panda) => {
            format!("{who}の条件（「{conditions}」）は受け入れません。私の懸念が残るからです。")
        }
        (Language::Ja, BrainName::Gorilla) => {
            format!("{who}の条件（「{conditions}」）は受け入れません。守りより遅れの方が大きいからです。")
        }
        (Language::Ja, BrainName::Triceratops) => {
            format!("{who}の条件（「{conditions}」）はまだ受け入れません。この件に必要な範囲を超えているからです。")
        }
    }
}
