//! [`ModelMind`]: a model server behind the [`Mind`] trait (DESIGN §5, seed 003 §5.2).
//!
//! Every call is stateless: the prompt is rebuilt from the ask (which the role rebuilt from
//! events), nothing of an earlier call is sent again. Whatever goes wrong — the daily token
//! budget is spent, the server is down, slow past its retries, rate-limiting past its waits,
//! the answer is cut, malformed, names a tool that does not exist or breaks a field's limits —
//! that one decision is made by the built-in mind instead, and the fallback is recorded in
//! `karma.sqlite` and the log.
//!
//! # Layout
//! - [`prompt`]: Soul > Skills > Karma, then context, question and schema.
//! - [`wire`]: the HTTP call (OpenAI-compatible or Ollama) and its retry policy.

mod conversation;
mod converse;
pub mod prompt;
pub mod wire;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use soul_karma::usage::Fallback;
use soul_karma::Karma;
use soul_kinds::{BrainName, Evaluation, Opinion, Review, ReviewVerdict, SoulContent};

use super::builtin::{self, BuiltIn};
use super::schema::{parse_output, MindOutput, Shape, Want};
use super::writer::{self, Written};
use super::{
    ActAsk, BoxFuture, DistilAsk, Distilled, DraftAsk, EvaluationAsk, Mind, OpinionAsk, Proposal,
    ReviewAsk, Thought,
};
pub use wire::{Api, Retry};

/// Sampling temperatures by kind of ask: writing warm, judging cold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Temperature {
    /// Posts, replies and the buddy's conversation.
    pub writing: f64,
    /// Opinions, proposals, reviews, evaluations and lessons.
    pub judging: f64,
}

impl Default for Temperature {
    fn default() -> Self {
        Self {
            writing: 0.8,
            judging: 0.0,
        }
    }
}

/// Which temperature an ask runs at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// Words for people to read.
    Writing,
    /// A judgement or a decision.
    Judging,
}

/// Where the model is and how it is used.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelConfig {
    /// Base URL: `…/v1` for OpenAI-compatible servers, else Ollama.
    pub url: String,
    /// Model name.
    pub model: String,
    /// Tokens per UTC day before every decision falls back to the built-in mind.
    pub daily_token_budget: u64,
    /// Time-outs and waits.
    pub retry: Retry,
    /// Temperatures for writing and for judging.
    pub temperature: Temperature,
    /// The constitution (`rules/constitution.md`): rank 1 of every prompt.
    pub soul: String,
}

/// The shipped constitution, for agents started without a town directory.
pub const BUILTIN_SOUL: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../rules/constitution.md"
));

/// A model-backed mind.
#[derive(Debug, Clone)]
pub struct ModelMind {
    cfg: ModelConfig,
    http: reqwest::Client,
    karma: Karma,
    /// Whether the server still takes JSON Schemas (cleared when it refuses one).
    schemas: Arc<AtomicBool>,
}

impl ModelMind {
    /// A mind over `cfg`, keeping its budget and fallbacks in `karma`.
    pub fn new(cfg: ModelConfig, karma: Karma) -> Self {
        // reqwest is built with rustls but no crypto provider chosen (the workspace uses ring);
        // installing it is idempotent, and makes https:// model servers work.
        let _ = rustls::crypto::ring::default_provider().install_default();
        Self {
            cfg,
            http: reqwest::Client::new(),
            karma,
            schemas: Arc::new(AtomicBool::new(true)),
        }
    }

    fn today() -> String {
        chrono::Utc::now().format("%Y-%m-%d").to_string()
    }

    /// One stateless ask: budget, call with retries, spend, parse.
    async fn ask(
        &self,
        messages: &[prompt::Message],
        want: Want,
        style: Style,
    ) -> Result<MindOutput, String> {
        self.ask_with(messages, want, &[], style).await
    }

    /// [`Self::ask`], the schema naming `tools` as the only ones a tool call may use.
    async fn ask_with(
        &self,
        messages: &[prompt::Message],
        want: Want,
        tools: &[&str],
        style: Style,
    ) -> Result<MindOutput, String> {
        let today = Self::today();
        // karma.sqlite is blocking I/O: never on an async worker.
        let karma = self.karma.clone();
        let day = today.clone();
        let spent = tokio::task::spawn_blocking(move || karma.tokens_spent(&day))
            .await
            .map_err(|e| format!("the token count panicked: {e}"))?
            .map_err(|e| e.to_string())?;
        if spent >= self.cfg.daily_token_budget {
            return Err(format!(
                "the daily token budget ({}) is spent ({spent} used today); raise [llm] daily_token_budget in town.toml",
                self.cfg.daily_token_budget
            ));
        }
        let schema = soul_proposal::json_schema(want, tools);
        let request = wire::Request {
            messages,
            format: wire::Format::Schema {
                name: soul_proposal::schema_name(want),
                schema: &schema,
            },
            temperature: match style {
                Style::Writing => self.cfg.temperature.writing,
                Style::Judging => self.cfg.temperature.judging,
            },
        };
        let reply = wire::call(
            &self.http,
            &self.cfg.url,
            &self.cfg.model,
            request,
            self.cfg.retry,
            &self.schemas,
        )
        .await
        .map_err(|e| e.to_string())?;
        let karma = self.karma.clone();
        let tokens = reply.tokens;
        // Awaited, so the next ask's budget check counts this one.
        let spent = tokio::task::spawn_blocking(move || karma.spend_tokens(&today, tokens)).await;
        if let Err(e) = spent
            .map_err(|e| e.to_string())
            .and_then(|r| r.map_err(|e| e.to_string()))
        {
            tracing::warn!("cannot record token use: {e}");
        }
        parse_output(&reply.text, want).map_err(|e| format!("malformed answer: {e}"))
    }

    async fn fallback(&self, agent: &str, ask: &str, reason: &str) {
        tracing::warn!(agent, model = %self.cfg.model, ask, "model answer not used, built-in mind stands in: {reason}");
        let f = Fallback {
            at: soul_karma::now_secs(),
            agent: agent.into(),
            model: self.cfg.model.clone(),
            ask: ask.into(),
            reason: reason.into(),
        };
        // Recorded on the blocking pool (karma.sqlite), and awaited, so that whoever reads the
        // record after the answer finds it.
        let karma = self.karma.clone();
        let recorded = tokio::task::spawn_blocking(move || karma.record_fallback(&f)).await;
        if let Err(e) = recorded
            .map_err(|e| e.to_string())
            .and_then(|r| r.map_err(|e| e.to_string()))
        {
            tracing::warn!("cannot record the fallback: {e}");
        }
    }

    /// The model's answer when it is usable, else the built-in mind's, with the fallback
    /// recorded (`ask` names the kind of ask in the record).
    async fn settle<T>(
        &self,
        agent: &str,
        ask: &str,
        got: Result<T, String>,
        start: Instant,
        built_in: impl FnOnce() -> T,
    ) -> Thought<T> {
        let millis = start.elapsed().as_millis() as u64;
        match got {
            Ok(value) => Thought {
                value,
                mind: self.label(),
                fallback: None,
                millis,
            },
            Err(reason) => {
                self.fallback(agent, ask, &reason).await;
                Thought {
                    value: built_in(),
                    mind: builtin::LABEL.into(),
                    fallback: Some(reason),
                    millis,
                }
            }
        }
    }
}

/// The text of a `text_response` (a post, a review's or an evaluation's reason).
fn text_of(out: &MindOutput) -> Result<String, String> {
    match &out.proposal.shape {
        Shape::Text(t) => Ok(t.trim().to_owned()),
        _ => Err("the answer must be a text_response".into()),
    }
}

fn to_draft(out: MindOutput, ask: &DraftAsk<'_>) -> Result<Written, String> {
    let text = text_of(&out)?;
    let topic = out.draft.ok_or("no draft")?.topic.trim().to_owned();
    let max = ask.input.common.max_post_chars;
    if text.is_empty() || text.chars().count() > max {
        return Err(format!("the post must be 1..={max} characters"));
    }
    if !writer::written_in(&text, ask.input.profile.language) {
        return Err("the post is not in the resident's language".into());
    }
    if !(ask.accept)(&text) {
        return Err("the post breaks what the resident must avoid (NG rules, quoted words, or it repeats the last post)".into());
    }
    Ok(Written { text, topic })
}

fn to_review(out: MindOutput, ask: &ReviewAsk<'_>) -> Result<Review, String> {
    let reason = text_of(&out)?;
    let fields = out.review.ok_or("no review")?;
    if let Some(unknown) = fields
        .rules
        .iter()
        .find(|r| !ask.rules.iter().any(|(id, _)| id == *r))
    {
        return Err(format!("cites an NG rule that does not exist: {unknown}"));
    }
    let review = Review {
        verdict: fields.verdict,
        reason,
        rules: fields.rules,
    };
    review
        .validate()
        .map_err(|e| format!("malformed answer: {e}"))?;
    Ok(review)
}

fn to_evaluation(out: MindOutput, ask: &EvaluationAsk<'_>) -> Result<Evaluation, String> {
    let reason = text_of(&out)?;
    let fields = out.evaluation.ok_or("no evaluation")?;
    if fields.needs_retuning && fields.proposed_params.is_none() {
        return Err("needs_retuning without proposed_params".into());
    }
    let e = Evaluation {
        cycle: ask.cycle.to_owned(),
        scores: fields.scores,
        needs_retuning: fields.needs_retuning,
        proposed_params: fields.proposed_params,
        reason,
    };
    e.validate().map_err(|e| format!("malformed answer: {e}"))?;
    Ok(e)
}

fn to_opinion(out: MindOutput, me: BrainName, round: u8) -> Result<Opinion, String> {
    let vote = out.vote.ok_or("no vote")?;
    let Shape::Text(text) = out.proposal.shape else {
        return Err("an opinion must be a text_response".into());
    };
    let o = Opinion {
        round,
        vote: vote.vote,
        opinion: text,
        proposed_approach: vote.proposed_approach,
        concerns: vote.concerns,
        confidence: out.proposal.confidence,
        // Only others' conditions, only in later rounds, only on a yes: what the protocol allows.
        accepts: if round > 1 && vote.vote.is_yes() {
            let mut a: Vec<BrainName> = vote.accepts.into_iter().filter(|b| *b != me).collect();
            a.sort();
            a.dedup();
            a
        } else {
            Vec::new()
        },
    };
    o.validate().map_err(|e| format!("malformed answer: {e}"))?;
    Ok(o)
}

impl Mind for ModelMind {
    fn label(&self) -> String {
        format!("model:{}", self.cfg.model)
    }

    fn opinion<'a>(&'a self, ask: &'a OpinionAsk<'a>) -> BoxFuture<'a, Thought<Opinion>> {
        Box::pin(async move {
            let start = Instant::now();
            let messages = prompt::opinion(&self.cfg.soul, ask);
            let got = self
                .ask(&messages, Want::Vote, Style::Judging)
                .await
                .and_then(|out| to_opinion(out, ask.brain.brain, ask.brain.round.clamp(1, 3)));
            self.settle(ask.agent, "opinion", got, start, || {
                BuiltIn::opinion_now(ask)
            })
            .await
        })
    }

    fn propose<'a>(&'a self, ask: &'a ActAsk<'a>) -> BoxFuture<'a, Thought<Proposal>> {
        Box::pin(async move {
            let start = Instant::now();
            let messages = prompt::act(&self.cfg.soul, ask);
            let tools: Vec<&str> = ask.tools.iter().map(|(n, _)| n.as_str()).collect();
            // Skill existence validation (seed 002): a tool the model imagined is refused; the
            // model is asked once more, told which tools exist (seed 003 §6.7).
            let invented = |out: &MindOutput| {
                out.proposal
                    .tools()
                    .iter()
                    .find(|c| !tools.contains(&c.tool.as_str()))
                    .map(|c| c.tool.clone())
            };
            let mut got = self
                .ask_with(&messages, Want::Plain, &tools, Style::Judging)
                .await;
            if let Some(name) = got.as_ref().ok().and_then(invented) {
                tracing::warn!(agent = ask.agent, tool = %name, "the model proposed a tool that does not exist; asking once more");
                let again = prompt::no_such_tool(&messages, &name, &tools);
                got = self
                    .ask_with(&again, Want::Plain, &tools, Style::Judging)
                    .await;
            }
            let got = got.and_then(|out| match invented(&out) {
                Some(name) => Err(format!("proposed a tool that does not exist: {name}")),
                None => Ok(out.proposal),
            });
            self.settle(ask.agent, "proposal", got, start, || ask.default.clone())
                .await
        })
    }

    fn converse<'a>(&'a self, ask: &'a crate::ConverseAsk<'a>) -> BoxFuture<'a, Thought<String>> {
        Box::pin(self.converse_now(ask))
    }

    fn reply<'a>(&'a self, ask: &'a crate::ReplyAsk<'a>) -> BoxFuture<'a, Thought<Option<String>>> {
        Box::pin(self.reply_now(ask))
    }

    fn distil<'a>(&'a self, ask: &'a DistilAsk<'a>) -> BoxFuture<'a, Option<Thought<Distilled>>> {
        Box::pin(async move {
            let start = Instant::now();
            let messages = prompt::distil(&self.cfg.soul, ask);
            let got = self
                .ask(&messages, Want::Plain, Style::Judging)
                .await
                .and_then(|out| match out.proposal.shape {
                    Shape::Text(t) => Ok(Distilled {
                        directives: crate::distil::from_text(&t),
                        lesson: t.chars().take(4000).collect(),
                        topic: ask.kind.chars().take(64).collect(),
                        weight: (out.proposal.confidence * 100.0).round().clamp(1.0, 100.0) as u8,
                    }),
                    _ => Err("a lesson must be a text_response".into()),
                });
            match got {
                Ok(value) => Some(Thought {
                    value,
                    mind: self.label(),
                    fallback: None,
                    millis: start.elapsed().as_millis() as u64,
                }),
                Err(reason) => {
                    // Not distilled now: the log stays for deferred distillation.
                    self.fallback(ask.agent, "distil", &reason).await;
                    None
                }
            }
        })
    }

    fn draft<'a>(&'a self, ask: &'a DraftAsk<'a>) -> BoxFuture<'a, Thought<Option<Written>>> {
        Box::pin(async move {
            let start = Instant::now();
            let messages = prompt::draft(&self.cfg.soul, ask);
            let got = self
                .ask(&messages, Want::Draft, Style::Writing)
                .await
                .and_then(|out| to_draft(out, ask))
                .map(Some);
            self.settle(ask.agent, "draft", got, start, || BuiltIn::draft_now(ask))
                .await
        })
    }

    fn review<'a>(&'a self, ask: &'a ReviewAsk<'a>) -> BoxFuture<'a, Thought<Review>> {
        Box::pin(async move {
            if ask.found.verdict == ReviewVerdict::Rejected {
                // The patterns rejected it: that stands, and costs no tokens.
                return Thought::instant(builtin::LABEL, ask.found.clone());
            }
            let start = Instant::now();
            let messages = prompt::review(&self.cfg.soul, ask);
            let got = self
                .ask(&messages, Want::Review, Style::Judging)
                .await
                .and_then(|out| to_review(out, ask));
            self.settle(ask.agent, "review", got, start, || BuiltIn::review_now(ask))
                .await
        })
    }

    fn evaluate<'a>(&'a self, ask: &'a EvaluationAsk<'a>) -> BoxFuture<'a, Thought<Evaluation>> {
        Box::pin(async move {
            let start = Instant::now();
            let messages = prompt::evaluation(&self.cfg.soul, ask);
            let got = self
                .ask(&messages, Want::Evaluation, Style::Judging)
                .await
                .and_then(|out| to_evaluation(out, ask));
            self.settle(ask.agent, "evaluation", got, start, || {
                BuiltIn::evaluate_now(ask)
            })
            .await
        })
    }
}
