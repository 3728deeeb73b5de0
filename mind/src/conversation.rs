//! A resident answering a note in a thread (seed 001): what was said, by whom, the earlier turns
//! and how much the resident likes the author. The built-in answer takes up a word of what was
//! said in the resident's own reply phrases; a model gets the whole thread.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::profile::{Language, Profile};
use crate::writer;

/// Most earlier turns an ask carries (oldest first).
pub const THREAD_TURNS: usize = 6;

/// A resident asked to answer a note.
pub struct ReplyAsk<'a> {
    /// The resident answering.
    pub agent: &'a str,
    /// Its profile.
    pub profile: &'a Profile,
    /// The author's name, as the resident calls them.
    pub to: &'a str,
    /// What the author said.
    pub said: &'a str,
    /// Earlier turns of the thread, oldest first: (who, what).
    pub thread: &'a [(String, String)],
    /// How deep the resident already is in this thread.
    pub depth: usize,
    /// How much the resident likes answering the author (0–1).
    pub affinity: f64,
    /// Seed for the built-in answer (from facts the relay holds, so replays agree).
    pub seed: u64,
    /// Whether a candidate answer may be posted (NG rules, the resident's avoided words).
    pub accept: &'a (dyn Fn(&str) -> bool + Send + Sync),
}

/// The built-in answer: the resident's reply phrase, taking up a word of what was said; `None`
/// when nothing it would say passes `accept`.
pub fn built_in(ask: &ReplyAsk<'_>) -> Option<String> {
    let mut rng = ChaCha8Rng::seed_from_u64(ask.seed);
    // A word the thread's replies already took up is not taken up again ("Everyday, yes." in
    // every turn), and no reply repeats one of the thread.
    let replies: Vec<String> = ask
        .thread
        .iter()
        .skip(1)
        .map(|(_, what)| what.to_lowercase())
        .collect();
    // What was said, without the echo of an earlier take-up ("Community, yes. …").
    let said = match ask.said.split_once(", yes. ") {
        Some((_, rest)) => rest,
        None => ask.said,
    };
    let word = keyword(said, ask.profile.language)
        .filter(|w| !replies.iter().any(|r| r.contains(&w.to_lowercase())));
    let mut last = None;
    for _ in 0..8 {
        let base = writer::reply(ask.profile, ask.to, ask.depth, &mut rng);
        let text = match &word {
            Some(word) => take_up(word, ask, &base),
            None => base,
        };
        if (ask.accept)(&text) {
            if !replies.contains(&text.to_lowercase()) && text != ask.said {
                return Some(text);
            }
            last = Some(text);
        }
    }
    last
}

/// The answer with the word it takes up in front, in the resident's language.
fn take_up(word: &str, ask: &ReplyAsk<'_>, base: &str) -> String {
    let question = ask.said.trim_end().ends_with(['?', '？']);
    match (ask.profile.language, question) {
        (Language::Ja, true) => format!("「{word}」のことですね。{base}"),
        (Language::Ja, false) => format!("{word}、いいですね。{base}"),
        (Language::En, true) => format!("About {word}? {base}"),
        (Language::En, false) => format!("{}, yes. {base}", capitalised(word)),
    }
}

fn capitalised(w: &str) -> String {
    let mut c = w.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// The word of `said` most worth taking up: the longest Japanese run of kanji or katakana (two
/// characters or more), or the longest English word of five letters or more that is not a
/// common one.
pub fn keyword(said: &str, language: Language) -> Option<String> {
    match language {
        Language::Ja => {
            let mut best = String::new();
            let mut run = String::new();
            for c in said.chars().chain(std::iter::once(' ')) {
                if matches!(c, '\u{4e00}'..='\u{9fff}' | '\u{30a0}'..='\u{30ff}') {
                    run.push(c);
                } else {
                    if run.chars().count() > best.chars().count() {
                        best = run.clone();
                    }
                    run.clear();
                }
            }
            (best.chars().count() >= 2).then_some(best)
        }
        // Latin words only: a Japanese clause is not an English keyword.
        Language::En => said
            .split(|c: char| !c.is_ascii_alphabetic())
            // Adverbs ("finally", "really") are how it was said, not what.
            .filter(|w| {
                w.len() >= 5 && !w.ends_with("ly") && !COMMON.contains(&w.to_lowercase().as_str())
            })
            .max_by_key(|w| w.len())
            .map(str::to_lowercase),
    }
}

const COMMON: &[&str] = &[
    "about", "after", "again", "there", "their", "these", "those", "which", "would", "could",
    "should", "today", "really", "think", "thing", "where", "while", "other", "being", "because",
    // Words of the reply lines and endings themselves: taking them up echoes the small talk.
    "point", "worth", "thanks", "reading", "later", "always", "happy", "right", "tell",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(language: Language) -> Profile {
        crate::conformance::resident_in(language)
    }

    fn ask<'a>(
        p: &'a Profile,
        said: &'a str,
        accept: &'a (dyn Fn(&str) -> bool + Send + Sync),
    ) -> ReplyAsk<'a> {
        ReplyAsk {
            agent: p.name.as_str(),
            profile: p,
            to: "ken",
            said,
            thread: &[],
            depth: 0,
            affinity: 0.8,
            seed: 7,
            accept,
        }
    }

    #[test]
    fn a_thread_does_not_echo_itself() {
        let en = profile(Language::En);
        let yes = |_: &str| true;
        let thread = vec![
            ("ivy".to_owned(), "Small joys of everyday life.".to_owned()),
            (
                "mia".to_owned(),
                "Everyday, yes. Ha, ivy, same here!!".to_owned(),
            ),
        ];
        let a = ReplyAsk {
            thread: &thread,
            depth: 1,
            ..ask(&en, "Everyday, yes. Ha, ivy, same here!!", &yes)
        };
        let said = built_in(&a).unwrap();
        assert!(!said.to_lowercase().contains("everyday"), "{said}");
        assert!(!thread.iter().any(|(_, t)| *t == said), "{said}");
    }

    #[test]
    fn an_answer_never_quotes_another_language() {
        let en = profile(Language::En);
        let yes = |_: &str| true;
        let a = built_in(&ask(&en, "帰りにご近所さんのやさしさのことも考えた", &yes)).unwrap();
        assert!(writer::written_in(&a, Language::En), "{a}");
    }

    #[test]
    fn an_answer_takes_up_what_was_said() {
        let en = profile(Language::En);
        let yes = |_: &str| true;
        let a = built_in(&ask(&en, "The tulips by the station finally opened!", &yes)).unwrap();
        assert!(
            a.starts_with("Station, yes.") || a.starts_with("Tulips, yes."),
            "{a}"
        );
        let ja = profile(Language::Ja);
        let a = built_in(&ask(&ja, "駅前の花壇にチューリップが咲いたよ？", &yes)).unwrap();
        assert!(a.starts_with("「チューリップ」のことですね。"), "{a}");
    }

    #[test]
    fn nothing_is_said_that_the_resident_must_not_say() {
        let en = profile(Language::En);
        let no = |_: &str| false;
        assert!(built_in(&ask(&en, "hello there", &no)).is_none());
    }
}
