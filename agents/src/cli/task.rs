//! `soul task "title"`: publish a task as the owner, print its id, follow the debate to the end.
//! `soul task --confirm ID`: publish again, as confirmed, a task the brains refused on a doubt.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{anyhow, Context};
use clap::Args;
use nostr::nips::nip19::FromBech32;
use nostr::{EventId, Filter, Timestamp};
use nostr_sdk::RelayPoolNotification;
use soul_kinds::content::{confirming, confirms, task};
use soul_kinds::{fold_task, Priority, SoulKind, Task, TaskStatus};

use super::render;
use soul_host::roles::brain::debate_kinds;
use soul_host::town::load::Town;
use soul_link::Link;

/// Options of `soul task`.
#[derive(Debug, Args)]
pub struct TaskArgs {
    /// What the brains should decide on.
    #[arg(required_unless_present = "confirm", conflicts_with = "confirm")]
    title: Option<String>,
    /// Confirm a task the brains refused on a doubt (its id, hex or note1): the same task is
    /// published again, tagged as the owner's confirmation (ARCHITECTURE.md,
    /// "the owner's word on a doubt").
    #[arg(long, value_name = "ID")]
    confirm: Option<String>,
    /// More detail.
    #[arg(long, default_value = "", conflicts_with = "confirm")]
    description: String,
    /// low, medium or high.
    #[arg(long, default_value = "medium", conflicts_with = "confirm")]
    priority: String,
    /// Publish to this relay instead of town.toml's.
    #[arg(long)]
    relay: Option<String>,
    /// Give up following after this many seconds (exit 1).
    #[arg(long, default_value_t = 600)]
    timeout: u64,
    /// Print the id and exit without following.
    #[arg(long)]
    no_follow: bool,
}

pub(super) async fn run(dir: &Path, args: TaskArgs) -> anyhow::Result<ExitCode> {
    let town = Town::open(dir)?;
    let owner = town.owner_keys()?.ok_or_else(|| {
        anyhow!(
            "the owner's key is not in {}: publish the task from the owner's own client",
            town.dir.keys_dir().display()
        )
    })?;
    let roster = town.config.roster()?;
    let brains = roster
        .brains()
        .context("the roster has no panda, gorilla and triceratops")?;
    let priority = match args.priority.as_str() {
        "low" => Priority::Low,
        "medium" => Priority::Medium,
        "high" => Priority::High,
        other => return Err(anyhow!("--priority {other:?}: use low, medium or high")),
    };
    let url = args
        .relay
        .clone()
        .unwrap_or_else(|| town.config.relay.url.clone());
    let link = Link::connect(&url).await?;
    let (content, confirms) = match (&args.confirm, &args.title) {
        (Some(id), _) => {
            let (refused, content) = refused_task(&link, id, &owner.public_key(), &brains)
                .await
                .context("--confirm")?;
            (content, Some(refused))
        }
        (None, Some(title)) => {
            let content = Task {
                title: title.clone(),
                description: args.description.clone(),
                priority,
                task_type: "task".into(),
            };
            (content, None)
        }
        (None, None) => return Err(anyhow!("give the task's title, or --confirm ID")),
    };
    soul_kinds::SoulContent::validate(&content)
        .map_err(|e| anyhow!("task {}: {}", e.field, e.reason))?;
    let mut notifications = link.client().notifications();
    link.client()
        .subscribe(
            Filter::new()
                .kinds(debate_kinds())
                .since(Timestamp::now() - 5),
            None,
        )
        .await?;
    let builder = match confirms {
        Some(refused) => confirming(&content, refused),
        None => task(&content, None),
    };
    let event = link.publish(&owner, builder).await?;
    println!("{}", event.id.to_hex());
    if args.no_follow {
        return Ok(ExitCode::SUCCESS);
    }
    let mut related = Vec::new();
    let deadline = tokio::time::sleep(Duration::from_secs(args.timeout));
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            _ = &mut deadline => {
                eprintln!("soul: gave up after {} s; the debate goes on (see `soul watch`)", args.timeout);
                return Ok(ExitCode::FAILURE);
            }
            n = notifications.recv() => {
                let Ok(RelayPoolNotification::Event { event: e, .. }) = n else { continue };
                if soul_kinds::tags::task_ref(&e) != Some(event.id) || related.iter().any(|r: &nostr::Event| r.id == e.id) {
                    continue;
                }
                if let Some(l) = render::line(&e, &roster) {
                    println!("{l}");
                }
                related.push(*e);
                let (state, _) = fold_task(&event, &related, &brains)?;
                match state.status {
                    TaskStatus::Completed | TaskStatus::Rejected => {
                        println!("final status: {}", state.status);
                        return Ok(ExitCode::SUCCESS);
                    }
                    TaskStatus::Failed | TaskStatus::NeedsOwner => {
                        println!("final status: {}", state.status);
                        return Ok(ExitCode::FAILURE);
                    }
                    _ => {}
                }
            }
        }
    }
}

/// The task `id` (hex or note1) names, fetched from the relay, with its content: it must be a
/// task of `owner`'s own whose counted decision (the fold's, as the brains see it) refused it,
/// and no confirmation of it (the owner's, or gorilla's for the owner's reply) stands yet. Errors name the task
/// and what is wrong.
pub(crate) async fn refused_task(
    link: &Link,
    id: &str,
    owner: &nostr::PublicKey,
    brains: &soul_kinds::Brains,
) -> anyhow::Result<(EventId, Task)> {
    let refused = EventId::from_hex(id)
        .or_else(|_| EventId::from_bech32(id))
        .map_err(|_| anyhow!("task {id:?}: not an event id (hex or note1)"))?;
    let found = link
        .fetch(Filter::new().id(refused).kind(SoulKind::Task.kind()))
        .await?;
    let event = found
        .into_iter()
        .next()
        .ok_or_else(|| anyhow!("task {id}: the relay holds no task with that id"))?;
    if event.pubkey != *owner {
        return Err(anyhow!(
            "task {id}: not the owner's own; only the owner's tasks can be confirmed"
        ));
    }
    let content: Task =
        soul_kinds::parse(&event).map_err(|e| anyhow!("task {id}: does not parse: {e}"))?;
    let state = folded(link, &event, brains).await?;
    if state.status != TaskStatus::Rejected {
        return Err(anyhow!(
            "task {id}: the brains have not refused it ({}); only a refusal can be confirmed",
            state.status
        ));
    }
    let later = link
        .fetch(
            Filter::new()
                .kind(SoulKind::Task.kind())
                .authors([*owner, brains.gorilla])
                .since(event.created_at),
        )
        .await?;
    let same =
        |e: &nostr::Event| soul_kinds::parse::<Task>(e).is_ok_and(|t| t.says_the_same(&content));
    // One the brains refused (a made-up one, say) does not stand in the owner's way.
    for e in later
        .iter()
        .filter(|e| confirms(e) == Some(refused) && same(e))
    {
        let state = folded(link, e, brains).await?;
        if state.status != TaskStatus::Rejected {
            return Err(anyhow!(
                "task {id}: already confirmed as {} ({}); the brains take one confirmation of a refusal",
                e.id,
                state.status
            ));
        }
    }
    Ok((refused, content))
}

/// Task `event` folded with its debate events on the relay: where it stands as the brains see it.
async fn folded(
    link: &Link,
    event: &nostr::Event,
    brains: &soul_kinds::Brains,
) -> anyhow::Result<soul_kinds::TaskState> {
    let related: Vec<nostr::Event> = link
        .fetch(Filter::new().kinds(debate_kinds()).event(event.id))
        .await?
        .into_iter()
        .collect();
    Ok(fold_task(event, &related, brains)?.0)
}
