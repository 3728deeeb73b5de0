//! A resident's answer in a thread, from the model: the resident's profile, the thread's
//! earlier turns and what was said, in the prompt. The answer must be in the resident's
//! language and pass the resident's check, or the built-in answer stands in.

use std::time::Instant;

use super::prompt::Message;
use super::{ModelMind, Style};
use crate::conversation::{built_in, ReplyAsk};
use crate::profile::Language;
use crate::writer;
use crate::{Shape, Thought, Want};

/// Longest answer, in characters (a reply is shorter than a post).
const MAX_CHARS: usize = 200;

/// The messages for a resident's answer.
pub fn messages(constitution: &str, ask: &ReplyAsk<'_>) -> Vec<Message> {
    let p = ask.profile;
    let language = match p.language {
        Language::Ja => "Japanese",
        Language::En => "English",
    };
    let system = format!(
        "# 1. Soul — the constitution. It ranks above everything below.\n\n{}\n\n# 2. Who you are\n\nYou are {} ({}), a resident of a small town. {}\nInterests: {}. Style: {}\n\n# 3. How to answer\n\nAnswer the last message of the thread as yourself, in {language}, in at most {MAX_CHARS} characters: take up what was said, keep the conversation going if you like them (affinity {:.1} of 1), and name no real person. Answer with exactly one JSON object, no prose around it:\n{{\"output_type\":\"text_response\",\"reasoning\":{{\"intent_understanding\":\"what they said and how you feel about it\",\"no_tool_reason\":\"a reply is words\"}},\"confidence\":{{\"overall\":0.0-1.0}},\"text_response\":\"your reply\"}}\nReasoning must total at least 20 characters. No other fields.",
        constitution.trim(),
        p.display_name,
        p.name,
        p.personality,
        p.interests.join(", "),
        p.style,
        ask.affinity
    );
    let mut user = String::from("The thread so far:\n");
    for (who, what) in ask.thread {
        user.push_str(&format!("- {who}: {what}\n"));
    }
    user.push_str(&format!("\n{} says to you: {}", ask.to, ask.said));
    vec![
        Message {
            role: "system",
            content: system,
        },
        Message {
            role: "user",
            content: user,
        },
    ]
}

impl ModelMind {
    /// The model's answer, or the built-in one (recorded) when it cannot be used.
    pub(super) async fn reply_now(&self, ask: &ReplyAsk<'_>) -> Thought<Option<String>> {
        let start = Instant::now();
        let got = self
            .ask(&messages(&self.cfg.soul, ask), Want::Plain, Style::Writing)
            .await
            .and_then(|out| match out.proposal.shape {
                Shape::Text(t) => {
                    let t = t.trim().to_owned();
                    if t.is_empty() || t.chars().count() > MAX_CHARS {
                        Err(format!("a reply must be 1..={MAX_CHARS} characters"))
                    } else if !writer::written_in(&t, ask.profile.language) {
                        Err("the reply is not in the resident's language".into())
                    } else if !(ask.accept)(&t) {
                        Err("the reply breaks what the resident must avoid".into())
                    } else {
                        Ok(Some(t))
                    }
                }
                _ => Err("a reply must be a text_response".into()),
            });
        self.settle(ask.agent, "reply", got, start, || built_in(ask))
            .await
    }
}
