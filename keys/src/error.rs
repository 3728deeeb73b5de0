//! The one error type of soul-keys.
//!
//! Every variant names the file it is about (and the field or roster entry) and its message says
//! what to do next, because these errors end up in front of a person running `soul`.

use std::path::PathBuf;

/// Everything that can go wrong reading or writing key files and `town.toml`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The key file does not exist.
    #[error(
        "key file {path} does not exist: run `soul init` to make a town, \
         or pass --key with an existing file"
    )]
    Missing {
        /// The key file.
        path: PathBuf,
    },

    /// Refused to overwrite an existing key file.
    #[error(
        "key file {path} already exists: refusing to overwrite a key; \
         move it away first if you really mean to replace it"
    )]
    Exists {
        /// The key file.
        path: PathBuf,
    },

    /// The key file is readable or writable by group or others (refused, like ssh does).
    #[error("key file {path} has mode {mode:04o}, readable by others: run `chmod 600 {path}`")]
    TooOpen {
        /// The key file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },

    /// The key file does not hold a valid key.
    #[error(
        "key file {path} is not a valid key ({reason}): expected one line nsec1… or ncryptsec1…"
    )]
    BadKey {
        /// The key file.
        path: PathBuf,
        /// What is wrong with it (the bech32 or NIP-49 problem).
        reason: String,
    },

    /// The key file is already encrypted, so there is nothing to encrypt.
    #[error("key file {path} is already encrypted (ncryptsec1…): nothing to do")]
    AlreadyEncrypted {
        /// The key file.
        path: PathBuf,
    },

    /// The passphrase does not decrypt the ncryptsec.
    #[error(
        "key file {path}: wrong passphrase: set SOUL_PASSPHRASE to the passphrase \
         used with `soul keys encrypt`"
    )]
    WrongPassphrase {
        /// The key file.
        path: PathBuf,
    },

    /// An encrypted key needs a passphrase and there is neither SOUL_PASSPHRASE nor a terminal.
    #[error(
        "key file {path} is encrypted and no passphrase is available: set SOUL_PASSPHRASE \
         (or run in a terminal to be asked)"
    )]
    NoPassphrase {
        /// The key file.
        path: PathBuf,
    },

    /// SOUL_PASSPHRASE is set but is not valid UTF-8.
    #[error("key file {path}: SOUL_PASSPHRASE is not valid UTF-8: set it to the passphrase text")]
    PassphraseNotUnicode {
        /// The key file.
        path: PathBuf,
    },

    /// NIP-49 encryption failed.
    #[error("key file {path}: cannot encrypt the key: {source}")]
    Encrypt {
        /// The key file being written.
        path: PathBuf,
        /// The NIP-49 (or bech32 encoding) error.
        #[source]
        source: nostr::nips::nip19::Error,
    },

    /// The freshly written ncryptsec did not decrypt to the original key.
    #[error(
        "key file {path}: the encrypted copy does not decrypt to the same key; \
         it was removed and the nsec kept: try `soul keys encrypt` again"
    )]
    Verify {
        /// The ncryptsec file that failed verification.
        path: PathBuf,
    },

    /// No key file of that name in the keys directory.
    #[error(
        "no key named {name:?} in {dir}: expected {name}.ncryptsec or {name}.nsec; \
         run `soul keys` to list the town's keys"
    )]
    KeyNotFound {
        /// The keys directory searched.
        dir: PathBuf,
        /// The agent name looked for.
        name: String,
    },

    /// A file-system operation failed.
    #[error("{path}: cannot {action}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What was being done ("read", "write", "rename to town.toml", …).
        action: &'static str,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },

    /// `town.toml` does not exist.
    #[error(
        "town.toml at {path} does not exist: run `soul init` to make a town, or pass --town DIR"
    )]
    TownMissing {
        /// The expected `town.toml` path.
        path: PathBuf,
    },

    /// `town.toml` is not valid TOML or has an unknown or ill-typed key.
    #[error("town.toml at {path}: {source}")]
    Toml {
        /// The `town.toml` path.
        path: PathBuf,
        /// The parse error; it shows the line, column and key.
        #[source]
        source: toml::de::Error,
    },

    /// The config could not be serialized (a bug rather than a user error).
    #[error("town.toml at {path}: cannot write the config: {source}")]
    TomlWrite {
        /// The `town.toml` path.
        path: PathBuf,
        /// The serializer error.
        #[source]
        source: toml::ser::Error,
    },

    /// `[town] owner` is not a public key.
    #[error(
        "town.toml at {path}: [town] owner {value:?} is not a public key ({source}): \
         write the owner's npub1… or 64-character hex key"
    )]
    Owner {
        /// The `town.toml` path.
        path: PathBuf,
        /// The value found.
        value: String,
        /// The parse error.
        #[source]
        source: nostr::key::Error,
    },

    /// A `[[roster]]` entry's pubkey is not a public key.
    #[error(
        "town.toml at {path}: [[roster]] entry {name:?}: pubkey {value:?} is not a public key \
         ({source}): write the member's npub1… (`soul keys` shows them)"
    )]
    RosterPubkey {
        /// The `town.toml` path.
        path: PathBuf,
        /// The entry's name.
        name: String,
        /// The value found.
        value: String,
        /// The parse error.
        #[source]
        source: nostr::key::Error,
    },

    /// A value in `[llm]` is out of its range.
    #[error("town.toml at {path}: [llm]: {problem}")]
    Llm {
        /// The `town.toml` path.
        path: PathBuf,
        /// What is wrong and what to do.
        problem: String,
    },

    /// `[llm.agents.NAME]` names no member of the roster, or gives a URL that is not http(s).
    #[error("town.toml at {path}: [llm.agents.{name}]: {problem}")]
    LlmAgent {
        /// The `town.toml` path.
        path: PathBuf,
        /// The entry's name.
        name: String,
        /// What is wrong and what to do.
        problem: String,
    },

    /// A relay URL in `[relay]` is not a ws:// or wss:// URL.
    #[error(
        "town.toml at {path}: [relay] {field} {value:?} is not a relay URL ({source}): \
         write ws://host:port or wss://host"
    )]
    RelayUrl {
        /// The `town.toml` path.
        path: PathBuf,
        /// `url` or `federation`.
        field: &'static str,
        /// The value found.
        value: String,
        /// The parse error.
        #[source]
        source: nostr::types::url::Error,
    },
}
