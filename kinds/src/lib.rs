//! soul-kinds: every Nostr kind soul uses, its typed content, tags, validation and the folds.
//!
//! This crate is the protocol contract of DESIGN §10 in code. It is pure: no I/O, no async, no
//! clock; it reads and builds [`nostr::Event`]s and nothing else, so the relay, the agents and
//! outside tools can all depend on it.
//!
//! # Layout
//!
//! - [`kind`]: the one table of soul kinds ([`SoulKind`]): number, name, doc, class.
//! - [`role`]: agent roles ([`Role`]) and the three brains ([`BrainName`]) with their seed params.
//! - [`roster`]: the owner-signed roster ([`Roster`]) and the brains' keys ([`Brains`]).
//! - [`content`]: one typed content per kind, the generic [`parse`], and one builder per kind.
//! - [`tags`]: reading and writing the tags soul events carry (`e` markers, `round`, `alt`).
//! - [`fold`]: state from events: [`fold_task`] (task status), [`fold_cycle`] (an evaluation
//!   cycle and its retunes), [`fold_restart`] (the two-step restart protocol).
//! - [`nip89`]: the NIP-89 handler information (31990) that names soul's kinds for clients.
//! - [`error`]: the crate's [`Error`]; every variant from an event names the event id.
//!
//! **Architecture invariant:** nothing here trusts a status field another agent could have set;
//! status is always a fold over signed events, and illegal events come back as [`Rejected`].

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod content;
pub mod error;
pub mod fold;
pub mod kind;
pub mod nip89;
pub mod role;
pub mod roster;
pub mod tags;

#[cfg(test)]
mod robust;

pub use content::{
    content_limit, may_publish_task, parse, task_origin, FieldError, SoulContent, TaskOrigin,
    MAX_CONTENT_BYTES, MAX_ROSTER_BYTES,
};
pub use content::{
    Announcement, AuditVerdict, Decision, Draft, DraftHistory, DraftStatus, Evaluation, ExecStatus,
    Execution, GuardAction, Heartbeat, Lesson, MemoryContent, News, Opinion, Outcome, Params,
    Priority, Relayed, RestartStatus, RestartStep, Review, ReviewVerdict, RosterContent, Scores,
    Suggestion, Tally, Task, TownEvent, Vote, WorkerRun, WorkerState,
};
pub use error::Error;
pub use fold::{
    agreement, decide, fold_cycle, fold_draft, fold_params, fold_restart, fold_task,
    params_change_allowed, review_request, AcceptedEvaluation, DraftState, Rejected,
    RestartRequest, RestartRules, RestartState, Retune, TaskState, TaskStatus,
};
pub use kind::{is_soul_kind, SoulKind};
pub use role::{BrainName, Role};
pub use roster::{Brains, Roster, RosterMember};
