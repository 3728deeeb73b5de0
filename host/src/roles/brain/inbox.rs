//! Gorilla's inbox: the owner sends "task: …" by NIP-17 DM from any phone client, and gorilla
//! publishes the task (4360) on the owner's behalf, tagging the owner and the DM, then answers
//! with the task's id. Only the owner's DMs count; each DM is handled once, across restarts too
//! (gorilla's own replies, wrapped to itself, mark what it handled).

use crate::HostError;
use nostr::{PublicKey, Timestamp};
use soul_kinds::content::{task, Relayed};
use soul_kinds::{Priority, SoulContent, Task};

use soul_link::dm::replay::Seen;
use soul_link::dm::{DmClient, Message};
use soul_link::Identity;
use soul_link::Link;

/// What a DM must start with to be a task (case-insensitive; `タスク:` too).
const PREFIXES: &[&str] = &["task:", "タスク:", "タスク："];

/// Runs gorilla's inbox until its task is aborted.
pub async fn run(
    me: Identity,
    relay_url: String,
    owner: PublicKey,
    link: Link,
) -> Result<(), HostError> {
    let dm = DmClient::connect(&relay_url, &me.keys).await?;
    let mut live = dm.follow().await?;
    let history = dm.history().await?;
    let mut seen = Seen::from_history(&me.keys.public_key(), &history);
    // DMs that arrived while gorilla was down, then live ones.
    let mut backlog: Vec<Message> = history.into_iter().filter(|m| m.sender == owner).collect();
    backlog.sort_by_key(|m| m.created_at);
    for m in backlog {
        handle(&dm, &link, &me, owner, &mut seen, m).await?;
    }
    while let Some(m) = dm.next(&mut live).await {
        if m.sender != owner {
            tracing::info!(from = %m.sender, "gorilla ignores a DM that is not from the owner");
            continue;
        }
        handle(&dm, &link, &me, owner, &mut seen, m).await?;
    }
    Ok(())
}

/// The task a DM asks for: the first line after the prefix is the title, the rest the details.
pub fn parse_task(text: &str) -> Option<Task> {
    let text = text.trim();
    let rest = PREFIXES.iter().find_map(|p| {
        let head = text.get(..p.len())?;
        head.eq_ignore_ascii_case(p).then(|| &text[p.len()..])
    })?;
    let mut lines = rest.trim().lines();
    let title: String = lines.next()?.trim().chars().take(200).collect();
    let description = lines.collect::<Vec<_>>().join("\n").trim().to_string();
    let task = Task {
        title,
        description,
        priority: Priority::Medium,
        task_type: "task".into(),
    };
    task.validate().ok().map(|()| task)
}

async fn handle(
    dm: &DmClient,
    link: &Link,
    me: &Identity,
    owner: PublicKey,
    seen: &mut Seen,
    m: Message,
) -> Result<(), HostError> {
    if seen.admit(&m, Timestamp::now()).is_err() {
        return Ok(());
    }
    let reply = match parse_task(&m.text) {
        Some(t) => {
            let relayed = Relayed { owner, source: m.rumor_id };
            let event = link.publish(&me.keys, task(&t, Some(relayed))).await?;
            tracing::info!(task = %event.id, "gorilla published the owner's DM'd task");
            format!("task {} published: {}", event.id.to_hex(), t.title)
        }
        None => "I take tasks as \"task: what the brains should decide\" (first line the title, then details).".to_string(),
    };
    dm.send(owner, &reply, Seen::reply_tags(&m)).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_prefix_title_and_details() {
        let t = parse_task("Task: Back up the photos\nevery night, to the external disk").unwrap();
        assert_eq!(t.title, "Back up the photos");
        assert_eq!(t.description, "every night, to the external disk");
        assert_eq!(
            parse_task("タスク：写真をバックアップする").unwrap().title,
            "写真をバックアップする"
        );
        assert!(parse_task("hello gorilla").is_none());
        assert!(parse_task("task:   ").is_none());
    }
}
