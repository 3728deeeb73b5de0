//! The guardian and the gate of one host, as one call: every proposal that would act (an
//! execution, a worker's command, a resident's post) goes through [`Guardian::decide`].

use std::sync::Arc;

use nostr::PublicKey;
use soul_kinds::{GuardAction, Roster};

use super::{judge, Access, Check, Gate, GuardRules, Verdict};
use crate::mind::{Proposal, Shape, Thought};

/// The guardian's rules and the gate over the owner-signed roster, built once per host and
/// shared by every agent in it (a thousand residents share one).
#[derive(Debug, Clone)]
pub struct Guardian {
    rules: Arc<GuardRules>,
    gate: Arc<Gate>,
}

impl Guardian {
    /// The guardian of a host whose minds carry `rules` and `auth`, over `roster`.
    pub fn new(minds: &crate::mind::Minds, roster: Roster) -> Self {
        Self {
            rules: Arc::clone(&minds.guard),
            gate: Arc::new(Gate::new((*minds.auth).clone(), roster)),
        }
    }

    /// Judges `thought` for `actor` about to use `tool`: the guardian's ordered checks, then,
    /// unless they blocked, the gate, which sees only who acts and which tool. A proposal that
    /// is not a tool call acts on nothing and is blocked. Fails closed: the gate's denial
    /// becomes a BLOCK.
    pub fn decide(
        &self,
        thought: &Thought<Proposal>,
        tool: &str,
        actor: &PublicKey,
    ) -> (Verdict, Option<Access>) {
        let mut verdict = match &thought.value.shape {
            Shape::Tool(_) => judge(&thought.value, &self.rules, soul_karma::now_secs()),
            _ => Verdict::new(
                GuardAction::Block,
                Check::Consistency,
                format!("the mind proposed no action: {}", thought.value.summary()),
            ),
        };
        if verdict.action == GuardAction::Block {
            return (verdict, None);
        }
        let access = self.gate.check(actor, tool);
        if let Access::Denied(why) = &access {
            verdict = Verdict::new(GuardAction::Block, Check::Authorization, why.clone());
        }
        (verdict, Some(access))
    }
}
