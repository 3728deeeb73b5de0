//! `soul status`: who is alive and where the tasks stand, read from the relay.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::process::ExitCode;

use nostr::{Event, EventId, Filter, Kind, PublicKey, Timestamp};
use serde::Serialize;
use soul_kinds::{fold_task, tags, SoulKind, TaskStatus};

use soul_host::roles::brain::is_evaluation_request;
use soul_host::town::load::Town;
use soul_link::Link;

/// The stable `soul status --json` shape (DESIGN §11).
#[derive(Debug, Serialize)]
pub struct StatusReport {
    /// Town name.
    pub town: String,
    /// Relay URL.
    pub relay: String,
    /// Owner pubkey, hex.
    pub owner: String,
    /// The town's agents (not the owner).
    pub agents: Vec<AgentStatus>,
    /// Number of tasks per status.
    pub tasks: BTreeMap<String, usize>,
}

/// One agent's line.
#[derive(Debug, Serialize)]
pub struct AgentStatus {
    /// Roster name.
    pub name: String,
    /// Roster role.
    pub role: String,
    /// Pubkey, hex.
    pub pubkey: String,
    /// Unix time of its latest heartbeat, if any.
    pub last_seen: Option<u64>,
}

pub(super) async fn run(dir: &Path, json: bool, relay: Option<String>) -> anyhow::Result<ExitCode> {
    let town = Town::open(dir)?;
    let url = relay.unwrap_or_else(|| town.config.relay.url.clone());
    let link = Link::connect(&url).await?;
    let report = report(&town, &link).await;
    link.close().await;
    let report = report?;
    if json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print_human(&report);
    }
    Ok(ExitCode::SUCCESS)
}

/// Builds the report from the relay's events.
pub async fn report(town: &Town, link: &Link) -> anyhow::Result<StatusReport> {
    let roster = town.config.roster()?;
    let pubkeys: Vec<PublicKey> = roster.members().iter().map(|m| m.pubkey).collect();
    let beats = link
        .fetch(
            Filter::new()
                .kind(SoulKind::Heartbeat.kind())
                .authors(pubkeys),
        )
        .await?;
    let mut last_seen: HashMap<PublicKey, Timestamp> = HashMap::new();
    for beat in beats.iter() {
        let seen = last_seen.entry(beat.pubkey).or_insert(beat.created_at);
        *seen = (*seen).max(beat.created_at);
    }
    let agents = roster
        .members()
        .iter()
        .map(|m| AgentStatus {
            name: m.name.clone(),
            role: m.role.to_string(),
            pubkey: m.pubkey.to_hex(),
            last_seen: last_seen.get(&m.pubkey).map(|t| t.as_secs()),
        })
        .collect();
    let tasks = match roster.brains() {
        Some(brains) => count_tasks(link, &brains).await?,
        None => BTreeMap::new(),
    };
    Ok(StatusReport {
        town: town.config.town.name.clone(),
        relay: link.url().to_string(),
        owner: roster.owner.to_hex(),
        agents,
        tasks,
    })
}

async fn count_tasks(
    link: &Link,
    brains: &soul_kinds::Brains,
) -> anyhow::Result<BTreeMap<String, usize>> {
    let tasks = link
        .fetch(Filter::new().kind(SoulKind::Task.kind()))
        .await?;
    let debate_kinds: Vec<Kind> = [
        SoulKind::Opinion,
        SoulKind::Decision,
        SoulKind::Announcement,
        SoulKind::Execution,
    ]
    .iter()
    .map(|k| k.kind())
    .collect();
    let related = link.fetch(Filter::new().kinds(debate_kinds)).await?;
    let mut by_task: HashMap<EventId, Vec<Event>> = HashMap::new();
    for event in related {
        if let Some(task) = tags::task_ref(&event) {
            by_task.entry(task).or_default().push(event);
        }
    }
    // Every status is present, zero included, so scripts read a stable shape.
    let mut counts: BTreeMap<String, usize> = TaskStatus::ALL
        .iter()
        .map(|s| (status_name(*s), 0))
        .collect();
    for task in tasks.iter() {
        // Evaluation requests (`soul evaluate`) are not debates.
        if soul_kinds::parse::<soul_kinds::Task>(task).is_ok_and(|t| is_evaluation_request(&t)) {
            continue;
        }
        let related = by_task.remove(&task.id).unwrap_or_default();
        let status = match fold_task(task, &related, brains) {
            Ok((state, _refused)) => state.status,
            Err(e) => {
                tracing::debug!("skipping task {}: {e}", task.id);
                continue;
            }
        };
        *counts.entry(status_name(status)).or_insert(0) += 1;
    }
    Ok(counts)
}

fn status_name(status: TaskStatus) -> String {
    status.to_string()
}

fn print_human(r: &StatusReport) {
    let now = Timestamp::now().as_secs();
    println!("town {}  relay {}", r.town, r.relay);
    println!("{:<14} {:<10} last seen", "agent", "role");
    for a in &r.agents {
        let seen = match a.last_seen {
            Some(t) => format!("{} s ago", now.saturating_sub(t)),
            None => "never".into(),
        };
        println!("{:<14} {:<10} {seen}", a.name, a.role);
    }
    if r.tasks.is_empty() {
        println!("no tasks yet");
    } else {
        let list: Vec<String> = r.tasks.iter().map(|(s, n)| format!("{s} {n}")).collect();
        println!("tasks: {}", list.join(", "));
    }
}
