//! Reading and writing the tags soul events carry.
//!
//! `e` tags are read from the raw tag slice rather than through nostr's `TagStandard`, because
//! NIP-10's `mention` marker (which decisions use for counted opinions) is not a marker that
//! nostr 0.44 parses: it would try it as a pubkey and drop the whole tag. Reading raw also means a
//! malformed tag is skipped instead of hiding the well-formed ones around it.

use nostr::{Event, EventId, Tag, TagKind};

/// NIP-10 marker of the thread root (the task).
pub const ROOT: &str = "root";
/// NIP-10 marker of the event replied to (the decision an announcement follows).
pub const REPLY: &str = "reply";
/// NIP-10 marker of an event cited without replying (opinions a decision counts).
pub const MENTION: &str = "mention";
/// Tag carrying an opinion's round: `["round", "2"]`.
pub const ROUND: &str = "round";
/// Tag carrying an evaluation's cycle: `["cycle", "2025-01-01T06"]`.
pub const CYCLE: &str = "cycle";
/// Hashtag on every task, so clients can follow `#soul-task`.
pub const TASK_HASHTAG: &str = "soul-task";

/// One `e` tag as read: the id and its NIP-10 marker, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ERef<'a> {
    /// The referenced event.
    pub id: EventId,
    /// `root`, `reply`, `mention`, or `None` for an unmarked tag.
    pub marker: Option<&'a str>,
}

/// Every well-formed `e` tag, in tag order. Tags whose id is not 64 hex digits are skipped.
pub fn e_refs(event: &Event) -> impl Iterator<Item = ERef<'_>> {
    event.tags.iter().filter_map(|tag| {
        let [name, id, rest @ ..] = tag.as_slice() else {
            return None;
        };
        if name != "e" {
            return None;
        }
        let id = EventId::from_hex(id).ok()?;
        let marker = rest.get(1).map(String::as_str).filter(|m| !m.is_empty());
        Some(ERef { id, marker })
    })
}

/// The task an event belongs to: the first `e` tag marked `root`, else the first `e` tag.
pub fn task_ref(event: &Event) -> Option<EventId> {
    e_refs(event)
        .find(|r| r.marker == Some(ROOT))
        .or_else(|| e_refs(event).next())
        .map(|r| r.id)
}

/// Every `e` id other than `task`, in tag order: what an event cites besides its thread root.
pub fn refs_besides(event: &Event, task: EventId) -> Vec<EventId> {
    e_refs(event)
        .map(|r| r.id)
        .filter(|id| *id != task)
        .collect()
}

/// The first value of the first tag named `name`.
pub fn value_of<'a>(event: &'a Event, name: &str) -> Option<&'a str> {
    event
        .tags
        .iter()
        .find(|t| t.as_slice().first().is_some_and(|n| n == name))
        .and_then(Tag::content)
}

/// The round an opinion says it is in, from its `round` tag.
pub fn round_of(event: &Event) -> Option<u8> {
    value_of(event, ROUND)?.parse().ok()
}

/// The `alt` summary (NIP-31).
pub fn alt_of(event: &Event) -> Option<&str> {
    value_of(event, "alt")
}

/// The `d` identifier of an addressable event.
pub fn identifier_of(event: &Event) -> Option<&str> {
    value_of(event, "d")
}

/// `["e", id, "", marker]`, built by hand because nostr 0.44 cannot express `mention`.
pub fn e_marked(id: EventId, marker: &str) -> Tag {
    Tag::custom(
        TagKind::e(),
        [id.to_hex(), String::new(), marker.to_owned()],
    )
}

/// `["name", value]` for soul's own tags (`round`, `cycle`).
pub fn named(name: &str, value: impl Into<String>) -> Tag {
    Tag::custom(TagKind::custom(name), [value.into()])
}

#[cfg(test)]
mod tests {
    use nostr::{EventBuilder, Keys, Kind};

    use super::*;

    fn signed(tags: Vec<Tag>) -> Event {
        EventBuilder::new(Kind::from(4361), "{}")
            .tags(tags)
            .sign_with_keys(&Keys::generate())
            .unwrap()
    }

    #[test]
    fn task_ref_prefers_root_then_first() {
        let (a, b) = (EventId::all_zeros(), EventId::from_slice(&[1; 32]).unwrap());
        let ev = signed(vec![Tag::event(a), e_marked(b, ROOT)]);
        assert_eq!(task_ref(&ev), Some(b));
        let ev = signed(vec![e_marked(a, MENTION), Tag::event(b)]);
        assert_eq!(task_ref(&ev), Some(a));
        assert_eq!(refs_besides(&ev, a), vec![b]);
        let bad = Tag::parse(["e", "not-hex", "", "root"]).unwrap();
        let ev = signed(vec![bad, Tag::event(b)]);
        assert_eq!(task_ref(&ev), Some(b));
        assert_eq!(task_ref(&signed(vec![])), None);
    }

    #[test]
    fn named_tags_read_back() {
        let ev = signed(vec![named(ROUND, "2"), Tag::alt("hello")]);
        assert_eq!(round_of(&ev), Some(2));
        assert_eq!(alt_of(&ev), Some("hello"));
        let ev = signed(vec![named(ROUND, "x")]);
        assert_eq!(round_of(&ev), None);
    }
}
