//! Jobs with heartbeats (seed 002 phases 3–4, guards 10–13).
//!
//! A long piece of work is a job: it is `running` while its worker beats, `done` or `failed`
//! with its log written first (log-first distillation), and distilled into a lesson later if
//! the mind could not do it at once (deferred distillation). The zombie hunter marks a running
//! job whose heartbeat fell silent as `zombie`, so it is neither waited on forever nor killed
//! while it still beats.

use rusqlite::{params, Row};

use crate::{Error, Karma};

/// Where a job stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobStatus {
    /// Working; its heartbeat proves it.
    Running,
    /// Finished well.
    Done,
    /// Finished badly.
    Failed,
    /// Its heartbeat went silent; reclaimed by the zombie hunter.
    Zombie,
}

impl JobStatus {
    /// The name stored in the `status` column.
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Running => "running",
            JobStatus::Done => "done",
            JobStatus::Failed => "failed",
            JobStatus::Zombie => "zombie",
        }
    }

    fn parse(s: &str) -> Self {
        match s {
            "done" => JobStatus::Done,
            "failed" => JobStatus::Failed,
            "zombie" => JobStatus::Zombie,
            _ => JobStatus::Running,
        }
    }
}

/// A stored job.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// Row id.
    pub id: i64,
    /// What kind of work ("execution", …).
    pub kind: String,
    /// The event it is about (hex id), if any.
    pub subject: Option<String>,
    /// The agent doing it.
    pub agent: String,
    /// Where it stands.
    pub status: JobStatus,
    /// When it started (seconds since the epoch).
    pub started_at: i64,
    /// Its last heartbeat.
    pub last_heartbeat: i64,
    /// What happened, written before any distillation.
    pub execution_log: String,
    /// Whether a lesson was drawn from it.
    pub distilled: bool,
}

fn row(r: &Row) -> rusqlite::Result<Job> {
    let status: String = r.get(4)?;
    Ok(Job {
        id: r.get(0)?,
        kind: r.get(1)?,
        subject: r.get(2)?,
        agent: r.get(3)?,
        status: JobStatus::parse(&status),
        started_at: r.get(5)?,
        last_heartbeat: r.get(6)?,
        execution_log: r.get(7)?,
        distilled: r.get::<_, i64>(8)? != 0,
    })
}

const COLUMNS: &str =
    "id, kind, subject, agent, status, started_at, last_heartbeat, execution_log, distilled";

impl Karma {
    /// Starts a job at `now`; `payload` must be JSON (the schema refuses anything else).
    pub fn start_job(
        &self,
        kind: &str,
        subject: Option<&str>,
        agent: &str,
        payload: &str,
        now: i64,
    ) -> Result<i64, Error> {
        let conn = self.conn();
        conn.execute(
            "INSERT INTO jobs (kind, subject, agent, status, started_at, last_heartbeat, payload)
             VALUES (?1, ?2, ?3, 'running', ?4, ?4, ?5)",
            params![kind, subject, agent, now, payload],
        )
        .map_err(|e| self.sql("start a job", e))?;
        Ok(conn.last_insert_rowid())
    }

    /// The heartbeat pulse: the job is still alive at `now`.
    pub fn heartbeat(&self, id: i64, now: i64) -> Result<(), Error> {
        self.conn()
            .execute(
                "UPDATE jobs SET last_heartbeat = ?1 WHERE id = ?2 AND status = 'running'",
                params![now, id],
            )
            .map(|_| ())
            .map_err(|e| self.sql("beat a job's heart", e))
    }

    /// Adds a line to a running job's log (what it is doing), so that a job the zombie hunter
    /// reclaims still says what it was.
    pub fn note_job(&self, id: i64, line: &str) -> Result<(), Error> {
        self.conn()
            .execute(
                "UPDATE jobs SET execution_log = execution_log || ?1 || char(10) WHERE id = ?2",
                params![line, id],
            )
            .map(|_| ())
            .map_err(|e| self.sql("note a job's progress", e))
    }

    /// Ends a job, its log written first so that a lesson can be distilled from it later.
    pub fn finish_job(&self, id: i64, ok: bool, log: &str, now: i64) -> Result<(), Error> {
        let status = if ok { "done" } else { "failed" };
        self.conn()
            .execute(
                "UPDATE jobs SET status = ?1, execution_log = ?2, last_heartbeat = ?3 WHERE id = ?4",
                params![status, log, now, id],
            )
            .map(|_| ())
            .map_err(|e| self.sql("finish a job", e))
    }

    /// The zombie hunter: every running job silent for more than `silence_secs` at `now`
    /// becomes `zombie`, with a line in its log. Returns their ids.
    pub fn hunt_zombies(&self, now: i64, silence_secs: i64) -> Result<Vec<i64>, Error> {
        let conn = self.conn();
        let cutoff = now - silence_secs;
        let ids: Vec<i64> = {
            let mut stmt = conn
                .prepare("SELECT id FROM jobs WHERE status = 'running' AND last_heartbeat < ?1")
                .map_err(|e| self.sql("find zombie jobs", e))?;
            let rows = stmt
                .query_map([cutoff], |r| r.get(0))
                .map_err(|e| self.sql("find zombie jobs", e))?;
            rows.collect::<Result<_, _>>()
                .map_err(|e| self.sql("read a job id", e))?
        };
        for id in &ids {
            conn.execute(
                "UPDATE jobs SET status = 'zombie',
                   execution_log = execution_log || 'no heartbeat for over ' || ?1 || ' s; reclaimed by the zombie hunter'
                 WHERE id = ?2",
                params![silence_secs, id],
            )
            .map_err(|e| self.sql("reclaim a zombie job", e))?;
        }
        Ok(ids)
    }

    /// Jobs that went wrong (failed or reclaimed) and were not yet distilled: deferred
    /// distillation's queue.
    pub fn undistilled(&self, limit: usize) -> Result<Vec<Job>, Error> {
        self.undistilled_where("status IN ('failed', 'zombie')", limit)
    }

    /// Jobs that went well and were not yet distilled: the day's synthesis reads them.
    pub fn undistilled_successes(&self, limit: usize) -> Result<Vec<Job>, Error> {
        self.undistilled_where("status = 'done'", limit)
    }

    fn undistilled_where(&self, status: &str, limit: usize) -> Result<Vec<Job>, Error> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(&format!(
                "SELECT {COLUMNS} FROM jobs WHERE distilled = 0 AND {status}
                   AND execution_log != '' ORDER BY id LIMIT ?1"
            ))
            .map_err(|e| self.sql("find undistilled jobs", e))?;
        let rows = stmt
            .query_map([limit as i64], row)
            .map_err(|e| self.sql("find undistilled jobs", e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sql("read a job", e))
    }

    /// Marks a job distilled.
    pub fn mark_distilled(&self, id: i64) -> Result<(), Error> {
        self.conn()
            .execute("UPDATE jobs SET distilled = 1 WHERE id = ?1", [id])
            .map(|_| ())
            .map_err(|e| self.sql("mark a job distilled", e))
    }

    /// One job.
    pub fn job(&self, id: i64) -> Result<Option<Job>, Error> {
        use rusqlite::OptionalExtension;
        self.conn()
            .query_row(
                &format!("SELECT {COLUMNS} FROM jobs WHERE id = ?1"),
                [id],
                row,
            )
            .optional()
            .map_err(|e| self.sql("read a job", e))
    }

    /// Every job about `subject` (a hex event id), oldest first.
    pub fn jobs_about(&self, subject: &str) -> Result<Vec<Job>, Error> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(&format!(
                "SELECT {COLUMNS} FROM jobs WHERE subject = ?1 ORDER BY id"
            ))
            .map_err(|e| self.sql("find jobs about an event", e))?;
        let rows = stmt
            .query_map([subject], row)
            .map_err(|e| self.sql("find jobs about an event", e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sql("read a job", e))
    }

    /// Deletes a job; lessons drawn from it stay, their `job_id` set to NULL.
    pub fn delete_job(&self, id: i64) -> Result<(), Error> {
        self.conn()
            .execute("DELETE FROM jobs WHERE id = ?1", [id])
            .map(|_| ())
            .map_err(|e| self.sql("delete a job", e))
    }
}
