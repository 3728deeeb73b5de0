//! The guardian's verdict and which check reached it.
//!
//! A verdict has two texts on purpose: `reason` goes into the public verdict event (kind 4370)
//! and therefore never quotes a parameter's value (an encrypted command's argument, an amount);
//! `detail` carries those values and goes only into the local audit row and the owner's
//! encrypted question (issue 20: a public verdict quoted a private argument and amount).

use soul_kinds::GuardAction;

use soul_proposal::ToolCall;

/// Which check decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// 1: reasoning missing, or the mind deciding permissions.
    Constitution,
    /// 2: NG or confidential patterns.
    Security,
    /// 3: the dangerous-operations registry, a skill's declared risk, what a call does.
    Dangerous,
    /// 4: the owner's rules.
    OwnerRules,
    /// 5: the mind's confidence, or the mind's own wish to confirm.
    Confidence,
    /// 6: amounts, recipients, deletions, dates.
    Parameters,
    /// 7: fixable inconsistencies.
    Consistency,
    /// The mind asked the owner a question before acting.
    Clarification,
    /// The authorization gate denied the actor.
    Authorization,
    /// The owner answered yes to a CONFIRM (twice where it was double).
    OwnerConfirmed,
    /// The owner answered no, unclearly, or not in time.
    OwnerDeclined,
    /// Everything passed.
    Pass,
}

impl Check {
    /// Its name in verdict events and audit rows.
    pub fn as_str(self) -> &'static str {
        match self {
            Check::Constitution => "constitution",
            Check::Security => "security",
            Check::Dangerous => "dangerous_operation",
            Check::OwnerRules => "owner_rules",
            Check::Confidence => "confidence",
            Check::Parameters => "parameters",
            Check::Consistency => "consistency",
            Check::Clarification => "clarification",
            Check::Authorization => "authorization",
            Check::OwnerConfirmed => "owner_confirmed",
            Check::OwnerDeclined => "owner_declined",
            Check::Pass => "pass",
        }
    }
}

/// The guardian's verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// ALLOW, CONFIRM, BLOCK or MODIFY.
    pub action: GuardAction,
    /// Which check decided.
    pub check: Check,
    /// Why, for people and for the public verdict event: never a parameter's value.
    pub reason: String,
    /// The values behind the reason (the amount, the path), for the local audit row and the
    /// owner's encrypted question only.
    pub detail: Option<String>,
    /// For CONFIRM: the question for the owner (sent encrypted; may quote values).
    pub question: Option<String>,
    /// For CONFIRM: the owner must confirm twice (high risk, everyone, big sums).
    pub double: bool,
    /// For MODIFY: the tool calls as corrected.
    pub modified: Option<Vec<ToolCall>>,
}

impl Verdict {
    pub(crate) fn new(action: GuardAction, check: Check, reason: impl Into<String>) -> Self {
        Self {
            action,
            check,
            reason: reason.into(),
            detail: None,
            question: None,
            double: false,
            modified: None,
        }
    }

    /// The same verdict with the private values behind its reason.
    pub(crate) fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    /// What settles a CONFIRM: the owner's clear yes (or two, for a double one) allows,
    /// anything else blocks.
    pub fn owner_answered(yes: bool) -> Self {
        if yes {
            Self::new(
                GuardAction::Allow,
                Check::OwnerConfirmed,
                "the owner confirmed",
            )
        } else {
            Self::new(
                GuardAction::Block,
                Check::OwnerDeclined,
                "the owner did not confirm (no, unclear, or no answer in time)",
            )
        }
    }

    pub(crate) fn confirm(
        check: Check,
        reason: impl Into<String>,
        question: String,
        double: bool,
    ) -> Self {
        Self {
            question: Some(question),
            double,
            ..Self::new(GuardAction::Confirm, check, reason)
        }
    }

    /// The reason with its detail, for the local audit row.
    pub fn full_reason(&self) -> String {
        match &self.detail {
            Some(d) => format!("{} ({d})", self.reason),
            None => self.reason.clone(),
        }
    }
}
