//! Loading a town to run it: its config and the identities whose keys are on this machine.

use std::path::Path;

use nostr::Keys;
use soul_keys::{keyfile, EnvOrPrompt, TownConfig, TownDir};

use crate::HostError;
use soul_link::Identity;
use soul_mind::brain::Lexicon;

/// A town read from disk.
pub struct Town {
    /// Its directory.
    pub dir: TownDir,
    /// `town.toml`.
    pub config: TownConfig,
}

impl Town {
    /// Reads `dir/town.toml`.
    pub fn open(dir: &Path) -> Result<Self, HostError> {
        let config = TownConfig::load(dir).map_err(|source| HostError::NoTown {
            dir: dir.to_owned(),
            source: Box::new(source),
        })?;
        Ok(Self {
            dir: TownDir::new(dir),
            config,
        })
    }

    /// The owner's keys, when `keys/owner.nsec` (or `.ncryptsec`) is on this machine.
    pub fn owner_keys(&self) -> Result<Option<Keys>, HostError> {
        match keyfile::find_key(&self.dir.keys_dir(), "owner") {
            Ok(path) => Ok(Some(keyfile::load(&path, &EnvOrPrompt)?)),
            Err(_) => Ok(None),
        }
    }

    /// The brains' lexicon from `rules/brain_lexicon.yaml`, or the built-in one if absent.
    pub fn lexicon(&self) -> Result<Lexicon, HostError> {
        lexicon_in(self.dir.path())
    }

    /// Every roster member whose key file is in `keys/`, loaded; members without a key here run
    /// elsewhere (`soul-agent --key`) and are skipped.
    pub fn local_identities(&self) -> Result<Vec<Identity>, HostError> {
        let roster = self.config.roster()?;
        let mut out = Vec::new();
        for member in roster.members() {
            let Ok(path) = keyfile::find_key(&self.dir.keys_dir(), &member.name) else {
                tracing::info!(agent = %member.name, "no key here; expecting it to run elsewhere");
                continue;
            };
            let keys = keyfile::load(&path, &EnvOrPrompt)?;
            if keys.public_key() != member.pubkey {
                return Err(HostError::WrongKey {
                    path,
                    name: member.name.clone(),
                });
            }
            out.push(Identity {
                name: member.name.clone(),
                role: member.role,
                keys,
            });
        }
        Ok(out)
    }
}

/// `DIR/rules/brain_lexicon.yaml` if present (a bad file is an error naming it), else built in.
pub fn lexicon_in(dir: &Path) -> Result<Lexicon, HostError> {
    let path = dir.join("rules").join("brain_lexicon.yaml");
    if path.exists() {
        Ok(Lexicon::load(&path)?)
    } else {
        Ok(Lexicon::builtin())
    }
}

/// `rules/restart.yaml` as shipped, for agents started without a town directory.
const BUILTIN_RESTART: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../rules/restart.yaml"
));

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RestartRules {
    allowlist: Vec<String>,
}

/// The restart allowlist from `DIR/rules/restart.yaml`, or the shipped one if absent.
pub fn restart_allowlist_in(dir: &Path) -> Result<Vec<String>, HostError> {
    let path = dir.join("rules").join("restart.yaml");
    let (text, name) = match std::fs::read_to_string(&path) {
        Ok(t) => (t, path.display().to_string()),
        Err(_) => (
            BUILTIN_RESTART.to_string(),
            "the built-in rules/restart.yaml".into(),
        ),
    };
    let rules: RestartRules = serde_yaml_ng::from_str(&text).map_err(|e| HostError::File {
        file: name,
        reason: format!("expected `allowlist: [agent names]`: {e}"),
    })?;
    Ok(rules.allowlist)
}
