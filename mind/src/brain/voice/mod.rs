//! How each brain talks, per language: phrase tables with `{placeholders}`.
//!
//! Each slot has several phrasings; the seeded generator picks one, so two tasks rarely read
//! alike while one task always reads the same. Panda is careful and polite, gorilla energetic and
//! growth-minded, triceratops calm and balancing.

mod en;
mod ja;

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use soul_kinds::{BrainName, Vote};

use super::Language;

/// Phrase tables of one brain in one language.
pub(crate) struct Voice {
    /// Opening, `{title}`.
    pub open: &'static [&'static str],
    /// The risks seen, `{terms}` `{note}`.
    pub risks: &'static [&'static str],
    /// No risk seen.
    pub no_risk: &'static [&'static str],
    /// The gains seen, `{terms}` `{note}`.
    pub gains: &'static [&'static str],
    /// The safeguards already in the task, `{terms}` `{note}`.
    pub safety: &'static [&'static str],
    /// Time pressure, `{terms}` `{note}`.
    pub rush: &'static [&'static str],
    /// Closing for approve.
    pub approve: &'static [&'static str],
    /// Closing for approve with modification.
    pub modify: &'static [&'static str],
    /// Closing for reject.
    pub reject: &'static [&'static str],
    /// Changed its mind in a later round, `{who}` `{point}` `{stance}`.
    pub changed: &'static [&'static str],
    /// Kept its side against the others, `{who}` `{stance}`.
    pub held: &'static [&'static str],
    /// Agrees with the others after reading them, `{who}` `{stance}`.
    pub agreed: &'static [&'static str],
    /// A karma lesson that applies, `{lesson}`.
    pub lesson: &'static [&'static str],
}

/// The phrase tables of `brain` in `language`.
pub(crate) fn voice(brain: BrainName, language: Language) -> &'static Voice {
    match (language, brain) {
        (Language::En, BrainName::Panda) => &en::PANDA,
        (Language::En, BrainName::Gorilla) => &en::GORILLA,
        (Language::En, BrainName::Triceratops) => &en::TRICERATOPS,
        (Language::Ja, BrainName::Panda) => &ja::PANDA,
        (Language::Ja, BrainName::Gorilla) => &ja::GORILLA,
        (Language::Ja, BrainName::Triceratops) => &ja::TRICERATOPS,
    }
}

/// One phrasing, chosen by `rng`.
pub(crate) fn pick(rng: &mut ChaCha8Rng, options: &[&'static str]) -> &'static str {
    match options.len() {
        0 => "",
        n => options[rng.random_range(0..n)],
    }
}

/// `template` with every `{key}` replaced, and its first letter capitalised.
pub(crate) fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = template.to_owned();
    for (key, value) in values {
        out = out.replace(&format!("{{{key}}}"), value);
    }
    let mut chars = out.chars();
    match chars.next() {
        Some(first) if first.is_ascii_lowercase() => {
            first.to_ascii_uppercase().to_string() + chars.as_str()
        }
        _ => out,
    }
}

/// A brain's name as its fellows write it.
pub(crate) fn name(brain: BrainName, language: Language) -> &'static str {
    match (language, brain) {
        (Language::En, b) => b.as_str(),
        (Language::Ja, BrainName::Panda) => "パンダ",
        (Language::Ja, BrainName::Gorilla) => "ゴリラ",
        (Language::Ja, BrainName::Triceratops) => "トリケラトプス",
    }
}

/// The names joined: "panda and gorilla", 「パンダとゴリラ」.
pub(crate) fn names(brains: &[BrainName], language: Language) -> String {
    let names: Vec<&str> = brains.iter().map(|b| name(*b, language)).collect();
    match language {
        Language::Ja => names.join("と"),
        Language::En => match names.as_slice() {
            [init @ .., last] if !init.is_empty() => format!("{} and {last}", init.join(", ")),
            _ => names.concat(),
        },
    }
}

/// What a vote means, to follow "I now …" / 「今は…」.
pub(crate) fn stance(vote: Vote, language: Language) -> &'static str {
    match (language, vote) {
        (Language::En, Vote::Approve) => "support it",
        (Language::En, Vote::ApproveWithModification) => "support it with conditions",
        (Language::En, Vote::Reject) => "oppose it",
        (Language::Ja, Vote::Approve) => "賛成です",
        (Language::Ja, Vote::ApproveWithModification) => "条件付きで賛成です",
        (Language::Ja, Vote::Reject) => "反対です",
    }
}

/// The vote as a word for summaries.
pub(crate) fn vote_word(vote: Vote, language: Language) -> &'static str {
    match (language, vote) {
        (Language::En, Vote::Approve) => "approve",
        (Language::En, Vote::ApproveWithModification) => "approve with modification",
        (Language::En, Vote::Reject) => "reject",
        (Language::Ja, Vote::Approve) => "賛成",
        (Language::Ja, Vote::ApproveWithModification) => "条件付き賛成",
        (Language::Ja, Vote::Reject) => "反対",
    }
}

/// The heading of a proposed approach.
pub(crate) fn approach_intro(vote: Vote, language: Language) -> &'static str {
    match (language, vote) {
        (Language::En, Vote::Approve) => "How to do it:",
        (Language::En, Vote::ApproveWithModification) => "Go ahead with these conditions:",
        (Language::En, Vote::Reject) => "What would make it acceptable:",
        (Language::Ja, Vote::Approve) => "進め方：",
        (Language::Ja, Vote::ApproveWithModification) => "次の条件付きで進めます：",
        (Language::Ja, Vote::Reject) => "受け入れられる形にするには：",
    }
}

/// The last step of every plan: do it and tell the owner.
pub(crate) fn report_step(title: &str, language: Language) -> String {
    match language {
        Language::En => format!("carry out \"{title}\" and report the result to the owner"),
        Language::Ja => format!("「{title}」を実行し、結果をオーナーに報告する"),
    }
}

/// A sentence from a lexicon note: ends with a full stop in the language's style.
pub(crate) fn end(text: &str, language: Language) -> String {
    let text = text.trim_end_matches(['.', '。', '!', '！']);
    match language {
        Language::En => format!("{text}."),
        Language::Ja => format!("{text}。"),
    }
}

/// Sentences joined in the language's style (Japanese has no spaces between sentences).
pub(crate) fn join(sentences: &[String], language: Language) -> String {
    let sep = match language {
        Language::En => " ",
        Language::Ja => "",
    };
    sentences
        .iter()
        .filter(|s| !s.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join(sep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_slot_has_several_phrasings_in_every_voice() {
        for language in [Language::En, Language::Ja] {
            for &brain in BrainName::ALL {
                let v = voice(brain, language);
                let slots = [
                    v.open, v.risks, v.no_risk, v.gains, v.safety, v.rush, v.approve, v.modify,
                    v.reject, v.changed, v.held, v.agreed, v.lesson,
                ];
                for slot in slots {
                    assert!(slot.len() >= 2, "{brain} {language:?}");
                }
                assert!(v
                    .changed
                    .iter()
                    .all(|t| t.contains("{who}") && t.contains("{point}")));
            }
        }
    }

    #[test]
    fn fill_replaces_and_capitalises() {
        let s = fill(
            "{who}'s point about {point}",
            &[("who", "panda"), ("point", "x")],
        );
        assert_eq!(s, "Panda's point about x");
        assert_eq!(
            names(&[BrainName::Panda, BrainName::Gorilla], Language::Ja),
            "パンダとゴリラ"
        );
    }
}
