//! Why a fold refused an event: which rule it broke, and a sentence naming the particulars.

use std::fmt;

/// The kind of rule an event broke. A reader (the dashboard, `soul replay`, a test) can act on
/// the rule; the sentence is for people.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    /// It is not about what is being folded: its root, reference or target is elsewhere.
    Reference,
    /// Its content does not read as its kind says.
    Content,
    /// Its author may not publish this step (not a brain, not the brain whose step it is).
    Author,
    /// It comes out of order: before what it follows, or after what ends it.
    Order,
    /// A second one where only one may be.
    Duplicate,
    /// What it claims does not add up (a tally, an outcome, a round).
    Inconsistent,
    /// What it asks is not allowed (a service outside the restart allowlist, a brain restarting
    /// itself).
    Forbidden,
}

impl Rule {
    /// The rule's name in lower case, as logs and JSON show it.
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::Reference => "reference",
            Rule::Content => "content",
            Rule::Author => "author",
            Rule::Order => "order",
            Rule::Duplicate => "duplicate",
            Rule::Inconsistent => "inconsistent",
            Rule::Forbidden => "forbidden",
        }
    }
}

/// A refusal: the rule broken and what exactly was wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The rule.
    pub rule: Rule,
    /// A sentence naming the particulars ("second opinion by panda in round 1").
    pub detail: String,
}

impl Refusal {
    /// A refusal under `rule`.
    pub fn new(rule: Rule, detail: impl Into<String>) -> Self {
        Self {
            rule,
            detail: detail.into(),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.detail)
    }
}
