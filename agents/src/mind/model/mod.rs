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

pub mod prompt;
pub mod wire;

use std::time::Instant;

use soul_karma::usage::Fallback;
use soul_karma::Karma;
use soul_kinds::{Opinion, SoulContent};

use super::builtin::BuiltIn;
use super::schema::{parse_output, MindOutput, Shape};
use super::{ActAsk, BoxFuture, DistilAsk, Distilled, Mind, OpinionAsk, Proposal, Thought};
pub use wire::{Api, Retry};

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
    /// The constitution (`rules/constitution.md`): rank 1 of every prompt.
    pub soul: String,
}

/// The shipped constitution, for agents started without a town directory.
pub const BUILTIN_SOUL: &str = include_str!("../../../../rules/constitution.md");

/// A model-backed mind.
#[derive(Debug, Clone)]
pub struct ModelMind {
    cfg: ModelConfig,
    http: reqwest::Client,
    karma: Karma,
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
        }
    }

    fn today() -> String {
        chrono::Utc::now().format("%Y-%m-%d").to_string()
    }

    /// One stateless ask: budget, call with retries, spend, parse.
    async fn ask(
        &self,
        messages: &[prompt::Message],
        want_vote: bool,
    ) -> Result<MindOutput, String> {
        let today = Self::today();
        let spent = self.karma.tokens_spent(&today).map_err(|e| e.to_string())?;
        if spent >= self.cfg.daily_token_budget {
            return Err(format!(
                "the daily token budget ({}) is spent ({spent} used today); raise [llm] daily_token_budget in town.toml",
                self.cfg.daily_token_budget
            ));
        }
        let reply = wire::call(
            &self.http,
            &self.cfg.url,
            &self.cfg.model,
            messages,
            self.cfg.retry,
        )
        .await
        .map_err(|e| e.to_string())?;
        if let Err(e) = self.karma.spend_tokens(&today, reply.tokens) {
            tracing::warn!("cannot record token use: {e}");
        }
        parse_output(&reply.text, want_vote).map_err(|e| format!("malformed answer: {e}"))
    }

    fn fallback(&self, agent: &str, ask: &str, reason: &str) {
        tracing::warn!(agent, model = %self.cfg.model, ask, "model answer not used, built-in mind stands in: {reason}");
        let f = Fallback {
            at: soul_karma::now_secs(),
            agent: agent.into(),
            model: self.cfg.model.clone(),
            ask: ask.into(),
            reason: reason.into(),
        };
        if let Err(e) = self.karma.record_fallback(&f) {
            tracing::warn!("cannot record the fallback: {e}");
        }
    }
}

fn to_opinion(out: MindOutput, round: u8) -> Result<Opinion, String> {
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
                .ask(&messages, true)
                .await
                .and_then(|out| to_opinion(out, ask.brain.round.clamp(1, 3)));
            let millis = start.elapsed().as_millis() as u64;
            match got {
                Ok(value) => Thought {
                    value,
                    mind: self.label(),
                    fallback: None,
                    millis,
                },
                Err(reason) => {
                    self.fallback(ask.agent, "opinion", &reason);
                    Thought {
                        value: BuiltIn::opinion_now(ask),
                        mind: super::builtin::LABEL.into(),
                        fallback: Some(reason),
                        millis,
                    }
                }
            }
        })
    }

    fn propose<'a>(&'a self, ask: &'a ActAsk<'a>) -> BoxFuture<'a, Thought<Proposal>> {
        Box::pin(async move {
            let start = Instant::now();
            let messages = prompt::act(&self.cfg.soul, ask);
            let got = self.ask(&messages, false).await.and_then(|out| {
                // Skill existence validation (seed 002): a tool the model imagined is refused.
                match out
                    .proposal
                    .tools()
                    .iter()
                    .find(|c| !ask.tools.iter().any(|(n, _)| *n == c.tool))
                {
                    Some(c) => Err(format!("proposed a tool that does not exist: {}", c.tool)),
                    None => Ok(out.proposal),
                }
            });
            let millis = start.elapsed().as_millis() as u64;
            match got {
                Ok(value) => Thought {
                    value,
                    mind: self.label(),
                    fallback: None,
                    millis,
                },
                Err(reason) => {
                    self.fallback(ask.agent, "proposal", &reason);
                    Thought {
                        value: ask.default.clone(),
                        mind: super::builtin::LABEL.into(),
                        fallback: Some(reason),
                        millis,
                    }
                }
            }
        })
    }

    fn distil<'a>(&'a self, ask: &'a DistilAsk<'a>) -> BoxFuture<'a, Option<Thought<Distilled>>> {
        Box::pin(async move {
            let start = Instant::now();
            let messages = prompt::distil(&self.cfg.soul, ask);
            let got = self
                .ask(&messages, false)
                .await
                .and_then(|out| match out.proposal.shape {
                    Shape::Text(t) => Ok(Distilled {
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
                    self.fallback(ask.agent, "distil", &reason);
                    None
                }
            }
        })
    }
}
