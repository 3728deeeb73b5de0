//! [`BuiltIn`]: the deterministic mind behind the [`Mind`] trait. Offline, instant, and the
//! stand-in whenever a model's answer cannot be used.

use std::time::Instant;

use super::{brain, ActAsk, BoxFuture, DistilAsk, Distilled, Mind, OpinionAsk, Proposal, Thought};
use soul_kinds::Opinion;

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

    /// The lesson a failed or finished job teaches, from its log alone.
    pub fn distil_now(ask: &DistilAsk<'_>) -> Distilled {
        let log: String = ask.log.split_whitespace().collect::<Vec<_>>().join(" ");
        let log: String = log.chars().take(400).collect();
        Distilled {
            lesson: format!(
                "A {} went wrong before: {log}. Check for this before trying again.",
                ask.kind
            ),
            topic: ask.kind.chars().take(64).collect(),
            weight: 60,
        }
    }
}

impl Mind for BuiltIn {
    fn label(&self) -> String {
        LABEL.into()
    }

    fn opinion<'a>(&'a self, ask: &'a OpinionAsk<'a>) -> BoxFuture<'a, Thought<Opinion>> {
        Box::pin(async move {
            let start = Instant::now();
            let value = Self::opinion_now(ask);
            Thought {
                value,
                mind: LABEL.into(),
                fallback: None,
                millis: start.elapsed().as_millis() as u64,
            }
        })
    }

    fn propose<'a>(&'a self, ask: &'a ActAsk<'a>) -> BoxFuture<'a, Thought<Proposal>> {
        Box::pin(async move { Thought::instant(LABEL, ask.default.clone()) })
    }

    fn distil<'a>(&'a self, ask: &'a DistilAsk<'a>) -> BoxFuture<'a, Option<Thought<Distilled>>> {
        Box::pin(async move { Some(Thought::instant(LABEL, Self::distil_now(ask))) })
    }
}
