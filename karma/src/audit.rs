//! Audit rows: one per guarded decision, with the fields of seed 003's observability record.
//!
//! The row is written by fixed code after the guardian and the gate decided; the mind only
//! contributes its reasoning and confidence as data (seed 003 §4.4.4: the model never decides
//! what is logged).

use rusqlite::params;

use crate::{Error, Karma};

/// One guarded decision.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditRow {
    /// Unique id of the record (the verdict event id when there is one).
    pub record_id: String,
    /// Seconds since the epoch.
    pub timestamp: i64,
    /// The deciding agent's name.
    pub agent: String,
    /// Who would act (hex pubkey).
    pub actor: String,
    /// The event the proposal is about (hex id).
    pub subject: Option<String>,
    /// What came in.
    pub input_message: String,
    /// What the mind was told, summarised.
    pub context_summary: String,
    /// `built-in` or the model's name.
    pub llm_model: String,
    /// The mind's reasoning.
    pub llm_reasoning: String,
    /// The mind's confidence, 0..=1.
    pub llm_confidence: f64,
    /// The proposed tool calls, JSON.
    pub selected_tools: String,
    /// allow | confirm | block | modify.
    pub guardian_action: String,
    /// Which check decided.
    pub guardian_check: String,
    /// Why.
    pub guardian_reason: String,
    /// allowed | denied | not_reached.
    pub auth_result: String,
    /// Why.
    pub auth_reason: String,
    /// Whether the action succeeded, when it ran.
    pub execution_success: Option<bool>,
    /// Its result, JSON, when it ran.
    pub execution_result: Option<String>,
    /// Its error, when it failed.
    pub execution_error: Option<String>,
    /// What was said to people.
    pub final_response: String,
    /// Whole handling time.
    pub total_duration_ms: i64,
    /// Time spent in the mind.
    pub llm_duration_ms: i64,
    /// Why the model's answer was not used, when the built-in mind stood in.
    pub fallback: Option<String>,
    /// The kind-4370 event published for it.
    pub verdict_event: Option<String>,
}

/// What a run that a verdict allowed did, for completing its row.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    /// Whether it succeeded (exit code 0, not timed out).
    pub success: bool,
    /// Its exit code, when it exited.
    pub exit_code: Option<i32>,
    /// How long it ran.
    pub duration_ms: u64,
    /// Bytes of output it produced (as kept).
    pub output_bytes: u64,
    /// Its error text, when it failed.
    pub error: Option<String>,
    /// A JSON summary of the result.
    pub result: Option<String>,
}

/// An audit row as read back, with its run's outcome once completed.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditEntry {
    /// The decision.
    pub row: AuditRow,
    /// The run's exit code.
    pub exit_code: Option<i64>,
    /// Bytes of output the run produced.
    pub output_bytes: Option<i64>,
    /// How long the run took.
    pub run_duration_ms: Option<i64>,
}

impl Karma {
    /// Writes one audit row; false when a row with its `record_id` is already there. A verdict
    /// row is named by its signed event, so the same id is the same verdict on the same subject
    /// by the same agent in the same second: a repeat, kept once.
    pub fn record_audit(&self, a: &AuditRow) -> Result<bool, Error> {
        let conn = self.conn();
        let written = conn.execute(
            "INSERT INTO audit (record_id, timestamp, agent, actor, subject, input_message, context_summary,
               llm_model, llm_reasoning, llm_confidence, selected_tools, guardian_action, guardian_check,
               guardian_reason, auth_result, auth_reason, execution_success, execution_result,
               execution_error, final_response, total_duration_ms, llm_duration_ms, fallback, verdict_event)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,
               ?19, ?20, ?21, ?22, ?23, ?24)
             ON CONFLICT(record_id) DO NOTHING",
            params![
                a.record_id,
                a.timestamp,
                a.agent,
                a.actor,
                a.subject,
                a.input_message,
                a.context_summary,
                a.llm_model,
                a.llm_reasoning,
                a.llm_confidence,
                a.selected_tools,
                a.guardian_action,
                a.guardian_check,
                a.guardian_reason,
                a.auth_result,
                a.auth_reason,
                a.execution_success,
                a.execution_result,
                a.execution_error,
                a.final_response,
                a.total_duration_ms,
                a.llm_duration_ms,
                a.fallback,
                a.verdict_event
            ],
        )
        .map_err(|e| self.sql("insert an audit row", e))?;
        Ok(written == 1)
    }

    /// Audit rows about `subject` (hex event id), oldest first: (guardian action, check,
    /// verdict event).
    pub fn audit_for(&self, subject: &str) -> Result<Vec<(String, String, Option<String>)>, Error> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(
                "SELECT guardian_action, guardian_check, verdict_event FROM audit
                 WHERE subject = ?1 ORDER BY id",
            )
            .map_err(|e| self.sql("read audit rows", e))?;
        let rows = stmt
            .query_map(params![subject], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(|e| self.sql("read audit rows", e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sql("read an audit row", e))
    }

    /// Completes the row `record_id` with what the run it allowed did. Returns false when no
    /// such row exists (nothing is invented for a run nobody judged).
    pub fn complete_audit(&self, record_id: &str, run: &RunOutcome) -> Result<bool, Error> {
        let n = self
            .conn()
            .execute(
                "UPDATE audit SET execution_success = ?2, execution_result = ?3,
                   execution_error = ?4, exit_code = ?5, output_bytes = ?6, run_duration_ms = ?7,
                   completed_at = ?8
                 WHERE record_id = ?1",
                params![
                    record_id,
                    run.success,
                    run.result,
                    run.error,
                    run.exit_code,
                    run.output_bytes as i64,
                    run.duration_ms as i64,
                    crate::now_secs()
                ],
            )
            .map_err(|e| self.sql("complete an audit row", e))?;
        Ok(n > 0)
    }

    /// Audit rows, oldest first: of `agent` if given, from `since` (seconds since the epoch) if
    /// given.
    pub fn audit_rows(
        &self,
        agent: Option<&str>,
        since: Option<i64>,
    ) -> Result<Vec<AuditEntry>, Error> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(
                "SELECT record_id, timestamp, agent, actor, subject, input_message, context_summary,
                   llm_model, llm_reasoning, llm_confidence, selected_tools, guardian_action,
                   guardian_check, guardian_reason, auth_result, auth_reason, execution_success,
                   execution_result, execution_error, final_response, total_duration_ms,
                   llm_duration_ms, fallback, verdict_event, exit_code, output_bytes,
                   run_duration_ms
                 FROM audit
                 WHERE (?1 IS NULL OR agent = ?1) AND (?2 IS NULL OR timestamp >= ?2)
                 ORDER BY timestamp, id",
            )
            .map_err(|e| self.sql("read audit rows", e))?;
        let rows = stmt
            .query_map(params![agent, since], |r| {
                Ok(AuditEntry {
                    row: AuditRow {
                        record_id: r.get(0)?,
                        timestamp: r.get(1)?,
                        agent: r.get(2)?,
                        actor: r.get(3)?,
                        subject: r.get(4)?,
                        input_message: r.get(5)?,
                        context_summary: r.get(6)?,
                        llm_model: r.get(7)?,
                        llm_reasoning: r.get(8)?,
                        llm_confidence: r.get(9)?,
                        selected_tools: r.get(10)?,
                        guardian_action: r.get(11)?,
                        guardian_check: r.get(12)?,
                        guardian_reason: r.get(13)?,
                        auth_result: r.get(14)?,
                        auth_reason: r.get(15)?,
                        execution_success: r.get(16)?,
                        execution_result: r.get(17)?,
                        execution_error: r.get(18)?,
                        final_response: r.get(19)?,
                        total_duration_ms: r.get(20)?,
                        llm_duration_ms: r.get(21)?,
                        fallback: r.get(22)?,
                        verdict_event: r.get(23)?,
                    },
                    exit_code: r.get(24)?,
                    output_bytes: r.get(25)?,
                    run_duration_ms: r.get(26)?,
                })
            })
            .map_err(|e| self.sql("read audit rows", e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sql("read an audit row", e))
    }

    /// How many audit rows there are.
    pub fn audit_count(&self) -> Result<usize, Error> {
        self.conn()
            .query_row("SELECT count(*) FROM audit", [], |r| r.get::<_, i64>(0))
            .map(|n| n as usize)
            .map_err(|e| self.sql("count audit rows", e))
    }
}

#[cfg(test)]
mod completion_tests {
    use super::*;

    fn row(id: &str, agent: &str, at: i64) -> AuditRow {
        AuditRow {
            record_id: id.into(),
            timestamp: at,
            agent: agent.into(),
            actor: "ab".into(),
            subject: Some("cd".into()),
            input_message: "run checksum".into(),
            context_summary: String::new(),
            llm_model: "built-in".into(),
            llm_reasoning: "the owner commanded it by DM".into(),
            llm_confidence: 1.0,
            selected_tools: "[]".into(),
            guardian_action: "allow".into(),
            guardian_check: "pass".into(),
            guardian_reason: "every check passed".into(),
            auth_result: "allowed".into(),
            auth_reason: String::new(),
            execution_success: None,
            execution_result: None,
            execution_error: None,
            final_response: String::new(),
            total_duration_ms: 1,
            llm_duration_ms: 0,
            fallback: None,
            verdict_event: None,
        }
    }

    #[test]
    fn a_run_completes_its_row_and_rows_filter_by_agent_and_time() {
        let dir = tempfile::tempdir().unwrap();
        let k = Karma::open(&dir.path().join("karma.sqlite")).unwrap();
        k.record_audit(&row("r1", "executor", 100)).unwrap();
        k.record_audit(&row("r2", "triceratops", 200)).unwrap();
        let run = RunOutcome {
            success: false,
            exit_code: Some(2),
            duration_ms: 15,
            output_bytes: 7,
            error: Some("no such file".into()),
            result: Some("{\"exit_code\":2}".into()),
        };
        assert!(k.complete_audit("r1", &run).unwrap());
        assert!(
            !k.complete_audit("nobody", &run).unwrap(),
            "no row is invented"
        );
        let rows = k.audit_rows(Some("executor"), None).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].row.execution_success, Some(false));
        assert_eq!(rows[0].exit_code, Some(2));
        assert_eq!(rows[0].output_bytes, Some(7));
        assert_eq!(rows[0].run_duration_ms, Some(15));
        assert_eq!(rows[0].row.execution_error.as_deref(), Some("no such file"));
        assert_eq!(k.audit_rows(None, Some(150)).unwrap().len(), 1);
        assert_eq!(k.audit_rows(None, None).unwrap().len(), 2);
        // The guards hold for the new columns: a result that is not JSON is refused.
        let bad = RunOutcome {
            result: Some("not json".into()),
            ..run
        };
        assert!(k.complete_audit("r2", &bad).is_err());
    }
}
