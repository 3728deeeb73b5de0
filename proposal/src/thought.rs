//! What a mind produced, with who produced it and how long it took.

/// What a mind produced, and which mind it really was.
#[derive(Debug, Clone, PartialEq)]
pub struct Thought<T> {
    /// The answer.
    pub value: T,
    /// `built-in` or `model:NAME`: who actually thought this.
    pub mind: String,
    /// Why the model's answer was not used, when the built-in mind stood in.
    pub fallback: Option<String>,
    /// Milliseconds spent in the mind.
    pub millis: u64,
}

impl<T> Thought<T> {
    /// A thought that took no time: the built-in mind's ready answer, or a proposal made by
    /// fixed code (`mind` says which: a command, a reviewed draft).
    pub fn instant(mind: &str, value: T) -> Self {
        Self {
            value,
            mind: mind.into(),
            fallback: None,
            millis: 0,
        }
    }

    /// `think`'s answer as a thought of `mind`'s, timed.
    pub fn timed(mind: &str, think: impl FnOnce() -> T) -> Self {
        let start = std::time::Instant::now();
        let value = think();
        Self {
            value,
            mind: mind.into(),
            fallback: None,
            millis: start.elapsed().as_millis() as u64,
        }
    }
}
