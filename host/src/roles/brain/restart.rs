//! The two-step restart protocol (4369), seed 000's リビルドプロトコル on Nostr:
//! triceratops requests, gorilla checks the allowlist and the approved decision, panda checks
//! again and performs it through its host. Nobody restarts itself; the requester waits at most
//! [`RESTART_WAIT`] of town time before it records the execution as failed.

use crate::HostError;
use std::collections::{BTreeMap, HashSet};
use std::time::Duration;

use nostr::{Event, EventId, Timestamp};
use soul_kinds::content::restart;
use soul_kinds::{
    fold_restart, parse, review_request, tags, BrainName, Outcome, RestartRules, RestartState,
    RestartStatus, RestartStep, SoulKind,
};

use super::step::Ctx;
use super::Debates;

/// How long triceratops waits for a restart it requested.
pub const RESTART_WAIT: Duration = Duration::from_secs(300);

/// Requests and the steps answering them.
#[derive(Debug, Default)]
pub struct Restarts {
    requests: BTreeMap<EventId, Event>,
    steps: Vec<Event>,
    seen: HashSet<EventId>,
}

impl Restarts {
    /// Files a restart event.
    pub fn insert(&mut self, event: Event) {
        if event.kind != SoulKind::Restart.kind() || !self.seen.insert(event.id) {
            return;
        }
        match parse::<RestartStep>(&event) {
            Ok(step) if step.status == RestartStatus::PendingApproval => {
                self.requests.insert(event.id, event);
            }
            Ok(_) => self.steps.push(event),
            Err(e) => tracing::debug!("unreadable restart event: {e}"),
        }
    }

    /// The request made for `task`, if any.
    pub fn request_for(&self, task: &EventId) -> Option<&Event> {
        self.requests
            .values()
            .find(|r| tags::task_ref(r) == Some(*task))
    }

    /// Folds the request `id`.
    pub fn state(
        &self,
        id: &EventId,
        ctx: &Ctx<'_>,
        debates: &mut Debates,
    ) -> Option<soul_kinds::RestartRequest> {
        let request = self.requests.get(id)?;
        let approved = approved_tasks(debates, ctx);
        let check = |t: &EventId| approved.contains(t);
        let rules = RestartRules {
            allowlist: &ctx.setup.restart_allowlist,
            approved_tasks: &check,
        };
        fold_restart(request, &self.steps, &ctx.setup.brains, &rules)
            .ok()
            .map(|(s, _)| s)
    }
}

fn approved_tasks(debates: &mut Debates, ctx: &Ctx<'_>) -> HashSet<EventId> {
    debates
        .all_tasks()
        .into_iter()
        .filter(|id| {
            debates
                .fold(id, &ctx.setup.brains)
                .and_then(|s| s.decision)
                .is_some_and(|(_, d)| d.outcome == Outcome::Approved)
        })
        .collect()
}

/// The service a task asks to restart: "restart the reporter", 「reporterを再起動」.
pub fn service_named(title: &str, allowlist_and_roster: &[String]) -> Option<String> {
    let lower = title.to_lowercase();
    let asks = lower.contains("restart") || title.contains("再起動");
    if !asks {
        return None;
    }
    allowlist_and_roster
        .iter()
        .find(|name| {
            lower
                .split(|c: char| !c.is_alphanumeric() && c != '-')
                .any(|w| w == name.as_str())
        })
        .cloned()
}

/// Gorilla and panda's parts, for every open request.
pub(super) async fn answer(
    ctx: &Ctx<'_>,
    restarts: &mut Restarts,
    debates: &mut Debates,
) -> Result<(), HostError> {
    if !matches!(ctx.name, BrainName::Gorilla | BrainName::Panda) {
        return Ok(());
    }
    let ids: Vec<EventId> = restarts.requests.keys().copied().collect();
    for id in ids {
        let Some(state) = restarts.state(&id, ctx, debates) else {
            continue;
        };
        let request = &restarts.requests[&id];
        let Ok(step) = parse::<RestartStep>(request) else {
            continue;
        };
        let requester = ctx
            .setup
            .brains
            .name_of(&request.pubkey)
            .unwrap_or(BrainName::Panda);
        let approved = approved_tasks(debates, ctx).contains(&state.task);
        let review = review_request(&step, requester, approved, &ctx.setup.restart_allowlist);
        let reply = |status, reason: String| RestartStep {
            service: state.service.clone(),
            status,
            reason,
        };
        let out = match (ctx.name, &state.state) {
            (BrainName::Gorilla, RestartState::Requested) => Some(match review {
                Ok(()) => reply(
                    RestartStatus::Approved,
                    "allowlisted, and its task has an approved decision".into(),
                ),
                Err(why) => reply(RestartStatus::Failed, why.to_string()),
            }),
            (BrainName::Panda, RestartState::Approved) => Some(match review {
                Err(why) => reply(RestartStatus::Failed, format!("re-check failed: {why}")),
                Ok(()) => match ctx.setup.supervisor.restart(&state.service).await {
                    Ok(()) => reply(
                        RestartStatus::Completed,
                        format!("{} restarted", state.service),
                    ),
                    Err(why) => reply(RestartStatus::Failed, why),
                },
            }),
            _ => None,
        };
        if let Some(content) = out {
            tracing::info!(brain = %ctx.name, service = %content.service, status = content.status.as_str(), "restart protocol: {}", content.reason);
            let step = ctx
                .link
                .publish(&ctx.me.keys, restart(state.task, Some(id), &content))
                .await?;
            // Filed at once: the next pass, woken by any event before this one comes back from
            // the relay, must see the step taken, or panda restarts the service again.
            restarts.insert(step);
        }
    }
    Ok(())
}

/// Triceratops's request for `service` on behalf of `task`.
pub(super) async fn request(
    ctx: &Ctx<'_>,
    task: EventId,
    service: &str,
) -> Result<Event, HostError> {
    let content = RestartStep {
        service: service.to_string(),
        status: RestartStatus::PendingApproval,
        reason: "the approved task asks for it".into(),
    };
    Ok(ctx
        .link
        .publish(&ctx.me.keys, restart(task, None, &content))
        .await?)
}

/// Whether a request made at `at` has waited longer than it may.
pub fn expired(at: Timestamp, ctx: &Ctx<'_>) -> bool {
    Timestamp::now().as_secs() > at.as_secs() + ctx.setup.clock.scale(RESTART_WAIT).as_secs().max(1)
}
