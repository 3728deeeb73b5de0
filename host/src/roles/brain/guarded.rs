//! Triceratops's execution passes the guardian and the gate (DESIGN §5) before anything runs.
//!
//! The mind proposes the execution (the built-in proposal: the one tool the decided task calls
//! for — a restart, a skill, or recording the plan); the guardian judges it; the gate checks
//! that triceratops may use that tool; one verdict event (4370) and one audit row record it.
//! The verdict events are the memory: a restarted triceratops reads its last verdict on the
//! decision from the relay and follows it, so nothing is judged or run twice.
//!
//! CONFIRM asks the owner by NIP-17 DM and waits up to 10 minutes of town time without holding
//! up the brain's loop: the question runs in its own task and the answer waits in the host's [`Awaiting`].

use crate::HostError;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use nostr::{EventId, Filter, PublicKey};
use serde_json::{json, Map};
use soul_kinds::{parse, AuditVerdict, BrainName, GuardAction, Opinion, SoulKind, TaskState, Vote};

use super::restart;
use super::step::Ctx;
use soul_guard::audit::{self, Decision};
use soul_guard::{self as guard, Access, Answer, Verdict};
use soul_mind::{ActAsk, Proposal, Thought};

/// What the execution may do now.
pub(super) enum Pass {
    /// Go ahead.
    Go,
    /// A question is with the owner.
    Wait,
    /// Do not run; the reason goes into the failed execution.
    Stop(String),
}

/// Owner answers awaited, per (triceratops, decision): `None` while waiting. Process-wide so
/// that an answer survives the host restarting triceratops's task.
/// (triceratops, decision) → the owner's answer, `None` while waiting.
type Answers = Waiting<Answer>;

/// Clarifications awaited, per (triceratops, decision): `None` while waiting, then the owner's
/// answer (`Some("")` for none in time). The answer resumes the proposal.
type Clarified = Waiting<String>;

/// Per (triceratops, decision): `None` while the owner is asked, then what came back.
type Waiting<T> = HashMap<(PublicKey, EventId), Option<T>>;

/// The owner's answers triceratops awaits, held by the host (`roles::shared::HostShared`) so
/// that they outlive a restart of the agent and no other host in the process sees them.
#[derive(Debug, Default)]
pub struct Awaiting {
    answers: Mutex<Answers>,
    clarified: Mutex<Clarified>,
}

/// Decides whether the execution of `state`'s decision may run.
pub(super) async fn pass(
    ctx: &Ctx<'_>,
    state: &TaskState,
    decision: EventId,
) -> Result<Pass, HostError> {
    let me = ctx.me.keys.public_key();
    let key = (me, decision);
    // A clarifying question is with the owner, or answered: the answer resumes the proposal.
    let clarified = ctx
        .setup
        .awaiting
        .clarified
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&key)
        .cloned();
    match clarified {
        Some(None) => return Ok(Pass::Wait),
        Some(Some(answer)) => {
            ctx.setup
                .awaiting
                .clarified
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&key);
            if answer.is_empty() {
                let (thought, _) = propose(ctx, state, None).await;
                let verdict = Verdict::owner_answered(false);
                let why = verdict.reason.clone();
                record(ctx, state, decision, &thought, &verdict, None, why.clone()).await;
                return Ok(Pass::Stop(why));
            }
            return judge(ctx, state, decision, Some(&answer)).await;
        }
        None => {}
    }
    // Still waiting for the owner: nothing to look up. Without this every loop of triceratops
    // fetched one verdict per task awaiting an answer, and its votes slowed as those piled up.
    let waiting = matches!(
        ctx.setup
            .awaiting
            .answers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key),
        Some(None)
    );
    if waiting {
        return Ok(Pass::Wait);
    }
    let filter = Filter::new()
        .kind(SoulKind::Verdict.kind())
        .author(me)
        .event(decision);
    let last = ctx
        .link
        .fetch(filter)
        .await?
        .into_iter()
        .filter_map(|e| parse::<AuditVerdict>(&e).ok().map(|v| (e.created_at, v)))
        // A final verdict (allow, modify, block) always comes after the CONFIRM it settles, but
        // may share its second: finality orders them, then time.
        .max_by_key(|(at, v)| (v.action != GuardAction::Confirm, *at))
        .map(|(_, v)| v);
    match last {
        Some(v) if matches!(v.action, GuardAction::Allow | GuardAction::Modify) => Ok(Pass::Go),
        Some(v) if v.action == GuardAction::Block => Ok(Pass::Stop(v.reason)),
        Some(v) => {
            let answer = ctx
                .setup
                .awaiting
                .answers
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get(&key)
                .copied();
            match answer {
                Some(None) => Ok(Pass::Wait),
                Some(Some(a)) => {
                    ctx.setup
                        .awaiting
                        .answers
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .remove(&key);
                    let yes = a == Answer::Yes;
                    let verdict = Verdict::owner_answered(yes);
                    let reason = v.reason.clone();
                    let (thought, _) = propose(ctx, state, None).await;
                    record(ctx, state, decision, &thought, &verdict, None, reason).await;
                    Ok(if yes {
                        Pass::Go
                    } else {
                        Pass::Stop(verdict.reason)
                    })
                }
                None => {
                    // Restarted while the owner was being asked: ask again, as often as the
                    // verdict needs (the event says why, not how many yeses; judging again
                    // says that, and the built-in proposal is the same as before).
                    let (thought, tool) = propose(ctx, state, None).await;
                    let (again, _) = ctx.setup.guardian.decide(&thought, &tool, &me);
                    if again.check == guard::Check::Clarification {
                        let q = again.question.unwrap_or(again.reason);
                        clarify(ctx, decision, format!("\"{}\": {q}", state.task.title));
                        return Ok(Pass::Wait);
                    }
                    let q = again.question.unwrap_or(v.reason);
                    ask(
                        ctx,
                        decision,
                        format!("\"{}\": {q}", state.task.title),
                        again.double,
                    );
                    Ok(Pass::Wait)
                }
            }
        }
        None => judge(ctx, state, decision, None).await,
    }
}

/// Proposes and judges the execution; `answer` is the owner's answer to the mind's clarifying
/// question, when the proposal resumes after one.
async fn judge(
    ctx: &Ctx<'_>,
    state: &TaskState,
    decision: EventId,
    answer: Option<&str>,
) -> Result<Pass, HostError> {
    let started = Instant::now();
    let (thought, tool) = propose(ctx, state, answer).await;
    let actor = ctx.me.keys.public_key();
    // Triceratops may execute decisions; an operation the task asks for (a salary, a message
    // to everyone) needs the level of whoever asked, read from the task's signature: the
    // owner for an owner-signed task, the relaying brain otherwise (DESIGN §12).
    let asked = ctx.setup.minds.guard.asked(&request_text(state));
    let gated: Vec<(&str, PublicKey)> = match asked {
        Some(op) => {
            let origin = task_author(ctx, state).await.unwrap_or(actor);
            vec![("execute_decision", actor), (op.tool.as_str(), origin)]
        }
        None => vec![(tool.as_str(), actor)],
    };
    let (mut verdict, access) =
        ctx.setup
            .guardian
            .decide_with(&thought, &gated, &guard::Facts::default());
    // Origin of work (DESIGN §12): a restart for a task the owner did not sign asks first.
    if let Some(asked) = super::origin::question(ctx, state, &tool, &verdict).await {
        verdict = asked;
    }
    let said = verdict
        .question
        .clone()
        .unwrap_or_else(|| verdict.reason.clone());
    tracing::info!(brain = %ctx.name, task = %state.task_id, action = verdict.action.as_str(), check = verdict.check.as_str(), mind = %thought.mind, "guardian verdict on the execution");
    let published = record_at(
        ctx,
        state,
        decision,
        &thought,
        &verdict,
        access.as_ref(),
        said,
        started,
    )
    .await;
    if !published {
        // Without the verdict event a restart could not know what was decided: try again later.
        return Ok(Pass::Wait);
    }
    Ok(match verdict.action {
        GuardAction::Allow | GuardAction::Modify => Pass::Go,
        GuardAction::Block => Pass::Stop(verdict.reason),
        GuardAction::Confirm if verdict.check == guard::Check::Clarification => {
            let q = verdict.question.unwrap_or(verdict.reason);
            clarify(ctx, decision, format!("\"{}\": {q}", state.task.title));
            Pass::Wait
        }
        GuardAction::Confirm => {
            let q = verdict.question.unwrap_or(verdict.reason);
            ask(
                ctx,
                decision,
                format!("\"{}\": {q}", state.task.title),
                verdict.double,
            );
            Pass::Wait
        }
    })
}

/// What the task asks, as the registry's `asks` phrases are matched against.
fn request_text(state: &TaskState) -> String {
    format!("{}\n{}", state.task.title, state.task.description)
}

/// Who signed the task, as the relay holds it; `None` when it cannot be read (the caller then
/// gates triceratops itself, which holds less than the owner: fails closed).
async fn task_author(ctx: &Ctx<'_>, state: &TaskState) -> Option<PublicKey> {
    let events = ctx
        .link
        .fetch(Filter::new().id(state.task_id).kind(SoulKind::Task.kind()))
        .await
        .ok()?;
    events
        .into_iter()
        .find(|e| e.id == state.task_id)
        .map(|e| e.pubkey)
}

/// Starts asking the owner the mind's clarifying question in the background.
fn clarify(ctx: &Ctx<'_>, decision: EventId, question: String) {
    let (relay, keys, owner) = (
        ctx.setup.relay_url.clone(),
        ctx.me.keys.clone(),
        ctx.setup.owner,
    );
    let ttl = ctx.setup.clock.scale(guard::CONFIRM_TTL);
    await_owner(ctx, decision, |a| &a.clarified, async move {
        guard::ask_clarification(&relay, &keys, owner, &decision.to_hex(), &question, ttl)
            .await
            .unwrap_or_default()
    });
}

/// Starts asking the owner in the background (twice, each with its own code, when `double`).
fn ask(ctx: &Ctx<'_>, decision: EventId, question: String, double: bool) {
    let (relay, keys, owner) = (
        ctx.setup.relay_url.clone(),
        ctx.me.keys.clone(),
        ctx.setup.owner,
    );
    let ttl = ctx.setup.clock.scale(guard::CONFIRM_TTL);
    await_owner(ctx, decision, |a| &a.answers, async move {
        guard::confirm_with_owner(
            &relay,
            &keys,
            owner,
            &decision.to_hex(),
            &question,
            double,
            ttl,
        )
        .await
    });
}

/// Marks `decision` as waiting in the host's `slot` (so the brain's loop goes on meanwhile) and
/// files what `answer` resolves to there, from its own task.
fn await_owner<T: Send + 'static>(
    ctx: &Ctx<'_>,
    decision: EventId,
    slot: fn(&Awaiting) -> &Mutex<Waiting<T>>,
    answer: impl std::future::Future<Output = T> + Send + 'static,
) {
    let key = (ctx.me.keys.public_key(), decision);
    let awaiting = Arc::clone(&ctx.setup.awaiting);
    let file = move |value: Option<T>| {
        slot(&awaiting)
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key, value);
    };
    file(None);
    tokio::spawn(async move { file(Some(answer.await)) });
}

#[allow(clippy::too_many_arguments)]
async fn record(
    ctx: &Ctx<'_>,
    state: &TaskState,
    decision: EventId,
    thought: &Thought<Proposal>,
    verdict: &Verdict,
    access: Option<&Access>,
    said: String,
) {
    record_at(
        ctx,
        state,
        decision,
        thought,
        verdict,
        access,
        said,
        Instant::now(),
    )
    .await;
}

#[allow(clippy::too_many_arguments)]
async fn record_at(
    ctx: &Ctx<'_>,
    state: &TaskState,
    decision: EventId,
    thought: &Thought<Proposal>,
    verdict: &Verdict,
    access: Option<&Access>,
    said: String,
    started: Instant,
) -> bool {
    let d = Decision {
        agent: &ctx.me.name,
        actor: ctx.me.keys.public_key(),
        subject: decision,
        input: state.task.title.clone(),
        context_summary: format!(
            "task {}, decision {decision}, {} opinions",
            state.task_id,
            counted(state).len()
        ),
        thought,
        verdict,
        access,
        final_response: said,
        started,
    };
    match audit::record(ctx.link, &ctx.me.keys, &ctx.setup.minds.karma, d).await {
        Ok(_) => true,
        Err(e) => {
            tracing::warn!(brain = %ctx.name, task = %state.task_id, "audit: {e}");
            false
        }
    }
}

fn counted(state: &TaskState) -> Vec<(BrainName, Opinion)> {
    let round = state.decision.as_ref().map_or(0, |(_, d)| d.round);
    state
        .rounds
        .get(&round)
        .map(|by| by.iter().map(|(b, (_, o))| (*b, o.clone())).collect())
        .unwrap_or_default()
}

/// The execution proposal: the built-in one, or the model's if it gives a valid one.
async fn propose(
    ctx: &Ctx<'_>,
    state: &TaskState,
    answer: Option<&str>,
) -> (Thought<Proposal>, String) {
    let (tool, description, mut params) = if let Some(service) =
        restart::service_named(&state.task.title, &ctx.setup.restart_allowlist)
    {
        (
            "restart_service",
            "ask for the service's restart through the two-step protocol",
            json!({"service": service}),
        )
    } else if let Some(op) = ctx.setup.minds.guard.asked(&request_text(state)) {
        // The task asks for an operation of the registry (a salary, a message to everyone):
        // that is what its execution would do, so that is what the guardian and the gate
        // judge (seed 003 §4.8.3), whatever plan or skill would carry it out.
        (op.tool.as_str(), op.why.as_str(), json!({}))
    } else if let Some(order) = ctx.setup.executor.order(&state.task) {
        (
            "command_worker",
            "tell the worker the task names to carry out the decided command, citing the decision",
            json!({"worker": order.worker_name, "command": order.action.word()}),
        )
    } else if ctx.setup.executor.plan(&state.task).is_some() {
        (
            "run_skill",
            "have the executor run the skill the task names, in its sandbox",
            json!({}),
        )
    } else {
        (
            "record_plan",
            "no skill or worker command carries this out: record the decided plan and tell the owner what would be needed (the task ends needs_owner)",
            json!({}),
        )
    };
    let features = soul_mind::brain::features(&state.task, &ctx.setup.lexicon);
    if let (Some(amount), Some(p)) = (features.amount, params.as_object_mut()) {
        p.insert("amount".into(), json!(amount));
    }
    let opinions = counted(state);
    // How sure the debate was: the yes side's confidence against everyone's. A unanimous,
    // confident yes is near 1; a contested 2-1 falls into the guardian's CONFIRM bands.
    let (yes, all) = opinions.iter().fold((0.0, 0.0), |(y, a), (_, o)| {
        let c = o.confidence.clamp(0.0, 1.0);
        (if o.vote == Vote::Reject { y } else { y + c }, a + c)
    });
    let confidence = if all > 0.0 { yes / all } else { 0.0 };
    let summary = state
        .decision
        .as_ref()
        .map(|(_, d)| d.summary.clone())
        .unwrap_or_default();
    let default = Proposal::call(
        tool,
        params.as_object().cloned().unwrap_or_else(Map::new),
        format!("The brains approved \"{}\": {summary}", state.task.title),
        confidence,
    );
    let mut context = vec![
        format!("task: {}", state.task.title),
        format!("description: {}", state.task.description),
        format!("decision: {summary}"),
    ];
    context.extend(opinions.iter().map(|(b, o)| {
        format!(
            "{b} voted {} (confidence {:.2}): {}",
            o.vote.as_str(),
            o.confidence,
            o.proposed_approach
        )
    }));
    if let Some(a) = answer {
        // The owner's words are data for the mind, never a decision: the guardian judges
        // whatever it proposes next.
        context.push(format!("the owner answered your question: {a}"));
    }
    let lessons = soul_mind::lessons_for(&ctx.setup.minds.karma, &state.task).await;
    let ask = ActAsk {
        agent: &ctx.me.name,
        question: "Carry out the decided task: propose the tool call that executes the decision."
            .into(),
        context,
        tools: vec![(tool.to_owned(), description.to_owned())],
        lessons: &lessons,
        default,
    };
    let thought = ctx.setup.minds.of(&ctx.me.name).propose(&ask).await;
    (thought, tool.to_owned())
}
