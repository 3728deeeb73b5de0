//! The lessons again from their kind-4367 events (DESIGN §3: karma.sqlite is derived).
//!
//! Decay is local bookkeeping, so a rebuilt lesson starts from its event's weight less what it
//! would have decayed since it was published, at the same daily rate the host applies.

use nostr::Event;
use soul_kinds::{parse, Lesson};

use crate::lessons::NewLesson;
use crate::{Error, Karma};

/// Result of a rebuild.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Rebuilt {
    /// Lessons stored (new to this database).
    pub stored: usize,
    /// Events that were not readable lessons (each logged with its id).
    pub skipped: usize,
}

impl Karma {
    /// Stores every lesson among `events` that is not stored yet; `decay_per_day` points are
    /// taken off for each day between its `created_at` and `now`.
    pub fn rebuild_from_events(
        &self,
        events: &[Event],
        now: i64,
        decay_per_day: i64,
    ) -> Result<Rebuilt, Error> {
        let before = self.all_lessons()?.len();
        let mut skipped = 0;
        for event in events {
            let lesson: Lesson = match parse(event) {
                Ok(l) => l,
                Err(e) => {
                    tracing::warn!("karma rebuild skips an event: {e}");
                    skipped += 1;
                    continue;
                }
            };
            let created = event.created_at.as_secs() as i64;
            let days = (now - created).max(0) / 86_400;
            let weight = (i64::from(lesson.weight) - days * decay_per_day).clamp(0, 100);
            let source = event.tags.event_ids().next().map(|id| id.to_hex());
            self.record_lesson(&NewLesson {
                author: event.pubkey.to_hex(),
                topic: lesson.topic,
                lesson: lesson.lesson,
                weight,
                source_event: source,
                event_id: Some(event.id.to_hex()),
                job_id: None,
                directives: "{}".into(),
                created_at: created,
            })?;
        }
        let stored = self.all_lessons()?.len() - before;
        Ok(Rebuilt { stored, skipped })
    }
}
