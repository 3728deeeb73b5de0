//! `soul task "title"`: publish a task as the owner, print its id, follow the debate to the end.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{anyhow, Context};
use clap::Args;
use nostr::{Filter, Timestamp};
use nostr_sdk::RelayPoolNotification;
use soul_kinds::content::task;
use soul_kinds::{fold_task, Priority, Task, TaskStatus};

use super::render;
use soul_host::roles::brain::debate_kinds;
use soul_host::town::load::Town;
use soul_link::Link;

/// Options of `soul task`.
#[derive(Debug, Args)]
pub struct TaskArgs {
    /// What the brains should decide on.
    title: String,
    /// More detail.
    #[arg(long, default_value = "")]
    description: String,
    /// low, medium or high.
    #[arg(long, default_value = "medium")]
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
    let content = Task {
        title: args.title.clone(),
        description: args.description.clone(),
        priority,
        task_type: "task".into(),
    };
    soul_kinds::SoulContent::validate(&content)
        .map_err(|e| anyhow!("task {}: {}", e.field, e.reason))?;
    let url = args
        .relay
        .clone()
        .unwrap_or_else(|| town.config.relay.url.clone());
    let link = Link::connect(&url).await?;
    let mut notifications = link.client().notifications();
    link.client()
        .subscribe(
            Filter::new()
                .kinds(debate_kinds())
                .since(Timestamp::now() - 5),
            None,
        )
        .await?;
    let event = link.publish(&owner, task(&content, None)).await?;
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
