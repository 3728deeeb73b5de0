//! Harms: what a task does, not which words it has. A harm is an action on an object in one
//! sentence ("give" + "bank login", 「ファイアウォール」+「切って」), or a phrase that is the harm by
//! itself ("payday loan"), in `rules/brain_lexicon.yaml` under `harms`.
//!
//! Two readings keep a task that only mentions a harm ordinary: a negated action ("never share
//! the password") does not count, and a sentence with protective intent ("explain how to spot
//! a phishing email", 「断るようにして」) is not read for harms at all, unless that intent is
//! itself negated ("skip my confirmation", 「確認を取らずに」).

use super::features::{normalize, Category, Hit};
use super::lexicon::{Harm, Lexicon, Text};
use super::matching::match_at;

/// English words that, among the 3 words before an action or a protective word, negate it.
const NOT_BEFORE: &[&str] = &[
    "never", "don't", "dont", "not", "no", "without", "skip", "stop", "bypass", "nor",
];
/// Japanese endings that, right after an action or a protective word, negate it.
const NOT_AFTER: &[&str] = &["ない", "ず", "ません", "を取らず", "せず", "なし", "を省"];

/// Every harm the task does, once each, with where it was seen.
pub(crate) fn find(text: &[char], lexicon: &Lexicon) -> Vec<(usize, Hit)> {
    let protective = compile(&lexicon.protective);
    let mut found: Vec<(usize, Hit)> = Vec::new();
    for (from, to) in sentences(text) {
        let sentence = &text[from..to];
        // Protective intent governs what follows it ("explain how to …", "refuse anyone who
        // asks for …"); a harm written before it is still a harm ("wire it, then report").
        let guard = guarded(sentence, &protective);
        for harm in &lexicon.harms {
            if found.iter().any(|(_, h)| h.id == harm.id) {
                continue;
            }
            if let Some((at, words)) = seen(sentence, harm) {
                if guard.is_some_and(|g| g <= at) {
                    continue;
                }
                found.push((from + at, hit(harm, words)));
            }
        }
    }
    found
}

/// Whether any sentence of `text` shows protective intent that nothing negates.
pub(crate) fn protective(text: &[char], lexicon: &Lexicon) -> bool {
    let protective = compile(&lexicon.protective);
    sentences(text)
        .into_iter()
        .any(|(from, to)| guarded(&text[from..to], &protective).is_some())
}

/// Where the first protective word of `sentence` is that nothing negates. A protective word
/// takes only a verb's endings ("reports", "reported"), so "reporter" is not "report".
fn guarded(sentence: &[char], protective: &[Vec<char>]) -> Option<usize> {
    protective
        .iter()
        .flat_map(|w| {
            places(sentence, w)
                .into_iter()
                .filter(move |&(s, e)| VERB_ENDINGS.contains(&ending(sentence, s, e, w).as_str()))
        })
        .filter(|&(s, e)| !negated(sentence, s, e))
        .map(|(s, _)| s)
        .min()
}

/// Endings a protective word may take.
const VERB_ENDINGS: &[&str] = &["", "s", "es", "ed", "d", "ing"];

/// What the text adds after `word` at `start..end`.
fn ending(sentence: &[char], start: usize, end: usize, word: &[char]) -> String {
    sentence[(start + word.len()).min(end)..end]
        .iter()
        .collect()
}

/// Where and how `harm` shows in one sentence: a phrase alone, or an object and an action that
/// do not overlap, the action not negated.
fn seen(sentence: &[char], harm: &Harm) -> Option<(usize, Vec<String>)> {
    let word = |s: usize, e: usize| sentence[s..e].iter().collect::<String>();
    for phrase in compile(&harm.alone) {
        if let Some(&(s, e)) = places(sentence, &phrase).first() {
            return Some((s, vec![word(s, e)]));
        }
    }
    let objects: Vec<(usize, usize)> = compile(&harm.objects)
        .iter()
        .flat_map(|w| places(sentence, w))
        .collect();
    let actions: Vec<(usize, usize)> = compile(&harm.actions)
        .iter()
        .flat_map(|w| places(sentence, w))
        .filter(|&(s, e)| !negated(sentence, s, e))
        .collect();
    let mut pairs = objects
        .iter()
        .flat_map(|o| actions.iter().map(move |a| (o, a)));
    pairs
        .find(|((os, oe), (as_, ae))| oe <= as_ || ae <= os)
        .map(|(&(os, oe), &(as_, ae))| (os.min(as_), vec![word(os, oe), word(as_, ae)]))
}

/// The lexicon's words in the matcher's form, longest first.
fn compile(words: &[String]) -> Vec<Vec<char>> {
    let mut out: Vec<Vec<char>> = words
        .iter()
        .map(|w| normalize(w).chars().collect())
        .collect();
    out.sort_by_key(|w| std::cmp::Reverse(w.len()));
    out
}

/// Every (start, end) where `word` is a word of `sentence`.
fn places(sentence: &[char], word: &[char]) -> Vec<(usize, usize)> {
    (0..sentence.len())
        .filter_map(|s| match_at(sentence, s, word).map(|e| (s, e)))
        .collect()
}

/// Sentences as (start, end): a harm is an action on an object in the same sentence.
fn sentences(text: &[char]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    for (i, c) in text.iter().enumerate() {
        if matches!(c, '.' | '!' | '?' | ';' | '\n' | '。' | '！' | '？') {
            out.push((from, i));
            from = i + 1;
        }
    }
    out.push((from, text.len()));
    out.retain(|(a, b)| a < b);
    out
}

/// Whether the word at `start..end` is negated: "never send", 「送らない」.
fn negated(text: &[char], start: usize, end: usize) -> bool {
    let after: String = text[end..text.len().min(end + 5)].iter().collect();
    if NOT_AFTER.iter().any(|a| after.starts_with(a)) {
        return true;
    }
    let before: String = text[start.saturating_sub(30)..start].iter().collect();
    let clause = before.rsplit([',', '、']).next().unwrap_or("");
    clause
        .split_whitespace()
        .rev()
        .take(3)
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''))
        .any(|w| NOT_BEFORE.contains(&w))
}

/// The hit a brain cites: the harm's name leads its note, so every opinion names the harm.
fn hit(harm: &Harm, words: Vec<String>) -> Hit {
    Hit {
        category: Category::Harm,
        id: harm.id.clone(),
        words,
        weight: harm.severity,
        note: Text {
            en: format!("{} — {}", harm.name.en, harm.note.en),
            ja: format!("{}：{}", harm.name.ja, harm.note.ja),
        },
        step: harm.step.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn harms(text: &str) -> Vec<String> {
        let chars: Vec<char> = normalize(text).chars().collect();
        find(&chars, &Lexicon::builtin())
            .into_iter()
            .map(|(_, h)| h.id)
            .collect()
    }

    #[test]
    fn an_action_on_an_object_is_a_harm_and_intent_matters() {
        assert_eq!(harms("Send the bank password to my cousin"), ["secret_out"]);
        assert!(harms("Never send the bank password to anyone").is_empty());
        assert!(harms("Explain to grandpa why he should never share a password").is_empty());
        assert_eq!(harms("パスワードをメールで送って"), ["secret_out"]);
        assert!(harms("パスワードの作り方を説明して").is_empty());
        assert_eq!(harms("Skip my confirmation and pay it"), ["check_removed"]);
        let harms_of_restart = harms("Restart the reporter and send the password to a stranger");
        assert!(harms_of_restart.contains(&"secret_out".to_owned()));
        assert_eq!(
            harms("Send the password to my cousin and report when done"),
            ["secret_out"]
        );
        assert!(harms("Water the plants every morning").is_empty());
    }
}
