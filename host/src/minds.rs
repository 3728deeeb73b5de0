//! [`Minds`]: what every agent of a host thinks with (the mind), remembers with (karma) and is
//! judged by (the guardian's and the gate's rules). Built once at start, shared by all agents.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use soul_karma::Karma;

use crate::town::template::brain_character;
use crate::HostError;
use soul_guard::{AuthRules, GuardRules};
use soul_kinds::BrainName;
use soul_mind::model::{ModelConfig, Retry, BUILTIN_SOUL};
use soul_mind::{BuiltIn, ModelMind, SharedMind};

/// The model server to use, from `--llm`/`--model` or `[llm]` in town.toml.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmChoice {
    /// Base URL (`…/v1` for OpenAI-compatible, else Ollama).
    pub url: String,
    /// Model name.
    pub model: String,
    /// Tokens per UTC day, shared by every agent of the town (counted in karma).
    pub daily_token_budget: u64,
    /// Temperatures for writing and for judging.
    pub temperature: soul_mind::model::Temperature,
    /// `[llm.agents.NAME]`: an agent's own server or model.
    pub agents: BTreeMap<String, soul_keys::AgentModel>,
    /// What the town is for (`[town] mission`), carried in every prompt under the constitution.
    pub mission: String,
}

impl LlmChoice {
    /// The town's `[llm]` and `[town] mission`, with `--llm`/`--model` over the defaults (an
    /// agent's own `[llm.agents.NAME]` entry still wins for that agent).
    pub fn from_town(
        section: Option<&soul_keys::LlmSection>,
        mission: &str,
        url: Option<String>,
        model: Option<String>,
    ) -> Option<Self> {
        let url = url.or_else(|| section.map(|s| s.url.clone()))?;
        let base = section.cloned().unwrap_or_default();
        Some(Self {
            url,
            model: model.unwrap_or(base.model),
            daily_token_budget: base.daily_token_budget,
            temperature: soul_mind::model::Temperature {
                writing: base.writing_temperature,
                judging: base.judging_temperature,
            },
            agents: base.agents,
            mission: mission.to_owned(),
        })
    }
}

/// A host's minds, karma and rules.
#[derive(Debug, Clone)]
pub struct Minds {
    /// The mind of every agent without one of its own.
    pub mind: SharedMind,
    /// The agents with a mind of their own: each brain (its character in its prompt) and each
    /// agent with an `[llm.agents.NAME]` entry.
    own: BTreeMap<String, SharedMind>,
    /// `karma.sqlite`.
    pub karma: Karma,
    /// The guardian's rules.
    pub guard: Arc<GuardRules>,
    /// The gate's rules.
    pub auth: Arc<AuthRules>,
}

impl Minds {
    /// The mind `agent` thinks with.
    pub fn of(&self, agent: &str) -> &SharedMind {
        self.own.get(agent).unwrap_or(&self.mind)
    }

    /// `agent`'s mind and karma, without the rules (what karma upkeep needs).
    pub fn thinking(&self, agent: &str) -> soul_mind::Thinking {
        soul_mind::Thinking {
            mind: Arc::clone(self.of(agent)),
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
        let (mind, own) = match llm {
            Some(choice) => model_minds(town, choice, &karma)?,
            None => (Arc::new(BuiltIn) as SharedMind, BTreeMap::new()),
        };
        Ok(Self {
            mind,
            own,
            karma,
            guard: Arc::new(guard),
            auth: Arc::new(auth),
        })
    }
}

/// The town's model mind and each agent's own: the constitution, then the mission, then (for a
/// brain) its character from `town/brains/NAME.md` or the shipped one.
fn model_minds(
    town: &Path,
    choice: LlmChoice,
    karma: &Karma,
) -> Result<(SharedMind, BTreeMap<String, SharedMind>), HostError> {
    let constitution = std::fs::read_to_string(town.join("rules").join("constitution.md"))
        .unwrap_or_else(|_| BUILTIN_SOUL.to_owned());
    let mut soul = constitution.trim().to_owned();
    if !choice.mission.trim().is_empty() {
        soul.push_str("\n\n## The town's mission\n\n");
        soul.push_str(choice.mission.trim());
    }
    let mind = |url: &str, model: &str, soul: String| -> Result<SharedMind, HostError> {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(HostError::LlmUrl {
                url: url.to_owned(),
            });
        }
        Ok(Arc::new(ModelMind::new(
            ModelConfig {
                url: url.to_owned(),
                model: model.to_owned(),
                daily_token_budget: choice.daily_token_budget,
                retry: Retry::default(),
                temperature: choice.temperature,
                soul,
            },
            karma.clone(),
        )))
    };
    tracing::info!(url = %choice.url, model = %choice.model, "agents think with a model; the built-in mind stands in when it fails");
    let town_mind = mind(&choice.url, &choice.model, soul.clone())?;
    let mut names: Vec<String> = BrainName::ALL
        .iter()
        .map(|b| b.as_str().to_owned())
        .collect();
    names.extend(choice.agents.keys().cloned());
    names.sort();
    names.dedup();
    let mut own = BTreeMap::new();
    for name in names {
        let entry = choice.agents.get(&name).cloned().unwrap_or_default();
        let character = std::fs::read_to_string(town.join("brains").join(format!("{name}.md")))
            .ok()
            .or_else(|| brain_character(&name).map(str::to_owned));
        if entry == soul_keys::AgentModel::default() && character.is_none() {
            continue;
        }
        let mut theirs = soul.clone();
        if let Some(character) = character {
            theirs.push_str("\n\n## Who you are\n\n");
            theirs.push_str(character.trim());
        }
        let url = entry.url.as_deref().unwrap_or(&choice.url);
        let model = entry.model.as_deref().unwrap_or(&choice.model);
        if entry != soul_keys::AgentModel::default() {
            tracing::info!(agent = %name, url, model, "this agent thinks with its own model");
        }
        own.insert(name, mind(url, model, theirs)?);
    }
    Ok((town_mind, own))
}
