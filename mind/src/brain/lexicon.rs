//! The brains' lexicon: risk, urgency, opportunity and safety concepts, each a weight, words in
//! Japanese and English, and what a brain says about it (`rules/brain_lexicon.yaml`).
//!
//! The lexicon is data so that an owner can teach the brains new words without a rebuild; the
//! built-in copy is the same file, compiled in, so a town without `rules/` behaves identically.

use crate::MindError;
use std::collections::HashSet;
use std::path::Path;
use std::sync::OnceLock;

use serde::Deserialize;

use super::Language;

/// The compiled-in lexicon, the same file a new town gets in `rules/`.
const BUILTIN: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../rules/brain_lexicon.yaml"
));

/// A text in both languages the brains speak.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Text {
    /// English.
    pub en: String,
    /// Japanese.
    pub ja: String,
}

impl Text {
    /// The text in `language`.
    pub fn get(&self, language: Language) -> &str {
        match language {
            Language::En => &self.en,
            Language::Ja => &self.ja,
        }
    }
}

/// One concept: its words and what a brain says and proposes about it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// Short name, unique within its list.
    pub id: String,
    /// What one hit adds to the list's score, within (0, 1].
    pub weight: f64,
    /// The words that signal the concept, in either language.
    pub words: Vec<String>,
    /// A concern (risk, urgency) or a benefit (opportunity, safety).
    pub note: Text,
    /// A concrete step a brain proposes because of the concept.
    pub step: Text,
    /// A safety concept whose words name clutter that is meant to go (spam, cache): deleting it
    /// removes no safeguard, so "delete the spam" is not read as a safeguard removed. Optional;
    /// false when absent.
    #[serde(default)]
    pub disposable: bool,
    /// A risk concept of trying something (production, experimental), not a harm's kin: the
    /// learned reading weighs harm, so its "surely ordinary" never quiets it, and a cautious
    /// brain still minds "try the experimental database in production". Optional; false when
    /// absent.
    #[serde(default)]
    pub venture: bool,
}

/// One harm: what a task does, read as an action on an object (see `harm`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Harm {
    /// Short name, unique.
    pub id: String,
    /// Within (0, 1]; a brain refuses a harm above its threshold.
    pub severity: f64,
    /// How a brain names the harm.
    pub name: Text,
    /// What is at stake (a password, the savings, the firewall).
    #[serde(default)]
    pub objects: Vec<String>,
    /// What is done to it (send, turn off, without).
    #[serde(default)]
    pub actions: Vec<String>,
    /// Phrases that are the harm by themselves.
    #[serde(default)]
    pub alone: Vec<String>,
    /// States that do what an action does when a causative brings them about, read only there
    /// (see `harm`): "make sure the firewall stays off"; for a harm with `placings`, only when
    /// they leave the object with an outsider ("make sure the seller has our card details",
    /// "ensure the code is in the cleaners' chat"). Optional; none when absent.
    #[serde(default)]
    pub states: Vec<String>,
    /// Acts that put the object somewhere ("save", 「保存」): a harm only when the place they
    /// name is outside the house ("save my password on the library computer"), never in "save
    /// it in my password manager". Optional; none when absent.
    #[serde(default)]
    pub placings: Vec<String>,
    /// Who the act must open the object to for it to be the harm ("anyone", "the public",
    /// 「誰でも」): with a list, an object and an action make the harm only in a sentence that
    /// names one of these, not denied ("nobody", "don't let anyone", "remove public access") nor
    /// the family ("anyone in the family"). "Let Mum see the baby monitor" opens it to nobody
    /// new; "set the family album so anyone can view it" opens it to the world. Optional; with
    /// none, every reader counts.
    #[serde(default)]
    pub audience: Vec<String>,
    /// Whether an English sentence that opens with this harm's act ("Turn off the scam call
    /// blocker on Nan's landline", "please uninstall the antivirus") is always a command, never
    /// a mention the learned reading may clear. Set it for a harm whose act is rarely a topic
    /// of an ordinary request; optional, false when absent.
    #[serde(default)]
    pub opening_is_command: bool,
    /// Why it matters.
    pub note: Text,
    /// What to do instead.
    pub step: Text,
}

/// Risk, urgency, opportunity and safety concepts, and the harms a task can do.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lexicon {
    /// Things that can hurt the family: money transfers, unknown parties, deletion, keys, …
    pub risk: Vec<Entry>,
    /// Time pressure: today, immediately, …
    pub urgency: Vec<Entry>,
    /// Chances to gain: automate, learn, grow, new, improve.
    pub opportunity: Vec<Entry>,
    /// Things that make a task safer: backup, test, review, rollback, encrypt.
    pub safety: Vec<Entry>,
    /// Words of protective intent: a sentence with one guards against harm. Absent in a file
    /// from an older soul, which then gets the built-in list.
    #[serde(default)]
    pub protective: Vec<String>,
    /// Harms, read as action + object. Absent in an older file: the built-in harms.
    #[serde(default)]
    pub harms: Vec<Harm>,
    /// Phrases in which a harm's words have an everyday sense ("password manager", "I bet it
    /// rains", 「賭けてもいい」); they are blanked before harms are read.
    #[serde(default)]
    pub ordinary: Vec<String>,
    /// Places where others read what is put there ("group chat", "library", 「共用」): a secret
    /// a harm's `states` or `placings` put in one has left the house. English words are matched
    /// whole in the place a phrase names; Japanese ones in the clause before its 「に」. Absent
    /// in an older file: the built-in list.
    #[serde(default)]
    pub outside_places: Vec<String>,
    /// Holders nobody verified, who reach the family uninvited ("caller", "seller", "whoever
    /// calls"): a secret a state hands to one leaves the house whoever it belongs to. Absent in
    /// an older file: the built-in list.
    #[serde(default)]
    pub strangers: Vec<String>,
}

/// A lexicon file that cannot be used; every variant names the file.
impl Lexicon {
    /// Reads and checks a lexicon file.
    pub fn load(path: &Path) -> Result<Self, MindError> {
        let text = std::fs::read_to_string(path).map_err(|source| MindError::LexiconRead {
            path: path.to_owned(),
            source,
        })?;
        Self::parse(&text, path)
    }

    /// The lexicon compiled into the binary (`rules/brain_lexicon.yaml`).
    pub fn builtin() -> Self {
        // A test parses the same text, so this cannot fail in a released binary.
        Self::parse_file(BUILTIN, Path::new("rules/brain_lexicon.yaml (built in)"))
            .expect("the built-in brain lexicon is valid")
    }

    /// Whether this lexicon's harm `id` is the shipped one, word for word: the learned reading
    /// was trained against the shipped harms, so only those may it read as a mention; a harm
    /// the owner added or changed is the owner's word and always stands.
    pub fn harm_is_shipped(&self, id: &str) -> bool {
        static SHIPPED: OnceLock<Lexicon> = OnceLock::new();
        let shipped = SHIPPED.get_or_init(Lexicon::builtin);
        let find = |l: &'_ Lexicon| l.harms.iter().position(|h| h.id == id);
        match (find(self), find(shipped)) {
            (Some(mine), Some(theirs)) => self.harms[mine] == shipped.harms[theirs],
            _ => false,
        }
    }

    /// Parses `text`, naming `path` in errors. A file written before harms existed gets the
    /// built-in harms and protective words, so an older town still starts and still judges.
    pub fn parse(text: &str, path: &Path) -> Result<Self, MindError> {
        let mut lexicon = Self::parse_file(text, path)?;
        if lexicon.harms.is_empty() {
            let builtin = Self::builtin();
            lexicon.harms = builtin.harms;
            if lexicon.protective.is_empty() {
                lexicon.protective = builtin.protective;
            }
            if lexicon.ordinary.is_empty() {
                lexicon.ordinary = builtin.ordinary;
            }
        }
        // Read only with `states` and `placings`, which a file from before them may still get
        // with the built-in harms above.
        if lexicon.outside_places.is_empty() || lexicon.strangers.is_empty() {
            let builtin = Self::builtin();
            if lexicon.outside_places.is_empty() {
                lexicon.outside_places = builtin.outside_places;
            }
            if lexicon.strangers.is_empty() {
                lexicon.strangers = builtin.strangers;
            }
        }
        Ok(lexicon)
    }

    /// Parses `text` as it is, naming `path` in errors.
    fn parse_file(text: &str, path: &Path) -> Result<Self, MindError> {
        let lexicon: Lexicon =
            serde_yaml_ng::from_str(text).map_err(|source| MindError::LexiconParse {
                path: path.to_owned(),
                source,
            })?;
        lexicon
            .check()
            .map_err(|(field, reason)| MindError::LexiconInvalid {
                path: path.to_owned(),
                field,
                reason,
            })?;
        Ok(lexicon)
    }

    /// Whether `id` is a risk concept of trying something (`venture`).
    pub(crate) fn is_venture(&self, id: &str) -> bool {
        self.risk.iter().any(|e| e.id == id && e.venture)
    }

    /// The four lists with their names, in the order features reads them.
    pub(crate) fn lists(&self) -> [(&'static str, &[Entry]); 4] {
        [
            ("risk", &self.risk),
            ("urgency", &self.urgency),
            ("opportunity", &self.opportunity),
            ("safety", &self.safety),
        ]
    }

    /// Every rule a hand-edited file can break, as `(field, reason)`.
    fn check(&self) -> Result<(), (String, String)> {
        for (list, entries) in self.lists() {
            let mut ids = HashSet::new();
            for (i, entry) in entries.iter().enumerate() {
                let at = |field: &str| format!("{list}[{i}].{field}");
                if entry.id.trim().is_empty() {
                    return Err((at("id"), "must not be empty".into()));
                }
                if !ids.insert(entry.id.as_str()) {
                    return Err((at("id"), format!("\"{}\" appears twice", entry.id)));
                }
                if !(entry.weight > 0.0 && entry.weight <= 1.0) {
                    return Err((at("weight"), "must be within (0, 1]".into()));
                }
                if entry.venture && list != "risk" {
                    return Err((at("venture"), "is for risk concepts only".into()));
                }
                if entry.words.is_empty() {
                    return Err((at("words"), "must list at least one word".into()));
                }
                if let Some(j) = entry.words.iter().position(|w| w.trim().is_empty()) {
                    return Err((
                        format!("{list}[{i}].words[{j}]"),
                        "must not be empty".into(),
                    ));
                }
                for (name, text) in [("note", &entry.note), ("step", &entry.step)] {
                    if text.en.trim().is_empty() {
                        return Err((at(&format!("{name}.en")), "must not be empty".into()));
                    }
                    if text.ja.trim().is_empty() {
                        return Err((at(&format!("{name}.ja")), "must not be empty".into()));
                    }
                }
            }
        }
        for (list, words) in [
            ("outside_places", &self.outside_places),
            ("strangers", &self.strangers),
        ] {
            if let Some(j) = words.iter().position(|w| w.trim().is_empty()) {
                return Err((format!("{list}[{j}]"), "must not be empty".into()));
            }
        }
        self.check_harms()
    }

    fn check_harms(&self) -> Result<(), (String, String)> {
        let mut ids = HashSet::new();
        for (i, harm) in self.harms.iter().enumerate() {
            let at = |field: &str| format!("harms[{i}].{field}");
            if harm.id.trim().is_empty() || !ids.insert(harm.id.as_str()) {
                return Err((at("id"), "must be present and unique".into()));
            }
            if !(harm.severity > 0.0 && harm.severity <= 1.0) {
                return Err((at("severity"), "must be within (0, 1]".into()));
            }
            let pairs = !harm.objects.is_empty() && !harm.actions.is_empty();
            if !pairs && harm.alone.is_empty() {
                return Err((at("objects"), "needs objects and actions, or alone".into()));
            }
            let words = harm
                .objects
                .iter()
                .chain(&harm.actions)
                .chain(&harm.alone)
                .chain(&harm.audience);
            if words
                .chain(&self.protective)
                .chain(&self.ordinary)
                .any(|w| w.trim().is_empty())
            {
                return Err((at("words"), "must not be empty".into()));
            }
            for (name, text) in [
                ("name", &harm.name),
                ("note", &harm.note),
                ("step", &harm.step),
            ] {
                if text.en.trim().is_empty() || text.ja.trim().is_empty() {
                    return Err((at(name), "needs en and ja".into()));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_parses_and_covers_both_languages() {
        let lexicon = Lexicon::builtin();
        for (_, entries) in lexicon.lists() {
            assert!(!entries.is_empty());
            for entry in entries {
                assert!(entry.words.iter().any(|w| w.is_ascii()), "{}", entry.id);
                assert!(entry.words.iter().any(|w| !w.is_ascii()), "{}", entry.id);
            }
        }
    }

    #[test]
    fn an_older_file_without_harms_gets_the_built_in_harms() {
        let old = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../agents/data/eval/old_brain_lexicon.yaml"
        ));
        assert!(!old.contains("harms:"));
        let lexicon = Lexicon::parse(old, Path::new("town/rules/brain_lexicon.yaml")).unwrap();
        assert_eq!(lexicon.harms, Lexicon::builtin().harms);
        assert!(!lexicon.protective.is_empty());
        let bad = BUILTIN.replacen("severity: 0.9", "severity: 0", 1);
        let err = Lexicon::parse(&bad, Path::new("x.yaml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("harms[0].severity"), "{err}");
    }

    /// A file from the round before `outside_places` and `strangers` has harms but neither
    /// list: it gets the built-in ones, so its `states` and `placings` still read.
    #[test]
    fn a_file_without_outside_places_or_strangers_gets_the_built_in_lists() {
        let cut = BUILTIN
            .find("\n# Places where others read")
            .expect("the built-in lexicon lists its outside places last");
        let older = &BUILTIN[..cut];
        assert!(!older.contains("outside_places:") && !older.contains("strangers:"));
        let lexicon = Lexicon::parse(older, Path::new("town/rules/brain_lexicon.yaml")).unwrap();
        let builtin = Lexicon::builtin();
        assert_eq!(lexicon.outside_places, builtin.outside_places);
        assert_eq!(lexicon.strangers, builtin.strangers);
        assert!(builtin.outside_places.iter().any(|w| w == "group chat"));
        assert!(builtin.outside_places.iter().any(|w| w == "図書館"));
        let bad = BUILTIN.replacen("strangers: [caller,", "strangers: ['  ', caller,", 1);
        let err = Lexicon::parse(&bad, Path::new("x.yaml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("strangers[0]"), "{err}");
    }

    #[test]
    fn errors_name_the_file_and_the_field() {
        let path = Path::new("town/rules/brain_lexicon.yaml");
        let good = BUILTIN;
        let cases: &[(&str, &str, &str)] = &[
            ("weight: 0.45", "weight: 1.5", "risk[0].weight"),
            ("id: savings", "id: money_transfer", "risk[1].id"),
            ("words: [savings,", "words: ['', ", "risk[1].words[0]"),
            (
                "id: automate\n    weight: 0.4\n",
                "id: automate\n    weight: 0.4\n    venture: true\n",
                "opportunity[0].venture",
            ),
        ];
        for (from, to, field) in cases {
            let text = good.replacen(from, to, 1);
            let err = Lexicon::parse(&text, path).unwrap_err().to_string();
            assert!(err.contains("town/rules/brain_lexicon.yaml"), "{err}");
            assert!(err.contains(field), "{err}");
        }
        let err = Lexicon::parse("risk: 3", path).unwrap_err().to_string();
        assert!(
            err.contains("town/rules/brain_lexicon.yaml") && err.contains("risk"),
            "{err}"
        );
        let missing = Lexicon::load(Path::new("/nonexistent/brain_lexicon.yaml")).unwrap_err();
        assert!(missing
            .to_string()
            .contains("/nonexistent/brain_lexicon.yaml"));
    }
}
