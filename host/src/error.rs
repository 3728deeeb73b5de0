//! The one error type of soul-host: why a town could not be loaded, or why an agent's role (or
//! the host) stopped. Each variant names the file, event or agent at fault.

use std::path::PathBuf;

use soul_link::LinkError;

/// Why a town could not be loaded, or an agent's task (or the host) stopped. The host logs a
/// role's error and restarts the agent; `soul up` prints a loading error and exits.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The relay could not be reached, refused an event, or the connection failed.
    #[error(transparent)]
    Link(#[from] LinkError),
    /// An event's content does not parse as its kind says (the kinds error names the event).
    #[error(transparent)]
    Content(#[from] soul_kinds::Error),
    /// There is no usable town at `dir`.
    #[error("cannot open the town at {} (make one with `soul init {}`): {source}", dir.display(), dir.display())]
    NoTown {
        /// The directory given.
        dir: PathBuf,
        /// What reading `town.toml` said (boxed: a key error is large, and every role's
        /// result carries this type).
        source: Box<soul_keys::Error>,
    },
    /// A key file or the roster could not be read.
    #[error(transparent)]
    Keys(Box<soul_keys::Error>),
    /// A key file holds another key than the roster names for that agent.
    #[error("key file {} does not hold {name}'s key from town.toml; put the right key there or fix its [[roster]] entry", path.display())]
    WrongKey {
        /// The key file.
        path: PathBuf,
        /// The agent the roster names.
        name: String,
    },
    /// A resident profile or the brains' lexicon is wrong.
    #[error(transparent)]
    Mind(#[from] soul_mind::MindError),
    /// The guardian's or the gate's rules are wrong.
    #[error(transparent)]
    Guard(#[from] soul_guard::GuardError),
    /// `karma.sqlite` could not be opened.
    #[error(transparent)]
    Karma(#[from] soul_karma::Error),
    /// A town file breaks a rule (`rules/ng_rules.yaml`, `rules/restart.yaml`,
    /// `bulletin/sources.yaml`).
    #[error("{file}: {reason}")]
    File {
        /// The file (or "the built-in rules/NAME").
        file: String,
        /// What is wrong, naming the rule or field.
        reason: String,
    },
    /// A file or folder could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `--llm` (or `[llm] url`) is not an http(s) base URL.
    #[error("--llm {url:?}: expected an http:// or https:// base URL, such as http://127.0.0.1:11434 (Ollama) or http://127.0.0.1:8080/v1 (OpenAI-compatible)")]
    LlmUrl {
        /// What was given.
        url: String,
    },
    /// Work moved to the blocking pool panicked: opening karma.sqlite and the rules, or
    /// judging a draft against the NG rules.
    #[error("work on the blocking pool (opening karma.sqlite and the rules, or judging a draft) panicked: {0}")]
    Blocking(#[from] tokio::task::JoinError),
    /// An agent was started as a brain but is none of panda, gorilla and triceratops.
    #[error("agent {name} runs as a brain but is not one of the town's brains (panda, gorilla, triceratops): fix its role in town.toml")]
    NotABrain {
        /// The agent's roster name.
        name: String,
    },
    /// The reporter's HTTP client could not be built (no TLS provider).
    #[error("the reporter's HTTP client cannot start: {0}")]
    Http(#[source] reqwest::Error),
    /// A feed could not be fetched (the reporter logs it and skips the feed this round).
    #[error("feed {feed}: {source}")]
    FeedFetch {
        /// The feed's file or URL.
        feed: String,
        /// What the HTTP client said.
        source: reqwest::Error,
    },
    /// A feed is not RSS, Atom or JSON Feed.
    #[error("feed {feed} is not RSS, Atom or JSON Feed: {source}")]
    FeedParse {
        /// The feed's file or URL.
        feed: String,
        /// What the parser said.
        source: feed_rs::parser::ParseFeedError,
    },
    /// A resident's memory (34362) is not sealed to this key, or is corrupt.
    #[error("memory cannot be decrypted (not sealed to this key, or corrupt): {0}")]
    MemoryCipher(#[from] nostr::nips::nip44::Error),
    /// A resident's memory decrypted but is not a memory.
    #[error("memory decrypted but is not a memory: {0}")]
    MemoryJson(#[source] serde_json::Error),
}

impl From<soul_keys::Error> for HostError {
    fn from(e: soul_keys::Error) -> Self {
        Self::Keys(Box::new(e))
    }
}

impl HostError {
    /// A relay refused one of this agent's events for sending too fast.
    pub fn is_rate_limited(&self) -> bool {
        match self {
            Self::Link(e) | Self::Guard(soul_guard::GuardError::Publish(e)) => e.is_rate_limited(),
            _ => false,
        }
    }
}
