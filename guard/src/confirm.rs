//! CONFIRM: asking the owner by NIP-17 DM and reading the answer (DESIGN §5).
//!
//! The question carries a short code; an answer counts when it replies to the question (`e`
//! tag) or quotes the code. Only a clear yes is a yes: anything else, and silence past the
//! time-to-live (10 minutes of town time), is a no. The asking itself is in `ask.rs`.

use std::time::Duration;

/// How long the owner has to answer, in town time.
pub const CONFIRM_TTL: Duration = Duration::from_secs(600);

/// The owner's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// A clear yes.
    Yes,
    /// A no, an unclear answer, or none in time.
    No,
}

/// Reads an answer: yes only when the first word is a yes word.
pub fn read_answer(text: &str) -> Answer {
    const YES: &[&str] = &[
        "yes",
        "y",
        "ok",
        "okay",
        "approve",
        "approved",
        "confirm",
        "confirmed",
        "はい",
        "承認",
        "了解",
        "ok!",
        "yes!",
        "1",
    ];
    let first = text
        .split(|c: char| c.is_whitespace() || c == ',' || c == '.' || c == '、' || c == '。')
        .find(|w| !w.is_empty())
        .unwrap_or("")
        .to_lowercase();
    if YES.contains(&first.as_str()) {
        Answer::Yes
    } else {
        Answer::No
    }
}

/// The code that ties an answer to its question: the first 6 hex digits of the subject.
pub fn code_for(subject: &str) -> String {
    subject.chars().take(6).collect()
}

/// What a question tells the owner to send back to say yes.
pub fn how_to_answer(code: &str) -> String {
    format!("Reply \"yes {code}\"")
}

/// The code a question (as [`how_to_answer`] words it) asks to be answered with, if `text` is
/// such a question.
pub fn code_asked(text: &str) -> Option<&str> {
    let rest = text.split("Reply \"yes ").nth(1)?;
    let code = rest.split('"').next()?;
    (!code.is_empty() && code.len() <= 16).then_some(code)
}

#[cfg(test)]
mod question_tests {
    use super::*;

    #[test]
    fn a_question_names_its_code() {
        let q = format!(
            "run delete_files: sure?\n\n{} to go ahead.",
            how_to_answer("1a2b3c")
        );
        assert_eq!(code_asked(&q), Some("1a2b3c"));
        assert_eq!(code_asked("yes 1a2b3c"), None);
    }
}
