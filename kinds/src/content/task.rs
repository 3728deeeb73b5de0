//! Task (4360): what the owner asks the brains to debate.

use nostr::{Event, EventBuilder, EventId, PublicKey, Tag};
use serde::{Deserialize, Serialize};

use super::{base, check_text, one_line, FieldError, SoulContent, MAX_NAME, MAX_TEXT, MAX_TITLE};
use crate::kind::SoulKind;
use crate::role::BrainName;
use crate::roster::Brains;
use crate::tags::TASK_HASHTAG;

/// How urgent a task is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Whenever there is time; accepted suggestions land here.
    Low,
    /// The usual.
    Medium,
    /// Before anything else.
    High,
}

/// Content of a task event.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Task {
    /// 1..=200 characters.
    pub title: String,
    /// Up to 4000 characters; may be empty.
    pub description: String,
    /// How urgent.
    pub priority: Priority,
    /// A free label such as "task" or "suggestion" (JSON `type`); defaults to "task".
    #[serde(rename = "type", default = "default_type")]
    pub task_type: String,
}

fn default_type() -> String {
    "task".to_owned()
}

/// A task published on someone else's behalf (a DM'd `task:` or an accepted suggestion).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Relayed {
    /// Whose task it really is; tagged `p`.
    pub owner: PublicKey,
    /// The event it came from (the DM or the suggestion); tagged `e`.
    pub source: EventId,
}

impl Task {
    /// Whether `other` asks the same: title and description (a confirmation must).
    pub fn says_the_same(&self, other: &Task) -> bool {
        self.title == other.title && self.description == other.description
    }
}

impl SoulContent for Task {
    const KIND: SoulKind = SoulKind::Task;

    fn validate(&self) -> Result<(), FieldError> {
        check_text("title", &self.title, 1, MAX_TITLE)?;
        check_text("description", &self.description, 0, MAX_TEXT)?;
        check_text("type", &self.task_type, 1, MAX_NAME)
    }

    fn alt(&self) -> String {
        format!("soul task: {}", one_line(&self.title, 120))
    }
}

/// A task event: tags `t soul-task`, and `p owner` + `e source` when relayed.
pub fn task(content: &Task, relayed: Option<Relayed>) -> EventBuilder {
    let builder = base(content).tag(Tag::hashtag(TASK_HASHTAG));
    match relayed {
        Some(r) => builder
            .tag(Tag::public_key(r.owner))
            .tag(Tag::event(r.source)),
        None => builder,
    }
}

/// A task the owner publishes again after the brains refused it on a doubt: the same content,
/// tagged `["confirms", <the refused task's id>]`. The brains weigh the owner's word against
/// their doubt and their caution, never against a harm their lexicon names (ARCHITECTURE.md,
/// "the owner's word on a doubt").
pub fn confirming(content: &Task, refused: EventId) -> EventBuilder {
    confirming_for(content, refused, None)
}

/// [`confirming`], published by gorilla for the owner's public "confirm" reply (`relayed`'s
/// source), which anyone can check on the relay.
pub fn confirming_for(content: &Task, refused: EventId, relayed: Option<Relayed>) -> EventBuilder {
    task(content, relayed).tag(Tag::custom(
        nostr::TagKind::custom(CONFIRMS),
        [refused.to_hex()],
    ))
}

/// Whether a note's text is the owner's "confirm": the word alone (any case, trailing
/// punctuation or whitespace aside), in English or Japanese. Anything else, even a yes, is not
/// one: an unclear answer is a no.
pub fn says_confirm(text: &str) -> bool {
    let word = text
        .trim()
        .trim_end_matches(['.', '!', '。', '！'])
        .trim()
        .to_lowercase();
    // Not 「確認します」: it mostly means "I'll check it".
    matches!(word.as_str(), "confirm" | "確認")
}

/// The tag naming the refused task a task confirms.
pub const CONFIRMS: &str = "confirms";

/// The refused task `event` (a task) confirms, if it carries a well-formed `confirms` tag.
pub fn confirms(event: &Event) -> Option<EventId> {
    crate::tags::value_of(event, CONFIRMS).and_then(|id| EventId::from_hex(id).ok())
}

/// Whether `event`'s author may publish a task (DESIGN §4, §6): the owner; gorilla relaying
/// the owner's DM; triceratops relaying a worker's accepted suggestion. A relayed task must say
/// for whom (`p` the owner) and from what (`e` the DM or the suggestion). `Err` says why not.
///
/// The relay checks this at the door and the brains again before debating, so a task from a
/// relay without soul's policy cannot start a debate either.
pub fn may_publish_task(
    event: &Event,
    owner: &PublicKey,
    brains: &Brains,
) -> Result<(), &'static str> {
    if event.pubkey == *owner {
        return Ok(());
    }
    match brains.name_of(&event.pubkey) {
        Some(BrainName::Gorilla | BrainName::Triceratops) => {}
        Some(BrainName::Panda) => {
            return Err("panda relays no tasks: only gorilla (the owner's DMs) and triceratops (accepted suggestions) do")
        }
        None => return Err("tasks come only from the town's owner, or from a brain relaying the owner"),
    }
    if !event.tags.public_keys().any(|p| p == owner) {
        return Err("a relayed task must tag the owner it is for (`p`)");
    }
    if event.tags.event_ids().next().is_none() {
        return Err("a relayed task must reference what it relays (`e` the DM or the suggestion)");
    }
    Ok(())
}

/// Where a task came from, as far as its signature proves it (DESIGN §12 "Origin of work").
///
/// Only an owner-signed task is the owner's. A relayed task names its source, but nobody but
/// the relaying brain can check that source (a DM is encrypted to it; a suggestion is a
/// worker's idea), so a brain key alone can make one up: whatever such a task would run above
/// the low-risk band waits for the owner's own yes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskOrigin {
    /// Signed by the owner.
    Owner,
    /// Published by gorilla for a `task:` DM from the owner (the DM's computed rumor id), or
    /// for the owner's public "confirm" reply to a refusal (the reply's id).
    RelayedDm {
        /// The relaying brain.
        by: PublicKey,
        /// The DM's rumor id.
        dm: EventId,
    },
    /// Published by triceratops for a worker's accepted suggestion (4368).
    Suggestion {
        /// The relaying brain.
        by: PublicKey,
        /// The suggestion event.
        suggestion: EventId,
    },
}

impl TaskOrigin {
    /// Whether the owner's own signature is on the task.
    pub fn is_owner_signed(&self) -> bool {
        matches!(self, TaskOrigin::Owner)
    }

    /// One line for people: who published it and on what grounds.
    pub fn describe(&self) -> String {
        match self {
            TaskOrigin::Owner => "signed by the owner".into(),
            TaskOrigin::RelayedDm { by, dm } => {
                format!(
                    "relayed by gorilla ({by}) from a DM or reply it says the owner sent ({dm})"
                )
            }
            TaskOrigin::Suggestion { by, suggestion } => {
                format!("relayed by triceratops ({by}) from a worker's suggestion ({suggestion})")
            }
        }
    }
}

/// The origin of `event` (a task), or why it may not be a task at all ([`may_publish_task`]).
pub fn task_origin(
    event: &Event,
    owner: &PublicKey,
    brains: &Brains,
) -> Result<TaskOrigin, &'static str> {
    may_publish_task(event, owner, brains)?;
    if event.pubkey == *owner {
        return Ok(TaskOrigin::Owner);
    }
    let source = event
        .tags
        .event_ids()
        .next()
        .copied()
        .ok_or("a relayed task must reference what it relays")?;
    match brains.name_of(&event.pubkey) {
        Some(BrainName::Gorilla) => Ok(TaskOrigin::RelayedDm {
            by: event.pubkey,
            dm: source,
        }),
        Some(BrainName::Triceratops) => Ok(TaskOrigin::Suggestion {
            by: event.pubkey,
            suggestion: source,
        }),
        _ => Err("only gorilla and triceratops relay tasks"),
    }
}
