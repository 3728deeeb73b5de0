//! Folds: state computed from signed events, never trusted from a status field.
//!
//! One file per state machine: [`fold_task`] (a task's debate and execution), [`fold_cycle`] (one
//! cycle of the brains' mutual evaluation and the retunes it calls for) and [`fold_restart`] (the
//! two-step restart protocol).
//!
//! A fold takes every event it is given, in a deterministic order, and returns the state plus the
//! events it refused with a reason. It never panics and never fails because of a related event:
//! illegal transitions become [`Rejected`] entries, so a dashboard can show them and an agent can
//! log them, while the state stays what the legal events say.
//!
//! **Invariant:** folds trust event ids and signatures. Events reach them through the relay's
//! policy and the SDK client, which both verify; re-verifying here would double the cost of every
//! fold without adding a check.

mod draft;
mod evaluation;
mod params;
mod refusal;
mod restart;
mod task;

pub use draft::{fold_draft, DraftState};
pub use evaluation::{fold_cycle, params_change_allowed, AcceptedEvaluation, Retune};
pub use params::fold_params;
pub use refusal::{Refusal, Rule};
pub use restart::{fold_restart, review_request, RestartRequest, RestartRules, RestartState};
pub use task::{agreement, decide, fold_task, Rejected, TaskState, TaskStatus};
