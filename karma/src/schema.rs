//! The guarded schema and its embedded migrations (seed 002 §3, guards 1–5).
//!
//! Migrations are SQL in this file, applied in order inside one transaction each, and the
//! version reached is kept in `PRAGMA user_version`: a database made by an older soul is brought
//! up to date at open, one made by a newer soul is refused rather than damaged.
//!
//! The guards live in the DDL so that no code path, present or future, can store a bad row:
//! weights within 0..=100, JSON columns that are valid JSON, statuses from a fixed set, and
//! `ON DELETE SET NULL` so that deleting a job never deletes the lessons drawn from it.

/// Every migration, oldest first. Never edit one that has shipped: add the next.
pub(crate) const MIGRATIONS: &[&str] = &[
    // 1: lessons, jobs, audit, model fallbacks, token use.
    r#"
CREATE TABLE IF NOT EXISTS jobs (
    id             INTEGER PRIMARY KEY,
    kind           TEXT    NOT NULL CHECK(length(kind) BETWEEN 1 AND 64),
    subject        TEXT,
    agent          TEXT    NOT NULL,
    status         TEXT    NOT NULL CHECK(status IN ('running','done','failed','zombie')),
    started_at     INTEGER NOT NULL,
    last_heartbeat INTEGER NOT NULL,
    execution_log  TEXT    NOT NULL DEFAULT '',
    distilled      INTEGER NOT NULL DEFAULT 0 CHECK(distilled IN (0, 1)),
    payload        TEXT    NOT NULL DEFAULT '{}' CHECK(json_valid(payload))
);
CREATE INDEX IF NOT EXISTS jobs_status ON jobs(status, distilled);

CREATE TABLE IF NOT EXISTS lessons (
    id           INTEGER PRIMARY KEY,
    event_id     TEXT UNIQUE,
    author       TEXT    NOT NULL,
    topic        TEXT    NOT NULL CHECK(length(topic) BETWEEN 1 AND 64),
    lesson       TEXT    NOT NULL CHECK(length(lesson) BETWEEN 1 AND 4000),
    weight       INTEGER NOT NULL CHECK(weight BETWEEN 0 AND 100),
    source_event TEXT,
    job_id       INTEGER REFERENCES jobs(id) ON DELETE SET NULL,
    directives   TEXT    NOT NULL DEFAULT '{}' CHECK(json_valid(directives)),
    created_at   INTEGER NOT NULL
);

-- Full-text index over terms soul computes itself (`lessons::terms`): English words, and
-- Japanese as overlapping character pairs, since Japanese has no spaces between words and
-- SQLite's tokenizers would see a whole sentence as one token (trigrams miss 2-character
-- words like 送金). Kept in step with `lessons` by the code that writes both in one transaction.
CREATE VIRTUAL TABLE IF NOT EXISTS lessons_fts USING fts5(terms, tokenize='unicode61');

CREATE TABLE IF NOT EXISTS audit (
    id                INTEGER PRIMARY KEY,
    record_id         TEXT    NOT NULL UNIQUE,
    timestamp         INTEGER NOT NULL,
    agent             TEXT    NOT NULL,
    actor             TEXT    NOT NULL,
    subject           TEXT,
    input_message     TEXT    NOT NULL,
    context_summary   TEXT    NOT NULL,
    llm_model         TEXT    NOT NULL,
    llm_reasoning     TEXT    NOT NULL,
    llm_confidence    REAL    NOT NULL CHECK(llm_confidence BETWEEN 0 AND 1),
    selected_tools    TEXT    NOT NULL CHECK(json_valid(selected_tools)),
    guardian_action   TEXT    NOT NULL CHECK(guardian_action IN ('allow','confirm','block','modify')),
    guardian_check    TEXT    NOT NULL,
    guardian_reason   TEXT    NOT NULL,
    auth_result       TEXT    NOT NULL CHECK(auth_result IN ('allowed','denied','not_reached')),
    auth_reason       TEXT    NOT NULL,
    execution_success INTEGER CHECK(execution_success IN (0, 1)),
    execution_result  TEXT    CHECK(execution_result IS NULL OR json_valid(execution_result)),
    execution_error   TEXT,
    final_response    TEXT    NOT NULL,
    total_duration_ms INTEGER NOT NULL CHECK(total_duration_ms >= 0),
    llm_duration_ms   INTEGER NOT NULL CHECK(llm_duration_ms >= 0),
    fallback          TEXT,
    verdict_event     TEXT
);

CREATE TABLE IF NOT EXISTS mind_fallbacks (
    id     INTEGER PRIMARY KEY,
    at     INTEGER NOT NULL,
    agent  TEXT    NOT NULL,
    model  TEXT    NOT NULL,
    ask    TEXT    NOT NULL,
    reason TEXT    NOT NULL CHECK(length(reason) > 0)
);

CREATE TABLE IF NOT EXISTS token_use (
    day    TEXT    PRIMARY KEY,
    tokens INTEGER NOT NULL CHECK(tokens >= 0)
);
"#,
    // 2: a run's outcome completes its audit row (issue 13): exit code, output size, run time,
    // and when the row was completed.
    r#"
ALTER TABLE audit ADD COLUMN exit_code INTEGER;
ALTER TABLE audit ADD COLUMN output_bytes INTEGER CHECK(output_bytes IS NULL OR output_bytes >= 0);
ALTER TABLE audit ADD COLUMN run_duration_ms INTEGER CHECK(run_duration_ms IS NULL OR run_duration_ms >= 0);
ALTER TABLE audit ADD COLUMN completed_at INTEGER;
CREATE INDEX IF NOT EXISTS audit_time ON audit(timestamp);
"#,
    // 3: the owner's ratings of lessons (issue 15, seed 002's human evaluation): one row per
    // NIP-25 reaction, so a reaction read again (every restart, every rebuild) counts once.
    r#"
CREATE TABLE IF NOT EXISTS lesson_ratings (
    reaction_id  TEXT    PRIMARY KEY,
    lesson_event TEXT    NOT NULL,
    delta        INTEGER NOT NULL CHECK(delta BETWEEN -100 AND 100),
    rated_at     INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS lesson_ratings_lesson ON lesson_ratings(lesson_event);
"#,
];
