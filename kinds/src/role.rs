//! Roles in a town, and the three brains by name.
//!
//! Names are snake_case everywhere (serde, `Display`, `FromStr`) because they appear in the roster,
//! in `soul status --json` and in key file names, and must read the same in all three.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::content::Params;
use crate::error::Error;

/// Generates `ALL`, `as_str`, `Display` and `FromStr` from one list of (variant, name) pairs, so
/// the serde names and the text names cannot disagree.
macro_rules! named_enum {
    ($ty:ident, $what:literal, $($variant:ident => $name:literal),* $(,)?) => {
        impl $ty {
            /// Every value, in declaration order.
            pub const ALL: &'static [$ty] = &[$($ty::$variant,)*];

            /// The snake_case name.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($ty::$variant => $name,)*
                }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $ty {
            type Err = Error;

            fn from_str(s: &str) -> Result<Self, Error> {
                match s {
                    $($name => Ok($ty::$variant),)*
                    _ => Err(Error::Unknown { what: $what, value: s.to_owned() }),
                }
            }
        }
    };
}

/// What an agent does in the town (DESIGN §6–§9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Panda, gorilla or triceratops: debates and decides tasks.
    Brain,
    /// Writes drafts and posts to the town's timeline.
    Resident,
    /// Reviews residents' drafts against the NG rules.
    Reviewer,
    /// Publishes news and town events from the bulletin sources.
    Reporter,
    /// Answers DMs and mentions in the owner's persona.
    Buddy,
    /// Runs allowlisted commands in a sandbox.
    Executor,
}

named_enum!(Role, "role",
    Brain => "brain", Resident => "resident", Reviewer => "reviewer",
    Reporter => "reporter", Buddy => "buddy", Executor => "executor",
);

/// One of the three brains. The roster names them; their pubkeys are in [`crate::Brains`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BrainName {
    /// Cautious: weighs safety and thoroughness.
    Panda,
    /// Growth-minded; the coordinator who publishes decisions.
    Gorilla,
    /// The mediator and executor.
    Triceratops,
}

named_enum!(BrainName, "brain",
    Panda => "panda", Gorilla => "gorilla", Triceratops => "triceratops",
);

impl BrainName {
    /// The seed's starting personality (seed 000), before any retuning.
    pub fn default_params(self) -> Params {
        let (risk, innovation, safety, thoroughness, flexibility) = match self {
            BrainName::Panda => (0.2, 0.3, 0.9, 0.9, 0.4),
            BrainName::Gorilla => (0.8, 0.9, 0.3, 0.4, 0.5),
            BrainName::Triceratops => (0.5, 0.5, 0.5, 0.6, 0.8),
        };
        Params {
            risk_tolerance: risk,
            innovation_weight: innovation,
            safety_weight: safety,
            thoroughness,
            consensus_flexibility: flexibility,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::SoulContent;

    #[test]
    fn names_round_trip_through_text_and_serde() {
        for &role in Role::ALL {
            assert_eq!(role.to_string().parse::<Role>().unwrap(), role);
            let json = serde_json::to_string(&role).unwrap();
            assert_eq!(json, format!("\"{role}\""));
        }
        for &brain in BrainName::ALL {
            assert_eq!(brain.as_str().parse::<BrainName>().unwrap(), brain);
        }
        let err = "wizard".parse::<Role>().unwrap_err();
        assert_eq!(err.to_string(), "unknown role \"wizard\"");
    }

    #[test]
    fn default_params_are_valid_and_match_the_seed() {
        for &brain in BrainName::ALL {
            brain.default_params().validate().unwrap();
        }
        assert_eq!(BrainName::Gorilla.default_params().innovation_weight, 0.9);
        assert_eq!(
            BrainName::Triceratops
                .default_params()
                .consensus_flexibility,
            0.8
        );
    }
}
