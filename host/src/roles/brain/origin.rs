//! Triceratops's own steps for work the owner did not sign (DESIGN §12 "Origin of work").
//!
//! A task relayed by a brain (gorilla for a DM, triceratops for a suggestion) carries only that
//! brain's signature, and a stolen brain key can make one up. A restart is triceratops's own
//! step (through the two-step protocol), so when the guardian would let it go for such a task,
//! the owner is asked first. A skill run is asked by the executor itself
//! ([`crate::roles::worker::origin`]), so the owner is never asked twice; recording the plan
//! changes nothing and is the low-risk band.

use nostr::Filter;
use soul_kinds::{task_origin, GuardAction, SoulKind, TaskState};

use super::step::Ctx;
use soul_guard::{Check, Verdict};

/// The tool of a restart step (see `guarded.rs`).
const RESTART: &str = "restart_service";

/// `verdict` turned into a question for the owner when `tool` would act for a task the owner
/// did not sign; `None` leaves the verdict as it is. Fails closed: a task that cannot be read
/// back counts as not the owner's.
pub(super) async fn question(
    ctx: &Ctx<'_>,
    state: &TaskState,
    tool: &str,
    verdict: &Verdict,
) -> Option<Verdict> {
    if tool != RESTART || !matches!(verdict.action, GuardAction::Allow | GuardAction::Modify) {
        return None;
    }
    let event = ctx
        .link
        .fetch(Filter::new().id(state.task_id))
        .await
        .ok()
        .and_then(|events| events.into_iter().find(|e| e.kind == SoulKind::Task.kind()));
    let origin = event
        .as_ref()
        .and_then(|e| task_origin(e, &ctx.setup.owner, &ctx.setup.brains).ok());
    if origin.is_some_and(|o| o.is_owner_signed()) {
        return None;
    }
    let whence = origin.map_or_else(
        || "its origin could not be read back".to_owned(),
        |o| o.describe(),
    );
    tracing::info!(task = %state.task_id, "a restart for a task the owner did not sign waits for the owner's yes");
    Some(Verdict {
        action: GuardAction::Confirm,
        check: Check::Authorization,
        reason: format!("the task was not signed by the owner: it was {whence}"),
        detail: None,
        question: Some(format!(
            "The brains decided a restart for a task you did not sign: it was {whence}. Was this your wish?"
        )),
        double: false,
        modified: None,
    })
}
