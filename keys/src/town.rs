//! The town directory and its `town.toml`.
//!
//! Every section has a `Default`, so an older `town.toml` that lacks a newer section still loads;
//! every section denies unknown keys, so a typo is an error naming the file, line and key rather
//! than a setting silently ignored. `load` also checks the owner key, the relay URLs and every
//! roster pubkey, so a bad entry is reported with the file's path before anything starts.

use std::fs;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use nostr::{PublicKey, RelayUrl};
use serde::{Deserialize, Serialize};
use soul_kinds::{Roster, RosterMember};

use crate::keyfile::{NCRYPTSEC_EXT, NSEC_EXT};
use crate::sections::{
    DashboardSection, LlmSection, RelaySection, RosterEntry, ScheduleSection, TownSection,
};
use crate::Error;

/// File name of the town config inside the town directory.
pub const TOWN_TOML: &str = "town.toml";

/// A town directory: `town.toml`, `keys/`, `relay/`, `karma.sqlite`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TownDir(PathBuf);

impl TownDir {
    /// The town at `dir` (nothing is checked or created).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self(dir.into())
    }

    /// The town directory itself.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// `DIR/keys`: one key file per agent.
    pub fn keys_dir(&self) -> PathBuf {
        self.0.join("keys")
    }

    /// `DIR/relay`: the relay's event store.
    pub fn relay_dir(&self) -> PathBuf {
        self.0.join("relay")
    }

    /// `DIR/karma.sqlite`: lessons, jobs and audit rows.
    pub fn karma_db(&self) -> PathBuf {
        self.0.join("karma.sqlite")
    }

    /// `DIR/town.toml`.
    pub fn config_path(&self) -> PathBuf {
        self.0.join(TOWN_TOML)
    }

    /// The key file of agent `name`: `keys/NAME.ncryptsec` if that exists, else `keys/NAME.nsec`
    /// (where [`crate::write_nsec`] puts a new key, and what [`crate::load`] reports as missing).
    pub fn key_path(&self, name: &str) -> PathBuf {
        let keys = self.keys_dir();
        let encrypted = keys.join(format!("{name}.{NCRYPTSEC_EXT}"));
        if encrypted.is_file() {
            encrypted
        } else {
            keys.join(format!("{name}.{NSEC_EXT}"))
        }
    }
}

impl AsRef<Path> for TownDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

/// The whole of `town.toml`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TownConfig {
    /// `[town]`: name and owner.
    pub town: TownSection,
    /// `[relay]`: the bundled relay and federation.
    pub relay: RelaySection,
    /// `[llm]`: a model server; absent means the built-in mind.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llm: Option<LlmSection>,
    /// `[schedule]`: evaluation cron and heartbeat interval.
    pub schedule: ScheduleSection,
    /// `[dashboard]`: where the dashboard listens.
    pub dashboard: DashboardSection,
    /// `[[roster]]`: the town's members.
    pub roster: Vec<RosterEntry>,
}

impl TownConfig {
    /// Reads and checks `DIR/town.toml`.
    pub fn load(dir: &Path) -> Result<Self, Error> {
        let path = dir.join(TOWN_TOML);
        let text = fs::read_to_string(&path).map_err(|source| match source.kind() {
            ErrorKind::NotFound => Error::TownMissing { path: path.clone() },
            _ => Error::Io {
                path: path.clone(),
                action: "read",
                source,
            },
        })?;
        let config: Self = toml::from_str(&text).map_err(|source| Error::Toml {
            path: path.clone(),
            source,
        })?;
        config.check(&path)?;
        Ok(config)
    }

    /// Writes `DIR/town.toml` atomically (a temporary file in DIR, then rename).
    pub fn save(&self, dir: &Path) -> Result<(), Error> {
        let path = dir.join(TOWN_TOML);
        let text = toml::to_string_pretty(self).map_err(|source| Error::TomlWrite {
            path: path.clone(),
            source,
        })?;
        let tmp = dir.join(format!(".{TOWN_TOML}.tmp"));
        let io = |path: &Path, action, source| Error::Io {
            path: path.to_path_buf(),
            action,
            source,
        };
        fs::File::create(&tmp)
            .and_then(|mut file| {
                file.write_all(text.as_bytes())?;
                file.sync_all()
            })
            .map_err(|e| io(&tmp, "write", e))?;
        fs::rename(&tmp, &path).map_err(|e| {
            let _ = fs::remove_file(&tmp);
            io(&path, "replace (rename)", e)
        })
    }

    /// The owner's public key from `[town] owner`.
    pub fn owner(&self) -> Result<PublicKey, Error> {
        self.owner_in(Path::new(TOWN_TOML))
    }

    /// The roster: town name, owner and every `[[roster]]` entry with its pubkey parsed.
    pub fn roster(&self) -> Result<Roster, Error> {
        self.roster_in(Path::new(TOWN_TOML))
    }

    fn check(&self, path: &Path) -> Result<(), Error> {
        self.roster_in(path)?;
        for (field, t) in self.llm.iter().flat_map(|l| {
            [
                ("writing_temperature", l.writing_temperature),
                ("judging_temperature", l.judging_temperature),
            ]
        }) {
            if !(0.0..=2.0).contains(&t) {
                return Err(Error::Llm {
                    path: path.to_path_buf(),
                    problem: format!("{field} = {t} is outside 0..=2; most servers take 0 to 2"),
                });
            }
        }
        for (name, entry) in self.llm.iter().flat_map(|l| &l.agents) {
            let problem = if !self.roster.iter().any(|m| &m.name == name) {
                let names: Vec<&str> = self.roster.iter().map(|m| m.name.as_str()).collect();
                Some(format!(
                    "no roster member is called {name:?}; name one of: {}",
                    names.join(", ")
                ))
            } else {
                entry
                    .url
                    .as_ref()
                    .filter(|u| !(u.starts_with("http://") || u.starts_with("https://")))
                    .map(|u| format!("url {u:?} is not an http:// or https:// model server"))
            };
            if let Some(problem) = problem {
                return Err(Error::LlmAgent {
                    path: path.to_path_buf(),
                    name: name.clone(),
                    problem,
                });
            }
        }
        let urls = std::iter::once(("url", &self.relay.url))
            .chain(self.relay.federation.iter().map(|url| ("federation", url)));
        for (field, value) in urls {
            RelayUrl::parse(value).map_err(|source| Error::RelayUrl {
                path: path.to_path_buf(),
                field,
                value: value.clone(),
                source,
            })?;
        }
        Ok(())
    }

    fn owner_in(&self, path: &Path) -> Result<PublicKey, Error> {
        let value = &self.town.owner;
        parse_pubkey(value).map_err(|source| Error::Owner {
            path: path.to_path_buf(),
            value: value.clone(),
            source,
        })
    }

    fn roster_in(&self, path: &Path) -> Result<Roster, Error> {
        let members = self
            .roster
            .iter()
            .map(|entry| {
                let pubkey = parse_pubkey(&entry.pubkey).map_err(|source| Error::RosterPubkey {
                    path: path.to_path_buf(),
                    name: entry.name.clone(),
                    value: entry.pubkey.clone(),
                    source,
                })?;
                Ok(RosterMember {
                    pubkey,
                    name: entry.name.clone(),
                    role: entry.role,
                })
            })
            .collect::<Result<_, Error>>()?;
        Ok(Roster::new(
            self.town.name.clone(),
            self.owner_in(path)?,
            members,
        ))
    }
}

/// npub, hex or `nostr:` URI, and a point on the curve (hex alone does not check that).
fn parse_pubkey(value: &str) -> Result<PublicKey, nostr::key::Error> {
    let pubkey = PublicKey::parse(value)?;
    pubkey.xonly()?;
    Ok(pubkey)
}

#[cfg(test)]
mod tests {
    use nostr::{Keys, ToBech32};

    use soul_kinds::Role;

    use super::*;

    fn npub() -> String {
        Keys::generate().public_key().to_bech32().unwrap()
    }

    fn write(dir: &Path, text: &str) -> PathBuf {
        let path = dir.join(TOWN_TOML);
        fs::write(&path, text).unwrap();
        path
    }

    fn sample() -> TownConfig {
        let mut config = TownConfig::default();
        config.town.owner = npub();
        config.relay.federation = vec!["wss://relay.example.com".into()];
        config.llm = Some(LlmSection::default());
        config.roster = vec![
            RosterEntry {
                name: "panda".into(),
                role: Role::Brain,
                pubkey: npub(),
            },
            RosterEntry {
                name: "critic".into(),
                role: Role::Reviewer,
                pubkey: Keys::generate().public_key().to_hex(),
            },
        ];
        config
    }

    #[test]
    fn round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let config = sample();
        config.save(dir.path()).unwrap();
        let text = fs::read_to_string(dir.path().join(TOWN_TOML)).unwrap();
        assert!(
            text.contains("[[roster]]") && text.contains("role = \"brain\""),
            "{text}"
        );
        assert!(!dir.path().join(".town.toml.tmp").exists());
        let loaded = TownConfig::load(dir.path()).unwrap();
        assert_eq!(loaded, config);

        let roster = loaded.roster().unwrap();
        assert_eq!(roster.town, "soul-town");
        assert_eq!(roster.owner, PublicKey::parse(&config.town.owner).unwrap());
        assert_eq!(roster.members().len(), 2);
        assert_eq!(roster.members()[1].name, "critic");
        assert_eq!(roster.members()[1].role, Role::Reviewer);
        // Saving again replaces the file.
        config.save(dir.path()).unwrap();
    }

    #[test]
    fn older_file_gets_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let owner = npub();
        write(
            dir.path(),
            &format!("[town]\nname = \"old\"\nowner = \"{owner}\"\n"),
        );
        let config = TownConfig::load(dir.path()).unwrap();
        assert_eq!(config.town.name, "old");
        assert_eq!(config.relay, RelaySection::default());
        assert_eq!(config.relay.rate.per_pubkey_per_minute, 1200);
        assert_eq!(config.schedule.heartbeat_secs, 30);
        assert_eq!(config.dashboard.listen.port(), 3000);
        assert!(config.llm.is_none() && config.roster.is_empty());
    }

    #[test]
    fn unknown_key_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let text = format!(
            "[town]\nowner = \"{}\"\n[relay.rate]\nper_pubkey_per_minit = 5\n",
            npub()
        );
        let path = write(dir.path(), &text);
        let err = TownConfig::load(dir.path()).unwrap_err();
        assert!(matches!(err, Error::Toml { .. }), "{err}");
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("town.toml at {}", path.display())),
            "{msg}"
        );
        assert!(msg.contains("per_pubkey_per_minit"), "{msg}");
    }

    #[test]
    fn bad_npub_in_roster_names_the_entry() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = sample();
        config.roster[1].pubkey = "npub1notakey".into();
        let err = config.roster().unwrap_err();
        assert!(matches!(err, Error::RosterPubkey { ref name, .. } if name == "critic"));
        // Through load, the message names the file, the entry and the value.
        let text = toml::to_string(&config).unwrap();
        let path = write(dir.path(), &text);
        let msg = TownConfig::load(dir.path()).unwrap_err().to_string();
        assert!(msg.contains(&path.display().to_string()), "{msg}");
        assert!(
            msg.contains("entry \"critic\"") && msg.contains("npub1notakey"),
            "{msg}"
        );
    }

    #[test]
    fn bad_owner_and_relay_url_and_missing_file() {
        let dir = tempfile::tempdir().unwrap();
        let err = TownConfig::load(dir.path()).unwrap_err();
        assert!(matches!(err, Error::TownMissing { .. }), "{err}");

        let mut config = sample();
        config.town.owner = "owner".into();
        assert!(matches!(config.owner(), Err(Error::Owner { .. })));

        let mut config = sample();
        config.relay.federation.push("http://example.com".into());
        write(dir.path(), &toml::to_string(&config).unwrap());
        let err = TownConfig::load(dir.path()).unwrap_err();
        assert!(
            matches!(
                err,
                Error::RelayUrl {
                    field: "federation",
                    ..
                }
            ),
            "{err}"
        );
    }

    /// Issue 14: a brain may think with its own model; an entry for nobody, or with a URL that
    /// is no model server, is refused with the entry named.
    #[test]
    fn per_agent_models_load_and_bad_entries_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let owner = npub();
        let pk = npub();
        let town = |agents: &str| {
            format!(
                "[town]\nowner = \"{owner}\"\nmission = \"Keep the garden alive\"\n\
                 [llm]\nurl = \"http://127.0.0.1:11434\"\nmodel = \"llama3.2\"\n{agents}\
                 [[roster]]\nname = \"panda\"\nrole = \"brain\"\npubkey = \"{pk}\"\n"
            )
        };
        write(
            dir.path(),
            &town("[llm.agents.panda]\nmodel = \"qwen2.5:14b\"\n"),
        );
        let config = TownConfig::load(dir.path()).unwrap();
        assert_eq!(config.town.mission, "Keep the garden alive");
        let llm = config.llm.as_ref().unwrap();
        assert_eq!(llm.agents["panda"].model.as_deref(), Some("qwen2.5:14b"));
        assert_eq!(llm.agents["panda"].url, None);
        // It survives a save.
        config.save(dir.path()).unwrap();
        assert_eq!(TownConfig::load(dir.path()).unwrap(), config);

        write(dir.path(), &town("[llm.agents.pandaa]\nmodel = \"x\"\n"));
        let msg = TownConfig::load(dir.path()).unwrap_err().to_string();
        assert!(
            msg.contains("[llm.agents.pandaa]") && msg.contains("name one of: panda"),
            "{msg}"
        );
        write(dir.path(), &town("[llm.agents.panda]\nurl = \"ftp://x\"\n"));
        let msg = TownConfig::load(dir.path()).unwrap_err().to_string();
        assert!(msg.contains("not an http:// or https://"), "{msg}");
        write(dir.path(), &town("[llm.agents.panda]\nmodle = \"x\"\n"));
        let msg = TownConfig::load(dir.path()).unwrap_err().to_string();
        assert!(msg.contains("modle"), "{msg}");
        write(
            dir.path(),
            &town("").replace(
                "model = \"llama3.2\"",
                "model = \"m\"\nwriting_temperature = 3.5",
            ),
        );
        let msg = TownConfig::load(dir.path()).unwrap_err().to_string();
        assert!(
            msg.contains("[llm]: writing_temperature = 3.5 is outside 0..=2"),
            "{msg}"
        );
        // Without a mission line, the seed's mission.
        write(dir.path(), &format!("[town]\nowner = \"{owner}\"\n"));
        let config = TownConfig::load(dir.path()).unwrap();
        assert_eq!(config.town.mission, crate::DEFAULT_MISSION);
    }

    #[test]
    fn town_dir_paths() {
        let dir = tempfile::tempdir().unwrap();
        let town = TownDir::new(dir.path());
        assert_eq!(town.config_path(), dir.path().join("town.toml"));
        assert_eq!(town.karma_db(), dir.path().join("karma.sqlite"));
        assert_eq!(town.relay_dir(), dir.path().join("relay"));
        let keys = town.keys_dir();
        assert_eq!(town.key_path("owner"), keys.join("owner.nsec"));
        fs::create_dir(&keys).unwrap();
        fs::write(keys.join("owner.ncryptsec"), "x").unwrap();
        assert_eq!(town.key_path("owner"), keys.join("owner.ncryptsec"));
    }
}
