//! The owner's ratings of lessons (seed 002: lessons also come from the human's evaluation).
//!
//! A rating is a NIP-25 reaction on a lesson's 4367 event. Each reaction is applied once, by its
//! id, however often it is read again; a rating that arrives before its lesson (the lesson is
//! rebuilt later) waits in the table and is applied when the lesson is recorded.

use rusqlite::{params, OptionalExtension};

use crate::{Error, Karma};

/// How much an owner's `+` raises a lesson's weight.
pub const UP: i64 = 10;
/// How much an owner's `-` lowers it: a "no" from the owner weighs more than a "yes", so a
/// lesson the owner rejects stops steering after a few.
pub const DOWN: i64 = -25;

/// What a rating did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rated {
    /// Applied: the lesson's weight is now this.
    Applied(i64),
    /// Recorded; the lesson is not here yet and gets it when it is recorded.
    Waiting,
    /// This reaction was applied before.
    Again,
}

impl Karma {
    /// Applies the owner's reaction `reaction_id` on the lesson published as `lesson_event`,
    /// moving its weight by `delta` (within 0–100), once.
    pub fn rate_lesson(
        &self,
        reaction_id: &str,
        lesson_event: &str,
        delta: i64,
        at: i64,
    ) -> Result<Rated, Error> {
        let conn = self.conn();
        let tx = conn
            .unchecked_transaction()
            .map_err(|e| self.sql("begin a rating", e))?;
        let inserted = tx
            .execute(
                "INSERT OR IGNORE INTO lesson_ratings (reaction_id, lesson_event, delta, rated_at)
                 VALUES (?1, ?2, ?3, ?4)",
                params![reaction_id, lesson_event, delta.clamp(-100, 100), at],
            )
            .map_err(|e| self.sql("record a rating", e))?;
        if inserted == 0 {
            return Ok(Rated::Again);
        }
        tx.execute(
            "UPDATE lessons SET weight = max(0, min(100, weight + ?1)) WHERE event_id = ?2",
            params![delta, lesson_event],
        )
        .map_err(|e| self.sql("apply a rating", e))?;
        let weight: Option<i64> = tx
            .query_row(
                "SELECT weight FROM lessons WHERE event_id = ?1",
                [lesson_event],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.sql("read a rated lesson", e))?;
        tx.commit().map_err(|e| self.sql("commit a rating", e))?;
        Ok(weight.map_or(Rated::Waiting, Rated::Applied))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NewLesson;

    fn lesson(k: &Karma, event: &str, weight: i64) {
        k.record_lesson(&NewLesson {
            author: "ab".repeat(32),
            topic: "execution".into(),
            lesson: "check the disk is mounted before a backup".into(),
            weight,
            source_event: None,
            event_id: Some(event.into()),
            job_id: None,
            directives: "{}".into(),
            created_at: 1,
        })
        .unwrap();
    }

    #[test]
    fn a_reaction_counts_once_and_weights_stay_in_range() {
        let k = Karma::in_memory().unwrap();
        lesson(&k, "e1", 60);
        assert_eq!(
            k.rate_lesson("r1", "e1", UP, 2).unwrap(),
            Rated::Applied(70)
        );
        // Read again on a restart: nothing changes.
        assert_eq!(k.rate_lesson("r1", "e1", UP, 2).unwrap(), Rated::Again);
        assert_eq!(
            k.rate_lesson("r2", "e1", DOWN, 3).unwrap(),
            Rated::Applied(45)
        );
        for i in 0..5 {
            k.rate_lesson(&format!("d{i}"), "e1", DOWN, 4).unwrap();
        }
        assert_eq!(k.all_lessons().unwrap()[0].weight, 0);
        for i in 0..20 {
            k.rate_lesson(&format!("u{i}"), "e1", UP, 5).unwrap();
        }
        assert_eq!(k.all_lessons().unwrap()[0].weight, 100);
    }

    #[test]
    fn a_rating_before_its_lesson_waits_for_it() {
        let k = Karma::in_memory().unwrap();
        assert_eq!(k.rate_lesson("r1", "e9", DOWN, 2).unwrap(), Rated::Waiting);
        lesson(&k, "e9", 60);
        assert_eq!(k.all_lessons().unwrap()[0].weight, 35);
    }
}
