//! Minds: what turns what an agent reads into what it proposes (DESIGN §5). Rules decide.
//!
//! One [`Mind`] trait, two minds: [`BuiltIn`] (deterministic, offline: the brains' built-in
//! mind in [`brain`], the residents' writer in [`writer`]) and [`ModelMind`] (a model server,
//! OpenAI-compatible or Ollama, with the built-in mind standing in whenever the model's answer
//! cannot be used). Every role thinks through it: a brain's opinions and evaluations,
//! triceratops's and the executor's proposals to act, a resident's posts, the reviewer's
//! judgement beyond the NG patterns, and the lessons distilled from what went wrong.
//!
//! # Layout
//! - [`brain`]: the built-in deterministic mind of panda, gorilla and triceratops.
//! - [`writer`]: the built-in writer of the residents' posts.
//! - [`builtin`]: [`BuiltIn`], the trait over it.
//! - [`model`]: [`ModelMind`]: prompt (Soul > Skills > Karma), HTTP, retries, budget, fallback.
//! - [`schema`]: the strict output schema every model answer is parsed into (soul-proposal).
//! - [`profile`]: a resident's profile (`residents/*.yaml`) and the town's common settings.
//! - [`conversation`]: a resident answering a note in a thread, and the built-in answer.
//! - [`converse`]: a message answered in persona (the buddy), and the built-in answer.
//! - [`distil`]: the built-in mind's lessons, with their directives.
//! - [`samsara`]: the day's synthesis (what went well) and the owner's ratings of lessons.
//! - [`upkeep`]: lessons from failures; rebuild, zombie hunter, deferred distillation, decay.
//! - [`conformance`]: the check both minds pass.
//!
//! **Architecture invariant:** a mind proposes and never decides: its output reaches the world
//! only through the guardian (soul-guard) when it would act, and a model's answer that does
//! not parse is never used — the built-in mind's proposal is, and the fallback is recorded.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod brain;
pub mod builtin;
pub mod model;
pub mod profile;
pub mod samsara;
pub mod upkeep;
pub mod writer;

pub mod conformance;
pub mod conversation;
pub mod converse;
pub mod distil;
mod error;

pub use error::MindError;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use soul_kinds::{BrainName, Evaluation, Opinion, Params, Review};

pub use builtin::BuiltIn;
pub use conversation::ReplyAsk;
pub use converse::ConverseAsk;
pub use model::{ModelConfig, ModelMind};
/// The strict answer schema lives below both minds and the leash (soul-proposal).
pub use soul_proposal as schema;
pub use soul_proposal::{MindOutput, Proposal, SchemaError, Shape, Thought, ToolCall, Want};

/// A boxed future, so that minds can be `dyn Mind`.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A brain asked for its opinion in a debate round.
#[derive(Debug, Clone, Copy)]
pub struct OpinionAsk<'a> {
    /// The agent asking (for logs and the fallback record).
    pub agent: &'a str,
    /// Everything the brain knows, lessons included.
    pub brain: brain::BrainContext<'a>,
}

/// An agent asked what to do about something that would act (an execution, a post, a command).
#[derive(Debug, Clone)]
pub struct ActAsk<'a> {
    /// The agent asking.
    pub agent: &'a str,
    /// What is asked, one sentence ("Carry out the decided task …").
    pub question: String,
    /// What the agent read, one fact per line, rebuilt from events for every call.
    pub context: Vec<String>,
    /// The tools it may propose: (name, description).
    pub tools: Vec<(String, String)>,
    /// Relevant lessons.
    pub lessons: &'a [String],
    /// What the role's deterministic logic proposes: the built-in mind's answer.
    pub default: Proposal,
}

/// A job's log to be turned into a lesson (seed 002 phase 4).
#[derive(Debug, Clone)]
pub struct DistilAsk<'a> {
    /// The agent asking.
    pub agent: &'a str,
    /// What kind of job ("execution", …).
    pub kind: &'a str,
    /// Its log (for a day's synthesis, one line per job that went well).
    pub log: &'a str,
    /// Whether the job went well (a day's synthesis) or wrong (a failure to learn from).
    pub went_well: bool,
}

/// A resident asked for its next post.
pub struct DraftAsk<'a> {
    /// The resident.
    pub agent: &'a str,
    /// Its profile, mood, the hour and what the post is about.
    pub input: writer::Input<'a>,
    /// The built-in writer's random source (the same seed gives the same post).
    pub seed: u64,
    /// Relevant lessons (rejected drafts, the town's and its own).
    pub lessons: &'a [String],
    /// The NG rules: (id, "name — description").
    pub rules: &'a [(String, String)],
    /// Words the post must not contain (what reviews and lessons quoted).
    pub avoid: &'a [String],
    /// The last post, which the new one must not repeat.
    pub last_post: Option<&'a str>,
    /// Its latest posts before the last, oldest first (seed 001: what it said lately).
    pub recent: &'a [String],
    /// Its short-term memory, newest last (seed 001).
    pub memory: &'a [String],
    /// Its last draft when the reviewer rejected it, and the reviewer's reason (seed 001).
    pub rejected: Option<(&'a str, &'a str)>,
    /// The role's own check on a post: the rules its last draft broke, the avoided words, not
    /// like the last post. A post that fails it is never used, whichever mind wrote it.
    pub accept: &'a (dyn Fn(&str) -> bool + Send + Sync),
}

impl std::fmt::Debug for DraftAsk<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DraftAsk")
            .field("agent", &self.agent)
            .field("source", &self.input.source)
            .field("seed", &self.seed)
            .finish_non_exhaustive()
    }
}

/// The reviewer asked about a draft. The NG patterns have already judged it (`found`): a
/// rejection by the patterns stands whatever a mind thinks, so a mind can only be stricter.
#[derive(Debug, Clone)]
pub struct ReviewAsk<'a> {
    /// The reviewer.
    pub agent: &'a str,
    /// The draft's text.
    pub text: &'a str,
    /// The NG rules: (id, "name — description").
    pub rules: &'a [(String, String)],
    /// What the patterns found.
    pub found: &'a Review,
}

/// A brain asked to score another for an evaluation cycle.
#[derive(Debug, Clone, Copy)]
pub struct EvaluationAsk<'a> {
    /// The evaluating agent.
    pub agent: &'a str,
    /// Who evaluates, with its params.
    pub evaluator: BrainName,
    /// The evaluator's params.
    pub evaluator_params: &'a Params,
    /// Who is evaluated.
    pub target: BrainName,
    /// The target's params.
    pub target_params: &'a Params,
    /// The cycle.
    pub cycle: &'a str,
    /// The target's record on decided tasks.
    pub history: &'a [brain::evaluate::TaskRecord],
    /// Relevant lessons (earlier retunes).
    pub lessons: &'a [String],
}

/// A lesson distilled from a log.
#[derive(Debug, Clone, PartialEq)]
pub struct Distilled {
    /// One or two sentences.
    pub lesson: String,
    /// What it is about.
    pub topic: String,
    /// 1..=100.
    pub weight: u8,
    /// Seed 002's directives: what to add, what to avoid, notes, a confidence (a JSON object).
    pub directives: serde_json::Value,
}

/// A mind. Every role asks through this trait, so the built-in mind and a model are
/// interchangeable, and a model that fails costs one decision's quality, never its safety.
pub trait Mind: Send + Sync + std::fmt::Debug {
    /// `built-in` or `model:NAME`.
    fn label(&self) -> String;
    /// A brain's opinion in one debate round.
    fn opinion<'a>(&'a self, ask: &'a OpinionAsk<'a>) -> BoxFuture<'a, Thought<Opinion>>;
    /// A proposal to act; the guardian judges it.
    fn propose<'a>(&'a self, ask: &'a ActAsk<'a>) -> BoxFuture<'a, Thought<Proposal>>;
    /// A lesson from a job's log; `None` when this mind could not distil it now (the log stays
    /// for deferred distillation).
    fn distil<'a>(&'a self, ask: &'a DistilAsk<'a>) -> BoxFuture<'a, Option<Thought<Distilled>>>;
    /// A resident's next post; `None` when nothing passes the ask's check (the resident tries
    /// again later).
    fn draft<'a>(
        &'a self,
        ask: &'a DraftAsk<'a>,
    ) -> BoxFuture<'a, Thought<Option<writer::Written>>>;
    /// The review of a draft the NG patterns let through (or the patterns' own rejection).
    fn review<'a>(&'a self, ask: &'a ReviewAsk<'a>) -> BoxFuture<'a, Thought<Review>>;
    /// One brain's evaluation of another; retuning still needs two brains to agree.
    fn evaluate<'a>(&'a self, ask: &'a EvaluationAsk<'a>) -> BoxFuture<'a, Thought<Evaluation>>;
    /// An answer in persona to someone's message (the role's guard has let it through).
    fn converse<'a>(&'a self, ask: &'a ConverseAsk<'a>) -> BoxFuture<'a, Thought<String>>;
    /// A resident's answer to a note in a thread; `None` when nothing it would say passes the
    /// ask's check.
    fn reply<'a>(&'a self, ask: &'a ReplyAsk<'a>) -> BoxFuture<'a, Thought<Option<String>>>;
}

/// A shared mind, as roles hold it.
pub type SharedMind = Arc<dyn Mind>;

/// What an agent thinks with and remembers with: the mind and `karma.sqlite`.
#[derive(Debug, Clone)]
pub struct Thinking {
    /// The mind every role asks.
    pub mind: SharedMind,
    /// The lessons.
    pub karma: soul_karma::Karma,
}

/// How many lessons a role reads before voting or writing.
pub const LESSONS_PER_ASK: usize = 3;

/// The few most relevant live lessons for `task` (empty, logged, when karma cannot be read: a
/// missing lesson weakens one opinion, it must not stop the debate).
pub async fn lessons_for(karma: &soul_karma::Karma, task: &soul_kinds::Task) -> Vec<String> {
    lessons_about(karma, format!("{} {}", task.title, task.description)).await
}

/// The few most relevant live lessons for `text` (full-text ranking; empty, logged, when karma
/// cannot be read). The query runs on the blocking pool: brains ask before every opinion and a
/// thousand residents before every draft, all sharing the async workers.
pub async fn lessons_about(karma: &soul_karma::Karma, text: String) -> Vec<String> {
    let karma = karma.clone();
    let found = tokio::task::spawn_blocking(move || karma.relevant(&text, LESSONS_PER_ASK))
        .await
        .map_err(|e| e.to_string())
        .and_then(|r| r.map_err(|e| e.to_string()));
    match found {
        Ok(rows) => rows.into_iter().map(|l| l.lesson).collect(),
        Err(e) => {
            tracing::warn!("karma not read: {e}");
            Vec::new()
        }
    }
}
