//! The crate's one error type. Every variant names the database file and what was being done.

use std::path::PathBuf;

/// Everything that can go wrong with `karma.sqlite`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file could not be opened or created.
    #[error("cannot open {path}: {source} (is the town directory writable?)")]
    Open {
        /// The database file.
        path: PathBuf,
        /// SQLite's reason.
        #[source]
        source: rusqlite::Error,
    },
    /// A migration failed; the database is left at the last version that applied.
    #[error("{path}: migration to schema version {version} failed: {source}")]
    Migrate {
        /// The database file.
        path: PathBuf,
        /// The version that failed.
        version: usize,
        /// SQLite's reason.
        #[source]
        source: rusqlite::Error,
    },
    /// The file was written by a newer soul.
    #[error("{path}: schema version {found} is newer than this soul knows ({known}); upgrade soul or move the file away")]
    TooNew {
        /// The database file.
        path: PathBuf,
        /// The version in the file.
        found: usize,
        /// The newest version this build knows.
        known: usize,
    },
    /// A statement failed: a guard (CHECK, json_valid, NOT NULL) refused the row, or I/O failed.
    #[error("{path}: {doing}: {source}")]
    Sql {
        /// The database file.
        path: PathBuf,
        /// What was being done ("insert lesson", …).
        doing: &'static str,
        /// SQLite's reason; a refused guard says which CHECK.
        #[source]
        source: rusqlite::Error,
    },
    /// A value that cannot be stored (a JSON field that does not serialise).
    #[error("{path}: {doing}: {reason}")]
    Value {
        /// The database file.
        path: PathBuf,
        /// What was being done.
        doing: &'static str,
        /// What is wrong with the value.
        reason: String,
    },
}

impl Error {
    /// True when another connection held the file longer than the busy time-out: worth trying
    /// again, unlike every other error.
    pub fn is_busy(&self) -> bool {
        matches!(
            self,
            Error::Sql {
                source: rusqlite::Error::SqliteFailure(e, _),
                ..
            } | Error::Open {
                source: rusqlite::Error::SqliteFailure(e, _),
                ..
            } if matches!(
                e.code,
                rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
            )
        )
    }

    /// True when SQLite refused the row because a guard (CHECK, NOT NULL, UNIQUE, FOREIGN KEY)
    /// failed, as opposed to I/O.
    pub fn is_guard(&self) -> bool {
        matches!(
            self,
            Error::Sql {
                source: rusqlite::Error::SqliteFailure(e, _),
                ..
            } if e.code == rusqlite::ErrorCode::ConstraintViolation
        )
    }
}
