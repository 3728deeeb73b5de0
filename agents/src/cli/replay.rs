//! `soul replay TASK_ID`: re-fetch a debate from any relay and prove it.
//!
//! Every event is checked on its own (id and signature), every author against the roster the
//! owner signed, and the fold is re-run: the timeline printed is what the signed opinions add up
//! to, whatever the relay served. Events that do not fit are named with the reason.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{anyhow, Context};
use nostr::nips::nip19::{FromBech32, ToBech32};
use nostr::{Event, EventId, Filter, PublicKey};
use soul_kinds::{decide, fold_task, parse, Decision, Roster, SoulKind, Task, TaskState};

use super::render;
use soul_host::roles::brain::debate_kinds;
use soul_host::town::load::Town;
use soul_link::Link;

pub(super) async fn run(
    dir: &Path,
    task: &str,
    relay: Option<String>,
    owner: Option<String>,
) -> anyhow::Result<ExitCode> {
    let town = Town::open(dir).ok();
    let owner = match (owner, &town) {
        (Some(o), _) => PublicKey::from_bech32(&o)
            .or_else(|_| PublicKey::from_hex(&o))
            .with_context(|| format!("--owner {o:?} is not an npub or hex key"))?,
        (None, Some(t)) => t.config.owner()?,
        (None, None) => return Err(anyhow!("whose town? pass --owner NPUB or --town DIR")),
    };
    let url = relay
        .or_else(|| town.as_ref().map(|t| t.config.relay.url.clone()))
        .ok_or_else(|| anyhow!("which relay? pass --relay URL"))?;
    let task_id = EventId::from_hex(task)
        .or_else(|_| EventId::from_bech32(task))
        .with_context(|| format!("{task:?} is not an event id (hex or note1/nevent1)"))?;
    let link = Link::connect(&url).await?;
    let report = replay(&link, owner, task_id).await;
    link.close().await;
    let report = report?;
    print!("{}", report.text);
    Ok(if report.consistent {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}

/// What `soul replay` found.
pub struct Replay {
    /// The printed report.
    pub text: String,
    /// Whether the published decision is what the signed opinions add up to.
    pub consistent: bool,
}

/// Fetches, verifies and folds the debate of `task_id` on `link`'s relay.
pub async fn replay(link: &Link, owner: PublicKey, task_id: EventId) -> anyhow::Result<Replay> {
    let roster = signed_roster(link, owner).await?;
    let brains = roster
        .brains()
        .ok_or_else(|| anyhow!("the owner's roster has no panda, gorilla and triceratops"))?;
    let task = link
        .fetch(Filter::new().id(task_id))
        .await?
        .into_iter()
        .next()
        .ok_or_else(|| anyhow!("task {task_id} is not on {}", link.url()))?;
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    line(format!(
        "replaying task {} from {}",
        task_id.to_hex(),
        link.url()
    ));
    let mut forged: Vec<(EventId, String)> = Vec::new();
    if let Err(e) = task.verify() {
        return Err(anyhow!("the task event itself fails verification: {e}"));
    }
    if task.pubkey != owner && !brains.contains(&task.pubkey) {
        return Err(anyhow!(
            "task {task_id} was not published by the owner nor a brain"
        ));
    }
    let title = parse::<Task>(&task).map(|t| t.title).unwrap_or_default();
    line(format!("task: {title:?} by {}", who(&task, &roster)));
    let mut related: Vec<Event> = Vec::new();
    for event in link
        .fetch(Filter::new().kinds(debate_kinds()).event(task_id))
        .await?
    {
        if let Err(e) = event.verify() {
            forged.push((event.id, format!("signature or id does not verify: {e}")));
            continue;
        }
        related.push(event);
    }
    let (state, refused) = fold_task(&task, &related, &brains)?;
    forged.extend(refused.into_iter().map(|r| {
        (
            r.event_id,
            format!("{}: {}", r.reason.rule.as_str(), r.reason),
        )
    }));
    related.sort_by_key(|e| (e.created_at, e.id));
    for event in &related {
        if forged.iter().any(|(id, _)| *id == event.id) {
            continue;
        }
        if event.kind == SoulKind::Task.kind() {
            continue;
        }
        if let Some(l) = render::line(event, &roster) {
            line(l);
        }
    }
    for (id, reason) in &forged {
        let by = related
            .iter()
            .find(|e| e.id == *id)
            .map(|e| who(e, &roster))
            .unwrap_or_else(|| "?".into());
        line(format!(
            "REFUSED {} (signed by {by}): {reason}",
            id.to_hex()
        ));
    }
    let (verdict, consistent) = verdict(&state);
    line(format!("status: {}", state.status));
    line(verdict);
    Ok(Replay {
        text: out,
        consistent,
    })
}

/// Whether the accepted decision is what the accepted opinions add up to.
fn verdict(state: &TaskState) -> (String, bool) {
    let Some((id, d)) = &state.decision else {
        return ("no decision yet".into(), true);
    };
    let expected = decide(state.tally(d.round));
    let d: &Decision = d;
    match (expected, d.mediated) {
        (Some(e), false) if e == d.outcome => (
            format!(
                "VERIFIED: decision {} ({}) is what the signed opinions of round {} add up to ({} yes, {} reject)",
                &id.to_hex()[..12],
                d.outcome.as_str(),
                d.round,
                d.tally.yes,
                d.tally.reject
            ),
            true,
        ),
        (_, true) => (
            format!(
                "VERIFIED: decision {} ({}) was mediated by triceratops after round {} without 2 of 3",
                &id.to_hex()[..12],
                d.outcome.as_str(),
                d.round
            ),
            true,
        ),
        _ => (
            format!("MISMATCH: the published decision {} does not follow from the signed opinions", id.to_hex()),
            false,
        ),
    }
}

fn who(event: &Event, roster: &Roster) -> String {
    if roster.is_owner(&event.pubkey) {
        return "owner".into();
    }
    roster
        .member(&event.pubkey)
        .map(|m| m.name.clone())
        .unwrap_or_else(|| {
            event
                .pubkey
                .to_bech32()
                .unwrap_or_else(|_| event.pubkey.to_hex())
        })
}

/// The newest roster signed by `owner` on this relay.
async fn signed_roster(link: &Link, owner: PublicKey) -> anyhow::Result<Roster> {
    let events = link
        .fetch(Filter::new().kind(SoulKind::Roster.kind()).author(owner))
        .await?;
    let newest = events
        .into_iter()
        .filter(|e| e.pubkey == owner && e.verify().is_ok())
        .max_by_key(|e| e.created_at)
        .ok_or_else(|| anyhow!("no roster signed by the owner on {}", link.url()))?;
    Ok(Roster::from_event(&newest)?)
}
