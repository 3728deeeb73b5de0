//! Lessons: record, retrieve the few most relevant live ones, decay (seed 002 phases 1 and 4).
//!
//! Retrieval ranks by FTS5's bm25 over the lesson and its topic, scaled by the lesson's weight,
//! and never returns a lesson whose weight has decayed to 0: old karma stops binding.

use rusqlite::{params, OptionalExtension, Row};

use crate::{Error, Karma};

/// A lesson to store.
#[derive(Debug, Clone, PartialEq)]
pub struct NewLesson {
    /// Who learnt it (hex pubkey or agent name).
    pub author: String,
    /// What it is about, 1..=64 characters.
    pub topic: String,
    /// The lesson, 1..=4000 characters.
    pub lesson: String,
    /// 0..=100.
    pub weight: i64,
    /// The event it was drawn from (hex id), if any.
    pub source_event: Option<String>,
    /// Its own kind-4367 event (hex id), once published.
    pub event_id: Option<String>,
    /// The job it was distilled from, if any.
    pub job_id: Option<i64>,
    /// Directives as JSON (seed 002's split payload); `{}` when none.
    pub directives: String,
    /// Seconds since the epoch.
    pub created_at: i64,
}

/// A stored lesson.
#[derive(Debug, Clone, PartialEq)]
pub struct LessonRow {
    /// Row id.
    pub id: i64,
    /// Its kind-4367 event, if published.
    pub event_id: Option<String>,
    /// Who learnt it.
    pub author: String,
    /// What it is about.
    pub topic: String,
    /// The lesson.
    pub lesson: String,
    /// Current weight, 0..=100.
    pub weight: i64,
    /// The event it was drawn from.
    pub source_event: Option<String>,
    /// The job it was distilled from (NULL once that job is deleted).
    pub job_id: Option<i64>,
    /// When it was learnt.
    pub created_at: i64,
}

const COLUMNS: &str =
    "l.id, l.event_id, l.author, l.topic, l.lesson, l.weight, l.source_event, l.job_id, l.created_at";

fn row(r: &Row) -> rusqlite::Result<LessonRow> {
    Ok(LessonRow {
        id: r.get(0)?,
        event_id: r.get(1)?,
        author: r.get(2)?,
        topic: r.get(3)?,
        lesson: r.get(4)?,
        weight: r.get(5)?,
        source_event: r.get(6)?,
        job_id: r.get(7)?,
        created_at: r.get(8)?,
    })
}

/// Most terms in one retrieval query; a long task text is cut, not refused.
const MAX_TERMS: usize = 48;

impl Karma {
    /// Stores a lesson; a lesson whose `event_id` is already stored is left as it is (events
    /// are replayed on rebuild and on every restart). Returns its row id.
    pub fn record_lesson(&self, l: &NewLesson) -> Result<i64, Error> {
        let conn = self.conn();
        if let Some(event) = &l.event_id {
            let found: Option<i64> = conn
                .query_row("SELECT id FROM lessons WHERE event_id = ?1", [event], |r| {
                    r.get(0)
                })
                .optional()
                .map_err(|e| self.sql("look up a lesson", e))?;
            if let Some(id) = found {
                return Ok(id);
            }
        }
        // The owner's ratings read before the lesson itself (a rebuild replays lessons after
        // reactions may have been applied) count from the start.
        let rated: i64 = match &l.event_id {
            Some(event) => conn
                .query_row(
                    "SELECT coalesce(sum(delta), 0) FROM lesson_ratings WHERE lesson_event = ?1",
                    [event],
                    |r| r.get(0),
                )
                .map_err(|e| self.sql("sum a lesson's ratings", e))?,
            None => 0,
        };
        // Unrated, the weight goes in as given, so the DDL's CHECK still refuses a bad one.
        let weight = match rated {
            0 => l.weight,
            r => (l.weight + r).clamp(0, 100),
        };
        let tx = conn
            .unchecked_transaction()
            .map_err(|e| self.sql("begin a lesson", e))?;
        tx.execute(
            "INSERT INTO lessons (event_id, author, topic, lesson, weight, source_event, job_id, directives, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                l.event_id,
                l.author,
                l.topic,
                l.lesson,
                weight,
                l.source_event,
                l.job_id,
                l.directives,
                l.created_at
            ],
        )
        .map_err(|e| self.sql("insert a lesson", e))?;
        let id = tx.last_insert_rowid();
        let indexed = terms(&format!("{} {}", l.topic, l.lesson)).join(" ");
        tx.execute(
            "INSERT INTO lessons_fts (rowid, terms) VALUES (?1, ?2)",
            params![id, indexed],
        )
        .map_err(|e| self.sql("index a lesson", e))?;
        tx.commit().map_err(|e| self.sql("commit a lesson", e))?;
        Ok(id)
    }

    /// Notes the kind-4367 event a stored lesson was published as.
    pub fn set_lesson_event(&self, id: i64, event_id: &str) -> Result<(), Error> {
        self.conn()
            .execute(
                "UPDATE lessons SET event_id = ?1 WHERE id = ?2",
                params![event_id, id],
            )
            .map(|_| ())
            .map_err(|e| self.sql("note a lesson's event", e))
    }

    /// The `limit` most relevant live lessons for `text` (a task, a draft): full-text rank
    /// times weight, weight 0 never.
    pub fn relevant(&self, text: &str, limit: usize) -> Result<Vec<LessonRow>, Error> {
        let Some(query) = match_query(text) else {
            return Ok(Vec::new());
        };
        let conn = self.conn();
        let mut stmt = conn
            .prepare(&format!(
                "SELECT {COLUMNS} FROM lessons_fts f JOIN lessons l ON l.id = f.rowid
                 WHERE lessons_fts MATCH ?1 AND l.weight > 0
                 ORDER BY bm25(lessons_fts) * l.weight ASC, l.id DESC LIMIT ?2"
            ))
            .map_err(|e| self.sql("prepare lesson retrieval", e))?;
        let rows = stmt
            .query_map(params![query, limit as i64], row)
            .map_err(|e| self.sql("retrieve lessons", e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sql("read a lesson", e))
    }

    /// Every lesson, live or not, newest first.
    pub fn all_lessons(&self) -> Result<Vec<LessonRow>, Error> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(&format!(
                "SELECT {COLUMNS} FROM lessons l ORDER BY l.created_at DESC, l.id DESC"
            ))
            .map_err(|e| self.sql("prepare lesson list", e))?;
        let rows = stmt
            .query_map([], row)
            .map_err(|e| self.sql("list lessons", e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sql("read a lesson", e))
    }

    /// Karma decay: every live lesson loses `points` of weight, never below 0. Returns how
    /// many lessons reached 0 in this pass (they are never retrieved again).
    pub fn decay(&self, points: i64) -> Result<usize, Error> {
        let points = points.clamp(0, 100);
        let conn = self.conn();
        let dying: i64 = conn
            .query_row(
                "SELECT count(*) FROM lessons WHERE weight > 0 AND weight <= ?1",
                [points],
                |r| r.get(0),
            )
            .map_err(|e| self.sql("count dying lessons", e))?;
        conn.execute(
            "UPDATE lessons SET weight = max(0, weight - ?1) WHERE weight > 0",
            [points],
        )
        .map_err(|e| self.sql("decay lessons", e))?;
        Ok(dying as usize)
    }
}

/// The searchable terms of `text`: lower-cased English words of 3+ letters (stop words
/// dropped), and each pair of adjacent characters of a Japanese run (a lone character alone).
pub fn terms(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |t: String| {
        if !out.contains(&t) {
            out.push(t);
        }
    };
    let mut run: Vec<char> = Vec::new();
    let mut flush = |run: &mut Vec<char>| {
        if run.first().is_some_and(|c| c.is_ascii()) {
            let word: String = run.iter().collect();
            if word.len() >= 3 && !STOP.contains(&word.as_str()) {
                push(word);
            }
        } else if run.len() == 1 {
            push(run[0].to_string());
        } else {
            for pair in run.windows(2) {
                push(pair.iter().collect());
            }
        }
        run.clear();
    };
    for c in text.chars() {
        let wordy = c.is_ascii_alphanumeric() || (!c.is_ascii() && c.is_alphanumeric());
        if !wordy || run.last().is_some_and(|l| l.is_ascii() != c.is_ascii()) {
            flush(&mut run);
        }
        if wordy {
            run.extend(c.to_lowercase());
        }
    }
    flush(&mut run);
    out
}

/// An FTS5 query matching any term of `text`; English words match by their first five letters
/// as a prefix, so "deleting" finds "delete" and "photos" finds "photo". `None` when nothing
/// is searchable.
pub fn match_query(text: &str) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    for t in terms(text) {
        let part = if t.is_ascii() {
            let stem: String = t.chars().take(5).collect();
            format!("\"{stem}\"*")
        } else {
            format!("\"{t}\"")
        };
        if !parts.contains(&part) && parts.len() < MAX_TERMS {
            parts.push(part);
        }
    }
    (!parts.is_empty()).then(|| parts.join(" OR "))
}

/// English words too common to rank by.
const STOP: &[&str] = &[
    "the", "and", "for", "with", "that", "this", "from", "are", "was", "you", "our", "all", "not",
    "but", "have", "has", "into", "them", "then", "than", "when", "what", "will", "out", "can",
];
