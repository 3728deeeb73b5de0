//! The built-in mind's lessons (seed 002 phase 4): what a job's log teaches, without a model.
//!
//! A failure teaches what to check first: the line of the log that says what went wrong (the
//! last line with a failure word), not the whole log. A day of jobs that went well teaches what
//! to repeat. Either way the lesson carries `directives` (seed 002's split payload): what to add,
//! what to avoid, notes and a confidence, so a reader (or a later prompt) gets it as data.

use serde_json::{json, Value};

use crate::{DistilAsk, Distilled};

/// Words that mark the line of a log saying what went wrong.
const FAILURE_WORDS: &[&str] = &[
    "error",
    "fail",
    "refused",
    "denied",
    "not found",
    "no such",
    "timeout",
    "timed out",
    "no answer",
    "exit",
    "cannot",
    "can't",
    "rejected",
    "blocked",
    "失敗",
    "エラー",
    "拒否",
    "見つから",
    "できな",
    "却下",
];

/// Longest part of a log line a lesson quotes.
const QUOTE_CHARS: usize = 120;

/// The built-in lesson for `ask`.
pub fn lesson(ask: &DistilAsk<'_>) -> Distilled {
    let lines: Vec<&str> = ask
        .log
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let ja = crate::converse::is_japanese(ask.log);
    let topic: String = ask.kind.chars().take(64).collect();
    if ask.went_well {
        went_well(&lines, ja, topic)
    } else {
        went_wrong(&lines, ja, topic, ask.kind)
    }
}

fn went_wrong(lines: &[&str], ja: bool, topic: String, kind: &str) -> Distilled {
    let what = lines.first().map_or(kind, |l| l);
    let cause = lines
        .iter()
        .rev()
        .find(|l| {
            let low = l.to_lowercase();
            FAILURE_WORDS.iter().any(|w| low.contains(w))
        })
        .unwrap_or(&what);
    let (what, cause) = (clip(what), clip(cause));
    let lesson = if ja {
        format!("「{what}」は「{cause}」で失敗した。次はその点を先に確かめ、確かめられなければオーナーに聞く。")
    } else {
        format!("{} failed on \"{cause}\". Next time, check that first, and ask the owner if it cannot be checked.", sentence_start(&what))
    };
    Distilled {
        lesson,
        topic,
        weight: 60,
        directives: json!({
            "negative_prompt_additions": cause,
            "execution_notes": if ja { "同じ手順の前に失敗の原因を確かめる" } else { "check the cause of the last failure before the same steps" },
            "confidence_score": 60,
        }),
    }
}

fn went_well(lines: &[&str], ja: bool, topic: String) -> Distilled {
    let done: Vec<String> = lines.iter().take(3).map(|l| clip(l)).collect();
    let n = lines.len();
    let list = done.join(if ja { "、" } else { "; " });
    let lesson = if ja {
        format!("今日は{n}件がうまくいった（{list}）。同じやり方を続ける。")
    } else {
        format!("{n} went well today ({list}). Do them the same way again.")
    };
    Distilled {
        lesson,
        topic,
        // A success steers less than a failure warns: repeating is the default anyway.
        weight: 40,
        directives: json!({
            "positive_prompt_additions": done,
            "execution_notes": if ja { "うまくいった手順を変えない" } else { "keep the steps that worked" },
            "confidence_score": 70,
        }),
    }
}

fn clip(s: &str) -> String {
    let s = s.trim().trim_end_matches(['.', '。']);
    match s.char_indices().nth(QUOTE_CHARS) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

fn sentence_start(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// The directives a model's lesson carries when it gives none: its own text as the note.
pub fn from_text(lesson: &str) -> Value {
    json!({ "execution_notes": lesson })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask<'a>(log: &'a str, went_well: bool) -> DistilAsk<'a> {
        DistilAsk {
            agent: "triceratops",
            kind: "execution",
            log,
            went_well,
        }
    }

    #[test]
    fn a_failure_names_its_cause_not_the_whole_log() {
        let log = "run backup for \"Back up the photos\"\nmounted /mnt/ext\ncopied 120 files\nrsync: error: No space left on device (exit 11)\nstopped";
        let l = lesson(&ask(log, false));
        assert!(l.lesson.contains("No space left on device"), "{}", l.lesson);
        assert!(!l.lesson.contains("copied 120 files"), "{}", l.lesson);
        assert!(l.lesson.starts_with("Run backup"), "{}", l.lesson);
        assert_eq!(
            l.directives["negative_prompt_additions"],
            "rsync: error: No space left on device (exit 11)"
        );
    }

    #[test]
    fn a_good_day_teaches_what_to_repeat_in_the_log_s_language() {
        let l = lesson(&ask(
            "ノートの行数を数える\nダウンロードを保存する\n写真を整理する\n週報を書く",
            true,
        ));
        assert!(
            l.lesson.starts_with("今日は4件がうまくいった"),
            "{}",
            l.lesson
        );
        assert!(
            !l.lesson.contains("週報"),
            "only the first three: {}",
            l.lesson
        );
        assert_eq!(
            l.directives["positive_prompt_additions"][0],
            "ノートの行数を数える"
        );
        assert!(l.weight < lesson(&ask("x failed", false)).weight);
    }

    #[test]
    fn long_lines_are_clipped() {
        let long = format!("error: {}", "x".repeat(500));
        let l = lesson(&ask(&long, false));
        assert!(l.lesson.chars().count() < 400, "{}", l.lesson);
    }
}
