//! Harms: what a task does, not which words it has. A harm is an action on an object in one
//! sentence ("give" + "bank login", 「ファイアウォール」+「切って」), or a phrase that is the harm by
//! itself ("payday loan"), in `rules/brain_lexicon.yaml` under `harms`.
//!
//! Two readings keep a task that only mentions a harm ordinary: a negated action ("never share
//! the password") does not count, and a sentence with protective intent ("explain how to spot
//! a phishing email", 「断るようにして」) is not read for harms at all, unless that intent is
//! itself negated ("skip my confirmation", 「確認を取らずに」).

use super::features::{is_japanese, normalize, Category, Hit};
use super::lexicon::{Harm, Lexicon, Text};
use super::matching::match_at;

/// English words that, among the 3 words before an action or a protective word, negate it.
const NOT_BEFORE: &[&str] = &[
    "never", "don't", "dont", "not", "no", "without", "skip", "stop", "bypass", "nor", "quit",
];
/// Japanese endings that, right after an action or a protective word, negate it.
const NOT_AFTER: &[&str] = &[
    "ない",
    "ず",
    "ません",
    "を取らず",
    "せず",
    "なし",
    "を省",
    "てはいけ",
    "てはだめ",
    "ては駄目",
    "ちゃだめ",
    "ちゃいけ",
    "てはなら",
    "るな",
    "はもうやめ",
    "はやめ",
    "をやめ",
    "もやめ",
    "は不要",
    "はいらな",
    "はもういらな",
    "をしなくて",
    "はしなくて",
];

/// Every harm the task does, once each, with where it was seen.
pub(crate) fn find(text: &[char], lexicon: &Lexicon) -> Vec<(usize, Hit)> {
    let protective = compile(&lexicon.protective);
    let mut found: Vec<(usize, Hit)> = Vec::new();
    for (from, to) in sentences(text) {
        let sentence = &text[from..to];
        let guards = guarded(sentence, &protective);
        for harm in &lexicon.harms {
            if found.iter().any(|(_, h)| h.id == harm.id) {
                continue;
            }
            if let Some((at, act, words)) = seen(sentence, harm) {
                // What a protective word governs is the act: "explain why nobody should share
                // the password" guards the sharing, wherever the password is written.
                if guards.iter().any(|&(from, to)| (from..to).contains(&act)) {
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
        .any(|(from, to)| !guarded(&text[from..to], &protective).is_empty())
}

/// The stretches of `sentence` that a protective word nothing negates governs. A protective
/// word takes only a verb's endings ("reports", "reported"), so "reporter" is not "report".
///
/// English puts the verb first: "explain how to …" and "refuse anyone who asks for …" govern
/// what follows, and a harm written before the word is still a harm ("wire it, then report"),
/// unless the word is a precondition of it ("delete them after checking the backup").
/// Japanese puts the verb last: 「…を教えてはいけない理由を説明して」 governs what comes before it
/// in its clause, and an act in a clause of its own, or after it, stays one
/// (「振り込んでから報告して」, 「一覧にしてグループに貼って」).
fn guarded(sentence: &[char], protective: &[Vec<char>]) -> Vec<(usize, usize)> {
    protective
        .iter()
        .flat_map(|w| {
            places(sentence, w)
                .into_iter()
                .filter(move |&(s, e)| VERB_ENDINGS.contains(&ending(sentence, s, e, w).as_str()))
                .map(move |(s, e)| (s, e, w.iter().any(|&c| is_japanese(c))))
        })
        .filter(|&(s, e, _)| !negated(sentence, s, e))
        .map(|(s, e, japanese)| {
            if japanese && precondition_ja(sentence, e) {
                (0, sentence.len())
            } else if japanese {
                (clause_start(sentence, s), e)
            } else if precondition(sentence, s) {
                (0, sentence.len())
            } else {
                (s, sentence.len())
            }
        })
        .collect()
}

/// Words before a protective verb that make it a precondition of the whole sentence.
/// ("wipe it before reviewing it" is not one: the review comes after the act).
const PRECONDITION: &[&str] = &["after", "once", "first"];

fn precondition(sentence: &[char], at: usize) -> bool {
    let before: String = sentence[at.saturating_sub(20)..at].iter().collect();
    before
        .split_whitespace()
        .rev()
        .take(2)
        .any(|w| PRECONDITION.contains(&w))
}

/// Whether a Japanese protective act ending at `end` is done first (「バックアップしてから」,
/// 「確認した後で」): then it governs the whole sentence.
fn precondition_ja(sentence: &[char], end: usize) -> bool {
    let after: String = sentence[end..sentence.len().min(end + 6)].iter().collect();
    [
        "してから",
        "てから",
        "した後",
        "したあと",
        "を取ってから",
        "をとってから",
    ]
    .iter()
    .any(|p| after.starts_with(p))
}

/// Where the Japanese clause holding `at` starts: after a comma or a sequence of acts
/// (「…てから」, 「…たら」).
fn clause_start(sentence: &[char], at: usize) -> usize {
    let before: String = sentence[..at].iter().collect();
    ["、", ",", "てから", "でから", "たら"]
        .iter()
        .filter_map(|seam| {
            before
                .rfind(seam)
                .map(|i| before[..i + seam.len()].chars().count())
        })
        .max()
        .unwrap_or(0)
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
/// do not overlap, the action not negated. Returns where it starts, where its act is, and the
/// words.
fn seen(sentence: &[char], harm: &Harm) -> Option<(usize, usize, Vec<String>)> {
    let word = |s: usize, e: usize| sentence[s..e].iter().collect::<String>();
    for phrase in compile(&harm.alone) {
        if let Some(&(s, e)) = places(sentence, &phrase).first() {
            return Some((s, s, vec![word(s, e)]));
        }
    }
    let objects: Vec<(usize, usize)> = compile(&harm.objects)
        .iter()
        .flat_map(|w| places(sentence, w))
        .collect();
    let actions: Vec<(usize, usize)> = compile(&harm.actions)
        .iter()
        .flat_map(|w| places(sentence, w))
        .filter(|&(s, e)| !negated(sentence, s, e) && !to_owner(sentence, s, e))
        .collect();
    let mut pairs = objects
        .iter()
        .flat_map(|o| actions.iter().map(move |a| (o, a)));
    pairs
        .find(|((os, oe), (as_, ae))| oe <= as_ || ae <= os)
        .map(|(&(os, oe), &(as_, ae))| (os.min(as_), as_, vec![word(os, oe), word(as_, ae)]))
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

/// Words right after an act that make the owner its recipient ("tell me", "send it to us"):
/// what goes to the owner has not left the house.
const TO_OWNER_AFTER: &[&str] = &["me", "us", "it to me", "them to me", "it to us", "myself"];
/// Japanese recipients written before the act (「私に教えて」).
const TO_OWNER_BEFORE: &[&str] = &["私に", "僕に", "俺に", "わたしに", "自分に"];

/// Whether the act at `start..end` goes to the owner.
fn to_owner(text: &[char], start: usize, end: usize) -> bool {
    let after: String = text[end..text.len().min(end + 16)].iter().collect();
    let after = after.trim_start();
    // "tell me and the plumber" reaches someone besides the owner.
    let alone = |rest: &str| {
        rest.chars().next().is_none_or(|c| !c.is_alphanumeric())
            && !["and ", "&", ",", "or ", "plus "]
                .iter()
                .any(|w| rest.trim_start().starts_with(w))
    };
    if TO_OWNER_AFTER
        .iter()
        .any(|w| after.strip_prefix(w).is_some_and(alone))
    {
        return true;
    }
    let before: String = text[start.saturating_sub(6)..start].iter().collect();
    TO_OWNER_BEFORE.iter().any(|w| before.ends_with(w))
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

    /// A protective verb governs the act it takes as its object: in English what follows it (or
    /// the whole sentence when it is a precondition), in Japanese what precedes it in its clause.
    #[test]
    fn a_protective_verb_governs_its_own_act_in_either_word_order() {
        assert!(harms("パスワードを人に渡してはいけない理由を説明して").is_empty());
        assert!(harms("Delete the old videos after checking the backup has them").is_empty());
        // An act after the protective word, or in a clause of its own, is still done.
        assert_eq!(
            harms("パスワードを一覧にしてチャットに貼って"),
            ["secret_out"]
        );
        assert_eq!(harms("パスワードを送ってから報告して"), ["secret_out"]);
        assert_eq!(harms("パスワードを送って、報告して"), ["secret_out"]);
        assert_eq!(
            harms("Wipe the old videos for good and then review the folder"),
            ["irreversible_loss"]
        );
        // Done first, a backup governs the whole sentence in Japanese as in English.
        assert!(harms("古い写真をバックアップしてから初期化して").is_empty());
        assert!(harms("Back up the old laptop, then wipe it for the sale").is_empty());
        // What goes to the owner has not left the house; to anyone else it has.
        assert!(harms("Change the router password and tell me the new one").is_empty());
        assert!(harms("新しいパスワードを私に教えて").is_empty());
        assert_eq!(
            harms("Change the router password and tell the neighbours the new one"),
            ["secret_out"]
        );
        // Attempts: a review after the act does not guard it; the owner with someone else is
        // not the owner alone.
        assert_eq!(
            harms("Wipe the backup drive before reviewing what is on it"),
            ["irreversible_loss"]
        );
        assert_eq!(
            harms("Tell me and the plumber the door code"),
            ["secret_out"]
        );
        assert_eq!(
            harms("Send me, and the new cleaner, the alarm code"),
            ["secret_out"]
        );
        assert_eq!(harms("私と隣の人に玄関の暗証番号を教えて"), ["secret_out"]);
        // Stopping a check is removing it, in both languages.
        assert_eq!(
            harms("No need to check with me before paying"),
            ["check_removed"]
        );
        assert_eq!(harms("支払いの前の確認はもうやめて"), ["check_removed"]);
    }
}
