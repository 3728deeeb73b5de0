//! Resident profiles: `residents/NAME.yaml` and the shared `residents/_common.yaml` (seed 001).
//!
//! A profile says who a resident is (personality, interests, style, language), what it likes to
//! write about and what it avoids, and how often it posts. Every error names the file and the
//! field and says what to write instead, because the owner edits these files by hand.

use crate::MindError;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

/// A profile file that cannot be used.
/// The language a resident writes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// Japanese.
    Ja,
    /// English.
    En,
}

/// One resident's profile.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Roster name; must equal the file name.
    pub name: String,
    /// Name shown in posts' profile (kind 0).
    #[serde(default)]
    pub display_name: String,
    /// `ja` or `en`.
    pub language: Language,
    /// Who they are, in a sentence or two.
    pub personality: String,
    /// What they talk about (at least one).
    pub interests: Vec<String>,
    /// How they write.
    pub style: String,
    /// Things they like to bring up.
    #[serde(default)]
    pub positive_prompts: Vec<String>,
    /// Things they steer clear of.
    #[serde(default)]
    pub negative_prompts: Vec<String>,
    /// Town minutes between posts, before the ±30 % jitter.
    pub posting_interval_minutes: u32,
    /// Sentence endings the writer uses (`かな`, `!`); a default set per language when empty.
    #[serde(default)]
    pub endings: Vec<String>,
    /// Emoji they sometimes add.
    #[serde(default)]
    pub emoji: Vec<String>,
}

/// Rules shared by every resident (`residents/_common.yaml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Common {
    /// The timeline's tone (`cheerful`).
    #[serde(default = "cheerful")]
    pub timeline: String,
    /// Longest post, in characters.
    #[serde(default = "max_chars")]
    pub max_post_chars: usize,
    /// How deep a resident goes in one reply thread.
    #[serde(default = "depth")]
    pub reply_depth_limit: usize,
    /// Themes every resident may use.
    #[serde(default)]
    pub positive_prompts: Vec<String>,
    /// Themes every resident avoids.
    #[serde(default)]
    pub negative_prompts: Vec<String>,
}

fn cheerful() -> String {
    "cheerful".into()
}
fn max_chars() -> usize {
    280
}
fn depth() -> usize {
    3
}

impl Default for Common {
    fn default() -> Self {
        Self {
            timeline: cheerful(),
            max_post_chars: max_chars(),
            reply_depth_limit: depth(),
            positive_prompts: Vec::new(),
            negative_prompts: Vec::new(),
        }
    }
}

impl Profile {
    /// The town-time interval between posts, before jitter.
    pub fn interval(&self) -> Duration {
        Duration::from_secs(u64::from(self.posting_interval_minutes) * 60)
    }

    /// Reads and checks `residents/NAME.yaml`.
    pub fn load(file: &Path) -> Result<Self, MindError> {
        let text = read(file)?;
        let profile: Profile = serde_yaml_ng::from_str(&text).map_err(|e| yaml_error(file, e))?;
        profile.check(file)?;
        Ok(profile)
    }

    fn check(&self, file: &Path) -> Result<(), MindError> {
        let bad = |field: &str, reason: &str| {
            Err(MindError::Profile {
                file: file.to_path_buf(),
                field: field.into(),
                reason: reason.into(),
            })
        };
        let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        if self.name != stem {
            return bad(
                "name",
                &format!(
                    "is {:?} but the file is {stem}.yaml; the name must match the file name (and the roster)",
                    self.name
                ),
            );
        }
        if self.personality.trim().is_empty() {
            return bad(
                "personality",
                "must not be empty: describe the resident in a sentence",
            );
        }
        if self.style.trim().is_empty() {
            return bad("style", "must not be empty: say how the resident writes");
        }
        if self.interests.is_empty() || self.interests.iter().any(|i| i.trim().is_empty()) {
            return bad(
                "interests",
                "must list at least one non-empty interest, e.g. [gardening, tea]",
            );
        }
        if self.posting_interval_minutes == 0 || self.posting_interval_minutes > 7 * 24 * 60 {
            return bad(
                "posting_interval_minutes",
                "must be between 1 and 10080 (a week), in town minutes",
            );
        }
        Ok(())
    }
}

impl Common {
    /// Reads `residents/_common.yaml`; a missing file gives the defaults.
    pub fn load(file: &Path) -> Result<Self, MindError> {
        if !file.exists() {
            return Ok(Self::default());
        }
        let common: Common =
            serde_yaml_ng::from_str(&read(file)?).map_err(|e| yaml_error(file, e))?;
        if common.max_post_chars < 20 {
            return Err(MindError::Profile {
                file: file.to_path_buf(),
                field: "max_post_chars".into(),
                reason: "must be at least 20".into(),
            });
        }
        Ok(common)
    }
}

/// Every profile in `DIR/residents/` (sorted by name) and the common rules. Any bad file is an
/// error, so `soul up` refuses to start a town with a resident it cannot run.
pub fn load_all(town: &Path) -> Result<(Common, Vec<Profile>), MindError> {
    let dir = town.join("residents");
    let common = Common::load(&dir.join("_common.yaml"))?;
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension().is_some_and(|x| x == "yaml")
                    && !p
                        .file_stem()
                        .and_then(|s| s.to_str())
                        .is_some_and(|s| s.starts_with('_'))
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    let profiles = files
        .iter()
        .map(|f| Profile::load(f))
        .collect::<Result<_, _>>()?;
    Ok((common, profiles))
}

fn read(file: &Path) -> Result<String, MindError> {
    std::fs::read_to_string(file).map_err(|e| MindError::Profile {
        file: file.to_path_buf(),
        field: "-".into(),
        reason: format!("cannot read the file: {e}"),
    })
}

/// serde's message names the field (`missing field `language``, `unknown field …`,
/// `language: unknown variant …`); pull it out so the error leads with it.
fn yaml_error(file: &Path, e: serde_yaml_ng::Error) -> MindError {
    let msg = e.to_string();
    let field = between(&msg, "field `", "`")
        .or_else(|| msg.split_once(": ").map(|(f, _)| f.to_string()))
        .filter(|f| !f.contains(' '))
        .unwrap_or_else(|| "-".into());
    let hint = if msg.contains("unknown variant") {
        " (language must be `ja` or `en`)"
    } else {
        ""
    };
    MindError::Profile {
        file: file.to_path_buf(),
        field,
        reason: format!("{msg}{hint}"),
    }
}

fn between(s: &str, start: &str, end: &str) -> Option<String> {
    let rest = &s[s.find(start)? + start.len()..];
    Some(rest[..rest.find(end)?].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(format!("{name}.yaml"));
        std::fs::write(&p, text).unwrap();
        p
    }

    const GOOD: &str = "name: ivy\nlanguage: en\npersonality: Calm.\ninterests: [tea]\nstyle: Short.\nposting_interval_minutes: 60\n";

    #[test]
    fn template_profiles_load() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let (common, profiles) = load_all(&root).unwrap();
        assert!(profiles.len() >= 8);
        assert_eq!(common.reply_depth_limit, 3);
        let langs: Vec<Language> = profiles.iter().map(|p| p.language).collect();
        assert!(langs.contains(&Language::Ja) && langs.contains(&Language::En));
    }

    #[test]
    fn bad_fields_are_named() {
        let tmp = tempfile::tempdir().unwrap();
        let cases = [
            (GOOD.replace("language: en", "language: fr"), "language"),
            (GOOD.replace("language: en\n", ""), "language"),
            (
                GOOD.replace("interests: [tea]", "interests: []"),
                "interests",
            ),
            (GOOD.replace("60", "0"), "posting_interval_minutes"),
            (GOOD.replace("name: ivy", "name: bob"), "name"),
            (format!("{GOOD}moood: happy\n"), "moood"),
        ];
        for (text, field) in cases {
            let f = write(tmp.path(), "ivy", &text);
            let e = Profile::load(&f).unwrap_err();
            let crate::MindError::Profile { field: named, .. } = &e else {
                panic!("not a profile error: {e}");
            };
            assert_eq!(named, field, "{e}");
            assert!(e.to_string().contains("ivy.yaml"), "{e}");
        }
        assert!(Profile::load(&write(tmp.path(), "ivy", GOOD)).is_ok());
    }
}
