//! Triceratops's announcement of a decision and the plan it records when no worker fits.
//!
//! Both are built from the counted opinions, so the owner reads the debate's own reasons and
//! conditions rather than a generic message; they work with any mind's opinions, not only ours.

use soul_kinds::{Announcement, BrainName, Opinion, Outcome, Task};

use super::voice::{name, report_step, vote_word};
use super::{clip, quote_title, Language};

/// Longest quote from one opinion in the announcement's reasons.
const QUOTE: usize = 400;

/// The announcement of `outcome`: a summary, each brain's reason, and the conditions the yes
/// voters attached.
pub fn announcement(
    task: &Task,
    outcome: Outcome,
    counted: &[(BrainName, Opinion)],
    language: Language,
) -> Announcement {
    let title = quote_title(&task.title);
    let yes = counted.iter().filter(|(_, o)| o.vote.is_yes()).count();
    let n = counted.len();
    let conditions = conditions(counted);
    let summary = match (language, outcome) {
        (Language::En, Outcome::Approved) => format!(
            "Decision: we will carry out \"{title}\" ({yes} of {n} brains in favour){}.",
            if conditions.is_empty() {
                ""
            } else {
                ", with the conditions listed below"
            }
        ),
        (Language::En, Outcome::Rejected) => {
            format!("Decision: we will not carry out \"{title}\" ({yes} of {n} brains in favour).")
        }
        (Language::Ja, Outcome::Approved) => format!(
            "決定：「{title}」を実行します（{n}名中{yes}名が賛成）。{}",
            if conditions.is_empty() {
                ""
            } else {
                "以下の条件を守って進めます。"
            }
        ),
        (Language::Ja, Outcome::Rejected) => {
            format!("決定：「{title}」は実行しません（{n}名中{yes}名が賛成）。")
        }
    };
    let mut reasons: Vec<String> = counted
        .iter()
        .map(|(brain, o)| {
            let said = clip(
                &o.opinion.split_whitespace().collect::<Vec<_>>().join(" "),
                QUOTE,
            );
            match language {
                Language::En => format!(
                    "{} ({}, confidence {:.2}): {said}",
                    name(*brain, language),
                    vote_word(o.vote, language),
                    o.confidence.clamp(0.0, 1.0)
                ),
                Language::Ja => format!(
                    "{}（{}、確信度{:.2}）：{said}",
                    name(*brain, language),
                    vote_word(o.vote, language),
                    o.confidence.clamp(0.0, 1.0)
                ),
            }
        })
        .collect();
    if outcome == Outcome::Approved {
        reasons.extend(conditions.iter().map(|(brain, c)| match language {
            Language::En => format!("Condition from {}: {c}", name(*brain, language)),
            Language::Ja => format!("{}からの条件：{c}", name(*brain, language)),
        }));
    }
    reasons.iter_mut().for_each(|r| *r = clip(r, 500));
    reasons.retain(|r| !r.trim().is_empty());
    reasons.truncate(32);
    Announcement {
        summary: clip(&summary, 4000),
        reasons,
    }
}

/// The concerns of the brains that voted yes, once each: what they made their yes depend on.
fn conditions(counted: &[(BrainName, Opinion)]) -> Vec<(BrainName, String)> {
    let mut out: Vec<(BrainName, String)> = Vec::new();
    for (brain, o) in counted.iter().filter(|(_, o)| o.vote.is_yes()) {
        for concern in &o.concerns {
            let concern = concern.trim();
            if !concern.is_empty() && !out.iter().any(|(_, c)| c == concern) {
                out.push((*brain, concern.to_owned()));
            }
        }
    }
    out
}

/// The plan triceratops records as the result when no worker fits: the yes voters' steps in
/// order, once each, then the concerns to check, then the report to the owner.
pub fn execution_plan(task: &Task, counted: &[(BrainName, Opinion)], language: Language) -> String {
    let title = quote_title(&task.title);
    // The executor's own steps first: it is the one carrying them out.
    let mut voters: Vec<&(BrainName, Opinion)> =
        counted.iter().filter(|(_, o)| o.vote.is_yes()).collect();
    voters.sort_by_key(|(b, _)| (*b != BrainName::Triceratops, *b));
    let report = report_step(&title, language);
    let mut steps: Vec<String> = Vec::new();
    for (_, o) in &voters {
        for step in steps_in(&o.proposed_approach) {
            if !steps.contains(&step) && step != report {
                steps.push(step);
            }
        }
    }
    steps.truncate(12);
    steps.push(report);
    let checks = conditions(counted);
    let mut out = match language {
        Language::En => format!("Plan for \"{title}\":"),
        Language::Ja => format!("「{title}」の実行計画："),
    };
    for (i, step) in steps.iter().enumerate() {
        out.push_str(&format!("\n{}. {}", i + 1, clip(step, 300)));
    }
    if !checks.is_empty() {
        out.push_str(match language {
            Language::En => "\nChecks before and during the work:",
            Language::Ja => "\n作業前・作業中の確認事項：",
        });
        for (brain, check) in checks.iter().take(12) {
            out.push_str(&format!(
                "\n- {} ({})",
                clip(check, 300),
                name(*brain, language)
            ));
        }
    }
    clip(&out, 4000)
}

/// The steps of a proposed approach: numbered or bulleted lines without their markers; headings
/// (lines ending in a colon) dropped; free text becomes one step.
fn steps_in(approach: &str) -> Vec<String> {
    approach
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.ends_with(':') && !l.ends_with('：'))
        .map(|l| {
            let l = l.trim_start_matches(|c: char| c.is_ascii_digit());
            let l = l.strip_prefix(['.', ')']).unwrap_or(l);
            let l = l.trim_start_matches(['-', '*', '・', ' ']);
            l.trim_end_matches(['.', '。']).trim().to_owned()
        })
        .filter(|l| !l.is_empty())
        .collect()
}
