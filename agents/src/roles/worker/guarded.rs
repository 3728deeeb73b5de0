//! Every worker command that acts passes the guardian and the gate before the worker does
//! anything (DESIGN §5). The command is the proposal: for `run`, the skill is the tool and its
//! arguments the parameters, and the gate checks that this worker may `run_skill`; for `pause`,
//! `resume`, `restart` and `adjust_params`, the command word is the tool and its params the
//! parameters, and the gate checks that the sender may `command_worker`. The guardian judges
//! it (NG and confidential patterns, the dangerous-operations registry, the owner's rules,
//! deletions); CONFIRM asks the owner by DM; one verdict event (4370) and one audit row record
//! each verdict. `status` only reads, and is not judged.
//!
//! The command came end-to-end encrypted, so the public verdict event names the tool only,
//! never its parameters; the local audit row keeps them.

use std::time::Instant;

use nostr::PublicKey;
use serde_json::{Map, Value};
use soul_kinds::GuardAction;

use crate::audit::{self, Decision};
use crate::dm::Message;
use crate::guard::{self, Access, Answer, Verdict};
use crate::host::Identity;
use crate::mind::{Proposal, Thought};
use crate::roles::RoleCtx;

/// The gate's action for a skill run: the worker itself must be allowed to run skills.
pub const RUN_SKILL: &str = "run_skill";
/// The gate's action for a control command: its sender must be allowed to command workers.
pub const COMMAND_WORKER: &str = "command_worker";

/// What the guardian lets the command do.
pub enum Pass {
    /// Carry it out.
    Go,
    /// Do not; why.
    Stop(String),
}

/// A command as the guardian and the gate see it.
pub struct Guarded {
    /// The tool: the skill of a `run`, else the command word.
    pub tool: String,
    /// What the command says, for the proposal's reasoning and the owner's question (`run
    /// backup`, `pause`).
    pub said: String,
    /// Its parameters.
    pub parameters: Map<String, Value>,
    /// The gate's action ([`RUN_SKILL`] or [`COMMAND_WORKER`]).
    pub action: &'static str,
    /// Whom the gate checks for it: the worker for a run, the sender for a command.
    pub actor: PublicKey,
}

/// The command as a proposal: made by fixed code from the command, not by a mind.
fn proposal(m: &Message, g: &Guarded, from_owner: bool) -> Thought<Proposal> {
    let who = if from_owner {
        "the owner"
    } else {
        "a brain relaying an approved decision"
    };
    let reasoning = format!(
        "{who} commanded `{}` by encrypted DM (message {})",
        g.said, m.rumor_id
    );
    // An explicit command, authorized before it got here: confidence is not the question,
    // the registry, the owner's rules and the patterns are.
    Thought::instant(
        "command",
        Proposal::call(&g.tool, g.parameters.clone(), reasoning, 1.0),
    )
}

/// A `run` of `skill`: the worker runs it, so the gate checks the worker.
pub fn run(
    me: &Identity,
    skill: &str,
    named: &std::collections::BTreeMap<String, String>,
    positional: &[String],
) -> Guarded {
    let mut parameters: Map<String, Value> = named
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    if !positional.is_empty() {
        parameters.insert("args".into(), serde_json::json!(positional));
    }
    Guarded {
        tool: skill.to_owned(),
        said: format!("run {skill}"),
        parameters,
        action: RUN_SKILL,
        actor: me.keys.public_key(),
    }
}

/// A control command (`pause`, `resume`, `restart`, `adjust_params`) from `sender`: the gate
/// checks the sender.
pub fn control(word: &str, parameters: Map<String, Value>, sender: PublicKey) -> Guarded {
    Guarded {
        tool: word.to_owned(),
        said: word.to_owned(),
        parameters,
        action: COMMAND_WORKER,
        actor: sender,
    }
}

/// Judges the command `m` carries; asks the owner when the guardian says CONFIRM (and waits,
/// up to 10 minutes of town time), and records every verdict.
pub async fn judge(ctx: &RoleCtx, me: &Identity, m: &Message, g: &Guarded) -> Pass {
    let started = Instant::now();
    let owner = ctx.options.roster.owner;
    let thought = proposal(m, g, m.sender == owner);
    let (verdict, access) = ctx.guardian.decide(&thought, g.action, &g.actor);
    tracing::info!(worker = %me.name, command = %g.said, action = verdict.action.as_str(), check = verdict.check.as_str(), "guardian verdict on a command");
    let said = verdict.question.clone().unwrap_or(verdict.reason.clone());
    if !record(
        ctx,
        me,
        m,
        &thought,
        &verdict,
        access.as_ref(),
        said,
        started,
    )
    .await
    {
        return Pass::Stop("the verdict could not be recorded; nothing runs unrecorded".into());
    }
    match verdict.action {
        GuardAction::Allow | GuardAction::Modify => Pass::Go,
        GuardAction::Block => Pass::Stop(verdict.reason),
        GuardAction::Confirm => {
            let mut q = verdict.question.unwrap_or(verdict.reason.clone());
            if verdict.double {
                q = format!("{q}\n(This needs a second, explicit yes: it cannot be undone.)");
            }
            let ttl = ctx.options.clock.scale(guard::CONFIRM_TTL);
            let question = format!("{}: {q}", g.said);
            let answer = guard::ask_owner(
                &ctx.options.relay_url,
                &me.keys,
                owner,
                &m.rumor_id.to_hex(),
                &question,
                ttl,
            )
            .await;
            let yes = answer == Answer::Yes;
            let settled = Verdict::owner_answered(yes);
            let said = settled.reason.clone();
            let recorded = record(ctx, me, m, &thought, &settled, None, said, started).await;
            match (yes, recorded) {
                (true, true) => Pass::Go,
                (true, false) => Pass::Stop("the owner's yes could not be recorded".into()),
                (false, _) => Pass::Stop(settled.reason),
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
async fn record(
    ctx: &RoleCtx,
    me: &Identity,
    m: &Message,
    thought: &Thought<Proposal>,
    verdict: &Verdict,
    access: Option<&Access>,
    said: String,
    started: Instant,
) -> bool {
    let shown = audit::withheld(thought);
    let d = Decision {
        agent: &me.name,
        actor: me.keys.public_key(),
        subject: m.rumor_id,
        input: m.text.chars().take(2000).collect(),
        context_summary: format!("command from {} in wrap {}", m.sender, m.wrap_id),
        thought: &shown,
        verdict,
        access,
        final_response: said,
        started,
    };
    match audit::record(&ctx.link, &me.keys, &ctx.options.minds.karma, d).await {
        Ok(_) => true,
        Err(e) => {
            tracing::warn!(worker = %me.name, "audit: {e}");
            false
        }
    }
}
