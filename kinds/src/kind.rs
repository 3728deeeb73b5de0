//! Every soul kind, from one table.
//!
//! The table below is the only place a kind number is written down. Everything else (the enum,
//! [`SoulKind::ALL`], names, docs, the NIP-01 class) is generated from it, so adding a kind is one
//! line and the numbers cannot drift apart between the enum and its lookups.

use std::fmt;

use nostr::Kind;

macro_rules! soul_kinds {
    ($($variant:ident = $number:literal, $name:literal, $doc:literal;)*) => {
        /// A custom kind used by soul (DESIGN §10).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum SoulKind {
            $(
                #[doc = $doc]
                $variant,
            )*
        }

        impl SoulKind {
            /// Every soul kind, in table order.
            pub const ALL: &'static [SoulKind] = &[$(SoulKind::$variant,)*];

            /// The kind number.
            pub const fn number(self) -> u16 {
                match self {
                    $(SoulKind::$variant => $number,)*
                }
            }

            /// The snake_case name, as used in logs and `soul status`.
            pub const fn name(self) -> &'static str {
                match self {
                    $(SoulKind::$variant => $name,)*
                }
            }

            /// One line saying what the kind is for.
            pub const fn doc(self) -> &'static str {
                match self {
                    $(SoulKind::$variant => $doc,)*
                }
            }

            /// Look a kind number up.
            pub const fn from_number(number: u16) -> Option<Self> {
                match number {
                    $($number => Some(SoulKind::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

soul_kinds! {
    Task = 4360, "task", "A task for the brains, published by the owner (or relayed for them).";
    Opinion = 4361, "opinion", "A brain's vote and reasoning on a task in one round.";
    Decision = 4362, "decision", "The outcome of a task's debate, counted from opinions.";
    Announcement = 4363, "announcement", "Triceratops announces an approved decision.";
    Execution = 4364, "execution", "Progress of carrying out an announced decision.";
    Review = 4365, "review", "The reviewer's verdict on one version of a resident's draft.";
    Evaluation = 4366, "evaluation", "A brain's scores for another brain in an evaluation cycle.";
    Karma = 4367, "karma", "A lesson learnt, with a weight and a topic.";
    Suggestion = 4368, "suggestion", "A worker's suggestion, which may become a low-priority task.";
    Restart = 4369, "restart", "One step of the two-step restart protocol.";
    Verdict = 4370, "verdict", "An audit record of the guardian's verdict on a proposal.";
    News = 4371, "news", "A news item from the reporter's sources.";
    TownEvent = 4372, "town_event", "A dated event in the town, from the reporter.";
    Heartbeat = 14360, "heartbeat", "An agent's liveness and load (replaceable).";
    Params = 34360, "params", "A brain's personality parameters (addressable, d = name).";
    Draft = 34361, "draft", "A resident's current draft post (addressable, d = name).";
    Memory = 34362, "memory", "An agent's memory, NIP-44 encrypted to itself (addressable).";
    WorkerState = 34363, "worker_state", "A worker's run state and params (addressable, d = name).";
    Roster = 34364, "roster", "Who is who in a town, signed by the owner (d = town name).";
}

impl SoulKind {
    /// The kind as a [`nostr::Kind`].
    pub fn kind(self) -> Kind {
        Kind::from(self.number())
    }

    /// Map a [`nostr::Kind`] back to a soul kind, if it is one.
    pub fn from_kind(kind: Kind) -> Option<Self> {
        Self::from_number(kind.as_u16())
    }

    /// Addressable (NIP-01 range 30000..40000): relays keep the latest per (pubkey, kind, `d`).
    pub fn is_addressable(self) -> bool {
        self.kind().is_addressable()
    }

    /// Replaceable (NIP-01 range 10000..20000): relays keep the latest per (pubkey, kind).
    pub fn is_replaceable(self) -> bool {
        self.kind().is_replaceable()
    }
}

impl From<SoulKind> for Kind {
    fn from(kind: SoulKind) -> Self {
        kind.kind()
    }
}

impl fmt::Display for SoulKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name(), self.number())
    }
}

/// Whether `kind` is one of soul's custom kinds.
pub fn is_soul_kind(kind: Kind) -> bool {
    SoulKind::from_kind(kind).is_some()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn table_is_consistent() {
        assert_eq!(SoulKind::ALL.len(), 19);
        let numbers: BTreeSet<u16> = SoulKind::ALL.iter().map(|k| k.number()).collect();
        let names: BTreeSet<&str> = SoulKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(numbers.len(), SoulKind::ALL.len(), "numbers are unique");
        assert_eq!(names.len(), SoulKind::ALL.len(), "names are unique");
        for &k in SoulKind::ALL {
            assert_eq!(SoulKind::from_kind(k.kind()), Some(k));
            assert!(is_soul_kind(k.kind()));
            assert!(!k.doc().is_empty());
        }
    }

    #[test]
    fn classes_follow_nip01_ranges() {
        assert!(SoulKind::Roster.is_addressable());
        assert!(SoulKind::Params.is_addressable());
        assert!(!SoulKind::Task.is_addressable());
        assert!(SoulKind::Heartbeat.is_replaceable());
        assert!(!SoulKind::Heartbeat.is_addressable());
        assert_eq!(SoulKind::Task.number(), 4360);
        assert!(!is_soul_kind(Kind::TextNote));
        assert_eq!(SoulKind::TownEvent.to_string(), "town_event (4372)");
    }
}
