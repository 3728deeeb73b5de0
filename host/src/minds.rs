//! [`Minds`]: what every agent of a host thinks with (the mind), remembers with (karma) and is
//! judged by (the guardian's and the gate's rules). Built once at start, shared by all agents.

use std::path::Path;
use std::sync::Arc;

use soul_karma::Karma;

use crate::HostError;
use soul_guard::{AuthRules, GuardRules};
use soul_mind::model::{ModelConfig, Retry, BUILTIN_SOUL};
use soul_mind::{BuiltIn, ModelMind, SharedMind};

/// The model server to use, from `--llm`/`--model` or `[llm]` in town.toml.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlmChoice {
    /// Base URL (`…/v1` for OpenAI-compatible, else Ollama).
    pub url: String,
    /// Model name.
    pub model: String,
    /// Tokens per UTC day.
    pub daily_token_budget: u64,
}

/// A host's minds, karma and rules.
#[derive(Debug, Clone)]
pub struct Minds {
    /// The mind every role asks.
    pub mind: SharedMind,
    /// `karma.sqlite`.
    pub karma: Karma,
    /// The guardian's rules.
    pub guard: Arc<GuardRules>,
    /// The gate's rules.
    pub auth: Arc<AuthRules>,
}

impl Minds {
    /// The mind and karma, without the rules (what karma upkeep needs).
    pub fn thinking(&self) -> soul_mind::Thinking {
        soul_mind::Thinking {
            mind: Arc::clone(&self.mind),
            karma: self.karma.clone(),
        }
    }

    /// [`Minds::load`] on the blocking pool: opening `karma.sqlite` may wait up to a minute for
    /// a busy neighbour (and migrates), which must not hold an async worker.
    pub async fn open(town: std::path::PathBuf, llm: Option<LlmChoice>) -> Result<Self, HostError> {
        tokio::task::spawn_blocking(move || Self::load(&town, llm)).await?
    }

    /// Opens `town/karma.sqlite` and the rules in `town/rules/` (shipped copies where absent),
    /// and picks the model mind when `llm` is given, else the built-in mind.
    pub fn load(town: &Path, llm: Option<LlmChoice>) -> Result<Self, HostError> {
        let karma_path = town.join(soul_karma::FILE_NAME);
        let karma = if town.is_dir() {
            Karma::open(&karma_path)?
        } else {
            // `soul-agent` without a town directory: karma lives for this run only (it can be
            // rebuilt from the relay's lesson events).
            Karma::in_memory()?
        };
        let guard = GuardRules::load(Some(town))?;
        let auth = AuthRules::load(Some(town))?;
        let mind: SharedMind = match llm {
            Some(choice) => {
                let soul_path = town.join("rules").join("constitution.md");
                let soul = match std::fs::read_to_string(&soul_path) {
                    Ok(s) => s,
                    Err(_) => BUILTIN_SOUL.to_owned(),
                };
                if !(choice.url.starts_with("http://") || choice.url.starts_with("https://")) {
                    return Err(HostError::LlmUrl { url: choice.url });
                }
                tracing::info!(url = %choice.url, model = %choice.model, "agents think with a model; the built-in mind stands in when it fails");
                Arc::new(ModelMind::new(
                    ModelConfig {
                        url: choice.url,
                        model: choice.model,
                        daily_token_budget: choice.daily_token_budget,
                        retry: Retry::default(),
                        soul,
                    },
                    karma.clone(),
                ))
            }
            None => Arc::new(BuiltIn),
        };
        Ok(Self {
            mind,
            karma,
            guard: Arc::new(guard),
            auth: Arc::new(auth),
        })
    }
}
