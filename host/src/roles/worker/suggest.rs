//! Suggestions (4368): a worker proposes an improvement, at most once per rolling hour, and
//! triceratops turns each accepted suggestion into a low-priority task (seed 000's
//! `suggest.sh` → "Triceratops fetches and validates → a low-priority task in the inbox").
//!
//! Both sides count from the relay, never from memory, so the window survives restarts and a
//! worker that ignores its own limit is still held to it: triceratops judges every suggestion
//! once, records the judgement as a verdict (4370, check `suggestion_rate`) and relays only the
//! allowed ones as tasks (4360, `p` owner, `e` suggestion, priority low, type `suggestion`).

use crate::HostError;
use std::collections::{HashMap, HashSet};
use std::time::Duration;

use nostr::{Event, EventId, Filter, PublicKey, Timestamp};
use nostr_sdk::RelayPoolNotification;
use soul_kinds::content::{suggestion, task, verdict};
use soul_kinds::{
    parse, tags, AuditVerdict, BrainName, GuardAction, Priority, Relayed, Role, SoulKind,
    Suggestion, Task,
};
use tokio::sync::Mutex;
use tokio::task::{AbortHandle, JoinSet};

use crate::roles::RoleCtx;
use soul_link::Identity;
use soul_link::{live_since, Link};

/// The rolling window: one suggestion per worker per this many seconds.
pub const WINDOW_SECS: u64 = 3600;

/// The verdict check name for suggestion judgements.
pub const CHECK: &str = "suggestion_rate";

/// Whether a suggestion at `now` keeps the limit, given earlier ones at `before`; `Err` holds
/// the seconds to wait.
pub fn window_allows(before: &[Timestamp], now: Timestamp) -> Result<(), u64> {
    let latest = before.iter().filter(|t| t.as_secs() <= now.as_secs()).max();
    match latest {
        Some(t) if now.as_secs() - t.as_secs() < WINDOW_SECS => {
            Err(WINDOW_SECS - (now.as_secs() - t.as_secs()))
        }
        _ => Ok(()),
    }
}

/// Triceratops's rule: an allowed suggestion keeps the whole window around it, before and after
/// (clocks differ); `Err` holds the seconds until `at` would have been allowed.
pub fn apart(allowed: &[Timestamp], at: Timestamp) -> Result<(), u64> {
    match allowed
        .iter()
        .map(|t| t.as_secs().abs_diff(at.as_secs()))
        .min()
    {
        Some(d) if d < WINDOW_SECS => Err(WINDOW_SECS - d),
        _ => Ok(()),
    }
}

/// Triceratops's events of `kind` that reference any of `ids`: filtered by `#e` so that the
/// answer stays small however many other verdicts and tasks triceratops has published.
fn about(kind: SoulKind, author: PublicKey, ids: &[EventId]) -> Filter {
    Filter::new()
        .kind(kind.kind())
        .author(author)
        .events(ids.iter().copied())
}

/// Publishes `s` as worker `me` unless it made one within the hour (read from the relay);
/// `Ok(None)` when the window refuses it.
pub async fn suggest(
    link: &Link,
    me: &Identity,
    s: &Suggestion,
    turn: &Mutex<()>,
) -> Result<Option<Event>, HostError> {
    // One at a time per host (`turn`), so two at once cannot both pass the window check.
    let _one_at_a_time = turn.lock().await;
    let now = Timestamp::now();
    let mine = link
        .fetch(
            Filter::new()
                .kind(SoulKind::Suggestion.kind())
                .author(me.keys.public_key())
                .since(now - WINDOW_SECS),
        )
        .await?;
    let times: Vec<Timestamp> = mine.iter().map(|e| e.created_at).collect();
    if let Err(wait) = window_allows(&times, now) {
        tracing::info!(worker = %me.name, wait_secs = wait, title = %s.title, "suggestion held back: one per hour");
        return Ok(None);
    }
    let event = link.publish(&me.keys, suggestion(s)).await?;
    tracing::info!(worker = %me.name, id = %event.id, title = %s.title, "suggestion published");
    Ok(Some(event))
}

/// The executor's suggestion when a skill ran into the run time-out (`limit_secs`).
pub async fn after_timeout(
    link: &Link,
    me: &Identity,
    skill: &str,
    limit_secs: u64,
    turn: &Mutex<()>,
) {
    let s = Suggestion {
        title: format!("Review skill {skill}: it hit the {limit_secs} s run time-out"),
        description: format!(
            "{} killed skill {skill} at the {limit_secs} s run time-out. Either its work is too big \
             for one run (split it, or raise run_timeout_secs up to 30) or it hangs (check its \
             command and arguments).",
            me.name
        ),
    };
    if let Err(e) = suggest(link, me, &s, turn).await {
        tracing::warn!(worker = %me.name, "could not publish a suggestion: {e}");
    }
}

/// Starts [`relay_suggestions`] when `agent` is triceratops.
pub fn spawn_for_triceratops(
    tasks: &mut JoinSet<Result<(), HostError>>,
    agent: &Identity,
    ctx: &RoleCtx,
) -> Option<AbortHandle> {
    let brains = ctx.options.roster.brains()?;
    (brains.name_of(&agent.keys.public_key()) == Some(BrainName::Triceratops))
        .then(|| tasks.spawn(relay_suggestions(agent.clone(), ctx.clone())))
}

/// Triceratops: judges every worker suggestion once and relays the allowed ones as tasks.
pub async fn relay_suggestions(me: Identity, ctx: RoleCtx) -> Result<(), HostError> {
    let roster = &ctx.options.roster;
    let workers: HashSet<PublicKey> = roster
        .members()
        .iter()
        .filter(|m| matches!(m.role, Role::Buddy | Role::Executor))
        .map(|m| m.pubkey)
        .collect();
    if workers.is_empty() {
        return Ok(());
    }
    let kind = SoulKind::Suggestion.kind();
    let mut notifications = ctx.link.client().notifications();
    let mut published = ctx.link.published();
    ctx.link
        .subscribe(Filter::new().kind(kind).since(live_since()))
        .await?;
    loop {
        let karma = &ctx.options.minds.karma;
        if let Err(e) = judge_all(&ctx.link, &me, roster.owner, &workers, karma).await {
            tracing::warn!(brain = %me.name, "judging suggestions failed: {e}");
        }
        // Wait for the next suggestion (or re-check each minute, for a missed notification).
        let wait = tokio::time::sleep(Duration::from_secs(60));
        tokio::pin!(wait);
        loop {
            tokio::select! {
                _ = &mut wait => break,
                n = notifications.recv() => match n {
                    Ok(RelayPoolNotification::Event { event, .. }) if event.kind == kind => break,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return Ok(()),
                    _ => {}
                },
                p = published.recv() => match p {
                    Ok(e) if e.kind == kind => break,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return Ok(()),
                    _ => {}
                },
            }
        }
    }
}

async fn judge_all(
    link: &Link,
    me: &Identity,
    owner: PublicKey,
    workers: &HashSet<PublicKey>,
    karma: &soul_karma::Karma,
) -> Result<(), HostError> {
    let mine = me.keys.public_key();
    let mut suggestions: Vec<Event> = link
        .fetch(
            Filter::new()
                .kind(SoulKind::Suggestion.kind())
                .authors(workers.iter().copied()),
        )
        .await?
        .into_iter()
        .filter(|e| workers.contains(&e.pubkey))
        .collect();
    suggestions.sort_by_key(|e| (e.created_at, e.id));
    if suggestions.is_empty() {
        return Ok(());
    }
    let ids: Vec<EventId> = suggestions.iter().map(|e| e.id).collect();
    let judged: HashMap<EventId, GuardAction> = link
        .fetch(about(SoulKind::Verdict, mine, &ids))
        .await?
        .iter()
        .filter_map(|e| {
            let v = parse::<AuditVerdict>(e).ok().filter(|v| v.check == CHECK)?;
            Some((tags::e_refs(e).next()?.id, v.action))
        })
        .collect();
    let relayed: HashSet<EventId> = link
        .fetch(about(SoulKind::Task, mine, &ids))
        .await?
        .iter()
        .flat_map(|e| tags::e_refs(e).map(|r| r.id).collect::<Vec<_>>())
        .collect();
    // Judgements already made count first, whatever their order: a new suggestion from the
    // same second as an allowed one must not slip in ahead of it.
    let mut allowed: HashMap<PublicKey, Vec<Timestamp>> = HashMap::new();
    for s in suggestions
        .iter()
        .filter(|s| judged.get(&s.id) == Some(&GuardAction::Allow))
    {
        allowed.entry(s.pubkey).or_default().push(s.created_at);
    }
    for s in &suggestions {
        let content = parse::<Suggestion>(s);
        let action = match judged.get(&s.id) {
            Some(a) => *a,
            None => {
                let others = allowed.get(&s.pubkey).map(Vec::as_slice).unwrap_or(&[]);
                let (action, reason) = match (&content, apart(others, s.created_at)) {
                    (Err(e), _) => (GuardAction::Block, format!("unreadable suggestion: {e}")),
                    (Ok(_), Err(wait)) => (
                        GuardAction::Block,
                        format!(
                            "one suggestion per worker per hour; the next is allowed in {wait} s"
                        ),
                    ),
                    (Ok(_), Ok(())) => (GuardAction::Allow, "within the hourly limit".to_string()),
                };
                let v = AuditVerdict {
                    proposal: content
                        .as_ref()
                        .map(|c| format!("suggestion: {}", c.title))
                        .unwrap_or_else(|_| format!("suggestion {}", s.id)),
                    action,
                    reason,
                    check: CHECK.into(),
                };
                let e = link.publish(&me.keys, verdict(s.id, &v)).await?;
                let input = content.as_ref().map_or_else(
                    |_| s.content.clone(),
                    |c| format!("{}\n{}", c.title, c.description),
                );
                soul_guard::audit::rule_row(karma, &me.name, s.pubkey, s.id, e.id, &v, input).await;
                tracing::info!(brain = %me.name, suggestion = %s.id, action = action.as_str(), reason = %v.reason, "suggestion judged");
                action
            }
        };
        if action != GuardAction::Allow {
            continue;
        }
        if !judged.contains_key(&s.id) {
            allowed.entry(s.pubkey).or_default().push(s.created_at);
        }
        if let (Ok(c), false) = (&content, relayed.contains(&s.id)) {
            let t = Task {
                title: c.title.clone(),
                description: c.description.clone(),
                priority: Priority::Low,
                task_type: "suggestion".into(),
            };
            let relay = Relayed {
                owner,
                source: s.id,
            };
            let e = link.publish(&me.keys, task(&t, Some(relay))).await?;
            tracing::info!(brain = %me.name, suggestion = %s.id, task = %e.id, "suggestion became a low-priority task");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_per_rolling_hour() {
        let t = |s: u64| Timestamp::from(s);
        assert_eq!(window_allows(&[], t(10_000)), Ok(()));
        assert_eq!(window_allows(&[t(10_000)], t(10_100)), Err(3500));
        assert_eq!(window_allows(&[t(10_000)], t(13_600)), Ok(()));
        // Rolling, not per clock hour: 59 minutes later across an hour boundary is still too soon.
        assert!(window_allows(&[t(3_599)], t(7_139)).is_err());
        // Later events (clock skew) do not count against an earlier one on the worker's side…
        assert_eq!(window_allows(&[t(20_000)], t(10_000)), Ok(()));
        // …but triceratops keeps an allowed suggestion's window on both sides, ties included.
        assert_eq!(apart(&[t(20_000)], t(19_000)), Err(2600));
        assert_eq!(apart(&[t(10_000)], t(10_000)), Err(3600));
        assert_eq!(apart(&[t(10_000)], t(13_600)), Ok(()));
    }
}
