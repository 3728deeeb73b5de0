//! Mutual evaluation (4366) and retuning (34360), seed 000's 相互評価サイクル.
//!
//! A cycle is named by its town time (cron, `[schedule] evaluation`) or by the owner's
//! evaluation task (`soul evaluate`). In a cycle each brain scores the other two from their
//! record on finished tasks, thinking with the host's mind (built-in or model). When both others say a brain needs retuning, that brain
//! republishes its params, tagged with the cycle so it never applies the same cycle twice.

use crate::HostError;
use std::collections::{BTreeMap, HashSet};

use nostr::{Event, EventBuilder, Tag, TagKind};
use soul_kinds::content::{evaluation, params};
use soul_kinds::{fold_cycle, tags, BrainName, Evaluation, Params, SoulKind};

use super::step::Ctx;
use super::Debates;
use soul_mind::brain::TaskRecord;
use soul_mind::EvaluationAsk;

/// Evaluations and params events seen, by cycle.
#[derive(Debug, Default)]
pub struct Cycles {
    by_cycle: BTreeMap<String, Vec<Event>>,
    seen: HashSet<nostr::EventId>,
    /// Cycles whose retune this brain already applied (from its own params events' `cycle` tag).
    applied: HashSet<String>,
}

impl Cycles {
    /// Adds an evaluation, or notes a params event's cycle when it is the brain's own.
    pub fn insert(&mut self, event: Event, me: &nostr::PublicKey) -> Option<String> {
        if !self.seen.insert(event.id) {
            return None;
        }
        let cycle = tags::value_of(&event, "cycle").map(str::to_string)?;
        if event.kind == SoulKind::Params.kind() {
            if event.pubkey == *me {
                self.applied.insert(cycle);
            }
            return None;
        }
        self.by_cycle.entry(cycle.clone()).or_default().push(event);
        Some(cycle)
    }

    fn evaluated(&self, cycle: &str, by: &nostr::PublicKey, target: &nostr::PublicKey) -> bool {
        self.by_cycle.get(cycle).is_some_and(|evs| {
            evs.iter()
                .any(|e| e.pubkey == *by && e.tags.public_keys().any(|p| p == target))
        })
    }
}

/// This brain's evaluations of the other two for `cycle`, unless already published.
pub(super) async fn run_cycle(
    ctx: &Ctx<'_>,
    debates: &mut Debates,
    cycles: &mut Cycles,
    cycle: &str,
    params_of: &BTreeMap<BrainName, Params>,
) -> Result<(), HostError> {
    let me = ctx.me.keys.public_key();
    for target in BrainName::ALL.iter().copied().filter(|b| *b != ctx.name) {
        let target_key = ctx.setup.brains.key(target);
        if cycles.evaluated(cycle, &me, &target_key) {
            continue;
        }
        let history = record_of(debates, ctx, target);
        let target_params = params_of
            .get(&target)
            .copied()
            .unwrap_or_else(|| target.default_params());
        let query = format!("retune {target} evaluation");
        let lessons = soul_mind::lessons_about(&ctx.setup.minds.karma, query).await;
        let ask = EvaluationAsk {
            agent: &ctx.me.name,
            evaluator: ctx.name,
            evaluator_params: ctx.params,
            target,
            target_params: &target_params,
            cycle,
            history: &history,
            lessons: &lessons,
        };
        let thought = ctx.setup.minds.of(&ctx.me.name).evaluate(&ask).await;
        let e: Evaluation = thought.value;
        tracing::info!(brain = %ctx.name, %target, cycle, needs_retuning = e.needs_retuning, mind = %thought.mind, "evaluation");
        let event = ctx
            .link
            .publish(&ctx.me.keys, evaluation(target_key, &e))
            .await?;
        cycles.insert(event, &me);
    }
    Ok(())
}

/// The target's last vote and the outcome on every finished task.
fn record_of(debates: &mut Debates, ctx: &Ctx<'_>, target: BrainName) -> Vec<TaskRecord> {
    let mut out = Vec::new();
    for id in debates.all_tasks() {
        let Some(state) = debates.fold(&id, &ctx.setup.brains) else {
            continue;
        };
        let (Some((_, d)), true) = (&state.decision, state.status.is_final()) else {
            continue;
        };
        let last_vote = state
            .rounds
            .values()
            .rev()
            .find_map(|by| by.get(&target).map(|(_, o)| o.vote));
        if let Some(vote) = last_vote {
            out.push(TaskRecord {
                outcome: d.outcome,
                vote,
                status: state.status,
            });
        }
    }
    out
}

/// Republishes this brain's params when both other brains asked for it in `cycle`.
pub(super) async fn maybe_retune(
    ctx: &Ctx<'_>,
    cycles: &mut Cycles,
    cycle: &str,
) -> Result<Option<Params>, HostError> {
    if cycles.applied.contains(cycle) {
        return Ok(None);
    }
    let events = cycles.by_cycle.get(cycle).cloned().unwrap_or_default();
    let (_, retunes, _) = fold_cycle(cycle, &events, &ctx.setup.brains);
    let Some(retune) = retunes.into_iter().find(|r| r.target == ctx.name) else {
        return Ok(None);
    };
    let why = format!(
        "{} retuned after evaluation cycle {cycle}: {} and {} agreed — {}",
        ctx.name,
        retune.by[0],
        retune.by[1],
        retune.reasons.join(" / ")
    );
    let builder = params(ctx.name.as_str(), &retune.params)
        .tag(Tag::custom(TagKind::custom("cycle"), [cycle]));
    let event = ctx.link.publish(&ctx.me.keys, builder).await?;
    let params_id = event.id;
    cycles.insert(event, &ctx.me.keys.public_key());
    ctx.link
        .publish(
            &ctx.me.keys,
            EventBuilder::text_note(&why).tag(Tag::hashtag("soul")),
        )
        .await?;
    tracing::info!(brain = %ctx.name, cycle, "{why}");
    // Karma (seed 002): a retune leaves a lesson, about the params event it produced.
    soul_mind::upkeep::learn(
        ctx.link,
        &ctx.me.keys,
        &ctx.me.name,
        &ctx.setup.minds.thinking(&ctx.me.name),
        "retune",
        params_id,
        &why,
    )
    .await;
    Ok(Some(retune.params))
}

/// Params of each brain: the latest of its own 34360 (a retune) and the owner's 34360 for it
/// (DESIGN §12); brains absent from the map think with their seed params.
pub fn latest_params(
    events: &[Event],
    brains: &soul_kinds::Brains,
    owner: &nostr::PublicKey,
) -> BTreeMap<BrainName, Params> {
    soul_kinds::fold_params(events, brains, owner)
}

/// Whether a task event asks for an evaluation cycle (`soul evaluate`) rather than a debate.
pub fn is_evaluation_request(task: &soul_kinds::Task) -> bool {
    task.task_type == "evaluation"
}
