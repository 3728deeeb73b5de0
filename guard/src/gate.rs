//! The authorization gate (seed 003 §5.4): may this pubkey perform this action?
//!
//! Levels come from the owner-signed roster (a pubkey's role) and `rules/authorization.yaml`
//! (a role's level, an action's level). The gate takes no proposal, reasoning or confidence —
//! nothing a mind wrote — and whatever it cannot decide is denied: an unknown action, a pubkey
//! not in the roster, a role without a level.

use nostr::PublicKey;
use soul_kinds::Roster;

use super::rules::AuthRules;

/// The gate's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// The actor's level is enough.
    Allowed {
        /// The actor's level.
        level: u8,
        /// The level needed.
        needed: u8,
    },
    /// Refused, and why.
    Denied(String),
}

impl Access {
    /// True for [`Access::Allowed`].
    pub fn allowed(&self) -> bool {
        matches!(self, Access::Allowed { .. })
    }

    /// `allowed` | `denied`, as in audit rows.
    pub fn as_str(&self) -> &'static str {
        if self.allowed() {
            "allowed"
        } else {
            "denied"
        }
    }

    /// Why, for the audit.
    pub fn reason(&self) -> String {
        match self {
            Access::Allowed { level, needed } => format!("level {level} >= {needed}"),
            Access::Denied(why) => why.clone(),
        }
    }
}

/// The gate over one roster and one rules file.
#[derive(Debug, Clone)]
pub struct Gate {
    rules: AuthRules,
    roster: Roster,
}

impl Gate {
    /// A gate for `roster` under `rules`.
    pub fn new(rules: AuthRules, roster: Roster) -> Self {
        Self { rules, roster }
    }

    /// The level `actor` holds, if the gate knows it.
    pub fn level(&self, actor: &PublicKey) -> Option<u8> {
        let role = if self.roster.is_owner(actor) {
            "owner"
        } else {
            self.roster.member(actor)?.role.as_str()
        };
        self.rules.levels.get(role).copied()
    }

    /// May `actor` perform `action`?
    pub fn check(&self, actor: &PublicKey, action: &str) -> Access {
        let Some(&needed) = self.rules.actions.get(action) else {
            return Access::Denied(format!(
                "action {action:?} has no level in rules/authorization.yaml; add it there to allow it"
            ));
        };
        let Some(level) = self.level(actor) else {
            return Access::Denied(format!(
                "{actor} has no level: not in the roster, or its role has none"
            ));
        };
        if level >= needed {
            Access::Allowed { level, needed }
        } else {
            Access::Denied(format!(
                "{action} needs level {needed}; {actor} holds {level}"
            ))
        }
    }
}
