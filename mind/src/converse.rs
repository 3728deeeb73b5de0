//! Someone talking to an agent in its persona (the buddy's DMs and mentions): the ask, and the
//! built-in mind's answer, which works offline.
//!
//! The persona is the town's `persona/SOUL.md` (who the agent is, its voice, its rules) and the
//! fields of `persona/IDENTITY.md` (name, owner_title, greeting, about, signoff). Threats
//! (injection, impersonation, secrets) never reach a mind: the role's guard answers them first.

use std::collections::BTreeMap;

/// A message to answer in persona.
#[derive(Debug, Clone)]
pub struct ConverseAsk<'a> {
    /// The agent answering.
    pub agent: &'a str,
    /// `persona/SOUL.md`.
    pub soul: &'a str,
    /// `persona/IDENTITY.md`'s fields.
    pub identity: &'a BTreeMap<String, String>,
    /// What was said.
    pub text: &'a str,
    /// Whether the sender's key is the owner's.
    pub from_owner: bool,
    /// Longest answer, in characters.
    pub max_chars: usize,
}

impl ConverseAsk<'_> {
    /// An IDENTITY.md field, or `fallback`.
    pub fn field(&self, key: &str, fallback: &str) -> String {
        self.identity
            .get(key)
            .cloned()
            .unwrap_or_else(|| fallback.to_owned())
    }

    /// Whether the message is Japanese (the answer follows its language).
    pub fn japanese(&self) -> bool {
        is_japanese(self.text)
    }
}

/// Whether `text` has Japanese in it.
pub fn is_japanese(text: &str) -> bool {
    text.chars()
        .any(|c| matches!(c, '\u{3040}'..='\u{30ff}' | '\u{4e00}'..='\u{9fff}'))
}

/// The built-in answer: acknowledges in the persona's voice, says what it can do, and points
/// the owner at the brains for anything that needs a decision.
pub fn built_in(ask: &ConverseAsk<'_>) -> String {
    let name = ask.field("name", "Buddy");
    let owner = ask.field("owner_title", "my owner");
    let ja = ask.japanese();
    let reply = match (ask.from_owner, ja) {
        (true, false) => format!(
            "{} Got it: \"{}\". I'm on the built-in mind right now, so I keep it short. For anything that needs a decision, DM gorilla with `task: …` and the brains will debate it.",
            ask.field("greeting", "Hi."),
            snippet(ask.text, 80)
        ),
        (true, true) => format!(
            "{name}です。「{}」、了解しました。判断が必要なことは gorilla に「task: …」とDMしてください。",
            snippet(ask.text, 60)
        ),
        (false, false) => format!(
            "{} {} I'll make sure {owner} sees this: \"{}\".",
            ask.field("greeting", "Hi."),
            ask.field("about", ""),
            snippet(ask.text, 80)
        ),
        (false, true) => format!("{name}です。「{}」、受け取りました。", snippet(ask.text, 60)),
    };
    signed(ask, reply)
}

/// `reply` with the persona's sign-off (English only), cut to the ask's length.
pub fn signed(ask: &ConverseAsk<'_>, reply: String) -> String {
    let reply = match ask.identity.get("signoff") {
        Some(s) if !ask.japanese() && !reply.trim_end().ends_with(s.as_str()) => {
            format!("{reply}\n{s}")
        }
        _ => reply,
    };
    snippet(&reply, ask.max_chars)
}

/// At most `max` characters of `text` (on one line, unless long answers are allowed).
pub fn snippet(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return if text.contains('\n') && max > 200 {
            text.trim().to_string()
        } else {
            flat
        };
    }
    let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask<'a>(
        identity: &'a BTreeMap<String, String>,
        text: &'a str,
        owner: bool,
    ) -> ConverseAsk<'a> {
        ConverseAsk {
            agent: "buddy",
            soul: "You are kind.",
            identity,
            text,
            from_owner: owner,
            max_chars: 600,
        }
    }

    #[test]
    fn the_built_in_answer_speaks_the_message_s_language_in_persona() {
        let id: BTreeMap<String, String> = [
            ("name", "Mochi"),
            ("greeting", "Hey!"),
            ("signoff", "— Mochi"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let en = built_in(&ask(&id, "Remind me to call grandma", true));
        assert!(
            en.starts_with("Hey! Got it") && en.contains("grandma") && en.ends_with("— Mochi"),
            "{en}"
        );
        let ja = built_in(&ask(&id, "明日の天気は？", false));
        assert!(
            ja.starts_with("Mochiです") && !ja.contains("— Mochi"),
            "{ja}"
        );
    }
}
