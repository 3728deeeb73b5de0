//! The one error type of soul-mind's files: what a mind reads at start and refuses.
//!
//! A model call's failure is not an error here: the built-in mind answers instead, and the
//! reason is recorded (`model::wire::CallError`).

use std::path::PathBuf;

/// A file a mind reads at start (a resident's profile, the brains' lexicon) that cannot be used.
/// Every variant names the file, and the field where there is one.
#[derive(Debug, thiserror::Error)]
pub enum MindError {
    /// A resident profile or `residents/_common.yaml` breaks a rule.
    #[error("{}: field `{field}`: {reason}", file.display())]
    Profile {
        /// The YAML file.
        file: PathBuf,
        /// The field at fault (`-` when the file as a whole is unreadable).
        field: String,
        /// What is wrong and what to write instead.
        reason: String,
    },
    /// The brain lexicon could not be read.
    #[error("cannot read brain lexicon {}", path.display())]
    LexiconRead {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The brain lexicon is not YAML of the expected shape (the message names the field and line).
    #[error("brain lexicon {} is malformed: {source}", path.display())]
    LexiconParse {
        /// The file.
        path: PathBuf,
        /// Why, with the field and the line.
        #[source]
        source: serde_yaml_ng::Error,
    },
    /// A lexicon field breaks a rule.
    #[error("brain lexicon {}: field {field}: {reason}", path.display())]
    LexiconInvalid {
        /// The file.
        path: PathBuf,
        /// Where, such as `risk[2].weight`.
        field: String,
        /// Which rule it breaks.
        reason: String,
    },
}
