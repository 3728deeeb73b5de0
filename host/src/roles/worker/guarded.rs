//! Every worker command that acts passes the guardian and the gate before the worker does
//! anything (DESIGN §5). The command is the proposal: for `run`, the skill is the tool and its
//! arguments the parameters, and the gate checks that this worker may `run_skill`; for `pause`,
//! `resume`, `restart` and `adjust_params`, the command word is the tool and its params the
//! parameters, and the gate checks that the sender may `command_worker`. The guardian judges
//! it (NG and confidential patterns, the dangerous-operations registry, the owner's rules,
//! deletions); CONFIRM asks the owner by DM; one verdict event (4370) and one audit row record
//! each verdict. `status` only reads, and is not judged.
//!
//! A run is weighed by what it does, not by its skill's name: the skill's declared `risk:`
//! (a networked skill without one counts as medium), the action it `performs:` (the gate
//! checks the sender's level for it, the guardian its band), and the call's values (a path
//! outside the skill's folder, an existing file overwritten, a deletion, a URL). CONFIRM asks
//! the owner, twice with two codes for a double one; MODIFY runs the corrected values and the
//! reply says what changed; the audit row of the verdict that let a run go is completed with
//! its outcome after it ran.
//!
//! The command came end-to-end encrypted, so the public verdict event names the tool only,
//! never its parameters or the values behind a reason; the local audit row keeps them.

use std::collections::BTreeMap;
use std::time::Instant;

use nostr::{EventId, PublicKey};
use serde_json::{Map, Value};
use soul_kinds::GuardAction;

use super::reply::Reply;
use super::state::Current;
use crate::roles::executor::{self, skill, Executor};
use crate::roles::RoleCtx;
use soul_guard::audit::{self, Decision};
use soul_guard::{self as guard, effects, Access, Answer, Facts, Verdict};
use soul_link::dm::Message;
use soul_link::Identity;
use soul_mind::{Proposal, Thought};

/// The gate's action for a skill run: the worker itself must be allowed to run skills.
pub const RUN_SKILL: &str = "run_skill";
/// The gate's action for a control command: its sender must be allowed to command workers.
pub const COMMAND_WORKER: &str = "command_worker";

/// What the guardian lets the command do.
pub enum Pass {
    /// Carry it out, as approved.
    Go(Approved),
    /// Do not; why.
    Stop(String),
}

/// What a verdict that lets a command go says about how.
#[derive(Debug, Default)]
pub struct Approved {
    /// The verdict event whose audit row the outcome completes.
    pub verdict: Option<EventId>,
    /// MODIFY: the parameters to run with instead of the ones sent.
    pub modified: Option<Map<String, Value>>,
    /// MODIFY: what changed, said to the sender.
    pub changed: Option<String>,
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
    /// What the caller knows the call does (a run's skill risk, performed action, effects).
    pub facts: Facts,
    /// Whoever answers for the performed action (the sender of a run).
    pub sender: PublicKey,
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

/// A `run` of `skill` sent by `sender`: the worker runs it, so the gate checks the worker for
/// `run_skill`, and the sender for the action the skill performs. `Err` when the skill cannot
/// be read: nothing is judged (or run) blind.
pub fn run(
    ctx: &RoleCtx,
    me: &Identity,
    sender: PublicKey,
    name: &str,
    named: &BTreeMap<String, String>,
    positional: &[String],
) -> Result<Guarded, String> {
    let town =
        std::path::absolute(&ctx.options.town_dir).unwrap_or_else(|_| ctx.options.town_dir.clone());
    let skills = skill::load_all(&town.join(executor::SKILLS_DIR))?;
    let Some(sk) = skills.get(name) else {
        let known: Vec<&str> = skills.keys().map(String::as_str).collect();
        return Err(format!(
            "no skill {name:?}; the skills are {}",
            known.join(", ")
        ));
    };
    let workdir = town.join(&sk.workdir);
    // A run has a network only when its skill names hosts and the folder policy of its working
    // folder allows the network; a policy that does not load counts as allowing it (the safer
    // band), and the run itself will refuse.
    let networked = !sk.network.is_empty()
        && soul_sandbox::Sandbox::load(&town).map_or(true, |s| {
            s.policies()
                .governing(&workdir)
                .is_some_and(|p| p.network == soul_sandbox::policy::Network::Allow)
        });
    let bound = sk.bind(named, positional);
    let facts = Facts {
        risk: Some(sk.risk_for(networked)),
        performs: sk.performs.clone(),
        effects: effects::weigh(
            sk.command.as_deref(),
            &workdir,
            &bound,
            &[],
            networked,
            |p| p.exists(),
        ),
    };
    let mut parameters: Map<String, Value> = named
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    if !positional.is_empty() {
        parameters.insert("args".into(), serde_json::json!(positional));
    }
    Ok(Guarded {
        tool: name.to_owned(),
        said: format!("run {name}"),
        parameters,
        action: RUN_SKILL,
        actor: me.keys.public_key(),
        facts,
        sender,
    })
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
        facts: Facts::default(),
        sender,
    }
}

/// Judges the command `m` carries; asks the owner when the guardian says CONFIRM (and waits,
/// up to 10 minutes of town time; twice for a double CONFIRM), and records every verdict.
pub async fn judge(ctx: &RoleCtx, me: &Identity, m: &Message, g: &Guarded) -> Pass {
    let started = Instant::now();
    let owner = ctx.options.roster.owner;
    let thought = proposal(m, g, m.sender == owner);
    let mut gated = vec![(g.action, g.actor)];
    if let Some(a) = &g.facts.performs {
        gated.push((a.as_str(), g.sender));
    }
    let (verdict, access) = ctx.guardian.decide_with(&thought, &gated, &g.facts);
    tracing::info!(worker = %me.name, command = %g.said, action = verdict.action.as_str(), check = verdict.check.as_str(), double = verdict.double, "guardian verdict on a command");
    let said = verdict.question.clone().unwrap_or(verdict.reason.clone());
    let Some(first) = record(
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
    else {
        return Pass::Stop("the verdict could not be recorded; nothing runs unrecorded".into());
    };
    match verdict.action {
        GuardAction::Allow => Pass::Go(Approved {
            verdict: Some(first),
            ..Approved::default()
        }),
        GuardAction::Modify => {
            let modified = verdict
                .modified
                .as_ref()
                .and_then(|calls| calls.first())
                .map(|c| c.parameters.clone());
            let changed = modified.as_ref().map(|p| changes(&g.parameters, p));
            Pass::Go(Approved {
                verdict: Some(first),
                modified,
                changed,
            })
        }
        // The sender hears the values behind the reason: the reply is encrypted to them.
        GuardAction::Block => Pass::Stop(verdict.full_reason()),
        GuardAction::Confirm => {
            let q = verdict.question.clone().unwrap_or(verdict.reason.clone());
            let ttl = ctx.options.clock.scale(guard::CONFIRM_TTL);
            let question = format!("{}: {q}", g.said);
            let answer = guard::confirm_with_owner(
                &ctx.options.relay_url,
                &me.keys,
                owner,
                &m.rumor_id.to_hex(),
                &question,
                verdict.double,
                ttl,
            )
            .await;
            let yes = answer == Answer::Yes;
            let mut settled = Verdict::owner_answered(yes);
            if yes && verdict.double {
                settled.reason = "the owner confirmed twice".into();
            }
            let said = settled.reason.clone();
            let recorded = record(ctx, me, m, &thought, &settled, None, said, started).await;
            match (yes, recorded) {
                (true, Some(id)) => Pass::Go(Approved {
                    verdict: Some(id),
                    ..Approved::default()
                }),
                (true, None) => Pass::Stop("the owner's yes could not be recorded".into()),
                (false, _) => Pass::Stop(settled.reason),
            }
        }
    }
}

/// What MODIFY changed, as `key: old → new` (for the sender, who sent the old values).
fn changes(before: &Map<String, Value>, after: &Map<String, Value>) -> String {
    let text = |v: Option<&Value>| match v {
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => "(none)".into(),
    };
    let keys: std::collections::BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    keys.into_iter()
        .filter(|k| before.get(*k) != after.get(*k))
        .map(|k| format!("{k}: {} → {}", text(before.get(k)), text(after.get(k))))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A `run` from start to end: judged (asking the owner when needed), run with the values the
/// verdict approved, and its audit row completed with the outcome.
#[allow(clippy::too_many_arguments)]
pub async fn run_skill(
    ctx: &RoleCtx,
    me: &Identity,
    m: &Message,
    x: &Executor,
    name: &str,
    named: BTreeMap<String, String>,
    positional: Vec<String>,
    request: Option<String>,
    current: &Current,
) -> Reply {
    let g = match run(ctx, me, m.sender, name, &named, &positional) {
        Ok(g) => g,
        Err(why) => return executor::not_run(name, request, why),
    };
    let ok = match judge(ctx, me, m, &g).await {
        Pass::Go(ok) => ok,
        Pass::Stop(why) => {
            return executor::not_run(name, request, format!("the guardian stopped it: {why}"))
        }
    };
    let (named, positional) = match &ok.modified {
        None => (named, positional),
        Some(p) => {
            let text = |v: &Value| match v {
                Value::String(s) => s.clone(),
                v => v.to_string(),
            };
            let positional = p
                .get("args")
                .and_then(Value::as_array)
                .map(|a| a.iter().map(text).collect())
                .unwrap_or_default();
            let named = p
                .iter()
                .filter(|(k, _)| k.as_str() != "args")
                .map(|(k, v)| (k.clone(), text(v)))
                .collect();
            (named, positional)
        }
    };
    let mut reply = x.run(name, named, positional, request, current).await;
    if let Some(changed) = ok.changed.filter(|c| !c.is_empty()) {
        reply.message = format!("{} (the guardian corrected {changed})", reply.message);
    }
    if let (Some(id), Some(r)) = (ok.verdict, &reply.result) {
        let outcome = soul_karma::RunOutcome {
            success: r.succeeded(),
            exit_code: r.exit_code,
            duration_ms: r.elapsed_ms,
            output_bytes: r.output.len() as u64,
            error: (!r.succeeded()).then(|| {
                if r.error.trim().is_empty() {
                    reply.message.clone()
                } else {
                    r.error.clone()
                }
            }),
            result: serde_json::to_string(&serde_json::json!({
                "exit_code": r.exit_code,
                "timed_out": r.timed_out,
                "truncated": r.truncated,
                "message": reply.message,
            }))
            .ok(),
        };
        audit::complete(&ctx.options.minds.karma, id, outcome).await;
    }
    reply
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
) -> Option<EventId> {
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
        Ok(id) => Some(id),
        Err(e) => {
            tracing::warn!(worker = %me.name, "audit: {e}");
            None
        }
    }
}
