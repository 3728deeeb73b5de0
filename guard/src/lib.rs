//! The guardian and the authorization gate (DESIGN §5, seed 003 §5.3–5.4): a mind proposes,
//! rules decide.
//!
//! # Layout
//! - [`rules`]: `rules/guardian.yaml`, `rules/dangerous_operations.yaml`,
//!   `rules/authorization.yaml` (each falls back to the shipped copy when absent).
//! - [`check`]: [`judge`], the ordered checks, a pure function; [`verdict`]: what it returns.
//! - [`effects`]: what a call's values would do (paths outside, overwrites, deletions, hosts).
//! - [`gate`]: [`Gate`], levels per pubkey and per action; never reads mind output.
//! - [`guardian`]: [`Guardian`], both in one call, shared by every agent of a host.
//! - [`confirm`]: reading the owner's answer; an unclear answer is a no.
//! - [`ask`]: asking the owner by NIP-17 DM and waiting up to the time-to-live.
//! - [`audit`]: one verdict event and one SQLite row per guarded decision.
//!
//! **Architecture invariant:** both fail closed. A rules file that does not load stops the
//! agent at start with the file named; an action the gate cannot place is denied.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod ask;
pub mod audit;
pub mod check;
pub mod confirm;
pub mod effects;
mod error;
pub mod gate;
pub mod guardian;
pub mod rules;
pub mod verdict;

#[cfg(test)]
mod tests;

pub use ask::{ask_clarification, ask_owner, ask_with_code, confirm_with_owner};
pub use check::{judge, judge_with, Check, Verdict};
pub use confirm::{read_answer, Answer, CONFIRM_TTL};
pub use effects::{Effect, Facts};
pub use error::GuardError;
pub use gate::{Access, Gate};
pub use guardian::Guardian;
pub use rules::{AuthRules, GuardRules, Risk};
