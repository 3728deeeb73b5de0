//! A `run` command passes the guardian and the gate before the executor runs anything (DESIGN
//! §5): the command is the proposal (the skill as the tool, its arguments as parameters), the
//! guardian judges it (NG and confidential patterns, the dangerous-operations registry by skill
//! name, the owner's rules, deletions), the gate checks that this worker may `run_skill`, and
//! one verdict event (4370) and one audit row record it.
//!
//! The command came end-to-end encrypted, so the public verdict event names the skill only,
//! never its arguments; the local audit row keeps them.

use std::collections::BTreeMap;
use std::time::Instant;

use serde_json::{json, Map, Value};
use soul_kinds::GuardAction;

use crate::audit::{self, Decision};
use crate::dm::Message;
use crate::guard::{self, Access, Answer, Verdict};
use crate::host::Identity;
use crate::mind::{Proposal, Thought};
use crate::roles::RoleCtx;

/// The gate's action for every skill run (`rules/authorization.yaml`).
const RUN_SKILL: &str = "run_skill";

/// What the guardian lets the run do.
pub enum RunPass {
    /// Run it.
    Go,
    /// Do not run it; why.
    Stop(String),
}

/// The run as a proposal: made by fixed code from the command, not by a mind.
fn proposal(
    m: &Message,
    skill: &str,
    named: &BTreeMap<String, String>,
    positional: &[String],
    from_owner: bool,
) -> Thought<Proposal> {
    let mut parameters: Map<String, Value> = named
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    if !positional.is_empty() {
        parameters.insert("args".into(), json!(positional));
    }
    let who = if from_owner {
        "the owner"
    } else {
        "a brain relaying an approved decision"
    };
    let reasoning = format!(
        "{who} commanded `run {skill}` by encrypted DM (message {})",
        m.rumor_id
    );
    // An explicit command, authorized before it got here: confidence is not the question,
    // the registry and the patterns are.
    Thought::instant("command", Proposal::call(skill, parameters, reasoning, 1.0))
}

/// Judges the run of `skill` that `m` asks for; asks the owner when the guardian says CONFIRM
/// (and waits, up to 10 minutes of town time), and records every verdict.
pub async fn judge(
    ctx: &RoleCtx,
    me: &Identity,
    m: &Message,
    skill: &str,
    named: &BTreeMap<String, String>,
    positional: &[String],
) -> RunPass {
    let started = Instant::now();
    let owner = ctx.options.roster.owner;
    let thought = proposal(m, skill, named, positional, m.sender == owner);
    let (verdict, access) = ctx
        .guardian
        .decide(&thought, RUN_SKILL, &me.keys.public_key());
    tracing::info!(worker = %me.name, skill, action = verdict.action.as_str(), check = verdict.check.as_str(), "guardian verdict on a run");
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
        return RunPass::Stop("the verdict could not be recorded; nothing runs unrecorded".into());
    }
    match verdict.action {
        GuardAction::Allow | GuardAction::Modify => RunPass::Go,
        GuardAction::Block => RunPass::Stop(verdict.reason),
        GuardAction::Confirm => {
            let mut q = verdict.question.unwrap_or(verdict.reason.clone());
            if verdict.double {
                q = format!("{q}\n(This needs a second, explicit yes: it cannot be undone.)");
            }
            let ttl = ctx.options.clock.scale(guard::CONFIRM_TTL);
            let question = format!("run {skill}: {q}");
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
                (true, true) => RunPass::Go,
                (true, false) => RunPass::Stop("the owner's yes could not be recorded".into()),
                (false, _) => RunPass::Stop(settled.reason),
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
