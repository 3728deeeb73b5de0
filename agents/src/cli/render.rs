//! One readable line per event, for `soul watch` and `soul task`.

use nostr::Event;
use soul_kinds::{parse, tags, Announcement, Decision, Execution, Opinion, Roster, SoulKind, Task};

/// Who signed `event`, by roster name.
fn who(event: &Event, roster: &Roster) -> String {
    if roster.is_owner(&event.pubkey) {
        "owner".into()
    } else {
        roster
            .member(&event.pubkey)
            .map(|m| m.name.clone())
            .unwrap_or_else(|| format!("{}…", &event.pubkey.to_hex()[..8]))
    }
}

fn short(id: &nostr::EventId) -> String {
    id.to_hex()[..8].to_string()
}

/// The line for `event`, or `None` for kinds this view does not show.
pub fn line(event: &Event, roster: &Roster) -> Option<String> {
    let by = who(event, roster);
    let task = tags::task_ref(event).map(|t| short(&t)).unwrap_or_default();
    let kind = SoulKind::from_kind(event.kind);
    Some(match kind {
        Some(SoulKind::Task) => {
            let t: Task = parse(event).ok()?;
            let confirming = soul_kinds::content::confirms(event)
                .map(|r| format!(" — confirming refused task {}", short(&r)))
                .unwrap_or_default();
            format!(
                "[task {}] {by} asks ({} priority): {}{confirming}",
                short(&event.id),
                priority(t.priority),
                t.title
            )
        }
        Some(SoulKind::Opinion) => {
            let o: Opinion = parse(event).ok()?;
            let concerns = if o.concerns.is_empty() {
                String::new()
            } else {
                format!("\n      concerns: {}", o.concerns.join("; "))
            };
            format!(
                "[task {task}] round {} · {by} votes {} (confidence {:.2})\n      {}\n      approach: {}{concerns}",
                o.round,
                o.vote.as_str(),
                o.confidence,
                o.opinion,
                o.proposed_approach
            )
        }
        Some(SoulKind::Decision) => {
            let d: Decision = parse(event).ok()?;
            format!(
                "[task {task}] DECISION by {by}: {} ({} yes / {} reject, round {}{})\n      {}",
                d.outcome.as_str(),
                d.tally.yes,
                d.tally.reject,
                d.round,
                if d.mediated { ", mediated" } else { "" },
                d.summary
            )
        }
        Some(SoulKind::Announcement) => {
            let a: Announcement = parse(event).ok()?;
            format!("[task {task}] ANNOUNCEMENT by {by}: {}", a.summary)
        }
        Some(SoulKind::Execution) => {
            let x: Execution = parse(event).ok()?;
            format!(
                "[task {task}] execution {} by {by}: {}",
                x.status.as_str(),
                x.result
            )
        }
        Some(SoulKind::Draft | SoulKind::Review | SoulKind::News | SoulKind::TownEvent) => {
            town_line(event, &by, roster)?
        }
        _ if event.kind == nostr::Kind::TextNote => format!("[note] {by}: {}", event.content),
        _ => return None,
    })
}

fn priority(p: soul_kinds::Priority) -> &'static str {
    match p {
        soul_kinds::Priority::Low => "low",
        soul_kinds::Priority::Medium => "medium",
        soul_kinds::Priority::High => "high",
    }
}

/// Lines for the town's kinds: drafts, reviews, news and town events.
fn town_line(event: &Event, by: &str, roster: &Roster) -> Option<String> {
    use soul_kinds::{Draft, DraftStatus, News, Review, ReviewVerdict, TownEvent};
    Some(match SoulKind::from_kind(event.kind)? {
        SoulKind::Draft => {
            let d: Draft = parse(event).ok()?;
            match (d.status, &d.note_id) {
                (DraftStatus::Posted, Some(id)) => {
                    format!("[draft] {by} posted it as note {}", &id[..8.min(id.len())])
                }
                (status, _) => format!("[draft] {by} ({}): {}", status.as_str(), d.content),
            }
        }
        SoulKind::Review => {
            let r: Review = parse(event).ok()?;
            let resident = event
                .tags
                .public_keys()
                .next()
                .and_then(|p| roster.member(p))
                .map(|m| m.name.clone())
                .unwrap_or_else(|| "a resident".into());
            match r.verdict {
                ReviewVerdict::Approved => format!("[review] {by} approves {resident}'s draft"),
                ReviewVerdict::Rejected => format!(
                    "[review] {by} rejects {resident}'s draft [{}]: {}",
                    r.rules.join(", "),
                    r.reason
                ),
            }
        }
        SoulKind::News => {
            let n: News = parse(event).ok()?;
            let topics: Vec<String> = n.topics.iter().map(|t| format!("#{t}")).collect();
            format!("[news] {} ({}) {}", n.title, n.source, topics.join(" "))
        }
        SoulKind::TownEvent => {
            let t: TownEvent = parse(event).ok()?;
            let when = chrono::DateTime::from_timestamp(t.starts as i64, 0)
                .map(|d| d.format("%Y-%m-%d %H:%M UTC").to_string())
                .unwrap_or_default();
            format!(
                "[town event] {} (starts {when}): {}",
                t.title, t.description
            )
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use nostr::Keys;
    use soul_kinds::content::{confirming, task};

    /// A confirmation says which refusal it confirms, so `soul watch` shows the owner's word.
    #[test]
    fn a_confirmation_names_the_refusal_it_confirms() {
        let owner = Keys::generate();
        let roster = Roster::new("t", owner.public_key(), vec![]);
        let t = Task {
            title: "Count the lines of workspace/notes.txt".into(),
            description: String::new(),
            priority: soul_kinds::Priority::Medium,
            task_type: "task".into(),
        };
        let refused = task(&t, None).sign_with_keys(&owner).unwrap();
        let again = confirming(&t, refused.id).sign_with_keys(&owner).unwrap();
        let plain = line(&refused, &roster).unwrap();
        assert!(
            plain.starts_with("[task ") && !plain.contains("confirming"),
            "{plain}"
        );
        let said = line(&again, &roster).unwrap();
        assert!(
            said.contains(&format!("confirming refused task {}", short(&refused.id))),
            "{said}"
        );
    }
}
