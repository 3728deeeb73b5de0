//! The strict output schema (seed 003 §5.2.3b): what any mind proposes, typed.
//!
//! A model's answer is parsed into [`MindOutput`] or refused: unknown fields, a missing required
//! field, a confidence outside 0–1, reasoning under 20 characters, an empty tool list — each is
//! a [`SchemaError`] naming the field, and the answer is never executed (DESIGN §5). Three
//! shapes: `tool_call`, `text_response`, `clarification_needed`. A role that needs more than
//! words asks for one extra object on a `text_response` ([`Want`]): a debate opinion's `vote`,
//! a resident's `draft`, a reviewer's `review`, a brain's `evaluation`. The extra asked for must
//! be there, and no other.
//!
//! This crate is the contract between a mind and the leash: minds produce these types and
//! soul-guard judges them, and neither crate needs the other.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod schema;
#[cfg(test)]
mod tests;
mod thought;

pub use schema::{json_schema, schema_name};
pub use thought::Thought;

use serde::Deserialize;
use serde_json::{Map, Value};
use soul_kinds::{BrainName, Params, ReviewVerdict, Scores, SoulContent, Vote};

/// Fewest characters of reasoning a proposal must carry (seed 003 §4.7.2).
pub const MIN_REASONING: usize = 20;

/// One tool a mind proposes to use. A proposal, never a decision: the guardian and the gate
/// decide.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The tool's name (`rules/authorization.yaml` lists the known ones).
    pub tool: String,
    /// Its parameters as the mind extracted them.
    pub parameters: Map<String, Value>,
}

/// What is proposed.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// Use these tools.
    Tool(Vec<ToolCall>),
    /// Say this.
    Text(String),
    /// Ask this first.
    Clarify {
        /// The question.
        question: String,
        /// Choices offered, if any.
        options: Vec<String>,
    },
}

/// A mind's proposal, whichever mind made it.
#[derive(Debug, Clone, PartialEq)]
pub struct Proposal {
    /// What it proposes.
    pub shape: Shape,
    /// Why, as one text (the schema's reasoning fields joined).
    pub reasoning: String,
    /// Overall confidence, 0..=1.
    pub confidence: f64,
    /// The confirmation question the mind suggests, if it thinks one is needed.
    pub confirmation_question: Option<String>,
}

impl Proposal {
    /// One call of `tool`, with no question for the owner.
    pub fn call(
        tool: &str,
        parameters: Map<String, Value>,
        reasoning: String,
        confidence: f64,
    ) -> Self {
        Self {
            shape: Shape::Tool(vec![ToolCall {
                tool: tool.to_owned(),
                parameters,
            }]),
            reasoning,
            confidence,
            confirmation_question: None,
        }
    }

    /// The tools proposed (none for text and clarifications).
    pub fn tools(&self) -> &[ToolCall] {
        match &self.shape {
            Shape::Tool(t) => t,
            _ => &[],
        }
    }

    /// Every text of the proposal (tool names and parameters, the reply, the question), for
    /// pattern checks.
    pub fn texts(&self) -> String {
        match &self.shape {
            Shape::Tool(calls) => calls
                .iter()
                .map(|c| format!("{} {}", c.tool, Value::Object(c.parameters.clone())))
                .collect::<Vec<_>>()
                .join("\n"),
            Shape::Text(t) => t.clone(),
            Shape::Clarify { question, options } => format!("{question}\n{}", options.join("\n")),
        }
    }

    /// One line saying what is proposed, for logs and the audit.
    pub fn summary(&self) -> String {
        match &self.shape {
            Shape::Tool(calls) => calls
                .iter()
                .map(|c| format!("{}({})", c.tool, Value::Object(c.parameters.clone())))
                .collect::<Vec<_>>()
                .join(", "),
            Shape::Text(t) => format!("say: {t}"),
            Shape::Clarify { question, .. } => format!("ask: {question}"),
        }
    }
}

/// The vote fields of a debate opinion.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VoteFields {
    /// approve | approve_with_modification | reject.
    pub vote: Vote,
    /// Numbered steps, or what would make the task acceptable.
    pub proposed_approach: String,
    /// Specific concerns.
    #[serde(default)]
    pub concerns: Vec<String>,
    /// Rounds 2–3: the brains whose conditions this vote takes up.
    #[serde(default)]
    pub accepts: Vec<BrainName>,
}

/// The draft fields of a resident's post (the post itself is the `text_response`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DraftFields {
    /// What the post is about, a few words (kept for the next "continue").
    pub topic: String,
}

/// The review fields of a reviewer's judgement (the reason is the `text_response`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReviewFields {
    /// approved | rejected.
    pub verdict: ReviewVerdict,
    /// The NG rule ids a rejection cites.
    #[serde(default)]
    pub rules: Vec<String>,
}

/// The evaluation fields of one brain scoring another (the reason is the `text_response`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvaluationFields {
    /// The four scores, each 0..=1.
    pub scores: Scores,
    /// Whether the target should retune.
    pub needs_retuning: bool,
    /// The params proposed for it, each 0..=1.
    #[serde(default)]
    pub proposed_params: Option<Params>,
}

/// Which extra object an ask wants on its `text_response`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    /// Nothing extra: a plain answer (a proposal to act, a lesson).
    Plain,
    /// A debate opinion's `vote`.
    Vote,
    /// A resident's `draft`.
    Draft,
    /// A reviewer's `review`.
    Review,
    /// A brain's `evaluation`.
    Evaluation,
}

/// A parsed answer.
#[derive(Debug, Clone, PartialEq)]
pub struct MindOutput {
    /// The proposal.
    pub proposal: Proposal,
    /// Present when the answer is a debate opinion.
    pub vote: Option<VoteFields>,
    /// Present when the answer is a resident's post.
    pub draft: Option<DraftFields>,
    /// Present when the answer is a review.
    pub review: Option<ReviewFields>,
    /// Present when the answer is an evaluation.
    pub evaluation: Option<EvaluationFields>,
}

/// Why an answer was refused.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    /// Not JSON of the schema's shape (syntax, an unknown or ill-typed field); serde_json's
    /// error names the field and the position.
    #[error("not the output schema: {0}")]
    Json(#[from] serde_json::Error),
    /// A field breaks a rule.
    #[error("field \"{field}\": {reason}")]
    Field {
        /// The field's JSON path.
        field: &'static str,
        /// Which rule.
        reason: String,
    },
}

fn field(field: &'static str, reason: impl Into<String>) -> SchemaError {
    SchemaError::Field {
        field,
        reason: reason.into(),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    output_type: String,
    reasoning: RawReasoning,
    confidence: RawConfidence,
    #[serde(default)]
    tool_calls: Option<Vec<RawTool>>,
    #[serde(default)]
    needs_confirmation: Option<bool>,
    #[serde(default)]
    confirmation_question: Option<String>,
    #[serde(default)]
    text_response: Option<String>,
    #[serde(default)]
    clarification_question: Option<String>,
    #[serde(default)]
    options: Option<Vec<String>>,
    #[serde(default)]
    vote: Option<VoteFields>,
    #[serde(default)]
    draft: Option<DraftFields>,
    #[serde(default)]
    review: Option<ReviewFields>,
    #[serde(default)]
    evaluation: Option<EvaluationFields>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawReasoning {
    intent_understanding: Option<String>,
    context_used: Option<Vec<String>>,
    tool_selection_reason: Option<String>,
    alternatives_considered: Option<Vec<String>>,
    response_strategy: Option<String>,
    no_tool_reason: Option<String>,
    ambiguity_detected: Option<String>,
    possible_interpretations: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfidence {
    overall: f64,
    intent: Option<f64>,
    parameters: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTool {
    tool_name: String,
    parameters: Map<String, Value>,
    #[serde(default)]
    parameter_sources: Option<Map<String, Value>>,
}

fn required<'a>(v: &'a Option<String>, name: &'static str) -> Result<&'a str, SchemaError> {
    match v.as_deref().map(str::trim) {
        Some(s) if !s.is_empty() => Ok(s),
        _ => Err(field(name, "required for this output_type")),
    }
}

fn unit(v: f64, name: &'static str) -> Result<f64, SchemaError> {
    if v.is_finite() && (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(field(name, format!("must be within 0..=1, found {v}")))
    }
}

/// Parses a model's answer; `want` names the extra object it must carry (and the only one).
pub fn parse_output(text: &str, want: Want) -> Result<MindOutput, SchemaError> {
    let raw: Raw = serde_json::from_str(text.trim())?;
    let confidence = unit(raw.confidence.overall, "confidence.overall")?;
    if let Some(c) = raw.confidence.intent {
        unit(c, "confidence.intent")?;
    }
    if let Some(c) = raw.confidence.parameters {
        unit(c, "confidence.parameters")?;
    }
    let r = &raw.reasoning;
    let mut parts: Vec<String> = Vec::new();
    let shape = match raw.output_type.as_str() {
        "tool_call" => {
            parts.push(required(&r.intent_understanding, "reasoning.intent_understanding")?.into());
            parts.push(
                required(&r.tool_selection_reason, "reasoning.tool_selection_reason")?.into(),
            );
            let calls = raw.tool_calls.unwrap_or_default();
            if calls.is_empty() {
                return Err(field("tool_calls", "at least one tool call is required"));
            }
            let mut out = Vec::new();
            for c in calls {
                if c.tool_name.trim().is_empty() || c.tool_name.len() > 64 {
                    return Err(field("tool_calls.tool_name", "1..=64 characters"));
                }
                if let Some(sources) = &c.parameter_sources {
                    let ok = ["user_message", "context", "inferred", "default"];
                    if sources
                        .values()
                        .any(|v| !v.as_str().is_some_and(|s| ok.contains(&s)))
                    {
                        return Err(field(
                            "tool_calls.parameter_sources",
                            "each source is user_message, context, inferred or default",
                        ));
                    }
                }
                out.push(ToolCall {
                    tool: c.tool_name.trim().to_owned(),
                    parameters: c.parameters,
                });
            }
            Shape::Tool(out)
        }
        "text_response" => {
            parts.push(required(&r.intent_understanding, "reasoning.intent_understanding")?.into());
            parts.push(required(&r.no_tool_reason, "reasoning.no_tool_reason")?.into());
            parts.extend(r.response_strategy.clone());
            Shape::Text(required(&raw.text_response, "text_response")?.to_owned())
        }
        "clarification_needed" => {
            parts.push(required(&r.ambiguity_detected, "reasoning.ambiguity_detected")?.into());
            let interpretations = r.possible_interpretations.clone().unwrap_or_default();
            if interpretations.is_empty() {
                return Err(field(
                    "reasoning.possible_interpretations",
                    "required for this output_type",
                ));
            }
            parts.extend(interpretations);
            Shape::Clarify {
                question: required(&raw.clarification_question, "clarification_question")?
                    .to_owned(),
                options: raw.options.clone().unwrap_or_default(),
            }
        }
        other => {
            return Err(field(
                "output_type",
                format!(
                    "must be tool_call, text_response or clarification_needed, found {other:?}"
                ),
            ))
        }
    };
    parts.extend(r.context_used.iter().flatten().cloned());
    parts.extend(r.alternatives_considered.iter().flatten().cloned());
    let reasoning = parts.join(" / ");
    if reasoning.chars().count() < MIN_REASONING {
        return Err(field(
            "reasoning",
            format!("at least {MIN_REASONING} characters of reasoning are required"),
        ));
    }
    let extras = [
        ("vote", raw.vote.is_some(), Want::Vote),
        ("draft", raw.draft.is_some(), Want::Draft),
        ("review", raw.review.is_some(), Want::Review),
        ("evaluation", raw.evaluation.is_some(), Want::Evaluation),
    ];
    for (name, present, wanted) in extras {
        if present && want != wanted {
            return Err(field(name, "not asked for"));
        }
        if !present && want == wanted {
            return Err(field(name, "required for this ask"));
        }
    }
    if want != Want::Plain && !matches!(shape, Shape::Text(_)) {
        return Err(field(
            "output_type",
            "an opinion, a draft, a review or an evaluation is a text_response",
        ));
    }
    if let Some(v) = &raw.vote {
        if v.concerns.len() > 32 || v.concerns.iter().any(|c| c.chars().count() > 500) {
            return Err(field(
                "vote.concerns",
                "at most 32 concerns of 500 characters",
            ));
        }
        if v.proposed_approach.chars().count() > 4000 {
            return Err(field("vote.proposed_approach", "at most 4000 characters"));
        }
    }
    if let Some(d) = &raw.draft {
        let n = d.topic.trim().chars().count();
        if n == 0 || n > 64 {
            return Err(field("draft.topic", "1..=64 characters"));
        }
    }
    if let Some(r) = &raw.review {
        if r.verdict == ReviewVerdict::Rejected && r.rules.is_empty() {
            return Err(field("review.rules", "a rejection cites at least one rule"));
        }
        if r.verdict == ReviewVerdict::Approved && !r.rules.is_empty() {
            return Err(field("review.rules", "an approval cites no rule"));
        }
    }
    if let Some(e) = &raw.evaluation {
        let s = &e.scores;
        for (name, v) in [
            ("evaluation.scores.decision_quality", s.decision_quality),
            ("evaluation.scores.collaboration", s.collaboration),
            ("evaluation.scores.effectiveness", s.effectiveness),
            ("evaluation.scores.parameter_balance", s.parameter_balance),
        ] {
            unit(v, name)?;
        }
        if let Some(p) = &e.proposed_params {
            p.validate().map_err(|err| {
                field(
                    "evaluation.proposed_params",
                    format!("{}: {}", err.field, err.reason),
                )
            })?;
        }
    }
    if raw.needs_confirmation == Some(true) && raw.confirmation_question.is_none() {
        return Err(field(
            "confirmation_question",
            "required when needs_confirmation is true",
        ));
    }
    Ok(MindOutput {
        proposal: Proposal {
            shape,
            reasoning,
            confidence,
            confirmation_question: raw.confirmation_question,
        },
        vote: raw.vote,
        draft: raw.draft,
        review: raw.review,
        evaluation: raw.evaluation,
    })
}
