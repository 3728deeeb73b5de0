//! soul's karma: `karma.sqlite` (DESIGN §8, seed 002 "Samsara").
//!
//! Lessons an agent learnt (kind 4367 events, mirrored here for full-text retrieval), jobs with
//! heartbeats (log first, distil later), the audit rows of the guardian's decisions (seed 003),
//! the model's fallbacks and its daily token use. One file per town, opened by the agent host.
//!
//! # Layout
//! - `schema`: the guarded DDL and its embedded migrations.
//! - [`lessons`]: record, retrieve (FTS5 ranking × weight), decay.
//! - [`jobs`]: jobs with heartbeats, the zombie hunter, the deferred-distillation queue.
//! - [`audit`]: one row per guarded decision, with seed 003's observability fields.
//! - [`usage`]: model fallbacks and tokens spent per day.
//! - [`ratings`]: the owner's `+`/`-` on a lesson, applied to its weight once per reaction.
//! - [`rebuild`]: the lessons again from their events.
//!
//! **Architecture invariant:** the guards are in the DDL (CHECK, `json_valid`, `ON DELETE SET
//! NULL`), not in this crate's code, so no writer can store a row they refuse.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod audit;
mod error;
pub mod jobs;
pub mod lessons;
pub mod ratings;
pub mod rebuild;
mod schema;
pub mod usage;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use rusqlite::Connection;

pub use audit::{AuditEntry, AuditRow, RunOutcome};
pub use error::Error;
pub use jobs::{Job, JobStatus};
pub use lessons::{LessonRow, NewLesson};

/// The file name inside a town directory.
pub const FILE_NAME: &str = "karma.sqlite";

/// How long [`Karma::open`] keeps trying while another process holds the file.
pub const OPEN_PATIENCE: std::time::Duration = std::time::Duration::from_secs(60);

/// An open `karma.sqlite`. Cheap to clone; every clone shares one connection.
///
/// A std `Mutex`, not tokio's: every statement is short and never held across an `.await`.
#[derive(Clone)]
pub struct Karma {
    conn: Arc<Mutex<Connection>>,
    path: PathBuf,
}

impl std::fmt::Debug for Karma {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Karma").field("path", &self.path).finish()
    }
}

impl Karma {
    /// Opens (or creates) `path` and brings its schema up to date. While another process holds
    /// the file (a long write, a migration under load), it tries again for up to
    /// [`OPEN_PATIENCE`]: an agent starting beside busy neighbours must not give up.
    pub fn open(path: &Path) -> Result<Self, Error> {
        let deadline = std::time::Instant::now() + OPEN_PATIENCE;
        let mut pause = std::time::Duration::from_millis(100);
        loop {
            let opened = Connection::open(path)
                .map_err(|source| Error::Open {
                    path: path.to_path_buf(),
                    source,
                })
                .and_then(|conn| Self::with(conn, path.to_path_buf()));
            match opened {
                Err(e) if e.is_busy() && std::time::Instant::now() < deadline => {
                    tracing::warn!(path = %path.display(), "karma is busy ({e}); trying again");
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(std::time::Duration::from_secs(2));
                }
                other => return other,
            }
        }
    }

    /// A database in memory (for tools and tests that need no file).
    pub fn in_memory() -> Result<Self, Error> {
        let path = PathBuf::from(":memory:");
        let conn = Connection::open_in_memory().map_err(|source| Error::Open {
            path: path.clone(),
            source,
        })?;
        Self::with(conn, path)
    }

    fn with(mut conn: Connection, path: PathBuf) -> Result<Self, Error> {
        let sql = |source| Error::Sql {
            path: path.clone(),
            doing: "set up the connection",
            source,
        };
        // First, so that every statement below (the WAL switch, the migration lock) waits for
        // another process holding the file instead of failing with SQLITE_BUSY.
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(sql)?;
        // Foreign keys are off by default in SQLite: without this, ON DELETE SET NULL is inert.
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(sql)?;
        // Several agents of one host write; WAL lets readers go on while one writes.
        if path.as_os_str() != ":memory:" {
            conn.pragma_update(None, "journal_mode", "WAL")
                .map_err(sql)?;
            // In WAL mode NORMAL syncs at checkpoints, not at every commit: a crash of the
            // process loses nothing, a power cut at most the last commits, and everything here
            // is either rebuildable from the relay's events (lessons, verdicts) or bookkeeping.
            // FULL paid one fsync per audit row, i.e. per resident post.
            conn.pragma_update(None, "synchronous", "NORMAL")
                .map_err(sql)?;
        }
        migrate(&mut conn, &path)?;
        Ok(Self {
            conn: Arc::new(Mutex::new(conn)),
            path,
        })
    }

    /// The file this is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The schema version reached.
    pub fn version(&self) -> Result<usize, Error> {
        self.conn()
            .pragma_query_value(None, "user_version", |r| r.get::<_, i64>(0))
            .map(|v| v as usize)
            .map_err(|source| self.sql("read the schema version", source))
    }

    /// The connection; a poisoned lock (a panic mid-statement) still holds a consistent
    /// database, because SQLite rolled the statement back.
    pub(crate) fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn sql(&self, doing: &'static str, source: rusqlite::Error) -> Error {
        Error::Sql {
            path: self.path.clone(),
            doing,
            source,
        }
    }

    /// Runs raw SQL (for tests of the guards and for tools).
    pub fn execute_raw(&self, sql: &str) -> Result<usize, Error> {
        self.conn()
            .execute(sql, [])
            .map_err(|source| self.sql("run SQL", source))
    }
}

fn migrate(conn: &mut Connection, path: &Path) -> Result<(), Error> {
    let sql_err = |doing, source| Error::Sql {
        path: path.to_path_buf(),
        doing,
        source,
    };
    // Up to date (every open but the first): nothing to lock. A write lock here would make an
    // agent's start wait on whatever its neighbours are writing.
    let known: i64 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(|source| sql_err("read the schema version", source))?;
    if known.max(0) as usize == schema::MIGRATIONS.len() {
        return Ok(());
    }
    // One IMMEDIATE transaction around reading the version and applying what is missing: several
    // agents (processes) may open a fresh town's file at once, and each must see the others'
    // migrations instead of re-running them ("table already exists").
    let tx = conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(|source| sql_err("lock the schema for migration", source))?;
    let current: i64 = tx
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(|source| sql_err("read the schema version", source))?;
    let current = current.max(0) as usize;
    if current > schema::MIGRATIONS.len() {
        return Err(Error::TooNew {
            path: path.to_path_buf(),
            found: current,
            known: schema::MIGRATIONS.len(),
        });
    }
    for (i, sql) in schema::MIGRATIONS.iter().enumerate().skip(current) {
        let version = i + 1;
        let err = |source| Error::Migrate {
            path: path.to_path_buf(),
            version,
            source,
        };
        tx.execute_batch(sql).map_err(err)?;
        tx.pragma_update(None, "user_version", version as i64)
            .map_err(err)?;
        tracing::debug!(path = %path.display(), version, "karma schema migrated");
    }
    tx.commit()
        .map_err(|source| sql_err("commit the schema migration", source))
}

/// Seconds since the Unix epoch.
pub fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests;
