//! NG rules (`rules/ng_rules.yaml`): what may not appear on the town's timeline, by rule id.
//!
//! Detection is offline and deterministic, in Japanese and English: a rule's description is what
//! it forbids, and its evidence is words, regular expressions, and words that together break it
//! in one sentence (`together`, see `sense`), read after the rule's ordinary senses are masked. The reviewer judges drafts with them, the reporter filters news with them, and a
//! resident re-checks a rewrite against the rules its last draft broke.

use crate::HostError;
use std::path::Path;

use regex::Regex;
use serde::Deserialize;

use super::sense::Sense;
use soul_mind::brain::features::normalize;

/// The rules as shipped, for agents started without a town directory.
const BUILTIN: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../rules/ng_rules.yaml"
));

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    rules: Vec<RuleSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleSpec {
    id: String,
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    words: Vec<String>,
    #[serde(default)]
    patterns: Vec<String>,
    #[serde(default)]
    together: Vec<Vec<Vec<String>>>,
    #[serde(default)]
    ordinary: Vec<String>,
    #[serde(default)]
    unless: Vec<String>,
}

/// One compiled rule.
#[derive(Debug, Clone)]
pub struct NgRule {
    /// `NG1` …
    pub id: String,
    /// Short name, quoted in reasons.
    pub name: String,
    /// Longer description.
    pub description: String,
    /// Whole-word, case-insensitive alternation of the ASCII words.
    ascii: Option<Regex>,
    /// Normalised non-ASCII words, matched on the seams of Japanese script (never inside a
    /// longer word: バカ is not in バカンス).
    other: Vec<Vec<char>>,
    patterns: Vec<Regex>,
    sense: Sense,
}

/// One match: the rule and the text that matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The rule's id.
    pub rule: String,
    /// The rule's name.
    pub name: String,
    /// What matched, as written in the text.
    pub matched: String,
}

/// The town's NG rules.
#[derive(Debug, Clone)]
pub struct NgRules {
    rules: Vec<NgRule>,
    /// (id, "name — description") per rule, as minds are told them.
    listed: Vec<(String, String)>,
}

impl NgRules {
    /// `DIR/rules/ng_rules.yaml`, or the built-in rules when the file is absent.
    pub fn load_in(town: &Path) -> Result<Self, HostError> {
        let path = town.join("rules").join("ng_rules.yaml");
        match std::fs::read_to_string(&path) {
            Ok(text) => Self::parse(&text, &path.display().to_string()),
            Err(_) => Self::builtin(),
        }
    }

    /// The shipped rules.
    pub fn builtin() -> Result<Self, HostError> {
        Self::parse(BUILTIN, "the built-in rules/ng_rules.yaml")
    }

    /// Parses and compiles rules from YAML text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Self, HostError> {
        let err = |what: String| HostError::File {
            file: file.to_string(),
            reason: what,
        };
        let spec: File = serde_yaml_ng::from_str(text).map_err(|e| {
            err(format!(
                "{e} (expected `rules:` with id, name, words, patterns)"
            ))
        })?;
        let mut rules = Vec::new();
        for r in spec.rules {
            if r.id.trim().is_empty() {
                return Err(err(format!(
                    "rule {:?}: field `id` must not be empty",
                    r.name
                )));
            }
            let (ascii, other): (Vec<&String>, Vec<&String>) = r
                .words
                .iter()
                .filter(|w| !w.trim().is_empty())
                .partition(|w| w.is_ascii());
            let ascii = if ascii.is_empty() {
                None
            } else {
                let alt: Vec<String> = ascii.iter().map(|w| regex::escape(w.trim())).collect();
                // `\b` only where the word starts or ends with a word character ("Mr." ends in
                // a dot, after which there is no boundary to find).
                // A plural is the same word ("idiots", "ministers").
                let re = format!(r"(?i)(?:^|\b|\W)(?:{})(?:s|es)?(?:\b|\W|$)", alt.join("|"));
                Some(
                    Regex::new(&re)
                        .map_err(|e| err(format!("rule {}: field `words`: {e}", r.id)))?,
                )
            };
            let other = other
                .iter()
                .map(|w| normalize(w.trim()).chars().collect())
                .collect();
            let patterns = r
                .patterns
                .iter()
                .map(|p| {
                    Regex::new(p)
                        .map_err(|e| err(format!("rule {}: field `patterns`: {p:?}: {e}", r.id)))
                })
                .collect::<Result<_, _>>()?;
            rules.push(NgRule {
                id: r.id,
                name: r.name,
                description: r.description,
                ascii,
                other,
                patterns,
                sense: Sense::new(&r.together, &r.ordinary, &r.unless),
            });
        }
        let listed = rules
            .iter()
            .map(|r| (r.id.clone(), format!("{} — {}", r.name, r.description)))
            .collect();
        Ok(Self { rules, listed })
    }

    /// The rules, in file order.
    pub fn rules(&self) -> &[NgRule] {
        &self.rules
    }

    /// (id, "name — description") per rule, in file order: the rules as a mind reads them in
    /// a draft's or a review's ask. Built once, as a thousand residents ask with them.
    pub fn listed(&self) -> &[(String, String)] {
        &self.listed
    }

    /// Every rule `text` breaks, first match per rule, in file order.
    pub fn check(&self, text: &str) -> Vec<Hit> {
        self.rules
            .iter()
            .filter_map(|r| r.first_match(text))
            .collect()
    }

    /// Hits of only the rules in `ids`.
    pub fn check_only(&self, text: &str, ids: &[String]) -> Vec<Hit> {
        self.rules
            .iter()
            .filter(|r| ids.contains(&r.id))
            .filter_map(|r| r.first_match(text))
            .collect()
    }

    /// `text` with every match of the rules in `ids` replaced by `with` (the reporter strips
    /// names this way).
    pub fn strip(&self, text: &str, ids: &[&str], with: &str) -> String {
        let mut out = text.to_string();
        for r in self.rules.iter().filter(|r| ids.contains(&r.id.as_str())) {
            for p in &r.patterns {
                out = p.replace_all(&out, with).into_owned();
            }
        }
        out
    }
}

impl NgRule {
    fn first_match(&self, text: &str) -> Option<Hit> {
        let hit = |m: &str| Hit {
            rule: self.id.clone(),
            name: self.name.clone(),
            matched: m.trim_matches(|c: char| !c.is_alphanumeric()).to_string(),
        };
        let masked = self.sense.masked(text);
        let words: String = masked.iter().collect();
        if let Some(m) = self.ascii.as_ref().and_then(|re| re.find(&words)) {
            return Some(hit(m.as_str()));
        }
        if let Some(w) = self.other.iter().find(|w| Sense::contains(&masked, w)) {
            return Some(hit(&w.iter().collect::<String>()));
        }
        if let Some(m) = self.patterns.iter().find_map(|p| p.find(text)) {
            return Some(hit(m.as_str()));
        }
        self.sense.first_match(&masked).map(|m| hit(&m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(text: &str) -> Vec<String> {
        let rules = NgRules::builtin().unwrap();
        rules.check(text).into_iter().map(|h| h.rule).collect()
    }

    #[test]
    fn the_six_classes_in_both_languages() {
        let cases: &[(&str, &str)] = &[
            ("Mr. Tanaka told me about the bakery", "NG1"),
            ("Had lunch with Tanaka by the river today", "NG1"),
            ("昨日、田中さんと駅前でお茶した", "NG1"),
            ("田中氏が新しい店を開いた", "NG1"),
            ("The president gave a speech today", "NG2"),
            ("首相の会見を見た", "NG2"),
            ("Everyone should vote for the green list", "NG3"),
            ("宗教の勧誘が来た", "NG3"),
            ("the suspect ran away", "NG4"),
            ("事件の被害者が", "NG4"),
            ("you are an idiot", "NG5"),
            ("ほんとバカみたい", "NG5"),
            ("worst day ever, total despair", "NG6"),
            ("もう絶望しかない", "NG6"),
        ];
        for (text, rule) in cases {
            assert!(
                ids(text).contains(&rule.to_string()),
                "{text}: {:?}",
                ids(text)
            );
        }
    }

    #[test]
    fn everyday_posts_pass_and_words_are_whole() {
        for text in [
            "Repotted the basil this morning, it smells wonderful",
            "近所の花屋さんでチューリップを買った🌱",
            "Learning to administer a tiny home server",
            "夕焼けがきれいな気がする",
        ] {
            assert!(ids(text).is_empty(), "{text}: {:?}", ids(text));
        }
    }

    /// Each text breaks the rule given (among others), or none at all.
    fn expect(cases: &[(&str, Option<&str>)]) {
        for (text, want) in cases {
            let got = ids(text);
            match want {
                Some(rule) => assert!(got.contains(&rule.to_string()), "{text}: {got:?}"),
                None => assert!(got.is_empty(), "{text}: {got:?}"),
            }
        }
    }

    #[test]
    fn meaning_is_read_from_words_together_and_ordinary_senses_pass() {
        let cases: &[(&str, Option<&str>)] = &[
            ("Foreigners are all thieves", Some("NG5")),
            ("お前みたいなデブは来るな", Some("NG5")),
            ("The mayor's speech was dull", Some("NG2")),
            ("The driver who robbed the bank was arrested", Some("NG4")),
            ("Our club president baked a cake", None),
            ("Break a leg at the recital tonight!", None),
            ("バカンスの予定を立てた", None),
            ("Knitting an ugly sweater for the contest", None),
        ];
        expect(cases);
    }

    /// A story's crime and a club's election are outside NG4 and NG3; the same words about
    /// the town are not. Full names are read from a given name, or a surname and an honorific.
    #[test]
    fn context_and_names() {
        let cases: &[(&str, Option<&str>)] = &[
            (
                "Our book club is reading a mystery about a stolen painting",
                None,
            ),
            ("推理小説の犯人、最後まで分からなかった", None),
            ("Someone's bike was stolen outside the library", Some("NG4")),
            ("園芸クラブの会計係を選挙で決めた", None),
            ("選挙では現職に入れよう", Some("NG3")),
            ("Bumped into Dave Morrison at the bakery", Some("NG1")),
            ("息子のクラスの鈴木ゆいちゃん、優勝したって", Some("NG1")),
            ("Walked along Elm Street to the market", None),
            // A plural is the same word.
            ("The people on that street are idiots", Some("NG5")),
            ("うちの猫の名前総選挙、もちが圧勝", None),
        ];
        expect(cases);
    }

    /// A family pinned down by its house, a famous name with its work, worship invited, a
    /// policy urged; and the figures of speech that share their words.
    #[test]
    fn places_names_and_figures_of_speech() {
        let cases: &[(&str, Option<&str>)] = &[
            (
                "Anyone notice the Hendersons in the blue house never mow their lawn?",
                Some("NG1"),
            ),
            ("The Beatles on the radio made my morning", None),
            (
                "公園の前の白い家のおじいさん、娘さんが出てってから一人暮らしみたい",
                Some("NG1"),
            ),
            ("村上春樹の新刊買った！", Some("NG2")),
            ("Whiskers has declared himself mayor of Elm Street", None),
            ("The mayor should resign", Some("NG2")),
            ("日曜の礼拝、どなたでも歓迎です", Some("NG3")),
            ("消費税なんてゼロにすべき", Some("NG3")),
            (
                "Saw two cars smash into each other at the roundabout",
                Some("NG4"),
            ),
            ("冷蔵庫のプリン、泥棒みたいにこっそり食べた", None),
            ("Teenagers these days are all lazy", Some("NG5")),
            ("Everything I plant dies. Why bother.", Some("NG6")),
            ("Why bother with an umbrella when it's this sunny!", None),
            ("年末の大掃除、物置が地獄だった…でもスッキリ", None),
        ];
        expect(cases);
    }

    #[test]
    fn bad_rules_name_the_rule_and_field() {
        let e = NgRules::parse(
            "rules:\n  - id: X\n    name: x\n    patterns: ['(']\n",
            "f.yaml",
        )
        .unwrap_err();
        assert!(e.to_string().contains("rule X: field `patterns`"), "{e}");
        let stripped =
            NgRules::builtin()
                .unwrap()
                .strip("Mr. Smith opened a cafe", &["NG1"], "someone");
        assert_eq!(stripped, "someone opened a cafe");
    }
}
