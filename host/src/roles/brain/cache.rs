//! The brain's view of the relay: tasks and their debate events, folded on demand.

use std::collections::{BTreeMap, HashMap, HashSet};

use nostr::{Event, EventId, Kind, PublicKey, Timestamp};
use soul_kinds::{fold_task, tags, Brains, SoulKind, TaskState};

/// Tasks and the events that reference them.
#[derive(Debug, Default)]
pub struct Debates {
    tasks: BTreeMap<EventId, Event>,
    related: HashMap<EventId, Vec<Event>>,
    /// Kind-1 notes (the brains' about decisions, the owner's replies), by id.
    notes: HashMap<EventId, Event>,
    /// The owner's "confirm" replies already answered (confirmation::relay_replies).
    answered: HashSet<EventId>,
    seen: HashSet<EventId>,
    finished: HashSet<EventId>,
}

impl Debates {
    /// Adds an event (duplicates are ignored).
    pub fn insert(&mut self, event: Event) {
        if !self.seen.insert(event.id) {
            return;
        }
        if event.kind == SoulKind::Task.kind() {
            self.tasks.insert(event.id, event);
        } else if event.kind == Kind::TextNote {
            self.notes.insert(event.id, event);
        } else if let Some(task) = tags::task_ref(&event) {
            self.related.entry(task).or_default().push(event);
        }
    }

    /// Number of tasks known.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Whether no task is known.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// Every task known.
    pub fn all_tasks(&self) -> Vec<EventId> {
        self.tasks.keys().copied().collect()
    }

    /// Tasks not yet known to be final.
    pub fn open_tasks(&self) -> Vec<EventId> {
        self.tasks
            .keys()
            .filter(|id| !self.finished.contains(id))
            .copied()
            .collect()
    }

    /// The task event.
    pub fn task(&self, id: &EventId) -> Option<&Event> {
        self.tasks.get(id)
    }

    /// A kind-1 note read or published.
    pub fn note(&self, id: &EventId) -> Option<&Event> {
        self.notes.get(id)
    }

    /// Whether the reply `id` was answered already.
    pub fn was_answered(&self, id: &EventId) -> bool {
        self.answered.contains(id)
    }

    /// Marks the reply `id` answered.
    pub fn mark_answered(&mut self, id: EventId) {
        self.answered.insert(id);
    }

    /// Takes back [`Debates::mark_answered`] (the answer could not be published).
    pub fn unmark_answered(&mut self, id: &EventId) {
        self.answered.remove(id);
    }

    /// Every note by `author`.
    pub fn notes_by<'a>(&'a self, author: &'a PublicKey) -> impl Iterator<Item = &'a Event> {
        self.notes.values().filter(move |e| e.pubkey == *author)
    }

    /// Folds task `id`; remembers final tasks so they are not folded again.
    pub fn fold(&mut self, id: &EventId, brains: &Brains) -> Option<TaskState> {
        let task = self.tasks.get(id)?;
        let related = self.related.get(id).map(Vec::as_slice).unwrap_or(&[]);
        let (state, refused) = fold_task(task, related, brains).ok()?;
        for r in refused {
            tracing::debug!(task = %id, event = %r.event_id, rule = r.reason.rule.as_str(), "fold refused: {}", r.reason);
        }
        if state.status.is_final() {
            self.finished.insert(*id);
        }
        Some(state)
    }

    /// When the event `id` (of task `task`) was created.
    pub fn created_at(&self, task: &EventId, id: &EventId) -> Option<Timestamp> {
        self.related
            .get(task)?
            .iter()
            .find(|e| e.id == *id)
            .map(|e| e.created_at)
    }

    /// Whether the task came from `owner`, or from a brain allowed to relay it
    /// ([`soul_kinds::may_publish_task`]).
    pub fn from_owner(&self, id: &EventId, owner: &PublicKey, brains: &Brains) -> bool {
        self.tasks
            .get(id)
            .is_some_and(|t| soul_kinds::may_publish_task(t, owner, brains).is_ok())
    }
}
