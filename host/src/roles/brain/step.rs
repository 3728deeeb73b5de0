//! One step of one task, from one brain's point of view. Every step is decided from the fold,
//! so repeating it (after a restart, or a second tick) never publishes twice.

use crate::HostError;
use nostr::nips::nip19::{Nip19Event, ToBech32};
use nostr::{EventBuilder, EventId, Tag, TagKind, Timestamp};
use soul_kinds::content::{announcement, decision, execution, opinion};
use soul_kinds::{
    agreement, BrainName, Decision, ExecStatus, Execution, Opinion, Outcome, Params, RestartState,
    TaskState, TaskStatus,
};

use super::confirm;
use super::restart::{self, Restarts};
use super::{BrainSetup, Debates, ROUND_TIMEOUT};
use crate::roles::executor::dispatch::Progress;
use soul_link::Identity;
use soul_link::Link;
use soul_mind::brain::{self as mind, BrainContext, Language};
use soul_mind::upkeep::{self, Running};

/// The last round before triceratops mediates.
const LAST_ROUND: u8 = 3;

pub(super) struct Ctx<'a> {
    pub me: &'a Identity,
    pub name: BrainName,
    pub params: &'a Params,
    pub setup: &'a BrainSetup,
    pub link: &'a Link,
}

impl Ctx<'_> {
    /// What the brains read in `state`'s task, a valid confirmation of the owner's included.
    fn features(&self, debates: &mut Debates, state: &TaskState) -> mind::Features {
        confirm::features_of(
            debates,
            state,
            &self.setup.owner,
            &self.setup.brains,
            &self.setup.lexicon,
        )
    }

    async fn publish(
        &self,
        debates: &mut Debates,
        builder: EventBuilder,
    ) -> Result<EventId, HostError> {
        let event = self.link.publish(&self.me.keys, builder).await?;
        let id = event.id;
        debates.insert(event);
        Ok(id)
    }
}

/// Takes whatever step `ctx`'s brain owes task `id` now.
pub(super) async fn advance(
    ctx: &Ctx<'_>,
    debates: &mut Debates,
    restarts: &mut Restarts,
    id: EventId,
) -> Result<(), HostError> {
    let brains = &ctx.setup.brains;
    if !debates.from_owner(&id, &ctx.setup.owner, brains) {
        return Ok(());
    }
    let Some(state) = debates.fold(&id, brains) else {
        return Ok(());
    };
    let tri = ctx.name == BrainName::Triceratops;
    match state.status {
        TaskStatus::Discussing => discuss(ctx, debates, &state).await,
        TaskStatus::PendingAnnouncement if tri => announce(ctx, debates, &state).await,
        TaskStatus::Announced if tri => execute(ctx, debates, restarts, &state).await,
        TaskStatus::Executing if tri => finish(ctx, debates, restarts, &state).await,
        _ => Ok(()),
    }
}

/// The round that is open for voting: the current one, or the next when the current one's
/// deadline passed without 2 of 3 (some brain did not vote in time).
fn open_round(state: &TaskState, debates: &Debates, deadline_secs: u64) -> (u8, bool) {
    let round = state.current_round();
    let Some(opinions) = state.rounds.get(&round) else {
        return (round, false);
    };
    let first = opinions
        .values()
        .filter_map(|(id, _)| debates.created_at(&state.task_id, id))
        .min()
        .unwrap_or_else(Timestamp::now);
    let closed =
        opinions.len() == 3 || Timestamp::now().as_secs() >= first.as_secs() + deadline_secs;
    if closed && round < LAST_ROUND {
        (round + 1, false)
    } else {
        (round, closed)
    }
}

async fn discuss(ctx: &Ctx<'_>, debates: &mut Debates, state: &TaskState) -> Result<(), HostError> {
    let current = state.current_round();
    // Agreement on the outcome and the conditions, not merely 2 of 3 (see soul_kinds::agreement).
    let opinions = opinions_of(state, current);
    let by: Vec<(BrainName, &Opinion)> = opinions.iter().map(|(b, o)| (*b, o)).collect();
    if let Some(outcome) = agreement(&by) {
        if ctx.name == BrainName::Gorilla {
            publish_decision(ctx, debates, state, current, outcome, None).await?;
        }
        return Ok(());
    }
    let deadline = ctx.setup.clock.scale(ROUND_TIMEOUT).as_secs().max(1);
    let (round, last_closed) = open_round(state, debates, deadline);
    if last_closed {
        if ctx.name == BrainName::Triceratops {
            mediate(ctx, debates, state).await?;
        }
        return Ok(());
    }
    if state.has_voted(ctx.name, round) {
        return Ok(());
    }
    let features = ctx.features(debates, state);
    let previous: Vec<(BrainName, Opinion)> = state
        .rounds
        .range(..round)
        .flat_map(|(_, by)| by.iter().map(|(b, (_, o))| (*b, o.clone())))
        .collect();
    // Karma (seed 002): the few most relevant live lessons, for the built-in mind to cite and
    // the model to read below Soul and Skills.
    let lessons = soul_mind::lessons_for(&ctx.setup.minds.karma, &state.task).await;
    let ask = soul_mind::OpinionAsk {
        agent: &ctx.me.name,
        brain: BrainContext {
            brain: ctx.name,
            params: ctx.params,
            task_id: state.task_id,
            task: &state.task,
            features: &features,
            round,
            previous: &previous,
            lessons: &lessons,
        },
    };
    let thought = ctx.setup.minds.of(&ctx.me.name).opinion(&ask).await;
    // The mind proposes a vote; the harm floor decides whether a yes may stand.
    let mine = soul_mind::brain::harm_floor(&ask.brain, thought.value);
    tracing::info!(brain = %ctx.name, task = %state.task_id, round, vote = mine.vote.as_str(), mind = %thought.mind, "opinion");
    // Rounds 2–3 answer the others' opinions of the round before: quoted (NIP-18 `q`), so any
    // client can show what each opinion answers.
    let answered: Vec<Tag> = state
        .rounds
        .get(&round.saturating_sub(1))
        .into_iter()
        .flat_map(|by| by.iter())
        .filter(|(b, _)| **b != ctx.name)
        .map(|(_, (id, _))| Tag::custom(TagKind::q(), [id.to_hex()]))
        .collect();
    ctx.publish(debates, opinion(state.task_id, &mine).tags(answered))
        .await?;
    Ok(())
}

fn counted(state: &TaskState, round: u8) -> Vec<(EventId, BrainName, Opinion)> {
    state
        .rounds
        .get(&round)
        .map(|by| by.iter().map(|(b, (id, o))| (*id, *b, o.clone())).collect())
        .unwrap_or_default()
}

/// The accepted opinions of `round`, by brain, without their event ids.
fn opinions_of(state: &TaskState, round: u8) -> Vec<(BrainName, Opinion)> {
    counted(state, round)
        .into_iter()
        .map(|(_, b, o)| (b, o))
        .collect()
}

async fn publish_decision(
    ctx: &Ctx<'_>,
    debates: &mut Debates,
    state: &TaskState,
    round: u8,
    outcome: Outcome,
    mediation: Option<String>,
) -> Result<(), HostError> {
    let mediated = mediation.is_some();
    let counted = counted(state, round);
    let ids: Vec<EventId> = counted.iter().map(|(id, ..)| *id).collect();
    let tally = state.tally(round);
    let language = mind::Language::of_task(&state.task);
    let mut summary = mind::decision_summary(&state.task, outcome, tally, mediated, language);
    if let Some(reason) = mediation {
        summary = format!("{summary} {reason}");
    }
    if outcome == Outcome::Rejected {
        if let Some(how) = confirm::offer(debates, state, &ctx.setup.owner, &ctx.setup.lexicon) {
            summary = format!("{summary} {how}");
        }
    }
    let content = Decision {
        outcome,
        round,
        tally,
        mediated,
        summary: summary.clone(),
    };
    tracing::info!(brain = %ctx.name, task = %state.task_id, outcome = outcome.as_str(), round, "decision");
    ctx.publish(debates, decision(state.task_id, &content, &ids))
        .await?;
    note(ctx, debates, state.task_id, &summary).await
}

async fn mediate(ctx: &Ctx<'_>, debates: &mut Debates, state: &TaskState) -> Result<(), HostError> {
    let features = ctx.features(debates, state);
    let last: Vec<(BrainName, Opinion)> = opinions_of(state, LAST_ROUND);
    let (outcome, reason) = mind::mediate(state.task_id, &state.task, &features, ctx.params, &last);
    publish_decision(ctx, debates, state, LAST_ROUND, outcome, Some(reason)).await
}

async fn announce(
    ctx: &Ctx<'_>,
    debates: &mut Debates,
    state: &TaskState,
) -> Result<(), HostError> {
    let Some((decision_id, d)) = &state.decision else {
        return Ok(());
    };
    let language = mind::Language::of_task(&state.task);
    let counted: Vec<(BrainName, Opinion)> = opinions_of(state, d.round);
    let ann = mind::announcement(&state.task, d.outcome, &counted, language);
    ctx.publish(debates, announcement(state.task_id, *decision_id, &ann))
        .await?;
    note(ctx, debates, state.task_id, &ann.summary).await
}

async fn execute(
    ctx: &Ctx<'_>,
    debates: &mut Debates,
    restarts: &mut Restarts,
    state: &TaskState,
) -> Result<(), HostError> {
    let Some((decision_id, _)) = &state.decision else {
        return Ok(());
    };
    let language = mind::Language::of_task(&state.task);
    // Nothing runs before the guardian and the gate say so (DESIGN §5).
    let refused = match super::guarded::pass(ctx, state, *decision_id).await? {
        super::guarded::Pass::Go => None,
        super::guarded::Pass::Wait => return Ok(()),
        super::guarded::Pass::Stop(why) => Some(why),
    };
    let start = Execution {
        status: ExecStatus::Executing,
        result: starting(language, &state.task.title),
    };
    ctx.publish(debates, execution(state.task_id, *decision_id, &start))
        .await?;
    if let Some(why) = refused {
        let failed = Execution {
            status: ExecStatus::Failed,
            result: format!("the guardian stopped it: {why}"),
        };
        ctx.publish(debates, execution(state.task_id, *decision_id, &failed))
            .await?;
        let log = format!("\"{}\" was stopped: {why}", state.task.title);
        upkeep::learn(
            ctx.link,
            &ctx.me.keys,
            &ctx.me.name,
            &ctx.setup.minds.thinking(&ctx.me.name),
            "execution",
            state.task_id,
            &log,
        )
        .await;
        return note(ctx, debates, state.task_id, &failed.result).await;
    }
    // The execution is a job until it ends: its heart beats while workers, a restart or the
    // executor take their time, and a host that dies mid-way leaves a job the zombie hunter
    // reclaims (its log saying what was being done).
    let what = format!(
        "executing \"{}\" (decision {decision_id})",
        state.task.title
    );
    if let Some(job) = Running::start(
        &ctx.setup.minds.karma,
        "execution",
        state.task_id,
        &ctx.me.name,
        &what,
    )
    .await
    {
        ctx.setup.jobs.keep(state.task_id, job);
    }
    if let Some(service) = restart::service_named(&state.task.title, &ctx.setup.restart_allowlist) {
        // Triceratops never restarts anything itself: it asks, and waits for panda.
        let request = restart::request(ctx, state.task_id, &service).await?;
        restarts.insert(request);
        return Ok(());
    }
    if let Some(order) = ctx.setup.executor.order(&state.task) {
        // The task asks a worker to pause, resume or adjust: it is told, citing the decision,
        // and `finish` reads its answer.
        return ctx
            .setup
            .executor
            .command(ctx.me, *decision_id, &order)
            .await;
    }
    if let Some(job) = ctx.setup.executor.plan(&state.task) {
        // The task names a skill and an executor: the executor runs it; `finish` reads the result.
        return ctx.setup.executor.send(ctx.me, *decision_id, &job).await;
    }
    finish(ctx, debates, restarts, state).await
}

/// Completes (or fails) an execution in progress: a restart's outcome, or the recorded plan.
async fn finish(
    ctx: &Ctx<'_>,
    debates: &mut Debates,
    restarts: &mut Restarts,
    state: &TaskState,
) -> Result<(), HostError> {
    let Some((decision_id, d)) = &state.decision else {
        return Ok(());
    };
    let language = mind::Language::of_task(&state.task);
    let done = match restarts.request_for(&state.task_id).cloned() {
        Some(request) => match restarts.state(&request.id, ctx, debates).map(|s| s.state) {
            Some(RestartState::Completed) => Execution {
                status: ExecStatus::Completed,
                result: "restart performed by panda after gorilla's approval".into(),
            },
            Some(RestartState::Failed) => Execution {
                status: ExecStatus::Failed,
                result: "panda could not perform the restart".into(),
            },
            Some(RestartState::Refused(why)) => Execution {
                status: ExecStatus::Failed,
                result: format!("restart refused: {why}"),
            },
            _ if restart::expired(request.created_at, ctx) => Execution {
                status: ExecStatus::Failed,
                result: "no answer to the restart request within 300 s".into(),
            },
            _ => return Ok(()),
        },
        None => match executor_progress(ctx, debates, state, *decision_id).await? {
            Progress::Done(e) => e,
            Progress::Waiting => return Ok(()),
            Progress::NotMine => {
                // Nothing the town has can carry it out: say so, and what would be needed,
                // rather than call a plan "completed" (DESIGN §12).
                let counted: Vec<(BrainName, Opinion)> = opinions_of(state, d.round);
                let plan = mind::execution_plan(&state.task, &counted, language);
                let skills = ctx.setup.executor.skill_names().join(", ");
                Execution {
                    status: ExecStatus::NeedsOwner,
                    result: needs_owner(language, &skills, &plan),
                }
            }
        },
    };
    let failed = done.status == ExecStatus::Failed;
    let needs_owner = done.status == ExecStatus::NeedsOwner;
    ctx.publish(debates, execution(state.task_id, *decision_id, &done))
        .await?;
    // Karma (seed 002): a failed execution leaves a lesson. Its job was started by this
    // process, or (after a restart) by an earlier one, whose job this one carries on.
    let log = format!(
        "\"{}\" {}: {}",
        state.task.title,
        done.status.as_str(),
        done.result
    );
    let (keys, name, minds) = (
        &ctx.me.keys,
        ctx.me.name.as_str(),
        &ctx.setup.minds.thinking(&ctx.me.name),
    );
    let job = match ctx.setup.jobs.take(&state.task_id) {
        Some(job) => Some(job),
        None => Running::adopt(&minds.karma, "execution", state.task_id, name).await,
    };
    match (job, failed) {
        (Some(job), false) => job.succeed(&log).await,
        (Some(job), true) => job.fail(ctx.link, keys, name, minds, &log).await,
        (None, true) => {
            upkeep::learn(
                ctx.link,
                keys,
                name,
                minds,
                "execution",
                state.task_id,
                &log,
            )
            .await
        }
        (None, false) => {}
    }
    let msg = match (language, failed) {
        _ if needs_owner => match language {
            Language::Ja => format!(
                "「{}」は、この町の手段では実行できません。{}",
                state.task.title, done.result
            ),
            Language::En => format!("\"{}\" needs you: {}", state.task.title, done.result),
        },
        (Language::Ja, false) => format!("「{}」の実行を完了しました。", state.task.title),
        (Language::Ja, true) => format!(
            "「{}」の実行に失敗しました: {}",
            state.task.title, done.result
        ),
        (Language::En, false) => format!("Done: \"{}\" is completed.", state.task.title),
        (Language::En, true) => format!("\"{}\" failed: {}", state.task.title, done.result),
    };
    note(ctx, debates, state.task_id, &msg).await
}

/// What the owner is told when no skill or worker command can carry a decision out.
fn needs_owner(language: Language, skills: &str, plan: &str) -> String {
    let text = match language {
        Language::Ja => format!(
            "この町のスキル（{skills}）にも作業者のコマンドにも、これを実行できるものがありません。実行するには、それを行うスキルを skills/ に加えるか、オーナーご自身で行ってください。決まった計画: {plan}"
        ),
        Language::En => format!(
            "no skill of this town ({skills}) and no worker command can carry this out. To have it done, add a skill that does it to skills/, or do it yourself. The decided plan: {plan}"
        ),
    };
    text.chars().take(1900).collect()
}

/// Where the executor's run for this task stands (see [`crate::roles::executor::dispatch`]).
async fn executor_progress(
    ctx: &Ctx<'_>,
    debates: &Debates,
    state: &TaskState,
    decision: EventId,
) -> Result<Progress, HostError> {
    let started = state
        .executions
        .first()
        .and_then(|(id, _)| debates.created_at(&state.task_id, id));
    let exec = &ctx.setup.executor;
    exec.progress(ctx.me, &state.task, decision, started).await
}

fn starting(language: Language, title: &str) -> String {
    match language {
        Language::Ja => format!("「{title}」の実行を開始します。"),
        Language::En => format!("Starting on \"{title}\"."),
    }
}

/// A short kind-1 note for people's clients, linking the task (NIP-19 nevent, NIP-10 mention).
async fn note(
    ctx: &Ctx<'_>,
    debates: &mut Debates,
    task: EventId,
    text: &str,
) -> Result<(), HostError> {
    let link = Nip19Event::new(task)
        .to_bech32()
        .map(|b| format!("\n\nnostr:{b}"))
        .unwrap_or_default();
    let builder = EventBuilder::text_note(format!("{text}{link}"))
        .tag(Tag::parse(["e", &task.to_hex(), "", "mention"]).expect("a valid e tag"))
        .tag(Tag::hashtag("soul"));
    ctx.publish(debates, builder).await.map(|_| ())
}
