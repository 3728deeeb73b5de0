//! Work the owner did not sign waits for the owner's yes (DESIGN §12 "Origin of work").
//!
//! A brain's command is authorised by a decision on a task; when that task is relayed (a DM
//! gorilla says the owner sent, a worker's suggestion triceratops accepted), nothing but one
//! brain's signature says the owner wanted it, and a stolen brain key can make one up. So the
//! worker asks the owner itself, by NIP-17, before anything above the low-risk band (everything
//! but `status`, which only reads) is done; only a clear yes goes ahead.

use nostr::EventId;
use soul_kinds::TaskOrigin;

use super::auth::Authority;
use super::command::Action;
use crate::roles::RoleCtx;
use soul_guard::{self as guard, confirm, Answer};
use soul_link::Identity;

/// What the owner must confirm before a brain's command on a relayed task is carried out.
#[derive(Debug, Clone)]
pub struct Ask {
    /// The task the decision is about.
    pub task: EventId,
    /// Its title.
    pub title: String,
    /// Where it came from.
    pub origin: TaskOrigin,
    /// The command, as words (`run checksum file=notes.txt`).
    pub said: String,
}

impl Ask {
    /// The code the owner's answer quotes (distinct from the guardian's, which is the
    /// command's): the worker must not read that answer as a command.
    pub fn code(&self) -> String {
        confirm::code_for(&self.task.to_hex())
    }
}

/// Whether `action` needs the owner's yes when its task is not owner-signed.
pub fn needs_owner(action: &Action) -> bool {
    !matches!(action, Action::Status)
}

/// What the owner must confirm for a command on `authority`, if anything: a brain's command
/// on a task the owner did not sign, unless it only reads.
pub fn ask_for(authority: Authority, action: &Action) -> Option<Ask> {
    match authority {
        Authority::Brain {
            task,
            origin,
            title,
            ..
        } if !origin.is_owner_signed() && needs_owner(action) => Some(Ask {
            task,
            title,
            origin,
            said: said(action),
        }),
        _ => None,
    }
}

/// Asks the owner and waits (up to 10 minutes of town time); `Err` says why it must not run.
pub async fn confirm(ctx: &RoleCtx, me: &Identity, ask: &Ask) -> Result<(), String> {
    let question = format!(
        "A brain asks {} to `{}` for the task \"{}\", which you did not sign: it was {}. \
         Was this your wish?",
        me.name,
        ask.said,
        ask.title,
        ask.origin.describe()
    );
    tracing::info!(worker = %me.name, task = %ask.task, command = %ask.said, "a relayed task's command waits for the owner's yes");
    let ttl = ctx.options.clock.scale(guard::CONFIRM_TTL);
    let answer = guard::ask_owner(
        &ctx.options.relay_url,
        &me.keys,
        ctx.options.roster.owner,
        &ask.task.to_hex(),
        &question,
        ttl,
    )
    .await;
    if answer == Answer::Yes {
        tracing::info!(worker = %me.name, task = %ask.task, "the owner confirmed a relayed task's command");
        Ok(())
    } else {
        tracing::warn!(worker = %me.name, task = %ask.task, command = %ask.said, "the owner did not confirm a relayed task's command; not carried out");
        Err(format!(
            "task {} was not signed by the owner ({}), and the owner did not confirm `{}`; ask the owner to publish the task themselves",
            ask.task,
            ask.origin.describe(),
            ask.said
        ))
    }
}

/// The command as words, for the owner's question.
pub fn said(action: &Action) -> String {
    match action {
        Action::Run {
            skill,
            named,
            positional,
        } => {
            let mut words = vec![format!("run {skill}")];
            words.extend(named.iter().map(|(k, v)| format!("{k}={v}")));
            words.extend(positional.iter().cloned());
            words.join(" ")
        }
        Action::AdjustParams(changes) => {
            let mut words = vec!["adjust_params".to_owned()];
            words.extend(changes.iter().map(|(k, v)| format!("{k}={v}")));
            words.join(" ")
        }
        other => other.word().to_owned(),
    }
}
