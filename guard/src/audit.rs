//! Audit (DESIGN §5, seed 003 §5.5): every guarded decision leaves one verdict event (kind
//! 4370) and one row in `karma.sqlite` with seed 003's observability fields.
//!
//! Written by fixed code after the guardian and the gate decided; the mind contributes data
//! (its reasoning, confidence, proposal) and never decides what is recorded.

use std::time::Instant;

use nostr::{EventId, Keys, PublicKey};
use soul_karma::{AuditRow, Karma, RunOutcome};
use soul_kinds::content::verdict;
use soul_kinds::AuditVerdict;

use crate::{Access, GuardError, Verdict};
use soul_link::{Link, LinkError};
use soul_proposal::{Proposal, Thought};

/// One guarded decision to record.
#[derive(Debug)]
pub struct Decision<'a> {
    /// The deciding agent's name.
    pub agent: &'a str,
    /// Who would act.
    pub actor: PublicKey,
    /// The event the proposal is about.
    pub subject: EventId,
    /// What came in (the task title, the message).
    pub input: String,
    /// What the mind was told, summarised.
    pub context_summary: String,
    /// The mind's proposal, and which mind made it.
    pub thought: &'a Thought<Proposal>,
    /// The guardian's verdict.
    pub verdict: &'a Verdict,
    /// The gate's answer; `None` when the guardian stopped it first.
    pub access: Option<&'a Access>,
    /// What was said to people (the execution result, the question asked).
    pub final_response: String,
    /// When handling started.
    pub started: Instant,
}

/// What went wrong while recording; the row is written even when the event could not be.
/// `thought` with its tools' parameters withheld, for a verdict event about something private
/// (an encrypted command's arguments) or published elsewhere already (a draft's text): the
/// event names the action; the local audit row keeps the whole input.
pub fn withheld(thought: &Thought<Proposal>) -> Thought<Proposal> {
    let mut t = thought.clone();
    if let soul_proposal::Shape::Tool(calls) = &mut t.value.shape {
        for c in calls {
            c.parameters.clear();
        }
    }
    t
}

fn clip(s: &str, max: usize) -> String {
    s.chars().take(max).collect()
}

/// Publishes the verdict event as `keys` and writes the row; returns the event's id.
pub async fn record(
    link: &Link,
    keys: &Keys,
    karma: &Karma,
    d: Decision<'_>,
) -> Result<EventId, GuardError> {
    let summary = d.thought.value.summary();
    let content = AuditVerdict {
        proposal: clip(
            if summary.trim().is_empty() {
                "(empty proposal)"
            } else {
                &summary
            },
            4000,
        ),
        action: d.verdict.action,
        // Never the detail: it quotes values (amounts, paths) that may be private.
        reason: clip(&d.verdict.reason, 4000),
        check: d.verdict.check.as_str().to_owned(),
    };
    // Signed before it is sent, so the row is named by the event even when the relay refuses
    // it (a rate limit, a dropped connection): the row is written either way.
    let event = verdict(d.subject, &content)
        .sign_with_keys(keys)
        .map_err(LinkError::from)?;
    let published = link.send(&event).await;
    let event_id = published.is_ok().then_some(event.id);
    let tools: Vec<serde_json::Value> = d
        .thought
        .value
        .tools()
        .iter()
        .map(|c| serde_json::json!({"tool_name": c.tool, "parameters": c.parameters}))
        .collect();
    let row = AuditRow {
        record_id: event.id.to_hex(),
        timestamp: soul_karma::now_secs(),
        agent: d.agent.to_owned(),
        actor: d.actor.to_hex(),
        subject: Some(d.subject.to_hex()),
        input_message: d.input,
        context_summary: d.context_summary,
        llm_model: d.thought.mind.clone(),
        llm_reasoning: d.thought.value.reasoning.clone(),
        llm_confidence: d.thought.value.confidence.clamp(0.0, 1.0),
        selected_tools: serde_json::Value::Array(tools).to_string(),
        guardian_action: d.verdict.action.as_str().to_owned(),
        guardian_check: d.verdict.check.as_str().to_owned(),
        // The row keeps the values behind the reason; the public event above does not.
        guardian_reason: d.verdict.full_reason(),
        auth_result: d.access.map_or("not_reached", Access::as_str).to_owned(),
        auth_reason: d.access.map(Access::reason).unwrap_or_default(),
        execution_success: None,
        execution_result: None,
        execution_error: None,
        final_response: d.final_response,
        total_duration_ms: d.started.elapsed().as_millis() as i64,
        llm_duration_ms: d.thought.millis as i64,
        fallback: d.thought.fallback.clone(),
        verdict_event: event_id.map(|id| id.to_hex()),
    };
    // SQLite I/O off the async workers: a thousand residents' posts are audited.
    let karma = karma.clone();
    match tokio::task::spawn_blocking(move || karma.record_audit(&row)).await {
        Ok(written) => {
            written?;
        }
        Err(e) => tracing::warn!("audit row not written: its writer stopped: {e}"),
    }
    published?;
    Ok(event.id)
}

/// Completes the row of the verdict event `verdict` with what the run it allowed did (off the
/// async workers). A row that cannot be completed is logged: the run already happened.
pub async fn complete(karma: &Karma, verdict: EventId, run: RunOutcome) {
    let karma = karma.clone();
    let id = verdict.to_hex();
    let done = tokio::task::spawn_blocking(move || karma.complete_audit(&id, &run)).await;
    match done {
        Ok(Ok(true)) => {}
        Ok(Ok(false)) => tracing::warn!(%verdict, "audit: no row to complete for this verdict"),
        Ok(Err(e)) => tracing::warn!(%verdict, "audit: row not completed: {e}"),
        Err(e) => tracing::warn!(%verdict, "audit: row not completed, its writer stopped: {e}"),
    }
}

/// Writes the row of a verdict judged by fixed code without a mind (a worker's suggestion
/// against the hourly limit): its event `published` is already on the relay, and the row
/// names it. Seed 003: every decision leaves a row, not only the guardian's.
pub async fn rule_row(
    karma: &Karma,
    agent: &str,
    actor: PublicKey,
    subject: EventId,
    published: EventId,
    v: &AuditVerdict,
    input: String,
) {
    let row = AuditRow {
        record_id: published.to_hex(),
        timestamp: soul_karma::now_secs(),
        agent: agent.to_owned(),
        actor: actor.to_hex(),
        subject: Some(subject.to_hex()),
        input_message: clip(&input, 2000),
        context_summary: "judged by rule, without a mind".into(),
        llm_model: "none".into(),
        llm_reasoning: String::new(),
        llm_confidence: 1.0,
        selected_tools: "[]".into(),
        guardian_action: v.action.as_str().to_owned(),
        guardian_check: v.check.clone(),
        guardian_reason: v.reason.clone(),
        auth_result: "not_reached".into(),
        auth_reason: String::new(),
        execution_success: None,
        execution_result: None,
        execution_error: None,
        final_response: v.proposal.clone(),
        total_duration_ms: 0,
        llm_duration_ms: 0,
        fallback: None,
        verdict_event: Some(published.to_hex()),
    };
    let karma = karma.clone();
    match tokio::task::spawn_blocking(move || karma.record_audit(&row)).await {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => tracing::warn!(%subject, "audit row not written: {e}"),
        Err(e) => tracing::warn!(%subject, "audit row not written, its writer stopped: {e}"),
    }
}
