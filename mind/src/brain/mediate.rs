//! After the vote: triceratops's mediation and the decision's one-line summary.
//!
//! Mediation only happens after three rounds without a 2/3 majority. Triceratops weighs the
//! others' last votes by their confidence and adds its own lean, so a confident minority can
//! outweigh a lukewarm majority, and an exact tie falls to caution when there is any risk.

use nostr::EventId;
use soul_kinds::{BrainName, Opinion, Outcome, Params, Tally, Task};

use super::features::Features;
use super::lean::lean;
use super::voice::{name, vote_word};
use super::{clip, quote_title, Language};

/// How much triceratops's own lean counts against one fully confident vote: a score of 0.5 is
/// worth one vote, because the mediator's reading is one view among three.
const OWN_WEIGHT: f64 = 2.0;

/// Triceratops decides a task the brains could not. Returns the outcome and the reason, in the
/// task's language.
pub fn mediate(
    task_id: EventId,
    task: &Task,
    features: &Features,
    params: &Params,
    opinions: &[(BrainName, Opinion)],
) -> (Outcome, String) {
    let language = features.language;
    let votes: f64 = opinions
        .iter()
        .map(|(_, o)| {
            let c = o.confidence.clamp(0.0, 1.0);
            if o.vote.is_yes() {
                c
            } else {
                -c
            }
        })
        .sum();
    // After three split rounds the mediator weighs every risk word at full weight, not as a
    // mention: a deadlock is where the concerns raised deserve the most attention. In a task
    // the owner confirmed, the risks are the owner's informed choice and stay conditions.
    let reading = Features {
        harm: if features.owner_confirmed {
            features.harm
        } else {
            features.harm.max(features.risk)
        },
        protective: false,
        surely_ordinary: false,
        ..features.clone()
    };
    let own = lean(BrainName::Triceratops, params, task_id, &reading).score * OWN_WEIGHT;
    let balance = votes + own;
    let outcome = if balance > 1e-9 || (balance.abs() <= 1e-9 && features.risk == 0.0) {
        Outcome::Approved
    } else {
        Outcome::Rejected
    };
    let listed: Vec<String> = opinions
        .iter()
        .map(|(b, o)| {
            format!(
                "{} {} ({:.2})",
                name(*b, language),
                vote_word(o.vote, language),
                o.confidence.clamp(0.0, 1.0)
            )
        })
        .collect();
    let title = quote_title(&task.title);
    let reason =
        match (language, outcome) {
            (Language::En, _) => {
                format!(
            "No 2/3 majority after three rounds on \"{title}\". Last votes: {}. Weighted by \
             confidence they come to {votes:+.2}; my own reading (risk {:.2}, opportunity {:.2}, \
             safety {:.2}) adds {own:+.2}. On balance I decide: {}.",
            if listed.is_empty() { "none".to_owned() } else { listed.join(", ") },
            features.risk,
            features.opportunity,
            features.safety,
            match outcome {
                Outcome::Approved => "approved, with the concerns raised as conditions",
                Outcome::Rejected => "rejected, until the risks are addressed",
            }
        )
            }
            (Language::Ja, _) => {
                format!(
            "「{title}」は3ラウンドを経ても2/3の合意に至りませんでした。最終の投票は{}です。\
             確信度で重み付けすると{votes:+.2}、私自身の見立て（危険{:.2}、機会{:.2}、安全{:.2}）\
             は{own:+.2}です。総合して{}と判断します。",
            if listed.is_empty() { "なし".to_owned() } else { listed.join("、") },
            features.risk,
            features.opportunity,
            features.safety,
            match outcome {
                Outcome::Approved => "承認し、出された懸念を条件とする",
                Outcome::Rejected => "危険が解消されるまで却下する",
            }
        )
            }
        };
    (outcome, clip(&reason, 4000))
}

/// The decision's summary, for the decision event and the owner.
pub fn decision_summary(
    task: &Task,
    outcome: Outcome,
    tally: Tally,
    mediated: bool,
    language: Language,
) -> String {
    let title = quote_title(&task.title);
    let (yes, no) = (tally.yes, tally.reject);
    let text = match (language, outcome, mediated) {
        (Language::En, Outcome::Approved, false) => {
            format!("Approved \"{title}\" with {yes} yes and {no} reject.")
        }
        (Language::En, Outcome::Rejected, false) => {
            format!("Rejected \"{title}\" with {yes} yes and {no} reject.")
        }
        (Language::En, outcome, true) => format!(
            "No 2/3 majority after three rounds ({yes} yes, {no} reject); triceratops mediated \
             and {} \"{title}\".",
            outcome.as_str()
        ),
        (Language::Ja, Outcome::Approved, false) => {
            format!("「{title}」を賛成{yes}・反対{no}で承認しました。")
        }
        (Language::Ja, Outcome::Rejected, false) => {
            format!("「{title}」を賛成{yes}・反対{no}で却下しました。")
        }
        (Language::Ja, outcome, true) => format!(
            "3ラウンドで2/3の合意に至らず（賛成{yes}・反対{no}）、トリケラトプスの調停により\
             「{title}」を{}しました。",
            match outcome {
                Outcome::Approved => "承認",
                Outcome::Rejected => "却下",
            }
        ),
    };
    clip(&text, 4000)
}
