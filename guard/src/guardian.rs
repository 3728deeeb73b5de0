//! The guardian and the gate of one host, as one call: every proposal that would act (an
//! execution, a worker's command, a resident's post) goes through [`Guardian::decide`].

use std::sync::Arc;

use nostr::PublicKey;
use soul_kinds::{GuardAction, Roster};

use super::{judge_with, Access, AuthRules, Check, Facts, Gate, GuardRules, Verdict};
use soul_proposal::{Proposal, Shape, Thought};

/// The guardian's rules and the gate over the owner-signed roster, built once per host and
/// shared by every agent in it (a thousand residents share one).
#[derive(Debug, Clone)]
pub struct Guardian {
    rules: Arc<GuardRules>,
    gate: Arc<Gate>,
}

impl Guardian {
    /// The guardian judging by `rules`, with the gate's `auth` rules over `roster`.
    pub fn new(rules: Arc<GuardRules>, auth: &AuthRules, roster: Roster) -> Self {
        Self {
            rules,
            gate: Arc::new(Gate::new(auth.clone(), roster)),
        }
    }

    /// Judges `thought` for `actor` about to use `tool`: see [`Guardian::decide_with`].
    pub fn decide(
        &self,
        thought: &Thought<Proposal>,
        tool: &str,
        actor: &PublicKey,
    ) -> (Verdict, Option<Access>) {
        self.decide_with(thought, &[(tool, *actor)], &Facts::default())
    }

    /// Judges `thought`: the guardian's ordered checks (weighing `facts`, what the caller knows
    /// the call would do), and the gate for every `(action, actor)` in `gated` — the tool, and
    /// the action a skill performs, each for whoever answers for it. The gate sees only who
    /// and which action, never the mind's words, and runs even when the guardian blocked, so
    /// the audit says whether the actor could have done it at all (seed 003: a salary request
    /// is DENIED). A proposal that says something instead of acting is blocked; a clarifying
    /// question goes to the owner. Fails closed: any denial becomes a BLOCK.
    pub fn decide_with(
        &self,
        thought: &Thought<Proposal>,
        gated: &[(&str, PublicKey)],
        facts: &Facts,
    ) -> (Verdict, Option<Access>) {
        let mut verdict = match &thought.value.shape {
            Shape::Tool(_) | Shape::Clarify { .. } => {
                judge_with(&thought.value, facts, &self.rules, soul_karma::now_secs())
            }
            Shape::Text(_) => Verdict::new(
                GuardAction::Block,
                Check::Consistency,
                "the mind proposed no action, only words",
            )
            .with_detail(thought.value.summary()),
        };
        let mut access = None;
        for (action, actor) in gated {
            let a = self.gate.check(actor, action);
            let denied = !a.allowed();
            access = Some(a);
            if denied {
                break;
            }
        }
        if let Some(Access::Denied(why)) = &access {
            if verdict.action != GuardAction::Block {
                verdict = Verdict::new(GuardAction::Block, Check::Authorization, why.clone());
            }
        }
        (verdict, access)
    }
}
