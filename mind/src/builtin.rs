//! [`BuiltIn`]: the deterministic mind behind the [`Mind`] trait. Offline, instant, and the
//! stand-in whenever a model's answer cannot be used.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::writer::{self, Written};
use super::{
    brain, ActAsk, BoxFuture, DistilAsk, Distilled, DraftAsk, EvaluationAsk, Mind, OpinionAsk,
    Proposal, ReviewAsk, Thought,
};
use soul_kinds::{Evaluation, Opinion, Review};

/// The built-in mind.
#[derive(Debug, Clone, Copy, Default)]
pub struct BuiltIn;

/// The label every built-in thought carries.
pub const LABEL: &str = "built-in";

impl BuiltIn {
    /// The opinion, synchronously (the model mind's fallback uses it too).
    pub fn opinion_now(ask: &OpinionAsk<'_>) -> Opinion {
        brain::opinion(&ask.brain)
    }

    /// The lesson a failed job or a good day teaches, from its log alone (see [`crate::distil`]).
    pub fn distil_now(ask: &DistilAsk<'_>) -> Distilled {
        crate::distil::lesson(ask)
    }

    /// The post the built-in writer makes of the ask, from its seed.
    pub fn draft_now(ask: &DraftAsk<'_>) -> Option<Written> {
        let mut rng = ChaCha8Rng::seed_from_u64(ask.seed);
        writer::write(&ask.input, &mut rng, ask.accept)
    }

    /// The built-in review is the patterns' verdict: the built-in mind has no judgement of its
    /// own beyond the NG rules.
    pub fn review_now(ask: &ReviewAsk<'_>) -> Review {
        ask.found.clone()
    }

    /// The evaluation from the target's record (see [`brain::evaluate`]).
    pub fn evaluate_now(ask: &EvaluationAsk<'_>) -> Evaluation {
        brain::evaluate(
            ask.evaluator,
            ask.evaluator_params,
            ask.target,
            ask.target_params,
            ask.cycle,
            ask.history,
        )
    }
}

impl Mind for BuiltIn {
    fn label(&self) -> String {
        LABEL.into()
    }

    fn opinion<'a>(&'a self, ask: &'a OpinionAsk<'a>) -> BoxFuture<'a, Thought<Opinion>> {
        Box::pin(async move { Thought::timed(LABEL, || Self::opinion_now(ask)) })
    }

    fn propose<'a>(&'a self, ask: &'a ActAsk<'a>) -> BoxFuture<'a, Thought<Proposal>> {
        Box::pin(async move { Thought::instant(LABEL, ask.default.clone()) })
    }

    fn converse<'a>(&'a self, ask: &'a crate::ConverseAsk<'a>) -> BoxFuture<'a, Thought<String>> {
        Box::pin(async move { Thought::instant(LABEL, crate::converse::built_in(ask)) })
    }

    fn reply<'a>(&'a self, ask: &'a crate::ReplyAsk<'a>) -> BoxFuture<'a, Thought<Option<String>>> {
        Box::pin(async move { Thought::instant(LABEL, crate::conversation::built_in(ask)) })
    }

    fn distil<'a>(&'a self, ask: &'a DistilAsk<'a>) -> BoxFuture<'a, Option<Thought<Distilled>>> {
        Box::pin(async move { Some(Thought::instant(LABEL, Self::distil_now(ask))) })
    }

    fn draft<'a>(&'a self, ask: &'a DraftAsk<'a>) -> BoxFuture<'a, Thought<Option<Written>>> {
        Box::pin(async move { Thought::timed(LABEL, || Self::draft_now(ask)) })
    }

    fn review<'a>(&'a self, ask: &'a ReviewAsk<'a>) -> BoxFuture<'a, Thought<Review>> {
        Box::pin(async move { Thought::instant(LABEL, Self::review_now(ask)) })
    }

    fn evaluate<'a>(&'a self, ask: &'a EvaluationAsk<'a>) -> BoxFuture<'a, Thought<Evaluation>> {
        Box::pin(async move { Thought::instant(LABEL, Self::evaluate_now(ask)) })
    }
}
